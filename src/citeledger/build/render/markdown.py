"""Markdown-family rendering (gfm, commonmark, markdown…): GitHub alerts.

A callout is a block quote whose first line is ``[!CAUTION]`` (a raw ``markdown`` inline, which
every Markdown writer passes through), so GitHub renders it as a red "Caution" alert and any other
Markdown viewer still shows a quoted block starting with the title in bold. The callout is not
wrapped in a Div: a Div becomes ``<div>`` HTML around the quote and GitHub no longer sees an
alert; ids would not survive GitHub's sanitiser anyway, so there are no internal links here
(the flag and the callout carry the same citation number instead).

GitHub renders an alert only at the top level of a document: inside a list item, a block quote,
a definition or a footnote it shows a literal ``[!CAUTION]``. So in this family every callout
goes after the top-level block that holds its claim (``top_level_callouts``), in citation
order, rather than next to the claim inside it. Never prints.
"""

from __future__ import annotations

from typing import ClassVar

from citeledger.build.citations import ALERT_MARK
from citeledger.build.render import ast
from citeledger.build.render.ast import Node
from citeledger.build.render.base import Renderer
from citeledger.build.render.words import Item

ALERT = ALERT_MARK  # how a second run (render.previous) knows the callout is ours


class MarkdownRenderer(Renderer):
    family: ClassVar[str] = "markdown"
    links: ClassVar[bool] = False
    top_level_callouts: ClassVar[bool] = True

    def callout(self, items: list[Item]) -> Node:
        return _alert(super().callout(items)["c"][1])


def _alert(blocks: list[Node]) -> Node:
    """A GitHub alert: a block quote whose first line is ``[!CAUTION]``."""
    blocks[0]["c"].insert(0, ast.raw_inline("markdown", ALERT))
    return ast.block_quote(blocks)
