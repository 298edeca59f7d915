"""Reading the writer's ledger (``citeledger.yaml``): parse, validate, build the model.

Reading is on every build's path (the filter loads the ledger each time), so it composes with
PyYAML's C parser and builds the frozen :mod:`citeledger.model` values in one walk over the
nodes, keeping each value's line so that every complaint is ``file:line: what — how to fix``.
The format is ``docs/ledger-format.md``. A build after the first reaches this module only for
what the kept parses (``parsed``) do not hold, through ``outlined``, which imports no YAML.

This module must never: write anything; treat a hand-written ``verified: true`` as evidence;
touch the network.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from citeledger.errors import LedgerError
from citeledger.ledger import outline, parsed
from citeledger.ledger.csl import (
    CSL_TYPES,
    CSL_VARIABLES,
    DATE_PARTS,
    DATE_VARIABLES,
    LIST_VARIABLES,
    NAME_FLAGS,
    NAME_PARTS,
    NAME_VARIABLES,
    NUMBER_VARIABLES,
    OBJECT_VARIABLES,
)
from citeledger.ledger.identifiers import IdentifierError, validate_identifier
from citeledger.ledger.outlined import (
    KeptSources,
    _kept_or_parsed,
    _leaves_folder,
    load_lazy,
    read_ledger,
)
from citeledger.ledger.outlined import _Ctx as _Ctx
from citeledger.ledger.outlined import _decode as _decode
from citeledger.ledger.outlined import _read_bytes as _read_bytes
from citeledger.ledger.outlined import gc_paused as gc_paused
from citeledger.ledger.outlined import save_parsed as save_parsed
from citeledger.ledger.outlined import source_text as source_text
from citeledger.ledger.yamlnodes import (
    TAG_BOOL,
    TAG_FLOAT,
    TAG_INT,
    compose,
    has_alias,
    is_null,
    line_of,
    pairs,
    plain,
    scalar_text,
    scalar_value,
    tag_of,
    to_python,
)
from citeledger.model import (
    IDENTIFIER_KINDS,
    Edit,
    Identifier,
    Ledger,
    Quote,
    Receipt,
    Review,
    Source,
    Withdrawal,
)

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

#: Recognised on a source or quote only to be refused as evidence (a check is an act). On a
#: source, ``status`` is CSL's publication status (``forthcoming``); only a value that says
#: "verified" (:data:`ASSERTION_STATUSES`) is taken as a hand-written flag there.
ASSERTION_FIELDS = ("verified", "checked", "status", "verified_at")
ASSERTION_STATUSES = frozenset({"verified", "checked", "confirmed", "ok", "true", "yes", "done"})
STRUCTURE_FIELDS = ("quotes", "withdrawn", "disputed", "audience", "local_copy")
QUOTE_FIELDS = ("text", "id", "locator", "receipts", "reviews")
REVIEW_FIELDS = ("date", "reviewer", "claim_sha256", "quote_sha256", "claim")
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


def load_ledger(path: str | os.PathLike[str], *, lazy: bool = False) -> Ledger:
    """Read and validate the ledger; every problem is a one-line :class:`LedgerError`.

    ``lazy`` (a build): the whole file is parsed and its structure and keys checked, but each
    source is validated and built only when it is first looked up (``_LazySources``), so a page
    citing five keys of a 2,000-source ledger pays for five. Its errors are the same, raised at
    the lookup. Iterating the sources still validates every one. A build after the first
    parses nothing but its sources' spans, or none at all (``outlined.load_lazy``).
    """
    if lazy:
        return load_lazy(path)
    name, _, root, text = read_ledger(path)
    return _parse(text, name, root)[0]


def parse_lazy(text: str, name: str, root: str, where: Path) -> Ledger:
    """A lazy load with no outline of these bytes yet (kept at ``where``): the whole file
    parsed, each source built on its first lookup, and the outline remembered."""
    ledger, node = _parse(text, name, root, keep_nodes=True, lazy=True)
    assert isinstance(ledger.sources, _LazySources)
    ledger.sources.kept = parsed.Kept(parsed.place(where, name, root, ledger.allow_files_outside))
    spans = _source_spans(text, node) if node is not None else None
    if spans is not None:
        top = {
            "evidence": ledger.evidence_dir,  # as the parse resolved it in this folder
            "allow": ledger.allow_files_outside,
            "trusted": list(ledger.trusted_keys),
            "require": ledger.require_signature,
            "head": ledger.history_head,
        }
        outline.remember(where, top, spans)
        ledger.sources.hold_text(text, spans)
    return ledger


def _parse(
    text: str, file: str, root: str, keep_nodes: bool = False, lazy: bool = False
) -> tuple[Ledger, Node | None]:
    with gc_paused():
        ledger, node = _parse_nodes(text, file, root, lazy)
        if not keep_nodes:
            node = None  # freed here by reference counting, before the collector wakes up
    return ledger, node


def _parse_nodes(text: str, file: str, root: str, lazy: bool = False) -> tuple[Ledger, Node | None]:
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
    pending: dict[str, tuple[Node, Node]] = {}
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
            if lazy:
                pending[key] = (key_node, value)
            else:
                sources[key] = _source(key, key_node, value, ctx)
    evidence_dir = os.path.normpath(os.path.join(root, evidence))
    ledger = Ledger(
        path=file,
        root=root,
        sources=_LazySources(pending, ctx) if lazy else sources,
        evidence_dir=evidence_dir,
        allow_files_outside=allow,
        trusted_keys=trusted,
        require_signature=require,
        history_head=_text(top["history_head"][1], "history_head", probe, "")
        if "history_head" in top
        else None,
    )
    return ledger, node


def _source_spans(text: str, root: Node) -> dict[str, list[int]] | None:
    """Each source's text as ``[start, end, line]``, when every source can be parsed alone:
    a block mapping of keys each at the start of its line, and no node shared (an alias)."""
    assert isinstance(root, MappingNode)
    found = [v for k, v in root.value if k.value == "sources"]
    sources = found[0] if found else None
    if not isinstance(sources, MappingNode) or sources.flow_style or has_alias(root):
        return None
    spans: dict[str, list[int]] = {}
    for key_node, value in sources.value:
        start = key_node.start_mark.index
        line_start = text.rfind("\n", 0, start) + 1
        if text[line_start:start].strip(" "):
            return None
        spans[key_node.value] = [line_start, value.end_mark.index, key_node.start_mark.line]
    return spans


class _LazySources(KeptSources):
    """The ledger's sources, each validated and built on its first lookup (then kept)."""

    def __init__(self, nodes: dict[str, tuple[Node, Node]], ctx: _Ctx) -> None:
        self._nodes = nodes
        self._ctx = ctx
        self._built: dict[str, Source] = {}
        self._text = ""
        self._spans: Mapping[str, Sequence[int]] = {}

    def hold_text(self, text: str, spans: Mapping[str, Sequence[int]]) -> None:
        """The ledger's text and each source's span in it (``_source_spans``: only when every
        source stands alone), for :func:`source_text`."""
        self._text, self._spans = text, spans

    def text_of(self, key: str) -> str | None:
        span = self._spans.get(key)
        return None if span is None else self._text[span[0] : span[1]]

    def __getitem__(self, key: str) -> Source:
        built = self._built.get(key)
        if built is None:
            key_node, value = self._nodes[key]  # KeyError: not in the ledger
            with gc_paused():
                built = self._built[key] = _kept_or_parsed(
                    key, self.kept, self._ctx, lambda: _source(key, key_node, value, self._ctx)
                )
        return built

    def __iter__(self) -> Iterator[str]:
        return iter(self._nodes)

    def __len__(self) -> int:
        return len(self._nodes)

    def __contains__(self, key: object) -> bool:  # membership is not a lookup: no validation
        return key in self._nodes

    def __repr__(self) -> str:
        return f"<{len(self._nodes)} sources, {len(self._built)} validated>"


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
    local_copy: tuple[Node, Node] | None = None
    withdrawn = disputed = None
    audience: tuple[str, ...] = ()
    asserted: int | None = None  # the line of a hand-written "verified" flag on the source
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
            if name == "status" and str(csl[name]).strip().lower() in ASSERTION_STATUSES:
                asserted = line_of(name_node)  # CSL's field, used as a hand-written "verified"
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
        elif name == "local_copy":
            local_copy = (name_node, value)
        elif name in ASSERTION_FIELDS:
            asserted = line_of(name_node)
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
                "CSL-JSON fields, quotes, local_copy, withdrawn, disputed and audience "
                f"(see {FORMAT_DOC})",
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
    copy = _local_copy(*local_copy, ident, ctx, key) if local_copy is not None else None
    quotes = _quotes(quotes_node, asserted, ctx, key) if quotes_node is not None else ()
    return Source(
        key=key,
        identifier=ident,
        csl=csl,
        quotes=quotes,
        withdrawn=withdrawn,
        disputed=disputed,
        audience=audience,
        local_copy=copy,
        line=line_of(key_node),
        local_copy_line=line_of(local_copy[0]) if local_copy is not None else None,
    )


def _local_copy(name_node: Node, node: Node, ident: Identifier, ctx: _Ctx, key: str) -> str:
    """The writer's copy of the work: a file inside the ledger's folder, like ``file:``.

    Only its name is checked here; a missing file is verify's to say (a ledger stays readable
    by the build on a machine that does not hold the writer's PDFs).
    """
    if ident.kind == "file":
        raise ctx.error(
            f"source '{key}' has local_copy: but its identifier is already a file",
            name_node,
            "remove local_copy: (a file: source is read from that file)",
        )
    if _is_null(node) or not isinstance(node, ScalarNode) or not scalar_text(node).strip():
        raise ctx.error(
            f"the local_copy of source '{key}' must be a path",
            node if not _is_null(node) else name_node,
            "write the path of your copy of the work, relative to the ledger, e.g. "
            "local_copy: papers/smith2020.pdf",
        )
    return _file_path(scalar_text(node), node, ctx, key, label="local_copy")


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


def _file_path(raw: str, node: Node, ctx: _Ctx, key: str, *, label: str = "file") -> str:
    value = raw.strip()
    if "://" in value:
        raise ctx.error(
            f"the {label} of source '{key}' is a URL ({value})",
            node,
            f"write url: for a web address, or a path relative to the ledger for {label}:",
        )
    control = next(
        (c for c in value if ord(c) < 32 or ord(c) == 127 or c in "\x85\u2028\u2029"), None
    )
    if control is not None:
        raise ctx.error(
            f"the {label} of source '{key}' holds a control character ({control!r})",
            node,
            "rename the file without line breaks, tabs or other control characters",
        )
    if ctx.allow_outside:
        return value
    fix = (
        f"write a path relative to the ledger's folder ({ctx.root}) and keep the document inside "
        "it, or set allow_files_outside: true at the top of the ledger"
    )
    if os.path.isabs(value) or value.startswith("~"):
        raise ctx.error(f"the {label} of source '{key}' is an absolute path ({value})", node, fix)
    if _leaves_folder(value, ctx):
        raise ctx.error(
            f"the {label} of source '{key}' ({value}) is outside the ledger's folder", node, fix
        )
    return value


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
    if name in LIST_VARIABLES or name in OBJECT_VARIABLES:
        want = SequenceNode if name in LIST_VARIABLES else MappingNode
        if isinstance(node, want):
            return to_python(node, ctx.file, where)
        what = "a list of texts" if name in LIST_VARIABLES else "a mapping of names to values"
        raise ctx.error(
            f"{label} must be {what}, not {_kind(node)}", node, f"write {name} as {what}"
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


def _quotes(node: Node, asserted: int | None, ctx: _Ctx, key: str) -> tuple[Quote, ...]:
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
        reviews: tuple[Review, ...] = ()
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
            elif name == "reviews":
                reviews = _reviews(value, ctx, qwhere)
            elif name in ASSERTION_FIELDS:
                flagged = line_of(name_node)
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
                asserted_verified=flagged is not None,
                reviews=reviews,
                line=line_of(item),
                asserted_line=flagged,
            )
        )
    return tuple(out)


_REVIEW_FIX = "reviews are written by citeledger review; restore this one from version control"


def _reviews(node: Node, ctx: _Ctx, where: str) -> tuple[Review, ...]:
    """The writer's reviews under a quote (``citeledger review``); never evidence of a check."""
    if _is_null(node):
        return ()
    if not isinstance(node, SequenceNode):
        raise ctx.error(f"reviews{where} must be a list, not {_kind(node)}", node, _REVIEW_FIX)
    out = []
    for item in node.value:
        if not isinstance(item, MappingNode):
            raise ctx.error(
                f"a review{where} must be a mapping, not {_kind(item)}", item, _REVIEW_FIX
            )
        seen: dict[str, str] = {}
        for name, name_node, value in pairs(item, ctx.file, f" in a review{where}"):
            if name not in REVIEW_FIELDS:
                raise ctx.error(
                    f"unknown field '{name}' in a review{where}",
                    name_node,
                    f"a review takes {', '.join(REVIEW_FIELDS)}; {_REVIEW_FIX}",
                )
            seen[name] = _text(value, name, ctx, f" in a review{where}")
        missing = [n for n in REVIEW_FIELDS[:4] if not seen.get(n)]
        if missing:
            raise ctx.error(f"a review{where} has no {missing[0]}", item, _REVIEW_FIX)
        out.append(Review(**seen, line=line_of(item)))
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
    import difflib  # only for a misspelt field: a valid ledger never pays its import

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
