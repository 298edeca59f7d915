"""Atomic file replacement: a reader (or a killed run) sees the old file or the new, never half.

Used by every writer of evidence and pages; the ledger has its own transaction (lock, validate,
compare) built on the same temp-file-then-rename step.
"""

from __future__ import annotations

import errno
import os
import tempfile
import time
from contextlib import suppress
from pathlib import Path

#: Temp files of this writer start so; a run killed between write and rename leaves one.
TEMP_PREFIX = ".tmp-"


def atomic_write(target: Path, data: bytes, *, mode: int | None = None) -> None:
    """Write ``data`` to a temp file beside ``target``, fsync it, then rename it into place.

    A failure (a full disk, a read-only folder) is an ``OSError`` naming ``target`` (or the
    folder that could not be made), never the temp file, and leaves ``target`` as it was.
    """
    tmp = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=TEMP_PREFIX, suffix=target.suffix)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except OSError as e:
        _discard(tmp)
        named = os.path.basename(str(e.filename)) if e.filename is not None else TEMP_PREFIX
        if not named.startswith(TEMP_PREFIX):  # the folder itself (a file where it should be…)
            raise
        raise OSError(e.errno, e.strerror or str(e), str(target)) from None
    except BaseException:
        _discard(tmp)
        raise


def _discard(tmp: str | None) -> None:
    if tmp is not None:
        with suppress(OSError):
            os.unlink(tmp)


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
    return "check the path, the disk and the permissions"
