"""The locator: find the writer's quote in the extracted source text, or refuse.

This is the function "checked" rests on. A quote is found when its words ARE the source's words
up to formatting: exactly; after normalisation (``citeledger.locate.normalize``: whitespace,
ligatures, smart quotes, dashes, hyphenation, zero-width characters; the quote's first letter
may differ in case); with the writer's marked alterations (``[T]he``, ``[sic]``, ``…`` for
omitted words); or, for quotes of five words or more, at a fuzzy candidate whose token-level
difference from the quote is spacing, hyphenation, punctuation or case and nothing else.

Must never: report found for a quote whose numbers, units, negations, names or words differ from
the source, however similar (a changed "60", a dropped "not", a spliced sentence are refusals,
with the nearest candidate and the differences named); report offsets into anything but the
ORIGINAL text; do I/O; keep state between calls (a ``Prepared`` text may memoise views derived
from it, such as its lower-case form, and nothing else).
"""

from __future__ import annotations

import bisect
import dataclasses
import html
import re
import unicodedata
from collections.abc import Sequence
from difflib import SequenceMatcher
from typing import NamedTuple

from rapidfuzz import fuzz

from citeledger.locate.asides import harmless_aside
from citeledger.locate.context import (
    cut_problem,
    is_description,
    is_name,
    referent_problem,
    repeats_source,
)
from citeledger.locate.edits import CUT_REASON
from citeledger.locate.layout import bridges, interruptions, joined_words
from citeledger.locate.normalize import DASHES, Prepared, normalize_for_match, prepare
from citeledger.locate.numbers import cut_number_problem
from citeledger.locate.omissions import omission_problem
from citeledger.locate.wordlists import (
    APPROXIMATOR_PHRASES,
    APPROXIMATORS,
    AUXILIARIES,
    BACK_REFERENCES,
    CLAUSE_OPENERS,
    FUNCTION_WORDS,
    INSERTIONS,
    NEGATIONS,
    NUMBER_WORDS,
    REFERENCES,
    SYMBOLS,
    clause_joint,
    determiner_for_more,
    first_meaningful,
    is_negation,
    is_reference,
)
from citeledger.model import Edit, LocateResult
from citeledger.sentence_end import (
    CLOSERS,
    TERMINALS,
    is_abbreviation,
    sentence_ends,
    word_before,
)
from citeledger.sentence_end import sentence_end as source_sentence_end

__all__ = [
    "NEGATIONS",
    "Prepared",
    "locate",
    "locate_prepared",
    "normalize_for_match",
    "prepare",
]

MIN_FUZZY_WORDS = 5  # shorter quotes must match exactly or after normalisation
MAX_FUZZY_WORDS = 150  # longer ones too: aligning them costs more than it could ever save
ELLIPSIS_MAX_GAP = 1000  # characters of omitted text allowed between two fragments
SHORT_FRAGMENT_WORDS = 3  # fragments shorter than this must sit right beside the omission
SHORT_FRAGMENT_GAP = 80
BRACKET_MAX_WORDS = 4  # a bracketed alteration stands for at most this many source words
FURNITURE_MIN_PAGES = 3  # a page's first/last line is a running header/footer if it recurs
MAX_HITS_WITH_HINT = 256
PRECISE_ALIGN_CHARS = 240  # up to this length a quote is aligned character by character
ANCHOR_MAX_HITS = 40  # occurrences of one anchor n-gram considered
_SHORT_STRETCH = 4096  # characters: searched without asking the text's piece counts first


def _wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Little words: they never make a split form harmless ("a part" is not "apart"), and they word
# a difference's message. Every difference in a word refuses, little or not.
STOPWORDS = _wordset(
    """
    a an the of to in on at by for from with as and or but if then than that this these those
    it its is are was were be been being has have had do does did which who whom whose what
    there their they he she we you i his her our your my me us them any every some all may out
    up over down off so also how when where ever one
    """
)

_ELLIPSIS = re.compile(r"\s*(?:\[\s*(?:\.\s*){3,}\]|\[\s*…\s*\]|…|\.(?:\s?\.){2,})\s*")
_BRACKET = re.compile(r"\[([^\[\]]{0,60})\]")
_EDGE_PUNCT = ".,;:'\" "
# Where a sentence or clause ends inside omitted text: a negation beyond it is not the quoted
# sentence's own.
_SENTENCE_END = re.compile(r"[.!?:;][\"')\]\u201d\u2019]*\s|\n[^\S\n]*\n")
_SUPERSCRIPTS = "¹²³\u2070-\u209f"
# Symbols are tokens (docs/editorial-marks.md): the listed ones and every mathematical symbol.
_SYMBOL_CLASS = re.escape(
    "".join(
        dict.fromkeys(
            SYMBOLS
            + "".join(chr(c) for c in range(0x80, 0x2C00) if unicodedata.category(chr(c)) == "Sm")
        )
    )
)
_TOKEN = re.compile(
    rf"(?P<num>\d+(?:[.,]\d+)*)"
    rf"|(?P<word>[^\W\d_{_SUPERSCRIPTS}]+(?:'[^\W\d_{_SUPERSCRIPTS}]+)*)"
    rf"|(?P<sup>[{_SUPERSCRIPTS}]+)"
    rf"|(?P<sym>[{_SYMBOL_CLASS}])"
    r"|(?P<dash>-)"
    r"|(?P<neq>!=)"
)
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_ALNUM = re.compile(r"[^\W_]")
_JOIN_MARKS = re.compile(r"[-\u00ad\u2010\u2011\u2012\u2013\u2014]")


class _Tok(NamedTuple):
    key: str  # what is compared: lower-cased; numbers keep their sign
    start: int  # offsets in the string tokenised (normalised)
    end: int
    kind: str  # "num" | "word" | "sym"
    raw: str  # as written, for messages


def locate(
    text: str, quote: str, *, page_starts: Sequence[int] = (), hint: int | None = None
) -> LocateResult:
    """Find ``quote`` in ``text``; offsets are code points of ``text`` itself."""
    return locate_prepared(prepare(text), quote, page_starts=page_starts, hint=hint)


def locate_prepared(
    prepared: Prepared,
    quote: str,
    *,
    page_starts: Sequence[int] = (),
    hint: int | None = None,
) -> LocateResult:
    """``locate`` on a text normalised once by ``prepare`` (for many quotes in one text).

    With ``page_starts``, a quote that runs across a page break is also looked for with the
    pages' running headers and footers (lines that recur at the top or bottom of pages) taken
    out of the flow; the span reported still covers the source as it is, header included.
    HTML entities typed into the quote (``&nbsp;``, ``&amp;``, ``&#8217;``) are decoded first.
    """
    decoded = _decoded(quote)
    if decoded != quote:
        got = _locate_unmarked(prepared, decoded, page_starts, hint)
        if got.found:
            return got
        literal = _locate_unmarked(prepared, quote, page_starts, hint)
        return literal if literal.found else got
    return _locate_unmarked(prepared, quote, page_starts, hint)


_ENTITY = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});")


def _decoded(quote: str) -> str:
    """Entities typed into the quote decoded, and its accents composed (NFC): "tête" typed
    as "te\u0302te" is the same text."""
    q = html.unescape(quote) if "&" in quote and _ENTITY.search(quote) else quote
    return q if unicodedata.is_normalized("NFC", q) else unicodedata.normalize("NFC", q)


def _locate_paged(
    prepared: Prepared, quote: str, page_starts: Sequence[int], hint: int | None
) -> LocateResult:
    result = _locate(prepared, quote, hint)
    if result.found:
        return result
    # the pages' running headers set aside (one line, then a header block of several lines that
    # recur, "… Act of 1998" / "Copyright Office Summary December 1998 Page 6" — after the
    # one-line reading, which a quote that keeps the second line needs), then the lines the
    # layout set inside a sentence too (a caption the quote holds after a header is the quote's)
    for depth, layout in ((1, False), (_FURNITURE_LINES, False), (1, True)):
        if layout and not bridges(normalize_for_match(quote), _layout_joins(prepared)):
            continue  # the quote runs across none of the layout's lines: no view to try
        if not layout and not page_starts:
            continue
        view = _without_furniture(prepared, page_starts, depth, layout)
        if view is not None:
            got = _in_view(prepared, quote, hint, view, result, page_starts)
            if got.found:
                return got
            result = got
    return result


def _in_view(
    prepared: Prepared,
    quote: str,
    hint: int | None,
    view: tuple[Prepared, _View],
    result: LocateResult,
    page_starts: Sequence[int],
) -> LocateResult:
    """The quote found in ``view`` (the text with lines set aside), as a span of the source, or
    the refusal that says more."""
    sub, back = view
    again = _locate(sub, quote, None if hint is None else _to_view(back, hint))
    if not again.found or again.char_start is None or again.char_end is None:
        if again.candidate and (
            not result.candidate or (len(again.differences) < len(result.differences))
        ):
            return again  # its nearest passage, without the header in the way, says more
        return result
    cs, ce = _from_view(back, again.char_start), _from_view(back, again.char_end - 1) + 1
    if ce - cs == again.char_end - again.char_start:
        return result  # no line set aside is inside this span: nothing was skipped for it
    paged = any(cs < p < ce for p in page_starts)
    return _mapped_back(
        prepared,
        back,
        again,
        "skipped a running header or footer at a page break"
        if paged
        else "skipped a footnote marker or a figure the layout set inside the sentence",
    )


def _mapped_back(prepared: Prepared, back: _View, again: LocateResult, why: str) -> LocateResult:
    """A quote found in a view of the source (page furniture or note markers taken out),
    its span and edits given in the source as it is."""
    assert again.char_start is not None and again.char_end is not None
    cs, ce = _from_view(back, again.char_start), _from_view(back, again.char_end - 1) + 1
    edits = tuple(
        Edit(
            e.kind,
            e.quote_text,
            e.source_text,
            _from_view(back, e.char_start),
            _from_view(back, e.char_start) + (e.char_end - e.char_start),
        )
        for e in again.edits
    )
    return LocateResult(
        edits=edits,
        found=True,
        match="normalized" if again.match == "exact" else again.match,
        char_start=cs,
        char_end=ce,
        source_quote=prepared.text[cs:ce],
        score=again.score,
        ambiguous=again.ambiguous,
        reason=why + (f"; {again.reason}" if again.reason else ""),
    )


def _locate_unmarked(
    prepared: Prepared, quote: str, page_starts: Sequence[int], hint: int | None
) -> LocateResult:
    """The search, then again without the source's note markers ("alerts,²² and", "US$1,000[23]
    in 2008"), where the quote leaves them out: a reference mark is the page's apparatus, not
    the author's words (docs/editorial-marks.md)."""
    result = _locate_paged(prepared, quote, page_starts, hint)
    if result.found or not (result.candidate and _NOTE_MARKER.search(result.candidate)):
        return result  # the nearest passage holds no marker: leaving one out is not the cause
    view = _without_markers(prepared)
    if view is None:
        return result
    sub, back = view
    again = _locate_paged(
        sub,
        quote,
        tuple(_to_view(back, p) for p in page_starts),
        None if hint is None else _to_view(back, hint),
    )
    if not again.found or again.char_start is None or again.char_end is None:
        return result
    cs, ce = _from_view(back, again.char_start), _from_view(back, again.char_end - 1) + 1
    if not any(cs < m.start() < ce for m in _NOTE_MARKER.finditer(prepared.text, cs, ce)):
        return result  # no marker inside this span: nothing was left out for it
    return _mapped_back(prepared, back, again, "left out the source's note markers")


# A note marker: superscript digits after punctuation or a word of three letters or more
# ("alerts,²²", "Workqueue²³ is"; not "m²", "x² + y²": a unit's or a variable's power), or a
# bracketed number right after a word of two letters or more, a number or punctuation
# ("2014[27] and", "marriage.[24]"; not "a[3]"); either before a mark, a word or the line's
# end ("arr[23] = 5", "x² + 1" are an index and a power).
_NOTE_MARKER = re.compile(
    r"(?:(?<=[.,;:!?)\]\"'\u201d\u2019])|(?<=[^\W\d_]{3}))[\u00b9\u00b2\u00b3\u2070\u2074-\u2079]+"
    r"(?=[.,;:!?)]|\s+[^\W\d_]|\s*$)"
    r"|(?:(?<=[^\W\d_]{2})|(?<=[\d.,;:!?)\"'\u201d\u2019]))\[\d{1,3}\](?=[.,;:!?)]|\s+[^\W\d_]|\s*$)",
    re.MULTILINE,
)


def _without_markers(prepared: Prepared) -> tuple[Prepared, _View] | None:
    cache = prepared.cache
    if "markers" not in cache:
        ranges = [m.span() for m in _NOTE_MARKER.finditer(prepared.text)]
        cache["markers"] = _view_without(prepared.text, ranges) if ranges else None
    return cache["markers"]  # type: ignore[no-any-return]


def _locate(prepared: Prepared, quote: str, hint: int | None) -> LocateResult:
    """The search, then the marks no token comparison sees: the quote's hyphens and quotation
    marks must be the source's (docs/editorial-marks.md)."""
    res = _locate_inner(prepared, quote, hint)
    if not res.found or res.char_start is None or res.char_end is None:
        return res
    raw = quote.strip()
    problem = cut_number_problem(raw, prepared.text, res.char_start, res.char_end)
    if problem is None:
        problem = _paragraph_problem(raw, prepared.text[res.char_start : res.char_end])
    if problem is None:
        problem = _edge_problem(raw, prepared.text, res.char_start, res.char_end)
    reason = "the quote is not in the source"
    if problem is None:
        problem = cut_problem(prepared.text, res.char_start, res.char_end, raw)
        if problem is None and res.edits:
            problem = referent_problem(prepared.text, res.edits)
        if problem is not None:
            # its words are there: what the writer must hear is why they are not the claim
            reason = CUT_REASON
    # an exact match is the quote's own characters: its hyphens and marks are the source's
    if problem is None and res.match != "exact":
        problem = _hyphen_problem(raw, prepared.text, res.char_start, res.char_end)
    if problem is None and res.match != "exact":
        problem = _dropped_hyphen_problem(raw, prepared.text[res.char_start : res.char_end])
    if problem is None and res.match == "fuzzy":
        problem = _quote_mark_problem(raw, prepared.text[res.char_start : res.char_end])
    if problem is None:
        return res
    return LocateResult(
        found=False,
        candidate=res.source_quote,
        score=res.score,
        differences=(problem,),
        reason=reason,
    )


# The source's word right after the quote, with nothing but a space or a line break between:
# its scope runs into the quote.
_WORD_AFTER_QUOTE = re.compile(r"[^\S\n]*(?:\n[^\S\n]*)?([^\W\d_]+(?:['\u2019][^\W\d_]+)*)")
# The source's sentence goes on after the quote: a word on the same line, or on the next line
# in lower case (a wrapped line), closing marks of its own before it at most.
_GOES_ON = re.compile(r"[\"'\u201d\u2019)\]]*(?:[^\S\n]*[^\W_]|[^\S\n]*\n[^\S\n]*[^\W\d_A-Z])")
_CLOSERS = "\"')]}\u201d\u2019 "


def _edge_problem(raw: str, text: str, cs: int, ce: int) -> str | None:
    """A quote must not mean what its source does not by where it starts or stops: it may not
    start right after the source's negation ("entitled to the same rights" of "not entitled
    to ..."), nor stop right before one ("she did" of "she did not"), nor end with a full stop
    of its own where the source's sentence goes on ("every minute." of "every minute until
    ..."): the words beside it reverse or qualify what it says."""
    if cs > 0 and text[cs - 1].isspace():
        # the word before, as it stands ("not," is punctuated); a negation is short, so a
        # word the 16 characters cut is none
        head = text[max(0, cs - 16) : cs]
        words = head.split()
        word = words[-1:] if len(words) > 1 or cs <= 16 or not text[cs - 17].isalnum() else []
        if (
            word
            and head.count("\n", len(head.rstrip())) <= 1  # a blank line ends its scope
            and is_negation(word[0].lstrip("(\"'\u201c\u2018"))
        ):
            return (
                f"the quote starts right after the source's '{word[0]}', which reverses or "
                "qualifies it: quote from that word"
            )
    if ce >= len(text):
        return None
    if text[ce - 1].isalnum():  # no punctuation of the source's closes the quote
        m = _WORD_AFTER_QUOTE.match(text, ce)
        if m is not None and is_negation(m.group(1)):
            return (
                f"the quote stops right before the source's '{m.group(1)}', which reverses or "
                "qualifies it: quote up to the end of that phrase"
            )
    body = raw.rstrip(_CLOSERS)
    if body.endswith((".", "!", "?")) and not body.endswith(("..", ". .")):
        k = ce
        while k > cs and text[k - 1] in _CLOSERS:
            k -= 1
        if text[k - 1] not in ".!?" and _GOES_ON.match(text, ce):
            return (
                "the quote ends with a full stop of its own where the source's sentence goes "
                "on: end the quote without it, or quote the rest of the sentence"
            )
    return None


def _paragraph_problem(raw: str, span: str) -> str | None:
    """A quote runs across no more paragraph breaks than it shows: whitespace folding must not
    join the end of one block (a list item, a heading, a paragraph) to the start of the next,
    "Aspirin: Recommended for children" of a list under "Not recommended" and a heading.
    Pages are joined by a form feed, not a blank line: a page break is not a paragraph break."""
    span = span.strip()  # a span may take in the whitespace at its edges: not crossed
    if "\n" not in span:
        return None
    breaks = sum(len(_PARAGRAPH.findall(page)) for page in span.split("\f"))
    if breaks <= len(_PARAGRAPH.findall(raw.replace("\r\n", "\n"))):
        return None
    return "the quote runs across a paragraph break in the source"


def _dropped_hyphen_problem(raw: str, span: str) -> str | None:
    """The converse of :func:`_hyphen_problem`: a hyphen the source prints inside a line must
    be in the quote ("resign" is not "re-sign", "recover" not "re-cover"). A hyphen at a line
    end is the layout's and may go."""
    if "-" not in span and "\u2010" not in span and "\u2011" not in span:
        return None
    quoted: list[str] | None = None
    for m in _COMPOUND.finditer(span):
        joined = "".join(_HYPHEN.split(m.group())).casefold()
        if quoted is None:
            quoted = [w.casefold() for w in _LETTERS.findall(raw)]
        # more joined forms in the quote than the source has unhyphenated in that span
        if quoted.count(joined) > [w.casefold() for w in _LETTERS.findall(span)].count(joined):
            return f"the quote leaves out the hyphen of '{m.group()}' in the source"
    return None


_LETTERS = re.compile(r"[^\W\d_]+")


_BRACKETED = re.compile(r"\[[^\[\]]*\]")
_COMPOUND = re.compile(r"[^\W\d_]+(?:[-\u2010\u2011][^\W\d_]+)+")
_HYPHEN = re.compile(r"[-\u2010\u2011]")
_INNER_HYPHEN = re.compile(r"[^\W\d_][-\u2010\u2011][^\W\d_]")
_SOURCE_JOIN = "(?:[" + re.escape(DASHES + "\u00ad") + r"]\s*|\u00ad)"


def _inner_hyphen(raw: str) -> bool:
    """Whether a hyphen stands between two letters: ``str.find`` from hyphen to hyphen (a
    pattern would try every position of the quote)."""
    if "\u2010" in raw or "\u2011" in raw:
        return _INNER_HYPHEN.search(raw) is not None
    i = raw.find("-")
    while i > 0:
        if raw[i - 1].isalpha() and raw[i + 1 : i + 2].isalpha():
            return True
        i = raw.find("-", i + 1)
    return i == 0 and _INNER_HYPHEN.search(raw) is not None


def _hyphen_problem(raw: str, text: str, cs: int, ce: int) -> str | None:
    """A hyphen the quote has must be in the source there ("re-act" is not "react"): as a
    hyphen or dash, or as a line-break hyphen of the source's layout."""
    if not _inner_hyphen(raw):
        return None  # no hyphen between two letters ("-\n" at a line end is not one)
    lo, hi = max(0, cs - 40), ce + 40
    plain = _BRACKETED.sub(" ", raw) if "[" in raw else raw
    # the words with a hyphen, one by one (a regex over the whole quote costs more)
    words = [
        m.group()
        for tok in plain.split()
        if "-" in tok or "\u2010" in tok or "\u2011" in tok
        for m in _COMPOUND.finditer(tok)
    ]
    area = ""
    for word in words:
        if text.find(word, lo, hi) != -1:
            continue  # the cheap test: the word as typed is there, hyphens and all
        area = area or text[lo:hi]
        if not (word.isascii() and area.isascii()):
            word, area = unicodedata.normalize("NFKC", word), unicodedata.normalize("NFKC", area)
        rx = _SOURCE_JOIN.join(re.escape(p) for p in _HYPHEN.split(word))
        if not re.compile(rx, re.IGNORECASE).search(area):
            return f"the quote's hyphen in '{word}' is not in the source"
    return None


_MARK_OR_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*|['\"]")


def _quote_marks(s: str) -> list[int]:
    """Where quotation marks stand, as the number of words before each (any style: single and
    double are one kind); marks before the first or after the last word are the quote's own
    edges, and an apostrophe inside a word is not a mark."""
    out: list[int] = []
    letters = 0  # counted in letters, not words: a split word must not move a mark
    for tok in _MARK_OR_WORD.findall(normalize_for_match(s)):
        if tok in "'\"":
            out.append(letters)
        else:
            letters += len(tok) - tok.count("'")
    return [w for w in out if 0 < w < letters]


def _quote_mark_problem(raw: str, source: str) -> str | None:
    """Quotation marks in the quote ⇔ in the source at that place (single ↔ double allowed)."""
    if _quote_marks(raw) == _quote_marks(source):
        return None
    return "the quotation marks differ from the source's (added or left out)"


def _locate_inner(prepared: Prepared, quote: str, hint: int | None) -> LocateResult:
    raw = quote.strip()
    core, tail = _core(normalize_for_match(raw))
    if not (core[:1].isalnum() or _ALNUM.search(core)):
        return LocateResult(found=False, reason="the quote has no words to look for")
    norm = prepared.norm
    limit = 2 if hint is None else MAX_HITS_WITH_HINT

    if "..." not in core or _has_ellipsis(prepared):
        hits = _find(prepared, core, 0, len(norm), limit)
        if hits:
            return _found(prepared, hits, raw, tail, hint, "normalized")
    if not ((raw[0].isalnum() and raw[-1].isalnum()) or raw[-1] in ".,;:!?"):
        # normalisation looks at the characters beside a dash or a mark: a quote that starts or
        # ends with one may normalise differently alone than in the text
        hits = _find_exact(prepared.text, raw, limit)
        if hits:
            return _found(prepared, hits, raw, "", hint, "exact", orig=True)

    pieces = _ELLIPSIS.split(raw)
    if len(pieces) > 1 and _has_ellipsis(prepared) and _BRACKET.search(core):
        # the source's own "..." beside the quoter's "[sic]": the dots are text, matched as such
        found = _find_bracketed(prepared, core, limit, [])
        if found:
            return _found_bracketed(prepared, found, raw, tail, hint)
    if len(pieces) > 1:
        worded = [p for p in pieces if _ALNUM.search(p)]
        if len(worded) == 1 and worded[0].strip() != raw:
            # "… the plan was approved …": marks at the ends omit nothing between words
            return _locate_inner(prepared, worded[0], hint)
        return _locate_ellipsis(prepared, raw, pieces, hint)
    if _BRACKET.search(core):
        problems: list[str] = []
        found = _find_bracketed(prepared, core, limit, problems)
        if found:
            return _found_bracketed(prepared, found, raw, tail, hint)
        plain = _BRACKET.sub(lambda m: m.group(1), core)
        if _source_brackets_only(prepared, core) and len(core.split()) >= MIN_FUZZY_WORDS:
            # every bracket is the source's own ("[60]", "[RFC1630]"): text like any other, so
            # the quote may differ from the source as any quote may (fuzzy, every rule held)
            got = _fuzzy(prepared, raw, core, tail, hint)
            if got.found and _brackets_there(core, got.source_quote or ""):
                return got  # the source's brackets at this place, not "[m]" of another
        res = _refusal(
            prepared, plain, "the quote with its bracketed alterations is not in the source"
        )
        if not problems:
            return res
        return LocateResult(
            found=False,
            candidate=res.candidate,
            score=res.score,
            differences=tuple(dict.fromkeys(problems)),
            reason=res.reason,
        )
    if len(core.split()) < MIN_FUZZY_WORDS:
        return _refusal(
            prepared,
            core,
            f"the quote is not in the source (quotes under {MIN_FUZZY_WORDS} words must match "
            "exactly)",
        )
    if len(core.split()) > MAX_FUZZY_WORDS:
        return LocateResult(
            found=False,
            reason=f"the quote is not in the source (quotes over {MAX_FUZZY_WORDS} words must "
            "match exactly or after normalisation; quote a shorter passage to see what differs)",
        )
    return _fuzzy(prepared, raw, core, tail, hint)


# --- running headers and footers at page breaks ----------------------------------------------

_DIGITS = re.compile(r"\d+")


class _View(NamedTuple):
    view_starts: tuple[int, ...]  # where each kept piece starts in the view
    orig_starts: tuple[int, ...]  # and in the original


def _furniture(text: str, page_starts: Sequence[int], depth: int) -> list[tuple[int, int]]:
    """Original ranges of the lines that open and close pages and recur on several pages
    (digits ignored: page numbers change) or are only a page number: a header of two or
    three lines ("The Digital Millennium Copyright Act of 1998" / "Copyright Office Summary
    December 1998 Page 6") is taken out line by line, as long as each recurs, up to
    ``depth`` lines."""
    bounds = [p for p in page_starts if 0 <= p <= len(text)]
    if len(bounds) < 2:
        return []
    pages = list(zip(bounds, [*bounds[1:], len(text)], strict=True))
    rows: list[list[tuple[str, int, int]]] = []  # per page: its first, then its last lines
    page_start: dict[int, int] = {}  # a page's first line: where the page starts
    for ps, pe in pages:
        body = text[ps:pe]
        spans = [(m.start() + ps, m.end() + ps) for m in re.finditer(r"[^\n]*\S[^\n]*", body)]
        tops = spans[:depth]
        bottoms = spans[::-1][: max(0, min(depth, len(spans) - len(tops))) or 1]
        if tops:
            page_start[tops[0][0]] = ps
        rows.append([(_line_key(text[a:b]), a, b) for a, b in tops])
        rows.append([(_line_key(text[a:b]), a, b) for a, b in bottoms])
    out: list[tuple[int, int]] = []
    for side in (0, 1):
        lines = rows[side::2]
        for k in range(depth):
            counts: dict[str, int] = {}
            for page in lines:
                if k < len(page):
                    counts[page[k][0]] = counts.get(page[k][0], 0) + 1
            kept = []
            for page in lines:
                if k >= len(page):
                    continue
                key, a, b = page[k]
                if key and (counts[key] >= FURNITURE_MIN_PAGES or key in ("#", "page #")):
                    # a header line with its line break, the first from the page's start
                    # (a form feed, blank lines); a footer line alone
                    start = page_start[a] if side == 0 and k == 0 else a
                    out.append((start, b + (side == 0 and text[b : b + 1] == "\n")))
                    kept.append(page)
            lines = kept  # a deeper line is furniture only under furniture
    return sorted(set(out))


_FURNITURE_LINES = 3  # lines of a page's header or footer block read


def _line_key(line: str) -> str:
    return _DIGITS.sub("#", " ".join(line.split()).lower())


def _layout_joins(prepared: Prepared) -> frozenset[tuple[str, str]]:
    """The word pairs the layout's set-aside lines put side by side (``layout.joined_words``),
    once per text."""
    key = ("layout joins",)
    if key not in prepared.cache:
        text = prepared.text
        prepared.cache[key] = joined_words(text, interruptions(text))
    return prepared.cache[key]  # type: ignore[no-any-return]


def _without_furniture(
    prepared: Prepared, page_starts: Sequence[int], depth: int = 1, layout: bool = False
) -> tuple[Prepared, _View] | None:
    key = ("furniture", tuple(page_starts), depth, layout)
    cache = prepared.cache
    if key not in cache:
        # the pages' headers and footers (``depth`` lines of each), and with ``layout`` the
        # lines the layout set inside a sentence (locate.layout)
        ranges = _furniture(prepared.text, page_starts, depth) if page_starts else []
        inside = interruptions(prepared.text) if layout else []
        ranges = sorted(ranges + inside)
        if not ranges or (layout and not inside):
            cache[key] = None
        else:
            cache[key] = _view_without(prepared.text, ranges)
    return cache[key]  # type: ignore[no-any-return]


def _view_without(text: str, ranges: Sequence[tuple[int, int]]) -> tuple[Prepared, _View]:
    """``text`` with ``ranges`` (sorted) taken out, prepared, and the map back to ``text``."""
    keep_v: list[int] = []
    keep_o: list[int] = []
    parts: list[str] = []
    pos = vlen = 0
    for a, b in ranges:
        if a < pos:
            a = pos
        if a > pos:
            keep_v.append(vlen)
            keep_o.append(pos)
            parts.append(text[pos:a])
            vlen += a - pos
        pos = max(pos, b)
    keep_v.append(vlen)
    keep_o.append(pos)
    parts.append(text[pos:])
    return prepare("".join(parts)), _View(tuple(keep_v), tuple(keep_o))


def _from_view(v: _View, k: int) -> int:
    i = bisect.bisect_right(v.view_starts, k) - 1
    return v.orig_starts[i] + (k - v.view_starts[i])


def _to_view(v: _View, o: int) -> int:
    i = max(0, bisect.bisect_right(v.orig_starts, o) - 1)
    return v.view_starts[i] + max(0, o - v.orig_starts[i])


def _has_ellipsis(prepared: Prepared) -> bool:
    """Whether the source itself has "..." (else a quote's "..." can only be an omission)."""
    got = prepared.cache.get("ellipsis")
    if got is None:
        got = prepared.cache["ellipsis"] = "..." in prepared.norm
    return bool(got)


# --- exact and normalised search -------------------------------------------------------------


def _core(qn: str) -> tuple[str, str]:
    """Split off quote marks at both ends and closing punctuation the source may not have."""
    core = qn.lstrip(" '\"")
    stripped = core.rstrip(_EDGE_PUNCT)
    tail = core[len(stripped) :].strip()
    return stripped, tail


def _find(prepared: Prepared, needle: str, lo: int, hi: int, limit: int) -> list[tuple[int, int]]:
    """Occurrences of ``needle`` at word boundaries; its first letter may differ in case.

    The search stops as soon as the text's piece counts say no further occurrence can exist
    (``Prepared.occurrence_bound``; at 0 it does not even start): deciding "not ambiguous" then
    costs no second search through the rest of the text.
    """
    norm = prepared.norm
    hits: list[tuple[int, int]] = []
    first = needle[0]
    if first.lower() != first.upper() and len(needle) > 1:
        look, skip, lo_c = needle[1:], 1, first.lower()
    else:
        look, skip, lo_c = needle, 0, ""
    # counting costs more than searching a short stretch (an ellipsis' next fragment)
    bound = prepared.occurrence_bound(look) if hi - lo > _SHORT_STRETCH else -1
    if bound == 0:
        return hits
    size = len(look)
    pos = norm.find(look, lo + skip, hi)
    seen = 0
    while pos != -1:
        seen += 1
        s = pos - skip
        if (not skip or norm[s].lower() == lo_c) and _bounds_ok(norm, s, pos + size):
            hits.append((s, pos + size))
            if len(hits) >= limit:
                break
        if seen == bound:  # every occurrence there can be has been seen
            break
        pos = norm.find(look, pos + 1, hi)
    return hits


def _rfind(norm: str, needle: str, lo: int, hi: int) -> tuple[int, int] | None:
    """The last occurrence of ``needle`` inside ``[lo, hi)`` (first letter case-free)."""
    variants = {needle}
    if needle[:1].lower() != needle[:1].upper():
        variants |= {needle[0].lower() + needle[1:], needle[0].upper() + needle[1:]}
    best: tuple[int, int] | None = None
    for v in variants:
        pos = norm.rfind(v, lo, hi)
        while pos != -1:
            if _bounds_ok(norm, pos, pos + len(v)):
                if best is None or pos > best[0]:
                    best = (pos, pos + len(v))
                break
            pos = norm.rfind(v, lo, pos + len(v) - 1)
    return best


def _find_exact(text: str, raw: str, limit: int) -> list[tuple[int, int]]:
    """Plain ``str.find`` in the original text: a net for contexts normalisation splits."""
    hits: list[tuple[int, int]] = []
    if not raw:
        return hits
    pos = text.find(raw)
    while pos != -1 and len(hits) < limit:
        if _bounds_ok(text, pos, pos + len(raw)):
            hits.append((pos, pos + len(raw)))
        pos = text.find(raw, pos + 1)
    return hits


def _bounds_ok(s: str, start: int, end: int) -> bool:
    """The match must not cut a word, a number or a contraction ("possible" in "impossible",
    "1" in "1.5", "can" in "can't", "5" in "-5", "10" in "10-fold")."""
    n = len(s)
    a = s[start]
    if start > 0:
        p = s[start - 1]
        if a.isalnum():
            if p.isalnum():
                return False
            if (
                p in "'-"
                and start > 1
                and s[start - 2].isalnum()
                and (p == "'" or a.isdigit() or s[start - 2].isdigit())
            ):
                return False
        if a.isdigit():
            if p in "+±$€£¥-":
                return False
            if p in ".," and start > 1 and s[start - 2].isdigit():
                return False
    z = s[end - 1]
    if end < n:
        c = s[end]
        if z.isalnum():
            if c.isalnum():
                return False
            if (
                c in "'-"
                and end + 1 < n
                and s[end + 1].isalnum()
                and (c == "'" or z.isdigit() or s[end + 1].isdigit())
            ):
                return False
        if z.isdigit():
            if c in "%‰°":
                return False
            if c in ".," and end + 1 < n and s[end + 1].isdigit():
                return False
    return True


def _found(
    prepared: Prepared,
    hits: list[tuple[int, int]],
    raw: str,
    tail: str,
    hint: int | None,
    match: str,
    *,
    orig: bool = False,
    score: float = 1.0,
    reason: str | None = None,
    edit_sets: Sequence[tuple[Edit, ...]] = (),
) -> LocateResult:
    """``edit_sets``: the edits of each hit, parallel to ``hits`` (none: no edits)."""
    norm = prepared.norm
    spans = []
    for ns, ne in hits if hint is not None else hits[:1]:  # without a hint, the first
        if orig:
            spans.append((ns, ne))
            continue
        if tail and norm.startswith(tail, ne):
            ne += len(tail)
        spans.append(prepared.orig_span(ns, ne))
    pick = (
        0
        if hint is None
        else min(range(len(spans)), key=lambda i: (abs(spans[i][0] - hint), spans[i][0]))
    )
    cs, ce = spans[pick]
    words = prepared.text[cs:ce]
    if match == "normalized" and words == raw:
        match = "exact"
    return _found_result(
        match,
        cs,
        ce,
        words,
        score,
        len(hits) > 1,
        reason,
        edit_sets[pick] if edit_sets else (),
    )


_FOUND_DEFAULTS = {f.name: f.default for f in dataclasses.fields(LocateResult)}


def _found_result(
    match: str,
    cs: int,
    ce: int,
    words: str,
    score: float,
    ambiguous: bool,
    reason: str | None,
    edits: tuple[Edit, ...],
) -> LocateResult:
    """``LocateResult(found=True, ...)`` at a quarter of the cost: a frozen dataclass's
    ``__init__`` sets its eleven fields one ``object.__setattr__`` at a time, as long as the
    exact match it reports takes (the same fields, the same equality; tests/test_locate.py
    compares the two)."""
    r = object.__new__(LocateResult)
    d = r.__dict__
    d.update(_FOUND_DEFAULTS)
    d["found"] = True
    d["match"] = match
    d["char_start"] = cs
    d["char_end"] = ce
    d["source_quote"] = words
    d["score"] = score
    d["ambiguous"] = ambiguous
    d["reason"] = reason
    d["edits"] = edits
    return r


# --- bracketed alterations -------------------------------------------------------------------

# A source word a bracket may stand for: no punctuation beside it ("it," is "it" and a comma).
_RUN_WORD = r"[^\s.,!?;:()\[\]\"]+"


def _find_bracketed(
    prepared: Prepared,
    core: str,
    limit: int,
    problems: list[str],
    lo: int = 0,
    hi: int | None = None,
) -> list[tuple[tuple[int, int], tuple[Edit, ...]]]:
    """``[T]he``, ``[sic]``, ``[the committee]`` for "it", the source's own ``[19]``: every
    bracket must be one the rules accept (``_bracket_problem``); each hit comes with its edits.
    Why a parse was refused goes to ``problems``, for the writer's message."""
    norm = prepared.norm
    parts = _BRACKET.split(core)
    if len(parts) < 3:
        return []
    rx: list[str] = []
    contents: list[str] = []
    nb = (len(parts) - 1) // 2
    lits = [parts[2 * i] for i in range(nb + 1)]
    # where a bracket may change a letter's case: the quote's (or fragment's) first word, or
    # the first word after a sentence end inside it
    recase = [_starts_sentence("".join(parts[: 2 * i + 1])) for i in range(nb)]
    for i in range(nb + 1):
        lit = lits[i]
        if i > 0 and rx and rx[-1].endswith("#lstrip"):
            rx[-1] = rx[-1][: -len("#lstrip")]
            lit = lit[1:] if lit.startswith(" ") else lit
        if i < nb:
            content = parts[2 * i + 1]
            piece, strip_left, strip_right = _bracket_rx(
                i, content, lit, lits[i + 1], last=i == nb - 1
            )
            if strip_left and lit.endswith(" "):
                lit = lit[:-1]
            contents.append(content)
        if i == 0 and lit and lit[0].lower() != lit[0].upper():
            rx.append(f"[{re.escape(lit[0].lower())}{re.escape(lit[0].upper())}]")
            rx.append(re.escape(lit[1:]))
        else:
            rx.append(re.escape(lit))
        if i < nb:
            rx.append(piece + ("#lstrip" if strip_right else ""))
    try:
        pattern = re.compile("".join(rx))
    except re.error:
        return []
    hits: list[tuple[tuple[int, int], tuple[Edit, ...]]] = []
    for m in pattern.finditer(norm, lo, len(norm) if hi is None else hi):
        s, e = m.span()
        if s == e or not _bounds_ok(norm, s, e):
            continue
        edits: list[Edit] = []
        bad = None
        for i, content in enumerate(contents):
            got = m.group(f"b{i}")
            bad = _bracket_problem(content, got, recase=recase[i])
            at = prepared.orig_start(m.start(f"o{i}"))
            if bad is not None and got and repeats_source(prepared.text, at, content, got):
                bad = None  # "[these unpredictable outcomes]": the source's own words for "they"
            if bad is not None:
                break
            if (got is not None and got == content) or got == f"[{content}]":
                continue  # the source's own words or brackets: nothing was changed
            os_, oe = m.span(f"o{i}")
            if got is None:  # an insertion ("[sic]"): it stands where it is, for nothing
                oe = os_
            if oe > os_:
                a, b = prepared.orig_span(os_, oe)
            else:
                a = b = prepared.orig_start(os_)
            edits.append(Edit("bracket", f"[{content}]", prepared.text[a:b], a, b))
        if bad is not None:
            problems.append(bad)
            continue
        hits.append(((s, e), tuple(edits)))
        if len(hits) >= limit:
            break
    return hits


def _found_bracketed(
    prepared: Prepared,
    found: list[tuple[tuple[int, int], tuple[Edit, ...]]],
    raw: str,
    tail: str,
    hint: int | None,
) -> LocateResult:
    return _found(
        prepared,
        [h for h, _ in found],
        raw,
        tail,
        hint,
        "normalized",
        edit_sets=[e for _, e in found],
    )


def _source_brackets_only(prepared: Prepared, core: str) -> bool:
    """Whether every bracket of the quote stands in the source as it is ("[19]", "[RFC1630]")."""
    norm = prepared.norm
    return all(f"[{m.group(1)}]" in norm for m in _BRACKET.finditer(core))


def _brackets_there(core: str, source: str) -> bool:
    """Whether every bracket of the quote stands in this passage of the source as it is: a
    source's "[m]" elsewhere does not make "[m]ixtures" text for "Mixtures" here."""
    there = normalize_for_match(source)
    return all(f"[{m.group(1)}]" in there for m in _BRACKET.finditer(core))


def _bracket_rx(
    i: int, content: str, left: str, right: str, *, last: bool = False
) -> tuple[str, bool, bool]:
    """The pattern for bracket ``i``, and whether the space before (or after) it belongs inside
    its optional group (the caller then drops it from the literal beside it)."""
    lit = re.escape(f"[{content}]")
    c = f"(?i:{re.escape(content)})"
    g = f"b{i}"
    if content.strip().lower() in INSERTIONS:  # "[sic]": stands for nothing, or for itself
        if left.endswith(" ") or not left:
            return f"(?P<o{i}>(?: ?(?P<{g}>{lit}))?)", bool(left), False
        return f"(?P<o{i}>(?P<{g}>{lit})?)", False, False
    # Attached to a word's letters: "[t]he", "[in]sufficient", "[it]'s" — the same letters, a
    # case change at most. Punctuation beside it is no attachment: "(" before, "," after, a
    # dash ("change - [the system] was" normalises "change-[...]").
    attached = (left and (left[-1].isalnum() or left[-1] == "'")) or (
        right and (right[0].isalnum() or right[0] == "'")
    )
    if attached:
        return f"(?P<o{i}>(?P<{g}>{lit}|{c}))", False, False
    run = rf"{_RUN_WORD}(?: {_RUN_WORD}){{0,{BRACKET_MAX_WORDS - 1}}}"
    if last and not right.strip() and left.strip():
        # the quote ends with it ("… into [it]."): it stands for the source's words up to the
        # clause's end, never for a first word that leaves the rest out ("the" of "the task")
        return rf"(?P<o{i}>(?P<{g}>{lit}|{c}|{run}))(?=[.,;:!?)\]\"']|\s*$)", False, False
    if not left.strip() or not right.strip():
        return f"(?P<o{i}>(?P<{g}>{lit}|{c}|{_RUN_WORD}))", False, False
    if not right.startswith(" "):  # "polish [the site], and": punctuation follows at once
        return rf"(?P<o{i}>(?P<{g}>{lit}|{c}|{run}))", False, False
    # "A [x] B": the bracket and one space may stand for nothing (refused unless [sic]-like)
    return rf"(?P<o{i}>(?:(?P<{g}>{lit}|{c}|{run}) )?)", False, True


_SENTENCE_START = re.compile(r"(\w*)[.!?][\"')\]\u201d\u2019]*\s+[\"'(\u201c\u2018]*$")


def _starts_sentence(before: str) -> bool:
    """Whether a word after ``before`` (the quote's text up to it) opens the quote or a
    sentence inside it: nothing but opening marks before it, or a sentence's end ("… it. [T]he"),
    not an abbreviation's full stop ("Mr. [b]ush")."""
    if not before.strip(" \"'(\u201c\u2018"):
        return True
    m = _SENTENCE_START.search(before, max(0, len(before) - 24))
    if m is None:
        return False
    dot = m.end(1)  # the mark: only a full stop can be an abbreviation's
    return before[dot] != "." or not is_abbreviation(word_before(before, dot))


def _bracket_problem(content: str, got: str | None, *, recase: bool = True) -> str | None:
    """Why bracket ``[content]`` may not stand for the source's ``got`` (None: for nothing), or
    None when the rule accepts it: the same letters (case may change on the first word of the
    quote or of a sentence in it, ``recase``), an insertion such as [sic], or a reference (it,
    they, the former, ...) spelled out without any number, negation, modal, quantifier,
    comparative or symbol."""
    low = content.strip().lower()
    if low in INSERTIONS:
        return None
    if got is None:
        return f"the bracketed '[{content}]' is not in the source"
    if got == content or got == f"[{content}]":
        return None
    if got.lower() == content.lower():
        # past the first word, case makes the word: "[b]ush" is not "Bush", "[a]pple" not Apple
        if recase and got.split()[1:] == content.split()[1:]:
            return None
        return (
            f"the bracketed '[{content}]' changes the case of the source's '{got.strip()}': "
            "case may change on the quote's first word only (or a sentence's, after its end "
            "or an ellipsis)"
        )
    if not _ALNUM.search(content):
        # "[...]", "[…]": an omission's mark, held to the ellipsis rules, never a replacement
        return f"the bracketed '[{content}]' marks an omission, not words that replace '{got}'"
    said = None if is_reference(content) else first_meaningful(content)  # "[the former]"
    if said is not None:
        return (
            f"the bracketed '[{content}]' stands for '{got}': a {said[1]} ('{said[0]}') may "
            "never come from a bracket"
        )
    # nor go: "[the]" for "any", "[they]" for "few ways", "[it]" for "nothing"
    held = None if is_reference(got) else first_meaningful(got)  # "the said" is a reference
    if held is not None:
        return (
            f"the bracketed '[{content}]' stands for '{got.strip()}': a {held[1]} "
            f"('{held[0]}') of the source may never be replaced by a bracket"
        )
    if determiner_for_more(content, got):
        return (
            f"the bracketed '[{content}]' stands for '{got.strip()}': a determiner in brackets "
            "may stand for one determiner of the source, not leave its other words out"
        )
    if is_reference(got) and is_reference(content):
        # "[they]" for "it", "[he]" for "she": another reference, not what this one refers to
        return (
            f"the bracketed '[{content}]' stands for '{got}': a bracket may spell out what "
            f"'{got}' refers to, not put another reference in its place"
        )
    if is_reference(got):
        return None  # "[the committee]" for "it"
    if is_reference(content):
        return None  # "[it]" for "the treatment": a reference that says less, never other
    if is_description(got) and is_name(content):
        return None  # "[Tunisia]" for "the country": a name (the source's, checked after)
    return (
        f"the bracketed '[{content}]' stands for '{got}': a bracket may only spell out what a "
        "word such as 'it', 'they' or 'this' refers to"
    )


def _meaningful(s: str) -> bool:
    return any(c.isdigit() for c in s) or any(_is_negation(w) for w in re.findall(r"[\w']+", s))


def _is_negation(word: str) -> bool:
    w = word.lower()
    return w in NEGATIONS or w.endswith("n't")


# --- ellipses --------------------------------------------------------------------------------


def _locate_ellipsis(
    prepared: Prepared, raw: str, pieces: list[str], hint: int | None
) -> LocateResult:
    """Each fragment must be found, in order, close together, and every omission must keep to
    the rules (``_gap_ok``); each chain found comes with its omissions as edits."""
    norm = prepared.norm
    marks = [m.group().strip() for m in _ELLIPSIS.finditer(raw)]
    frags: list[str] = []
    ended: list[bool] = []  # the quote marks a sentence end before the omission after frag j
    mark_after: list[str] = []
    for k, p in enumerate(pieces):
        f = normalize_for_match(p).strip(_EDGE_PUNCT)
        if _ALNUM.search(f):
            frags.append(f)
            mark = marks[k] if k < len(marks) else ""
            ended.append(bool(_QUOTE_SENTENCE_END.search(p)) or mark.count(".") >= 4)
            mark_after.append(mark)
        elif frags and k < len(marks):
            ended[-1] = ended[-1] or bool(_QUOTE_SENTENCE_END.search(p))
    joined = " ".join(frags)
    if not frags:
        return LocateResult(found=False, reason="the quote has no words to look for")
    sizes = [len(f.split()) for f in frags]
    anchor = max(range(len(frags)), key=lambda i: (sizes[i], -i))
    if sizes[anchor] < SHORT_FRAGMENT_WORDS:
        return LocateResult(
            found=False,
            reason="too few words are left around the ellipsis to check the quote",
        )
    loose = [f for f, n in zip(frags, sizes, strict=True) if n < SHORT_FRAGMENT_WORDS]
    if any(_meaningful(f) for f in loose):
        return LocateResult(
            found=False,
            reason="a fragment of under three words beside an ellipsis may not carry a number "
            "or a negation: quote more of its sentence",
        )
    problems: list[str] = []
    chains: list[tuple[int, int]] = []
    edit_sets: list[tuple[Edit, ...]] = []
    for hs, he, anchor_edits in _fragment_hits(prepared, frags[anchor], 0, len(norm), 64, problems):
        chain = _chain(prepared, frags, sizes, ended, anchor, hs, he, problems)
        if chain:
            a, b, gaps, bracketed = chain
            chains.append((a, b))
            omissions = [
                Edit("omission", mark_after[j] or "…", prepared.text[x:y], x, y)
                for j, (x, y) in sorted(gaps.items())
            ]
            edit_sets.append(
                tuple(sorted(omissions + list(anchor_edits) + bracketed, key=_edit_order))
            )
            if hint is None and len(chains) >= 2:
                break
    if chains:
        return _found(prepared, chains, raw, "", hint, "normalized", edit_sets=edit_sets)
    missing = [f for f in frags if not _fragment_hits(prepared, f, 0, len(norm), 1, [])]
    diffs = tuple(dict.fromkeys(problems))
    diffs += tuple(f"the source does not have '{f}'" for f in missing)
    res = _refusal(
        prepared,
        joined,
        "the passages around the ellipsis are not found together, in order, in the source",
    )
    return LocateResult(
        found=False,
        candidate=res.candidate,
        score=res.score,
        differences=diffs or res.differences,
        reason=res.reason,
    )


# The quote's fragment ends its sentence before the ellipsis: "… requires it. … The".
_QUOTE_SENTENCE_END = re.compile(r"[.!?][\"')\]\u201d\u2019]*\s*$")


def _chain(
    prepared: Prepared,
    frags: list[str],
    sizes: list[int],
    ended: list[bool],
    anchor: int,
    hs: int,
    he: int,
    problems: list[str],
) -> tuple[int, int, dict[int, tuple[int, int]], list[Edit]] | None:
    """The fragments around the anchor, in order; with the original span each omission left
    out, keyed by the fragment it follows, and the edits of the fragments' brackets."""
    gaps: dict[int, tuple[int, int]] = {}
    bracketed: list[Edit] = []

    def omitted(j: int, a: int, b: int, short: bool) -> bool:
        # in the original: paragraph breaks are visible there
        x, y = prepared.orig_end(a), prepared.orig_start(b)
        gap = prepared.text[x:y]
        if "\n" in gap and _PARAGRAPH.search(gap):
            # the whole stretch between the fragments: a blank line beside the omitted words
            # still puts the fragments in two paragraphs
            problems.append("the words left out at the ellipsis run across a paragraph break")
            return False
        lead = len(gap) - len(gap.lstrip())
        x, y = x + lead, x + len(gap.rstrip())
        marked = ended[j] and _ends_sentence(prepared.text, x)
        if not _gap_ok(prepared.text, x, y, short, marked, problems):
            return False
        gaps[j] = (x, max(x, y))
        return True

    start, end = hs, he
    for j in range(anchor + 1, len(frags)):
        short = sizes[j] < SHORT_FRAGMENT_WORDS
        gap = SHORT_FRAGMENT_GAP if short else ELLIPSIS_MAX_GAP
        found = _fragment_hits(prepared, frags[j], end, end + gap + len(frags[j]), 1, problems)
        if not found:
            return None
        ns, ne, edits = found[0]
        if not omitted(j - 1, end, ns, short):
            return None
        bracketed.extend(edits)
        end = ne
    for j in range(anchor - 1, -1, -1):
        short = sizes[j] < SHORT_FRAGMENT_WORDS
        gap = SHORT_FRAGMENT_GAP if short else ELLIPSIS_MAX_GAP
        lo = max(0, start - gap - len(frags[j]))
        if _BRACKET.search(frags[j]):
            hits = _fragment_hits(prepared, frags[j], lo, start, 64, problems)
            last = max(hits, default=None, key=lambda h: h[0])
            hit, edits = (None, ()) if last is None else ((last[0], last[1]), last[2])
        else:
            hit, edits = _rfind(prepared.norm, frags[j], lo, start), ()
        if hit is None:
            return None
        if not omitted(j, hit[1], start, short):
            return None
        bracketed.extend(edits)
        start = hit[0]
    return start, end, gaps, bracketed


def _fragment_hits(
    prepared: Prepared, frag: str, lo: int, hi: int, limit: int, problems: list[str]
) -> list[tuple[int, int, tuple[Edit, ...]]]:
    """Where one fragment of an ellipsis quote stands in ``[lo, hi)``: as text, or with its
    brackets (``… [t]he``), each bracket held to the bracket rules."""
    if not _BRACKET.search(frag):
        return [(s, e, ()) for s, e in _find(prepared, frag, lo, hi, limit)]
    found = _find_bracketed(prepared, frag, limit, problems, lo, hi)
    return [(s, e, edits) for (s, e), edits in found]


def _edit_order(e: Edit) -> int:
    return e.char_start


_PARAGRAPH = re.compile(r"\n[^\S\n]*\n")
_BROKEN_WORD = re.compile(r"(?<=[^\W\d_])(?:-\s+|\u00ad\s*)(?=[^\W\d_])")


def _ends_sentence(text: str, x: int) -> bool:
    """Whether the quote's full stop before the omission at ``x`` can mark a sentence end: the
    quoter's own (the source has no mark there: the omission takes the sentence's end), or the
    source's where it does end a sentence there (``sentence_end``), not an abbreviation's
    ("ca. circa", "e.g. the")."""
    i = x
    while i < len(text) and text[i] in CLOSERS:
        i += 1
    if i >= len(text) or text[i] not in TERMINALS:
        return text[x : x + 1] not in TERMINALS
    # strictly: a mark that may end a sentence ("the U.S.") does not mark the join as one
    return source_sentence_end(text, i) is not None


def _gap_ok(text: str, x: int, y: int, short: bool, ended: bool, problems: list[str]) -> bool:
    """The omission ``text[x:y]`` keeps to the rules: within one paragraph; no number, symbol,
    negation, modal, hedge, quantifier, comparative or negative word left out; across a
    sentence end only where the quote marks it (its fragment ends with the full stop)."""
    gap = text[x:y]
    if _PARAGRAPH.search(gap):
        problems.append("the words left out at the ellipsis run across a paragraph break")
        return False
    lo = x  # from the start of the word before the gap: its full stop is not an initial's
    while lo > 0 and text[lo - 1].isalnum():
        lo -= 1
    # a sentence end of the source's from the word before the gap to its last mark
    # (cautious: a full stop after an abbreviation that is also a word — "is trans. The" —
    # may end a sentence, and a join the check misses is a false accept)
    crosses = next(sentence_ends(text, max(0, lo - 1), y, cautious=True), None) is not None
    if crosses and (short or not ended):
        problems.append(
            "the ellipsis joins two sentences: end the fragment before it with its sentence's "
            "full stop to mark that"
        )
        return False
    # read as the reader reads it: "the ma-\njority" holds "majority"
    # read as the reader reads it: "the ma-\njority" holds "majority", "success-\nfully" no
    # "fully"; a hyphen inside a line stays ("less-known" holds "less")
    read = _BROKEN_WORD.sub("", gap) if "-" in gap or "\u00ad" in gap else gap
    aside = harmless_aside(read)  # a closed aside that qualifies nothing kept may go
    if _whole_sentences(text, x, y, read, ended):
        return True  # sentences left out whole: each one kept is still the source's whole
    said = None if aside else first_meaningful(read)
    if said is None and not aside and not read.isascii():
        said = first_meaningful(normalize_for_match(read))  # ligatures: "ﬁfty"
    if said is not None:
        problems.append(f"the words left out at the ellipsis include '{said[0]}' (a {said[1]})")
        return False
    framed = omission_problem(read, text, y)
    if framed is not None:
        problems.append(framed)
        return False
    lone = _COMPOUNDS.findall(read)  # "user-supplied" is one word
    if (
        len(lone) == 1
        and lone[0].lower() not in STOPWORDS
        and lone[0].lower() not in FUNCTION_WORDS
        and not (sum(c.isupper() for c in lone[0]) >= 2 and _ASIDE.search(read))
        and not (ended and _SENTENCE_OF_ITS_OWN.search(read))
    ):
        # "seemed … of fatigue" of "seemed incapable of fatigue", "a … editor" of "a deputy
        # editor", "Martino […] filed" of "Martino secretly filed": one content word left out
        # is a modifier far more often than filler, and no list holds every one (a function
        # word, "that" or "the" or "oder", an abbreviation's aside, "(URL)", and a sentence of
        # one word after a sentence end the quote marks, "for two. … Cars" of "Proof.", may go)
        problems.append(
            f"the ellipsis leaves out one word ('{lone[0]}'): a word left out alone qualifies "
            "the words beside it; keep it, or leave out the whole phrase"
        )
        return False
    # no words left out: no splice; whole sentences left out (the quote marks the end before,
    # the omission ends with its own): nothing joined; an aside in parentheses joins nothing
    whole = ended and _OMITTED_SENTENCE_END.search(read) and not _NEXT_LOWER.match(text, y)
    plain = _PAREN_ASIDE.sub(" ", read) if "(" in read else read
    joint = clause_joint(plain) if _ALNUM.search(read) and not whole and not aside else None
    if joint:
        # "the scheme component is required …; the other components may be empty": the words
        # after the gap belong to another clause, with another subject or object
        problems.append(
            f"the words left out at the ellipsis join two clauses ('{joint}'): "
            "the words after it are another clause's"
        )
        return False
    opener = _FIRST_WORD.match(read)
    if opener and opener.group(1).lower() in CLAUSE_OPENERS:
        verb = _WORD_NEXT.match(text, y)
        if verb and verb.group(1).lower() in AUXILIARIES:
            # "argument … is a starting point" of "argument that the web is a starting point":
            # the omission takes the subject of the verb the quote goes on with
            problems.append(
                f"the words left out at the ellipsis ('{' '.join(read.split()[:4])}') hold the "
                f"subject of the quote's '{verb.group(1)}': the claim is made of another thing"
            )
            return False
    closed = read.rstrip()[-1:] in ",)\u2014\u2013"  # an aside the source closes
    verb = _INFINITIVE_NEXT.match(text, y)
    word = _BROKEN_WORD.sub("", verb.group(1)) if verb else ""
    if (
        verb
        and not closed
        and word not in _NOT_VERBS
        and not word.endswith("ing")  # "equivalent to disallowing": no infinitive
    ):
        # "could be used … to cure" of "used to try to cure", "you're … to build" of "you're
        # helping Facebook to build": the verb that governs the infinitive is left out
        problems.append(
            f"the words left out at the ellipsis ('{_some_words(read)}') govern the quote's "
            f"'to {word}': the claim is made of another act"
        )
        return False
    last = _LAST_WORDS.search(read)
    if last and _number_next(text, y):
        word = last.group(2).lower()
        phrase = f"{last.group(1) or ''} {word}".strip().lower()
        if word in APPROXIMATORS or phrase in APPROXIMATOR_PHRASES:
            said_word = phrase if phrase in APPROXIMATOR_PHRASES else last.group(2)
            problems.append(
                f"the words left out at the ellipsis include '{said_word}', which qualifies the "
                "number after it"
            )
            return False
    return True


_COMPOUNDS = re.compile(r"[^\W\d_]+(?:[-\u2010\u2011][^\W\d_]+)*")
_OMITTED_SENTENCE_END = re.compile(r"[.!?][\"')\]\u201d\u2019]*$")
_OMITTED_SENTENCE_START = re.compile(r"\s*[\"'(\u201c\u2018]?[A-Z\u00c0-\u00de]")
_LEADING_MARK = re.compile(r"[.!?][\"')\]\u201d\u2019]*(?=\s)")
_SENTENCE_MARK_BEFORE = re.compile(r"[.!?][\"')\]\u201d\u2019]*\s*$")


def _whole_sentences(text: str, x: int, y: int, read: str, ended: bool) -> bool:
    """Whether the omission ``text[x:y]`` is one or more of the source's sentences left out
    whole (Chicago 13.53): the quote marks the sentence end before it, where the source's
    sentence does end; the omitted text starts a sentence and ends with its own mark, not an
    abbreviation's; the next fragment starts a sentence. The sentences kept are each the
    source's whole, as if quoted one by one, so what the omitted ones say changes none."""
    mark = _LEADING_MARK.match(read)  # the quote's full stop, the source's, left out with them
    if mark is not None:
        x, read = x + mark.end(), read[mark.end() :]
    before = _SENTENCE_MARK_BEFORE.search(text, max(0, x - 4), x)
    if not ended or before is None or source_sentence_end(text, before.start()) is None:
        return False  # read strictly: "the U.S. ⟦Army officials …⟧" ends no sentence
    if not _OMITTED_SENTENCE_START.match(read) or not _OMITTED_SENTENCE_END.search(read.rstrip()):
        return False
    i = x + len(text[x:y].rstrip().rstrip("\"')]\u201d\u2019")) - 1  # the omission's last mark
    if text[i : i + 1] not in TERMINALS or source_sentence_end(text, i) is None:
        return False  # "… asked Dr. ⟦Smith": no sentence end (the shared rule, read strictly)
    if not (_OMITTED_SENTENCE_START.match(text, y) is not None or text[y : y + 1].isupper()):
        return False
    # the next kept sentence may not point back ("This", "It", "Dans ces cas", "none of that"):
    # it would point at another sentence than the source's
    opening = _WORDS_AT.findall(text, y, min(len(text), y + 60))[:3]
    return not any(w.lower() in BACK_REFERENCES for w in opening)


_WORDS_AT = re.compile(r"[^\W\d_]+")
_NEXT_LOWER = re.compile(r"\W*[^\W\d_A-Z]")
_PAREN_ASIDE = re.compile(r"\([^()]*\)")
_SENTENCE_OF_ITS_OWN = re.compile(r"^\W*[^\W\d_]+[.!?:]\W*$")
_ASIDE = re.compile(r"^\W*[(\[][^()\[\]]*[)\]]\W*$")
_LAST_WORDS = re.compile(r"(?:([^\W\d_]+)\s+)?([^\W\d_]+)\W*$")
_NUMBER_NEXT = re.compile(r"\s*[-+\u2212~\u2248$\u20ac\u00a3]?\d")
_WORD_NEXT = re.compile(r"\s*([^\W\d_]+)")
_FIRST_WORD = re.compile(r"([^\W\d_]+)\b")  # at the omission's very start: no comma before


_INFINITIVE_NEXT = re.compile(r"\s*to\s+([a-z]+(?:-\s*\n\s*[a-z]+)?)\b")
_NOT_VERBS = REFERENCES | _wordset("a an every each all some any no more most such both")


def _some_words(s: str, n: int = 4) -> str:
    words = s.split()
    return " ".join(words[:n]) + (" …" if len(words) > n else "")


def _number_next(text: str, y: int) -> bool:
    """Whether a number follows at ``y``: digits, or a number spelled out ("about thirty")."""
    if _NUMBER_NEXT.match(text, y):
        return True
    m = _WORD_NEXT.match(text, y)
    return m is not None and m.group(1).lower() in NUMBER_WORDS


# --- fuzzy candidate and the token-level judgement -------------------------------------------


def _tokens(s: str, lo: int = 0, hi: int | None = None) -> list[_Tok]:
    out: list[_Tok] = []
    append = out.append
    for m in _TOKEN.finditer(s, lo, len(s) if hi is None else hi):
        kind = m.lastgroup
        text = m.group()
        if kind == "word" or kind is None:  # the commonest first
            a, b = m.span()
            append(_new_tok(_Tok, (text.lower(), a, b, "word", text)))
        elif kind == "sup":
            if out and out[-1].kind == "num" and out[-1].end == m.start():
                prev = out.pop()  # an exponent belongs to its number: "10²"
                out.append(_Tok(prev.key + text, prev.start, m.end(), "num", prev.raw + text))
            else:  # a superscript or subscript is a difference too: "km²" is not "km"
                a, b = m.span()
                out.append(_Tok(text, a, b, "sym", text))
        elif kind == "num":
            a, b = m.span()
            key = text.replace(",", "") if _THOUSANDS.fullmatch(text) else text
            # a sign, unless the dash joins two numbers (a range: "10-20")
            if a > 0 and s[a - 1] in "-+±" and (a == 1 or not s[a - 2].isdigit()):
                key = s[a - 1] + key
                a -= 1
            out.append(_Tok(key, a, b, "num", s[a:b]))
        elif kind == "dash":
            # A minus, a sign or a dash beside a symbol is a token ("A+" is not "A-", "C++" not
            # "C-+"); a dash between two words is punctuation, and a sign before a number
            # belongs to the number (above).
            a, b = m.span()
            before, after = s[a - 1 : a], s[b : b + 1]
            if (before.isalpha() and after.isalpha()) or (after.isdigit() and not before.isdigit()):
                continue
            out.append(_Tok(text, a, b, "sym", text))
        elif kind == "neq":
            # "!=" is the ASCII spelling of "≠" (docs/editorial-marks.md), one symbol: not
            # punctuation beside "=", so "x != 0" is never "x = 0", and it meets a source's "≠".
            a, b = m.span()
            out.append(_Tok("\u2260", a, b, "sym", text))
        else:  # sym
            a, b = m.span()
            out.append(_Tok(text, a, b, "sym", text))
    return out


# A _Tok from a tuple of its five fields, without NamedTuple's argument handling: a fuzzy
# candidate makes hundreds of them.
_new_tok = tuple.__new__


def _anchors(core: str) -> list[tuple[str, int]]:
    """A few word n-grams spread over the quote, with their offsets in it."""
    starts = [0] + [i + 1 for i, c in enumerate(core) if c == " "]
    ends = [i for i, c in enumerate(core) if c == " "] + [len(core)]
    n = len(starts)
    k = 3 if n >= 9 else 2
    count = min(8, n - k + 1)
    if count <= 0:
        return []
    idxs = sorted({round(j * (n - k) / max(1, count - 1)) for j in range(count)})
    out = []
    for i in idxs:
        a = core[starts[i] : ends[i + k - 1]]
        if len(a) >= 6:
            out.append((a, starts[i]))
    if not out:
        longest = sorted(range(n), key=lambda i: ends[i] - starts[i], reverse=True)[:3]
        out = [(core[starts[i] : ends[i]], starts[i]) for i in longest]
    return out


def _lowered(prepared: Prepared) -> str:
    """The normalised text in lower case, for case-blind anchors (same length, or not used)."""
    low = prepared.cache.get("lower")
    if low is None:
        low = prepared.norm.lower()
        if len(low) != len(prepared.norm):
            low = prepared.norm
        prepared.cache["lower"] = low
    return str(low)


def _clusters(prepared: Prepared, core: str) -> list[tuple[int, int]]:
    """Where the quote could start, by votes of anchors found (case-blind): (lo, hi) ranges,
    the ranges most anchors agree on first, rarer anchors breaking ties."""
    text = _lowered(prepared)
    votes: list[tuple[int, int, float]] = []
    for ai, (a, off) in enumerate(_anchors(core.lower())):
        hits: list[int] = []
        pos = text.find(a)
        while pos != -1 and len(hits) < ANCHOR_MAX_HITS:
            hits.append(pos - off)
            pos = text.find(a, pos + 1)
        votes.extend((h, ai, 1.0 / len(hits)) for h in hits)
    if not votes:
        return []
    votes.sort()
    tol = len(core) // 2 + 20
    groups: list[tuple[int, float, int, int]] = []  # (-distinct anchors, -rarity, lo, hi)
    i = 0
    while i < len(votes):
        j = i
        seen: dict[int, float] = {}
        while j < len(votes) and votes[j][0] - votes[i][0] <= tol:
            seen[votes[j][1]] = votes[j][2]
            j += 1
        groups.append((-len(seen), -sum(seen.values()), votes[i][0], votes[j - 1][0]))
        i = j
    groups.sort()
    return [(lo, hi) for _, _, lo, hi in groups[:3]]


class _Quote(NamedTuple):
    """The quote as typed, prepared, and where its core starts in that preparation: to look at
    the writer's own characters (a hyphen, a line break) behind a token."""

    prepared: Prepared
    offset: int


class _Candidate(NamedTuple):
    ns: int
    ne: int
    score: float
    differences: tuple[str, ...]
    tolerated: tuple[str, ...]


def _candidate(
    prepared: Prepared,
    core: str,
    lo_est: int,
    hi_est: int,
    quote: _Quote | None,
    qt: list[_Tok] | None = None,
) -> _Candidate | None:
    """``qt``: ``_tokens(core)``, if the caller has it already."""
    norm = prepared.norm
    pad = len(core) // 4 + 16
    ws, we = max(0, lo_est - pad), min(len(norm), hi_est + len(core) + pad)
    if we <= ws:
        return None
    if len(core) <= PRECISE_ALIGN_CHARS:
        al = fuzz.partial_ratio_alignment(core, norm[ws:we])
        if al is None:
            return None
        rs = max(0, ws + al.dest_start - 12)
        re_ = min(len(norm), ws + al.dest_end + 12)
    else:
        # a long quote's anchors place it well enough; the token alignment does the rest
        rs = max(0, lo_est - 12)
        re_ = min(len(norm), hi_est + len(core) + 12)
    while rs > 0 and norm[rs - 1] != " ":
        rs -= 1
    while re_ < len(norm) and norm[re_] != " ":
        re_ += 1
    if qt is None:
        qt = _tokens(core)
    ct = _tokens(norm, rs, re_)
    if not qt or not ct:
        return None
    qk = [t.key for t in qt]
    sm = SequenceMatcher(None, qk, [t.key for t in ct], autojunk=False)
    blocks = [b for b in sm.get_matching_blocks() if b.size]
    if not blocks:
        return None
    i0, j0 = blocks[0].a, blocks[0].b
    last = blocks[-1]
    i1, j1 = last.a + last.size, last.b + last.size
    # Unmatched words at either end of the quote stand for some source words there: how many
    # is decided by whichever reading leaves the fewest differences.
    head, tail_n = i0, len(qt) - i1
    js_opts = list(range(max(0, j0 - head), j0 + 1)) if head <= 3 else [max(0, j0 - head)]
    # the quote's first word may also stand a little later ("Web Standards\n\nWeb standards")
    js_opts += [j for j in range(j0 + 1, min(len(ct), j0 + 6)) if ct[j].key == qk[0]]
    je_opts = (
        list(range(j1, min(len(ct), j1 + tail_n) + 1))
        if tail_n <= 3
        else [min(len(ct), j1 + tail_n)]
    )
    best: tuple[int, int, list[str], list[str]] | None = None
    je0 = je_opts[-1]
    for js in js_opts:  # the start first, with the widest end; then the end
        if js >= je0:
            continue
        d, tol = _judge_tokens(core, qt, prepared, ct[js:je0], quote)
        if best is None or len(d) < len(best[2]):
            best = (js, je0, d, tol)
    assert best is not None
    for je in je_opts[:-1]:
        if je <= best[0]:
            continue
        d, tol = _judge_tokens(core, qt, prepared, ct[best[0] : je], quote)
        if len(d) < len(best[2]):
            best = (best[0], je, d, tol)
    assert best is not None
    js, je, diffs, tolerated = best
    span = ct[js:je]
    ns, ne = span[0].start, span[-1].end
    score = fuzz.ratio(core, norm[ns:ne])
    return _Candidate(ns, ne, float(score), tuple(diffs), tuple(tolerated))


def _judge_tokens(
    core: str, qt: list[_Tok], prepared: Prepared, ct: list[_Tok], quote: _Quote | None
) -> tuple[list[str], list[str]]:
    """Every token-level difference between quote and candidate, except formatting."""
    norm = prepared.norm
    diffs: list[str] = []
    tolerated: list[str] = []
    sm = SequenceMatcher(None, [t.key for t in qt], [t.key for t in ct], autojunk=False)
    for tag, a1, a2, b1, b2 in sm.get_opcodes():
        if tag == "equal":
            for k, (q, c) in enumerate(zip(qt[a1:a2], ct[b1:b2], strict=True)):
                if q.raw != c.raw and (
                    _acronym_case(q.raw, c.raw)
                    or (a1 + k > 0 and q.raw[:1].isupper() != c.raw[:1].isupper())
                ):
                    # past the quote's first word, case makes the word: "Bush"/"bush",
                    # "Apple"/"apple", "Earnest"/"earnest"
                    diffs.append(f"source says '{c.raw}', quote says '{q.raw}' (a name)")
            continue
        if not ct:
            diffs.append(f"quote says '{core}', source has nothing there")
            break
        qs = core[qt[a1].start : qt[a2 - 1].end] if a2 > a1 else ""
        ss = norm[ct[b1].start : ct[b2 - 1].end] if b2 > b1 else ""
        qtoks, stoks = qt[a1:a2], ct[b1:b2]
        if qtoks and stoks and _same_letters(qtoks, stoks, prepared, quote):
            tolerated.append(f"source has '{ss}', quote has '{qs}' (spacing or hyphenation)")
            continue
        what = _what(qtoks, stoks)
        if not qtoks:
            diffs.append(f"source says '{ss}', quote leaves it out{what}")
        elif not stoks:
            diffs.append(f"quote says '{qs}', source has nothing there{what}")
        else:
            diffs.append(f"source says '{ss}', quote says '{qs}'{what}")
    return diffs, tolerated


def _acronym_case(a: str, b: str) -> bool:
    """Case is formatting, except where it makes the word: "US"/"us", "WHO"/"who", RFC "NOT"."""
    return (
        len(a) > 1
        and len(b) > 1
        and a.isupper() != b.isupper()
        and (a.isupper() or b.isupper())
        and not (a[0].isupper() and b[0].isupper() and (a[1:].islower() or b[1:].islower()))
    )


def _same_letters(
    qtoks: list[_Tok], stoks: list[_Tok], prepared: Prepared, quote: _Quote | None
) -> bool:
    """The same letters, split or joined differently ("data base"/"database"): formatting when
    a hyphen or line break is there in either original, or when no piece of the split form is
    a little word of its own ("a part" is not "apart", "may be" is not "maybe"; "classi fication"
    from a PDF is "classification")."""
    if any(t.kind != "word" for t in qtoks + stoks):
        return False
    if "".join(t.key for t in qtoks) != "".join(t.key for t in stoks):
        return False
    split = qtoks if len(qtoks) > len(stoks) else stoks
    a, b = prepared.orig_span(stoks[0].start, stoks[-1].end)
    source = prepared.text[a:b]
    quoted = ""
    if quote is not None:
        qp, off = quote
        qa, qb = qp.orig_span(qtoks[0].start + off, qtoks[-1].end + off)
        quoted = qp.text[qa:qb]
    if "_" in source or "_" in quoted:
        return False  # "full_text" is an identifier: "fulltext", "web_request" name another
    if any(_is_negation(t.key) and t.key != "non" for t in qtoks + stoks):
        return False  # "not able" is not "notable", "nowhere" is not "now here" ("non" is a prefix)
    if _JOIN_MARKS.search(source) and (split is stoks or _cuts_at_marks(qtoks, source)):
        return True  # the source's hyphen or dash (a line break alone is a space: see below)
    if "\u00ad" in quoted:
        return True  # the quote's own soft hyphen (its hyphens must be the source's)
    if any(t.key in STOPWORDS for t in split):
        return False
    vocab = _vocabulary(prepared)
    if split is stoks:
        # the source's split ("data base") joined by the quote: honest unless that makes a
        # word the text has elsewhere ("parle" for "par le")
        return "".join(t.key for t in split) not in vocab
    # the quote's pieces each a word of their own: a different word ("now here"), not the
    # quote's copy of an extraction's split ("classi fication")
    return not all(t.key in vocab for t in split)


_LETTERS = re.compile(r"[^\W\d_]+")


def _cuts_at_marks(qtoks: list[_Tok], source: str) -> bool:
    """Whether the quote splits the source's word only where the source has its hyphen or
    line-break hyphen ("Außenwin-\nkel" may be "Außenwin kel", not "Außen winkel")."""
    cuts: set[int] = set()
    n = 0
    for ch in source:
        if ch.isalnum() or ch in "'\u2019":
            n += 1
        elif _JOIN_MARKS.match(ch):
            cuts.add(n)
    at = 0
    for t in qtoks[:-1]:
        at += len(t.key)
        if at not in cuts:
            return False
    return True


def _vocabulary(prepared: Prepared) -> frozenset[str]:
    """The words of the text (lower case), to tell a real word from a piece of a split one."""
    got = prepared.cache.get("vocabulary")
    if got is None:
        got = prepared.cache["vocabulary"] = frozenset(_LETTERS.findall(_lowered(prepared)))
    return frozenset(got)


_NEG_PREFIXES = ("un", "in", "im", "ir", "il", "dis", "non")


def _what(qtoks: list[_Tok], stoks: list[_Tok]) -> str:
    """What kind of change it is, for the writer's message (all of them refuse)."""
    toks = qtoks + stoks
    if any(t.kind == "num" for t in toks):
        return " (a number)"
    if any(t.kind == "sym" for t in toks):
        return " (a unit or symbol)"
    if any(_is_negation(t.key) for t in toks):
        return " (a negation)"
    if len(qtoks) == 1 and len(stoks) == 1:
        a, b = qtoks[0].key, stoks[0].key
        short, long_ = sorted((a, b), key=len)
        if any(long_ == p + short for p in _NEG_PREFIXES):
            return " (a negation)"
    if all(t.key in STOPWORDS for t in toks):
        return ""
    if any(t.raw[:1].isupper() for t in toks):
        return " (a name)"
    return " (a word)"


def _best_candidate(prepared: Prepared, core: str, quote: _Quote | None = None) -> list[_Candidate]:
    cands = []
    clusters = _clusters(prepared, core)
    whole = len(prepared.norm) <= 200_000 and len(core) <= 400
    qt = _tokens(core) if clusters or whole else []
    for lo, hi in clusters:
        c = _candidate(prepared, core, lo, hi, quote, qt)
        if c is not None:
            cands.append(c)
    if not cands and whole:
        # Nothing verbatim to anchor on: one alignment over the whole text, for the message.
        c = _candidate(prepared, core, 0, max(0, len(prepared.norm) - len(core)), quote, qt)
        if c is not None:
            cands.append(c)
    cands.sort(key=lambda c: (len(c.differences), -c.score))
    return cands


def _fuzzy(prepared: Prepared, raw: str, core: str, tail: str, hint: int | None) -> LocateResult:
    qp = prepare(raw)
    cands = _best_candidate(prepared, core, _Quote(qp, max(0, qp.norm.find(core))))
    accepted = [c for c in cands if not c.differences]
    if accepted:
        best = accepted[0]
        note = "tolerated: " + "; ".join(best.tolerated) if best.tolerated else None
        ns, ne = _with_edge_punct(prepared.norm, core, best.ns, best.ne)
        return _found(
            prepared,
            [(ns, ne)],
            "",
            tail,
            hint,
            "fuzzy",
            score=round(best.score / 100, 4),
            reason=note,
        )
    return _refused_with(prepared, cands, "the quote is not in the source")


def _with_edge_punct(norm: str, core: str, ns: int, ne: int) -> tuple[int, int]:
    """Tokens leave out punctuation; take in the quote's own opening/closing marks ("(", ")")
    where the source has them right there."""
    lead = core[: len(core) - len(core.lstrip("([{\"'"))]
    for ch in reversed(lead):
        if ns > 0 and norm[ns - 1] == ch:
            ns -= 1
        else:
            break
    trail = core[len(core.rstrip(")]}\"'!?")) :]
    for ch in trail:
        if ne < len(norm) and norm[ne] == ch:
            ne += 1
        else:
            break
    return ns, ne


def _refusal(prepared: Prepared, core: str, reason: str) -> LocateResult:
    """A refusal that still names the nearest passage, so the writer can see what differs."""
    if not 3 <= len(core.split()) <= MAX_FUZZY_WORDS:
        return LocateResult(found=False, reason=reason)
    return _refused_with(prepared, _best_candidate(prepared, core), reason)


def _refused_with(prepared: Prepared, cands: list[_Candidate], reason: str) -> LocateResult:
    if not cands or cands[0].score < 50:
        return LocateResult(found=False, reason=reason + "; no passage resembles it")
    best = cands[0]
    cs, ce = prepared.orig_span(best.ns, best.ne)
    return LocateResult(
        found=False,
        candidate=prepared.text[cs:ce],
        score=round(best.score / 100, 4),
        differences=best.differences,
        reason=reason,
    )
