"""Rendering of judged citations, one module per output family.

Pandoc tells a filter its output format (argv[1]); ``renderer_for`` maps it to a family:

- ``html`` (html, html4, html5, epub*, revealjs, slidy, s5, dzslides, slideous, chunkedhtml):
  Divs and Spans with the design's classes, plus ``templates/citeledger.css`` in header-includes;
- ``latex`` (latex, beamer, and pdf builds, for which pandoc passes ``latex``): the
  ``citeledgerbreakdown`` environment of ``templates/citeledger.tex``;
- ``docx`` (docx, odt, icml): ``custom-style`` "Citeledger Breakdown" / "Citeledger Flag", with
  bold words so it reads without a reference document;
- ``pandoc-markdown`` (pandoc's ``markdown``, the one Markdown that carries citations): the
  design's Divs and Spans, so the output reads back to the same judgement;
- ``markdown`` (gfm, commonmark, commonmark_x, markdown_strict, _mmd, _phpextra): no HTML of the
  filter's: plain citations and links, bold flags, GitHub alerts ``> [!CAUTION]``;
- ``typst``: a framed, coloured block and flag, the show rules of ``templates/citeledger.typ``
  in header-includes;
- ``plain`` (plain, rst, org, asciidoc, docbook, jats, man, …, anything unknown): a block
  quote whose first words are the title in bold (in capitals for ``plain``, which drops bold).

In a Quarto build (``render.quarto``) callouts also carry Quarto's ``callout-warning`` or
``callout-important`` class. In every family a checked citation of a web source carries a
``source`` link to the passage (not in ``plain``, which drops URLs), and a writer's
``[…]{.unverified}`` Span or ``::: unverified`` Div carries a visible ``[unverified]`` word
marker — a declaration, styled neither as a check nor as a breakdown (``render.base``).

Renderers build AST nodes and nothing else: they never judge, read the ledger or print.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from citeledger.build.render.base import Renderer

_FAMILIES = {
    "html": "html",
    "html4": "html",
    "html5": "html",
    "epub": "html",
    "epub2": "html",
    "epub3": "html",
    "revealjs": "html",
    "slidy": "html",
    "s5": "html",
    "dzslides": "html",
    "slideous": "html",
    "chunkedhtml": "html",
    "latex": "latex",
    "beamer": "latex",
    "pdf": "latex",
    "docx": "docx",
    "odt": "docx",
    "icml": "docx",
    "typst": "typst",
    "gfm": "markdown",
    "markdown_github": "markdown",
    "commonmark": "markdown",
    "commonmark_x": "markdown",
    "markdown": "pandoc-markdown",
    "markdown_strict": "markdown",
    "markdown_mmd": "markdown",
    "markdown_phpextra": "markdown",
}


def base_format(fmt: str) -> str:
    """``gfm+alerts`` → ``gfm``; a custom writer's path (``x.lua``) stays as given."""
    return re.split(r"[+-]", fmt.strip().lower(), maxsplit=1)[0]


def family_of(fmt: str) -> str:
    return _FAMILIES.get(base_format(fmt), "plain")


def renderer_for(fmt: str, *, audit: bool = False, quarto: bool = False) -> Renderer:
    """The renderer of ``fmt``'s family; ``audit``: flags link to their audit rows; ``quarto``:
    callouts also carry Quarto's callout classes (``render.quarto``)."""
    from importlib import import_module

    family = family_of(fmt)
    # only the family's own module: every build pays for its imports (docx's pull in xml)
    module, name = _RENDERERS[family]
    made: type[Renderer] = getattr(import_module(f"citeledger.build.render.{module}"), name)
    renderer = made(base_format(fmt), audit=audit)
    if quarto:
        from citeledger.build.render.quarto import for_quarto

        return for_quarto(renderer)
    return renderer


_RENDERERS = {
    "html": ("html", "HtmlRenderer"),
    "latex": ("latex", "LatexRenderer"),
    "docx": ("docx", "DocxRenderer"),
    "markdown": ("markdown", "MarkdownRenderer"),
    "pandoc-markdown": ("pandoc_markdown", "PandocMarkdownRenderer"),
    "typst": ("typst", "TypstRenderer"),
    "plain": ("plain", "PlainRenderer"),
}
