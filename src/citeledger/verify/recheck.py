"""``citeledger recheck``: retrieve again and say what became of each checked passage.

Seed 002's branches, told apart because they mean different things to a reader:

- unchanged — the same body (same digest, or 304 Not Modified): the check stands;
- moved     — a new body, and the quote is found at another place: a new receipt, the old kept;
- changed   — a new body without the quote: ``source-changed``, showing when it was last seen;
- gone      — the identifier no longer resolves (404/410, host gone): ``source-changed``, the
              strongest warning, because nothing can be checked any more;
- version changed — the work was re-issued after the check: a newer arXiv version than the one
              checked, or a registry update notice (correction, new version: ``updated-by`` /
              ``update-to`` in the CSL-JSON) that was not there before. Both versions are named,
              the checked version stays the evidence (its receipt is re-recorded with
              ``version_changed``), and the build shows a warning beside the checked citation.

A transient failure (timeout, 503, refused) is NOT a change: the previous check stands and the
run says it could not recheck. History is appended, never overwritten.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from citeledger.inert import visible
from citeledger.model import Ledger, Receipt, Source
from citeledger.verify.receipts import Capture, failure_receipts, receipts_for_capture
from citeledger.verify.run import Mode, execute, select_sources

GONE_KINDS = frozenset({"not-found", "dns"})  # the identifier no longer resolves


def _checked_before(source: Source) -> bool:
    return any(r.outcome == "found" for q in source.quotes for r in q.receipts)


def select_rechecked(ledger: Ledger, only: Sequence[str]) -> list[Source]:
    return [s for s in select_sources(ledger, only) if _checked_before(s)]


def classify(previous: Receipt | None, new: Receipt) -> tuple[str, Receipt]:
    """One quote's new receipt → its branch, turning a not-found into ``changed``."""
    if new.outcome == "found":
        if previous is not None and previous.body_sha256 == new.body_sha256:
            return "unchanged", new
        if previous is not None and previous.char_start == new.char_start:
            return "updated (passage in place)", new
        return "moved", new
    if new.outcome == "not-found":
        last = previous.retrieved_at if previous else "never"
        changed = dataclasses.replace(
            new,
            outcome="changed",
            reason=f"the quoted passage is not in the current version (last seen {last})",
        )
        return "CHANGED", changed
    return "UNRETRIEVABLE", new


_NOT_VERSIONS = frozenset({"retraction", "retracted", "withdrawal", "removal"})  # judge's job


def _version_number(version: Any) -> int | None:
    text = str(version or "").strip().lower().lstrip("v")
    return int(text) if text.isdigit() else None


def _notices(metadata: Any) -> dict[str, str]:
    """Update notices of a CSL-JSON record, by DOI: "correction 10.1/x (2026-03-01)"."""
    out: dict[str, str] = {}
    for name in ("updated-by", "update-to"):
        for entry in (metadata or {}).get(name) or ():
            if not isinstance(entry, dict):
                continue
            kind = str(entry.get("type") or entry.get("label") or "update").replace("_", " ")
            if kind.lower() in _NOT_VERSIONS:
                continue
            doi = str(entry.get("DOI") or entry.get("doi") or "")
            parts = ((entry.get("updated") or {}).get("date-parts") or [[]])[0]
            when = "-".join(f"{int(p):02d}" for p in parts) if parts else ""
            out[doi or kind] = f"{kind} {doi}".strip() + (f" ({when})" if when else "")
    return out


def version_change(previous: Receipt | None, metadata: Any) -> str | None:
    """What re-issued the work since ``previous`` was made, naming both versions; None if
    nothing did (or the registry said nothing either time)."""
    if previous is None or not metadata:
        return None
    before = previous.metadata or {}
    # arXiv: the version checked, against the newest it lists (a pinned id stays its version)
    old = before.get("version")
    new = metadata.get("latest_version") or metadata.get("version")
    old_n, new_n = _version_number(old), _version_number(new)
    if old_n is not None and new_n is not None and new_n > old_n:
        return f"a newer version of the work exists: checked {old}, now {new}"
    fresh = {k: v for k, v in _notices(metadata).items() if k not in _notices(before)}
    if fresh:
        checked = f"checked {old}" if old else f"checked the version of {previous.retrieved_at}"
        notices = "; ".join(fresh.values())
        return f"the registry records an update since the check: {notices} ({checked})"
    return None


def _keep_checked(source: Source, change: str) -> list[tuple[int, Receipt]]:
    """The checked receipts again, each saying what superseded its version: the evidence
    stays the version that was checked (signature and log entry belong to the original)."""
    return [
        (
            i,
            dataclasses.replace(
                q.last_found,
                version_changed=visible(change),
                history=None,
                signed_by=None,
                signed_at=None,
                signature=None,
            ),
        )
        for i, q in enumerate(source.quotes)
        if q.last_found is not None and q.last_found.version_changed != visible(change)
    ]


def recheck_outcome(
    source: Source, outcome: Any, cap: Capture | None
) -> tuple[list[tuple[int, Receipt]], str]:
    if outcome.error is None:
        previous = next((q.last_found for q in source.quotes if q.last_found), None)
        change = version_change(previous, outcome.metadata)
        if change is not None:
            kept = _keep_checked(source, change)
            return kept, f"VERSION CHANGED ({change}); the checked version stays the evidence"
    if outcome.error is not None:
        kind = getattr(outcome.error, "kind", "")
        if kind not in GONE_KINDS:
            return [], f"could not recheck ({outcome.error.message}); the previous check stands"
        gone = failure_receipts(
            source,
            f"the identifier no longer resolves: {outcome.error.message}",
            outcome.retrieved_at,
            outcome="gone",
        )
        return gone, f"GONE ({outcome.error.message})"
    if cap is None:
        return [], "unchanged (not modified since the last check)"
    made = receipts_for_capture(
        source, cap, metadata=outcome.metadata, fulltext_error=outcome.fulltext_error
    )
    result: list[tuple[int, Receipt]] = []
    words: list[str] = []
    for i, receipt in made:
        previous = source.quotes[i].last_found
        label, final = classify(previous, receipt)
        result.append((i, final))
        words.append(label)
    return result, "; ".join(words)


RECHECK = Mode("recheck", recheck_outcome, select_rechecked, conditional=True)


def run_recheck(ledger_path: str, **options: Any) -> int:
    return execute(RECHECK, ledger_path, **options)
