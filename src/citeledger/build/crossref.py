"""What is a cross-reference, not a citation: the one test every reader of ``@key`` shares.

pandoc-crossref (``@fig:x``) and Quarto (``@fig-x``, ``@thm-x``, ``@nte-x``…, and the kinds of
a document's ``crossref: custom:``) write references to labels exactly as citations are
written, so a key with such a prefix is passed over. Passing over a *source* would be a
silent skip — citeproc renders ``[@sec-2020]`` of a writer whose ledger (or .bib) has that
key, and nothing would judge it — so a prefixed key is a cross-reference only when it is no
source, or when the document defines that label (``defined_labels``). A key that is both is
read as the label (as pandoc-crossref and Quarto read it) and warned about. A key the document
defines no label for and that is no source stays a cross-reference: a Quarto book's chapter
refers to labels of other chapters.

``Crossrefs`` carries the keys that are citations despite their prefix through every reader
of the prefixes (the walk, the sentence splitter, raw typst references, the undoing of an
earlier run), so none can disagree. No I/O, no judging.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from typing import Any

# pandoc-crossref (``fig:x``) and Quarto (``fig-x``) reference kinds, Quarto's theorem-like and
# callout kinds included; a document's ``crossref: custom:`` kinds add theirs
_FLOAT_KINDS = ("fig", "sec", "tbl", "eq", "lst")
_THEOREM_KINDS = ("thm", "lem", "cor", "prp", "cnj", "def", "exm", "exr", "sol", "rem")
_CALLOUT_KINDS = ("nte", "tip", "wrn", "imp", "cau")
_LOWER_PREFIXES = (
    *(f"{kind}-" for kind in _FLOAT_KINDS),
    *(f"{kind}:" for kind in _FLOAT_KINDS),
    *(f"{kind}-" for kind in _THEOREM_KINDS + _CALLOUT_KINDS),
)
# both tools capitalise a reference that starts a sentence: ``@Fig:x``, ``@Fig-x``
CROSSREF_PREFIXES = (*_LOWER_PREFIXES, *(p.capitalize() for p in _LOWER_PREFIXES))


class Crossrefs(tuple[str, ...]):
    """A document's cross-reference prefixes, and ``cited``: the keys with such a prefix that
    are citations all the same (a source the document defines no label for)."""

    cited: frozenset[str]

    def __new__(cls, prefixes: Iterable[str], cited: Iterable[str] = ()) -> Crossrefs:
        made = super().__new__(cls, tuple(prefixes))
        made.cited = frozenset(cited)
        return made


def is_crossref(key: str, prefixes: tuple[str, ...] = CROSSREF_PREFIXES) -> bool:
    """Quarto (``fig-x``) and pandoc-crossref (``fig:x``) references are not citations.

    ``prefixes``: ``citations.crossref_prefixes(meta)`` for a document that defines custom
    kinds; a ``Crossrefs`` whose ``cited`` holds the key makes it a citation.
    """
    if not key.startswith(prefixes):
        return False
    return not (isinstance(prefixes, Crossrefs) and key in prefixes.cited)


def defined_labels(doc_json: Any, keys: Collection[str]) -> set[str]:
    """Which of ``keys`` the document defines as a label: an element id (a header, div, span,
    image, figure, table or code block: pandoc's ``["id",[classes],[attributes]]``), or the
    ``{#eq-x}`` / ``{#tbl:x}`` pandoc-crossref and Quarto read after display math and in a
    table caption (text until their filter runs). A search of the JSON text, not a walk: it is
    asked only when a prefixed key is a source, which is rare."""
    from citeledger.build.deep import dumps

    text = dumps(doc_json).decode("utf-8")
    found = set()
    for key in keys:
        ids = {f"[{json.dumps(key, ensure_ascii=False)},[", f"[{json.dumps(key)},["}
        if any(needle in text for needle in ids) or f"{{#{key}}}" in text:
            found.add(key)
    return found


def label_warning(key: str, ledger: str) -> str:
    """A key that is both a source and a label: which it is read as, and what to rename."""
    return (
        f"@{key} is a source (a key of the ledger {ledger} or of the document's bibliography) "
        f"and also a label this document defines ({{#{key}}}): it is read as a "
        "cross-reference, so the source is not cited there. "
        f"Rename the label (e.g. {{#{key}-x}}, and its references) or the ledger key (and "
        "its citations)."
    )
