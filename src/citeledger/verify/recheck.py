"""``citeledger recheck``: retrieve again and say what became of each checked passage.

Seed 002's branches, told apart because they mean different things to a reader:

- unchanged — the same body (same digest, or 304 Not Modified): the check stands;
- moved     — a new body, and the quote is found at another place: a new receipt, the old kept;
- changed   — a new body without the quote: ``source-changed``, showing when it was last seen;
- gone      — the identifier no longer resolves (404/410, host gone): ``source-changed``, the
              strongest warning, because nothing can be checked any more.

A transient failure (timeout, 503, refused) is NOT a change: the previous check stands and the
run says it could not recheck. History is appended, never overwritten.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

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


def recheck_outcome(
    source: Source, outcome: Any, cap: Capture | None
) -> tuple[list[tuple[int, Receipt]], str]:
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
