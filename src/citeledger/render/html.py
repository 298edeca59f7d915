"""HTML-family rendering: the design's Divs and Spans, styled by ``templates/citeledger.css``.

The stylesheet goes into ``header-includes`` as one ``<style>`` block (appended, never replacing
the writer's own). Without it — ``-H`` replaces header-includes, a site may strip styles — the
callout still reads: its title is bold words, not a colour. ``role="note"`` lets screen readers
announce the callout as what it is. Never prints.
"""

from __future__ import annotations

from typing import ClassVar

from citeledger.render.base import Renderer
from citeledger.render.words import Item


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

    def flag_attributes(self, item: Item) -> list[tuple[str, str]]:
        return [("data-key", item.found.ref.key)]
