"""Adding to the writer's ledger safely: a receipt, a withdrawal, a dispute, a source.

Writing is only ever adding. Each write holds an exclusive lock, splices the addition into the
writer's text (so comments, order, quoting and blank lines survive byte for byte; a round-trip
dump is the fallback), re-validates what it is about to install, and replaces the file
atomically.

This module must never: write a ledger that does not load; overwrite or drop a receipt, a
withdrawal or a dispute; touch the network.
"""

from __future__ import annotations

import codecs
import dataclasses
import datetime as _dt
import difflib
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node

from citeledger.atomic import atomic_write, failure_fix
from citeledger.errors import LedgerError
from citeledger.ledger.load import (
    _TMP_SUFFIX,
    DEFAULT_EVIDENCE_DIR,
    LOCK_TIMEOUT,
    _decode,
    _is_null,
    _iso_date,
    _parse,
    _read_bytes,
    is_citation_key,
    receipt_from_mapping,
    receipt_to_dict,
)
from citeledger.ledger.yamlnodes import (
    Append,
    NotSpliceable,
    Style,
    apply_appends,
    convert_new,
    for_round_trip,
    guess_style,
    line_of,
    plain,
    plan_appends,
    render_block,
    round_trip,
    rt_dump,
    rt_load,
    scalar_ids,
    shared_on_path,
    splice,
)
from citeledger.ledger.yamlnodes import Loader as _YamlLoader
from citeledger.model import (
    Ledger,
    Receipt,
    Source,
    Withdrawal,
)

# --- writing: lock, transaction, atomic replace ---------------------------------------------


@dataclass
class _Txn:
    path: str  # as given
    real: Path  # the file actually replaced (symbolic links resolved)
    original: bytes | None  # None: the ledger is being created
    text: str
    bom: bool
    ledger: Ledger
    node: Node | None
    style: Style
    new_text: str | None = None
    new_ledger: Ledger | None = None  # new_text, validated
    written: Ledger | None = None


_NEW_LEDGER = "sources: {}\n"


def _read_state(name: str, real: Path, root: str, create: bool) -> _Txn:
    data = _read_bytes(str(real))
    if data is None:
        if not create:
            raise LedgerError(
                "the ledger file does not exist",
                file=name,
                fix="create it or pass --ledger / citeledger.ledger",
            )
        text, bom = _NEW_LEDGER, False
    else:
        text, bom = _decode(data, name), data.startswith(codecs.BOM_UTF8)
    ledger, node = _parse(text, name, root, keep_nodes=True)
    return _Txn(name, real, data, text, bom, ledger, node, guess_style(node))


def lock_path(path: str | os.PathLike[str]) -> Path:
    """The lock every writer of this ledger takes: ``.citeledger/<name>.lock`` beside it.

    It is fixed (not under a configured ``evidence_dir``) so that a writer can take it before
    reading the ledger; two paths to the same file (a symbolic link) share it.
    """
    real = Path(os.path.realpath(os.fspath(path)))
    return real.parent / DEFAULT_EVIDENCE_DIR / f"{real.name}.lock"


@contextmanager
def _transaction(path: str | os.PathLike[str], create: bool, timeout: float) -> Iterator[_Txn]:
    """Hold the ledger's lock; yield its current state; install ``new_text`` if it was set."""
    name = os.fspath(path)
    real = Path(os.path.realpath(name))
    root = os.path.dirname(os.path.abspath(name))
    with _exclusive_lock(lock_path(name), timeout, name):
        txn = _read_state(name, real, root, create)
        _remove_orphan_temps(real)
        yield txn
        if txn.new_text is None or (txn.new_text == txn.text and txn.original is not None):
            txn.written = txn.ledger
        else:
            txn.written = _commit(txn)


@contextmanager
def _exclusive_lock(lock: Path, timeout: float, name: str) -> Iterator[None]:
    """The ledger's write lock (``filelock``: flock on POSIX, LockFileEx on Windows)."""
    from filelock import FileLock, Timeout  # imported here: reading never needs it

    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        held = FileLock(lock, timeout=timeout, mode=0o666)
        held.acquire(poll_interval=0.02)
    except Timeout:
        raise LedgerError(
            f"another citeledger command is still writing this ledger "
            f"(waited {timeout:g} s for {lock})",
            file=name,
            fix="wait for it to finish, then run the command again",
        ) from None
    except OSError as e:
        raise LedgerError(
            f"cannot create the lock file {lock}: {e.strerror or e}",
            file=name,
            fix="check that the ledger's folder can be written",
        ) from None
    try:
        yield
    finally:
        held.release()


def _remove_orphan_temps(real: Path) -> None:
    """Temp files a killed writer left behind; safe to remove while we hold the lock."""
    for orphan in real.parent.glob(f".{real.name}.*{_TMP_SUFFIX}"):
        with suppress(OSError):
            orphan.unlink()


def _validated(txn: _Txn, text: str) -> Ledger:
    """``text`` as the ledger the next build would read, or the refusal to write it."""
    try:
        return _parse(text, txn.path, txn.ledger.root)[0]
    except LedgerError as e:
        raise LedgerError(
            f"refused to write the ledger: the change would make it invalid: {e.message}",
            file=txn.path,
            fix=e.fix or "nothing was written",
        ) from None


def _commit(txn: _Txn) -> Ledger:
    """Install ``txn.new_text``: temp file beside the ledger, fsync, check, rename."""
    assert txn.new_text is not None
    validated = txn.new_ledger or _validated(txn, txn.new_text)
    data = (codecs.BOM_UTF8 if txn.bom else b"") + txn.new_text.encode("utf-8")

    def unchanged_and_intact(tmp: Path) -> None:
        # What is on disk must be exactly the text that was validated: then the temp file is
        # the valid ledger the next build will read.
        if tmp.read_bytes() != data:
            raise LedgerError(
                "the new ledger did not reach the disk intact; nothing was written",
                file=txn.path,
                fix="check the disk and run the command again",
            )
        if _read_bytes(str(txn.real)) != txn.original:
            raise LedgerError(
                "the ledger changed on disk while citeledger was writing it",
                file=txn.path,
                fix="nothing was written; run the command again",
            )

    folder = txn.real.parent
    if not folder.is_dir():
        raise LedgerError(
            f"cannot write the ledger in {folder}: the folder does not exist",
            file=txn.path,
            fix="check that the folder exists and can be written",
        )
    try:
        atomic_write(
            txn.real,
            data,
            mode=_mode_for(txn.real),
            prefix=f".{txn.real.name}.",
            suffix=_TMP_SUFFIX,
            before_replace=unchanged_and_intact,
        )
    except OSError as e:
        raise LedgerError(
            f"cannot write the ledger: {e.strerror or e}",
            file=txn.path,
            fix=f"{failure_fix(e)}; the ledger is unchanged",
        ) from None
    return validated


def _mode_for(real: Path) -> int:
    try:
        return stat.S_IMODE(os.stat(real).st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


# --- writing: edits and appends ------------------------------------------------------------

#: Decides whether a candidate new text (and its validated ledger) is the intended change.
_Check = Callable[[str, Ledger], bool]


@contextmanager
def edit_ledger(
    path: str | os.PathLike[str], *, create: bool = False, lock_timeout: float = LOCK_TIMEOUT
) -> Iterator[Any]:
    """Edit the ledger as a ruamel.yaml round-trip document, under the ledger's lock.

    The scalars already in the file appear as the text the writer typed (``str``; null as
    ``None``), so writing them back cannot change them. On a normal exit the document is
    validated and written atomically; an exception inside the block leaves the file untouched,
    and so does an edit that would make the ledger invalid (:class:`LedgerError`).

    An edit that only adds (new keys at the end of mappings, new items at the end of lists:
    every edit citeledger makes) is spliced into the original text, so nothing else changes by
    a byte. Any other edit is written by ruamel's round-trip dump, which keeps comments, order
    and quoting but may re-indent and re-space. Do not call this module's other writers for the
    same ledger inside the block: they would wait for the lock the block holds.
    """
    with _transaction(path, create, lock_timeout) as txn:
        rt = round_trip(txn.style)
        doc = rt_load(rt, txn.text, txn.path)
        before = plain(doc)
        old = scalar_ids(doc)
        yield doc
        after = plain(doc)
        if after == before:
            return
        try:
            appends = plan_appends(before, after)
        except NotSpliceable:
            text = rt_dump(rt, convert_new(doc, old))
            txn.new_text, txn.new_ledger = text, _validated(txn, text)
        else:
            _write_appends(txn, appends, _same_data(txn, appends))


def _same_data(txn: _Txn, appends: Sequence[Append]) -> _Check:
    """A check that the text reads (by PyYAML, as YAML 1.1) as the old data plus the appends."""
    expected: list[Any] = []

    def check(text: str, new: Ledger) -> bool:
        if not expected:
            data = yaml.load(txn.text, Loader=_YamlLoader)
            if data.get("sources") is None:
                data["sources"] = {}
            apply_appends(data, appends)
            expected.append(data)
        return bool(yaml.load(text, Loader=_YamlLoader) == expected[0])

    return check


def _write_appends(txn: _Txn, appends: Sequence[Append], check: _Check) -> None:
    """Set the transaction's new text: ``appends`` spliced in, or else a round-trip dump.

    Either way the result must be a valid ledger that ``check`` accepts as the intended
    change; otherwise nothing is written.
    """
    with suppress(NotSpliceable, LedgerError, yaml.YAMLError):
        text = splice(txn.text, txn.node, appends, txn.style)
        new = _validated(txn, text)
        if check(text, new):
            txn.new_text, txn.new_ledger = text, new
            return
    rt = round_trip(txn.style)
    doc = rt_load(rt, txn.text, txn.path)

    def prepare(target: Any) -> None:
        if not target and hasattr(target, "fa"):
            target.fa.set_block_style()  # `sources: {}` grows into a block, not a flow map

    if doc.get("sources") is None:
        doc["sources"] = for_round_trip({})
    apply_appends(doc, appends, convert=for_round_trip, prepare=prepare)
    text = rt_dump(rt, doc)
    new = _validated(txn, text)
    if not check(text, new):
        raise LedgerError(
            "cannot add to this ledger without changing other values in it; nothing was written",
            file=txn.path,
            fix="add the entry by hand, and report the ledger that caused this",
        )
    txn.new_text, txn.new_ledger = text, new


def _unchanged_except(old: Ledger, new: Ledger, expected: Mapping[str, Source]) -> bool:
    """``new`` is ``old`` with the sources in ``expected`` replaced or added (at the end)."""
    if (new.evidence_dir, new.allow_files_outside) != (old.evidence_dir, old.allow_files_outside):
        return False
    keys = list(old.sources) + [k for k in expected if k not in old.sources]
    if list(new.sources) != keys:
        return False
    return all(new.sources[k] == expected.get(k, old.sources.get(k)) for k in keys)


def _top_index(txn: _Txn, key: str) -> int:
    assert isinstance(txn.node, MappingNode)
    for i, (key_node, _) in enumerate(txn.node.value):
        if key_node.value == key:
            return i
    raise LedgerError(f"the ledger has no '{key}:'", file=txn.path)  # pragma: no cover


def _source_path(txn: _Txn, key: str) -> tuple[tuple[int, ...], MappingNode]:
    """The node path of source ``key`` and its mapping node."""
    top = _top_index(txn, "sources")
    assert isinstance(txn.node, MappingNode)
    sources = txn.node.value[top][1]
    if isinstance(sources, MappingNode):
        for i, (key_node, value) in enumerate(sources.value):
            if key_node.value == key:
                return (top, i), value
    close = difflib.get_close_matches(key, list(txn.ledger.sources), n=1)
    raise LedgerError(
        f"no source '{key}' in the ledger",
        file=txn.path,
        fix=f"did you mean '{close[0]}'?" if close else "add it first with citeledger add",
    )


def _pair_index(node: MappingNode, name: str) -> int | None:
    for i, (key_node, _) in enumerate(node.value):
        if key_node.value == name:
            return i
    return None


def append_receipts(
    path: str | os.PathLike[str],
    entries: Iterable[tuple[str, int, Mapping[str, Any] | Receipt]],
    *,
    lock_timeout: float = LOCK_TIMEOUT,
) -> list[Receipt]:
    """Append receipts, given as ``(key, quote_index, receipt)``, in one locked write.

    ``quote_index`` counts from 0 in the source's ``quotes:``. A quote's ``receipts:`` list is
    created when it has none; earlier receipts are never touched. Returns the receipts as
    written, with their lines.
    """
    planned: list[tuple[str, int, Receipt]] = []
    for key, quote_index, receipt in entries:
        if not isinstance(receipt, Receipt):
            receipt = receipt_from_mapping(receipt, file=os.fspath(path))
        planned.append((key, quote_index, receipt))
    if not planned:
        return []
    with _transaction(path, False, lock_timeout) as txn:
        groups: dict[tuple[str, int], list[Receipt]] = {}
        for key, quote_index, receipt in planned:
            source = txn.ledger.sources.get(key)
            if source is None:
                _source_path(txn, key)  # raises with a suggestion
            assert source is not None
            if not 0 <= quote_index < len(source.quotes):
                raise LedgerError(
                    f"source '{key}' has no quote number {quote_index + 1} "
                    f"(it has {len(source.quotes)})",
                    file=txn.path,
                    line=source.line,
                    fix="add the quote to the ledger first, or pick one of its quotes",
                )
            groups.setdefault((key, quote_index), []).append(receipt)
        appends = []
        expected: dict[str, Source] = {}
        for (key, quote_index), new in groups.items():
            receipts = [receipt_to_dict(r) for r in new]
            source = expected.get(key, txn.ledger.sources[key])
            quotes = list(source.quotes)
            quotes[quote_index] = dataclasses.replace(
                quotes[quote_index], receipts=(*quotes[quote_index].receipts, *new)
            )
            expected[key] = dataclasses.replace(source, quotes=tuple(quotes))
            spath, snode = _source_path(txn, key)
            where = (key, quote_index, txn.path)
            appends.append(receipts_append(txn.text, txn.node, spath, snode, where, receipts))
        old = txn.ledger
        _write_appends(txn, appends, lambda _, new: _unchanged_except(old, new, expected))
    written = txn.written
    assert written is not None
    taken: dict[tuple[str, int], int] = {}
    out: list[Receipt] = []
    for key, quote_index, _ in planned:  # the new receipts are the last of each quote's list
        group = (key, quote_index)
        now = written.sources[key].quotes[quote_index].receipts
        out.append(now[len(now) - len(groups[group]) + taken.get(group, 0)])
        taken[group] = taken.get(group, 0) + 1
    return out


def receipts_append(
    text: str,
    root: Node | None,
    spath: tuple[int, ...],
    snode: MappingNode,
    where: tuple[str, int, str],
    receipts: Sequence[Mapping[str, Any]],
) -> Append:
    """The append that adds ``receipts`` to quote ``where[1]`` of the source at ``spath``: to
    its ``receipts:`` list, or a new list when it has none. ``where`` is (key, index, file)."""
    key, quote_index, file = where
    q = _pair_index(snode, "quotes")
    assert q is not None
    quote = snode.value[q][1].value[quote_index]
    qpath = (*spath, q, quote_index)
    _refuse_shared(text, root, qpath, key, quote_index, file)
    r = _pair_index(quote, "receipts") if isinstance(quote, MappingNode) else None
    if r is not None and not _is_null(quote.value[r][1]):
        return Append((*qpath, r), items=tuple(receipts))
    if r is not None:  # `receipts:` with nothing after it
        raise LedgerError(
            f"quote {quote_index + 1} of source '{key}' has an empty receipts: line",
            file=file,
            line=line_of(quote.value[r][0]),
            fix="delete the empty receipts: line (citeledger writes it)",
        )
    return Append(qpath, pairs=(("receipts", receipts),))


_HEAD_LINE = re.compile(r"^history_head:[ \t]*([0-9a-f]*)[ \t]*$", re.M)
_SOURCES_LINE = re.compile(r"^sources:", re.M)


def with_head(text: str, head: str) -> str:
    """``text`` with its ``history_head:`` line set to ``head`` (added before ``sources:``)."""
    found = _HEAD_LINE.search(text)
    if found:
        return text[: found.start(1)] + head + text[found.end(1) :]
    at = _SOURCES_LINE.search(text)
    cut = at.start() if at else len(text)
    gap = "" if cut == 0 or text[cut - 1] == "\n" else "\n"
    return f"{text[:cut]}{gap}history_head: {head}\n{text[cut:]}"


def set_history_head(
    path: str | os.PathLike[str], head: str, *, lock_timeout: float = LOCK_TIMEOUT
) -> bool:
    """Record ``history_head`` by a one-line text edit (before ``sources:``, or in place).

    A round-trip edit re-dumps the whole ledger, which on a large one costs more than the run
    it ends. The result must be a valid ledger with the same sources and the new head; when it
    is not (an unusual layout), nothing is written and ``False`` tells the caller to use
    ``edit_ledger``.
    """
    with _transaction(path, False, lock_timeout) as txn:
        new = with_head(txn.text, head)
        try:
            led = _validated(txn, new)
        except LedgerError:
            return False
        old = txn.ledger
        if led.history_head != head or list(led.sources) != list(old.sources):
            return False
        if (led.evidence_dir, led.trusted_keys) != (old.evidence_dir, old.trusted_keys):
            return False
        txn.new_text, txn.new_ledger = new, led
    return True


def _refuse_shared(
    text: str, root: Node | None, qpath: tuple[int, ...], key: str, index: int, file: str
) -> None:
    """A receipt written into a quote shared through an alias would belong to two sources."""
    shared = shared_on_path(text, root, qpath) if root is not None else None
    if shared is None:
        return
    anchor = f"&{shared.name}" if shared.name else "an anchor"
    alias = f"*{shared.name}" if shared.name else "an alias"
    raise LedgerError(
        f"quote {index + 1} of source '{key}' is the quote at line {shared.anchor_line} "
        f"({anchor}), shared through {alias}: its receipts would appear under every source "
        "that shares it",
        file=file,
        line=shared.alias_line,
        fix=f"write the quote out in full instead of {alias}, then run the command again; "
        "nothing was written",
    )


def _aliased(name: str) -> tuple[str, Ledger, MappingNode, int, MappingNode] | None:
    """The ledger's text, data, node tree, and its ``sources:`` (index, node), when any alias
    could share something; None for a ledger with no alias at all (the common case)."""
    data = _read_bytes(name)
    if data is None:
        return None
    text = _decode(data, name)
    if "*" not in text:  # no alias at all: nothing is shared
        return None
    ledger, root = _parse(text, name, os.path.dirname(os.path.abspath(name)), keep_nodes=True)
    assert isinstance(root, MappingNode)  # a valid ledger is a mapping with 'sources:'
    top = next(i for i, (k, _) in enumerate(root.value) if k.value == "sources")
    sources = root.value[top][1]
    if not isinstance(sources, MappingNode):
        return None
    return text, ledger, root, top, sources


def refuse_shared_quotes(path: str | os.PathLike[str], keys: Iterable[str]) -> None:
    """Before a run that writes receipts: refuse a quote of ``keys`` that an alias shares."""
    name = os.fspath(path)
    found = _aliased(name)
    if found is None:
        return
    text, ledger, root, top, sources = found
    wanted = set(keys)
    for i, (key_node, snode) in enumerate(sources.value):
        q = _pair_index(snode, "quotes") if isinstance(snode, MappingNode) else None
        if key_node.value not in wanted or q is None:
            continue
        for n in range(len(ledger.sources[key_node.value].quotes)):
            _refuse_shared(text, root, (top, i, q, n), key_node.value, n, name)


def _refuse_shared_list(name: str, key: str) -> None:
    """Before adding a quote: a ``quotes:`` list (or source) shared through an alias would get
    the new quote under every source that shares it — refused, nothing written."""
    found = _aliased(name)
    if found is None:
        return
    text, _, root, top, sources = found
    for i, (key_node, snode) in enumerate(sources.value):
        q = _pair_index(snode, "quotes") if isinstance(snode, MappingNode) else None
        if key_node.value != key:
            continue
        # no quotes: yet: the source mapping itself may be an alias (``b: *a``)
        shared = shared_on_path(text, root, (top, i) if q is None else (top, i, q))
        if shared is None:
            continue
        alias = f"*{shared.name}" if shared.name else "an alias"
        raise LedgerError(
            f"the {'quotes of ' if q is not None else ''}source '{key}' "
            f"{'are' if q is not None else 'is'} shared with another source through {alias} "
            f"(from line {shared.anchor_line}): a new quote would be added to every source "
            "that shares them",
            file=name,
            line=shared.alias_line,
            fix=f"write this source's quotes out in full (at line {shared.alias_line}, instead of "
            f"{alias}: each source its own list), then add the quote again; nothing was written",
        )


def append_receipt(
    path: str | os.PathLike[str],
    key: str,
    quote_index: int,
    receipt: Mapping[str, Any] | Receipt,
    *,
    lock_timeout: float = LOCK_TIMEOUT,
) -> Receipt:
    """Append one receipt to quote ``quote_index`` (from 0) of source ``key``."""
    return append_receipts(path, [(key, quote_index, receipt)], lock_timeout=lock_timeout)[0]


def set_withdrawn(
    path: str | os.PathLike[str],
    key: str,
    date: str | _dt.date,
    reason: str,
    source_says: str | None = None,
    *,
    lock_timeout: float = LOCK_TIMEOUT,
) -> Withdrawal:
    """Record that the writer withdrew the citation; refuses if one is already recorded."""
    return _set_record(path, "withdrawn", key, date, reason, source_says, lock_timeout)


def set_disputed(
    path: str | os.PathLike[str],
    key: str,
    date: str | _dt.date,
    reason: str,
    source_says: str | None = None,
    *,
    lock_timeout: float = LOCK_TIMEOUT,
) -> Withdrawal:
    """Record that the source does not support the claim; refuses if one is already recorded."""
    return _set_record(path, "disputed", key, date, reason, source_says, lock_timeout)


def _set_record(
    path: str | os.PathLike[str],
    field_name: str,
    key: str,
    date: str | _dt.date,
    reason: str,
    source_says: str | None,
    timeout: float,
) -> Withdrawal:
    name = os.fspath(path)
    day = date if isinstance(date, _dt.date) else _iso_date(str(date))
    if day is None:
        raise LedgerError(
            f"'{date}' is not an ISO date", file=name, fix="give the date as YYYY-MM-DD"
        )
    if isinstance(date, _dt.datetime):
        day = date.date()
    if not isinstance(reason, str) or not reason.strip():
        raise LedgerError(
            f"a {field_name} record needs a reason", file=name, fix="say why, in a sentence"
        )
    record: dict[str, Any] = {"date": day, "reason": reason}
    if source_says is not None:
        if not isinstance(source_says, str) or not source_says.strip():
            raise LedgerError(
                "source_says is empty", file=name, fix="quote what the source says, or omit it"
            )
        record["source_says"] = source_says
    with _transaction(path, False, timeout) as txn:
        spath, _ = _source_path(txn, key)
        existing = getattr(txn.ledger.sources[key], field_name)
        if existing is not None:
            raise LedgerError(
                f"source '{key}' is already {field_name} (on {existing.date}: {existing.reason})",
                file=txn.path,
                line=existing.line,
                fix="the recorded one is kept as it is; nothing was written",
            )
        source = txn.ledger.sources[key]
        value = Withdrawal(day.isoformat(), reason, source_says)
        if field_name == "withdrawn":
            expected = {key: dataclasses.replace(source, withdrawn=value)}
        else:
            expected = {key: dataclasses.replace(source, disputed=value)}
        old = txn.ledger
        _write_appends(
            txn,
            [Append(spath, pairs=((field_name, record),))],
            lambda _, new: _unchanged_except(old, new, expected),
        )
        # logged, and the log's newest entry named in the same write: a record deleted from
        # the ledger by hand is then noticed by the judgement, like a deleted receipt
        from citeledger.evidence.store import history_record

        assert txn.new_text is not None
        head = history_record(old.evidence_dir, key, str(source.identifier), field_name, value)
        with suppress(LedgerError):
            text = with_head(txn.new_text, head)
            led = _validated(txn, text)
            if led.history_head == head and _unchanged_except(old, led, expected):
                txn.new_text, txn.new_ledger = text, led
    assert txn.written is not None
    if txn.written.history_head != head:  # an unusual layout: the head in a write of its own
        set_history_head(path, head, lock_timeout=timeout)
    result = getattr(txn.written.sources[key], field_name)
    assert isinstance(result, Withdrawal)
    return result


def add_source(
    path: str | os.PathLike[str],
    key: str,
    fields: Mapping[str, Any],
    *,
    create: bool = False,
    lock_timeout: float = LOCK_TIMEOUT,
) -> Source:
    """Add a source under ``sources:`` (at the end); refuses a key that is already there.

    ``fields`` is the source's mapping as it would be written (one identifier, CSL fields,
    ``quotes``…); it is validated with the rest of the ledger before anything is written.
    With ``create``, a missing ledger file is created.
    """
    name = os.fspath(path)
    if not is_citation_key(key):
        raise LedgerError(
            f"'{key}' is not a citation key pandoc can read after @",
            file=name,
            fix="use letters, digits and _, with punctuation (:.#$%&-+?<>~/) only between them",
        )
    if not isinstance(fields, Mapping) or not fields:
        raise LedgerError(
            f"source '{key}' needs fields",
            file=name,
            fix="give it one identifier (url, doi, arxiv, isbn or file) and its quotes",
        )
    with _transaction(path, create, lock_timeout) as txn:
        existing = txn.ledger.sources.get(key)
        if existing is not None:
            raise LedgerError(
                f"source '{key}' is already in the ledger",
                file=txn.path,
                line=existing.line,
                fix="choose another key, or edit the existing source",
            )
        data = plain(fields)
        # The source on its own first: its mistakes are reported as its own, and what it must
        # read back as is known before the ledger is touched (files are checked with the rest).
        alone = {"allow_files_outside": True, "sources": {key: data}}
        expected = _validated(txn, render_block(alone, txn.style)).sources
        top = _top_index(txn, "sources")
        old = txn.ledger
        _write_appends(
            txn,
            [Append((top,), pairs=((key, data),))],
            lambda _, new: _unchanged_except(old, new, expected),
        )
    assert txn.written is not None
    return txn.written.sources[key]


def check_source(path: str | os.PathLike[str], key: str, fields: Mapping[str, Any]) -> Source:
    """``fields`` read as the source ``key`` of the ledger at ``path``, or the LedgerError.

    Lets a bulk import refuse one entry it cannot hold (a URL with spaces, a bad DOI) before
    the write, so one bad entry never refuses the whole import.
    """
    name = os.fspath(path)
    if not is_citation_key(key):
        raise LedgerError(
            f"'{key}' is not a citation key pandoc can read after @",
            file=name,
            fix="use letters, digits and _, with punctuation (:.#$%&-+?<>~/) only between them",
        )
    root = os.path.dirname(os.path.abspath(name))
    text = yaml.safe_dump({"sources": {key: plain(fields)}}, allow_unicode=True, sort_keys=False)
    return _parse(text, name, root)[0].sources[key]


def add_quote(
    path: str | os.PathLike[str],
    key: str,
    text: str,
    *,
    locator: str | None = None,
    quote_id: str | None = None,
    lock_timeout: float = LOCK_TIMEOUT,
) -> None:
    """Append a quote to the existing source ``key`` (locked, atomic, comments kept).

    The new quote is validated with the rest of the ledger (an empty text, a duplicate id are
    refused and nothing is written); the same words twice are refused here, by name.
    """
    name = os.fspath(path)
    quote: dict[str, Any] = {"text": text}
    if quote_id is not None:
        quote["id"] = quote_id
    if locator is not None:
        quote["locator"] = locator
    with edit_ledger(path, lock_timeout=lock_timeout) as doc:
        _refuse_shared_list(name, key)  # under the lock: no writer can add an alias meanwhile
        sources: Any = doc.get("sources") if isinstance(doc, Mapping) else None
        source: Any = sources.get(key) if isinstance(sources, Mapping) else None
        if not isinstance(source, MutableMapping):
            raise LedgerError(
                f"source '{key}' is not in the ledger",
                file=name,
                fix=f"add it first: citeledger add {key} --url … (or citeledger import refs.bib)",
            )
        quotes = source.get("quotes")
        if quotes is None:
            source["quotes"] = [quote]
            return
        if not isinstance(quotes, list):
            return  # not a list: the validation of the unchanged ledger says so on the next load
        if any(isinstance(q, Mapping) and q.get("text") == text for q in quotes):
            raise LedgerError(
                f"source '{key}' already has this quote",
                file=name,
                fix="nothing was written; give a locator to the existing quote by hand if needed",
            )
        quotes.append(quote)
