"""typst rendering: a framed, coloured callout and flag, in the colours of the HTML stylesheet.

``templates/citeledger.typ`` goes into ``header-includes``: show rules that frame whatever
carries the label ``<citeledger-breakdown>`` (``<citeledger-decision>`` for a decision on
record) and ``<citeledger-flag>``. The filter writes each callout as a raw
``#quote(block: true)[`` … ``] <citeledger-breakdown>`` around pandoc's own blocks, and each
flag as ``#box[`` … ``]<citeledger-flag>#[]``. Why labels and show rules rather than functions:
a label without its rule is harmless, so with ``pandoc -H`` (which replaces header-includes) or
a fragment build the document still compiles, the callout an indented quote with a bold title,
as LaTeX's guarded frame degrades. typst has no internal links to ids it did not see
(``links`` stays off, as in ``plain``). Never prints.
"""

from __future__ import annotations

from typing import ClassVar

from citeledger.build.render import ast
from citeledger.build.render.ast import Node
from citeledger.build.render.base import Renderer
from citeledger.build.render.palette import DECISION, look_of
from citeledger.build.render.words import Item

QUOTE_OPEN = "#quote(block: true)["
BOX_OPEN = "#box["


class TypstRenderer(Renderer):
    family: ClassVar[str] = "typst"
    links: ClassVar[bool] = False
    header_format: ClassVar[str | None] = "typst"
    header_template: ClassVar[str | None] = "citeledger.typ"
    header_marker: ClassVar[str] = "citeledger-header"

    def frame(self, blocks: list[Node], items: list[Item]) -> list[Node]:
        decision = look_of(item.state for item in items) is DECISION
        label = "<citeledger-decision>" if decision else "<citeledger-breakdown>"
        return [
            ast.raw_block("typst", QUOTE_OPEN),
            *blocks,
            ast.raw_block("typst", f"] {label}"),
        ]

    def flag_inlines(self, item: Item) -> list[Node]:
        decision = look_of([item.state]) is DECISION
        label = "<citeledger-flag-decision>" if decision else "<citeledger-flag>"
        return [
            ast.raw_inline("typst", BOX_OPEN),
            *super().flag_inlines(item),
            # no space before the label (it would show); the empty ``#[]`` takes the label
            # pandoc writes for the flag's id, which would otherwise replace ours on the box
            ast.raw_inline("typst", f"]{label}#[]"),
        ]
