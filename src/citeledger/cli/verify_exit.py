"""What ``verify``'s exit code says: 1 when a quote it was asked to check was not found.

``verify`` writes receipts and reports outcomes; a script or Makefile needs one bit more — did
this run find every quote? That is read from the receipts the run added to the ledger: a quote
whose new receipt is not ``found`` (not found, unretrievable), or that got no new receipt at all
(a request refused before sending), makes it 1. What the registry says about a found quote
(retracted, mismatch) is the judgement's business and ``check``'s exit code. ``--warn-only``
keeps 0. This module also leaves a ``.gitignore`` in the store the run wrote (``leftovers``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from citeledger.inert import visible
from citeledger.model import Ledger

Counts = dict[tuple[str, int], int]


def receipt_counts(ledger_path: str) -> Counts:
    """How many receipts each quote has before the run: (key, quote index) → count."""
    from citeledger.ledger import load_ledger

    return _counts(load_ledger(ledger_path))


def _counts(led: Ledger) -> Counts:
    return {
        (key, n): len(q.receipts)
        for key, source in led.sources.items()
        for n, q in enumerate(source.quotes)
    }


def outcome_code(ledger_path: str, only: Sequence[str], before: Counts, *, warn_only: bool) -> int:
    """0 when every verified quote got a ``found`` receipt in this run (or ``warn_only``)."""
    from citeledger.evidence.leftovers import write_ignore_file
    from citeledger.ledger import load_ledger
    from citeledger.verify.run import select_sources

    led = load_ledger(ledger_path)
    for folder in {Path(led.evidence_dir), Path(ledger_path).resolve().parent / ".citeledger"}:
        write_ignore_file(folder)
    missing = []
    for source in select_sources(led, only):
        for n, quote in enumerate(source.quotes):
            new = quote.receipts[before.get((source.key, n), 0) :]
            if not new:
                missing.append(f"@{source.key} quote {n + 1}: no receipt (not retrieved)")
            elif new[-1].outcome != "found":
                missing.append(f"@{source.key} quote {n + 1}: {new[-1].outcome}")
    if not missing:
        return 0
    word = "quote was" if len(missing) == 1 else "quotes were"
    print(
        visible(f"citeledger: {len(missing)} {word} not found: {'; '.join(missing)}"),
        file=sys.stderr,
    )
    return 0 if warn_only else 1
