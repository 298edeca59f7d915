"""Normalising text for quote matching, keeping the way back to the original offsets.

The locator compares the writer's quote with the extracted source text after removing the
differences that are honest accidents of typing and extraction: Unicode compatibility forms
(ligatures), whitespace runs and line breaks, zero-width characters and soft hyphens, smart
quotes, dash variants (a dash between words loses its spaces: "a — b", "a -- b" → "a-b"), and
hyphens inside a word, at a line break or not ("classi-" at a line end before "fication",
"well-known", "vari- ables" all lose the hyphen: a source's spelling cannot be told from its
line breaking). ``prepare`` does this once per text and keeps a piecewise offset map so that a
match in the normalised text is reported as a span of the ORIGINAL text (code points): the
receipt quotes the source's own words, never the normalised ones.

Must never: fold case (case is a difference, except the quote's first letter, which the locator
handles); turn a superscript, subscript or vulgar fraction into plain digits ("10²" is not
"102"); drop a character that carries meaning (letters, digits, signs); do I/O.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

# Every dash-like character becomes ASCII '-'; hyphen-minus itself is included so that runs
# ("--", " - ") are handled by the same rule.
DASHES = "-\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\u2e3a\u2e3b\ufe58\ufe63\uff0d"
_HYPHENS = "-\u2010\u2011"
SINGLE_QUOTES = "\u2018\u2019\u201a\u201b\u2032\u2035\u2039\u203a\u02bc\u0060\u00b4\uff07"
DOUBLE_QUOTES = "\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb\uff02\u301d\u301e"
# Where ``prepare`` cuts the normalised text into the pieces it counts (``Prepared.pieces``).
# Any one character would do; the commonest letter of the languages in the corpus cuts prose
# into pieces of a few characters across word ends, most of them unique in a text: nearly every
# quote has such a piece, a quote with a changed character usually one the text lacks, and
# there are fewer pieces to count than words.
PIECE_MARK = "e"
# Removed outright: they are invisible and never separate words.
ZERO_WIDTH = (
    "\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e"
    # the direction marks and isolates a right-to-left page or an editor leaves in a word
    "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)

_QUOTE_TABLE = {ord(c): "'" for c in SINGLE_QUOTES} | {ord(c): '"' for c in DOUBLE_QUOTES}
_CHAR_TABLE = _QUOTE_TABLE | {ord(c): "-" for c in DASHES} | {ord(c): None for c in ZERO_WIDTH}

# Every character str.isspace() accepts except the plain space.
WHITESPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)

# First, the one-for-one replacements, which keep every offset.
_ONE_FOR_ONE_MAP = (
    {c: " " for c in WHITESPACE}
    | {c: "'" for c in SINGLE_QUOTES}
    | {c: '"' for c in DOUBLE_QUOTES}
    | {c: "-" for c in DASHES[1:]}
)


def _code_point_table(mapping: dict[str, str]) -> tuple[int, ...]:
    """The same mapping indexed by code point: str.translate looks a sequence up faster than a
    dict. Code points past its end are left alone (none of them is mapped)."""
    table = list(range(max(map(ord, mapping)) + 1))
    for c, r in mapping.items():
        table[ord(c)] = ord(r)
    return tuple(table)


_ONE_FOR_ONE_TABLE = _code_point_table(_ONE_FOR_ONE_MAP)
_ONE_FOR_ONE_PAIRS = tuple(_ONE_FOR_ONE_MAP.items())
_WHITESPACE_PAIRS = tuple((c, " ") for c in WHITESPACE)
_Z = re.escape(ZERO_WIDTH.replace("\u00ad", ""))

# Then one pass finds every place where the length changes; everything between matches is
# copied as is and mapped linearly, so plain prose costs almost nothing.
_SPECIAL = re.compile(
    # the lookahead lets the regex engine skip ordinary text at C speed
    rf"(?=[-\u00ad{_Z}\x80-\U0010ffff]|  | -)(?:"
    r"(?P<dash> *-+ *)"
    r"|(?P<shy>\u00ad *)"
    rf"|(?P<zw>[{_Z}]+)"
    r"|(?P<ws> {2,})"
    rf"|(?P<uni>[^\x00-\x7f\u00ad{_Z}]+))"
)
_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


_KEEP_DECOMPOSITIONS = ("<super>", "<sub>", "<fraction>")


def _keep_as_is(ch: str) -> bool:
    """Superscripts, subscripts and vulgar fractions keep their meaning only as they are."""
    return unicodedata.decomposition(ch).startswith(_KEEP_DECOMPOSITIONS)


def _clusters(s: str) -> list[str]:
    """Split into base character + following combining marks (what NFKC may compose)."""
    out: list[str] = []
    for ch in s:
        if out and unicodedata.combining(ch):
            out[-1] += ch
        else:
            out.append(ch)
    return out


def _nfkc_cluster(cluster: str) -> str:
    if _keep_as_is(cluster[0]):
        return unicodedata.normalize("NFC", cluster)
    out = unicodedata.normalize("NFKC", cluster)
    if out != cluster:
        # Compatibility forms can produce characters the other rules handle (quotes, dashes,
        # spaces): apply those too so the result never depends on the order of rules.
        out = out.translate(_CHAR_TABLE)
        out = " ".join(out.split()) if any(c.isspace() for c in out) else out
    return out


@dataclass(frozen=True)
class Prepared:
    """A text normalised once for many quotes, with its offset map back to the original.

    The map is a list of segments. Segment ``i`` starts at normalised offset ``seg_norm[i]`` and
    original offset ``seg_orig[i]``. A *linear* segment maps char for char; a *block* segment
    (a replacement: a whitespace run → one space, a ligature → two letters, ...) maps every one of
    its normalised characters to the whole original range ``[seg_orig[i], seg_orig_end[i])``.
    """

    text: str
    norm: str
    seg_norm: tuple[int, ...]
    seg_orig: tuple[int, ...]
    seg_orig_end: tuple[int, ...]  # -1 for linear segments
    # How often each piece of ``norm.split(PIECE_MARK)`` occurs (see ``occurrence_bound``);
    # None: not counted.
    pieces: Counter[str] | None = field(default=None, compare=False, repr=False)
    # Derived views of the same text that callers may memoise (e.g. the text without running
    # headers); never part of equality.
    cache: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    def orig_start(self, k: int) -> int:
        """Original offset of the normalised character at ``k`` (its first code point)."""
        if k >= len(self.norm):
            return len(self.text)
        i = bisect.bisect_right(self.seg_norm, k) - 1
        if i < 0:
            return k
        if self.seg_orig_end[i] < 0:
            return self.seg_orig[i] + (k - self.seg_norm[i])
        return self.seg_orig[i]

    def orig_end(self, k: int) -> int:
        """Original offset just after the normalised character at ``k - 1`` (exclusive end)."""
        if k <= 0:
            return 0
        i = bisect.bisect_right(self.seg_norm, k - 1) - 1
        if i < 0:
            return k
        if self.seg_orig_end[i] < 0:
            return self.seg_orig[i] + (k - self.seg_norm[i])
        return self.seg_orig_end[i]

    def orig_span(self, ns: int, ne: int) -> tuple[int, int]:
        """``(orig_start(ns), orig_end(ne))``, in one call: the locator's every answer."""
        if ns >= ne or ns < 0 or ne > len(self.norm):
            return self.orig_start(ns), self.orig_end(ne)
        seg_norm, seg_orig, seg_end = self.seg_norm, self.seg_orig, self.seg_orig_end
        i = bisect.bisect_right(seg_norm, ns) - 1
        if i < 0:
            a = ns
        elif seg_end[i] < 0:
            a = seg_orig[i] + (ns - seg_norm[i])
        else:
            a = seg_orig[i]
        j = bisect.bisect_right(seg_norm, ne - 1, i + 1) - 1  # ne - 1 >= ns: not before i
        if j < 0:
            b = ne
        elif seg_end[j] < 0:
            b = seg_orig[j] + (ne - seg_norm[j])
        else:
            b = seg_end[j]
        return a, b

    def occurrence_bound(self, s: str) -> int:
        """At most how many times ``s`` occurs in ``norm`` (at any offset), or -1 if unknown.

        ``norm.split(PIECE_MARK)`` cuts at every occurrence of the mark (one character). A piece
        of ``s`` with the mark on both sides (an inner piece) stands whole between two marks at
        every occurrence of ``s``, at a different place each time: ``s`` cannot occur more often
        than its rarest inner piece does among the pieces of ``norm``. That lets the locator
        stop looking once it has seen that many (deciding "not ambiguous" without searching the
        rest of the text), and not look at all at 0. The loop stops at the first piece seen at
        most once: that is all a search that has found one occurrence needs to know.
        """
        pieces = self.pieces
        if pieces is None:
            return -1
        inner = s.split(PIECE_MARK)[1:-1]
        if not inner:
            return -1
        get = pieces.get
        least = len(self.norm) + 1
        for w in inner:
            n = get(w, 0)
            if n < least:
                if n <= 1:
                    return n
                least = n
        return least


def _specials(t1: str) -> list[tuple[str, int, int]]:
    """Where ``_SPECIAL`` matches, as (kind, start, end). Short ASCII strings (quotes) are
    scanned with ``str.find``, which is several times faster there than the regex and finds
    exactly the same matches: only dash runs and space runs can occur in them."""
    if len(t1) > 512 or not t1.isascii():
        return [(m.lastgroup or "", *m.span()) for m in _SPECIAL.finditer(t1)]
    out: list[tuple[str, int, int]] = []
    n = len(t1)
    pos = 0
    while True:
        d = t1.find("-", pos)
        w = t1.find("  ", pos)
        if d < 0 and w < 0:
            return out
        if d >= 0:
            ds = d
            while ds > pos and t1[ds - 1] == " ":
                ds -= 1
        if d < 0 or (w >= 0 and w < ds):
            e = w
            while e < n and t1[e] == " ":
                e += 1
            if e < n and t1[e] == "-":  # spaces before a dash belong to the dash
                ds, d = w, e
            else:
                out.append(("ws", w, e))
                pos = e
                continue
        e = d
        while e < n and t1[e] == "-":
            e += 1
        while e < n and t1[e] == " ":
            e += 1
        out.append(("dash", ds, e))
        pos = e


def _build(
    text: str, want_map: bool, t1: str | None = None
) -> tuple[str, list[int], list[int], list[int]]:
    """``t1``, when given, is ``text`` after the one-for-one replacements."""
    if t1 is not None:
        pass
    elif text.isascii() and len(text) < 4096:  # one table lookup per character is cheapest
        t1 = text.translate(_ONE_FOR_ONE_TABLE)
    elif len(text) < 4096:  # a quote: translate() is slow on other strings
        t1 = _ONE_FOR_ONE_RX.sub(_one_for_one, text)
    else:
        # a text: str.replace of each character there is runs at memchr speed; the replacements
        # commute (none makes a character another one replaces)
        t1 = text
        for c, rep in _ONE_FOR_ONE_PAIRS if not text.isascii() else _WHITESPACE_PAIRS:
            if c in t1:
                t1 = t1.replace(c, rep)
    if not want_map and t1.isascii() and "-" not in t1 and "  " not in t1:
        return t1, [], [], []  # nothing left that changes length
    out: list[str] = []
    seg_norm: list[int] = []
    seg_orig: list[int] = []
    seg_end: list[int] = []
    n = 0  # length of the output so far
    copy_from = 0  # original offset of the pending linear chunk
    last = ""  # last output character (context for the dash rule)

    def linear(pos: int, chunk: str) -> None:
        nonlocal n, last
        if want_map and not (
            seg_end and seg_end[-1] < 0 and seg_orig[-1] + (n - seg_norm[-1]) == pos
        ):
            seg_norm.append(n)
            seg_orig.append(pos)
            seg_end.append(-1)
        out.append(chunk)
        n += len(chunk)
        last = chunk[-1]

    def block(rep: str, o_start: int, o_end: int) -> None:
        nonlocal n, last
        if rep:
            if want_map:
                seg_norm.append(n)
                seg_orig.append(o_start)
                seg_end.append(o_end)
            out.append(rep)
            n += len(rep)
            last = rep[-1]

    def flush(upto: int) -> None:
        if upto > copy_from:
            linear(copy_from, t1[copy_from:upto])

    size = len(text)
    for kind, s, e in _specials(t1):
        if kind == "dash":
            raw = t1[s:e]
            rep = _dash_rep(
                t1[s - 1] if s > copy_from else last, raw, _next_visible(t1, e), text[s]
            )
            if rep == raw:
                continue
            flush(s)
            block(rep, s, e)
        elif kind == "shy":
            flush(s)
            if e - s > 1 and not any(c in _LINE_BREAKS for c in text[s:e]):
                # a soft hyphen before spaces on the same line: only the hyphen goes
                copy_from = s + 1
                if e - s > 2:
                    block(" ", s + 1, e)
                    copy_from = e
                continue
        elif kind == "zw":
            flush(s)
        elif kind == "ws":
            flush(s)
            block(" ", s, e)
        else:  # uni
            run = t1[s:e]
            lead_mark = unicodedata.combining(run[0]) != 0
            if not lead_mark and unicodedata.is_normalized("NFKC", run):
                continue
            # A combining mark at the start belongs to the character before it.
            start = s - 1 if lead_mark and s > copy_from else s
            flush(start)
            pos = start
            for cl in _clusters(t1[start:e]):
                rep = _nfkc_cluster(cl)
                if rep == cl or (len(cl) == 1 and len(rep) == 1):
                    linear(pos, rep)
                else:
                    block(rep, pos, pos + len(cl))
                pos += len(cl)
        copy_from = e
    flush(size)
    return "".join(out), seg_norm, seg_orig, seg_end


def prepare(text: str) -> Prepared:
    """Normalise ``text`` once, keeping the offset map (see ``Prepared``)."""
    norm, sn, so, se = _build(text, True)
    return Prepared(
        text=text,
        norm=norm,
        seg_norm=tuple(sn),
        seg_orig=tuple(so),
        seg_orig_end=tuple(se),
        pieces=Counter(norm.split(PIECE_MARK)),
    )


def normalize_for_match(s: str) -> str:
    """The normalised form the locator compares (no offset map), without edge whitespace."""
    # Collapsing whitespace first changes nothing the later rules look at (the characters
    # beside a dash, whether a space is there), except the soft hyphen's, which asks whether a
    # line break follows: a soft hyphen between two ASCII letters is simply dropped, any other
    # takes the full rules. Then the common cases skip the general pass (``_build``): a string
    # whose only changes are one-for-one (quotes, dashes) and dash runs takes ``_dash_runs``.
    if "\u00ad" in s:
        if s.count("\u00ad") != len(_SHY_IN_WORD.findall(s)):
            return _build(s, False)[0].strip()
        s = s.replace("\u00ad", "")
    s = " ".join(s.split())
    if s.isascii():
        if "`" in s:
            s = s.replace("`", "'")
        return _dash_runs(s, s).strip() if "-" in s else s
    t1 = _ONE_FOR_ONE_RX.sub(_one_for_one, s)  # what the table does, quicker on a short string
    if not t1.isascii() and (
        "  " in t1
        or _ZERO_WIDTH_RX.search(t1)
        or any(
            unicodedata.combining(run[0]) or not unicodedata.is_normalized("NFKC", run)
            for run in _UNI_RUN.findall(t1)
        )
    ):
        return _build(s, False, t1)[0].strip()
    return _dash_runs(s, t1).strip() if "-" in t1 else t1


_SHY_IN_WORD = re.compile(r"(?<=[A-Za-z])\u00ad(?=[A-Za-z])")
_ZERO_WIDTH_RX = re.compile(f"[{_Z}]")
_UNI_RUN = re.compile(rf"[^\x00-\x7f\u00ad{_Z}]+")  # as _SPECIAL's "uni"
_ONE_FOR_ONE_RX = re.compile(f"[{re.escape(''.join(_ONE_FOR_ONE_MAP))}]")


def _one_for_one(m: re.Match[str]) -> str:
    return _ONE_FOR_ONE_MAP[m.group()]


def _next_visible(t1: str, e: int) -> str:
    """The character at ``e``, past the soft hyphens and zero-width characters that are
    dropped: "so-\u00adcalled" must meet "so-called" (the dash rule looks at a letter, not at
    an invisible character)."""
    size = len(t1)
    while e < size and t1[e] in ZERO_WIDTH:
        e += 1
    return t1[e] if e < size else ""


def _dash_rep(prev: str, raw: str, nxt: str, first: str) -> str:
    """What a dash run (``raw``: " *-+ *" after the one-for-one replacements) becomes, between
    the characters ``prev`` (output so far) and ``nxt``; ``first`` is its first character as
    written."""
    if prev.isalpha() and nxt.isalpha():
        # A lone hyphen right after a word is hyphenation, at a line break (also as pasted from
        # a PDF: "vari- ables") or inside a compound ("well-known"): the forms must meet, so it
        # is dropped. Anything else between two words is a dash: kept, without its spaces
        # ("left - and", "left—and" → "left-and").
        return "" if len(raw.strip()) == 1 and first in _HYPHENS else "-"
    if raw[0] == " " and raw[-1] != " " and nxt.isdigit():
        return " -"  # a sign: "fell to -5" keeps its minus apart from the word before
    return "-"


def _dash_runs(text: str, t1: str) -> str:
    """``_build`` for a short ``text`` whose only changes are the one-for-one replacements
    (``t1``) and dash runs: its runs of non-ASCII characters need no change, and it has no
    double space, zero-width character or soft hyphen. Nothing else changes length, so the
    character before a run is ``t1``'s own (``_build`` takes the output's last one, the same
    character, or a space or a dash where a run follows another: not a letter either way).
    Runs are " ?-+ ?" here, found as ``_SPECIAL`` finds them."""
    out: list[str] = []
    pos = 0  # t1 is copied up to here
    done = 0  # where the last run ended: its trailing space is not the next one's
    size = len(t1)
    i = t1.find("-")
    while i >= 0:
        s = i - 1 if i > done and t1[i - 1] == " " else i
        e = i + 1
        while e < size and t1[e] == "-":
            e += 1
        if e < size and t1[e] == " ":
            e += 1
        raw = t1[s:e]
        rep = _dash_rep(t1[s - 1] if s > 0 else "", raw, t1[e] if e < size else "", text[s])
        if rep != raw:
            out.append(t1[pos:s])
            out.append(rep)
            pos = e
        done = e
        i = t1.find("-", e)
    out.append(t1[pos:])
    return "".join(out)
