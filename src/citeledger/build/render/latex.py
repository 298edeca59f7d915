"""LaTeX-family rendering (latex, beamer, PDF via LaTeX): a framed ``citeledgerbreakdown``.

``templates/citeledger.tex`` defines the environment and ``\\citeledgerflag`` with the LaTeX
kernel alone (``\\fbox``, ``minipage``, ``lrbox``; red via ``\\fcolorbox`` when color/xcolor is
loaded, as pandoc's template does), so any TeX Live builds it; it goes into header-includes.

``pandoc -H file`` replaces metadata header-includes and a filter cannot detect it, so every
use is guarded by ``\\ifdefined``: with ``-H`` the callout is still there as bold-titled
paragraphs, the flag as bold text, and the build does not fail on an undefined environment.
Put ``\\input{citeledger.tex}`` (``citeledger`` ships it) in your ``-H`` file to get the frame.

A citation in the title, subtitle or thanks sits in a moving argument (``\\maketitle`` reads
``\\title`` again), where the ``\\label`` pandoc writes for a Span's id breaks the build. Such
citations (all metadata ones, to be safe) carry their anchors as ``\\protect``ed labels of their
own, written inside the flag and the claim anchor Spans, which keep their classes. Never prints.
"""

from __future__ import annotations

from typing import ClassVar

from citeledger.build.render import ast
from citeledger.build.render.ast import Node
from citeledger.build.render.base import Renderer
from citeledger.build.render.words import Item

BEGIN = r"\ifdefined\citeledgerbreakdown\begin{citeledgerbreakdown}\fi"
END = r"\ifdefined\citeledgerbreakdown\end{citeledgerbreakdown}\fi"
FLAG_OPEN = r"\ifdefined\citeledgerflag\expandafter\citeledgerflag\fi{"
FLAG_CLOSE = "}"


class LatexRenderer(Renderer):
    family: ClassVar[str] = "latex"
    links: ClassVar[bool] = True
    header_format: ClassVar[str | None] = "latex"
    header_template: ClassVar[str | None] = "citeledger.tex"
    header_marker: ClassVar[str] = "citeledger-header"

    def frame(self, blocks: list[Node], items: list[Item]) -> list[Node]:
        return [ast.raw_block("latex", BEGIN), *blocks, ast.raw_block("latex", END)]

    def flag_inlines(self, item: Item) -> list[Node]:
        inner = super().flag_inlines(item)
        return [ast.raw_inline("latex", FLAG_OPEN), *inner, ast.raw_inline("latex", FLAG_CLOSE)]

    def flag(self, item: Item) -> Node:
        node = super().flag(item)
        if item.found.in_metadata:
            node["c"][1].insert(0, _label(node["c"][0][0]))
            node["c"][0][0] = ""
        return node

    def claim_anchor(self, item: Item) -> list[Node]:
        anchors = super().claim_anchor(item)
        if item.found.in_metadata:
            for anchor in anchors:
                anchor["c"][1] = [_label(anchor["c"][0][0])]
                anchor["c"][0][0] = ""
        return anchors

    def mark_claim(self, span: Node, items: list[Item]) -> list[Node]:
        if not any(item.found.in_metadata for item in items):
            return super().mark_claim(span, items)
        # no id on the writer's Span in a moving argument: every claim gets a label of its own
        return [
            a for item in sorted(items, key=lambda i: i.number) for a in self.claim_anchor(item)
        ]


def _label(ident: str) -> Node:
    """An anchor that survives ``\\maketitle`` (pandoc's own ``\\label`` for an id does not)."""
    return ast.raw_inline("latex", f"\\protect\\phantomsection\\protect\\label{{{ident}}}")
