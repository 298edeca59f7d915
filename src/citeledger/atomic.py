"""Atomic file replacement: a reader (or a killed run) sees the old file or the new, never half.

The one writer of every file citeledger replaces: evidence, pages and the ledger (whose
transaction adds its lock and its checks through ``before_replace``). The data is fsynced before
the rename and the folder after it, so the new name survives a crash too.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path


def atomic_write(
    target: Path,
    data: bytes,
    *,
    mode: int | None = None,
    prefix: str = ".tmp-",
    suffix: str | None = None,
    before_replace: Callable[[Path], None] | None = None,
) -> None:
    """Write ``data`` to a temp file beside ``target``, fsync it, then rename it into place.

    ``before_replace(temp)`` runs after the fsync and may raise to leave ``target`` untouched
    (the temp file is removed either way).
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(
        dir=target.parent, prefix=prefix, suffix=target.suffix if suffix is None else suffix
    )
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if before_replace is not None:
            before_replace(tmp)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with suppress(OSError):
            tmp.unlink()
        raise
    fsync_dir(target.parent)


def fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable (where the platform lets a folder be fsynced)."""
    with suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
