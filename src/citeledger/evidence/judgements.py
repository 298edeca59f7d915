"""The build-time index of judgements: an accelerator, never a witness.

Judging a receipt means parsing its WARC evidence, re-deriving or recalling its text and
running the locator again. Between two builds nothing of that changes unless the ledger or the
evidence does, so a verdict is remembered here, in the evidence store (``judgements/``), under a
key made of everything it was judged from except the evidence (the source's exact text in the
ledger, its receipts included, the quote's place in it, the trust settings, the history log's
registry answers for the source's identifier, the digest of the judging code:
``Judge._index_key``), with the sha256 of every evidence file it read (an earlier receipt's
too). An entry
is used only when the key is the same and every one of those files still hashes to what it
recorded: hashing a file is cheap, parsing it is not. So an edited, missing or swapped
evidence file, or any change to the source's text, re-judges from scratch on the very build
that sees it; an edit elsewhere in the ledger does not.

The store is the writer's folder, often committed, so an entry could be written by anyone: each
entry carries an HMAC under the secret of the user's cache (``usercache``: the one seal of
every accelerator), outside the project, which a document or a pull request cannot read or
write. An entry this machine did not write, a missing or corrupt index, a cache that cannot be
read or believed: all are simply judged again. Writes are atomic, only under
``<store>/judgements/`` (which ignores itself for git: the store is committed, the index is one
machine's), and skipped when the store cannot be written (a read-only store still builds,
without the index).

The index is pruned when a build saves: each entry carries the day a build last used it
(outside its seal — it decides only what to forget, never what to believe), restamped at most
once a day, and one no build used for ``KEEP_DAYS`` is dropped — so are the verdicts of sources
no ledger has any more, whose keys nothing asks for. The shard files of the earlier two-letter
layout (``ab.json``), which no build reads, are deleted. Nothing is written or deleted when the
index folder resolves outside the store (a symbolic link).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import hmac
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from citeledger.atomic import atomic_write
from citeledger.confine import inside
from citeledger.evidence import usercache
from citeledger.evidence.store import read_store_file

FORMAT = 1  # bump when an entry's meaning changes: older entries are then never matched
FOLDER = "judgements"
KEEP_DAYS = 90  # an entry no build used for this long is forgotten
USED = "used"  # the day a build last used an entry: not sealed, it only decides what to forget
_SHARD = re.compile(r"[0-9a-f]\.json")
_OLD_SHARD = re.compile(r"[0-9a-f]{2}\.json")  # the earlier 256-shard layout: never read now


def _today() -> str:
    return _dt.datetime.now(_dt.timezone.utc).date().isoformat()


@dataclass(frozen=True)
class Remembered:
    """A verdict as the index keeps it, and the evidence files it was judged from."""

    state: str
    reasons: tuple[str, ...]
    files: tuple[tuple[str, str], ...]  # (path in the store, sha256 of its bytes)


def _seal(secret: bytes, key: str, body: dict[str, Any]) -> str:
    """The entry's seal (``usercache.mac``, the one the user's cache seals with) over its key and
    its compact, key-sorted JSON (orjson writes the same bytes
    as ``json.dumps(sort_keys=True, ensure_ascii=False)``, in a third of the time: a thesis
    checks 500 seals a build)."""
    return usercache.mac(secret, orjson.dumps([key, body], option=orjson.OPT_SORT_KEYS))


def _shard_name(key: str) -> str:
    """An entry's shard: 16 of them (a build reads each shard it needs whole; a thesis's 500
    entries in 256 shards were 220 files to open, in 16 they are 16)."""
    return key[:1]


@dataclass
class JudgementIndex:
    """One build's view of the index: shards read on demand, new entries written at the end."""

    root: Path  # the evidence store
    secret: bytes | None
    _shards: dict[str, dict[str, Any]] = field(default_factory=dict)
    _new: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    # the verdicts this view put, as the next build would read them back: a batch's later
    # pages (``build.batch``) find what its earlier ones judged before anything is saved
    _made: dict[str, Remembered] = field(default_factory=dict)
    _used: dict[str, set[str]] = field(default_factory=dict)  # shard → keys to restamp today
    _today: str = field(default_factory=_today)

    @classmethod
    def open(cls, store: str | os.PathLike[str]) -> JudgementIndex:
        """The store's index; ``CITELEDGER_JUDGEMENT_INDEX=off`` judges everything afresh."""
        if os.environ.get("CITELEDGER_JUDGEMENT_INDEX", "").lower() in ("off", "0", "no"):
            return cls(Path(store), None)
        return cls(Path(store), usercache.secret())

    @staticmethod
    def key(*parts: Any) -> str:
        """The key of a verdict: the digest of what it was judged from (besides evidence)."""
        text = json.dumps([FORMAT, *parts], ensure_ascii=False, default=repr)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def _shard(self, key: str) -> dict[str, Any]:
        name = _shard_name(key)
        shard = self._shards.get(name)
        if shard is None:
            try:
                data = orjson.loads(read_store_file(self.root, f"{FOLDER}/{name}.json"))
            except (OSError, ValueError):  # refused (a FIFO, a device, a link out): no entries
                data = {}
            shard = self._shards[name] = data if isinstance(data, dict) else {}
        return shard

    def get(self, key: str) -> Remembered | None:
        """The entry under ``key`` if this machine sealed it; its files are for the caller to
        re-hash. Anything malformed is no entry."""
        if self.secret is None:
            return None
        made = self._made.get(key)
        if made is not None:  # sealed by this view a moment ago: nothing to re-check but files
            return made
        entry = self._shard(key).get(key)
        if not isinstance(entry, dict):
            return None
        body = {k: v for k, v in entry.items() if k not in ("mac", USED)}
        mac = entry.get("mac")
        try:
            sealed = _seal(self.secret, key, body)
        except TypeError:  # a value orjson cannot write (too deep, too large): not ours
            return None
        if not isinstance(mac, str) or not hmac.compare_digest(mac, sealed):
            return None
        try:
            files = tuple((str(p), str(d)) for p, d in body["files"])
            remembered = Remembered(str(body["state"]), tuple(map(str, body["reasons"])), files)
        except (KeyError, TypeError, ValueError):
            return None
        if files and entry.get(USED) != self._today:
            self._used.setdefault(_shard_name(key), set()).add(key)
        return remembered if files else None

    def put(self, key: str, state: str, reasons: tuple[str, ...], files: dict[str, str]) -> None:
        if self.secret is None or not files:
            return
        body: dict[str, Any] = {
            "state": state,
            "reasons": list(reasons),
            "files": sorted([p, d] for p, d in files.items()),
        }
        entry = {**body, "mac": _seal(self.secret, key, body), USED: self._today}
        self._made[key] = Remembered(state, tuple(reasons), tuple(map(tuple, body["files"])))
        if self._shard(key).get(key) != entry:
            self._new.setdefault(_shard_name(key), {})[key] = entry

    def save(self) -> None:
        """Write the shards that gained or used entries, merged with what is on disk now
        (another build may have written meanwhile), pruned; a store that cannot be written
        keeps no index, and one whose index folder lies elsewhere is not written at all."""
        folder = self.root / FOLDER
        if not self.root.is_dir() or not (self._new or self._used):
            return
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if not inside(folder, [self.root]):
                return
            if not (folder / ".gitignore").exists():  # this machine's cache, never to commit
                atomic_write(folder / ".gitignore", b"# citeledger's build index\n*\n")
            names = [p.name for p in folder.iterdir()]
        except OSError:
            return
        oldest = (_dt.date.fromisoformat(self._today) - _dt.timedelta(days=KEEP_DAYS)).isoformat()
        for name in sorted({n[:-5] for n in names if _SHARD.fullmatch(n)} | set(self._new)):
            if not self._save_shard(folder, name, oldest):
                return
        for name in names:
            if _OLD_SHARD.fullmatch(name):
                with contextlib.suppress(OSError):  # another build's, a moment ago
                    (folder / name).unlink()
        self._new.clear()
        self._used.clear()

    def _save_shard(self, folder: Path, name: str, oldest: str) -> bool:
        """One shard merged with this build's entries, restamped and pruned, written if that
        changed it; False when it cannot be written (the rest is not tried)."""
        path = folder / f"{name}.json"
        try:
            on_disk = json.loads(read_store_file(self.root, f"{FOLDER}/{name}.json"))
        except (OSError, ValueError):  # refused as a read is: replaced by a file of its own
            on_disk = {}
        before = on_disk if isinstance(on_disk, dict) else {}
        merged = {**before, **self._new.get(name, {})}
        for key, entry in list(merged.items()):
            if not isinstance(entry, dict):
                del merged[key]
            elif key in self._used.get(name, ()) or not isinstance(entry.get(USED), str):
                merged[key] = {**entry, USED: self._today}  # an unstamped entry ages from now
            elif entry[USED] < oldest:
                del merged[key]
        if merged != before:
            try:
                atomic_write(path, json.dumps(merged, ensure_ascii=False, sort_keys=True).encode())
            except OSError:
                return False
        self._shards[name] = merged
        return True
