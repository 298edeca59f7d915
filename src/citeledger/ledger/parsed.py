"""Each source a build parsed, remembered by the ledger's exact bytes.

A build after the first reads the ledger through its outline (``outline``), parsing each
cited source from its own span of text; for a thesis's 500 sources that is still most of the
ledger's share of the build (YAML, then validation), and it gives the same answer until the
bytes change. So a build keeps each ``Source`` it parsed beside the outline, in the user's
cache, in a file named by the sha256 of the ledger's bytes and of everything else a parse
reads: the ledger's name and folder, whether files may lie outside it, and the parsing code
itself (citeledger's version, the digest of its files, the interpreter's version and PyYAML's).
Other bytes are another file.

What a parse reads beyond the text is checked again on every recall: a ``file:`` identifier or
``local_copy`` must still resolve inside the ledger's folder (a symbolic link may have moved
since), else the source is parsed and the parse says what is wrong. An entry holds values of
``citeledger.model`` only, read by an unpickler that can make nothing else (no code runs): one
that is unreadable, of another shape or for another key is no entry, and the source is parsed.
The cache is outside the project, like the outline and the judgement index's key, and believed
only when the user alone can write it (``usercache``): a document or a pull request cannot
write one. A cache that cannot be read or written costs time, never
correctness.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import io
import json
import os
import pickle
from pathlib import Path
from typing import IO, Any

from citeledger import __version__, code_digest, model
from citeledger.evidence import usercache

FORMAT = 1
_MODEL = frozenset({"Source", "Identifier", "Quote", "Receipt", "Review", "Withdrawal", "Edit"})
# the code a parse runs, relative to the package: a change to any of it is another parse
_PARSING_CODE = (
    "model.py",
    "confine.py",
    "ledger/",  # every module of the ledger package (``code_files``), one added later included
    "ledger/csl-data.json",
)


@functools.cache
def parse_code() -> str:
    """The digest of the parsing code, the interpreter and PyYAML: the ledger's outline and its
    parsed sources are kept for it (another is another parse)."""
    return code_digest(f"{FORMAT} {__version__}", _PARSING_CODE, ("yaml",))


def place(outline_place: Path, file: str, root: str, allow_outside: bool) -> Path:
    """Where the parsed sources of a ledger are kept: beside its outline (``outline.place``,
    the sha256 of its bytes), under the digest of the rest a parse reads."""
    made_of = json.dumps([parse_code(), file, root, allow_outside], ensure_ascii=False)
    digest = hashlib.sha256(made_of.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return outline_place.with_name(f"{outline_place.stem}.{digest}.sources")


class _Only(pickle.Unpickler):
    """An unpickler that can make the model's values (``model=True``) or plain data alone."""

    def __init__(self, file: IO[bytes], *, model: bool) -> None:
        super().__init__(file)
        self.model = model

    def find_class(self, module: str, name: str) -> Any:
        if self.model and module == "citeledger.model" and name in _MODEL:
            return getattr(model, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not a ledger value")


class Kept:
    """One ledger's kept sources: read on the first lookup, each entry unpickled only when
    asked for (a page citing one source of 2,000 unpickles one), new ones appended by
    :meth:`save`. A page reads the file too: its sources kept, its build needs no parse and so
    no PyYAML (``outlined``), a tenth of its filter process, while reading the entries of a
    2,000-source ledger costs a sixth of that.

    The file is a run of records ``(key, seal, data)``, each appended in one write: a record
    that does not read as one (two builds writing at once, a torn write) ends the reading
    there, and what was not read is parsed again; a record's seal (``usercache.mac`` over the
    file's name, the key and the data, under the user's cache's secret) is checked when its
    entry is asked for, and one that does not hold — planted, copied, moved — is no entry."""

    def __init__(self, where: Path) -> None:
        self.where = where
        self._entries: dict[str, tuple[str, bytes]] | None = None  # key -> digest, data
        self._new: dict[str, bytes] = {}
        self._whole = True  # every record read: the file may be appended to
        self._secret: tuple[bytes, bytes] | None = None  # the cache's key, the file's name

    def _seal(self, key: str, data: bytes) -> str | None:
        if self._secret is None:  # once per load: a thesis asks for 500 entries
            self._secret = usercache.secret() or b"", usercache.named(self.where)
        secret, name = self._secret
        if not secret:
            return None
        return usercache.mac(secret, name + key.encode("utf-8", "surrogatepass") + b"\n" + data)

    def _read(self) -> dict[str, tuple[str, bytes]]:
        entries: dict[str, tuple[str, bytes]] = {}
        blob = usercache.read(self.where)
        if blob is None:
            return entries
        with io.BytesIO(blob) as fh:
            records = _Only(fh, model=False)
            while True:
                try:
                    key, digest, data = records.load()
                except EOFError:
                    break
                except Exception:  # whatever the bytes are: no entry, nor any after it
                    self._whole = False
                    break
                if not (isinstance(key, str) and isinstance(digest, str)):
                    self._whole = False
                    break
                if isinstance(data, bytes):
                    entries[key] = (digest, data)
        return entries

    def get(self, key: str) -> model.Source | None:
        """Source ``key`` as a build parsed it from these bytes, or None."""
        if self._entries is None:
            self._entries = self._read()
        entry = self._entries.get(key)
        if entry is None:
            return None
        seal, data = entry
        made = self._seal(key, data)  # checked when used: a page uses one
        if made is None or not hmac.compare_digest(made, seal):
            return None
        try:
            value = _Only(io.BytesIO(data), model=True).load()
        except Exception:  # whatever the bytes are, they are no entry
            return None
        if not isinstance(value, model.Source) or value.key != key:
            return None
        return value

    def add(self, source: model.Source) -> None:
        """Keep ``source`` when it reads back as it (a value outside the model, e.g. a date a
        YAML timestamp made, is not kept: the next build parses it)."""
        try:
            data = pickle.dumps(source, protocol=pickle.HIGHEST_PROTOCOL)
            if _Only(io.BytesIO(data), model=True).load() != source:
                return
        except (pickle.PicklingError, pickle.UnpicklingError, TypeError, AttributeError):
            return
        self._new[source.key] = data

    def save(self) -> None:
        """Append the entries this build added, if it added any; a cache that cannot be
        written is skipped (the next build parses)."""
        if not self._new:
            return
        if self._entries is None:
            self._entries = self._read()
        added: dict[str, tuple[str, bytes]] = {}
        for k, d in self._new.items():
            seal = self._seal(k, d)
            if seal is None:  # no key: nothing kept could be believed
                return
            added[k] = (seal, d)
        self._entries.update(added)
        self._new = {}
        if not self._whole:  # records no build can read: the file is written afresh
            self._whole = True
            usercache.keep(self.where, b"".join(_record(k, e) for k, e in self._entries.items()))
            return
        records = b"".join(_record(k, e) for k, e in added.items())
        try:
            self.where.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW
            fd = os.open(self.where, flags, 0o600)
            try:
                view = memoryview(records)
                while view:
                    view = view[os.write(fd, view) :]
            finally:
                os.close(fd)
        except OSError:
            pass


def _record(key: str, entry: tuple[str, bytes]) -> bytes:
    return pickle.dumps((key, *entry), pickle.HIGHEST_PROTOCOL)


def paths_of(source: model.Source) -> list[str]:
    """The file paths a parse of ``source`` checked against the filesystem."""
    paths = [source.identifier.value] if source.identifier.kind == "file" else []
    if source.local_copy is not None:
        paths.append(source.local_copy)
    return [os.fspath(p) for p in paths]
