"""What a killed ``verify`` leaves behind, and the next run's clean-up of it.

A retrieval's evidence is stored before its receipts reach the ledger; a run killed between
the two leaves an evidence file no receipt names. Before storing, the run notes the body's
digest and the time in ``pending.jsonl`` in the evidence folder, and removes the note once the
receipts are written. The next run of the same ledger, holding the same run lock (so nothing
else writes that folder meanwhile), moves each noted digest's evidence files made within the
hour after the note that no receipt of that ledger names into ``leftovers/`` in the store.

The notes file is data from disk, as hostile as any committed file: a committed note once made
verify delete a real evidence file, and a "digest" holding ``..`` a ``*.warc.gz`` outside the
store. So a note is acted on only when it has the exact shape verify writes (64 hex digits, a
float time, this run's ledger by ``samefile``); only regular files in the digest's folder,
inside the store, with the names ``write_evidence`` gives that digest, are candidates; and a
candidate is moved, never deleted: another ledger sharing the store may name it, and this run
cannot read that ledger's receipts. A file moved by mistake is one rename from back (the
build's "evidence is gone" names the file). The quarantine is purged of files that sat there
``QUARANTINE_DAYS``, so the store holds at most what killed runs left in that time. Notes of
another ledger are kept for its own run.

A note is appended while receipts of other retrievals are being written and their notes
forgotten (a batch's write runs beside the retrievals, and a second ledger's run may share the
folder), so every change to the notes file holds ``pending.lock``: a forget's read and rewrite
is never interleaved with an append, which it would drop, or with another forget, whose dropped
notes it would bring back.

This module must never move a file a receipt of the run's ledger names, or one older than its
note, and never deletes what a note names.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import stat
import time
from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path

from citeledger.atomic import TEMP_PREFIX
from citeledger.evidence.store import QUARANTINE, StoreFiles, read_store_file
from citeledger.evidence.store_writes import (
    locked_in_store,
    open_in_store,
    store_folder,
    write_in_store,
)
from citeledger.model import Ledger

__all__ = [
    "IGNORE_FILE",
    "PENDING",
    "QUARANTINE",
    "QUARANTINE_DAYS",
    "clean_leftovers",
    "forget",
    "forget_all",
    "note",
    "write_ignore_file",
]

PENDING = "pending.jsonl"
#: Where a leftover goes instead of being deleted, inside the store; purged after this long.
QUARANTINE_DAYS = 30
#: A note's file is written within this many seconds of the note (the body is retrieved
#: already; only its extraction and write come between): a file outside the window is not it.
NOTE_WINDOW = 3600.0
_DIGEST = re.compile("[0-9a-f]{64}")
#: The names ``_quarantine`` gives (an evidence file's name, a counter when taken): the purge
#: deletes nothing else, whatever else a commit put in the folder.
_QUARANTINED = re.compile(r"[0-9a-f]{64}(?:~[0-9A-Za-z.+_]+-[0-9a-f]{6})?\.warc\.gz(?:\.[0-9]+)?")
PENDING_LOCK = "pending.lock"  # held for each change to PENDING (ignored: it is a *.lock)
IGNORE_FILE = ".gitignore"
#: What a run leaves in the store that is no evidence: the locks, a killed write's temp files,
#: the pending notes. The README says "commit .citeledger/"; these must not go with it.
IGNORED = ("*.lock", TEMP_PREFIX + "*", PENDING, QUARANTINE + "/")


def write_ignore_file(folder: str | os.PathLike[str]) -> bool:
    """A ``.gitignore`` in an existing store naming the run's own files; whether it wrote.

    Created exclusively, not through a temp file: a concurrent run's clean-up of temps (under
    the run lock this need not hold) cannot remove it half-way. An existing one (the writer's,
    or one written before ``leftovers/`` was a run's file) is appended to, never replaced.
    """
    if not Path(folder).is_dir():
        return False
    text = "# written by citeledger: locks and temporary files are not evidence\n"
    try:
        fd = open_in_store(folder, IGNORE_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    except FileExistsError:
        return _add_missing(Path(folder))
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text + "\n".join(IGNORED) + "\n")
    return True


def _add_missing(folder: Path) -> bool:
    """Append to the store's ``.gitignore`` each of ``IGNORED`` it does not mention: a store
    made before the quarantine had none for ``leftovers/``, and ``git add -A`` took them.

    Appended in one write, so every line the writer has (comments, order) stays byte for byte
    and a kill leaves at most a short last line. A pattern the file names in any spelling git
    reads the same (``leftovers``, ``/leftovers/``), or negates (``!leftovers/``: the writer
    commits it on purpose), is left as it is. A file that is a link or unreadable is left."""
    try:
        existing = read_store_file(folder, IGNORE_FILE).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    said = {line.strip().lstrip("!").strip("/") for line in existing.splitlines()}
    missing = [p for p in IGNORED if p.strip("/") not in said]
    if not missing:
        return False
    start = "\n" if existing and not existing.endswith("\n") else ""
    text = start + "# added by citeledger: not evidence\n" + "\n".join(missing) + "\n"
    try:
        fd = open_in_store(folder, IGNORE_FILE, os.O_WRONLY | os.O_APPEND)
    except OSError:
        return False
    try:
        os.write(fd, text.encode("utf-8"))
    finally:
        os.close(fd)
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


def clean_leftovers(folder: Path, led: Ledger) -> list[Path]:
    """Move the evidence files of this ledger's earlier, killed run that no receipt names into
    the quarantine (see above); the files moved, as they were named. Purges old quarantine.

    Every verify, recheck and pick starts here, holding the run lock: the store's
    ``.gitignore`` is brought up to date first (a store older than the quarantine has no line
    for it), whether or not anything is moved, and before the run can fail."""
    write_ignore_file(folder)
    named = {
        os.path.normpath(os.path.join(led.evidence_dir, r.evidence))
        for source in led.sources.values()
        for quote in source.quotes
        for r in quote.receipts
        if r.evidence
    }
    files = StoreFiles(folder)
    moved: list[Path] = []
    settled: list[str] = []
    for entry in _entries(folder):
        digest, since, ledger = entry.get("body_sha256"), entry.get("since"), entry.get("ledger")
        if not (isinstance(digest, str) and _DIGEST.fullmatch(digest)):
            continue  # not a note verify writes: a digest holding `..` reached outside
        if not (type(since) is float and math.isfinite(since) and isinstance(ledger, str)):
            continue  # kept as it is: forgetting by its digest could drop a real note
        if not _same_file(ledger, led.path):
            continue  # another ledger's (it may share the store): its own run cleans up
        kept = False
        for path in _noted_files(files, digest):
            with suppress(OSError):
                mtime = path.lstat().st_mtime
                if (
                    since - 0.05 <= mtime <= since + NOTE_WINDOW
                    and os.path.normpath(path) not in named
                ):
                    if _quarantine(folder, path) is None:
                        kept = True  # no quarantine of the store's own: left as it is
                    else:
                        moved.append(path)
        if not kept:
            settled.append(digest)
    forget_all(folder, settled)  # one rewrite; a kill before it only repeats this cleanup
    _purge_quarantine(folder)
    return moved


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _noted_files(files: StoreFiles, digest: str) -> list[Path]:
    """The regular files (no link) in the digest's folder, inside the store, with the names
    ``write_evidence`` gives this digest: the first capture and its revisits."""
    folder = files.resolve(digest[:2])
    if folder is None:
        return []
    name = re.compile(re.escape(digest) + r"(?:~[0-9A-Za-z.+_]+-[0-9a-f]{6})?\.warc\.gz")
    try:
        with os.scandir(folder) as entries:
            return [
                Path(folder, e.name)
                for e in entries
                if name.fullmatch(e.name) and e.is_file(follow_symlinks=False)
            ]
    except OSError:
        return []


def _quarantine(folder: Path, path: Path) -> Path | None:
    """Move a leftover into ``QUARANTINE`` (a rename inside the store), stamped with the time
    it moved so that the purge counts from then; the name it had, or None when the store has
    no quarantine of its own (the file stays where it is, its note kept for a later run)."""
    target_folder = _quarantine_folder(folder, make=True)
    if target_folder is None:
        return None
    target = target_folder / path.name
    n = 0
    while target.exists() or target.is_symlink():
        n += 1
        target = target_folder / f"{path.name}.{n}"
    os.rename(path, target)
    with suppress(OSError):
        os.utime(target, follow_symlinks=False)
    return path


def _purge_quarantine(folder: Path) -> None:
    """Delete what has sat in the quarantine longer than ``QUARANTINE_DAYS``: the store's size
    is bounded by what killed runs leave in that time."""
    real = _quarantine_folder(folder, make=False)
    if real is None:
        return
    cutoff = time.time() - QUARANTINE_DAYS * 86400
    with suppress(OSError), os.scandir(real) as entries:
        for e in entries:
            with suppress(OSError):
                if (
                    _QUARANTINED.fullmatch(e.name)
                    and e.is_file(follow_symlinks=False)
                    and e.stat(follow_symlinks=False).st_mtime < cutoff
                ):
                    os.unlink(e.path)


def _quarantine_folder(folder: Path, *, make: bool) -> Path | None:
    """The store's own quarantine: a real folder named ``QUARANTINE`` in the store's root, never
    a link — a committed ``leftovers`` link to a digest folder once made the purge delete the
    evidence receipts name. None when there is none (and ``make`` is false) or it is a link."""
    path = folder / QUARANTINE
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        if not make:
            return None
        store_folder(folder, QUARANTINE)
        mode = os.lstat(path).st_mode
    return path if stat.S_ISDIR(mode) else None
