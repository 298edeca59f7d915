"""The writer's ledger (``citeledger.yaml``): read and validate it, and add to it safely.

Reading is on every build's path (the filter loads the ledger each time), so it composes with
PyYAML's C parser and builds the frozen :mod:`citeledger.model` values in one walk over the
nodes, keeping each value's line so that every complaint is ``file:line: what — how to fix``.
The format is ``docs/ledger-format.md``.

Writing is only ever adding: a receipt, a withdrawal, a dispute, a source. Each write holds an
exclusive lock, splices the addition into the writer's text (so comments, order, quoting and
blank lines survive byte for byte; a round-trip dump is the fallback), re-validates what it is
about to install, and replaces the file atomically.

This module must never: write a ledger that does not load; overwrite or drop a receipt, a
withdrawal or a dispute; treat a hand-written ``verified: true`` as evidence; touch the network.
"""

from __future__ import annotations

import codecs
import dataclasses
import datetime as _dt
import difflib
import gc
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from citeledger.atomic import atomic_write, failure_fix
from citeledger.errors import LedgerError
from citeledger.inputs import file_kind
from citeledger.ledger.identifiers import IdentifierError, validate_identifier
from citeledger.ledger.yamlnodes import (
    TAG_BOOL,
    TAG_FLOAT,
    TAG_INT,
    Append,
    NotSpliceable,
    Style,
    apply_appends,
    compose,
    convert_new,
    for_round_trip,
    guess_style,
    is_null,
    line_of,
    pairs,
    plain,
    plan_appends,
    render_block,
    round_trip,
    rt_dump,
    rt_load,
    scalar_ids,
    scalar_text,
    scalar_value,
    shared_on_path,
    splice,
    tag_of,
    to_python,
)
from citeledger.ledger.yamlnodes import Loader as _YamlLoader
from citeledger.model import (
    IDENTIFIER_KINDS,
    Edit,
    Identifier,
    Ledger,
    Quote,
    Receipt,
    Source,
    Withdrawal,
)

__all__ = [
    "ASSERTION_FIELDS",
    "CSL_VARIABLES",
    "DEFAULT_EVIDENCE_DIR",
    "LOCK_TIMEOUT",
    "RECEIPT_FIELDS",
    "add_source",
    "append_receipt",
    "append_receipts",
    "edit_ledger",
    "is_citation_key",
    "load_ledger",
    "lock_path",
    "receipt_from_mapping",
    "receipt_to_dict",
    "refuse_shared_quotes",
    "set_disputed",
    "set_withdrawn",
]

DEFAULT_EVIDENCE_DIR = ".citeledger"
LOCK_TIMEOUT = 60.0  # seconds a writer waits for another before giving up
FORMAT_DOC = "docs/ledger-format.md"

TOP_LEVEL_KEYS = (
    "citeledger",
    "evidence_dir",
    "allow_files_outside",
    "trusted_keys",
    "require_signature",
    "history_head",
    "sources",
)

CSL_VARIABLES = frozenset(
    [
        "type",
        "title",
        "title-short",
        "author",
        "editor",
        "translator",
        "container-author",
        "issued",
        "accessed",
        "original-date",
        "container-title",
        "container-title-short",
        "collection-title",
        "collection-number",
        "publisher",
        "publisher-place",
        "page",
        "volume",
        "issue",
        "number",
        "edition",
        "chapter-number",
        "genre",
        "medium",
        "language",
        "abstract",
        "note",
        "annote",
        "event",
        "event-place",
        "archive",
        "archive_location",
        "call-number",
        "keyword",
        "citation-key",
        "ISSN",
        "PMID",
        "PMCID",
        "URL",
        "DOI",
        "ISBN",
    ]
)
NAME_VARIABLES = frozenset({"author", "editor", "translator", "container-author"})
DATE_VARIABLES = frozenset({"issued", "accessed", "original-date"})
NUMBER_VARIABLES = frozenset(
    {"collection-number", "volume", "issue", "number", "edition", "chapter-number", "page"}
)
NAME_PARTS = frozenset(
    {"family", "given", "dropping-particle", "non-dropping-particle", "suffix", "literal"}
)
NAME_FLAGS = frozenset({"comma-suffix", "static-ordering", "parse-names"})
DATE_PARTS = frozenset({"date-parts", "season", "circa", "literal", "raw"})
CSL_TYPES = frozenset(
    [
        "article",
        "article-journal",
        "article-magazine",
        "article-newspaper",
        "bill",
        "book",
        "broadcast",
        "chapter",
        "classic",
        "collection",
        "dataset",
        "document",
        "entry",
        "entry-dictionary",
        "entry-encyclopedia",
        "event",
        "figure",
        "graphic",
        "hearing",
        "interview",
        "legal_case",
        "legislation",
        "manuscript",
        "map",
        "motion_picture",
        "musical_score",
        "pamphlet",
        "paper-conference",
        "patent",
        "performance",
        "periodical",
        "personal_communication",
        "post",
        "post-weblog",
        "regulation",
        "report",
        "review",
        "review-book",
        "software",
        "song",
        "speech",
        "standard",
        "thesis",
        "treaty",
        "webpage",
    ]
)

#: Recognised on a source or quote only to be refused as evidence (a check is an act).
ASSERTION_FIELDS = ("verified", "checked", "status", "verified_at")
STRUCTURE_FIELDS = ("quotes", "withdrawn", "disputed", "audience")
QUOTE_FIELDS = ("text", "id", "locator", "receipts")
RECORD_FIELDS = ("date", "reason", "source_says")

RECEIPT_FIELDS = tuple(f.name for f in fields(Receipt) if f.name != "line")
RECEIPT_REQUIRED = ("outcome", "identifier", "retrieved_at", "tool", "writer_quote_sha256")
RECEIPT_INTS = frozenset({"status", "page", "char_start", "char_end"})
RECEIPT_LISTS = frozenset({"redirects", "differences"})
EDIT_KINDS = ("bracket", "omission")
EDIT_FIELDS = tuple(f.name for f in fields(Edit))
_EDIT_INTS = frozenset({"char_start", "char_end"})
OUTCOMES = ("found", "not-found", "unretrievable", "changed", "gone")
MATCHES = ("exact", "normalized", "fuzzy")

_SOURCE_ALIASES = {
    "authors": "author",
    "year": "issued",
    "date": "issued",
    "journal": "container-title",
    "booktitle": "container-title",
    "venue": "container-title",
    "publication": "container-title",
    "pages": "page",
    "quote": "quotes",
    "link": "url",
    "href": "url",
    "website": "url",
    "pdf": "file",
    "path": "file",
    "isbn13": "isbn",
    "isbn10": "isbn",
    "eprint": "arxiv",
    "keywords": "keyword",
    "withdraw": "withdrawn",
    "dispute": "disputed",
    "audiences": "audience",
}
_QUOTE_ALIASES = {
    "quote": "text",
    "page": "locator",
    "pages": "locator",
    "loc": "locator",
    "receipt": "receipts",
    "label": "id",
    "name": "id",
}
_KIND_LABELS = {"url": "URL", "doi": "DOI", "arxiv": "arXiv id", "isbn": "ISBN", "file": "file"}
_TMP_SUFFIX = ".citeledger-tmp"


# --- citation keys -------------------------------------------------------------------------

_KEY_PUNCT = frozenset(":.#$%&-+?<>~/")


def is_citation_key(key: str) -> bool:
    """Whether pandoc reads ``@key`` as this whole key (its rule for unbraced citation keys).

    A key starts with a letter, digit or ``_``; punctuation from ``:.#$%&-+?<>~/`` may appear
    inside it when a letter, digit or ``_`` follows (``:`` and ``/`` may also precede ``/``).
    """

    def regular(c: str) -> bool:
        return c.isalnum() or c == "_"

    if not key or not regular(key[0]):
        return False
    for i in range(1, len(key)):
        c = key[i]
        if regular(c):
            continue
        nxt = key[i + 1] if i + 1 < len(key) else ""
        if c in _KEY_PUNCT and nxt and regular(nxt):
            continue
        if c in ":/" and nxt == "/":
            continue
        return False
    return True


# --- loading -------------------------------------------------------------------------------


def load_ledger(path: str | os.PathLike[str]) -> Ledger:
    """Read and validate the ledger; every problem is a one-line :class:`LedgerError`."""
    name = os.fspath(path)
    data = _read_bytes(name)
    if data is None:
        raise LedgerError(
            "the ledger file does not exist",
            file=name,
            fix="create it or pass --ledger / citeledger.ledger",
        )
    root = os.path.dirname(os.path.abspath(name))
    return _parse(_decode(data, name), name, root)[0]


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Loading allocates tens of thousands of objects and frees none: collecting is wasted."""
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

    def error(self, message: str, node: Node | None, fix: str) -> LedgerError:
        return LedgerError(message, file=self.file, line=line_of(node) if node else None, fix=fix)


def _parse(text: str, file: str, root: str, keep_nodes: bool = False) -> tuple[Ledger, Node | None]:
    with _gc_paused():
        ledger, node = _parse_nodes(text, file, root)
        if not keep_nodes:
            node = None  # freed here by reference counting, before the collector wakes up
    return ledger, node


def _parse_nodes(text: str, file: str, root: str) -> tuple[Ledger, Node | None]:
    node = compose(text, file)
    if node is None:
        raise LedgerError(
            "the ledger is empty",
            file=file,
            line=1,
            fix=f"start it with 'sources:' and one entry per citation key (see {FORMAT_DOC})",
        )
    if not isinstance(node, MappingNode):
        raise LedgerError(
            f"the ledger must be a mapping with a 'sources:' key, not {_kind(node, quote=False)}",
            file=file,
            line=line_of(node),
            fix=f"start the file with 'sources:' (see {FORMAT_DOC})",
        )
    top: dict[str, tuple[Node, Node]] = {}
    for key, key_node, value in pairs(node, file, " at the top level"):
        if key not in TOP_LEVEL_KEYS:
            raise _unknown_top_level(key, key_node, value, file)
        top[key] = (key_node, value)

    probe = _Ctx(file, root, False)
    if "citeledger" in top:
        version = top["citeledger"][1]
        if not (isinstance(version, ScalarNode) and tag_of(version) == TAG_INT):
            raise probe.error(
                "citeledger: must be the format version number", version, "write citeledger: 1"
            )
        if _int(version) != 1:
            raise probe.error(
                f"this ledger is format version {version.value}; this citeledger reads version 1",
                version,
                "upgrade citeledger, or write citeledger: 1 if the number is a typo",
            )
    evidence = DEFAULT_EVIDENCE_DIR
    if "evidence_dir" in top:
        evidence = _text(top["evidence_dir"][1], "evidence_dir", probe, "")
    allow = False
    if "allow_files_outside" in top:
        flag = top["allow_files_outside"][1]
        if not (isinstance(flag, ScalarNode) and tag_of(flag) == TAG_BOOL):
            raise probe.error(
                "allow_files_outside: must be true or false",
                flag,
                "write allow_files_outside: true or allow_files_outside: false",
            )
        allow = bool(scalar_value(flag, file))
    ctx = _Ctx(file, root, allow)
    trusted, require = _trust(top, probe)

    if "sources" not in top:
        raise LedgerError(
            "the ledger has no 'sources:'",
            file=file,
            line=line_of(node),
            fix="add 'sources:' with one entry per citation key",
        )
    sources_node = top["sources"][1]
    sources: dict[str, Source] = {}
    if not _is_null(sources_node):
        if not isinstance(sources_node, MappingNode):
            raise ctx.error(
                "'sources:' must map citation keys to sources, not "
                + _kind(sources_node, quote=False),
                sources_node,
                "write each source as 'key:' indented under sources:, with its fields below it",
            )
        for key, key_node, value in pairs(sources_node, file, " under sources"):
            if not is_citation_key(key):
                raise ctx.error(
                    f"'{key}' is not a citation key pandoc can read after @",
                    key_node,
                    "use letters, digits and _, with punctuation (:.#$%&-+?<>~/) only between "
                    "them, e.g. cavalin2020",
                )
            sources[key] = _source(key, key_node, value, ctx)
    evidence_dir = os.path.normpath(os.path.join(root, evidence))
    ledger = Ledger(
        path=file,
        root=root,
        sources=sources,
        evidence_dir=evidence_dir,
        allow_files_outside=allow,
        trusted_keys=trusted,
        require_signature=require,
        history_head=_text(top["history_head"][1], "history_head", probe, "")
        if "history_head" in top
        else None,
    )
    return ledger, node


def _trust(top: Mapping[str, tuple[Node, Node]], ctx: _Ctx) -> tuple[tuple[str, ...], bool]:
    """``trusted_keys:`` (public keys, ``ed25519:…``) and ``require_signature:`` (signing.py)."""
    from citeledger.evidence.signing import PREFIX

    keys: list[str] = []
    if "trusted_keys" in top:
        node = top["trusted_keys"][1]
        items = node.value if isinstance(node, SequenceNode) else None
        if items is None or not all(isinstance(i, ScalarNode) for i in items):
            raise ctx.error(
                "trusted_keys: must be a list of public keys",
                node,
                "write one `- ed25519:…` line per key, as `citeledger key init` printed it",
            )
        for item in items:
            if not scalar_text(item).startswith(PREFIX):
                raise ctx.error(
                    f"trusted key {scalar_text(item)[:24]!r} is not an ed25519:… public key",
                    item,
                    "copy the line `citeledger key init` printed",
                )
            keys.append(scalar_text(item))
    require = False
    if "require_signature" in top:
        flag = top["require_signature"][1]
        if not (isinstance(flag, ScalarNode) and tag_of(flag) == TAG_BOOL):
            raise ctx.error(
                "require_signature: must be true or false", flag, "write require_signature: true"
            )
        require = bool(scalar_value(flag, ctx.file))
    return tuple(keys), require


def _unknown_top_level(key: str, key_node: Node, value: Node, file: str) -> LedgerError:
    if isinstance(value, MappingNode) and any(
        isinstance(k, ScalarNode) and k.value in IDENTIFIER_KINDS for k, _ in value.value
    ):
        fix = "a source goes under 'sources:': indent it there"
    else:
        suggestion = _suggest(key, TOP_LEVEL_KEYS)
        fix = (
            f"did you mean '{suggestion}'?"
            if suggestion
            else "the top level takes only citeledger, evidence_dir, allow_files_outside, "
            "trusted_keys, require_signature, history_head and sources"
        )
    # a key name is shown; a whole line read as a key (``/etc/shadow``'s hash) is not
    named = f"'{key}'" if _KEY_NAME.fullmatch(key) else "(not shown: this is no ledger's key)"
    return LedgerError(f"unknown top-level key {named}", file=file, line=line_of(key_node), fix=fix)


_KEY_NAME = re.compile(r"[A-Za-z_][\w.-]{0,47}")


def _source(key: str, key_node: Node, node: Node, ctx: _Ctx) -> Source:
    where = f" in source '{key}'"
    if not isinstance(node, MappingNode):
        what = (
            "has no fields" if _is_null(node) else f"must be a mapping of fields, not {_kind(node)}"
        )
        raise ctx.error(
            f"source '{key}' {what}",
            key_node if _is_null(node) else node,
            "give it one identifier (url:, doi:, arxiv:, isbn: or file:) and its quotes:",
        )
    identifier: tuple[str, Node, Node] | None = None
    csl: dict[str, Any] = {}
    quotes_node: Node | None = None
    withdrawn = disputed = None
    audience: tuple[str, ...] = ()
    asserted = False
    for name, name_node, value in pairs(node, ctx.file, where):
        if name in IDENTIFIER_KINDS:
            if identifier is not None:
                first = identifier[0]
                raise ctx.error(
                    f"source '{key}' has two identifiers ({first}: at line "
                    f"{line_of(identifier[1])} and {name}:)",
                    name_node,
                    "keep exactly one: verify retrieves the source through it (a second address "
                    "can go in a CSL field such as URL: or DOI:)",
                )
            identifier = (name, name_node, value)
        elif name in CSL_VARIABLES:
            csl[name] = _csl_value(name, value, ctx, where)
        elif name == "quotes":
            quotes_node = value
        elif name in ("withdrawn", "disputed"):
            record = _record(name, name_node, value, ctx, where)
            if name == "withdrawn":
                withdrawn = record
            else:
                disputed = record
        elif name == "audience":
            audience = _audience(value, ctx, where)
        elif name in ASSERTION_FIELDS:
            asserted = True
        elif name == "receipts":
            raise ctx.error(
                f"receipts written directly on source '{key}'",
                name_node,
                "receipts belong under a quote, and only citeledger verify writes them",
            )
        else:
            raise ctx.error(
                f"unknown field '{name}'{where}",
                name_node,
                _did_you_mean(name, _SOURCE_CANDIDATES, _SOURCE_ALIASES)
                or "remove it: a source takes one identifier (url, doi, arxiv, isbn, file), "
                f"CSL-JSON fields, quotes, withdrawn, disputed and audience (see {FORMAT_DOC})",
            )
    if identifier is None:
        hint = ""
        capitals = [k for k in ("DOI", "URL", "ISBN") if k in csl]
        if capitals:
            hint = (
                f" ({capitals[0]}: in capitals is bibliographic data only; write "
                f"{capitals[0].lower()}: in lower case for the identifier)"
            )
        raise ctx.error(
            f"source '{key}' has no identifier",
            key_node,
            f"add exactly one of url:, doi:, arxiv:, isbn: or file:{hint}",
        )
    ident = _identifier(*identifier, ctx, key)
    quotes = _quotes(quotes_node, asserted, ctx, key) if quotes_node is not None else ()
    return Source(
        key=key,
        identifier=ident,
        csl=csl,
        quotes=quotes,
        withdrawn=withdrawn,
        disputed=disputed,
        audience=audience,
        line=line_of(key_node),
    )


def _identifier(kind: str, name_node: Node, node: Node, ctx: _Ctx, key: str) -> Identifier:
    label = _KIND_LABELS[kind]
    if _is_null(node) or (isinstance(node, ScalarNode) and not node.value.strip()):
        raise ctx.error(
            f"the {label} of source '{key}' is empty",
            name_node,
            f"write the {label} after '{kind}:', or remove the line",
        )
    if not isinstance(node, ScalarNode):
        raise ctx.error(
            f"the {label} of source '{key}' must be a single value, not {_kind(node)}",
            node,
            f"write one {label}: a source has exactly one identifier",
        )
    raw = scalar_text(node)
    if kind == "file":
        return Identifier("file", _file_path(raw, node, ctx, key))
    try:
        return Identifier(kind, validate_identifier(kind, raw))
    except IdentifierError as e:
        raise ctx.error(f"source '{key}': {e.problem}", node, e.fix) from None


def _file_path(raw: str, node: Node, ctx: _Ctx, key: str) -> str:
    value = raw.strip()
    if "://" in value:
        raise ctx.error(
            f"the file of source '{key}' is a URL ({value})",
            node,
            "write url: for a web address, or a path relative to the ledger for file:",
        )
    if ctx.allow_outside:
        return value
    fix = (
        f"write a path relative to the ledger's folder ({ctx.root}) and keep the document inside "
        "it, or set allow_files_outside: true at the top of the ledger"
    )
    if os.path.isabs(value) or value.startswith("~"):
        raise ctx.error(f"the file of source '{key}' is an absolute path ({value})", node, fix)
    root = os.path.normpath(ctx.root)
    target = os.path.normpath(os.path.join(root, value))
    real_root = os.path.realpath(root)
    if not _inside(target, root) or not _inside(os.path.realpath(target), real_root):
        raise ctx.error(
            f"the file of source '{key}' ({value}) is outside the ledger's folder", node, fix
        )
    return value


def _inside(path: str, folder: str) -> bool:
    try:
        return os.path.commonpath([path, folder]) == folder
    except ValueError:  # different drives
        return False


def _csl_value(name: str, node: Node, ctx: _Ctx, where: str) -> Any:
    label = f"'{name}'{where}"  # 'title' in source 'smith2020'
    where = f" in {label}"
    if name in NAME_VARIABLES:
        return _names(name, node, ctx, label)
    if name in DATE_VARIABLES:
        if isinstance(node, MappingNode):
            value = to_python(node, ctx.file, where)
            unknown = [k for k in value if k not in DATE_PARTS]
            if unknown:
                raise ctx.error(
                    f"unknown date field '{unknown[0]}'{where}",
                    node,
                    "a CSL date takes date-parts, season, circa, literal and raw, e.g. "
                    f"{name}: {{date-parts: [[2020, 11]]}}",
                )
            return value
        if isinstance(node, ScalarNode) and not _is_null(node):
            return _int_or_text(node)
        raise ctx.error(
            f"{label} must be a year, an ISO date or a CSL date, not {_kind(node)}",
            node,
            f"write e.g. {name}: 2020, {name}: 2020-11-16 or {name}: {{date-parts: [[2020, 11]]}}",
        )
    if isinstance(node, ScalarNode) and not _is_null(node):
        if name in NUMBER_VARIABLES:
            return _int_or_text(node)
        text = scalar_text(node)
        if name == "type" and text not in CSL_TYPES:
            raise ctx.error(
                f"{label} is '{text}', which is not a CSL item type",
                node,
                _did_you_mean(text, sorted(CSL_TYPES), {})
                or "use a CSL type such as article-journal, book, chapter, paper-conference, "
                "report, thesis or webpage",
            )
        return text
    what = "has no value" if _is_null(node) else f"must be text, not {_kind(node)}"
    raise ctx.error(f"{label} {what}", node, f"write {name}: followed by its text")


def _names(name: str, node: Node, ctx: _Ctx, label: str) -> list[dict[str, Any]]:
    where = f" in {label}"
    example = f"{name}: [{{family: Cavalin, given: Paulo}}]"
    if not isinstance(node, SequenceNode):
        raise ctx.error(
            f"{label} must be a list of names, not {_kind(node)}",
            node,
            f"write one entry per person, e.g. {example}",
        )
    out = []
    for item in node.value:
        if isinstance(item, ScalarNode) and not _is_null(item):
            out.append({"literal": scalar_text(item)})  # an institution, or a name as printed
            continue
        if not isinstance(item, MappingNode):
            raise ctx.error(
                f"a name must be a mapping like {{family: …, given: …}}, not {_kind(item)}{where}",
                item,
                f"write e.g. {example}",
            )
        person: dict[str, Any] = {}
        for part, part_node, value in pairs(item, ctx.file, where):
            if part in NAME_FLAGS:
                person[part] = to_python(value, ctx.file, where)
            elif part in NAME_PARTS and isinstance(value, ScalarNode) and not _is_null(value):
                person[part] = scalar_text(value)
            elif part in NAME_PARTS:
                raise ctx.error(
                    f"the name part '{part}' must be text{where}", value, f"write e.g. {example}"
                )
            else:
                raise ctx.error(
                    f"unknown name part '{part}'{where}",
                    part_node,
                    _did_you_mean(part, sorted(NAME_PARTS | NAME_FLAGS), {})
                    or "a CSL name takes family, given, literal, suffix and particles",
                )
        out.append(person)
    return out


def _quotes(node: Node, asserted: bool, ctx: _Ctx, key: str) -> tuple[Quote, ...]:
    where = f" in source '{key}'"
    if _is_null(node):
        return ()
    if not isinstance(node, SequenceNode):
        raise ctx.error(
            f"quotes{where} must be a list, not {_kind(node)}",
            node,
            "write each quote as an item '- text: \"…\"' under quotes:",
        )
    out: list[Quote] = []
    ids: dict[str, int] = {}
    for number, item in enumerate(node.value, 1):
        qwhere = f" in quote {number} of source '{key}'"
        if not isinstance(item, MappingNode):
            raise ctx.error(
                f"quote {number}{where} must be a mapping with text:, not {_kind(item)}",
                item,
                "write the quote as '- text: \"…\"' (with optional id: and locator:)",
            )
        text_node: Node | None = None
        quote_id = locator = None
        receipts: tuple[Receipt, ...] = ()
        flagged = asserted
        for name, name_node, value in pairs(item, ctx.file, qwhere):
            if name == "text":
                text_node = value
            elif name == "id":
                quote_id = _text(value, "id", ctx, qwhere)
                if any(c.isspace() or c in ",;[]" for c in quote_id):
                    raise ctx.error(
                        f"the quote id '{quote_id}'{qwhere} contains spaces or , ; [ ]",
                        value,
                        "use letters, digits, - and _ so that [@key quote:ID] can select it",
                    )
                if quote_id in ids:
                    raise ctx.error(
                        f"duplicate quote id '{quote_id}'{where} (first at line {ids[quote_id]})",
                        value,
                        "give each quote of a source its own id",
                    )
                ids[quote_id] = line_of(value)
            elif name == "locator":
                locator = _text(value, "locator", ctx, qwhere)
            elif name == "receipts":
                receipts = _receipts(value, ctx, qwhere)
            elif name in ASSERTION_FIELDS:
                flagged = True
            else:
                raise ctx.error(
                    f"unknown field '{name}'{qwhere}",
                    name_node,
                    _did_you_mean(name, QUOTE_FIELDS, _QUOTE_ALIASES)
                    or "a quote takes text, id and locator (receipts are written by citeledger)",
                )
        if text_node is None:
            raise ctx.error(
                f"quote {number}{where} has no text", item, 'write the quoted words as text: "…"'
            )
        if not isinstance(text_node, ScalarNode) or _is_null(text_node):
            what = "is empty" if _is_null(text_node) else f"must be text, not {_kind(text_node)}"
            raise ctx.error(
                f"the text{qwhere} {what}",
                text_node,
                'write the source\'s words as one string: text: "…"',
            )
        text = scalar_text(text_node)
        if not text.strip():
            raise ctx.error(
                f"the text{qwhere} is empty",
                text_node,
                "write the words the source says, or remove the quote",
            )
        out.append(
            Quote(
                text=text,
                id=quote_id,
                locator=locator,
                receipts=receipts,
                asserted_verified=flagged,
                line=line_of(item),
            )
        )
    return tuple(out)


def _receipts(node: Node, ctx: _Ctx, where: str) -> tuple[Receipt, ...]:
    if _is_null(node):
        return ()
    if not isinstance(node, SequenceNode):
        raise ctx.error(f"receipts{where} must be a list, not {_kind(node)}", node, _RESTORE)
    out = []
    for item in node.value:
        if not isinstance(item, MappingNode):
            raise ctx.error(
                f"a receipt{where} must be a mapping, not {_kind(item)}", item, _RESTORE
            )
        clean: dict[str, Any] = {}
        for name, name_node, value in pairs(item, ctx.file, f" in a receipt{where}"):
            if name in _RECEIPT_TEXT and value.__class__ is ScalarNode:  # most fields: fast path
                if not _is_null(value):
                    clean[name] = value.value
                continue
            converted = _receipt_node_value(name, name_node, value, ctx, where)
            if converted is not None:
                clean[name] = converted
        out.append(_finish_receipt(clean, ctx.file, line_of(item), where))
    return tuple(out)


def _receipt_node_value(name: str, name_node: Node, node: Node, ctx: _Ctx, where: str) -> Any:
    if name not in _RECEIPT_FIELD_SET:
        raise _unknown_receipt_field(name, ctx.file, line_of(name_node), where)
    if _is_null(node):
        return None
    if name in RECEIPT_LISTS:
        if isinstance(node, SequenceNode) and all(
            isinstance(i, ScalarNode) and not _is_null(i) for i in node.value
        ):
            return tuple(scalar_text(i) for i in node.value)
        expected = "a list of text"
    elif name == "metadata":
        if isinstance(node, MappingNode):
            return to_python(node, ctx.file, f" in a receipt{where}")
        expected = "a mapping"
    elif name == "edits":
        if isinstance(node, SequenceNode):
            return tuple(_edit_node(item, ctx, where) for item in node.value)
        expected = "a list of edits (kind, quote_text, source_text, char_start, char_end)"
    elif name in RECEIPT_INTS:
        if isinstance(node, ScalarNode) and tag_of(node) == TAG_INT:
            return _int(node)
        expected = "a whole number"
    elif name == "score":
        if isinstance(node, ScalarNode) and tag_of(node) in (TAG_INT, TAG_FLOAT):
            return float(scalar_value(node, ctx.file))
        expected = "a number"
    else:
        expected = "text"
    raise ctx.error(f"the receipt field '{name}'{where} must be {expected}", node, _RESTORE)


_RESTORE = "receipts are written by citeledger verify; restore this one from version control"


def _edit_node(node: Node, ctx: _Ctx, where: str) -> Edit:
    """One recorded editorial mark, every field present and of its type (a receipt's ``edits``)."""
    at = f" in an edit of a receipt{where}"
    if not isinstance(node, MappingNode):
        raise ctx.error(
            f"an edit of a receipt{where} must be a mapping, not {_kind(node)}", node, _RESTORE
        )
    values: dict[str, Any] = {}
    for name, name_node, value in pairs(node, ctx.file, at):
        if name not in EDIT_FIELDS:
            fix = "; ".join(filter(None, [_did_you_mean(name, EDIT_FIELDS, {}), _RESTORE]))
            raise ctx.error(f"unknown field '{name}'{at}", name_node, fix)
        if name in _EDIT_INTS:
            if isinstance(value, ScalarNode) and tag_of(value) == TAG_INT:
                values[name] = _int(value)
                continue
            expected = "a whole number"
        elif isinstance(value, ScalarNode) and not _is_null(value):
            values[name] = scalar_text(value)
            continue
        else:
            expected = "text"
        raise ctx.error(f"the field '{name}'{at} must be {expected}", value, _RESTORE)
    problem = _edit_problem(values)
    if problem:
        raise ctx.error(f"{problem}{at}", node, _RESTORE)
    return Edit(**values)


def _edit_problem(values: Mapping[str, Any]) -> str | None:
    missing = [name for name in EDIT_FIELDS if name not in values]
    if missing:
        return f"no {missing[0]}"
    if values["kind"] not in EDIT_KINDS:
        return f"the kind '{values['kind']}' is not one of {', '.join(EDIT_KINDS)}"
    if not 0 <= values["char_start"] <= values["char_end"]:
        return f"the span {values['char_start']}–{values['char_end']} is not a span"
    return None


def _edit_value(value: Any, file: str | None, line: int | None) -> Edit:
    """An edit given as data (``Edit`` or its mapping), checked like one read from YAML."""
    if isinstance(value, Edit):
        value = dataclasses.asdict(value)
    problem = None if isinstance(value, Mapping) else f"not {type(value).__name__}"
    if problem is None:
        for name, v in value.items():
            if name not in EDIT_FIELDS:
                problem = f"unknown field '{name}'"
            elif name in _EDIT_INTS and (isinstance(v, bool) or not isinstance(v, int)):
                problem = f"'{name}' must be a whole number"
            elif name not in _EDIT_INTS and not isinstance(v, str):
                problem = f"'{name}' must be text"
            if problem:
                break
        else:
            problem = _edit_problem(value)
    if problem:
        raise LedgerError(
            f"an edit of the receipt is wrong: {problem}",
            file=file,
            line=line,
            fix="pass each edit as a model.Edit (kind, quote_text, source_text, char_start, "
            "char_end)",
        )
    return Edit(**value)


def _unknown_receipt_field(
    name: str, file: str | None, line: int | None, where: str
) -> LedgerError:
    return LedgerError(
        f"unknown receipt field '{name}'{where}",
        file=file,
        line=line,
        fix="; ".join(filter(None, [_did_you_mean(name, RECEIPT_FIELDS, {}), _RESTORE])),
    )


_RECEIPT_FIELD_SET = frozenset(RECEIPT_FIELDS)
_RECEIPT_TEXT = _RECEIPT_FIELD_SET - RECEIPT_INTS - RECEIPT_LISTS - {"score", "metadata", "edits"}


def _check_receipt_values(
    values: Mapping[str, Any], file: str | None, line: int | None
) -> dict[str, Any]:
    """Plain receipt data (from verify, or a test) with each field's type checked."""

    def bad(name: str, expected: str) -> LedgerError:
        return LedgerError(
            f"the receipt field '{name}' must be {expected}, not {type(values[name]).__name__}",
            file=file,
            line=line,
            fix="pass the value with the type of the model.Receipt field",
        )

    clean: dict[str, Any] = {}
    for name, value in values.items():
        if name not in _RECEIPT_FIELD_SET:
            raise _unknown_receipt_field(str(name), file, line, "")
        if value is None:
            continue
        if name in RECEIPT_INTS:
            if isinstance(value, bool) or not isinstance(value, int):
                raise bad(name, "a whole number")
        elif name == "score":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise bad(name, "a number")
            value = float(value)
        elif name in RECEIPT_LISTS:
            if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
                raise bad(name, "a list of text")
            value = tuple(value)
        elif name == "edits":
            if not isinstance(value, (list, tuple)):
                raise bad(name, "a list of edits")
            value = tuple(_edit_value(v, file, line) for v in value)
        elif name == "metadata":
            if not isinstance(value, Mapping):
                raise bad(name, "a mapping")
            value = plain(value)
        else:
            if isinstance(value, (_dt.date, _dt.datetime)):
                value = value.isoformat()
            if not isinstance(value, str):
                raise bad(name, "text")
        clean[name] = value
    return clean


def _finish_receipt(
    clean: dict[str, Any], file: str | None, line: int | None, where: str
) -> Receipt:
    missing = [name for name in RECEIPT_REQUIRED if not clean.get(name)]
    if missing:
        raise LedgerError(
            f"a receipt{where} has no {missing[0]}", file=file, line=line, fix=_RESTORE
        )
    if clean["outcome"] not in OUTCOMES:
        raise LedgerError(
            f"the receipt outcome '{clean['outcome']}'{where} is not one of {', '.join(OUTCOMES)}",
            file=file,
            line=line,
            fix=_RESTORE,
        )
    if clean.get("match") is not None and clean["match"] not in MATCHES:
        raise LedgerError(
            f"the receipt match '{clean['match']}'{where} is not one of {', '.join(MATCHES)}",
            file=file,
            line=line,
            fix=_RESTORE,
        )
    return Receipt(**clean, line=line)


def _record(name: str, name_node: Node, node: Node, ctx: _Ctx, where: str) -> Withdrawal:
    command = "withdraw" if name == "withdrawn" else "dispute"
    fix = (
        f"record it with citeledger {command} KEY --reason …, or write {name}: with date: "
        "(YYYY-MM-DD) and reason:"
    )
    if not isinstance(node, MappingNode):
        raise ctx.error(f"{name}:{where} must record a date and a reason", name_node, fix)
    found: dict[str, tuple[Node, Node]] = {}
    for field_name, field_node, value in pairs(node, ctx.file, f" in {name}{where}"):
        if field_name not in RECORD_FIELDS:
            raise ctx.error(
                f"unknown field '{field_name}' in {name}{where}",
                field_node,
                _did_you_mean(field_name, RECORD_FIELDS, {"says": "source_says", "on": "date"})
                or f"{name} takes date, reason and source_says",
            )
        found[field_name] = (field_node, value)
    for required in ("date", "reason"):
        if required not in found:
            raise ctx.error(f"{name}{where} has no {required}", name_node, fix)
    date = _text(found["date"][1], "date", ctx, f" of {name}{where}")
    if _iso_date(date) is None:
        raise ctx.error(
            f"the date '{date}' of {name}{where} is not an ISO date",
            found["date"][1],
            "write it as YYYY-MM-DD, e.g. date: 2026-08-02",
        )
    reason = _text(found["reason"][1], "reason", ctx, f" of {name}{where}")
    says = None
    if "source_says" in found:
        says = _text(found["source_says"][1], "source_says", ctx, f" of {name}{where}")
    return Withdrawal(date=date, reason=reason, source_says=says, line=line_of(name_node))


def _iso_date(text: str) -> _dt.date | None:
    try:
        return _dt.date.fromisoformat(text)
    except ValueError:
        pass
    try:
        return _dt.datetime.fromisoformat(text.replace("Z", "+00:00")).date()
    except ValueError:
        return None


def _audience(node: Node, ctx: _Ctx, where: str) -> tuple[str, ...]:
    fix = "write audience: internal or audience: [internal, reviewers]; omit it for everyone"
    if isinstance(node, ScalarNode) and not _is_null(node) and node.value.strip():
        return (scalar_text(node).strip(),)
    if isinstance(node, SequenceNode) and node.value:
        names = []
        for item in node.value:
            if not isinstance(item, ScalarNode) or _is_null(item) or not item.value.strip():
                raise ctx.error(f"an audience{where} must be a name, not {_kind(item)}", item, fix)
            names.append(scalar_text(item).strip())
        return tuple(names)
    if isinstance(node, MappingNode):
        raise ctx.error(
            f"audience{where} must be a name or a list of names, not a mapping", node, fix
        )
    raise ctx.error(f"audience{where} is empty", node, fix)


def _text(node: Node, what: str, ctx: _Ctx, where: str) -> str:
    if not isinstance(node, ScalarNode) or _is_null(node) or not node.value.strip():
        problem = (
            "is empty"
            if not isinstance(node, (MappingNode, SequenceNode))
            else (f"must be text, not {_kind(node)}")
        )
        raise ctx.error(f"{what}{where} {problem}", node, f"write {what}: followed by its value")
    return scalar_text(node)


def _int(node: ScalarNode) -> int:
    value = scalar_value(node, "")
    assert isinstance(value, int)
    return value


def _int_or_text(node: ScalarNode) -> int | str:
    """A plain decimal number as int (``issued: 2020``); anything else as written (``012``)."""
    text = scalar_text(node)
    if tag_of(node) == TAG_INT and _DECIMAL.fullmatch(text):
        return int(text)
    return text


_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]*)")


_is_null = is_null


def _kind(node: Node, *, quote: bool = True) -> str:
    """What ``node`` is, for a message; ``quote=False`` where the file may not be a ledger at
    all (a ``.env``, ``/etc/passwd`` named as one): its content is never printed there."""
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    if _is_null(node):
        return "nothing"
    return f"the value '{node.value}'" if quote else "a single value"


_SOURCE_CANDIDATES = (*sorted(CSL_VARIABLES), *STRUCTURE_FIELDS, *IDENTIFIER_KINDS)


def _suggest(
    name: str, candidates: Sequence[str], aliases: Mapping[str, str] | None = None
) -> str | None:
    lowered = name.lower()
    if aliases and lowered in aliases:
        return aliases[lowered]
    by_lower = {c.lower(): c for c in candidates}
    for form in (lowered, lowered.replace("_", "-"), lowered.replace("-", "_")):
        if form in by_lower:
            return by_lower[form]
    words = sorted(lowered.replace("_", "-").split("-"))
    for candidate in candidates:  # the right words in the wrong order: journal-article
        if sorted(candidate.lower().replace("_", "-").split("-")) == words:
            return candidate
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.75)
    return close[0] if close else None


def _did_you_mean(name: str, candidates: Sequence[str], aliases: Mapping[str, str]) -> str | None:
    suggestion = _suggest(name, candidates, aliases)
    return f"did you mean '{suggestion}'?" if suggestion and suggestion != name else None


# --- receipts as data ----------------------------------------------------------------------


def receipt_to_dict(receipt: Receipt) -> dict[str, Any]:
    """The receipt as the mapping stored in the ledger, in field order, without empty fields.

    ``None`` and empty lists are left out; an empty string is kept (an empty ``prefix`` says
    the quote starts the text, which is information).
    """
    out: dict[str, Any] = {}
    for name in RECEIPT_FIELDS:
        value = getattr(receipt, name)
        if value is None or (isinstance(value, tuple) and not value):
            continue
        if name == "edits":
            value = [dataclasses.asdict(e) for e in value]
        elif isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, Mapping):
            value = plain(value)
        out[name] = value
    return out


def receipt_from_mapping(
    mapping: Mapping[str, Any], *, file: str | None = None, line: int | None = None
) -> Receipt:
    """Validate a receipt given as plain data (as :func:`receipt_to_dict` makes it)."""
    if not isinstance(mapping, Mapping):
        raise LedgerError(
            f"a receipt must be a mapping, not {type(mapping).__name__}", file=file, line=line
        )
    return _finish_receipt(_check_receipt_values(mapping, file, line), file, line, "")


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
            q = _pair_index(snode, "quotes")
            assert q is not None
            quote = snode.value[q][1].value[quote_index]
            qpath = (*spath, q, quote_index)
            _refuse_shared(txn.text, txn.node, qpath, key, quote_index, txn.path)
            r = _pair_index(quote, "receipts") if isinstance(quote, MappingNode) else None
            if r is not None and not _is_null(quote.value[r][1]):
                appends.append(Append((*qpath, r), items=tuple(receipts)))
            elif r is not None:  # `receipts:` with nothing after it
                raise LedgerError(
                    f"quote {quote_index + 1} of source '{key}' has an empty receipts: line",
                    file=txn.path,
                    line=line_of(quote.value[r][0]),
                    fix="delete the empty receipts: line (citeledger writes it)",
                )
            else:
                appends.append(Append(qpath, pairs=(("receipts", receipts),)))
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


def refuse_shared_quotes(path: str | os.PathLike[str], keys: Iterable[str]) -> None:
    """Before a run that writes receipts: refuse a quote of ``keys`` that an alias shares."""
    name = os.fspath(path)
    data = _read_bytes(name)
    if data is None:
        return
    text = _decode(data, name)
    if "*" not in text:  # no alias at all: nothing is shared
        return
    wanted = set(keys)
    ledger, root = _parse(text, name, os.path.dirname(os.path.abspath(name)), keep_nodes=True)
    assert isinstance(root, MappingNode)  # a valid ledger is a mapping with 'sources:'
    top = next(i for i, (k, _) in enumerate(root.value) if k.value == "sources")
    sources = root.value[top][1]
    if not isinstance(sources, MappingNode):
        return
    for i, (key_node, snode) in enumerate(sources.value):
        q = _pair_index(snode, "quotes") if isinstance(snode, MappingNode) else None
        if key_node.value not in wanted or q is None:
            continue
        for n in range(len(ledger.sources[key_node.value].quotes)):
            _refuse_shared(text, root, (top, i, q, n), key_node.value, n, name)


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
    assert txn.written is not None
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
