"""Deep links that open a retrieved source at the quoted words.

A citation is only checkable if following it costs the reader seconds, not a search through a
42-page document (seed 002). For web pages that means a URL text fragment
(``#:~:text=[prefix-,]start[,end][,-suffix]``, WICG "URL Fragment Text Directives"), for PDFs a
``#page=N`` open parameter. This module builds both from the receipt's span in the extracted text.

It is pure string work: it must never fetch anything, never change the base URL (query, path,
an existing ``#id`` are kept byte for byte) and never emit a directive that a browser following
the spec would resolve to different words than the quote. When no unambiguous directive can be
built from the text at hand, it says so (``text_directive`` returns None) rather than guess.

How a browser matches (the spec's "find a range from a text directive") and what we mirror:

* terms are percent-decoded, then searched case- and accent-insensitively (UTS #10 primary
  level), so ``Muller`` matches ``Müller``: uniqueness is judged under the same folding;
* every match is word bounded (UAX #29, approximated here by letters, digits, marks and the
  in-word punctuation ``'``/``’``/``.``/``,`` between letters or digits);
* a prefix must be followed, after any whitespace, by the start term; a suffix must follow the
  match after any whitespace; the first instance in document order wins;
* no term may cross a block boundary. The extracted text has no DOM, so a newline in it is
  treated as one: terms never contain a newline, and a quote spanning one uses ``start,end``.

The browser searches the rendered page, which may hold text our extractor dropped (menus,
sidebars); a fragment unique in the extracted text can therefore still land earlier on such a
page. That is why the receipt, not this link, is the evidence.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from dataclasses import dataclass
from urllib.parse import quote as _percent_quote

from citeledger.model import Receipt

EXACT_MAX_WORDS = 8  # longer quotes use the start,end form
RANGE_MIN_WORDS = 3  # words in each of start and end, to begin with
RANGE_MAX_WORDS = 10  # how far a term may grow to become unique
MAX_CONTEXT_WORDS = 5  # prefix/suffix words, at most

_IN_WORD_BETWEEN_LETTERS = frozenset("'’.:·\u2027")
_IN_WORD_BETWEEN_DIGITS = frozenset(".,;'’")
_IN_WORD = _IN_WORD_BETWEEN_LETTERS | _IN_WORD_BETWEEN_DIGITS


@dataclass(frozen=True)
class TextDirective:
    """The four terms of one ``text=`` directive, not yet percent-encoded."""

    start: str
    end: str | None = None
    prefix: str | None = None
    suffix: str | None = None

    def encode(self) -> str:
        parts = []
        if self.prefix:
            parts.append(encode_term(self.prefix) + "-")
        parts.append(encode_term(self.start))
        if self.end:
            parts.append(encode_term(self.end))
        if self.suffix:
            parts.append("-" + encode_term(self.suffix))
        return "text=" + ",".join(parts)


def encode_term(term: str) -> str:
    """Percent-encode UTF-8, keeping only ``A-Za-z0-9._~`` literal.

    The spec's syntax characters ``-``, ``,`` and ``&`` must be encoded; everything else outside
    the unreserved set is encoded too, so ``#``, ``%``, spaces and non-ASCII can never be read as
    URL structure by any tool between us and the browser.
    """
    return _percent_quote(term, safe="._~", encoding="utf-8").replace("-", "%2D")


def text_fragment_url(url: str, text: str, quote_start: int, quote_end: int) -> str:
    """``url`` with a text directive for ``text[quote_start:quote_end]`` appended.

    Returns ``url`` unchanged when the quote cannot be pointed at unambiguously (it is blank, or
    it and its surroundings repeat verbatim elsewhere): a wrong highlight would be worse than
    none.
    """
    directive = text_directive(text, quote_start, quote_end)
    if directive is None:
        return url
    return append_directive(url, directive.encode())


def append_directive(url: str, directive: str) -> str:
    """Add one fragment directive, keeping whatever fragment ``url`` already has."""
    _, hashmark, fragment = url.partition("#")
    if not hashmark:
        return f"{url}#:~:{directive}"
    if ":~:" in fragment:
        joiner = "" if fragment.endswith((":~:", "&")) else "&"
        return f"{url}{joiner}{directive}"
    return f"{url}:~:{directive}"


def pdf_page_url(url: str, page: int) -> str:
    """``url`` opening at ``page`` (1-based) in PDF viewers (RFC 8118 ``#page=N``).

    Other open parameters in an existing fragment are kept; an existing ``page=`` is replaced,
    since two would contradict each other.
    """
    if isinstance(page, bool) or not isinstance(page, int) or page < 1:
        raise ValueError(f"a PDF page number is a positive integer, not {page!r}")
    base, hashmark, fragment = url.partition("#")
    if not hashmark or not fragment:
        return f"{base}#page={page}"
    params = fragment.split("&")
    replaced = False
    for i, param in enumerate(params):
        if param.startswith("page="):
            params[i] = f"page={page}"
            replaced = True
    if not replaced:
        params.append(f"page={page}")
    return f"{base}#{'&'.join(params)}"


# --- the view a browser would search ---------------------------------------------------------


def _fold_char(c: str) -> str:
    decomposed = unicodedata.normalize("NFD", c)
    base = decomposed[0] if decomposed else c
    marks = decomposed[1:]
    if marks and not all(unicodedata.category(m).startswith("M") for m in marks):
        base = c
    lowered = base.lower()
    return lowered if len(lowered) == 1 else base


def _is_word_char(c: str) -> bool:
    return c.isalnum() or c == "_" or unicodedata.category(c).startswith("M")


_WHITESPACE_RUN = re.compile(r"\s+")
_NEWLINES = frozenset("\n\r\u2028\u2029\x0b\x0c\x1c\x1d\x1e\x85")


class _View:
    """The text with whitespace runs collapsed to one space, as a rendered page shows it."""

    def __init__(self, text: str) -> None:
        pieces: list[str] = []
        self._run_starts: list[int] = []  # text offset of each collapsed whitespace run
        self._run_ends: list[int] = []
        self._shift: list[int] = []  # characters dropped by the runs up to and including this one
        self.breaks: list[int] = []  # view offsets of spaces that stand for a newline (sorted)
        dropped = 0
        last = 0
        for m in _WHITESPACE_RUN.finditer(text):
            a, b = m.span()
            pieces.append(text[last:a])
            view_at = a - dropped
            if not _NEWLINES.isdisjoint(m.group()):
                self.breaks.append(view_at)
            pieces.append(" ")
            dropped += b - a - 1
            self._run_starts.append(a)
            self._run_ends.append(b)
            self._shift.append(dropped)
            last = b
        pieces.append(text[last:])
        self.text = "".join(pieces)
        table = {ord(c): _fold_char(c) for c in set(self.text)}
        self.folded = self.text.translate(table)

    def to_view(self, offset: int) -> int:
        """The view position of text offset ``offset`` (first view char at or after it)."""
        k = bisect.bisect_left(self._run_starts, offset) - 1  # last run starting before offset
        if k < 0:
            return offset
        before = self._shift[k - 1] if k else 0
        if offset < self._run_ends[k]:  # inside run k: just after its single space
            return self._run_starts[k] - before + 1
        return offset - self._shift[k]

    def is_boundary(self, i: int) -> bool:
        s = self.text
        if i <= 0 or i >= len(s):
            return len(s) > 0
        a, b = s[i - 1], s[i]
        if _is_word_char(a) and _is_word_char(b):
            return False
        # in-word punctuation: "don't", "3.5", "1,000" stay one word
        if b in _IN_WORD and i + 1 < len(s) and _joins(a, b, s[i + 1]):
            return False
        return not (a in _IN_WORD and i >= 2 and _joins(s[i - 2], a, b))

    def find(self, query: str, lo: int, hi: int, word_start: bool, word_end: bool) -> int | None:
        """First start of ``query`` (folded) fully inside [lo, hi) meeting the boundary rules."""
        q = "".join(_fold_char(c) for c in query)
        pos = lo
        while True:
            idx = self.folded.find(q, pos, hi)
            if idx < 0:
                return None
            if (not word_start or self.is_boundary(idx)) and (
                not word_end or self.is_boundary(idx + len(q))
            ):
                return idx
            pos = idx + 1

    def starts_at(self, query: str, pos: int, hi: int, word_end: bool) -> bool:
        q = "".join(_fold_char(c) for c in query)
        if pos + len(q) > hi or not self.folded.startswith(q, pos):
            return False
        return not word_end or self.is_boundary(pos + len(q))

    def skip_space(self, pos: int, hi: int) -> int:
        while pos < hi and self.text[pos] == " ":
            pos += 1
        return pos


def _joins(left: str, mid: str, right: str) -> bool:
    if left.isalpha() and right.isalpha():
        return mid in _IN_WORD_BETWEEN_LETTERS
    if left.isdigit() and right.isdigit():
        return mid in _IN_WORD_BETWEEN_DIGITS
    return False


def _locate(view: _View, d: TextDirective) -> tuple[int, int] | None:
    """The spec's "find a range from a text directive", over the view (block rules aside)."""
    end_of_doc = len(view.text)
    search_start = 0
    while search_start < end_of_doc:
        if d.prefix is not None:
            p = view.find(d.prefix, search_start, end_of_doc, word_start=True, word_end=False)
            if p is None:
                return None
            search_start = p + 1
            match_start = view.skip_space(p + len(d.prefix), end_of_doc)
            if match_start >= end_of_doc:
                return None
            must_end = d.end is not None or d.suffix is None
            if not view.starts_at(d.start, match_start, end_of_doc, word_end=must_end):
                continue
            m_start, m_end = match_start, match_start + len(d.start)
        else:
            must_end = d.end is not None or d.suffix is None
            found = view.find(d.start, search_start, end_of_doc, word_start=True, word_end=must_end)
            if found is None:
                return None
            search_start = found + 1
            m_start, m_end = found, found + len(d.start)
        range_end_from = m_end
        while range_end_from < end_of_doc or d.end is None:
            if d.end is not None:
                e = view.find(
                    d.end, range_end_from, end_of_doc, word_start=True, word_end=d.suffix is None
                )
                if e is None:
                    return None
                m_end = e + len(d.end)
            if d.suffix is None:
                return m_start, m_end
            suffix_at = view.skip_space(m_end, end_of_doc)
            s = view.find(d.suffix, suffix_at, end_of_doc, word_start=False, word_end=True)
            if s is None:
                return None
            if s == suffix_at:
                return m_start, m_end
            if d.end is None:
                break
            range_end_from = m_end
        else:
            return None
    return None


# --- choosing terms ---------------------------------------------------------------------------


def _tokens(view: _View, lo: int, hi: int) -> list[tuple[int, int]]:
    """Space-separated tokens of view[lo:hi] as (start, end) view offsets."""
    out: list[tuple[int, int]] = []
    i = lo
    s = view.text
    while i < hi:
        while i < hi and s[i] == " ":
            i += 1
        if i >= hi:
            break
        j = i
        while j < hi and s[j] != " ":
            j += 1
        out.append((i, j))
        i = j
    return out


def _crosses_break(view: _View, lo: int, hi: int) -> bool:
    k = bisect.bisect_left(view.breaks, lo)
    return k < len(view.breaks) and view.breaks[k] < hi


def _prefix_term(view: _View, at: int, words: int) -> str | None:
    """The ``words`` tokens before view offset ``at``, within one block, or None."""
    if words == 0:
        return None
    s = view.text
    end = at
    while end > 0 and s[end - 1] == " ":
        end -= 1
    if end == 0:
        return None
    start = end
    for _ in range(words):
        while start > 0 and s[start - 1] == " ":
            start -= 1
        if start == 0:
            break
        while start > 0 and s[start - 1] != " ":
            start -= 1
    if start == end or _crosses_break(view, start, end):
        return None
    return s[start:end]


def _suffix_term(view: _View, at: int, words: int) -> str | None:
    if words == 0:
        return None
    s = view.text
    start = at
    while start < len(s) and s[start] == " ":
        start += 1
    if start >= len(s):
        return None
    end = start
    for _ in range(words):
        while end < len(s) and s[end] == " ":
            end += 1
        if end >= len(s):
            break
        while end < len(s) and s[end] != " ":
            end += 1
    if start == end or _crosses_break(view, start, end):
        return None
    return s[start:end]


def _context_pairs(limit: int) -> list[tuple[int, int]]:
    pairs: list[tuple[int, int]] = []
    for n in range(limit + 1):
        for pair in ((n, 0), (0, n), (n, n)):
            if pair not in pairs:
                pairs.append(pair)
    return pairs


def _quote_span(view: _View, quote_start: int, quote_end: int) -> tuple[int, int]:
    """The quote in view offsets, trimmed of spaces and widened to whole words."""
    lo = view.to_view(quote_start)
    hi = view.to_view(quote_end)
    s = view.text
    while lo < hi and s[lo] == " ":
        lo += 1
    while hi > lo and s[hi - 1] == " ":
        hi -= 1
    while 0 < lo < hi and not view.is_boundary(lo):
        lo -= 1
    while lo < hi < len(s) and not view.is_boundary(hi):
        hi += 1
    return lo, hi


@functools.lru_cache(maxsize=16)
def _view_of(text: str) -> _View:
    """The folded, tokenised text, built once per evidence text: a build links every checked
    citation of a source to its passage, and this is the costly part (≈0.4 ms per KB)."""
    return _View(text)


def text_directive(text: str, quote_start: int, quote_end: int) -> TextDirective | None:
    """The shortest directive found whose first match in ``text`` is exactly the quote.

    Short quotes on one line are given whole; longer ones, or ones spanning a line, as
    ``start,end`` with a few words each. Terms grow, then prefix and suffix words are added,
    until the spec's matcher picks the quote and nothing earlier. None when nothing works.
    """
    if not 0 <= quote_start <= quote_end <= len(text):
        raise ValueError(
            f"quote span {quote_start}..{quote_end} is outside the text (length {len(text)})"
        )
    view = _view_of(text)
    lo, hi = _quote_span(view, quote_start, quote_end)
    if lo >= hi:
        return None
    words = _tokens(view, lo, hi)
    spans_break = _crosses_break(view, lo, hi)

    candidates: list[tuple[str, str | None]] = []
    if len(words) <= EXACT_MAX_WORDS and not spans_break:
        candidates.append((view.text[lo:hi], None))
    if len(words) >= 2:
        for k in range(RANGE_MIN_WORDS, RANGE_MAX_WORDS + 1):
            ks = min(k, len(words) - 1)
            ke = min(k, len(words) - ks)
            # a term may not cross a block boundary: cut it at the first/last break
            start = _cut_at_break(view, lo, words[ks - 1][1], keep="head")
            end = _cut_at_break(view, words[len(words) - ke][0], hi, keep="tail")
            if start and end and (start, end) not in candidates:
                candidates.append((start, end))
            if ks + ke >= len(words):
                break

    for p_words, s_words in _context_pairs(MAX_CONTEXT_WORDS):
        prefix = _prefix_term(view, lo, p_words)
        suffix = _suffix_term(view, hi, s_words)
        if (p_words and prefix is None) or (s_words and suffix is None):
            continue
        for first, last in candidates:
            d = TextDirective(start=first, end=last, prefix=prefix, suffix=suffix)
            if _locate(view, d) == (lo, hi):
                return d
    return None


def _cut_at_break(view: _View, lo: int, hi: int, keep: str) -> str:
    inner = view.breaks[bisect.bisect_left(view.breaks, lo) : bisect.bisect_left(view.breaks, hi)]
    if not inner:
        return view.text[lo:hi]
    if keep == "head":
        return view.text[lo : inner[0]].rstrip(" ")
    return view.text[inner[-1] + 1 : hi].lstrip(" ")


def receipt_is_pdf(r: Receipt) -> bool:
    """Only a paged text (a PDF) gives a receipt a page number."""
    return (
        r.page is not None
        or "pdf" in (r.content_type or "").lower()
        or "pdf" in (r.extractor or "").lower()
    )


def passage_link(r: Receipt, text: str | None, base: str | None = None) -> str | None:
    """The one way to send a reader to a receipt's passage at the source: ``#page=N`` for a PDF,
    a text fragment for a page; None for local files or when no unambiguous link exists."""
    base = base or r.url
    if base is None or not base.lower().startswith(("http://", "https://")):
        return None
    if receipt_is_pdf(r):
        return pdf_page_url(base, r.page) if r.page else None
    if text is None or r.char_start is None or r.char_end is None:
        return None
    if not 0 <= r.char_start < r.char_end <= len(text):
        return None
    link = text_fragment_url(base, text, r.char_start, r.char_end)
    return link if link != base else None
