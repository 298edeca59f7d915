"""Files the user names on the command line, read so that every failure is one line.

A path may be missing, a folder, a named pipe (opening one for reading waits forever for a
writer), a device, unreadable, binary or not UTF-8. Each is said as what it is, with the file
and what to give instead; nothing here reads a file that is not a regular file.

This module must never: open a FIFO, socket or device; print; touch the network.
"""

from __future__ import annotations

import errno
import os
import stat

from citeledger.errors import CiteledgerError

__all__ = ["NotAFile", "TooLarge", "file_kind", "read_bytes", "read_regular", "read_text"]

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def file_kind(path: str | os.PathLike[str]) -> str | None:
    """``None`` for a regular file (after symbolic links), else what the path is instead."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "missing"
    except NotADirectoryError:
        return "missing"
    except OSError as e:
        return f"unreadable ({e.strerror or e})"
    return _kind(mode)


def _kind(mode: int) -> str | None:
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


class NotAFile(OSError):
    """The path is there but is not a regular file; ``kind`` says what it is instead."""

    def __init__(self, path: str, kind: str) -> None:
        super().__init__(errno.EINVAL, f"the path is {kind}, not a file", path)
        self.kind = kind


class TooLarge(OSError):
    """The file is larger than its reader's cap (``limit`` bytes): refused, not read."""

    def __init__(self, path: str, limit: int) -> None:
        super().__init__(errno.EFBIG, f"the file is larger than {limit // 2**20} MiB", path)
        self.limit = limit


def read_regular(path: str | os.PathLike[str], limit: int | None = None) -> bytes:
    """The bytes of ``path`` (symbolic links followed) if it is a regular file: the ONE read
    that never waits on a FIFO and never reads a device (``/dev/zero`` never ends).

    The kind is checked before the open (opening some devices acts on them) and again on the
    open file, so a path swapped in between is refused too; the open does not wait for a FIFO's
    writer. ``limit``: a file of more bytes is refused (``TooLarge``), even one growing while
    it is read. Raises ``FileNotFoundError``, ``NotAFile``, ``TooLarge`` or another ``OSError``.
    """
    name = os.fspath(path)
    kind = _kind(os.stat(name).st_mode)
    if kind is not None:
        raise NotAFile(name, kind)
    fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    with open(fd, "rb", closefd=True) as fh:
        st = os.fstat(fd)
        kind = _kind(st.st_mode)
        if kind is not None:
            raise NotAFile(name, kind)
        if limit is None:
            return fh.read()
        data = fh.read(limit + 1) if st.st_size <= limit else b""
        if st.st_size > limit or len(data) > limit:
            raise TooLarge(name, limit)
        return data


def read_bytes(path: str | os.PathLike[str], what: str, fix: str) -> bytes:
    """The bytes of the regular file ``path`` (``what`` names it: "the retrieval settings")."""
    name = os.fspath(path)
    kind = file_kind(name)
    if kind == "missing":
        raise CiteledgerError(f"{what}: no such file", file=name, fix=fix)
    if kind is not None:
        raise CiteledgerError(f"{what}: the path is {kind}, not a file", file=name, fix=fix)
    try:
        return read_regular(name)
    except NotAFile as e:  # swapped since it was looked at
        raise CiteledgerError(
            f"{what}: the path is {e.kind}, not a file", file=name, fix=fix
        ) from None
    except OSError as e:
        raise CiteledgerError(
            f"{what}: cannot read it ({e.strerror or e})",
            file=name,
            fix="check the file's permissions",
        ) from None


def read_text(path: str | os.PathLike[str], what: str, fix: str) -> str:
    """The UTF-8 text of ``path``; a binary or otherwise encoded file is refused in one line."""
    name = os.fspath(path)
    data = read_bytes(name, what, fix)
    if b"\x00" in data[:8192]:
        line = data.count(b"\n", 0, data.index(b"\x00")) + 1
        raise CiteledgerError(f"{what}: a binary file, not text", file=name, line=line, fix=fix)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise CiteledgerError(
            f"{what}: not UTF-8 text (byte 0x{data[e.start]:02x})",
            file=name,
            line=data.count(b"\n", 0, e.start) + 1,
            fix=f"save it as UTF-8; {fix}",
        ) from None
