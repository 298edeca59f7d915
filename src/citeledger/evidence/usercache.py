"""The user's cache, and whether it can be believed: one place for every accelerator's files.

Derivations, ledger outlines, parsed sources and the judgement index's key are kept in
``$CITELEDGER_CACHE_DIR`` (else ``$XDG_CACHE_HOME/citeledger``, else ``~/.cache/citeledger``).
Each is believed instead of doing the work again, so whoever can write there could plant a
verdict: the cache is used only when no one but the user can have written it. As ssh treats
``~/.ssh``: the folder must be the user's own and writable by nobody else, and each file read
from it a regular file of the user's that nobody else can write (a symbolic link is not
followed). A cache named by the environment inside the working directory or a loaded ledger's
folder is not used either: in CI that is the project's checkout, where a pull request can
commit any file. A cache that fails these tests is neither read nor written, and the build says
why, once (``problem``): losing it costs time, never correctness.

Every entry is also sealed (``seal``): an HMAC, under a secret made on first use and kept in the
cache itself (``judgements.key``, mode 0600, which a checkout under the usual umask does not
make), over the entry's name and its bytes. So a file copied in from elsewhere (another
machine's cache, a restored CI cache of another user), or moved from one name to another, is
no entry.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
import stat
from pathlib import Path

from citeledger.atomic import atomic_write
from citeledger.confine import inside

KEY = "judgements.key"  # the secret's name (the judgement index was its first user)
_MAC = 64  # hex digits of a seal, written before the sealed bytes and a newline


def cache_dir() -> Path:
    """``$CITELEDGER_CACHE_DIR``, else ``$XDG_CACHE_HOME/citeledger``, else ``~/.cache/…``."""
    explicit = os.environ.get("CITELEDGER_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "citeledger"


def _others_can_write(st: os.stat_result) -> bool:
    mine = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    return not mine or bool(st.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


_PROJECTS: set[str] = set()  # the folders of the ledgers this process loaded


def keep_out_of(project: str) -> None:
    """A ledger's folder, which the cache must not lie in (a checkout, where a pull request
    could have put the cache's files): called by ``load_ledger``, before any cache is read."""
    _PROJECTS.add(project)


def problem() -> str | None:
    """Why the cache is not used (None: it is), in words for the build's warnings."""
    folder = cache_dir()
    named = bool(os.environ.get("CITELEDGER_CACHE_DIR") or os.environ.get("XDG_CACHE_HOME"))
    if named and inside(folder, [os.getcwd(), *_PROJECTS]):
        return (
            f"the cache {folder} is inside the working directory or the ledger's folder, where "
            "a checkout (a pull request) could have put its files: it is not used. Set "
            "CITELEDGER_CACHE_DIR to a folder outside the project."
        )
    try:
        st = os.stat(folder)
    except FileNotFoundError:
        return None  # made by the first write, the user's own
    except OSError as e:
        return f"the cache {folder} cannot be read ({e.strerror}): it is not used."
    if not stat.S_ISDIR(st.st_mode) or _others_can_write(st):
        return (
            f"the cache {folder} is not a folder only you can write (it is another user's, or "
            "group or others may write it): it is not used, since whoever can write it could "
            f"plant verdicts. Make it yours alone (chmod go-w {folder}) or set "
            "CITELEDGER_CACHE_DIR to one that is."
        )
    return None


def trusted() -> Path | None:
    """The cache folder when it can be believed (``problem``), else None."""
    return cache_dir() if problem() is None else None


def read(path: Path, *, private: bool = False) -> bytes | None:
    """The bytes of a file of the cache, if it is a regular file of the user's that nobody else
    can write (``private``: nobody else can read it either); None otherwise, or when missing."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or _others_can_write(st):
            return None
        if private and st.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            return None
        with os.fdopen(os.dup(fd), "rb") as fh:
            return fh.read()
    except OSError:
        return None
    finally:
        os.close(fd)


def keep(path: Path, data: bytes) -> None:
    """Write a file of the user's cache atomically; a cache that cannot be written, or is not
    believed, is skipped (losing it costs time, never correctness)."""
    if trusted() is None:
        return
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        # not fsynced: a cache entry lost to a power cut is re-derived, never trusted unseen
        atomic_write(path, data, durable=False)
    except OSError:
        pass


_SECRETS: dict[str, bytes] = {}  # the key of each cache folder this process read or made


def secret() -> bytes | None:
    """The user's sealing key, made on first use; None when the cache is not believed or cannot
    hold it. A key that is not the user's alone (mode 0600, owned by them) is not one."""
    folder = trusted()
    if folder is None:
        return None
    path = folder / KEY
    known = _SECRETS.get(str(path))
    if known is None:
        known = _secret(folder, path)
        if known is not None:
            _SECRETS[str(path)] = known
    return known


def _secret(folder: Path, path: Path) -> bytes | None:
    data = read(path, private=True)
    if data is not None:
        return data if len(data) == 32 else None
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:  # another build made it a moment ago (or it is not the user's)
        data = read(path, private=True)
        return data if data is not None and len(data) == 32 else None
    except OSError:
        return None
    key = secrets.token_bytes(32)
    try:
        os.write(fd, key)
        os.fsync(fd)
    finally:
        os.close(fd)
    return key


def mac(key: bytes, data: bytes) -> str:
    """The HMAC-SHA256 of ``data`` under ``key``: the one seal of every cache entry and every
    judgement index entry."""
    return hmac.digest(key, data, "sha256").hex()


def named(path: Path) -> bytes:
    """What a seal covers before an entry's bytes: its path inside the cache, as one JSON line
    (an entry moved to another name is no entry)."""
    return json.dumps(os.path.relpath(path, cache_dir()), ensure_ascii=True).encode() + b"\n"


def seal(path: Path, data: bytes) -> bytes | None:
    """``data`` as kept at ``path``: its seal, a newline, the bytes; None without a key."""
    key = secret()
    return None if key is None else f"{mac(key, named(path) + data)}\n".encode() + data


def unsealed(path: Path) -> bytes | None:
    """The bytes kept at ``path`` by :func:`seal`, if its seal holds; else None."""
    key = secret()
    blob = read(path) if key is not None else None
    if key is None or blob is None or blob[_MAC : _MAC + 1] != b"\n":
        return None
    sealed = blob[:_MAC].decode("ascii", "replace")
    data = blob[_MAC + 1 :]
    return data if hmac.compare_digest(sealed, mac(key, named(path) + data)) else None


def keep_sealed(path: Path, data: bytes) -> None:
    """Keep ``data`` at ``path``, sealed; skipped when the cache holds no key."""
    blob = seal(path, data)
    if blob is not None:
        keep(path, blob)
