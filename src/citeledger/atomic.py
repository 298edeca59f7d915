"""Atomic file replacement: a reader (or a killed run) sees the old file or the new, never half.

The one writer of every file citeledger replaces: evidence, pages and the ledger (whose
transaction adds its lock and its checks through ``before_replace``). The data is fsynced before
the rename and the folder after it, so the new name survives a crash too. A run killed between
write and rename leaves a ``.tmp-`` file, which the next run removes (``remove_stale_temps``).
"""

from __future__ import annotations

import errno
import os
import tempfile
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

#: Temp files of this writer start so; a run killed between write and rename leaves one.
TEMP_PREFIX = ".tmp-"


def atomic_write(
    target: Path,
    data: bytes,
    *,
    mode: int | None = None,
    prefix: str = TEMP_PREFIX,
    suffix: str | None = None,
    before_replace: Callable[[Path], None] | None = None,
    durable: bool = True,
    folder_sync: bool = True,
) -> None:
    """Write ``data`` to a temp file beside ``target``, fsync it, then rename it into place.

    ``durable=False`` skips both fsyncs (a cache, whose loss costs time only: still atomic for
    readers and for a killed run); ``folder_sync=False`` skips the folder's, for a caller that
    fsyncs the folder once for many files (``fsync_dir``) before anything names them.

    ``before_replace(temp)`` runs after the fsync and may raise to leave ``target`` untouched
    (the temp file is removed either way). A failure (a full disk, a read-only folder) is an
    ``OSError`` naming ``target`` (or the folder that could not be made), never the temp file,
    and leaves ``target`` as it was.
    """
    tmp: Path | None = None
    try:
        ending = target.suffix if suffix is None else suffix
        try:  # the folder is usually there: a mkdir each time was a syscall each time
            fd, name = tempfile.mkstemp(dir=target.parent, prefix=prefix, suffix=ending)
        except OSError:  # made here, or named as it was before: the folder's own failure
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(dir=target.parent, prefix=prefix, suffix=ending)
        tmp = Path(name)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        if before_replace is not None:
            before_replace(tmp)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except OSError as e:
        _discard(tmp)
        named = os.path.basename(str(e.filename)) if e.filename is not None else prefix
        if not named.startswith(prefix):  # the folder itself (a file where it should be…)
            raise
        raise OSError(e.errno, e.strerror or str(e), str(target)) from None
    except BaseException:
        _discard(tmp)
        raise
    if durable and folder_sync:
        fsync_dir(target.parent)


def fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable (where the platform lets a folder be fsynced)."""
    with suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def fsync_file(path: Path) -> None:
    """Make the data of a file written with ``durable=False`` durable now (its folder aside).

    Unlike a folder's, a failure raises (``OSError`` naming the file): whoever asked is about
    to name the file in a receipt."""
    try:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as e:  # a full disk, an I/O error: said with the file it was for
        raise OSError(e.errno, e.strerror or str(e), str(path)) from None


def _discard(tmp: Path | None) -> None:
    if tmp is not None:
        with suppress(OSError):
            tmp.unlink()


def remove_stale_temps(folder: Path, older_than: float = 3600.0) -> list[Path]:
    """Remove temp files a killed writer left in ``folder`` (recursively); returns them.

    Only files older than ``older_than`` seconds go: a younger one may belong to a writer that
    is still running (another verify holds its own run lock, not this folder's).
    """
    removed = []
    cutoff = time.time() - older_than
    with suppress(OSError):
        for path in folder.rglob(f"{TEMP_PREFIX}*"):
            with suppress(OSError):
                if path.is_file() and path.stat().st_mtime < cutoff:
                    path.unlink()
                    removed.append(path)
    return removed


def failure_fix(e: OSError) -> str:
    """What the writer can do about a failed read or write, in words."""
    if e.errno in (errno.ENOSPC, errno.EDQUOT):
        return "free some space on that disk (or raise the quota); nothing there was replaced"
    if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "make that folder writable, or run from a folder you can write to"
    if e.errno == errno.ENOENT:
        return "check the path"
    if e.errno == errno.ELOOP:
        return "remove that link: the evidence store's own files are made by citeledger"
    return "check the path, the disk and the permissions"
