r"""Did citeproc run before the filter? Then say so, once, with the fix.

``pandoc --citeproc --filter pandoc-citeledger`` runs citeproc first: it never got the ledger's
references and read ``quote:ID`` selectors as part of the key, so the writer sees a page of
citeproc warnings ("citation quote:x not found") and no hint why. What citeproc leaves behind
is recognisable: the bibliography Div it fills (class ``csl-bib-body``, or id ``refs`` with class
``references``), and Cites whose content is citeproc's rendering — a reader leaves the writer's
own text there (``[@key]`` from Markdown, a raw ``\cite{key}`` from LaTeX), citeproc replaces it
with "(Smith 2020)" or "(**key?**)". Only top-level blocks, the Divs directly inside them and
the first citation's Cite are looked at: a check, not a second document walk.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from citeledger.build.citations import resolve

WARNING = (
    "citeproc ran before this filter (its bibliography or its formatted citations are already "
    "in the document), so citeproc did not get the ledger's references and took quote: "
    "selectors for keys — put --filter pandoc-citeledger before --citeproc on the pandoc "
    "command line"
)


def _is_bibliography(block: Any) -> bool:
    if not isinstance(block, dict) or block.get("t") != "Div":
        return False
    try:
        ident, classes, _ = block["c"][0]
    except (KeyError, IndexError, TypeError, ValueError):
        return False
    return "csl-bib-body" in classes or (ident == "refs" and "references" in classes)


def citeproc_has_run(doc_json: dict[str, Any]) -> bool:
    """True when citeproc's bibliography Div stands at the top level or one Div down."""
    for block in doc_json.get("blocks", ()):
        if _is_bibliography(block):
            return True
        if isinstance(block, dict) and block.get("t") == "Div":
            content = block.get("c", [None, []])[1]
            if isinstance(content, list) and any(_is_bibliography(b) for b in content):
                return True
    return False


def _rendered(node: Any) -> bool:
    """False when the Cite's content still holds the writer's ``@key`` or a raw command."""

    def writer_text(x: Any) -> bool:
        if isinstance(x, dict):
            if x.get("t") == "RawInline":
                return True
            if x.get("t") == "Str" and "@" in str(x.get("c", "")):
                return True
            return writer_text(x.get("c"))
        if isinstance(x, list):
            return any(writer_text(y) for y in x)
        return False

    try:
        content = node["c"][1]
    except (KeyError, IndexError, TypeError):
        return False
    return bool(content) and not writer_text(content)


def citeproc_warnings(doc_json: dict[str, Any], citations: Sequence[Any] = ()) -> list[str]:
    """The one warning, when citeproc has already run on ``doc_json``."""
    if citeproc_has_run(doc_json):
        return [WARNING]
    for found in [f for f in citations if not f.raw][:1]:  # a raw command is no Cite
        if found.block_index >= 0 and _rendered(resolve(doc_json, found.cite_path)):
            return [WARNING]
    return []
