"""What ``verify``'s exit code says: 1 when a quote it was asked to check was not found.

``verify`` writes receipts and reports outcomes; a script or Makefile needs one bit more — did
this run find every quote? That is read from the receipts the run wrote (``verify.run.Written``,
handed over by the run, not read back from the ledger): a quote whose new receipt is not
``found`` (not found, unretrievable), or that got no new receipt at all (a request refused
before sending), makes it 1. What the registry says about a found quote (retracted, mismatch)
is the judgement's business and ``check``'s exit code. ``--warn-only`` keeps 0. This module
also leaves a ``.gitignore`` in the store the run wrote (``leftovers``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from citeledger.inert import visible
from citeledger.verify.run import Written


def outcome_code(ledger_path: str, written: Written, *, warn_only: bool) -> int:
    """0 when every verified quote got a ``found`` receipt in this run (or ``warn_only``).

    Read from what the run wrote (``Written``), not from the ledger parsed once more: a
    2,000-source ledger's parse was a third of a second at the end of every run."""
    from citeledger.evidence.leftovers import write_ignore_file

    folders = {Path(ledger_path).resolve().parent / ".citeledger"}
    if written.evidence_dir is not None:
        folders.add(Path(written.evidence_dir))
    for folder in folders:
        write_ignore_file(folder)
    missing = []
    for (key, n), outcome in written.latest.items():
        if outcome is None:
            missing.append(f"@{key} quote {n + 1}: no receipt (not retrieved)")
        elif outcome != "found":
            missing.append(f"@{key} quote {n + 1}: {outcome}")
    if not missing:
        return 0
    word = "quote was" if len(missing) == 1 else "quotes were"
    print(
        visible(f"citeledger: {len(missing)} {word} not found: {'; '.join(missing)}"),
        file=sys.stderr,
    )
    return 0 if warn_only else 1
