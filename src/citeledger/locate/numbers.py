"""A found quote's edges against the numbers of its source: no number cut from its expression.

A number is its whole expression: "10–20" is not "10", "2 209" is not "209", "−5" is not "5",
"16 MB to 64 MB" is not "16 MB", "four of the five" is not "four", "between 400 and 600 water
main breaks" is not "between 400 and 600". A quote whose edge falls inside one states another
quantity with the source's own digits (docs/editorial-marks.md, "Numbers at the quote's
edges").

Must never: read anything but the text given; refuse a number whose phrase the source's own
punctuation ends, or a year or a label's number ("in 2019", "page 12") before any word.
"""

from __future__ import annotations

import re

from citeledger.locate.wordlists import (
    NUMBER_LABELS,
    NUMBER_PHRASE_ENDS,
    NUMBER_WORDS,
    SYMBOLS,
    UNITS,
)

_SUPERSCRIPTS = "¹²³\u2070-\u209f"
_FRACTIONS = "\u00bc-\u00be\u2150-\u215e"
_RAISED = re.compile(f"[\\^{_SUPERSCRIPTS}{_FRACTIONS}]")
_SPACES = "[^\\S\\n\\u2009\\u202f]|[\\u2009\\u202f\\u00a0]"
# the source goes on with an operation on the number, a range's dash, its decimals, or with its
# thousands as the extraction or the typesetter spaced them ("200, 000", "2 209", "2\u2009209")
_OPERATION = re.compile(
    r"[^\S\n]?[-+\u2212\u00d7*/\u2013][^\S\n]?\d|[.,]\d"
    r"|,[^\S\n]?\d{3}(?!\d)|[ \u00a0\u2009\u202f]\d{3}(?![\d.,]\d)"
)
_THOUSANDS_HEAD = re.compile(r"(?<![\d,.])\d{1,3}$")  # "200" may go on ", 000"; "2019" not
_NUMBER_UNIT_END = re.compile(r"\d\s*[^\W\d_]{1,4}$")
_NUMBER_SIGNS = "%\u2030\u00b0\u2032\u2033\u00b2\u00b3" + SYMBOLS
_AFTER_NUMBER = re.compile(
    r"([%\u2030\u00b0\u2032\u2033\u00b2\u00b3]|[^\W\d_]+)|[^\S\n]*\n?[^\S\n]*([^\W\d_]+)"
)
_ORDINALS = """first second third fourth fifth sixth seventh eighth ninth tenth last next previous
    prior once twice thrice double triple quadruple single percent"""
_CARDINALS = NUMBER_WORDS - frozenset(_ORDINALS.split()) | frozenset({"one"})
# the number (or number and unit) the quote ends on
_END_NUMBER = re.compile(
    r"(?:(?<![\w.,])(?P<num>\d+(?:[.,]\d+)*)(?:[^\S\n]?(?P<unit>[^\W\d_]{1,5}|%))?"
    r"|\b(?P<word>[^\W\d_]+))$"
)
# what the source goes on with that makes the number a bound of a range or a part of a whole:
# "to 64 MB", "and 600", "of the five", "out of 10", "in ten"
_RANGE_OR_PART = re.compile(
    r"[^\S\n]*\n?[^\S\n]*(?:(?P<join>to|and|or|through|thru|-|\u2013)"
    r"|(?P<part>of|out[^\S\n]+of|in))[^\S\n]*\n?[^\S\n]*(?:(?:the|a|every|each)[^\S\n]+)?"
    r"(?P<n>\d|[^\W\d_]+)",
    re.IGNORECASE,
)
# the lower-case word the source goes on with, on the line or the next (a wrapped line)
_NEXT_WORD = re.compile(
    r"[^\S\n]+(?:\n[^\S\n]*)?([a-z\u00df-\u00ff][^\W\d_]*)|\n[^\S\n]*([a-z][^\W\d_]*)"
)
_WORD_BEFORE = re.compile(r"([^\W\d_]+)\.?[^\S\n]+$")
_YEAR = re.compile(r"1[0-9]{3}|20[0-9]{2}")
# before the quote's first number: a sign, an operator or a range's dash on a number, the
# number's own digits (decimals, a thousands group), a currency
_BEFORE_START = re.compile(
    r"(?:\d[^\S\n]?[-+\u2212\u00d7*/\u2013^]|[-+\u2212\u00b1$\u20ac\u00a3\u00a5]|\d[.,]"
    r"|(?<![\d.,])\d{1,3}(?:,[^\S\n]?|[ \u00a0\u2009\u202f]))$"
)
_SCALES = NUMBER_WORDS & UNITS | frozenset(
    {"hundred", "thousand", "million", "billion", "trillion"}
)
_START_SCALE = re.compile(r"(?P<w>[^\W\d_]+|%)")
_DIGITS_BEFORE = re.compile(r"\d[^\S\n]*$")


def cut_number_problem(raw: str, text: str, cs: int, ce: int) -> str | None:
    """Why the quote's start or end falls inside a number's expression, or None."""
    return _start_problem(raw, text, cs) or _end_problem(raw, text, ce)


def _start_problem(raw: str, text: str, cs: int) -> str | None:
    """A quote that starts on a number must start where the number does: not after its sign,
    its range's first bound, its thousands or its currency ("209 people" of "2 209 people")."""
    head = raw.lstrip(" \"'(\u201c\u2018")
    if cs <= 0 or not head:
        return None
    before = text[max(0, cs - 8) : cs]
    if head[0].isdigit():
        m = _BEFORE_START.search(before)
        if m is not None:
            return (
                f"the quote starts inside a number the source begins before it "
                f"('{m.group().strip()}'): quote the whole number"
            )
        return None
    w = _START_SCALE.match(head)
    if w is not None and w.group("w").lower() in _SCALES | UNITS and _DIGITS_BEFORE.search(before):
        # "million people" of "2 million people": the scale without its number
        return f"the quote starts on '{w.group('w')}' without the number the source gives it"
    return None


def _end_problem(raw: str, text: str, ce: int) -> str | None:
    """A quote that ends on a number must not cut it from its unit or scale ("scored 82.2" of
    "scored 82.2%"), the rest of its expression ("10" of "10–20"), the range or whole it is a
    part of ("16 MB" of "16 MB to 64 MB", "four" of "four of the five"), or the noun it counts
    ("between 400 and 600" of "between 400 and 600 water main breaks")."""
    body = raw.rstrip(" .,;:!?\"')]}\u201d\u2019")
    if ce >= len(text) or not body:
        return None
    if body[-1].isalnum() and _RAISED.match(text, ce):
        # "dimension n" of "dimension n²", "up to 2" of "2^28": the power is the value
        return f"the quote stops before the power the source raises it to ('{text[ce]}')"
    if body[-1].isdigit():
        m = _OPERATION.match(text, ce)
        if m is not None and (
            m.group()[0] not in ", \u00a0\u2009\u202f" or _THOUSANDS_HEAD.search(body)
        ):
            # "2^15" of "2^15 - 1", "M = 200" of "M = 200, 000": the rest of the number
            return (
                f"the quote stops inside a number the source goes on with ('{m.group().strip()}')"
            )
    if body[-1].isalpha() and text[ce] in "/\u00b2\u00b3\u207b^" and _NUMBER_UNIT_END.search(body):
        # nor cut a unit short: "250 km" of "250 km/h", "3 m" of "3 m²"
        return f"the quote stops inside a unit the source goes on with ('{text[ce]}')"
    if text[ce - 1] in ".,;:!?)]}":
        return None  # the source's own punctuation closes the quote
    end = _END_NUMBER.search(body)
    if end is None or (end.group("word") and end.group("word").lower() not in _CARDINALS):
        return None
    if end.group("unit") and end.group("unit").lower() not in UNITS and end.group("unit") != "%":
        return None  # "5 people": the number has its noun
    unit_problem = _unit_after(body, text, ce)
    if unit_problem is not None:
        return unit_problem
    whole = _RANGE_OR_PART.match(text, ce)
    if whole is not None and (
        whole.group("n")[0].isdigit() or whole.group("n").lower() in _CARDINALS
    ):
        num = end.group("num") or ""
        if not (
            whole.group("part") and whole.group("part").lower() == "in" and _YEAR.fullmatch(num)
        ):
            # "16 MB" of "16 MB to 64 MB", "four" of "four of the five"
            return (
                f"the quote stops at a number the source goes on with "
                f"('{whole.group().strip()}'): quote the whole range or ratio"
            )
    if end.group("unit"):
        return None
    return _noun_after(body, text, ce, end)


def _unit_after(body: str, text: str, ce: int) -> str | None:
    """The unit or scale right after a number the quote ends on ("a period of 12" of "12
    hours")."""
    if not body[-1].isdigit():
        return None
    m = _AFTER_NUMBER.match(text, ce)
    if m is None:
        return None
    unit = m.group(1) or m.group(2)
    if m.group(1):
        if not (m.group(1)[0] in _NUMBER_SIGNS or m.group(1).lower() in UNITS):
            return None  # "R1d", "∆2k": letters the extraction glued on, not a unit
    elif not (unit.lower() in NUMBER_WORDS or unit.lower() in UNITS):
        return None
    elif "\n" in m.group() and unit[0].isupper() and not unit.isupper():
        return None  # a capital on the next line starts a line of its own ("2018\nA new study")
    elif "\n" in m.group() and unit == "A" and text[m.end() : m.end() + 2][1:].islower():
        return None  # the article at a line's start, not amperes
    return f"the quote stops at a number the source goes on with ('{unit}'): a unit or scale"


def _noun_after(body: str, text: str, ce: int, end: re.Match[str]) -> str | None:
    """A count the quote ends on, where the source goes on with the word it counts."""
    num = end.group("num")
    if num is not None and _YEAR.fullmatch(num):
        return None  # "in 2019 the firm": a year, not a count
    label = _WORD_BEFORE.search(body[: end.start()])
    if label is not None and label.group(1).lower() in NUMBER_LABELS:
        return None  # "page 12 shows": the number names, it does not count
    m = _NEXT_WORD.match(text, ce)
    if m is None:
        return None
    word = m.group(1) or m.group(2)
    if len(word) < 2 or word.lower() in NUMBER_PHRASE_ENDS or word.lower() in NUMBER_WORDS:
        return None
    return (
        f"the quote stops at a number the source goes on with the word it counts ('{word}'): "
        "quote the number with its noun"
    )
