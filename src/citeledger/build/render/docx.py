"""Word-processor rendering (docx, odt, icml): pandoc's ``custom-style`` attributes.

A callout's paragraphs take the paragraph style "Citeledger Breakdown", a flag the character
style "Citeledger Flag" and the ``[unverified]`` marker "Citeledger Unverified"; pandoc creates
them when the reference document lacks them, so a writer may restyle them in a reference.docx.

Every paragraph of a callout carries its style, its reason bullets too, and a callout inside a
list item stays inside the item. For DOCX the callout's Div (its id, the anchor the flag links
to; its ``custom-style``, which makes pandoc define the style) holds the paragraphs written as
WordprocessingML (``render.ooxml``): pandoc's writer would give each of them its own
invisible-bullet numbering in a list item and the reasons the list's style. ODT and ICML keep
pandoc's rendering, with the style also set on each reason's own paragraph.
Without any styling the words still carry it: the title, the flag and the marker are bold. The
flag's link is around the styled Span (a run has one character style, and a link's "Hyperlink"
style would otherwise replace ours).

Loud in any reference document (DOCX): the callout's paragraphs carry direct formatting too, a
border and shading in the stylesheet's colours (``render.ooxml``), and the flag is one run of
WordprocessingML, bold, coloured, bordered and shaded, inside the Span that makes pandoc define
the "Citeledger Flag" style. ``templates/reference.docx`` defines the three styles with the same
look, for documents built from it. Never prints.
"""

from __future__ import annotations

from typing import ClassVar

from citeledger.build.names import FLAG_CLASS, UNVERIFIED_LABEL_CLASS
from citeledger.build.render import ast, ooxml
from citeledger.build.render.ast import Node
from citeledger.build.render.base import Renderer
from citeledger.build.render.palette import look_of
from citeledger.build.render.words import Item, flag_text, unverified_text

BREAKDOWN_STYLE = "Citeledger Breakdown"
BREAKDOWN_STYLE_ID = BREAKDOWN_STYLE.replace(" ", "")  # pandoc's id of a custom style
FLAG_STYLE = "Citeledger Flag"
FLAG_STYLE_ID = FLAG_STYLE.replace(" ", "")
UNVERIFIED_STYLE = "Citeledger Unverified"
UNVERIFIED_STYLE_ID = UNVERIFIED_STYLE.replace(" ", "")


class DocxRenderer(Renderer):
    family: ClassVar[str] = "docx"
    links: ClassVar[bool] = True

    def callout_attributes(self, item: Item) -> list[tuple[str, str]]:
        return [("custom-style", BREAKDOWN_STYLE)]

    def group_attributes(self, items: list[Item]) -> list[tuple[str, str]]:
        return [("custom-style", BREAKDOWN_STYLE)]

    def banner_attributes(self) -> list[tuple[str, str]]:
        return [("custom-style", BREAKDOWN_STYLE)]

    def frame(self, blocks: list[Node], items: list[Item]) -> list[Node]:
        """Each run of paragraphs in the callout's style; a grouped item's Div (its bookmark,
        which the flag links to) is kept around its own paragraphs."""
        depth = items[0].found.list_depth if items else 0
        out: list[Node] = []
        run: list[Node] = []
        for block in [*blocks, None]:
            if block is not None and block.get("t") != "Div":
                run.append(block)
                continue
            if run:
                out += self._styled(run, depth, items)
                run = []
            if block is not None:
                own = [i for i in items if i.found.breakdown_anchor == block["c"][0][0]]
                out.append(ast.div(block["c"][0], self._styled(block["c"][1], depth, own or items)))
        return out

    def _styled(self, blocks: list[Node], depth: int, items: list[Item]) -> list[Node]:
        if self.fmt == "docx":
            look = look_of(item.state for item in items)
            xml = ooxml.paragraphs(blocks, BREAKDOWN_STYLE_ID, depth, look)
            if xml is not None:
                return [ast.raw_block("openxml", xml)]
        return [_styled_lists(block) for block in blocks]

    def flag(self, item: Item) -> Node:
        classes = [FLAG_CLASS, f"citeledger-{item.state.value}"]
        words = [ast.strong([ast.str_(flag_text(item))])]
        if self.fmt == "docx":
            xml = ooxml.flag_run(flag_text(item), FLAG_STYLE_ID, look_of([item.state]))
            words = [ast.raw_inline("openxml", xml)]
        styled = ast.span(ast.attr("", [], [("custom-style", FLAG_STYLE)]), words)
        inner = styled
        if not item.found.in_link:
            inner = ast.link([styled], self.flag_target(item))
        return ast.span(ast.attr(item.found.anchor, classes), [inner])

    def unverified_label(self) -> Node:
        styled = ast.span(
            ast.attr("", [], [("custom-style", UNVERIFIED_STYLE)]),
            [ast.strong([ast.str_(unverified_text())])],
        )
        return ast.span(ast.attr("", [UNVERIFIED_LABEL_CLASS]), [styled])


def _styled_lists(block: Node) -> Node:
    """A list whose items' blocks carry the callout's style (a Div's style skips list items)."""
    if block.get("t") != "BulletList":
        return block
    style = ast.attr("", [], [("custom-style", BREAKDOWN_STYLE)])
    return ast.bullet_list([[ast.div(style, item)] for item in block["c"]])
