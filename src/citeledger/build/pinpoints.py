"""The one locator vocabulary: what ``p. 14``, ``§ 2`` or ``pt. 3`` means, for every module.

A citation selects its quote by the locator it carries (``[@hchm, p. 14]`` ↔ a ledger quote
with ``locator: page 14``), so the code that reads a locator out of a citation's suffix
(``parse_locator``, used by ``citations``) and the code that compares two locators
(``normalize_locator``, used by ``judge``) must share one list of labels, or a citation and its
quote would silently stop matching. That list is ``TERMS``: each label with its forms.

Two readers, one vocabulary:

- ``parse_locator`` splits free suffix text, so it is strict: a label is one of the forms as
  written in ``TERMS`` (case-insensitive; the short forms with their full stop, as CSL writes
  them), and its value must look like a locator (digits, or a roman numeral after a label).
  It follows pandoc's citeproc for CSL's terms, and also accepts the few extra labels writers
  use for pinpoints (``ch.``, ``art.``, ``tbl.``, ``eq.``…) that citeproc leaves in the suffix:
  the rendered citation reads the same either way, and the quote can still be selected.
- ``normalize_locator`` reads a string already known to be a locator (a ledger quote's
  ``locator``, or what ``parse_locator`` found), so it is lenient: a short form may drop its
  full stop (``fig 3``, ``pp.14``), a bare number (or roman numeral) is a page, as in CSL.

The document's language (``lang``, also as ``-M lang=de`` sets it) adds its terms, as pandoc's
citeproc reads them: the CSL locale's forms of the locator terms (``S. 99``, ``Kap. 3`` in
German, ``pág. 4`` in Spanish), vendored in ``locator-terms.json`` (``tools/csl_locator_terms.py``,
CC BY-SA 3.0). Where a locale gives a form another label than English does (French ``§`` is a
paragraph), the locale's wins, as in citeproc. English forms stay accepted in every language:
citeproc leaves ``p. 99`` of a German document in the suffix, yet the reader sees "p. 99"
either way, so the quote it names is compared (as for ``ch.``). A ledger quote's locator is read
in the language of the document that cites it.

This module does no I/O but reading its one data file, once per language; no judging, nothing
about pandoc's AST.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

PAGE = "page"

# label -> its forms: CSL's en-US long, short and symbol forms of the locator terms pandoc's
# citeproc reads, then (after "|") abbreviations writers use that citeproc does not read.
# "_" stands for a space inside a form.
_FORMS = {
    "book": "bk. bks. book books",
    "chapter": "chap. chaps. chapter chapters | ch. chs.",
    "column": "col. cols. column columns",
    "figure": "fig. figs. figure figures",
    "folio": "fol. fols. folio folios",
    "issue": "no. nos. issue issues | number numbers",
    "line": "l. ll. line lines",
    "note": "n. nn. note notes",
    "opus": "op. opp. opus opera",
    "page": "p. pp. page pages | p pp pg. pgs. pág. págs. blz.",  # Spanish, Dutch usage
    "paragraph": "para. paras. paragraph paragraphs ¶ ¶¶",
    "part": "pt. pts. part parts",
    "section": "sec. secs. section sections § §§ | sect. sects.",
    "sub verbo": "s.v. s.vv. sub_verbo sub_verbis",
    "verse": "v. vv. verse verses",
    "volume": "vol. vols. volume volumes",
    # not CSL 1.0.1 terms (citeproc keeps them as suffix), but common pinpoints
    "appendix": "| app. apps. appendix appendices",
    "article": "| art. arts. article articles",
    "equation": "| eq. eqs. equation equations",
    "table": "| tbl. tbls. tab. table tables",
}


def _terms(forms: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    return {
        label: tuple(f.replace("_", " ") for f in text.replace("|", " ").split())
        for label, text in forms.items()
    }


TERMS: Mapping[str, tuple[str, ...]] = _terms(_FORMS)
"""Every locator label and the forms that name it (case-insensitive)."""

CITEPROC_TERMS: Mapping[str, tuple[str, ...]] = _terms(
    {label: text.split("|")[0] for label, text in _FORMS.items() if text.split("|")[0].strip()}
)
"""The subset pandoc's citeproc itself reads as locators (the rest it leaves in the suffix)."""

TERMS_FILE = "locator-terms.json"


@dataclass(frozen=True)
class _Vocabulary:
    """One language's forms: as written (``parse_locator``) and also without their final full
    stop (``normalize_locator``), each to its label."""

    exact: Mapping[str, str]
    lenient: Mapping[str, str]


def _vocabulary(
    terms: Mapping[str, tuple[str, ...]], base: _Vocabulary | None = None
) -> _Vocabulary:
    """``terms`` (label → forms; where two labels share a form the first wins) over ``base``."""
    exact: dict[str, str] = {}
    stripped: dict[str, str] = {}
    for label, fs in reversed(list(terms.items())):
        for form in fs:
            exact[form.lower()] = label
            stripped[form.rstrip(".").lower()] = label
    if base is not None:
        exact = {**base.exact, **exact}
        stripped = {**base.lenient, **stripped}
    return _Vocabulary(exact, {**stripped, **exact})


_ENGLISH = _vocabulary(TERMS)
_SYMBOLS = ("§§", "¶¶", "§", "¶")


@functools.lru_cache(maxsize=1)
def _locales() -> dict[str, object]:
    data: dict[str, object] = json.loads(Path(__file__).with_name(TERMS_FILE).read_text("utf-8"))
    return data


def locale_of(lang: str | None) -> str | None:
    """The CSL locale pandoc's citeproc uses for ``lang`` (``de`` → ``de-DE``, ``pt_BR`` →
    ``pt-BR``); None for English, no language, or one CSL has no locale for."""
    if not lang or not lang.strip():
        return None
    tag = lang.strip().replace("_", "-")
    data = _locales()
    locales = data["locales"]
    primary = data["primary"]
    assert isinstance(locales, dict) and isinstance(primary, dict)
    by_lower = {name.lower(): name for name in locales}
    name = by_lower.get(tag.lower())
    if name is None:
        name = primary.get(tag.split("-")[0].lower())
    if not isinstance(name, str) or name.lower().startswith("en"):
        return None
    return name if name in locales else None


@functools.lru_cache(maxsize=8)
def _for_lang(lang: str | None) -> _Vocabulary:
    name = locale_of(lang)
    if name is None:
        return _ENGLISH
    locales = _locales()["locales"]
    assert isinstance(locales, dict)
    terms = {label: tuple(forms) for label, forms in locales[name].items()}
    return _vocabulary(terms, _ENGLISH)


_WS = re.compile(r"\s+")
_ROMAN = re.compile(
    r"^(?=[ivxlcdm]+$)m{0,4}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$", re.IGNORECASE
)
_UNIT = re.compile(r"^[\w()\[\]{}.:\-–—‐§]+$")
_NON_ALNUM = re.compile(r"[^0-9A-Za-z]+")
_DASHES = re.compile(r"\s*[-–—‐]+\s*")
# a label word, then its full stop, a space or straight a digit (``p14``), then the value: a bare
# roman numeral (``vi``) is a page, not the label ``v.`` and the value ``i``
_LABEL_WORD = re.compile(r"^([^\W\d_]+(?:\.[^\W\d_]+)*)(?:\.\s*|\s+|(?=\d))(.+)$")
_PAGE_LIKE = re.compile(r"^[\dIVXLCivxlc]")


# --------------------------------------------------------------------------- comparing


def normalize_locator(text: str | None, lang: str | None = None) -> tuple[str, str] | None:
    """A locator as (label, value) for comparison: ``p. 14``, ``page 14``, ``pp.14`` → ("page",
    "14"); ``§14.2`` → ("section", "14.2"); ``pp. 3–5`` → ("page", "3-5").

    A bare number (or roman numeral) is a page, as in CSL; anything else without a known label
    is ("other", the text in lower case). Dashes of ranges become ``-``. None for no locator.
    ``lang``: the document's language, whose terms are read too (``S. 14`` in German).
    """
    if not text:
        return None
    s = _WS.sub(" ", text.replace("\u00a0", " ")).strip().strip(",;").strip()
    if not s:
        return None
    split = _split_label(s, _for_lang(lang))
    if split is not None:
        label, value = split
    elif _PAGE_LIKE.match(s):
        label, value = PAGE, s
    else:
        return ("other", s.lower())
    value = _DASHES.sub("-", value.strip()).rstrip(".")
    return (label, value.lower())


def _split_label(s: str, vocab: _Vocabulary) -> tuple[str, str] | None:
    """The label at the start of ``s`` and the value after it, in the lenient reading."""
    words = s.split(" ")
    if len(words) > 2:
        two = f"{words[0]} {words[1]}".lower()
        if two in vocab.lenient:
            return vocab.lenient[two], " ".join(words[2:])
    for symbol in _SYMBOLS:
        if s.startswith(symbol) and s[len(symbol) :].strip():
            return vocab.lenient[symbol], s[len(symbol) :].strip()
    m = _LABEL_WORD.match(s)
    if m is not None and m.group(1).lower() in vocab.lenient:
        return vocab.lenient[m.group(1).lower()], m.group(2)
    return None


# --------------------------------------------------------------------------- parsing suffixes


@dataclass(frozen=True)
class Locator:
    """A pinpoint as read from a citation's suffix: its label (``page``, ``section``…), value."""

    label: str
    value: str
    raw: str  # as written, whitespace collapsed: "p. 14", "pp. 3–5", "§ 4", "89"


def parse_locator(suffix_text: str, lang: str | None = None) -> tuple[Locator | None, str]:
    """Split a citation suffix into its locator and the rest, the way pandoc's citeproc does.

    Accepts ``, p. 14``, ``pp. 3–5``, ``sec. 2``, ``ch. 3``, ``§ 4``, ``§4``, ``p.3``, a bare
    ``89`` (an implicit page, digits required), and the delimited form ``{35-89, 102}`` or
    ``p. {(a)}``. Anything after the locator is suffix. Without a locator the whole text is
    returned as the rest. Labels are the exact forms of ``TERMS`` and of the locale of
    ``lang`` (the document's language).
    """
    vocab = _for_lang(lang)
    text = _WS.sub(" ", suffix_text.replace("\xa0", " ")).strip()
    body = text[1:].lstrip() if text.startswith(",") else text
    delimited = _parse_delimited(body, vocab)
    if delimited is not None:
        return delimited
    integrated = _parse_integrated(body, vocab)
    if integrated is not None:
        return integrated
    return None, text


def unread_pinpoint(text: str) -> str | None:
    """``text`` (a suffix's rest after ``parse_locator``, or a prefix) when it still holds a
    pinpoint a reader follows — a number or a section or paragraph sign (``see p. 99``,
    ``fn. 12``, ``para 12``, a second locator ``, p. 99`` after ``vol. 2``) — that no locator
    reading took in; None when it holds none."""
    if any(ch.isdigit() or ch in "§¶" for ch in text):
        return _WS.sub(" ", text.replace("\xa0", " ")).strip(" ,;")
    return None


def _match_label(words: list[str], vocab: _Vocabulary) -> tuple[str, int, str] | None:
    """The longest locator form at the start of ``words``: (label, words used, text matched)."""
    if len(words) >= 2:
        two = f"{words[0]} {words[1]}".lower()
        if two in vocab.exact:
            return vocab.exact[two], 2, f"{words[0]} {words[1]}"
    if words and words[0].lower() in vocab.exact:
        return vocab.exact[words[0].lower()], 1, words[0]
    return None


def _split_glued_label(words: list[str], vocab: _Vocabulary) -> list[str]:
    """``p.3`` and ``§4`` carry their label glued to the value; citeproc splits them."""
    if not words:
        return words
    first = words[0]
    if first[:1] in "§¶" and len(first) > 1 and first[1:2] not in "§¶":
        return [first[0], first[1:], *words[1:]]
    dot = first.rfind(".")
    if 0 < dot < len(first) - 1 and first[: dot + 1].lower() in vocab.exact:
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


def _parse_integrated(body: str, vocab: _Vocabulary) -> tuple[Locator, str] | None:
    words = _split_glued_label(body.split(" "), vocab) if body else []
    label = _match_label(words, vocab)
    term, used, label_text = label if label is not None else (PAGE, 0, "")
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


def _parse_delimited(body: str, vocab: _Vocabulary) -> tuple[Locator, str] | None:
    brace = body.find("{")
    if brace < 0:
        return None
    label_text = body[:brace].strip()
    if label_text and label_text.lower() not in vocab.exact:
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
    term = vocab.exact[label_text.lower()] if label_text else PAGE
    if not label_text:
        words = inner.split(" ")
        label = _match_label(words, vocab)
        if label is not None:
            term, used, label_text = label
            inner = " ".join(words[used:])
    if not inner and not label_text:
        return None
    raw = f"{label_text} {inner}".strip()
    return Locator(term, inner, raw), rest


_PAGE_PART = re.compile(r"^(\d{1,5})(?:-(\d{1,5}))?$")
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}


class PageSpan(NamedTuple):
    """One comma part of a page locator: pages ``lo``–``hi`` (one page: ``lo == hi``), or,
    with ``roman``, the front-matter page that prints that numeral (its value in both)."""

    lo: int
    hi: int
    roman: bool = False


def page_spans(locator: str | None, lang: str | None = None) -> tuple[PageSpan, ...] | None:
    """The pages a page locator names, part by part (``p. 14`` → 14–14, ``pp. 14–16, 20`` →
    14–16 and 20–20, ``pp. 170–75`` → 170–175, ``p. xii`` → the page printing xii, ``S. 14``
    in German); None for another label, or a part that is no page number (``14n3``): then
    nothing is compared. A wide range is a span like any other (the quote must lie in it)."""
    norm = normalize_locator(locator, lang)
    if norm is None or norm[0] != PAGE:
        return None
    spans = []
    for part in norm[1].replace(" ", "").split(","):
        span = _page_span(part)
        if span is None:
            return None
        spans.append(span)
    return tuple(spans) or None


def _page_span(part: str) -> PageSpan | None:
    if _ROMAN.match(part):
        value = roman_value(part)
        return PageSpan(value, value, roman=True)
    m = _PAGE_PART.match(part)
    if m is None:
        return None
    lo, last = int(m.group(1)), m.group(2)
    hi = int(last) if last else lo
    if last and hi < lo and len(last) < len(m.group(1)):  # 170-75: the first's leading digits
        hi = int(m.group(1)[: -len(last)] + last)
    return PageSpan(lo, hi) if hi >= lo else None


def roman_numeral(token: str) -> bool:
    """Is ``token`` a roman numeral (``xii``, ``XIV``; at most eight letters)?"""
    return len(token) <= 8 and _ROMAN.match(token) is not None


def roman_value(numeral: str) -> int:
    """The value of a roman numeral (``xii`` → 12); the caller has matched it as one."""
    values = [_ROMAN_VALUES[c] for c in numeral.lower()]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))
