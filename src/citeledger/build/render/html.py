"""HTML-family rendering: the design's Divs and Spans, styled by ``templates/citeledger.css``.

The stylesheet goes into ``header-includes`` as one ``<style>`` block (appended, never replacing
the writer's own). Without it — ``-H`` replaces header-includes, a site may strip styles — the
callout still reads: its title is bold words, not a colour. ``role="note"`` lets screen readers
announce the callout as what it is.

The ``unverified`` label is a small grey badge; its brackets are there in the text and hidden by
the stylesheet, so a page without it still says ``[unverified]``, not a bare word glued on.
Never prints.
"""

from __future__ import annotations

from typing import ClassVar

from citeledger.build.names import UNVERIFIED_LABEL_CLASS
from citeledger.build.render import ast, words
from citeledger.build.render.ast import Node
from citeledger.build.render.base import Renderer
from citeledger.build.render.words import Item

BRACKET_CLASS = "citeledger-bracket"


class HtmlRenderer(Renderer):
    family: ClassVar[str] = "html"
    links: ClassVar[bool] = True
    header_format: ClassVar[str | None] = "html"
    header_template: ClassVar[str | None] = "citeledger.css"
    header_marker: ClassVar[str] = "citeledger-stylesheet"

    def header_text(self, template: str) -> str:
        return f'<style id="citeledger-stylesheet">\n{template.strip()}\n</style>'

    def callout_attributes(self, item: Item) -> list[tuple[str, str]]:
        return [("role", "note"), ("data-key", item.found.ref.key)]

    def group_attributes(self, items: list[Item]) -> list[tuple[str, str]]:
        return [("role", "note")]

    def item_attributes(self, item: Item) -> list[tuple[str, str]]:
        return [("data-key", item.found.ref.key)]

    def banner_attributes(self) -> list[tuple[str, str]]:
        return [("role", "note")]

    def flag_attributes(self, item: Item) -> list[tuple[str, str]]:
        return [("data-key", item.found.ref.key)]

    def unverified_label(self) -> Node:
        def bracket(text: str) -> Node:
            return ast.span(ast.attr("", [BRACKET_CLASS]), [ast.str_(text)])

        a = ast.attr("", [UNVERIFIED_LABEL_CLASS], [("title", words.UNVERIFIED_TITLE)])
        return ast.span(a, [bracket("["), ast.str_(words.UNVERIFIED_WORD), bracket("]")])
