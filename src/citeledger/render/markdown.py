"""Markdown-family rendering (gfm, commonmark, markdown…): GitHub alerts.

A callout is a block quote whose first line is ``[!CAUTION]`` (a raw ``markdown`` inline, which
every Markdown writer passes through), so GitHub renders it as a red "Caution" alert and any other
Markdown viewer still shows a quoted block starting with the title in bold. The callout is not
wrapped in a Div: a Div becomes ``<div>`` HTML around the quote and GitHub no longer sees an
alert; ids would not survive GitHub's sanitiser anyway, so there are no internal links here
(the flag and the callout carry the same citation number instead). Never prints.
"""

from __future__ import annotations

from typing import ClassVar

from citeledger.render import ast
from citeledger.render.ast import Node
from citeledger.render.base import Renderer
from citeledger.render.words import Item

ALERT = "[!CAUTION]\n"


class MarkdownRenderer(Renderer):
    family: ClassVar[str] = "markdown"
    links: ClassVar[bool] = False

    def callout(self, item: Item) -> Node:
        blocks = self.callout_content(item)
        first = blocks[0]
        first["c"].insert(0, ast.raw_inline("markdown", ALERT))
        return ast.block_quote(blocks)
