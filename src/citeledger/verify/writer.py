"""The run's receipt batches written by a process of its own, beside the one that fetches.

Splicing, validating and writing a batch into the held ledger (``verify.batch``) is CPU that,
in verify's own process, competes with the event loop under one interpreter lock (about 3 s
of a 2,000-page loopback run). So the batch's ``write`` runs in a child forked before the run
starts any thread, its answers (the items as written, the newest history entry) sent back.

The child is the parent's twin in everything that keeps a kill safe: it inherits the run lock's
open file (the lock is held until both are gone, so a next run cannot clean up while it still
writes), and the kernel kills it the moment the parent dies (``PR_SET_PDEATHSIG``), so a run
killed at any point is a run killed in one of its locked, atomic ledger writes, as before.
Where that signal does not exist (not Linux) the batches are written in verify's own process.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
from collections.abc import Sequence
from typing import Any

from citeledger.errors import CiteledgerError
from citeledger.verify.batch import Finished, ReceiptBatch
from citeledger.verify.bounded import tasks

_PR_SET_PDEATHSIG = 1


def available() -> bool:
    """Whether the child can be bound to die with its parent (Linux ``prctl``)."""
    return sys.platform.startswith("linux")


def _die_with(parent: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        os._exit(1)
    if os.getppid() != parent:  # the parent died before the signal was set
        os._exit(1)


def _serve(conn: Any, batch: ReceiptBatch, parent: int) -> None:
    _die_with(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the parent's to handle
    for items, digests in tasks(conn):
        try:
            written = batch.write(items, digests)
        except BaseException as exc:  # the parent raises it as its own (a one-line error)
            try:
                conn.send(("error", exc))
            except Exception:
                conn.send(("error", RuntimeError(f"{type(exc).__name__}: {exc}")))
            continue
        conn.send(("ok", (written, batch.head, batch.head_written, batch.cost)))


class BatchWriter:
    """``batch.write`` in a forked child; the parent's ``batch`` keeps collecting and timing.

    Start it before any thread of the run (a fork copies only the calling thread) and after
    the run lock is taken; ``write`` blocks until the child has written.
    """

    def __init__(self, batch: ReceiptBatch) -> None:
        self.batch = batch
        self._store = batch.store  # the parent's: it knows which folders its workers wrote
        ctx = multiprocessing.get_context("fork")
        self._conn, child = ctx.Pipe(duplex=True)
        batch.store = None  # the child's copy syncs nothing: the parent did, before sending
        self._proc = ctx.Process(target=_serve, args=(child, batch, os.getpid()), daemon=True)
        self._proc.start()
        batch.store = self._store
        child.close()

    def write(self, items: Sequence[Finished], digests: Sequence[str]) -> list[Finished]:
        """As ``ReceiptBatch.write``: the evidence folders synced here, then the child writes."""
        if self._store is not None:
            self._store.sync_written()
        self._conn.send((list(items), list(digests)))
        try:
            kind, value = self._conn.recv()
        except EOFError:
            raise CiteledgerError(
                "the ledger's writer process ended before this batch's receipts were written",
                file=self.batch.ledger_path,
                fix="run verify again: the ledger holds every batch written before it",
            ) from None
        if kind == "error":
            raise value
        written, head, head_written, cost = value
        self.batch.written_elsewhere(head, head_written, cost)
        return list(written)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._conn.send(None)
        self._conn.close()
        self._proc.join()

    def __enter__(self) -> BatchWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
