"""Pandoc's own Markdown (``-t markdown``): the design's Divs and Spans, written to be read again.

Pandoc's Markdown carries everything the filter makes — citations, ``[…]{…}`` Spans and
``::: {…}`` Divs with their ids, classes and attributes — so this output is an intermediate a
later ``pandoc --filter pandoc-citeledger`` reads back to the same judgement: it finds the
wrappers, flags, callouts and audit by their classes (``render.previous``), removes them and
judges every citation afresh. So callouts are Divs here, not GitHub alerts (which this reader
takes for an ordinary quote), and stand next to their claim as in HTML; internal links work.

One difference from HTML: pandoc writes a Span right after a Cite as ``[@key][…]{…}``, which
its reader takes for a reference link (the citation, its locator and its state lost). So in this
family every link the filter puts after a Cite stands after a space (``render.previous`` takes
the space away with the link). No header: a stylesheet is the business of the final format.
Never prints.
"""

from __future__ import annotations

from typing import ClassVar

from citeledger.build.render import ast
from citeledger.build.render.ast import Node
from citeledger.build.render.base import Renderer
from citeledger.build.render.words import Item


class PandocMarkdownRenderer(Renderer):
    family: ClassVar[str] = "pandoc-markdown"
    links: ClassVar[bool] = True
    spaced_links: ClassVar[bool] = True

    def before_callout(self, block: Node, items: list[Item]) -> None:
        if block.get("t") == "Plain":
            block["t"] = "Para"

    def unverified_after(self, *, spaced: bool) -> list[Node]:
        # a space that opens the marker's Span is dropped when pandoc reads its Markdown back:
        # a no-break space stays (written ``\ ``), so a second run reads the same words
        label = self.unverified_label()
        if spaced:
            label["c"][1].insert(0, ast.str_("\u00a0"))
        return [label]
