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
from typing import Any, TextIO

from citeledger.evidence import sha256_hex, utc_now
from citeledger.model import Ledger, Receipt, Source
from citeledger.receipts import TOOL, Capture, receipts_for_capture
from citeledger.verify import execute

GONE_KINDS = frozenset({"not-found", "dns"})  # the identifier no longer resolves


def _checked_before(source: Source) -> bool:
    return any(r.outcome == "found" for q in source.quotes for r in q.receipts)


def select_rechecked(ledger: Ledger, only: Sequence[str]) -> list[Source]:
    from citeledger.verify import select_sources

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
        at = utc_now()
        gone = [
            (
                i,
                Receipt(
                    outcome="gone",
                    identifier=str(source.identifier),
                    retrieved_at=at,
                    tool=TOOL,
                    writer_quote_sha256=sha256_hex(q.text),
                    reason=f"the identifier no longer resolves: {outcome.error.message}",
                ),
            )
            for i, q in enumerate(source.quotes)
        ]
        return gone, f"GONE ({outcome.error.message})"
    if cap is None:
        return [], "unchanged (not modified since the last check)"
    made = receipts_for_capture(source, cap, metadata=outcome.metadata)
    result: list[tuple[int, Receipt]] = []
    words: list[str] = []
    for i, receipt in made:
        previous = _last_found(source.quotes[i].receipts)
        label, final = classify(previous, receipt)
        result.append((i, final))
        words.append(label)
    return result, "; ".join(words)


def _last_found(receipts: Sequence[Receipt]) -> Receipt | None:
    for r in reversed(receipts):
        if r.outcome == "found":
            return r
    return None


def run_recheck(
    ledger_path: str,
    *,
    only: Sequence[str] = (),
    dry_run: bool = False,
    assume_yes: bool = False,
    allow_private: bool = False,
    config_path: str | None = None,
    out: TextIO | None = None,
) -> int:
    return execute(
        ledger_path,
        recheck_outcome,
        select=lambda led: select_rechecked(led, only),
        dry_run=dry_run,
        assume_yes=assume_yes,
        allow_private=allow_private,
        config_path=config_path,
        out=out,
        verb="recheck",
        conditional=True,
    )
