"""Receipts of finished sources, written to the ledger together rather than one source at a time.

A batch is written when it holds ``every`` sources, when ``seconds`` have passed since the last
write (stretched to four times what the last write cost, so writing stays a small part of the
run however large the ledger), and at the end. The ledger is parsed once per run
(``ledger.held``): a write costs the sources it touches plus one atomic file write, never a
parse of the whole ledger. An interrupted run loses at most the unwritten batch; each write
is one locked, atomic ledger write, so the ledger always loads.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citeledger.evidence import leftovers
from citeledger.evidence.store import history_batch
from citeledger.ledger.held import HeldLedger
from citeledger.model import Receipt, Source
from citeledger.verify.receipts import sign_receipts

EVERY = 500
SECONDS = 2.0


@dataclass(frozen=True)
class Finished:
    """One source's receipts (not yet signed or chained), and what the run says about it."""

    source: Source
    receipts: Sequence[tuple[int, Receipt]]
    line: str
    host: str


@dataclass
class ReceiptBatch:
    ledger_path: str
    evidence_dir: str
    signer: Any
    store: Any = None  # evidence.store.EvidenceStore: its files are fsynced before each write
    every: int = EVERY
    seconds: float = SECONDS
    clock: Callable[[], float] = time.monotonic
    items: list[Finished] = field(default_factory=list)
    digests: list[str] = field(default_factory=list)  # leftovers notes these receipts settle
    head: str | None = None  # the newest history entry written
    head_written: str | None = None  # the history_head the ledger holds, when a write set it
    _last: float = field(default=0.0)
    _cost: float = field(default=0.0)

    def __post_init__(self) -> None:
        self._last = self.clock()
        self._held = HeldLedger(self.ledger_path)  # parsed once, not once per write

    def add(self, done: Sequence[Finished], digest: str | None) -> None:
        self.items.extend(done)
        if digest is not None:
            self.digests.append(digest)

    def due(self) -> bool:
        waited = self.clock() - self._last
        return len(self.items) >= self.every or waited >= max(self.seconds, 4 * self._cost)

    def written_elsewhere(self, head: str | None, head_written: str | None, cost: float) -> None:
        """A write made by another process (``verify.writer``): its history head, the
        ``history_head`` it left in the ledger and its cost, which times the next write."""
        self.head, self.head_written, self._cost = head, head_written, cost
        self._last = self.clock()

    @property
    def cost(self) -> float:
        """Seconds the last write took."""
        return self._cost

    def take(self) -> tuple[list[Finished], list[str]]:
        """What the next write holds; the batch starts afresh."""
        items, digests = self.items, self.digests
        self.items, self.digests = [], []
        return items, digests

    def write(self, items: Sequence[Finished], digests: Sequence[str]) -> list[Finished]:
        """Chain, sign and append the receipts of ``items`` in one ledger write (with the newest
        history entry as ``history_head``); then drop the leftovers notes they settle. Returns
        the items as written."""
        start = self.clock()
        written: list[Finished] = []
        entries: list[tuple[str, int, Receipt]] = []
        chains = history_batch(
            self.evidence_dir,
            [(i.source.key, [r for _, r in i.receipts]) for i in items],
            ledger=self.ledger_path,
            occurrences=[[_occurrence(i.source, n) for n, _ in i.receipts] for i in items],
        )
        for item, chained in zip(items, chains, strict=True):
            receipts = [
                (i, dataclasses.replace(r, history=d))
                for (i, r), d in zip(item.receipts, chained, strict=True)
            ]
            receipts = sign_receipts(receipts, self.signer)
            if chained:
                self.head = chained[-1]
            entries += [(item.source.key, i, r) for i, r in receipts]
            written.append(dataclasses.replace(item, receipts=receipts))
        if self.store is not None:  # the evidence these receipts name survives a power cut
            self.store.sync_written()
        if self._held.append(entries, self.head):
            self.head_written = self.head
        leftovers.forget_all(Path(self.evidence_dir), digests)
        self._last = self.clock()
        self._cost = self._last - start
        return written


def _occurrence(source: Source, n: int) -> int:
    """How many quotes before the ``n``-th of ``source`` have its words (its twin's number)."""
    text = source.quotes[n].text
    return sum(1 for q in source.quotes[:n] if q.text == text)
