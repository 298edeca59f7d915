"""A ledger held parsed for one run that appends receipts batch after batch (``verify``).

``append_receipts`` reads, parses and validates the whole ledger for every write, so a run
that writes a 2,000-source ledger in batches re-parsed it again and again. Here the ledger is
parsed once and kept as text cut at its sources (the lines before the first source, one piece
per source, the lines after the last); a batch splices its receipts into the pieces of the
sources it touches, validates those pieces (each read as a ledger of its own, which a source
is when no YAML alias ties it to another), and installs the whole text with the same locked,
atomic, checked write as every other writer. Comments and every other byte stay as they are.

The held text is trusted only while the file on disk is byte for byte what was last read or
written: anything else (a writer's ``citeledger add`` meanwhile) is parsed afresh. A layout the
pieces cannot stand for (aliases, a flow ``sources:``, ``%TAG``, CR line ends) and any surprise in a
piece take the ordinary path (``append_receipts``), with its errors.
"""

from __future__ import annotations

import codecs
import dataclasses
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from yaml.nodes import MappingNode, Node

from citeledger.errors import LedgerError
from citeledger.ledger.load import (
    LOCK_TIMEOUT,
    _decode,
    _parse,
    _read_bytes,
    receipt_from_mapping,
    receipt_to_dict,
)
from citeledger.ledger.write import (
    _HEAD_LINE,
    _commit,
    _exclusive_lock,
    _remove_orphan_temps,
    _Txn,
    append_receipts,
    lock_path,
    receipts_append,
    with_head,
)
from citeledger.ledger.yamlnodes import (
    NotSpliceable,
    Style,
    compose,
    guess_style,
    has_alias,
    splice,
)
from citeledger.model import Ledger, Receipt, Source

_MARKER = re.compile(r"^(?:%|---|\.\.\.)", re.M)  # a directive or document marker: not in a piece
_TAG_DIRECTIVE = re.compile(r"^%TAG", re.M)  # would give a piece's tags another meaning


@dataclass
class _Pieces:
    """The ledger's text cut at its sources, and what is known about it."""

    data: bytes  # the file's bytes, as last read or written
    bom: bool
    ledger: Ledger
    style: Style
    prefix: str  # up to the first source's line (``sources:`` is in it)
    pieces: list[str]  # one per source, from its key's line to the next source's
    suffix: str  # from the top-level key after ``sources:`` on
    index: dict[str, int]  # source key → its piece (composed when touched, not kept: memory
    # stays flat in the number of sources, and a run touches each source about once)

    def text(self) -> str:
        return self.prefix + "".join(self.pieces) + self.suffix


class HeldLedger:
    """Appends to one ledger from one run; see the module's docstring."""

    def __init__(self, path: str | os.PathLike[str], *, lock_timeout: float = LOCK_TIMEOUT):
        self.path = os.fspath(path)
        self._real = Path(os.path.realpath(self.path))
        self._root = os.path.dirname(os.path.abspath(self.path))
        self._timeout = lock_timeout
        self._held: _Pieces | None = None
        self.fast_writes = 0  # writes that took the held path (the tests look)
        self.uncuttable = False

    def append(
        self,
        entries: Iterable[tuple[str, int, Mapping[str, Any] | Receipt]],
        head: str | None = None,
    ) -> bool:
        """Append receipts ``(key, quote_index, receipt)`` in one locked, atomic write, with
        ``history_head`` set to ``head`` in the same write when it can be. Returns whether the
        head was written (otherwise the caller records it: ``set_history_head``)."""
        planned: list[tuple[str, int, Receipt]] = []
        for key, index, receipt in entries:
            if not isinstance(receipt, Receipt):
                receipt = receipt_from_mapping(receipt, file=self.path)
            planned.append((key, index, receipt))
        if not planned and head is None:
            return False
        with _exclusive_lock(lock_path(self.path), self._timeout, self.path):
            done = self._held_write(planned, head)
        if not done:
            self._held = None
            append_receipts(self.path, planned, lock_timeout=self._timeout)
        return done

    def _held_write(self, planned: list[tuple[str, int, Receipt]], head: str | None) -> bool:
        if self.uncuttable:
            return False  # before reading: such a ledger goes the ordinary way every batch
        data = _read_bytes(str(self._real))
        if data is None:
            return False  # the ordinary path says the ledger is gone
        held = self._held
        if held is None or held.data != data:
            held = self._held = _cut(data, self.path, self._root)
        if held is None:
            self.uncuttable = True  # the layout stays what it is for the rest of the run
            return False
        _remove_orphan_temps(self._real)
        groups: dict[str, dict[int, list[Receipt]]] = {}
        for key, index, receipt in planned:
            source = held.ledger.sources.get(key)
            if source is None or not 0 <= index < len(source.quotes):
                return False  # the ordinary path names the mistake
            groups.setdefault(key, {}).setdefault(index, []).append(receipt)
        try:
            changed = {key: self._spliced(held, key, new) for key, new in groups.items()}
            prefix, suffix = held.prefix, held.suffix
            if head is not None:
                prefix, suffix = self._headed(held, head)
        except (NotSpliceable, _Surprise, LedgerError):
            return False  # the ordinary path writes it, or names what is wrong
        sources = dict(held.ledger.sources)
        pieces = list(held.pieces)
        for key, (piece, source) in changed.items():
            pieces[held.index[key]] = piece
            sources[key] = source
        new_ledger = dataclasses.replace(
            held.ledger,
            sources=sources,
            history_head=head if head is not None else held.ledger.history_head,
        )
        text = prefix + "".join(pieces) + suffix
        txn = _Txn(
            self.path, self._real, data, held.text(), held.bom, held.ledger, None, held.style
        )
        txn.new_text, txn.new_ledger = text, new_ledger
        _commit(txn)
        held.data = (codecs.BOM_UTF8 if held.bom else b"") + text.encode("utf-8")
        held.prefix, held.suffix, held.pieces, held.ledger = prefix, suffix, pieces, new_ledger
        self.fast_writes += 1
        return True

    def _spliced(
        self, held: _Pieces, key: str, new: Mapping[int, list[Receipt]]
    ) -> tuple[str, Source]:
        """The source's piece with ``new`` receipts (by quote index) spliced in, validated."""
        at = held.index[key]
        head = _piece_head(held.ledger)
        doc = head + held.pieces[at]
        root = compose(doc, self.path)
        top, snode = _only_source(root)
        appends = [
            receipts_append(
                doc,
                root,
                (top, 0),
                snode,
                (key, index, self.path),
                [receipt_to_dict(r) for r in receipts],
            )
            for index, receipts in new.items()
        ]
        spliced = splice(doc, root, appends, held.style)
        if not spliced.startswith(head):
            raise _Surprise
        try:
            alone = _parse(spliced, self.path, self._root)[0]
        except LedgerError:
            raise _Surprise from None
        old = held.ledger.sources[key]
        quotes = list(old.quotes)
        for index, receipts in new.items():
            quotes[index] = dataclasses.replace(
                quotes[index], receipts=(*quotes[index].receipts, *receipts)
            )
        expected = dataclasses.replace(old, quotes=tuple(quotes))
        if list(alone.sources) != [key] or alone.sources[key] != expected:
            raise _Surprise
        # Held with the lines the whole file gives it (the piece alone counts from 1).
        return spliced[len(head) :], dataclasses.replace(expected, line=old.line)

    def _headed(self, held: _Pieces, head: str) -> tuple[str, str]:
        """The text around the sources with ``history_head: head``, validated."""
        prefix, suffix = held.prefix, held.suffix
        if _HEAD_LINE.search(suffix):
            suffix = with_head(suffix, head)
        else:
            prefix = with_head(prefix, head)
        try:
            around = _parse(prefix + suffix, self.path, self._root)[0]
        except LedgerError:
            raise _Surprise from None
        old = held.ledger
        same = dataclasses.replace(old, sources=around.sources, history_head=head)
        if around != same or around.sources:
            raise _Surprise
        return prefix, suffix


class _Surprise(Exception):
    """A piece did not read back as intended: the ordinary path writes this batch."""


def _piece_head(ledger: Ledger) -> str:
    """What a source's piece is read under: the one top-level setting a source depends on."""
    return ("allow_files_outside: true\n" if ledger.allow_files_outside else "") + "sources:\n"


def _only_source(root: Node | None) -> tuple[int, MappingNode]:
    """The index of ``sources`` in a piece's document, and its one source's mapping."""
    if not isinstance(root, MappingNode):
        raise _Surprise
    for top, (key, value) in enumerate(root.value):
        if key.value == "sources" and isinstance(value, MappingNode) and len(value.value) == 1:
            snode = value.value[0][1]
            if isinstance(snode, MappingNode):
                return top, snode
    raise _Surprise


def _cut(data: bytes, name: str, root: str) -> _Pieces | None:
    """Parse the ledger (the one full parse of a run) and cut it at its sources, or None when
    its layout cannot be cut so that each piece reads alone as it reads in the file."""
    text = _decode(data, name)
    ledger, node = _parse(text, name, root, keep_nodes=True)
    if "\r" in text or _TAG_DIRECTIVE.search(text) or not isinstance(node, MappingNode):
        return None
    if node.flow_style or has_alias(node):
        return None
    starts: list[int] = []
    after = len(text)
    keys: list[str] = []
    found = False
    for key, value in node.value:
        if key.start_mark.column != 0:
            return None
        if found:
            after = min(after, int(key.start_mark.index))
            break
        if key.value != "sources":
            continue
        found = True
        if not isinstance(value, MappingNode) or value.flow_style or not value.value:
            return None
        column = value.value[0][0].start_mark.column
        for skey, _ in value.value:
            line_start = int(skey.start_mark.index) - int(skey.start_mark.column)
            if skey.start_mark.column != column or text[line_start : skey.start_mark.index].strip():
                return None
            starts.append(line_start)
            keys.append(str(skey.value))
    if not starts or list(ledger.sources) != keys:
        return None
    end_marker = _MARKER.search(text, starts[-1], after)  # `...` after the last source
    after = end_marker.start() if end_marker else after
    ends = [*starts[1:], after]
    if _MARKER.search(text, starts[0], after):
        return None
    return _Pieces(
        data=data,
        bom=data.startswith(codecs.BOM_UTF8),
        ledger=ledger,
        style=guess_style(node),
        prefix=text[: starts[0]],
        pieces=[text[a:b] for a, b in zip(starts, ends, strict=True)],
        suffix=text[after:],
        index={k: i for i, k in enumerate(keys)},
    )
