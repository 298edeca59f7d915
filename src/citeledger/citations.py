"""Find every citation of a pandoc document: the ONE walk the filter and ``citeledger check`` share.

Both must agree on what a citation is and where it sits, or the report and the rendered document
would disagree, so there is exactly one walk over pandoc's JSON AST (API 1.23, pandoc 3.x). It
works on the raw ``json.load`` dicts — never panflute objects — because the filter runs on every
build of a thesis and converting the whole document would cost more than pandoc itself.

What counts: every citation item of every ``Cite`` in body blocks, notes, tables (caption, head,
body, foot cells), figures (caption and body), headings, lists, definition lists, block quotes,
divs, spans and link text, in document order; a ``Cite`` nested in another's prefix or suffix
belongs to the outer one. What does not count: metadata (``nocite``, a cite in ``title``), image
alt text (pandoc copies a figure's caption into its image's alt, so counting it would judge the
same words twice), cross-references (``@fig-…``/``@fig:…`` and the ``sec``, ``tbl``, ``eq``,
``lst`` kinds), and Cites the filter has already processed (inside a ``citeledger-cite`` Span:
that is what makes the filter idempotent; they still take their occurrence numbers).

This module must never do I/O, judge a citation, or change the document it is given.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from citeledger.model import CitationRef

Json = Any
Path = tuple[str | int, ...]

CROSSREF_PREFIXES = ("fig-", "sec-", "tbl-", "eq-", "lst-", "fig:", "sec:", "tbl:", "eq:", "lst:")
PROCESSED_CLASS = "citeledger-cite"  # the Span the filter wraps around a Cite it has handled
ATTRIBUTE_PREFIX = "citeledger-"  # element attributes that override options (see options.py)

_BLOCK_LEAVES = frozenset({"CodeBlock", "RawBlock", "HorizontalRule", "Null"})
_INLINE_LEAVES = frozenset({"Str", "Space", "SoftBreak", "LineBreak", "Code", "Math", "RawInline"})
_SIMPLE_INLINE_CONTAINERS = frozenset(
    {"Emph", "Underline", "Strong", "Strikeout", "Superscript", "Subscript", "SmallCaps"}
)


def is_crossref(key: str) -> bool:
    """Quarto (``fig-x``) and pandoc-crossref (``fig:x``) references are not citations."""
    return key.startswith(CROSSREF_PREFIXES)


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
    block_index: int = field(default=0, compare=False)

    @property
    def anchor(self) -> str:
        """The id of the inline flag (breakdowns); stable as long as the citation order is."""
        return f"citeledger-cite-{self.ref.occurrence}"

    @property
    def breakdown_anchor(self) -> str:
        return f"citeledger-breakdown-{self.ref.occurrence}"

    def attribute(self, name: str) -> str | None:
        for key, value in self.attributes:
            if key == ATTRIBUTE_PREFIX + name:
                return value
        return None


def find_citations(doc_json: dict[str, Json]) -> list[FoundCitation]:
    """Every non-crossref citation item of the document body, in document order."""
    walker = _Walker()
    blocks = doc_json.get("blocks")
    if isinstance(blocks, list):
        walker.blocks(blocks, ("blocks",), _Ctx.top())
    return walker.found


def resolve(doc_json: Json, path: Path) -> Json:
    """The node at ``path`` (a FoundCitation path) in ``doc_json``."""
    node = doc_json
    for step in path:
        node = node[step]
    return node


# --------------------------------------------------------------------------- plain text


def plain_text(inlines: Sequence[Json]) -> str:
    """Inlines as plain text, the way pandoc's ``stringify`` reads them (notes dropped)."""
    out: list[str] = []
    _text(inlines, out, None, claim=False)
    return _squash("".join(out))


def _text(
    inlines: Sequence[Json], out: list[str], marks: dict[int, int] | None, claim: bool
) -> None:
    """Append the text of ``inlines`` to ``out``; record where Cites and Notes stand in ``marks``.

    A mark is the number of pieces in ``out`` before the element (``_sentence`` turns it into a
    character offset), so marking costs nothing per element.

    In claim mode a normal citation contributes nothing (it is not part of the sentence's words)
    while an author-in-text one (``@doe says``) stands for its key, and images are skipped.
    """
    for el in inlines:
        if not isinstance(el, dict):
            continue
        t = el.get("t")
        c: Any = el.get("c")
        if t == "Str":
            out.append(c)
        elif t in ("Space", "SoftBreak", "LineBreak"):
            out.append(" ")
        elif t in ("Code", "Math"):
            out.append(c[1])
        elif t in _SIMPLE_INLINE_CONTAINERS:
            _text(c, out, marks, claim)
        elif t == "Quoted":
            single = c[0].get("t") == "SingleQuote"
            out.append("‘" if single else "“")
            _text(c[1], out, marks, claim)
            out.append("’" if single else "”")
        elif t in ("Span", "Link"):
            _text(c[1], out, marks, claim)
        elif t == "Image":
            if not claim:
                _text(c[1], out, marks, claim)
        elif t == "Cite":
            if marks is not None:
                marks[id(el)] = len(out)
            if not claim:
                _text(c[1], out, marks, claim)
            else:
                items = c[0]
                if items and items[0].get("citationMode", {}).get("t") == "AuthorInText":
                    out.append("@" + items[0].get("citationId", ""))
        elif t == "Note" and marks is not None:
            marks[id(el)] = len(out)
        # RawInline and unknown inlines carry no prose


_SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?)\]»”’])")
_SPACE_AFTER_OPEN = re.compile(r"([(\[«“‘])\s+")
_WS = re.compile(r"\s+")


def _squash(text: str) -> str:
    text = _WS.sub(" ", text)
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", text)
    text = _SPACE_AFTER_OPEN.sub(r"\1", text)
    return text.strip()


# --------------------------------------------------------------------------- sentences


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


_ABBREVIATIONS = _wordset(
    "al e.g i.e cf vs etc fig figs eq eqs tab sec secs ch chap no nos vol vols p pp dr mr mrs ms"
    " prof st jr sr approx ca resp ed eds repr trans esp viz ibid op"
)
_END = re.compile(r"[.!?…]+[\"'”’»)\]]*(?=\s|$)")
_WORD_BEFORE = re.compile(r"([\w.]+)$")
_HAS_WORD = re.compile(r"\w")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentence boundaries of ``text`` (start, end) by punctuation, minding abbreviations."""
    spans: list[tuple[int, int]] = []
    start = 0
    n = len(text)
    for m in _END.finditer(text):
        end = m.end()
        rest = text[end:].lstrip()
        if rest and not (rest[0].isupper() or rest[0].isdigit() or rest[0] in "\"“‘'([«¿¡"):
            continue  # lower case follows: an abbreviation or a mid-sentence period
        if text[m.start()] == ".":
            before = _WORD_BEFORE.search(text, max(0, m.start() - 24), m.start())
            word = before.group(1).lower().rstrip(".") if before else ""
            if word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
                continue
        spans.append((start, end))
        start = end
        while start < n and text[start].isspace():
            start += 1
    if start < n:
        spans.append((start, n))
    return spans or [(0, n)]


def _sentence_at(text: str, spans: list[tuple[int, int]], pos: int) -> tuple[int, int]:
    """The sentence holding offset ``pos``; a citation just after a full stop belongs before it."""
    chosen = spans[0]
    for span in spans:
        if span[0] <= pos:
            chosen = span
        else:
            break
    if chosen[0] == pos and chosen is not spans[0]:
        # "Claim. [@key] Next." → the citation closes the previous sentence
        index = spans.index(chosen)
        chosen = spans[index - 1]
    return chosen


_NOTE_CONNECTIVES = _wordset(
    "see also cf e.g eg for example and compare but contra accord i.e ie more on details"
)
_AUTHOR_IN_TEXT = re.compile(r"@\S+")


def _is_citation_only(sentence: str) -> bool:
    """A note sentence made of citations and connectives (``^[See also @key.]``) has no claim."""
    words = re.findall(r"[\w.]+", _AUTHOR_IN_TEXT.sub("", sentence).lower())
    return all(w.strip(".") in _NOTE_CONNECTIVES or not _HAS_WORD.search(w) for w in words)


class _BlockText(NamedTuple):
    text: str
    marks: dict[int, int]
    spans: list[tuple[int, int]]
    sentences: dict[tuple[int, int], str]  # squashed sentence text, per span, on demand


# --------------------------------------------------------------------------- locators

_PAGE = "page"
_TERM_FORMS = {
    "book": "bk. bks. book books",
    "chapter": "ch. chs. chap. chaps. chapter chapters",
    "column": "col. cols. column columns",
    "figure": "fig. figs. figure figures",
    "folio": "fol. fols. folio folios",
    "issue": "no. nos. number numbers issue issues",
    "line": "l. ll. line lines",
    "note": "n. nn. note notes",
    "opus": "op. opp. opus opera",
    "page": "p. pp. p pp pg. pgs. page pages",
    "paragraph": "para. paras. paragraph paragraphs ¶ ¶¶",
    "part": "pt. pts. part parts",
    "section": "sec. secs. section sections § §§",
    "sub verbo": "s.v. s.vv. sub_verbo sub_verbis",
    "verse": "v. vv. verse verses",
    "volume": "vol. vols. volume volumes",
}  # CSL's locator terms (en-US long, short and symbol forms) plus "ch."; "_" stands for a space
_LOCATOR_TERMS: Mapping[str, str] = {
    form.replace("_", " "): term for term, forms in _TERM_FORMS.items() for form in forms.split()
}

_SELECTOR = re.compile(r"(?<!\S)quote:([\w-]+(?:[.:][\w-]+)*)")
_ROMAN = re.compile(
    r"^(?=[ivxlcdm]+$)m{0,4}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$", re.IGNORECASE
)
_UNIT = re.compile(r"^[\w()\[\]{}.:\-–—‐§]+$")
_NON_ALNUM = re.compile(r"[^0-9A-Za-z]+")


@dataclass(frozen=True)
class Locator:
    """A pinpoint as citeproc reads it: the CSL term (``page``, ``section``…) and its value."""

    label: str
    value: str
    raw: str  # as written, whitespace collapsed: "p. 14", "pp. 3–5", "§ 4", "89"


def parse_locator(suffix_text: str) -> tuple[Locator | None, str]:
    """Split a citation suffix into its locator and the rest, following pandoc's citeproc.

    Accepts ``, p. 14``, ``pp. 3–5``, ``sec. 2``, ``ch. 3``, ``§ 4``, ``§4``, ``p.3``, a bare
    ``89`` (an implicit page, digits required), and the delimited form ``{35-89, 102}`` or
    ``p. {(a)}``. Anything after the locator is suffix. Without a locator the whole text is
    returned as the rest.
    """
    text = _WS.sub(" ", suffix_text.replace("\xa0", " ")).strip()
    body = text[1:].lstrip() if text.startswith(",") else text
    delimited = _parse_delimited(body)
    if delimited is not None:
        return delimited
    integrated = _parse_integrated(body)
    if integrated is not None:
        return integrated
    return None, text


def _match_label(words: list[str]) -> tuple[str, int, str] | None:
    """The longest locator term at the start of ``words``: (term, words used, text matched)."""
    if len(words) >= 2:
        two = f"{words[0]} {words[1]}".lower()
        if two in _LOCATOR_TERMS:
            return _LOCATOR_TERMS[two], 2, f"{words[0]} {words[1]}"
    if words and words[0].lower() in _LOCATOR_TERMS:
        return _LOCATOR_TERMS[words[0].lower()], 1, words[0]
    return None


def _split_glued_label(words: list[str]) -> list[str]:
    """``p.3`` and ``§4`` carry their label glued to the value; citeproc splits them."""
    if not words:
        return words
    first = words[0]
    if first[:1] in "§¶" and len(first) > 1 and first[1:2] not in "§¶":
        return [first[0], first[1:], *words[1:]]
    dot = first.rfind(".")
    if 0 < dot < len(first) - 1 and first[: dot + 1].lower() in _LOCATOR_TERMS:
        return [first[: dot + 1], first[dot + 1 :], *words[1:]]
    return words


def _is_unit(word: str, explicit: bool) -> bool:
    """A locator word as citeproc accepts it: digits, or a roman numeral after an explicit label."""
    if not word or not _UNIT.match(word):
        return False
    if word.count("(") != word.count(")") or word.count("[") != word.count("]"):
        return False
    if any(ch.isdigit() for ch in word):
        return True
    return explicit and any(_ROMAN.match(part) for part in _NON_ALNUM.split(word) if part)


def _parse_integrated(body: str) -> tuple[Locator, str] | None:
    words = _split_glued_label(body.split(" ")) if body else []
    label = _match_label(words)
    term, used, label_text = label if label is not None else (_PAGE, 0, "")
    values: list[str] = []
    i = used
    while i < len(words):
        word, sep = words[i], ""
        if len(word) > 1 and word[-1] in ",;":
            word, sep = word[:-1], word[-1]
        if not _is_unit(word, explicit=label is not None):
            break
        values.append(word + sep)
        i += 1
    if not values:
        return None
    last = values[-1]
    trailing = last[-1] if last[-1] in ",;" else ""
    if trailing:
        values[-1] = last[:-1]  # a separator not followed by another unit belongs to the suffix
    value = " ".join(values)
    rest = " ".join(words[i:])
    if trailing and rest:
        rest = f"{trailing} {rest}"
    return Locator(term, value, f"{label_text} {value}".strip()), rest


def _parse_delimited(body: str) -> tuple[Locator, str] | None:
    brace = body.find("{")
    if brace < 0:
        return None
    label_text = body[:brace].strip()
    if label_text and label_text.lower() not in _LOCATOR_TERMS:
        return None
    depth = 0
    for j in range(brace, len(body)):
        if body[j] == "{":
            depth += 1
        elif body[j] == "}":
            depth -= 1
            if depth == 0:
                inner = body[brace + 1 : j].strip()
                rest = body[j + 1 :].strip()
                break
    else:
        return None
    term = _LOCATOR_TERMS[label_text.lower()] if label_text else _PAGE
    if not label_text:
        words = inner.split(" ")
        label = _match_label(words)
        if label is not None:
            term, used, label_text = label
            inner = " ".join(words[used:])
    if not inner and not label_text:
        return None
    raw = f"{label_text} {inner}".strip()
    return Locator(term, inner, raw), rest


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


class _Ctx(NamedTuple):
    """Where the walk is: the callout position and what encloses the current element."""

    host_path: Path
    host_after: int
    fixed: bool  # inside a table or figure: callouts go after it, whatever nests inside
    where: tuple[str, ...]
    attributes: tuple[tuple[str, str], ...]
    in_link: bool
    note_parent: _NoteParent | None  # the note we are in: its path, the block holding it

    @staticmethod
    def top() -> _Ctx:
        return _Ctx(("blocks",), -1, False, (), (), False, None)

    def enter(self, name: str) -> _Ctx:
        return self._replace(where=(*self.where, name))


_LIST_NAMES = {"BulletList": "bullet-list", "OrderedList": "ordered-list"}


class _Walker:
    def __init__(self) -> None:
        self.found: list[FoundCitation] = []
        self.occurrence = 0
        self._texts: dict[int, _BlockText] = {}

    # blocks ----------------------------------------------------------------

    def blocks(self, blocks: list[Json], path: Path, ctx: _Ctx) -> None:
        for i, block in enumerate(blocks):
            if not isinstance(block, dict):
                continue
            t = block.get("t")
            if t in _BLOCK_LEAVES:
                continue
            here = ctx if ctx.fixed else ctx._replace(host_path=path, host_after=i)
            self.block(block, (*path, i), here)

    def block(self, block: Json, path: Path, ctx: _Ctx) -> None:
        t = block.get("t")
        c: Any = block.get("c")
        if t in ("Para", "Plain"):
            self.inlines(c, (*path, "c"), ctx.enter(t.lower()), block)
        elif t == "Header":
            self.inlines(c[2], (*path, "c", 2), ctx.enter("heading"), block)
        elif t == "LineBlock":
            inner = ctx.enter("line-block")
            for j, line in enumerate(c):
                self.inlines(line, (*path, "c", j), inner, block)
        elif t == "BlockQuote":
            self.blocks(c, (*path, "c"), ctx.enter("block-quote"))
        elif t == "Div":
            self.blocks(c[1], (*path, "c", 1), self._with_attributes(ctx.enter("div"), c[0]))
        elif t in _LIST_NAMES:
            items, base = (c[1], (*path, "c", 1)) if t == "OrderedList" else (c, (*path, "c"))
            inner = ctx.enter(_LIST_NAMES[t])
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
            self._unknown(c, path, ctx._replace(fixed=True))

    def _definition_list(self, items: list[Json], path: Path, ctx: _Ctx) -> None:
        inner = ctx.enter("definition-list")
        for j, (term, definitions) in enumerate(items):
            if definitions and not ctx.fixed:
                term_ctx = inner._replace(host_path=(*path, "c", j, 1, 0), host_after=-1)
            else:
                term_ctx = inner
            term_block = {"t": "Plain", "c": term}
            self.inlines(term, (*path, "c", j, 0), term_ctx.enter("term"), term_block)
            for k, definition in enumerate(definitions):
                self.blocks(definition, (*path, "c", j, 1, k), inner.enter("definition"))

    def _caption(self, caption: Json, path: Path, ctx: _Ctx) -> None:
        inner = ctx.enter("caption")
        short, long = caption[0], caption[1]
        if short:
            self.inlines(short, (*path, 0), inner, {"t": "Plain", "c": short})
        self.blocks(long, (*path, 1), inner)

    def _table(self, c: list[Json], path: Path, ctx: _Ctx) -> None:
        self._caption(c[1], (*path, "c", 1), ctx)
        cells = ctx.enter("cell")
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

    def inlines(self, inlines: list[Json], path: Path, ctx: _Ctx, block: Json) -> None:
        for i, el in enumerate(inlines):
            if not isinstance(el, dict):
                continue
            t = el.get("t")
            if t in _INLINE_LEAVES:
                continue
            c: Any = el.get("c")
            if t == "Cite":
                self._cite(el, (*path, i), ctx, block)
            elif t in _SIMPLE_INLINE_CONTAINERS:
                self.inlines(c, (*path, i, "c"), ctx, block)
            elif t == "Quoted":
                self.inlines(c[1], (*path, i, "c", 1), ctx, block)
            elif t == "Span":
                if PROCESSED_CLASS in c[0][1]:
                    self._skip_processed(c[1])
                else:
                    self.inlines(c[1], (*path, i, "c", 1), self._with_attributes(ctx, c[0]), block)
            elif t == "Link":
                self.inlines(c[1], (*path, i, "c", 1), ctx._replace(in_link=True), block)
            elif t == "Note":
                note_ctx = ctx._replace(
                    fixed=False,
                    where=(*ctx.where[:-1], "note"),
                    note_parent=_NoteParent(block, ctx, el, (*path, i)),
                )
                self.blocks(c, (*path, i, "c"), note_ctx)
            # Image: alt text is not prose (see the module docstring)

    def _skip_processed(self, inlines: list[Json]) -> None:
        """Count the items of an already-processed Cite so later numbers stay stable."""
        for el in inlines:
            if isinstance(el, dict) and el.get("t") == "Cite":
                for _ in self._items(el, ()):
                    self.occurrence += 1

    def _items(self, cite: Json, path: Path) -> Iterator[tuple[Json, Path]]:
        """The non-crossref citation items of a Cite, nested ones in their textual place."""
        for j, item in enumerate(cite["c"][0]):
            item_path = (*path, "c", 0, j)
            prefix = item.get("citationPrefix") or []
            yield from self._nested(prefix, (*item_path, "citationPrefix"))
            if not is_crossref(item.get("citationId", "")):
                yield item, item_path
            suffix = item.get("citationSuffix") or []
            yield from self._nested(suffix, (*item_path, "citationSuffix"))

    def _nested(self, inlines: list[Json], path: Path) -> Iterator[tuple[Json, Path]]:
        for i, el in enumerate(inlines):
            if isinstance(el, dict) and el.get("t") == "Cite":
                yield from self._items(el, (*path, i))

    def _cite(self, cite: Json, path: Path, ctx: _Ctx, block: Json) -> None:
        host_ctx, claim_at = ctx, None
        claim: str | None = None
        for item, rel in self._items(cite, ()):
            self.occurrence += 1
            if claim is None:
                claim, host_ctx, claim_at = self._claim(block, cite, ctx)
            suffix_text = plain_text(item.get("citationSuffix") or [])
            selector, suffix_text = parse_selector(suffix_text)
            locator, _ = parse_locator(suffix_text)
            ref = CitationRef(
                key=item.get("citationId", ""),
                locator=locator.raw if locator else None,
                selector=selector,
                mode=(item.get("citationMode") or {}).get("t", "NormalCitation"),
                claim=claim,
                occurrence=self.occurrence,
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
                    block_index=int(path[1]),
                )
            )

    def _claim(self, block: Json, target: Json, ctx: _Ctx) -> tuple[str, _Ctx, Path | None]:
        """The sentence carrying ``target``, the context whose host gets the callout, and where
        the claim stands when that is not at the citation (the path of a Note).

        A note made only of citations (``^[@key]``, ``^[See also @key.]``) supports the sentence
        the note is attached to: that sentence is the claim and the callout goes after its block.
        """
        sentence = self._sentence(block, target)
        parent = ctx.note_parent
        if parent is not None and _is_citation_only(sentence):
            claim, host_ctx, at = self._claim(parent.block, parent.note, parent.ctx)
            return claim, host_ctx, at or parent.path
        return sentence, ctx, None

    def _sentence(self, block: Json, target: Json) -> str:
        cached = self._texts.get(id(block))
        if cached is None:
            out: list[str] = []
            marks: dict[int, int] = {}
            for inlines in _block_inlines(block):
                _text(inlines, out, marks, claim=True)
                out.append(" ")
            text = "".join(out)
            offsets = [0]
            for piece in out:
                offsets.append(offsets[-1] + len(piece))
            marks = {key: offsets[index] for key, index in marks.items()}
            cached = _BlockText(text, marks, sentence_spans(text), {})
            self._texts[id(block)] = cached
        span = _sentence_at(cached.text, cached.spans, cached.marks.get(id(target), 0))
        sentence = cached.sentences.get(span)
        if sentence is None:
            sentence = cached.sentences[span] = _squash(cached.text[span[0] : span[1]])
        return sentence


def _block_inlines(block: Json) -> list[list[Json]]:
    t = block.get("t")
    c: Any = block.get("c")
    if t in ("Para", "Plain"):
        return [c]
    if t == "Header":
        return [c[2]]
    if t == "LineBlock":
        return list(c)
    return []
