"""The ONE way a file in the evidence store is written, appended to or locked.

The store is the writer's folder, often committed, and git recreates symbolic links: a
committed ``pending.jsonl -> ../citeledger.yaml`` made a note's append land in the writer's
ledger, a dangling ``pending.lock`` link made ``verify`` create a file outside the store, and a
digest folder that is a link would take evidence writes elsewhere. Reads have their gate
(``store.StoreFiles``); this is the writes': the folder is checked to lie inside the store
after links are resolved (before it is made, so nothing is made outside either), and the file
itself is opened with ``O_NOFOLLOW`` and kept only when it is a regular file.

Checked then opened, not opened relative to a folder descriptor: the threat is a committed
link, not a process racing this one inside the writer's own folder.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from citeledger.atomic import atomic_write
from citeledger.confine import below

__all__ = ["StoreWriteError", "locked_in_store", "open_in_store", "store_folder", "write_in_store"]

_REFUSED = {errno.ELOOP: "a symbolic link", errno.ENXIO: "a named pipe (FIFO)"}
_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY


class StoreWriteError(OSError):
    """A store file this run will not write through; the message says why, with the path."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(errno.ELOOP, f"{reason}; citeledger does not write through it", str(path))


def store_folder(root: str | os.PathLike[str], rel: str = "") -> Path:
    """The store's folder ``rel`` (made when missing), refused when it leads out of the store."""
    base = Path(root)
    folder = base / rel if rel else base
    real_root = os.path.realpath(base)
    if rel and not below(os.path.realpath(folder), real_root):
        raise StoreWriteError(folder, "this folder of the evidence store is a link out of it")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def open_in_store(root: str | os.PathLike[str], rel: str, flags: int, mode: int = 0o644) -> int:
    """An open descriptor of the store's regular file ``rel``: never through a link, never a
    FIFO or a device (``O_NONBLOCK``: a FIFO fails instead of waiting for a reader)."""
    folder, name = os.path.split(rel)
    # the store's own root was confined when the ledger named it: only a folder below it is
    # resolved (a note and its lock, once per retrieval, cost no realpath)
    path = (store_folder(root, folder) if folder else Path(root)) / name
    try:
        try:
            fd = os.open(path, flags | _FLAGS, mode)
        except FileNotFoundError:
            if folder or not flags & os.O_CREAT:
                raise
            store_folder(root)  # a new store's first file
            fd = os.open(path, flags | _FLAGS, mode)
    except OSError as e:
        kind = _REFUSED.get(e.errno or 0)
        if kind is not None:
            raise StoreWriteError(path, f"this file of the evidence store is {kind}") from None
        raise OSError(e.errno, e.strerror or str(e), str(path)) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise StoreWriteError(path, "this file of the evidence store is not a regular file")
    return fd


def write_in_store(
    root: str | os.PathLike[str], rel: str, data: bytes, *, durable: bool = True
) -> Path:
    """Replace the store's file ``rel`` atomically (a link there is replaced, not followed)."""
    folder, name = os.path.split(rel)
    target = store_folder(root, folder) / name
    atomic_write(target, data, durable=durable)
    return target


@contextmanager
def locked_in_store(root: str | os.PathLike[str], rel: str) -> Iterator[None]:
    """Hold an exclusive ``flock`` on the store's lock file ``rel`` (other processes, and other
    threads of this one, each opening it afresh); released when the file is closed."""
    import fcntl

    fd = open_in_store(root, rel, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
