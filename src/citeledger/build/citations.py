"""Find every citation of a pandoc document: the ONE walk the filter and ``citeledger check`` share.

Both must agree on what a citation is and where it sits, or the report and the rendered document
would disagree, so there is exactly one walk over pandoc's JSON AST (API 1.23, pandoc 3.x). It
works on the raw ``json.load`` dicts — never panflute objects — because the filter runs on every
build of a thesis and converting the whole document would cost more than pandoc itself.

What counts: every citation item of every ``Cite`` in body blocks, notes, tables (caption, head,
body, foot cells), figures (caption and body), headings, lists, definition lists, block quotes,
divs, spans and link text, and in the metadata fields a reader sees (``title``, ``subtitle``,
``author``, ``date``, ``thanks``, ``abstract``: these come first, in that order, as they are
printed); a ``Cite`` nested in another's prefix or suffix belongs to the outer one. A metadata
citation's callout goes at the top of the body (``host_path`` ``("blocks",)``, ``host_after`` -1):
a title cannot hold a block, and a template may not print the abstract at all (an HTML fragment,
GFM), while the top of the body is always shown. Every other metadata value counts too
(``include-before``, ``keywords``, an ``author`` list's names and affiliations…), after those and
in the document's order, except what no reader sees as text (``nocite``, ``references``,
``bibliography``, ``header-includes``) and the filter's own ``citeledger`` options. An image's alt
text counts (an HTML page prints it where the image is not shown; its claim is the alt's sentence),
except the image of a figure's body: pandoc 3 copies the caption into it, which would judge the
same words twice (pandoc 2.x has no Figure block: there the alt text of an implicit figure's image,
title ``fig:``, is the caption, and is read as such). Cross-references do not count
(``crossref.is_crossref``: pandoc-crossref's ``fig:``, Quarto's ``fig-``, ``thm-``, ``nte-``…
and the keys of the document's ``crossref: custom:`` types) — unless such a key is a source the
document defines no label for (``sourced_crossrefs``, ``scan_document(cited=…)``).

A citation written as a raw TeX or typst command (``\\citep[p.~4]{key}``, ``#cite(<key>)``, in
a RawInline or a RawBlock: ``raw_citations``) is printed to the reader, yet is no ``Cite``: it
is found (``FoundCitation.raw``) with a ``CitationRef.problem`` that makes it a breakdown —
no check can cover words the build cannot read — saying to write ``[@key]`` instead.

What the filter added on an earlier run never hides a citation: a ``Cite`` inside a
``citeledger-cite`` wrapper (made by the filter, or written by hand) is found like any other, with
the quote selector the wrapper stored (``data-citeledger-selectors``) since the filter strips it
from the suffix; the filter's own words (flags, links, anchors, ``[unverified]`` labels) are not
part of any claim, so a filtered document yields the same citations and claims as its source.
``Scan.previous`` says such output is present; the filter has it undone within this same walk
(``scan_document(undo=…)``, ``render.previous.Undo``), each list before the walk reads it.

The claim of a citation is the sentence that carries it, unless the writer marked the words
explicitly with a ``[…]{.claim}`` Span, which then wins (seed 002): a claim Span that holds the
Cite (``[Appeals take 60 days [@hchm]]{.claim}``), or that stands directly before it with only
spaces between (``[Appeals take 60 days]{.claim} [@hchm]``), or directly after an author-in-text
one (``@doe [argues that …]{.claim}``). The nearest wins: the Span beside the Cite before the
one around it. For a note made only of citations the same holds where the note is attached
(``[Appeals take 60 days]{.claim}^[@hchm]``). An empty claim Span says nothing, and is ignored.

The same walk collects the writer's unverified markers (seed 001): each Span or Div with the
class ``unverified`` that the filter has not marked yet (``citeledger-unverified``), outermost
only — a marker inside another adds nothing. They are not citations and are never judged.

This module must never do I/O, judge a citation, or change the document it is given (but for
the undo the filter hands it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple, Protocol

from citeledger.build.crossref import CROSSREF_PREFIXES as CROSSREF_PREFIXES
from citeledger.build.crossref import Crossrefs, defined_labels
from citeledger.build.crossref import is_crossref as is_crossref
from citeledger.build.hidden import hidden_attributes
from citeledger.build.names import ALERT_MARK as ALERT_MARK
from citeledger.build.names import (
    ALERT_MARKS,
    FILTER_MADE,
    breakdown_id,
    flag_id,
    is_tool_output,
)
from citeledger.build.names import ATTRIBUTE_PREFIX as ATTRIBUTE_PREFIX
from citeledger.build.names import AUDIT_CLASS as AUDIT_CLASS
from citeledger.build.names import AUDIT_ID as AUDIT_ID
from citeledger.build.names import BREAKDOWN_CLASS as BREAKDOWN_CLASS
from citeledger.build.names import CHECKED_CLASS as CHECKED_CLASS
from citeledger.build.names import CLAIM_ANCHOR_CLASS as CLAIM_ANCHOR_CLASS
from citeledger.build.names import CLAIM_ANCHOR_PREFIX as CLAIM_ANCHOR_PREFIX
from citeledger.build.names import CLAIM_CLASS as CLAIM_CLASS
from citeledger.build.names import EVIDENCE_CLASS as EVIDENCE_CLASS
from citeledger.build.names import FLAG_CLASS as FLAG_CLASS

# the names the filter adds and reads are defined in names; imported from here too
from citeledger.build.names import PROCESSED_CLASS as PROCESSED_CLASS
from citeledger.build.names import SELECTORS_ATTRIBUTE as SELECTORS_ATTRIBUTE
from citeledger.build.names import SOURCE_CLASS as SOURCE_CLASS
from citeledger.build.names import STATES_ATTRIBUTE as STATES_ATTRIBUTE
from citeledger.build.names import UNVERIFIED_CLASS as UNVERIFIED_CLASS
from citeledger.build.names import UNVERIFIED_LABEL_CLASS as UNVERIFIED_LABEL_CLASS
from citeledger.build.names import UNVERIFIED_MARKED_CLASS as UNVERIFIED_MARKED_CLASS
from citeledger.build.pinpoints import Locator as Locator
from citeledger.build.pinpoints import parse_locator as parse_locator
from citeledger.build.pinpoints import unread_pinpoint
from citeledger.build.raw import raw_element_citations, raw_problem
from citeledger.build.sentences import (
    Flat,
    claim_text,
    flatten,
    old_figure_caption,
    raw_text,
    span_at,
    split,
)
from citeledger.build.sentences import sentence_spans as sentence_spans
from citeledger.model import CitationRef

Json = Any
Path = tuple[str | int, ...]

# the metadata fields a template prints, in the order it prints them: their citations come first
METADATA_FIELDS = ("title", "subtitle", "author", "date", "thanks", "abstract")
# metadata no reader sees as text (its citations, if any, are citeproc's or the preamble's)
_UNPRINTED_METADATA = frozenset({"nocite", "references", "header-includes", "bibliography"})


def metadata_fields(meta: Mapping[str, Json]) -> list[str]:
    """The metadata fields whose citations are judged, in walk order: every field but the
    unprinted ones and the filter's own options (``citeledger``, ``citeledger-…``)."""
    rest = (
        name
        for name in meta
        if name not in METADATA_FIELDS
        and name not in _UNPRINTED_METADATA
        and not name.startswith("citeledger")
    )
    return [*(name for name in METADATA_FIELDS if name in meta), *rest]


_BLOCK_LEAVES = frozenset({"CodeBlock", "HorizontalRule", "Null"})
_INLINE_LEAVES = frozenset({"Str", "Space", "SoftBreak", "LineBreak", "Code", "Math"})
_SIMPLE_INLINE_CONTAINERS = frozenset(
    {"Emph", "Underline", "Strong", "Strikeout", "Superscript", "Subscript", "SmallCaps"}
)


def cites_a_source(items: Sequence[Json], prefixes: tuple[str, ...] = CROSSREF_PREFIXES) -> bool:
    """Does a Cite with these citation items cite a source, not only cross-references?

    A Cite nested in an item's prefix or suffix counts as part of it.
    """
    return any(not is_crossref(k, prefixes) for k in _citation_ids(items))


def _citation_ids(items: Sequence[Json]) -> Iterator[str]:
    for item in items:
        yield item.get("citationId", "")
        for side in ("citationPrefix", "citationSuffix"):
            for node in side_cites(item.get(side) or []):
                yield from _citation_ids(node["c"][0])


def side_cites(inlines: Json) -> Iterator[Json]:
    """Every Cite within ``inlines``, at any depth."""
    if isinstance(inlines, list):
        for child in inlines:
            yield from side_cites(child)
    elif isinstance(inlines, dict):
        if inlines.get("t") == "Cite":
            yield inlines
        yield from side_cites(inlines.get("c"))


def crossref_prefixes(meta: Mapping[str, Json] | None) -> tuple[str, ...]:
    """The cross-reference prefixes of a document: the built-in ones plus each ``key`` of
    Quarto's ``crossref: custom:`` list (``key: vid`` → ``@vid-intro`` is a reference)."""
    if not isinstance(meta, Mapping):
        return CROSSREF_PREFIXES
    crossref = meta.get("crossref")
    if not isinstance(crossref, dict) or crossref.get("t") != "MetaMap":
        return CROSSREF_PREFIXES
    custom = crossref["c"].get("custom")
    if not isinstance(custom, dict):
        return CROSSREF_PREFIXES
    entries = custom.get("c") if custom.get("t") == "MetaList" else [custom]
    extra: list[str] = []
    for entry in entries or []:
        if isinstance(entry, dict) and entry.get("t") == "MetaMap":
            key = _meta_string(entry["c"].get("key"))
            if key and f"{key}-" not in CROSSREF_PREFIXES:
                extra.append(f"{key}-")
    return (*CROSSREF_PREFIXES, *dict.fromkeys(extra)) if extra else CROSSREF_PREFIXES


def _meta_string(value: Json) -> str:
    if not isinstance(value, dict):
        return ""
    if value.get("t") == "MetaString":
        return str(value.get("c", "")).strip()
    if value.get("t") == "MetaInlines":
        return plain_text(value.get("c", [])).strip()
    return ""


def stored_selectors(span: Json) -> dict[int, str]:
    """The quote selectors a ``citeledger-cite`` wrapper stored, by item index (see module doc)."""
    out: dict[int, str] = {}
    for key, value in span["c"][0][2]:
        if key != SELECTORS_ATTRIBUTE:
            continue
        for pair in value.split():
            index, _, selector = pair.partition("=")
            if index.isdigit() and _SELECTOR.fullmatch(f"quote:{selector}"):
                out[int(index)] = selector
    return out


def citation_items(cite: Json, prefixes: tuple[str, ...] = CROSSREF_PREFIXES) -> list[Json]:
    """The non-crossref citation items of a Cite (nested ones in their place), in walk order:
    the order of ``FoundCitation``s and of a wrapper's stored states and selectors."""
    return [item for item, _ in _Walker(prefixes)._items(cite, ())]


@dataclass(frozen=True)
class FoundCitation:
    """One citation item and where it sits, as paths into the document's JSON.

    Paths are tuples of dict keys and list indices from the document root. ``cite_path`` is the
    outermost Cite (the element the filter wraps); ``citation_path`` the citation item dict
    (a nested item's path runs through the outer item's suffix). The callout for a breakdown goes
    into the block list at ``host_path``, directly after index ``host_after`` (-1: at its start).
    ``where`` names the enclosing constructs, outermost first, e.g. ``("bullet-list", "note",
    "para")``; ``attributes`` are the ``citeledger-*`` attributes of enclosing Divs and Spans
    (innermost wins); ``in_link`` says the citation is inside link text (no link may nest there).
    ``claim_at`` is the path of the Note when the citation sits in a note made only of
    citations: the claim, and so its anchor and callout, belong where the note is attached.
    ``claim_span`` is the path of the writer's explicit ``[…]{.claim}`` Span when that is the
    claim (``ref.claim`` is then its text): the claim anchor goes on it, wherever the citation is.
    ``block_index`` is the top-level body block holding the citation (-1 for metadata), and
    ``list_depth`` how many list items enclose the callout's host (0: none): formats that cannot
    nest a callout there (GitHub alerts) or must number it (Word) need them.
    """

    ref: CitationRef
    cite_path: Path
    citation_path: Path
    host_path: Path
    host_after: int
    where: tuple[str, ...]
    attributes: tuple[tuple[str, str], ...] = ()
    in_link: bool = False
    claim_at: Path | None = None  # a citation-only note: the claim is where its Note stands
    claim_span: Path | None = None  # the writer's ``[…]{.claim}`` Span, when it is the claim
    block_index: int = field(default=0, compare=False)
    list_depth: int = field(default=0, compare=False)
    raw: bool = False  # a raw TeX/typst command at ``cite_path`` (a RawInline or RawBlock)
    # in a note: where the callout goes after the block holding the (outermost) note, for
    # formats that drop a note holding a block (``Renderer.callouts_outside_notes``)
    note_host: tuple[Path, int] | None = field(default=None, compare=False)

    @property
    def in_metadata(self) -> bool:
        """In the document's metadata (``where`` starts with ``metadata``)."""
        return bool(self.where) and self.where[0] == "metadata"

    @property
    def anchor(self) -> str:
        """The id of the inline flag (breakdowns); stable as long as the citation order is."""
        return flag_id(self.ref.occurrence)

    @property
    def breakdown_anchor(self) -> str:
        return breakdown_id(self.ref.occurrence)

    def attribute(self, name: str) -> str | None:
        for key, value in self.attributes:
            if key == ATTRIBUTE_PREFIX + name:
                return value
        return None


class Scan(NamedTuple):
    """What one walk of a document finds: its citations and its unverified markers."""

    citations: list[FoundCitation]
    unverified: list[Json]  # the Span and Div nodes themselves (the filter marks them in place)
    previous: bool = False  # output of an earlier filter run is present (``render.previous``)
    prefixes: tuple[str, ...] = CROSSREF_PREFIXES  # this document's cross-reference prefixes
    audit_slot: Path | None = None  # the writer's ``::: {#citeledger-audit}`` Div, if any
    refs: Path | None = None  # the ``{#refs}`` Div the bibliography goes into, if any
    crossrefs: tuple[str, ...] = ()  # the cross-reference keys passed over, in document order
    # ``defer_claims``: the citations whose claim is its sentence, still to be cut (by
    # occurrence), and the walker that cuts it; see ``with_claim``
    deferred: Mapping[int, tuple[Json, Json]] = {}
    walker: Any = None

    def with_claim(self, found: FoundCitation) -> FoundCitation:
        """``found`` with its claim, when the scan deferred it (before the document changes)."""
        at = self.deferred.get(found.ref.occurrence)
        if at is None:
            return found
        claim = self.walker._sentence(*at)
        return replace(found, ref=replace(found.ref, claim=claim))


class Undo(Protocol):
    """Undoing an earlier run's output as the scan walks (``render.previous.Undo``)."""

    def tail(self, elements: list[Json], at: int) -> int: ...

    def lone_cite(self, span: Json) -> Json | None: ...

    def undoes_block(self, block: Json) -> bool: ...

    def value(self, node: Json) -> None: ...

    def cite(self, c: Json) -> None: ...


def find_citations(doc_json: dict[str, Json]) -> list[FoundCitation]:
    """Every non-crossref citation item of the document (metadata fields, then body), in order."""
    return scan_document(doc_json).citations


def scan_document(
    doc_json: dict[str, Json],
    on_prose: Callable[[Flat], None] | None = None,
    *,
    defer_claims: bool = False,
    cited: Collection[str] = (),
    undo: Undo | None = None,
) -> Scan:
    """Citations and not-yet-marked unverified Spans and Divs, in document order.

    ``on_prose`` is handed each prose block of the body (``coverage``'s measure: not headings,
    terms, table rows, metadata, the bibliography or the filter's callouts) as the splitter
    reads it, in document order, a note's blocks after the block holding the note.
    ``defer_claims``: a claim that is its sentence (most are) is left empty and cut only when
    ``Scan.with_claim`` asks for it: the filter needs the claims of breakdowns alone, and
    cutting sentences is most of a scan.
    ``cited``: keys with a cross-reference prefix that are citations (``sourced_crossrefs``).
    ``undo``: an earlier run's output is undone in the same walk, each list before the walk
    reads it (``Scan.previous`` then says something was), so that a re-run walks once.
    """
    meta = doc_json.get("meta")
    prefixes = crossref_prefixes(meta)
    if cited:
        prefixes = Crossrefs(prefixes, cited)
    walker = _Walker(prefixes, on_prose)
    walker.defer_claims = defer_claims
    walker.undo = undo
    if isinstance(meta, dict):
        walker.lang = _meta_string(meta.get("lang")) or None
    if isinstance(meta, dict):
        fields = metadata_fields(meta)
        if undo is not None:  # the fields no reader sees: not walked, undone all the same
            for name in meta.keys() - set(fields):
                undo.value(meta[name])
        for name in fields:
            walker.metadata(meta[name], name, ("meta", name))
    blocks = doc_json.get("blocks")
    if isinstance(blocks, list):
        walker.blocks(blocks, ("blocks",), _Ctx.top())
    return Scan(
        walker.found,
        walker.unverified,
        walker.previous,
        walker.prefixes,
        walker.landmarks.get(AUDIT_ID),
        walker.landmarks.get(REFS_ID),
        tuple(walker.crossrefs),
        walker.deferred,
        walker,
    )


def sourced_crossrefs(
    doc_json: dict[str, Json],
    scan: Scan,
    sources: Callable[[Collection[str]], Collection[str]],
    *,
    defer_claims: bool = False,
) -> tuple[Scan, list[str]]:
    """``scan`` again with the keys it passed over as cross-references that are sources
    (``sources(keys)``: which of these keys the ledger has) and that the document defines no
    label for, now citations (``crossref``); and the keys that are sources and labels both
    (citations too: the filter shows them as breakdowns, ``CrossrefNotes``). A key ``sources``
    is unsure of (``crossref_sources.Unsure``: a bibliography it could not read) is a citation
    unless the document defines that label.

    Nothing is asked when the scan passed over no prefixed key; the document's labels are
    looked for only when one of them is a source (rare).
    """
    passed = set(scan.crossrefs)
    if not passed:
        return scan, []
    found = sources(passed)
    unsure = set(getattr(found, "unsure", ())) & passed  # a bibliography could not be read
    keys = (set(found) & passed) | unsure
    if not keys:
        return scan, []
    labels = defined_labels(doc_json, keys)
    cited = keys - (labels & unsure)  # a source that is a label too is shown, as a breakdown
    if cited:
        scan = scan_document(doc_json, defer_claims=defer_claims, cited=cited)
    return scan, sorted((keys - unsure) & labels)


def resolve(doc_json: Json, path: Path) -> Json:
    """The node at ``path`` (a FoundCitation path) in ``doc_json``."""
    node = doc_json
    for step in path:
        node = node[step]
    return node


# --------------------------------------------------------------------------- plain text


def plain_text(inlines: Sequence[Json]) -> str:
    """Inlines as plain text, the way pandoc's ``stringify`` reads them (notes dropped)."""
    return squash(raw_text(inlines))


_SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?)\]»”’])")
_SPACE_AFTER_OPEN = re.compile(r"([(\[«“‘])\s+")
_WS = re.compile(r"\s+")


def squash(text: str) -> str:
    """Spaces folded, and none inside brackets or before punctuation: how a claim is shown."""
    text = _WS.sub(" ", text)
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", text)
    text = _SPACE_AFTER_OPEN.sub(r"\1", text)
    return text.strip()


# --------------------------------------------------------------------------- sentences


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


_NOTE_CONNECTIVES = _wordset(
    "see also cf e.g eg for example and compare but contra accord i.e ie more on details"
)
_AUTHOR_IN_TEXT = re.compile(r"@\S+")
_HAS_WORD = re.compile(r"\w")


def _is_citation_only(sentence: str) -> bool:
    """A note sentence made of citations and connectives (``^[See also @key.]``) has no claim."""
    words = re.findall(r"[\w.]+", _AUTHOR_IN_TEXT.sub("", sentence).lower())
    return all(w.strip(".") in _NOTE_CONNECTIVES or not _HAS_WORD.search(w) for w in words)


class _BlockText(NamedTuple):
    block: Json  # held, so that its id() is not reused by another block while cached
    flat: Flat
    spans: list[tuple[int, int]]
    sentences: dict[tuple[int, int], str]  # squashed claim text, per span, on demand


# --------------------------------------------------------------------------- selectors

_SELECTOR = re.compile(r"(?<!\S)quote:([\w-]+(?:[.:][\w-]+)*)")


def parse_selector(suffix_text: str) -> tuple[str | None, str]:
    """The explicit quote selector ``quote:ID`` of a suffix, and the suffix without it."""
    m = _SELECTOR.search(suffix_text)
    if m is None:
        return None, suffix_text
    rest = suffix_text[: m.start()] + suffix_text[m.end() :]
    return m.group(1), _WS.sub(" ", rest).strip()


def strip_selector(inlines: list[Json]) -> list[Json]:
    """``inlines`` without the ``quote:ID`` token, so citeproc never prints the selector."""
    out: list[Json] = []
    changed = False
    for el in inlines:
        if isinstance(el, dict) and el.get("t") == "Str" and "quote:" in el.get("c", ""):
            new = _SELECTOR.sub("", el["c"])
            if new != el["c"]:
                changed = True
                if out and isinstance(out[-1], dict) and out[-1].get("t") == "Space":
                    out.pop()
                if new:
                    out.append({"t": "Str", "c": new})
                continue
        out.append(el)
    return out if changed else inlines


# --------------------------------------------------------------------------- the walk


class _NoteParent(NamedTuple):
    block: Json  # the block whose inlines hold the Note
    ctx: _Ctx  # the walk's context at that block
    note: Json  # the Note inline itself
    path: Path  # its path: the claim anchor of a citation-only note goes there
    siblings: list[Json]  # the inline list holding the Note (an explicit claim Span beside it)


class _Around(NamedTuple):
    """A Cite or Note where it stands: the inline list holding it, at which index, and its path.

    The list's own path is ``path[:-1]``.
    """

    inlines: list[Json]
    at: int
    path: Path


class _Ctx(NamedTuple):
    """Where the walk is: the callout position and what encloses the current element."""

    host_path: Path
    host_after: int
    fixed: bool  # inside a table or figure: callouts go after it, whatever nests inside
    where: tuple[str, ...]
    attributes: tuple[tuple[str, str], ...]
    in_link: bool
    note_parent: _NoteParent | None  # the note we are in: its path, the block holding it
    claim_span: tuple[Path, Json] | None = None  # the innermost ``.claim`` Span around us
    unverified: bool = False  # inside an unverified marker: nested ones add nothing
    lists: int = 0  # list items around the current element (a note starts afresh)
    host_lists: int = 0  # list items around the callout's host
    meta: bool = False  # in a metadata field: callouts go to the top of the body
    wrapper: _Wrapper | None = None  # inside a ``citeledger-cite`` wrapper
    prose: bool = True  # counts for coverage: not a heading, term, table cell, metadata, callout
    note_host: tuple[Path, int] | None = None  # in a note: the host after its holding block

    @staticmethod
    def top() -> _Ctx:
        return _Ctx(("blocks",), -1, False, (), (), False, None)

    @staticmethod
    def metadata(name: str) -> _Ctx:
        return _Ctx(
            ("blocks",), -1, True, ("metadata", name), (), False, None, meta=True, prose=False
        )

    def enter(self, name: str) -> _Ctx:
        return self._replace(where=(*self.where, name))


_LIST_NAMES = {"BulletList": "bullet-list", "OrderedList": "ordered-list"}


class _Wrapper(NamedTuple):
    """A ``citeledger-cite`` Span: where it stands (claim Spans beside it), what it stored."""

    around: _Around
    selectors: dict[int, str]


REFS_ID = "refs"  # citeproc's bibliography Div
_LANDMARKS = (REFS_ID, AUDIT_ID)  # AUDIT_ID on the writer's Div: the place for the audit


class _Walker:
    def __init__(
        self,
        prefixes: tuple[str, ...] = CROSSREF_PREFIXES,
        on_prose: Callable[[Flat], None] | None = None,
    ) -> None:
        self.prefixes = prefixes
        self.on_prose = on_prose
        self.found: list[FoundCitation] = []
        self.unverified: list[Json] = []
        self.occurrence = 0
        self.landmarks: dict[str, Path] = {}  # the first body Div of each id of _LANDMARKS
        self.defer_claims = False
        self.lang: str | None = None  # the document's ``lang``: its locator terms are read too
        self.deferred: dict[int, tuple[Json, Json]] = {}  # occurrence -> (block, Cite)
        self.previous = False  # output of an earlier run seen
        self.crossrefs: list[str] = []  # cross-reference keys seen (not citations)
        self._texts: dict[int, _BlockText] = {}
        self.undo: Undo | None = None  # undo an earlier run's output as the walk goes

    # metadata --------------------------------------------------------------

    def metadata(self, value: Json, name: str, path: Path) -> None:
        """A metadata value a reader sees (at ``path``): inlines (a title), blocks (an
        abstract), or a list or map of them (authors, each with a name and an affiliation)."""
        if not isinstance(value, dict):
            return
        t, c = value.get("t"), value.get("c")
        if t == "MetaInlines" and isinstance(c, list):
            self.inlines(c, (*path, "c"), _Ctx.metadata(name), {"t": "Plain", "c": c})
        elif t == "MetaBlocks" and isinstance(c, list):
            self.blocks(c, (*path, "c"), _Ctx.metadata(name))
        elif t == "MetaList" and isinstance(c, list):
            for i, item in enumerate(c):
                self.metadata(item, name, (*path, "c", i))
        elif t == "MetaMap" and isinstance(c, dict):
            for key, item in c.items():
                self.metadata(item, name, (*path, "c", key))

    # blocks ----------------------------------------------------------------

    def blocks(
        self, blocks: list[Json], path: Path, ctx: _Ctx, start: int = 0, undone: bool = False
    ) -> None:
        """``start``, ``undone``: the walk resumed where ``undo`` rebuilt the list from."""
        for i, block in enumerate(blocks[start:] if start else blocks, start):
            if not isinstance(block, dict):
                continue
            t = block.get("t")
            if t in _BLOCK_LEAVES:
                continue
            if (
                (t == "Div" or t == "BlockQuote")
                and not undone
                and self.undo is not None
                and self.undo.undoes_block(block)
            ):
                self.previous = True  # the list from here on, rebuilt, walked afresh
                self.blocks(blocks, path, ctx, self.undo.tail(blocks, i), True)
                return
            here = ctx
            if not ctx.fixed:
                here = ctx._replace(host_path=path, host_after=i, host_lists=ctx.lists)
            if t == "RawBlock":
                self._raw(block, (*path, i), here.enter("raw"), None)
                continue
            self.block(block, (*path, i), here)

    def block(self, block: Json, path: Path, ctx: _Ctx) -> None:
        t = block.get("t")
        c: Any = block.get("c")
        if t in ("Para", "Plain", "LineBlock") and ctx.prose and self.on_prose is not None:
            # a prose block's sentences come before those of its notes (walked in its inlines)
            self.on_prose(self._flat(block, ctx.unverified))
        if t in ("Para", "Plain"):
            caption = old_figure_caption(block)
            if caption is None:
                self.inlines(c, (*path, "c"), ctx.enter(t.lower()), block)
            else:  # pandoc 2.x's implicit figure: its image's alt text is the caption
                self.inlines(caption, (*path, "c", 0, "c", 1), ctx.enter("figure"), block)
        elif t == "Header":
            self.inlines(c[2], (*path, "c", 2), ctx.enter("heading")._replace(prose=False), block)
        elif t == "LineBlock":
            inner = ctx.enter("line-block")
            for j, line in enumerate(c):
                self.inlines(line, (*path, "c", j), inner, block)
        elif t == "BlockQuote":
            self.previous = self.previous or is_alert(block)
            self.blocks(c, (*path, "c"), ctx.enter("block-quote"))
        elif t == "Div":
            self.previous = self.previous or bool(FILTER_MADE.intersection(c[0][1]))
            if c[0][0] in _LANDMARKS and path[0] == "blocks" and AUDIT_CLASS not in c[0][1]:
                self.landmarks.setdefault(c[0][0], path)
            inner = self._with_attributes(ctx.enter("div"), c[0])
            if c[0][0] == REFS_ID or is_tool_output(c[0][1]):
                inner = inner._replace(prose=False)  # the bibliography, the filter's callouts
            self.blocks(c[1], (*path, "c", 1), self._unverified(block, inner))
        elif t in _LIST_NAMES:
            items, base = (c[1], (*path, "c", 1)) if t == "OrderedList" else (c, (*path, "c"))
            inner = ctx.enter(_LIST_NAMES[t])._replace(lists=ctx.lists + 1)
            for j, item in enumerate(items):
                self.blocks(item, (*base, j), inner)
        elif t == "DefinitionList":
            self._definition_list(c, path, ctx)
        elif t == "Table":
            self._table(c, path, ctx._replace(fixed=True, where=(*ctx.where, "table")))
        elif t == "Figure":
            fixed = ctx._replace(fixed=True, where=(*ctx.where, "figure"))
            self._caption(c[1], (*path, "c", 1), fixed)
            self.blocks(c[2], (*path, "c", 2), fixed)
        elif isinstance(c, list):
            # a block type newer than this code: find its citations, put callouts after it
            if self.undo is not None:
                self.undo.value(c)
            self._unknown(c, path, ctx._replace(fixed=True, prose=False))

    def _definition_list(self, items: list[Json], path: Path, ctx: _Ctx) -> None:
        inner = ctx.enter("definition-list")
        for j, (term, definitions) in enumerate(items):
            if definitions and not ctx.fixed:
                term_ctx = inner._replace(
                    host_path=(*path, "c", j, 1, 0), host_after=-1, host_lists=ctx.lists
                )
            else:
                term_ctx = inner
            term_ctx = term_ctx._replace(prose=False)  # a term is a label, like a heading
            term_block = {"t": "Plain", "c": term}
            self.inlines(term, (*path, "c", j, 0), term_ctx.enter("term"), term_block)
            for k, definition in enumerate(definitions):
                self.blocks(definition, (*path, "c", j, 1, k), inner.enter("definition"))

    def _caption(self, caption: Json, path: Path, ctx: _Ctx) -> None:
        inner = ctx.enter("caption")
        short, long = caption[0], caption[1]
        if short:
            label = inner._replace(prose=False)
            self.inlines(short, (*path, 0), label, {"t": "Plain", "c": short})
        self.blocks(long, (*path, 1), inner)

    def _table(self, c: list[Json], path: Path, ctx: _Ctx) -> None:
        self._caption(c[1], (*path, "c", 1), ctx)
        cells = ctx.enter("cell")._replace(prose=False)  # table rows are not prose
        head, bodies, foot = c[3], c[4], c[5]
        self._rows(head[1], (*path, "c", 3, 1), cells)
        for b, body in enumerate(bodies):
            self._rows(body[2], (*path, "c", 4, b, 2), cells)
            self._rows(body[3], (*path, "c", 4, b, 3), cells)
        self._rows(foot[1], (*path, "c", 5, 1), cells)

    def _rows(self, rows: list[Json], path: Path, ctx: _Ctx) -> None:
        for r, row in enumerate(rows):
            for k, cell in enumerate(row[1]):
                self.blocks(cell[4], (*path, r, 1, k, 4), ctx)

    def _unknown(self, node: Json, path: Path, ctx: _Ctx) -> None:
        if isinstance(node, list):
            for i, child in enumerate(node):
                self._unknown(child, (*path, i), ctx)
        elif isinstance(node, dict) and "t" in node:
            if node["t"] in ("Para", "Plain", "Header", "Div", "BlockQuote"):
                self.block(node, path, ctx)
            elif isinstance(node.get("c"), list):
                self._unknown(node["c"], (*path, "c"), ctx)

    @staticmethod
    def _with_attributes(ctx: _Ctx, attr: Json) -> _Ctx:
        ours = tuple((k, v) for k, v in attr[2] if k.startswith(ATTRIBUTE_PREFIX))
        if not ours:
            return ctx
        names = {k for k, _ in ours}
        kept = tuple(kv for kv in ctx.attributes if kv[0] not in names)
        return ctx._replace(attributes=ours + kept)

    # inlines ---------------------------------------------------------------

    def inlines(
        self,
        inlines: list[Json],
        path: Path,
        ctx: _Ctx,
        block: Json,
        start: int = 0,
        undone: bool = False,
    ) -> None:
        """``start``, ``undone``: the walk resumed where ``undo`` rebuilt the list from."""
        for i, el in enumerate(inlines[start:] if start else inlines, start):
            if not isinstance(el, dict):
                continue
            t = el.get("t")
            if t in _INLINE_LEAVES:
                continue
            c: Any = el.get("c")
            if t == "RawInline":
                self._raw(el, (*path, i), ctx, block)
            elif t == "Cite":
                undone = self._at_cite(el, inlines, i, path, ctx, block, undone)
            elif t in _SIMPLE_INLINE_CONTAINERS:
                self.inlines(c, (*path, i, "c"), ctx, block)
            elif t == "Quoted":
                self.inlines(c[1], (*path, i, "c", 1), ctx, block)
            elif t == "Span":
                # a Markdown build's Span has its attributes hidden (build.hidden): read them
                # in place; its content, and so every path into it, stays as it is
                hidden = hidden_attributes(el)
                seen = el if hidden is None else {"t": "Span", "c": [hidden, c[1]]}
                attr = seen["c"][0]
                classes = attr[1]
                if (
                    hidden is not None
                    or FILTER_MADE.intersection(classes)
                    or attr[0].startswith(CLAIM_ANCHOR_PREFIX)
                ):
                    self.previous = True
                    if self.undo is not None and not undone:
                        cite = self.undo.lone_cite(el)
                        if cite is None:  # the list from here on, rebuilt, walked afresh
                            self.inlines(
                                inlines, path, ctx, block, self.undo.tail(inlines, i), True
                            )
                            return
                        inlines[i] = cite  # a paragraph's usual wrapper: nothing moves
                        undone = self._at_cite(cite, inlines, i, path, ctx, block, undone)
                        continue
                # a wrapper (the filter's or forged) hides nothing: its Cite is judged again
                inner = self._unverified(el, self._with_attributes(ctx, attr))
                inner = inner._replace(wrapper=None)
                if PROCESSED_CLASS in classes:
                    wrapper = _Wrapper(_Around(inlines, i, (*path, i)), stored_selectors(seen))
                    inner = inner._replace(wrapper=wrapper)
                if CLAIM_CLASS in classes:
                    inner = inner._replace(claim_span=((*path, i), el))
                self.inlines(c[1], (*path, i, "c", 1), inner, block)
            elif t == "Link":
                self.inlines(c[1], (*path, i, "c", 1), ctx._replace(in_link=True), block)
            elif t == "Note":
                # a note is text of its own: a claim Span around the note is not a note's claim
                # a metadata note's callouts still go to the body's top, a heading's after
                # the heading: a block inside \section{…\footnote{…}} ends LaTeX's argument
                in_heading = ctx.where[-1:] == ("heading",)
                note_ctx = ctx._replace(
                    fixed=ctx.meta or in_heading,
                    note_host=ctx.note_host or (ctx.host_path, ctx.host_after),
                    where=(*ctx.where[:-1], "note"),
                    note_parent=_NoteParent(block, ctx, el, (*path, i), inlines),
                    claim_span=None,
                    lists=0,
                    wrapper=None,
                )
                self.blocks(c, (*path, i, "c"), note_ctx)
            elif t == "Image" and ctx.where[-2:-1] != ("figure",) and isinstance(c, list):
                # its alt text is read (and printed where the image is not shown); not a
                # figure's image, whose alt pandoc copies from the caption already walked
                alt = {"t": "Plain", "c": c[1]}  # its claims are the alt's own sentences
                self.inlines(c[1], (*path, i, "c", 1), ctx.enter("image"), alt)
            elif self.undo is not None and isinstance(c, list):
                self.undo.value(c)  # not read (a figure's image, a newer type): undone whole

    def _at_cite(
        self,
        el: Json,
        inlines: list[Json],
        i: int,
        path: Path,
        ctx: _Ctx,
        block: Json,
        undone: bool,
    ) -> bool:
        """Record the Cite ``inlines[i]``; whether the rest of ``inlines`` is undone now.

        Undoing, its prefixes and suffixes are undone first (a selector comes back there), and
        so is the rest of the list when an author-in-text Cite may have its claim Span after it
        (the walk has not reached that yet)."""
        if self.undo is not None and not undone:
            self.undo.cite(el["c"])
            items = el["c"][0]
            if items and (items[0].get("citationMode") or {}).get("t") == "AuthorInText":
                self.undo.tail(inlines, i + 1)  # what stands up to i stays where it is
                undone = True
        own = _Around(inlines, i, (*path, i))
        wrapper = ctx.wrapper
        # in a wrapper, the claim Spans beside it are the Cite's neighbours
        around = wrapper.around if wrapper is not None else own
        selectors = wrapper.selectors if wrapper is not None else {}
        self._cite(el, around, ctx, block, own.path, selectors)
        return undone

    def _raw(self, node: Json, path: Path, ctx: _Ctx, block: Json | None) -> None:
        """Record each citation written as a raw command (``raw_citations``): a breakdown the
        document itself shows (``CitationRef.problem``), its flag and callout where a Cite's
        would be (a raw block's after it). ``block``: the block holding a RawInline."""
        found = raw_element_citations(node.get("c"), self.prefixes)
        if not found:
            return
        fmt, text = node["c"]
        claim = squash(text) if block is None else self._sentence(block, node)
        for raw in found:
            self.occurrence += 1
            ref = CitationRef(
                key=raw.key,
                claim=claim,
                occurrence=self.occurrence,
                problem=raw_problem(fmt, raw),
            )
            self.found.append(
                FoundCitation(
                    ref=ref,
                    cite_path=path,
                    citation_path=path,
                    host_path=ctx.host_path,
                    host_after=ctx.host_after,
                    where=ctx.where,
                    attributes=ctx.attributes,
                    in_link=ctx.in_link,
                    block_index=-1 if ctx.meta else int(path[1]),
                    list_depth=ctx.host_lists,
                    raw=True,
                    note_host=ctx.note_host,
                )
            )

    def _unverified(self, node: Json, ctx: _Ctx) -> _Ctx:
        """Collect ``node`` when it is an unmarked unverified marker outside any other."""
        classes = node["c"][0][1]
        if ctx.unverified or UNVERIFIED_CLASS not in classes:
            return ctx
        if UNVERIFIED_MARKED_CLASS not in classes:
            self.unverified.append(node)
        return ctx._replace(unverified=True)

    def _items(self, cite: Json, path: Path) -> Iterator[tuple[Json, Path]]:
        """The non-crossref citation items of a Cite, nested ones in their textual place."""
        for j, item in enumerate(cite["c"][0]):
            item_path = (*path, "c", 0, j)
            prefix = item.get("citationPrefix") or []
            yield from self._nested(prefix, (*item_path, "citationPrefix"))
            if not is_crossref(item.get("citationId", ""), self.prefixes):
                yield item, item_path
            else:
                self.crossrefs.append(item.get("citationId", ""))
            suffix = item.get("citationSuffix") or []
            yield from self._nested(suffix, (*item_path, "citationSuffix"))

    def _nested(self, inlines: list[Json], path: Path) -> Iterator[tuple[Json, Path]]:
        for i, el in enumerate(inlines):
            if isinstance(el, dict) and el.get("t") == "Cite":
                yield from self._items(el, (*path, i))

    def _cite(
        self,
        cite: Json,
        around: _Around,
        ctx: _Ctx,
        block: Json,
        path: Path,
        stored: Mapping[int, str],
    ) -> None:
        """Record each item of ``cite`` (at ``path``); ``stored``: a wrapper's quote selectors."""
        host_ctx, claim_at, claim_span = ctx, None, None
        claim: str | None = None
        items = cite["c"][0]
        in_text = bool(items) and (items[0].get("citationMode") or {}).get("t") == "AuthorInText"
        for index, (item, rel) in enumerate(self._items(cite, ())):
            self.occurrence += 1
            if claim is None and self.defer_claims and ctx.note_parent is None:
                found = self._claim_span(around, ctx, in_text)
                if found is None:  # its sentence: cut when asked for (Scan.with_claim)
                    claim = ""
                else:
                    claim_span, claim = found
            if claim is None:
                claim, host_ctx, claim_at, claim_span = self._claim(
                    block, cite, ctx, around, in_text
                )
            if self.defer_claims and claim == "" and claim_span is None and claim_at is None:
                self.deferred[self.occurrence] = (block, cite)
            suffix = item.get("citationSuffix")
            selector, locator = None, None  # most citations have no suffix: nothing to read
            unread: str | None = None
            if suffix:
                selector, suffix_text = parse_selector(plain_text(_own_words(suffix)))
                pinpoint, rest = parse_locator(suffix_text, self.lang)
                locator = pinpoint.raw if pinpoint else None
                unread = unread_pinpoint(rest)
            prefix = item.get("citationPrefix")
            if prefix and unread is None:
                unread = unread_pinpoint(plain_text(_own_words(prefix)))
            selector = selector or stored.get(index)
            ref = CitationRef(
                key=item.get("citationId", ""),
                locator=locator,
                selector=selector,
                mode=(item.get("citationMode") or {}).get("t", "NormalCitation"),
                claim=claim,
                occurrence=self.occurrence,
                problem=None if unread is None else _unread_problem(unread, item, locator),
                lang=self.lang,
            )
            self.found.append(
                FoundCitation(
                    ref=ref,
                    cite_path=path,
                    citation_path=(*path, *rel),
                    host_path=host_ctx.host_path,
                    host_after=host_ctx.host_after,
                    where=ctx.where,
                    attributes=ctx.attributes,
                    in_link=ctx.in_link,
                    claim_at=claim_at,
                    claim_span=claim_span,
                    block_index=-1 if ctx.meta else int(path[1]),
                    list_depth=host_ctx.host_lists,
                    note_host=host_ctx.note_host,
                )
            )

    def _claim(
        self, block: Json, target: Json, ctx: _Ctx, around: _Around, in_text: bool = False
    ) -> tuple[str, _Ctx, Path | None, Path | None]:
        """The claim of ``target``, the context whose host gets the callout, where the claim
        stands when that is not at the citation (the path of a Note), and the path of the
        writer's explicit claim Span when there is one.

        An explicit ``[…]{.claim}`` Span beside or around ``target`` is the claim. Otherwise it
        is the sentence carrying ``target``; a note made only of citations (``^[@key]``,
        ``^[See also @key.]``) supports what the note is attached to: that is the claim, and the
        callout goes after its block.
        """
        span = self._claim_span(around, ctx, in_text)
        if span is not None:
            return span[1], ctx, None, span[0]
        sentence = self._sentence(block, target)
        parent = ctx.note_parent
        if parent is not None and _is_citation_only(sentence):
            index = int(parent.path[-1])
            note_at = _Around(parent.siblings, index, parent.path)
            claim, host_ctx, at, claim_span = self._claim(
                parent.block, parent.note, parent.ctx, note_at
            )
            return claim, host_ctx, at or parent.path, claim_span
        return sentence, ctx, None, None

    def _claim_span(self, around: _Around, ctx: _Ctx, in_text: bool) -> tuple[Path, str] | None:
        """The explicit claim Span of a Cite or Note, and its words: beside it, else around it."""
        inlines, index, path = around
        candidates: list[tuple[Path, Json]] = []
        before = _neighbour(inlines, index, -1)
        if before is not None:
            candidates.append(((*path[:-1], before), inlines[before]))
        if in_text:
            after = _neighbour(inlines, index, 1)
            if after is not None:
                candidates.append(((*path[:-1], after), inlines[after]))
        if ctx.claim_span is not None:
            candidates.append(ctx.claim_span)
        for span_path, span in candidates:
            flat = flatten([span["c"][1]], cites_a_source, self.prefixes)
            words = squash(claim_text(flat, 0, len(flat.chars)))
            if words:
                return span_path, words
        return None

    def _sentence(self, block: Json, target: Json) -> str:
        """The sentence of ``block`` holding ``target``, as the one splitter cuts it."""
        cached = self._cached(block, False)
        span = span_at(cached.spans, cached.flat.marks.get(id(target), 0))
        sentence = cached.sentences.get(span)
        if sentence is None:
            sentence = cached.sentences[span] = squash(claim_text(cached.flat, *span))
        return sentence

    def _flat(self, block: Json, unverified: bool) -> Flat:
        return self._cached(block, unverified).flat

    def _cached(self, block: Json, unverified: bool) -> _BlockText:
        """``block`` flattened and split once, for its claims and its coverage alike."""
        cached = self._texts.get(id(block))
        if cached is None:
            lines = _block_inlines(block)
            flat = flatten(lines, cites_a_source, self.prefixes, unverified)
            cached = _BlockText(block, flat, split(flat), {})
            self._texts[id(block)] = cached
        return cached


def _own_words(inlines: list[Json]) -> list[Json]:
    """A prefix or suffix without the Cites nested in it (their keys are not pinpoints)."""
    return [el for el in inlines if not (isinstance(el, dict) and el.get("t") == "Cite")]


def _unread_problem(unread: str, item: Json, locator: str | None) -> str:
    """Why a citation whose prefix or suffix holds a pinpoint no locator reading took in is a
    breakdown: the place it sends the reader is not the one compared with the quote's."""
    key = item.get("citationId", "")
    read = f"it reads {locator} only" if locator else "it reads no locator here"
    return (
        f"The citation also points to “{unread}”, which citeledger does not read ({read}: "
        f"p. 14, pp. 3–5, § 2, ch. 3, vol. 2…, one per citation), so that place is not "
        f"compared with where the quote stands: write one locator after the key "
        f"([@{key}, p. 99]), and move other words out of the citation."
    )


def _neighbour(inlines: list[Json], index: int, step: int) -> int | None:
    """The index of a claim Span next to ``inlines[index]`` (only spaces between), or None."""
    j = index + step
    while 0 <= j < len(inlines):
        el = inlines[j]
        t = el.get("t") if isinstance(el, dict) else None
        if t in ("Space", "SoftBreak") or (t == "Span" and _is_claim_anchor(el)):
            j += step
            continue
        if t == "Span" and CLAIM_CLASS in el["c"][0][1] and PROCESSED_CLASS not in el["c"][0][1]:
            return j
        return None
    return None


def _block_inlines(block: Json) -> list[list[Json]]:
    t = block.get("t")
    c: Any = block.get("c")
    if t in ("Para", "Plain"):
        caption = old_figure_caption(block)
        return [c if caption is None else caption]
    if t == "Header":
        return [c[2]]
    if t == "LineBlock":
        return list(c)
    return []


def _is_claim_anchor(span: Json) -> bool:
    """The filter's empty ``#citeledger-claim-N`` anchor (it stands where nothing else may)."""
    return CLAIM_ANCHOR_CLASS in span["c"][0][1] and not span["c"][1]


def is_alert(block: Json) -> bool:
    """A GitHub-alert callout the filter made for a Markdown build (``render.markdown``)."""
    if not isinstance(block, dict) or block.get("t") != "BlockQuote" or not block.get("c"):
        return False
    first = block["c"][0]
    if not isinstance(first, dict) or first.get("t") not in ("Para", "Plain") or not first["c"]:
        return False
    opening = first["c"][0]
    marks = (["markdown", mark] for mark in ALERT_MARKS)
    return opening.get("t") == "RawInline" and opening["c"] in marks
