"""Provenance coverage: what share of a document's prose sentences declare where they come from.

The metric of seed 001, computed on the pandoc JSON AST: prose sentences are sentence fragments
of four or more words in prose blocks, once headings, table rows and code are dropped; a sentence
has provenance when it carries a citation (a ``Cite`` that is not a cross-reference) or an
explicit unverified marker (``[claim]{.unverified}``, or a ``::: unverified`` Div around it). The
number judges declaration, never source quality or whether a citation was checked: that is
``judge``'s job. It must never read the ledger, never touch the network and never alter the
document it is given.

Choices the seed leaves open, decided here (user documentation should repeat them):

* footnote text is prose: a note's sentences count on their own; a sentence whose footnote
  holds a citation has provenance (notes made only of ``^[@key]`` are how Chicago-style
  documents cite);
* figure and table captions are prose (only table *rows* are dropped): a caption can make a
  claim, and the corpus puts citations there; image alt text is not prose (in a figure it
  repeats the caption);
* definition-list terms are labels, like headings, and are dropped; their definitions are prose;
* code is dropped: ``CodeBlock``, ``RawBlock``, ``Code`` and ``RawInline`` contribute no words,
  so a raw TeX ``\\cite{}`` is not provenance (citeledger cannot check it); an inline formula
  counts as one word;
* a ``Cite`` inside link text is a handle that pandoc parsed as a citation (``[@user](url)``),
  not declared provenance (the filter still reports it, so the writer sees it); a ``Cite``
  whose keys are all cross-references (``@fig-…``, ``@sec:…``, ``@thm-…``, a ``crossref: custom:``
  kind: exactly ``citations.is_crossref``, the filter's own test) is not provenance, one mixing
  a real key in is;
* ``citeledger-*`` Divs (the tool's own callouts and audit section) and the bibliography Div
  ``#refs`` are not the writer's prose; ``citeledger-*`` Spans add no words but keep the
  provenance of the citations inside them;
* metadata (title, abstract in YAML) is not counted: only the body;
* with no prose sentences at all the ratio is ``None`` (reported as ``null``), not 1.0: an empty
  document is not fully grounded.

Sentence splitting is rule-based: a sentence ends at ``.``, ``!``, ``?`` or ``…`` (with any
closing quotes or brackets) followed by space and a word that does not start in lower case; not
after known abbreviations (``e.g.``, ``et al.``, ``p.``, ``Fig.``, ``cf.``, …), single-letter
initials (``J. R. R.``) or a full stop pandoc already joined to the next word with a non-breaking
space; never inside a number (``3.5``), a citation or code. Citations and footnote markers
directly after a full stop (``… claim. [@key] Next``) belong to the sentence before them, unless
the next word is in lower case (``… topic. [@papers] gives …``: the citation opens it). A hard
line break (and each line of a line block) ends a sentence.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

# one list of cross-reference prefixes, the filter's: a key the filter judges as a citation must
# count as declared provenance here, and the other way round
from citeledger.citations import CROSSREF_PREFIXES, crossref_prefixes
from citeledger.citations import is_crossref as is_crossref

MIN_WORDS = 4

# abbreviations after which a full stop does not end a sentence (lower case, no final dot)
_ABBREVIATION_WORDS = (
    "e.g i.e al cf vs viz fig figs eq eqs sec secs sect ch chap p pp vol vols no nos ed eds "
    "ref refs tab tbl thm def approx ca resp dr mr mrs ms prof st jr sr inc ltd ibid op cit "
    "para paras art n nn ff f l ll c app appx est dept univ ex cp mss repr trans esp"
)
ABBREVIATIONS = frozenset(_ABBREVIATION_WORDS.split())

_TERMINAL = frozenset(".!?…‽")
_CLOSERS = frozenset("\"'”’»)]}")
_NOTE_MARK = "\u2063"  # zero-width stand-in for a footnote marker; never shown

# character kinds in a flattened block
_TEXT = "T"  # prose: counts, may end a sentence
_MUTED = "X"  # shown, not counted, never ends a sentence (citation text, code, tool spans)
_MATH = "M"  # shown, counts as one word
_BREAK = "B"  # hard line break: ends a sentence
_NOTE = "N"  # footnote marker


@dataclass(frozen=True)
class Sentence:
    text: str
    words: int
    has_provenance: bool
    unverified: bool


@dataclass(frozen=True)
class Coverage:
    prose_sentences: int
    with_provenance: int
    unverified: int = 0
    without_provenance: list[str] = field(default_factory=list)

    @property
    def ratio(self) -> float | None:
        """Share of prose sentences with provenance; None when there are no prose sentences."""
        if self.prose_sentences == 0:
            return None
        return self.with_provenance / self.prose_sentences

    def to_json(self) -> dict[str, Any]:
        ratio = self.ratio
        return {
            "prose_sentences": self.prose_sentences,
            "with_provenance": self.with_provenance,
            "ratio": None if ratio is None else round(ratio, 4),
            "unverified": self.unverified,
            "without_provenance": list(self.without_provenance),
        }


def compute_coverage(doc_json: Mapping[str, Any]) -> Coverage:
    """Coverage of a whole document (the dict ``pandoc -t json`` prints)."""
    sentences = [s for s in prose_sentences(doc_json)]
    return Coverage(
        prose_sentences=len(sentences),
        with_provenance=sum(1 for s in sentences if s.has_provenance),
        unverified=sum(1 for s in sentences if s.unverified),
        without_provenance=[s.text for s in sentences if not s.has_provenance],
    )


def prose_sentences(doc_json: Mapping[str, Any]) -> Iterator[Sentence]:
    """Every prose sentence of the body in document order; a note's follow its host block."""
    blocks = doc_json.get("blocks")
    if not isinstance(blocks, list):
        raise ValueError("not a pandoc JSON document: no 'blocks' list")
    yield from _blocks(blocks, _Ctx(prefixes=crossref_prefixes(doc_json.get("meta"))))


# --- blocks -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Ctx:
    unverified: bool = False
    in_link: bool = False
    muted: bool = False
    prefixes: tuple[str, ...] = CROSSREF_PREFIXES  # the document's cross-reference prefixes


def _blocks(blocks: Sequence[Any], ctx: _Ctx) -> Iterator[Sentence]:
    for block in blocks:
        yield from _block(block, ctx)


def _block(block: Mapping[str, Any], ctx: _Ctx) -> Iterator[Sentence]:
    t = block.get("t")
    c: Any = block.get("c")
    if t in ("Para", "Plain"):
        yield from _prose([c], ctx)
    elif t == "LineBlock":
        yield from _prose(c, ctx)
    elif t == "BlockQuote":
        yield from _blocks(c, ctx)
    elif t == "Div":
        ident, classes, _ = c[0]
        if ident == "refs" or _is_tool_output(classes):
            return
        if "unverified" in classes and not ctx.unverified:
            ctx = replace(ctx, unverified=True)
        yield from _blocks(c[1], ctx)
    elif t == "BulletList":
        for item in c:
            yield from _blocks(item, ctx)
    elif t == "OrderedList":
        for item in c[1]:
            yield from _blocks(item, ctx)
    elif t == "DefinitionList":
        for _term, definitions in c:
            for definition in definitions:
                yield from _blocks(definition, ctx)
    elif t == "Figure":
        yield from _blocks(c[1][1], ctx)
        yield from _blocks(c[2], ctx)
    elif t == "Table":
        yield from _blocks(c[1][1], ctx)  # the caption; rows are dropped
    # Header, CodeBlock, RawBlock, HorizontalRule and anything unknown: not prose


def _prose(lines: Sequence[Sequence[Any]], ctx: _Ctx) -> Iterator[Sentence]:
    flat = _Flat()
    notes: list[list[Any]] = []
    for n, line in enumerate(lines):
        if n:
            flat.add("\n", _BREAK)
        _inlines(line, flat, notes, ctx)
    yield from _split(flat)
    for note in notes:
        yield from _blocks(note, ctx)


# --- inlines ----------------------------------------------------------------------------------


class _Flat:
    """One block's inline content as characters with a kind and provenance flags each."""

    def __init__(self) -> None:
        self.chars: list[str] = []
        self.kinds: list[str] = []
        self.prov: list[bool] = []
        self.unv: list[bool] = []

    def add(self, s: str, kind: str, prov: bool = False, unverified: bool = False) -> None:
        for ch in s:
            self.chars.append(ch)
            self.kinds.append(kind)
            self.prov.append(prov or unverified)
            self.unv.append(unverified)


_WRAPPERS = ("Emph", "Strong", "Underline", "Strikeout", "Superscript", "Subscript", "SmallCaps")


def _inlines(inlines: Sequence[Any], flat: _Flat, notes: list[list[Any]], ctx: _Ctx) -> None:
    text_kind = _MUTED if ctx.muted else _TEXT
    for node in inlines:
        t = node.get("t")
        c: Any = node.get("c")
        if t == "Str":
            flat.add(c, text_kind, unverified=ctx.unverified)
        elif t in ("Space", "SoftBreak"):
            flat.add(" ", text_kind, unverified=ctx.unverified)
        elif t == "LineBreak":
            flat.add("\n", _BREAK)
        elif t in _WRAPPERS:
            _inlines(c, flat, notes, ctx)
        elif t == "Quoted":
            double = c[0].get("t") == "DoubleQuote"
            flat.add("“" if double else "‘", text_kind, unverified=ctx.unverified)
            _inlines(c[1], flat, notes, ctx)
            flat.add("”" if double else "’", text_kind, unverified=ctx.unverified)
        elif t == "Cite":
            prov = not ctx.in_link and _cites_a_source(c[0], ctx.prefixes)
            flat.add(_plain(c[1]), _MUTED, prov=prov, unverified=ctx.unverified)
        elif t == "Code":
            flat.add(c[1], _MUTED, unverified=ctx.unverified)
        elif t == "Math":
            flat.add(c[1], _MATH, unverified=ctx.unverified)
        elif t == "Link":
            _inlines(c[1], flat, notes, replace(ctx, in_link=True))
        elif t == "Span":
            classes = c[0][1]
            tool = _is_tool_output(classes)
            unv = ctx.unverified or "unverified" in classes
            _inlines(c[1], flat, notes, replace(ctx, unverified=unv, muted=ctx.muted or tool))
        elif t == "Note":
            notes.append(c)
            prov = _note_cites(c, ctx.prefixes)
            flat.add(_NOTE_MARK, _NOTE, prov=prov, unverified=ctx.unverified)
        # Image (alt text), RawInline: not prose


def _cites_a_source(citations: Sequence[Any], prefixes: tuple[str, ...]) -> bool:
    return any(not is_crossref(k, prefixes) for k in _citation_ids(citations))


def _citation_ids(citations: Sequence[Any]) -> Iterator[str]:
    for citation in citations:
        yield citation.get("citationId", "")
        for side in ("citationPrefix", "citationSuffix"):
            for node in _walk(citation.get(side) or []):
                if node.get("t") == "Cite":
                    yield from _citation_ids(node["c"][0])


def _note_cites(blocks: Sequence[Any], prefixes: tuple[str, ...]) -> bool:
    """Does a footnote cite a source (outside link text)?"""
    return _has_cite(blocks, False, prefixes)


def _has_cite(value: Any, in_link: bool, prefixes: tuple[str, ...]) -> bool:
    if isinstance(value, list):
        return any(_has_cite(v, in_link, prefixes) for v in value)
    if isinstance(value, dict):
        t = value.get("t")
        if t == "Cite":
            return not in_link and _cites_a_source(value["c"][0], prefixes)
        if t in ("Code", "CodeBlock", "RawInline", "RawBlock", "Header", "Table"):
            return False
        return _has_cite(value.get("c"), in_link or t == "Link", prefixes)
    return False


def _walk(value: Any) -> Iterator[Mapping[str, Any]]:
    if isinstance(value, list):
        for v in value:
            yield from _walk(v)
    elif isinstance(value, dict):
        if "t" in value:
            yield value
        yield from _walk(value.get("c"))


def _plain(inlines: Sequence[Any]) -> str:
    out: list[str] = []
    for node in _walk(inlines):
        t = node.get("t")
        if t == "Str":
            out.append(node["c"])
        elif t in ("Space", "SoftBreak", "LineBreak"):
            out.append(" ")
        elif t in ("Code", "Math"):
            out.append(node["c"][1])
    return "".join(out)


# --- sentences --------------------------------------------------------------------------------


def _split(flat: _Flat) -> Iterator[Sentence]:
    chars, kinds = flat.chars, flat.kinds
    n = len(chars)
    start = 0
    i = 0
    while i < n:
        if kinds[i] == _BREAK:
            yield from _sentence(flat, start, i)
            start = i + 1
            i += 1
            continue
        if kinds[i] == _TEXT and chars[i] in _TERMINAL:
            end = _sentence_end(flat, i)
            if end is not None:
                yield from _sentence(flat, start, end)
                start = end
                i = end
                continue
        i += 1
    yield from _sentence(flat, start, n)


def _sentence_end(flat: _Flat, i: int) -> int | None:
    """Where the next sentence starts if the terminal mark at ``i`` ends one, else None."""
    chars, kinds = flat.chars, flat.kinds
    n = len(chars)
    j = i + 1
    while j < n and kinds[j] == _TEXT and (chars[j] in _TERMINAL or chars[j] in _CLOSERS):
        j += 1
    if j < n:
        if chars[j] == "\u00a0" or chars[j] == "\u202f":
            return None  # pandoc glued an abbreviation to its next word
        if not (chars[j].isspace() or kinds[j] in (_MUTED, _NOTE, _BREAK)):
            return None  # inside a token: 3.5, e.g.x, example.com
    if chars[i] == "." and _is_abbreviation(_word_before(flat, i)):
        return None
    # citations and note markers right after the full stop belong to this sentence
    k = j
    while k < n and (
        chars[k].isspace()
        or kinds[k] in (_MUTED, _NOTE)
        or (kinds[k] == _TEXT and chars[k] in ".,;:")
    ):
        if kinds[k] == _BREAK:
            break
        k += 1
    if k < n and kinds[k] == _TEXT and chars[k].islower():
        if any(kinds[m] in (_MUTED, _NOTE) for m in range(j, k)):
            return j  # "… techniques. [@papers] gives …": the citation opens the next one
        return None  # "… et al. found", "… 3 p.m. on"
    while k > j and chars[k - 1].isspace():
        k -= 1  # leave the space to the next sentence; only markers attach
    return k


def _word_before(flat: _Flat, i: int) -> str:
    chars, kinds = flat.chars, flat.kinds
    j = i
    while j > 0 and kinds[j - 1] == _TEXT and not chars[j - 1].isspace():
        j -= 1
    return "".join(chars[j:i]).lstrip("([{\"'“‘")


def _is_abbreviation(word: str) -> bool:
    if not word:
        return False
    w = word.lower()
    if w in ABBREVIATIONS:
        return True
    if len(word) == 1 and word.isalpha():
        return True  # an initial: J. R. R. Tolkien
    parts = w.split(".")
    return len(parts) > 1 and all(p.isalpha() and len(p) <= 2 for p in parts)  # U.S, e.g, ph.d


def _sentence(flat: _Flat, lo: int, hi: int) -> Iterator[Sentence]:
    if lo >= hi:
        return
    shown: list[str] = []
    counted: list[str] = []
    prev_math = False
    for k in range(lo, hi):
        ch, kind = flat.chars[k], flat.kinds[k]
        if kind == _NOTE:
            continue
        shown.append(" " if kind == _BREAK else ch)
        if kind == _TEXT:
            counted.append(ch)
        elif kind == _MATH:
            if not prev_math:
                counted.append(" x ")
        else:
            counted.append(" ")
        prev_math = kind == _MATH
    words = sum(1 for tok in "".join(counted).split() if any(ch.isalnum() for ch in tok))
    if words < MIN_WORDS:
        return
    yield Sentence(
        text=" ".join("".join(shown).split()),
        words=words,
        has_provenance=any(flat.prov[lo:hi]),
        unverified=any(flat.unv[lo:hi]),
    )


# The filter's own additions; an unverified marker it decorated is still the writer's prose.
_WRITERS_OWN = frozenset({"citeledger-unverified"})


def _is_tool_output(classes: list[str]) -> bool:
    return any(c.startswith("citeledger-") and c not in _WRITERS_OWN for c in classes)
