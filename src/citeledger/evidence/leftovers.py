"""What a killed ``verify`` leaves behind, and the next run's clean-up of it.

A retrieval's evidence is stored before its receipts reach the ledger; a run killed between
the two leaves an evidence file no receipt names. Before storing, the run notes the body's
digest and the time in ``pending.jsonl`` in the evidence folder, and removes the note once the
receipts are written. The next run, holding the same run lock (so nothing else writes that
folder meanwhile), removes each noted digest's evidence files made at or after the note that
no receipt of the noted ledger names. Older files, and files a receipt names, are never
touched: another ledger may share the folder.

A note is appended while receipts of other retrievals are being written and their notes
forgotten (a batch's write runs beside the retrievals, and a second ledger's run may share the
folder), so every change to the notes file holds ``pending.lock``: a forget's read and rewrite
is never interleaved with an append, which it would drop, or with another forget, whose dropped
notes it would bring back.

This module must never remove a file a receipt names, or one older than its note.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path

from citeledger.atomic import TEMP_PREFIX
from citeledger.evidence.store import read_store_file
from citeledger.evidence.store_writes import locked_in_store, open_in_store, write_in_store

__all__ = [
    "IGNORE_FILE",
    "PENDING",
    "clean_leftovers",
    "forget",
    "forget_all",
    "note",
    "write_ignore_file",
]

PENDING = "pending.jsonl"
PENDING_LOCK = "pending.lock"  # held for each change to PENDING (ignored: it is a *.lock)
IGNORE_FILE = ".gitignore"
#: What a run leaves in the store that is no evidence: the locks, a killed write's temp files,
#: the pending notes. The README says "commit .citeledger/"; these must not go with it.
IGNORED = ("*.lock", TEMP_PREFIX + "*", PENDING)


def write_ignore_file(folder: str | os.PathLike[str]) -> bool:
    """A ``.gitignore`` in an existing store naming the run's own files; the writer's is kept.

    Created exclusively, not through a temp file: a concurrent run's clean-up of temps (under
    the run lock this need not hold) cannot remove it half-way, and an existing file is never
    replaced.
    """
    if not Path(folder).is_dir():
        return False
    text = "# written by citeledger: locks and temporary files are not evidence\n"
    try:
        fd = open_in_store(folder, IGNORE_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text + "\n".join(IGNORED) + "\n")
    return True


def _entries(folder: Path) -> list[dict[str, object]]:
    try:
        lines = read_store_file(folder, PENDING).decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):  # refused (a FIFO, a device, a link out): no notes
        return []
    out = []
    for line in lines:
        with suppress(ValueError):
            entry = json.loads(line)
            if isinstance(entry, dict):
                out.append(entry)
    return out


def _save(folder: Path, entries: list[dict[str, object]]) -> None:
    if not entries:
        with suppress(FileNotFoundError):
            (folder / PENDING).unlink()
        return
    text = "".join(json.dumps(e, sort_keys=True) + "\n" for e in entries)
    write_in_store(folder, PENDING, text.encode("utf-8"))


def note(folder: Path, ledger: str, body: bytes) -> str:
    """Record, before storing ``body``'s evidence, that its receipts are not written yet."""
    digest = hashlib.sha256(body).hexdigest()
    entry = {"ledger": os.path.abspath(ledger), "body_sha256": digest, "since": time.time()}
    # Appended, not rewritten: one line per retrieval of a 2,000-source run. A line torn by a
    # kill is skipped when read, and the run it belonged to wrote no receipt for it. Not
    # fsynced: a killed process's write is in the page cache all the same, and a note lost to
    # a power cut only leaves an evidence file no receipt names (disk space, never a receipt).
    path = folder / PENDING
    try:
        with locked_in_store(folder, PENDING_LOCK):
            # never through a link (one to the ledger took the note), never a FIFO's reader
            fd = open_in_store(folder, PENDING, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
            try:
                os.write(fd, ("\n" + json.dumps(entry, sort_keys=True) + "\n").encode("utf-8"))
            finally:
                os.close(fd)
    except OSError as e:  # a full disk, a read-only store: named, so the error line says where
        raise OSError(e.errno, e.strerror or str(e), e.filename or str(path)) from None
    return digest


def forget(folder: Path, digest: str) -> None:
    """The receipts for ``digest`` are in the ledger: its note goes."""
    forget_all(folder, (digest,))


def forget_all(folder: Path, digests: Iterable[str]) -> None:
    """The receipts for ``digests`` are in the ledger: their notes go, in one rewrite (one per
    batch of receipts, not one per source: the file holds a line per pending retrieval)."""
    settled = set(digests)
    if not settled:
        return
    with locked_in_store(folder, PENDING_LOCK):
        entries = _entries(folder)
        kept = [e for e in entries if e.get("body_sha256") not in settled]
        if len(kept) != len(entries):
            _save(folder, kept)


def clean_leftovers(folder: Path) -> list[Path]:
    """Remove the evidence files of an earlier, killed run that no receipt names (see above)."""
    from citeledger.errors import CiteledgerError
    from citeledger.ledger import load_ledger

    removed: list[Path] = []
    named_by: dict[str, set[str] | None] = {}  # each ledger read once, however many notes
    settled: list[str] = []
    for entry in _entries(folder):
        digest, since, ledger = entry.get("body_sha256"), entry.get("since"), entry.get("ledger")
        if not (isinstance(digest, str) and isinstance(since, float) and isinstance(ledger, str)):
            continue
        if ledger not in named_by:
            try:
                led = load_ledger(ledger)
                named_by[ledger] = {
                    os.path.normpath(os.path.join(led.evidence_dir, r.evidence))
                    for source in led.sources.values()
                    for quote in source.quotes
                    for r in quote.receipts
                    if r.evidence
                }
            except CiteledgerError:
                named_by[ledger] = None
        named = named_by[ledger]
        if named is None:
            continue  # the ledger cannot be read now: keep the note and the files
        for path in (folder / digest[:2]).glob(f"{digest}*.warc.gz"):
            with suppress(OSError):
                if path.stat().st_mtime >= since - 0.05 and os.path.normpath(path) not in named:
                    path.unlink()
                    removed.append(path)
        settled.append(digest)
    forget_all(folder, settled)  # one rewrite; a kill before it only repeats this cleanup
    return removed
