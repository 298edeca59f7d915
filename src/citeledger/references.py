"""Bibliographic data for citeproc, taken from the ledger: one source of truth for a reference.

The ledger's CSL fields become the document's ``references`` metadata, so ``--filter
pandoc-citeledger --citeproc`` formats citations without a separate .bib file. A reference the
document already defines is left alone (the writer's own wins), and a ``restricted`` source is
never added: its title must not reach a reader through the bibliography either.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from citeledger.model import Judgement, State


def to_meta(value: Any) -> dict[str, Any]:
    """A plain CSL-JSON value as pandoc metadata (strings stay strings: citeproc parses them)."""
    if isinstance(value, Mapping):
        return {"t": "MetaMap", "c": {str(k): to_meta(v) for k, v in value.items()}}
    if isinstance(value, (list, tuple)):
        return {"t": "MetaList", "c": [to_meta(v) for v in value]}
    if isinstance(value, bool):
        return {"t": "MetaBool", "c": value}
    return {"t": "MetaString", "c": str(value)}


def _existing_ids(meta: Mapping[str, Any]) -> set[str]:
    refs = meta.get("references")
    ids: set[str] = set()
    if not refs or refs.get("t") != "MetaList":
        return ids
    for item in refs["c"]:
        if item.get("t") == "MetaMap":
            ident = item["c"].get("id", {})
            if ident.get("t") == "MetaString":
                ids.add(ident["c"])
            elif ident.get("t") == "MetaInlines":
                ids.add("".join(x.get("c", "") for x in ident["c"] if x.get("t") == "Str"))
    return ids


def add_references(meta: dict[str, Any], judgements: Iterable[Judgement]) -> int:
    """Append the ledger's CSL data of every judged, shown source; return how many were added."""
    have = _existing_ids(meta)
    new: list[dict[str, Any]] = []
    for j in judgements:
        if j.source is None or j.state is State.RESTRICTED or j.key in have:
            continue
        have.add(j.key)
        csl: dict[str, Any] = {"id": j.key, "type": "document", **dict(j.source.csl)}
        ident = j.source.identifier
        if ident.kind == "doi":
            csl.setdefault("DOI", ident.value)
        elif ident.kind == "url":
            csl.setdefault("URL", ident.value)
        elif ident.kind == "isbn":
            csl.setdefault("ISBN", ident.value)
        elif ident.kind == "arxiv":
            csl.setdefault("URL", f"https://arxiv.org/abs/{ident.value}")
        new.append(to_meta(csl))
    if not new:
        return 0
    refs = meta.get("references")
    if refs and refs.get("t") == "MetaList":
        refs["c"].extend(new)
    elif refs is None:
        meta["references"] = {"t": "MetaList", "c": new}
    else:
        return 0  # a references value we do not understand: leave the writer's data alone
    return len(new)
