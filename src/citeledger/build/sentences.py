"""The ONE sentence splitter: a block's inlines as characters, cut into sentences.

A citation's claim (``citations``) and a prose sentence of the coverage measure (``coverage``)
must be the same span of the same text, or the figure ``check`` reports and the claims a reader
sees would be computed on different sentences. So both flatten a block here (``flatten``: each
character with its kind and flags) and split it here (``split``).

Where a sentence ends is the shared rule's (``citeledger.sentence_end``, also the locator's):
this module reads a block as that rule's text, prose as itself, citations, code and footnote
markers as characters attached to the sentence before them, math as a word, a hard line break
(and each line of a line block) as a break that ends a sentence. So ``… claim. [@key] Next``
keeps its citation, ``… topic. [@papers] gives …`` opens the next sentence with it, and a full
stop inside a citation or code ends nothing.

It must never do I/O and never change the inlines it is given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress
from typing import Any

from citeledger.build.hidden import span_classes
from citeledger.build.names import FILTER_WORDS, is_tool_output
from citeledger.build.raw import raw_element_citations
from citeledger.sentence_end import ATTACHED, HARD_BREAK, sentence_ends
from citeledger.sentence_end import sentence_spans as sentence_spans

NOTE_MARK = "\u2063"  # zero-width stand-in for a footnote marker; never shown

# character kinds in a flattened block
TEXT = "T"  # prose: counts, may end a sentence
MUTED = "X"  # shown, not counted, never ends a sentence (citation text, code, tool spans)
MATH = "M"  # shown, counts as one word
BREAK = "B"  # hard line break: ends a sentence
NOTE = "N"  # footnote marker

# how each kind reads in the text the shared rule cuts: prose as itself, math as one opaque
# character each (a word: neither space nor lower case), the rest attached, a break as a break
_VIEW = {MUTED: ATTACHED, MATH: "\ue000", BREAK: HARD_BREAK, NOTE: ATTACHED}

_WRAPPERS = ("Emph", "Strong", "Underline", "Strikeout", "Superscript", "Subscript", "SmallCaps")


@dataclass
class Flat:
    """One block's inline content as characters, each with a kind and flags.

    ``prov``: the character carries provenance (a citation of a source, a note citing one, an
    unverified marker); ``claim``: it is part of a claim's words (a citation's own text, and the
    filter's words, are not); ``inserts``: text a claim reads where a citation stands (``@doe``
    for an author-in-text citation); ``marks``: where each Cite and Note node (by ``id``) starts.
    """

    chars: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    prov: list[bool] = field(default_factory=list)
    unv: list[bool] = field(default_factory=list)
    claim: list[bool] = field(default_factory=list)
    inserts: dict[int, str] = field(default_factory=dict)
    marks: dict[int, int] = field(default_factory=dict)
    notes: list[list[Any]] = field(default_factory=list)
    view: list[str] = field(default_factory=list)

    def add(
        self,
        s: str,
        kind: str,
        prov: bool = False,
        unverified: bool = False,
        claim: bool = True,
    ) -> None:
        n = len(s)  # a run at a time: a block is flattened once, but it has many characters
        self.chars.extend(s)
        self.kinds.extend((kind,) * n)
        self.prov.extend((prov or unverified,) * n)
        self.unv.extend((unverified,) * n)
        self.claim.extend((claim,) * n)
        self.view.append(s if kind == TEXT else _VIEW[kind] * n)


@dataclass(frozen=True)
class _In:
    """Where the flattening is: what encloses the current inline."""

    prefixes: tuple[str, ...]
    is_source: Any  # (citation ids, prefixes) -> bool: does a Cite cite a source?
    unverified: bool = False
    in_link: bool = False
    muted: bool = False
    filters: bool = False  # inside the filter's words


def flatten(
    lines: Sequence[Sequence[Any]],
    is_source: Any,
    prefixes: tuple[str, ...],
    unverified: bool = False,
) -> Flat:
    """The lines of a block (one for a paragraph, several for a line block) as one ``Flat``.

    ``is_source(cite_items, prefixes)`` says whether a Cite cites a source rather than only
    cross-references (``citations`` owns that rule).
    """
    flat = Flat()
    where = _In(prefixes, is_source, unverified=unverified)
    for n, line in enumerate(lines):
        if n:
            flat.add("\n", BREAK)
        _inlines(line, flat, where)
    return flat


def _inlines(inlines: Sequence[Any], flat: Flat, at: _In) -> None:
    kind = MUTED if at.muted else TEXT
    words = not at.filters
    unv = at.unverified
    run: list[str] = []  # words and spaces in a row: added as one run (they share their flags)
    for node in inlines:
        if not isinstance(node, dict):  # a JSON AST: dicts (and abc checks are slow)
            continue
        t = node.get("t")
        c: Any = node.get("c")
        if t == "Str":
            run.append(c)
            continue
        if t in ("Space", "SoftBreak"):
            run.append(" ")
            continue
        if run:
            flat.add("".join(run), kind, unverified=unv, claim=words)
            run.clear()
        if t == "LineBreak":
            flat.add("\n", BREAK)
        elif t in _WRAPPERS:
            _inlines(c, flat, at)
        elif t == "Quoted":
            double = c[0].get("t") == "DoubleQuote"
            flat.add("“" if double else "‘", kind, unverified=unv, claim=words)
            _inlines(c[1], flat, at)
            flat.add("”" if double else "’", kind, unverified=unv, claim=words)
        elif t == "Cite":
            start = len(flat.chars)
            flat.marks[id(node)] = start
            items = c[0]
            if words and items and (items[0].get("citationMode") or {}).get("t") == "AuthorInText":
                flat.inserts[start] = flat.inserts.get(start, "") + "@" + items[0]["citationId"]
            prov = not at.in_link and at.is_source(items, at.prefixes)
            flat.add(raw_text(c[1]), MUTED, prov=prov, unverified=unv, claim=False)
        elif t == "Code":
            flat.add(c[1], MUTED, unverified=unv, claim=words)
        elif t == "Math":
            flat.add(c[1], MATH, unverified=unv, claim=words)
        elif t == "Link":
            _inlines(c[1], flat, _with(at, in_link=True))
        elif t == "Span":
            classes = span_classes(node)  # a Markdown build's hidden ones too (build.hidden)
            inner = _with(
                at,
                unverified=unv or "unverified" in classes,
                muted=at.muted or is_tool_output(classes),
                filters=at.filters or bool(FILTER_WORDS.intersection(classes)),
            )
            _inlines(c[1], flat, inner)
        elif t == "Note":
            flat.marks[id(node)] = len(flat.chars)
            flat.notes.append(c)
            prov = _has_cite(c, False, at)
            flat.add(NOTE_MARK, NOTE, prov=prov, unverified=unv, claim=False)
        elif t == "RawInline":  # not prose; marked: a raw citation command's claim is here
            flat.marks[id(node)] = len(flat.chars)
            # a declared citation: provenance
            if not at.in_link and raw_element_citations(c, at.prefixes):
                flat.add(" ", MUTED, prov=True, unverified=unv, claim=False)
        # Image (alt text): not prose
    if run:
        flat.add("".join(run), kind, unverified=unv, claim=words)


def old_figure_caption(block: Mapping[str, Any]) -> list[Any] | None:
    """The caption of pandoc 2.x's implicit figure: a Para holding only an Image titled
    ``fig:``, whose alt text is the caption a reader sees (pandoc 2 has no Figure block). Pandoc
    3 writes a Figure whose caption the walk reads and copies it into the image's alt, which is
    then not prose; an image inside a sentence is never a figure."""
    c = block.get("c")
    if block.get("t") != "Para" or not isinstance(c, list) or len(c) != 1:
        return None
    image = c[0]
    if not isinstance(image, dict) or image.get("t") != "Image":
        return None
    target = image["c"][2]
    if not (isinstance(target, list) and len(target) == 2 and str(target[1]).startswith("fig:")):
        return None
    alt: list[Any] = image["c"][1]
    return alt


def _with(at: _In, **changes: Any) -> _In:
    from dataclasses import replace

    return replace(at, **changes)


def _has_cite(value: Any, in_link: bool, at: _In) -> bool:
    """Does a footnote cite a source (outside link text)?"""
    if isinstance(value, list):
        return any(_has_cite(v, in_link, at) for v in value)
    if isinstance(value, dict):
        t = value.get("t")
        if t == "Cite":
            return not in_link and bool(at.is_source(value["c"][0], at.prefixes))
        if t in ("Code", "CodeBlock", "RawInline", "RawBlock", "Header", "Table"):
            return False
        return _has_cite(value.get("c"), in_link or t == "Link", at)
    return False


def raw_text(inlines: Sequence[Any]) -> str:
    """The text of ``inlines`` as pandoc's ``stringify`` reads it (citations by their text, images
    by their alt, notes and raw code left out), spaces not yet folded."""
    out: list[str] = []
    _text(inlines, out)
    return "".join(out)


def _text(inlines: Sequence[Any], out: list[str]) -> None:
    for el in inlines:
        if not isinstance(el, Mapping):
            continue
        t = el.get("t")
        c: Any = el.get("c")
        if t == "Str":
            out.append(c)
        elif t in ("Space", "SoftBreak", "LineBreak"):
            out.append(" ")
        elif t in ("Code", "Math"):
            out.append(c[1])
        elif t in _WRAPPERS:
            _text(c, out)
        elif t == "Quoted":
            single = c[0].get("t") == "SingleQuote"
            out.append("‘" if single else "“")
            _text(c[1], out)
            out.append("’" if single else "”")
        elif t in ("Span", "Link", "Image", "Cite"):
            _text(c[1], out)
        # RawInline, Note and unknown inlines carry no prose


# --- splitting --------------------------------------------------------------------------------


def split(flat: Flat) -> list[tuple[int, int]]:
    """The sentences of ``flat`` as (start, end) character ranges, in order; never empty ones.
    A sentence starts where the one before ends (the space between is the next one's)."""
    text = "".join(flat.view)
    spans: list[tuple[int, int]] = []
    start = 0
    for end, _ in sentence_ends(text):
        if start < end:
            spans.append((start, end))
        start = max(start, end + 1 if text[end : end + 1] == HARD_BREAK else end)
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def span_at(spans: Sequence[tuple[int, int]], pos: int) -> tuple[int, int]:
    """The sentence holding the character at ``pos`` (a Cite's or Note's mark)."""
    chosen = spans[0] if spans else (0, 0)
    for span in spans:
        if span[0] <= pos:
            chosen = span
        else:
            break
    return chosen


def claim_text(flat: Flat, lo: int, hi: int) -> str:
    """The words of a sentence as a claim reads them: without citations and the filter's words."""
    if BREAK not in flat.kinds[lo:hi]:  # the common case, a run at a time
        cuts = sorted(k for k in flat.inserts if lo <= k < hi)
        parts: list[str] = []
        at = lo
        for k in cuts:
            parts += (*compress(flat.chars[at:k], flat.claim[at:k]), flat.inserts[k])
            at = k
        parts += compress(flat.chars[at:hi], flat.claim[at:hi])
        if hi == len(flat.chars) and flat.inserts.get(hi):
            parts.append(flat.inserts[hi])
        return "".join(parts)
    out: list[str] = []
    for k in range(lo, hi):
        insert = flat.inserts.get(k)
        if insert:
            out.append(insert)
        if flat.kinds[k] == BREAK:
            out.append(" ")
        elif flat.claim[k]:
            out.append(flat.chars[k])
    insert = flat.inserts.get(hi) if hi == len(flat.chars) else None
    if insert:
        out.append(insert)
    return "".join(out)
