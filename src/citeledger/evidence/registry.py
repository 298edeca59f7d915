"""The registry's answer about a work (CSL-JSON): is it retracted, is it the work the ledger names.

Pure functions of the answer, shared by ``verify`` (which records the answer in the evidence) and
the judgement (which reads the answer back from the evidence and decides from it, never from a
receipt field the writer can edit). No I/O, no network.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

RETRACTION_TYPES = frozenset({"retraction", "partial_retraction", "withdrawal", "removal"})
_TITLE_MARK = re.compile(r"^\s*\(?(retracted|withdrawn)(?:\s+article)?\b\)?\s*[:.\-–—]?", re.I)
TITLE_MISMATCH_BELOW = 60  # token-set similarity (0-100) under which titles name different works


def _date(value: Any) -> str | None:
    if isinstance(value, Mapping):
        parts = value.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            try:
                return "-".join(
                    f"{int(p):02d}" if i else str(int(p)) for i, p in enumerate(parts[0])
                )
            except (TypeError, ValueError):
                return None
        if isinstance(value.get("date-time"), str):
            return str(value["date-time"][:10])
    if isinstance(value, str | int):
        return str(value)
    return None


def _text(value: Any) -> str:
    if isinstance(value, list):
        value = value[0] if value else ""
    return value if isinstance(value, str) else ""


def retraction_of(metadata: Mapping[str, Any] | None) -> str | None:
    """What the registry's record says about a retraction of this work, or None.

    Signals, in order: ``updated-by`` naming a retraction/withdrawal/removal (Crossref's link from
    the work to its notice); ``update-to`` of that type naming this same DOI or none (a work
    retracted in place); a title starting ``RETRACTED`` or ``WITHDRAWN``. An ``update-to`` naming
    a *different* DOI means this record is the notice about another work, not a retraction of it.
    """
    if not metadata:
        return None
    own = _text(metadata.get("DOI")).strip().lower()
    for field in ("updated-by", "update-to"):
        updates = metadata.get(field)
        if isinstance(updates, Mapping):
            updates = [updates]
        if not isinstance(updates, list):
            continue
        for update in updates:
            if not isinstance(update, Mapping):
                continue
            kind = _text(update.get("type")).strip().lower().replace("-", "_").replace(" ", "_")
            if kind not in RETRACTION_TYPES:
                continue
            target = _text(update.get("DOI") or update.get("doi")).strip().lower()
            if field == "update-to" and target and own and target != own:
                continue
            words = kind.replace("_", " ")
            when = _date(update.get("updated"))
            notice = f", notice {target}" if field == "updated-by" and target else ""
            return f"{words} recorded by the registry" + (f" ({when})" if when else "") + notice
    title = _text(metadata.get("title"))
    mark = _TITLE_MARK.match(title)
    if mark:
        return f"the registry's title is marked {mark.group(1).upper()}: {title.strip()[:120]}"
    return None


def metadata_mismatch(ours: str, metadata: Mapping[str, Any] | None) -> str | None:
    """The registry's title versus the ledger's: a wrong DOI is the commonest citation error."""
    if not metadata:
        return None
    ours = ours.strip()
    theirs = metadata.get("title")
    if isinstance(theirs, list):
        theirs = theirs[0] if theirs else ""
    theirs = str(theirs or "").strip()
    if not ours or not theirs:
        return None
    from rapidfuzz import fuzz  # only when a registry answer is compared

    if fuzz.token_set_ratio(ours.lower(), theirs.lower()) >= TITLE_MISMATCH_BELOW:
        return None
    return f"the ledger says “{ours}”, the registry says “{theirs}”"
