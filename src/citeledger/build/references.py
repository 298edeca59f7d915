"""Bibliographic data for citeproc, taken from the ledger: one source of truth for a reference.

The ledger's CSL fields become the document's ``references`` metadata, so ``--filter
pandoc-citeledger --citeproc`` formats citations without a separate .bib file. For a key the
ledger holds, the ledger's entry replaces one the document defines in ``references``: the check
was made against the ledger's identifier, and a reader must not be shown another work's DOI
beside a "checked" mark. A ``restricted`` source is never added: its title must not reach a
reader through the bibliography either. (Entries in ``bibliography:`` files are citeproc's to
merge; the README says to keep ledger keys out of them.)

The entry's ``DOI``, ``URL`` and ``ISBN`` come from the source's identifier alone: the check was
made against that identifier, so a CSL field naming another address or work (a ``DOI:`` on a
``file:`` source, a ``URL:`` beside a ``doi:``) is left out rather than shown beside "checked".
A dropped DOI is said in a warning: it is the one most likely to name a different work.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from citeledger.inert import visible
from citeledger.model import Judgement, State


def to_meta(value: Any) -> dict[str, Any]:
    """A plain CSL-JSON value as pandoc metadata (strings stay strings: citeproc parses them)."""
    if isinstance(value, Mapping):
        return {"t": "MetaMap", "c": {str(k): to_meta(v) for k, v in value.items()}}
    if isinstance(value, (list, tuple)):
        return {"t": "MetaList", "c": [to_meta(v) for v in value]}
    if isinstance(value, bool):
        return {"t": "MetaBool", "c": value}
    return {"t": "MetaString", "c": visible(str(value))}  # pdflatex stops on a raw ^^[


def ref_id(item: Mapping[str, Any]) -> str | None:
    """A ``references`` entry's ``id`` as citeproc reads it (``meta_text``)."""
    if item.get("t") != "MetaMap" or not isinstance(item.get("c"), Mapping):
        return None
    return meta_text(item["c"].get("id"))


def meta_text(value: Any) -> str | None:
    """A metadata value as plain text, the way pandoc's ``stringify`` reads it: markup dropped
    (``**sec-2020**``, ``[sec-2020]{.x}`` are ``sec-2020``), quotes curly, a space one space;
    a list's items joined by spaces, as citeproc joins them. None when it holds no text."""
    from citeledger.build.sentences import raw_text

    if not isinstance(value, Mapping):
        return None
    t, c = value.get("t"), value.get("c")
    if t == "MetaString" and isinstance(c, str):
        return c
    if t == "MetaInlines" and isinstance(c, list):
        return raw_text(c)
    if t == "MetaBlocks" and isinstance(c, list):  # ``id: |`` — each block's text, run together
        return "".join(
            raw_text(b["c"]) for b in c if isinstance(b, Mapping) and b.get("t") in _PROSE
        )
    if t == "MetaList" and isinstance(c, list):
        texts = [meta_text(v) for v in c]
        return " ".join(x for x in texts if x is not None)
    return None


#: blocks whose content is a list of inlines
_PROSE = ("Para", "Plain")


#: CSL variables that name a work or an address: in an entry, only the identifier's own.
_ADDRESSES = ("DOI", "URL", "ISBN")


def add_references(
    meta: dict[str, Any], judgements: Iterable[Judgement], warnings: list[str] | None = None
) -> int:
    """Put the ledger's CSL data of every judged, shown source into ``references``, replacing
    the document's own entry for that key; return how many entries were written. A ``DOI``
    field left out because it is not the identifier is said in ``warnings``."""
    entries: dict[str, dict[str, Any]] = {}
    for j in judgements:
        if j.source is None or j.state is State.RESTRICTED or j.key in entries:
            continue
        csl: dict[str, Any] = {"id": j.key, "type": "document", **dict(j.source.csl)}
        ident = j.source.identifier
        if ident.kind != "doi" and csl.get("DOI") and warnings is not None:
            warnings.append(
                f"@{j.key}: its DOI field ({visible(str(csl['DOI']))}) is left out of the "
                f"bibliography: the check was made against its {ident.kind} identifier; to "
                "cite the DOI, make it the identifier (doi:, with local_copy: for a file)"
            )
        for name in _ADDRESSES:
            csl.pop(name, None)
        if ident.kind == "doi":
            csl["DOI"] = ident.value
        elif ident.kind == "url":
            csl["URL"] = ident.value
        elif ident.kind == "isbn":
            csl["ISBN"] = ident.value
        elif ident.kind == "arxiv":
            csl["URL"] = f"https://arxiv.org/abs/{ident.value}"
        entries[j.key] = to_meta(csl)
    if not entries:
        return 0
    refs = meta.get("references")
    if refs is None:
        meta["references"] = {"t": "MetaList", "c": list(entries.values())}
        return len(entries)
    if refs.get("t") != "MetaList":
        return 0  # a references value we do not understand: leave the writer's data alone
    kept = [item for item in refs["c"] if ref_id(item) not in entries]
    refs["c"] = kept + list(entries.values())
    return len(entries)
