"""Atomic file replacement: a reader (or a killed run) sees the old file or the new, never half.

Used by every writer of evidence and pages; the ledger has its own transaction (lock, validate,
compare) built on the same temp-file-then-rename step.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write(target: Path, data: bytes, *, mode: int | None = None) -> None:
    """Write ``data`` to a temp file beside ``target``, fsync it, then rename it into place."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=target.suffix)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
