"""Every other format (plain, rst, org, asciidoc, jats, man, …): a visible fallback.

The callout is a block quote inside the design's Div (writers that know Divs keep the classes and
the id; the others drop them and keep the quote). Its title is bold; the ``plain`` writer drops
bold, so there the title is in capitals. The ``plain`` writer also drops every URL, so a
checked citation gets no ``source`` link there (it would be a word leading nowhere). Never prints.
"""

from __future__ import annotations

from typing import ClassVar

from citeledger.build.render import ast
from citeledger.build.render.ast import Node
from citeledger.build.render.base import Renderer
from citeledger.build.render.words import Item


class PlainRenderer(Renderer):
    family: ClassVar[str] = "plain"
    links: ClassVar[bool] = False

    @property
    def shout(self) -> bool:
        return self.fmt == "plain"

    def frame(self, blocks: list[Node], items: list[Item]) -> list[Node]:
        return [ast.block_quote(blocks)]

    @property
    def source_links(self) -> bool:
        return self.fmt != "plain"
