"""A build's ledger from the outline of its bytes, without PyYAML: the path of every build
after the first.

``load_lazy`` is ``load.load_ledger(path, lazy=True)``. When the ledger's outline (``outline``:
where each source's text stands, remembered by the file's bytes) is known, each source is
built on its first lookup, from the parsed sources kept in the user's cache (``parsed``) when
one is kept for these bytes, else parsed from its own span of the text. Only a parse imports
PyYAML and the parsing code (``load``, ``yamlnodes``): a page whose few sources are kept pays
for neither (PyYAML's import alone is a tenth of a one-citation page's filter process). With
no outline yet, ``load`` parses the whole file and remembers one.

This module must never write anything but the user's cache, nor touch the network.
"""

from __future__ import annotations

import dataclasses
import gc
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citeledger.confine import RealPaths, below
from citeledger.errors import LedgerError
from citeledger.evidence import usercache
from citeledger.inputs import file_kind
from citeledger.ledger import outline, parsed
from citeledger.model import Ledger, Source

if TYPE_CHECKING:
    from yaml.nodes import Node


def read_ledger(path: str | os.PathLike[str]) -> tuple[str, bytes, str, str]:
    """The ledger's name, bytes, folder and text; a missing or unreadable file is one
    :class:`LedgerError`. The user's cache is kept out of the ledger's folder first."""
    name = os.fspath(path)
    data = _read_bytes(name)
    if data is None:
        raise LedgerError(
            "the ledger file does not exist",
            file=name,
            fix="create it or pass --ledger / citeledger.ledger",
        )
    root = os.path.dirname(os.path.abspath(name))
    usercache.keep_out_of(root)  # before any accelerator of the user's cache is read
    return name, data, root, _decode(data, name)


def load_lazy(path: str | os.PathLike[str]) -> Ledger:
    """``load.load_ledger(path, lazy=True)``, parsing nothing when the outline of these bytes
    is remembered (see the module docstring)."""
    name, data, root, text = read_ledger(path)
    where = outline.place(data, root)
    known = outline.recall(where)
    sliced = _from_outline(known, text, name, root, where) if known is not None else None
    if sliced is not None:
        return sliced
    from citeledger.ledger.load import parse_lazy

    return parse_lazy(text, name, root, where)


class KeptSources(Mapping[str, Source]):
    """A lazy load's sources: each built on its first lookup, through ``kept`` (the sources a
    build parsed from these bytes), and each one's exact text (``text_of``)."""

    kept: parsed.Kept | None = None

    def text_of(self, key: str) -> str | None:
        raise NotImplementedError


def source_text(sources: Mapping[str, Source], key: str) -> str | None:
    """The exact text of source ``key`` in its ledger — its lines, comments and all — which
    with the ledger's folder and ``allow_files_outside`` is everything its ``Source`` is made
    from. None when it has no text of its own: an eagerly loaded ledger, or one whose sources
    share a node (an alias) or are written inline."""
    if isinstance(sources, KeptSources):
        return sources.text_of(key)
    return None


def save_parsed(sources: Mapping[str, Source]) -> None:
    """The end of a build: keep the sources it parsed for the next build of the same bytes
    (``parsed``); nothing for an eagerly loaded ledger."""
    kept = sources.kept if isinstance(sources, KeptSources) else None
    if kept is not None:
        kept.save()


@contextmanager
def gc_paused() -> Iterator[None]:
    """Loading allocates tens of thousands of objects and frees none: collecting is wasted (the
    filter pauses it for its whole run, for the same reason: an AST is a tree, not cycles)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _read_bytes(name: str) -> bytes | None:
    kind = file_kind(name)
    if kind not in (None, "missing") and not kind.startswith("unreadable"):
        raise LedgerError(
            f"the ledger path is {kind}, not a file",
            file=name,
            fix="pass the ledger file itself, e.g. --ledger citeledger.yaml",
        )
    try:
        return Path(name).read_bytes()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise LedgerError(
            f"cannot read the ledger: {e.strerror or e}",
            file=name,
            fix="check the file's permissions",
        ) from None


def _decode(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise LedgerError(
            "the ledger is not UTF-8 text",
            file=name,
            line=data.count(b"\n", 0, e.start) + 1,
            fix="save the file as UTF-8",
        ) from None


@dataclass(frozen=True)
class _Ctx:
    file: str
    root: str
    allow_outside: bool
    # a thesis's 500 file sources share a folder or two: each resolved once per load
    realpath: RealPaths = dataclasses.field(default_factory=RealPaths, compare=False, repr=False)

    def error(self, message: str, node: Node | None, fix: str) -> LedgerError:
        from citeledger.ledger.yamlnodes import line_of  # only a parse has nodes

        return LedgerError(message, file=self.file, line=line_of(node) if node else None, fix=fix)


def _from_outline(
    known: Mapping[str, Any], text: str, file: str, root: str, where: Path
) -> Ledger | None:
    """The ledger from a remembered outline of these exact bytes (kept at ``where``); None if
    it is malformed."""
    try:
        top = known["top"]
        spans = {str(k): (int(a), int(b), int(c)) for k, (a, b, c) in known["sources"].items()}
        ctx = _Ctx(file, root, bool(top["allow"]))
        sources = _SlicedSources(text, spans, ctx)
        sources.kept = parsed.Kept(parsed.place(where, file, root, ctx.allow_outside))
        return Ledger(
            path=file,
            root=root,
            sources=sources,
            evidence_dir=str(top["evidence"]),
            allow_files_outside=bool(top["allow"]),
            trusted_keys=tuple(str(k) for k in top["trusted"]),
            require_signature=bool(top["require"]),
            history_head=None if top["head"] is None else str(top["head"]),
        )
    except (KeyError, TypeError, ValueError):
        return None


class _SlicedSources(KeptSources):
    """A remembered outline's sources: each parsed from its own span of the text on its first
    lookup, with its lines as in the whole file; a span that does not parse as exactly that
    source (it cannot happen for the bytes it was made from) falls back to a full parse."""

    def __init__(self, text: str, spans: dict[str, tuple[int, int, int]], ctx: _Ctx) -> None:
        self._text = text
        self._spans = spans
        self._ctx = ctx
        self._built: dict[str, Source] = {}
        self._full: Mapping[str, Source] | None = None

    def __getitem__(self, key: str) -> Source:
        built = self._built.get(key)
        if built is None:
            start, end, line = self._spans[key]  # KeyError: not in the ledger
            with gc_paused():
                built = self._built[key] = _kept_or_parsed(
                    key, self.kept, self._ctx, lambda: self._parse(key, start, end, line)
                )
        return built

    def _parse(self, key: str, start: int, end: int, line: int) -> Source:
        from yaml.nodes import MappingNode, ScalarNode  # a parse, not a recall: PyYAML now

        from citeledger.ledger.load import _parse_nodes, _source
        from citeledger.ledger.yamlnodes import compose

        try:
            # the outline was made by a full parse of these bytes, which refused their tags
            node = compose(self._text[start:end], self._ctx.file, tags_checked=True)
        except LedgerError:
            node = None
        if isinstance(node, MappingNode) and len(node.value) == 1:
            key_node, value = node.value[0]
            if isinstance(key_node, ScalarNode) and key_node.value == key:
                try:
                    return _relined(_source(key, key_node, value, self._ctx), line)
                except LedgerError:
                    pass  # its line is the span's: the full parse raises it at the file's line
        if self._full is None:
            self._full = _parse_nodes(self._text, self._ctx.file, self._ctx.root, True)[0].sources
        return self._full[key]

    def text_of(self, key: str) -> str | None:
        span = self._spans.get(key)
        return None if span is None else self._text[span[0] : span[1]]

    def __iter__(self) -> Iterator[str]:
        return iter(self._spans)

    def __len__(self) -> int:
        return len(self._spans)

    def __contains__(self, key: object) -> bool:
        return key in self._spans


def _kept_or_parsed(
    key: str, kept: parsed.Kept | None, ctx: _Ctx, parse: Callable[[], Source]
) -> Source:
    """Source ``key`` as a build parsed it from these bytes before (``parsed``), when the paths
    it names still lie where that parse found them; else parsed now, and kept for the next."""
    if kept is None:
        return parse()
    source = kept.get(key)
    if source is not None and (
        ctx.allow_outside or not any(_leaves_folder(p, ctx) for p in parsed.paths_of(source))
    ):
        return source
    source = parse()
    kept.add(source)
    return source


def _leaves_folder(value: str, ctx: _Ctx) -> bool:
    """A relative path that is, or now resolves (symbolic links followed), outside the
    ledger's folder."""
    root = os.path.normpath(ctx.root)
    target = os.path.normpath(os.path.join(root, value))
    return not below(target, root) or not below(ctx.realpath(target), ctx.realpath(root))


def _relined(source: Source, lines: int) -> Source:
    """A source parsed from its span, moved to the lines it stands on in the whole file: its own
    line and every line it holds (quotes, receipts, reviews, withdrawals; the lazy-loading
    tests compare every ``line`` of every value with a full load's)."""

    def down(value: Any) -> Any:
        return _moved(value, line=None if value.line is None else value.line + lines)

    def at(line: int | None) -> int | None:
        return None if line is None else line + lines

    quotes = tuple(
        _moved(
            down(q),
            asserted_line=at(q.asserted_line),  # the hand-written flag's warning names it
            receipts=tuple(map(down, q.receipts)),
            reviews=tuple(map(down, q.reviews)),
        )
        for q in source.quotes
    )
    moved: Source = _moved(
        down(source),
        local_copy_line=at(source.local_copy_line),
        quotes=quotes,
        withdrawn=None if source.withdrawn is None else down(source.withdrawn),
        disputed=None if source.disputed is None else down(source.disputed),
    )
    return moved


def _moved(value: Any, **changes: Any) -> Any:
    """``dataclasses.replace`` for the values a load just made, without running ``__init__``
    again (a fifth of the time; a thesis moves 2,500 of them): the fields copied, ``changes``
    set. The model's dataclasses are frozen, plain and check nothing in ``__init__``."""
    moved = object.__new__(type(value))
    state = moved.__dict__
    old = value.__dict__
    cls = type(value)
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in fields(cls))
    for name in names:
        state[name] = old[name]
    state.update(changes)
    return moved


_FIELDS: dict[type, tuple[str, ...]] = {}
