"""Word-processor rendering (docx, odt, icml): pandoc's ``custom-style`` attributes.

A callout's paragraphs take the paragraph style "Citeledger Breakdown" and a flag the character
style "Citeledger Flag"; pandoc creates both when the reference document lacks them, so a writer
may restyle them in a reference.docx. Without any styling the words still carry it: the title
and the flag are bold. The flag's link is inside the styled Span (a run has one character style,
and a link's "Hyperlink" style would otherwise replace ours). Never prints.
"""

from __future__ import annotations

from typing import ClassVar

from citeledger.render import ast
from citeledger.render.ast import Node
from citeledger.render.base import FLAG_CLASS, Renderer
from citeledger.render.words import Item, flag_text

BREAKDOWN_STYLE = "Citeledger Breakdown"
FLAG_STYLE = "Citeledger Flag"


class DocxRenderer(Renderer):
    family: ClassVar[str] = "docx"
    links: ClassVar[bool] = True

    def callout_attributes(self, item: Item) -> list[tuple[str, str]]:
        return [("custom-style", BREAKDOWN_STYLE)]

    def flag(self, item: Item) -> Node:
        classes = [FLAG_CLASS, f"citeledger-{item.state.value}"]
        styled = ast.span(
            ast.attr("", [], [("custom-style", FLAG_STYLE)]),
            [ast.strong([ast.str_(flag_text(item))])],
        )
        inner = styled
        if not item.found.in_link:
            inner = ast.link([styled], self.flag_target(item))
        return ast.span(ast.attr(item.found.anchor, classes), [inner])
