"""Normalisation for matching: each rule, and offsets that lead back to the original exactly."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeledger.locate.normalize import normalize_for_match, prepare


def span_of(text: str, needle: str) -> str:
    """The original text behind the first occurrence of ``needle`` in the normalised text."""
    p = prepare(text)
    i = p.norm.find(needle)
    assert i >= 0, (p.norm, needle)
    a, b = p.orig_span(i, i + len(needle))
    return text[a:b]


@pytest.mark.parametrize(
    ("text", "norm"),
    [
        ("the \ufb01rst \ufb02ow", "the first flow"),  # ligatures (NFKC)
        ("a  b\n\nc\t d\u00a0e\u2009f\u202fg", "a b c d e f g"),  # whitespace runs and spaces
        ("zero\u200bwidth\u200c\u200d\ufeffjoin", "zerowidthjoin"),
        ("soft\u00adhyphen and classi\u00ad\nfication", "softhyphen and classification"),
        ("\u201cquoted\u201d and \u2018single\u2019 it\u2019s", "\"quoted\" and 'single' it's"),
        ("10\u201320, \u22125 and x\u2012y", "10-20, -5 and x-y"),  # en dash, minus, figure dash
        ("classi-\nfication of well-\n   known", "classification of wellknown"),
        ("well-known and well\u2011known", "wellknown and wellknown"),
        # an invisible character beside a compound's hyphen does not keep the hyphen
        ("so-\u00adcalled and so-\u200bcalled", "socalled and socalled"),
        ("He left\u2014and came back", "He left-and came back"),  # a dash between words stays
        ("left -- and", "left-and"),
        ("fell to -5 degrees", "fell to -5 degrees"),  # a sign keeps its space before it
        ("10-fold COVID-19", "10-fold COVID-19"),
        ("cafe\u0301 and caf\u00e9", "caf\u00e9 and caf\u00e9"),  # composition
        ("Case Stays", "Case Stays"),
    ],
)
def test_rules(text: str, norm: str) -> None:
    assert prepare(text).norm == norm
    assert normalize_for_match(text) == norm.strip()


def test_superscripts_and_fractions_keep_their_meaning() -> None:
    # "10²" is not "102", and "½" is not "12": these are never flattened into digits
    assert prepare("10\u00b2 and \u00bd and H\u2082O").norm == "10\u00b2 and \u00bd and H\u2082O"


def test_offsets_lead_back_to_ligature_and_whitespace() -> None:
    text = "The \ufb01nal  answer\nis 42."
    assert span_of(text, "final answer is 42.") == "\ufb01nal  answer\nis 42."
    # half a ligature maps to the whole ligature: the source's own character
    assert span_of(text, "inal") == "\ufb01nal"


def test_offsets_lead_back_across_hyphenation_and_soft_hyphen() -> None:
    text = "a classi-\nfication and an ex\u00adample here"
    assert span_of(text, "classification") == "classi-\nfication"
    assert span_of(text, "example") == "ex\u00adample"


def test_offsets_lead_back_across_smart_quotes_and_dashes() -> None:
    text = "She said \u201cno\u201d \u2014 twice, in 1990\u20131991."
    assert span_of(text, '"no"-twice') == "\u201cno\u201d \u2014 twice"
    assert span_of(text, "1990-1991") == "1990\u20131991"


def test_offsets_around_zero_width_and_bom() -> None:
    text = "\ufeffStart\u200b here"
    assert span_of(text, "Start here") == "Start\u200b here"
    assert span_of(text, "here") == "here"


def test_combining_mark_after_ascii_letter() -> None:
    text = "a cafe\u0301 b"
    p = prepare(text)
    assert p.norm == "a caf\u00e9 b"
    assert span_of(text, "caf\u00e9") == "cafe\u0301"


def test_crlf_text() -> None:
    text = "line one\r\nline two\r\n\r\nthree"
    assert prepare(text).norm == "line one line two three"
    assert span_of(text, "one line two") == "one\r\nline two"


_PIECES = st.sampled_from(
    [
        "word",
        "Word",
        "fi",
        "\ufb01",
        " ",
        "  ",
        "\n",
        "\r\n",
        "\u00a0",
        "-",
        "\u2014",
        "\u2013",
        "\u00ad",
        "\u200b",
        "\u201c",
        "\u2019",
        "'",
        "e\u0301",
        "\u00e9",
        "1",
        "\u00b2",
        ".",
        ",",
        "\t",
        "x",
        "\ufb03",
        "\u2212",
        "\x1c",
        "\u2029",
        "\x0b",
        "`",
        "\u00a8",
        " - ",
        "--",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, min_size=1, max_size=40).map("".join))
def test_map_is_monotonic_and_points_at_the_source(text: str) -> None:
    p = prepare(text)
    last_start = 0
    for k, ch in enumerate(p.norm):
        a, b = p.orig_start(k), p.orig_end(k + 1)
        assert 0 <= a < b <= len(text)
        assert a >= last_start
        last_start = a
        # the original behind a normalised character normalises to something containing it
        # (a whitespace run or a dash with its spaces gives one space or one '-')
        behind = prepare(text[a:b]).norm
        assert ch in behind or (ch == " " and behind.strip() in ("", "-")) or ch in "-'\""
    assert p.orig_span(0, len(p.norm))[1] <= len(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(_PIECES, min_size=1, max_size=30).map("".join))
def test_quote_and_text_normalise_alike(text: str) -> None:
    # the quote is normalised without a map, the text with one: they must agree
    assert normalize_for_match(text) == prepare(text).norm.strip()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "B", " ", "  ", "-", "--", " - ", "1", "."]), max_size=25).map(
        "".join
    )
)
def test_quote_scanner_matches_the_text_regex(s: str) -> None:
    # short ASCII strings take a str.find scanner instead of the regex: same matches, always
    from citeledger.locate.normalize import _SPECIAL, _specials

    assert _specials(s) == [(m.lastgroup, *m.span()) for m in _SPECIAL.finditer(s)]


def test_whitespace_list_is_every_unicode_space() -> None:
    # the quick paths rely on str.split() and the table agreeing on what whitespace is
    from citeledger.locate.normalize import WHITESPACE

    spaces = {chr(c) for c in range(0x110000) if chr(c).isspace()}
    assert spaces == set(WHITESPACE) | {" "}


# The quick paths of normalize_for_match (ASCII, one-for-one only, dash runs, a soft hyphen
# inside a word) must give what the general pass gives, whatever surrounds them.
_QUICK_PIECES = st.sampled_from(
    [
        "ab",
        "Cd",
        "a\u00adb",
        "\u00ad",
        " ",
        "  ",
        "\n",
        "-",
        " -",
        "- ",
        " - ",
        "--",
        "\u2013",
        "\u2014",
        "\u2011",
        "\u2212",
        "\u2019",
        "\u201c",
        "`",
        "\u00e9",
        "\u00df",
        "e\u0301",
        "\u0301",
        "\ufb01",
        "\u00b2",
        "\u200b",
        "\u00a0",
        "5",
        ".",
        "\u3000",
        "\u00a8",
    ]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(_QUICK_PIECES, min_size=1, max_size=20).map("".join))
def test_quick_paths_agree_with_the_general_pass(text: str) -> None:
    from citeledger.locate.normalize import _build

    assert normalize_for_match(text) == _build(text, False)[0].strip()
    assert normalize_for_match(text) == prepare(text).norm.strip()


@pytest.mark.parametrize(
    "text",
    [
        "a - -5",  # a dash run right after one that ended in a space
        "a - -b",
        "a- -b",
        "x -- - 5",
        "a -\u2013 b",
        "fell to -5 and -\u20135",
        "well-\u00adknown",  # a soft hyphen beside a hyphen takes the general pass
        "caf\u00e9-bar \u2019t-",
        "\u00e9-\u00e9 -\u00df",
    ],
)
def test_quick_dash_runs_agree_with_the_general_pass(text: str) -> None:
    from citeledger.locate.normalize import _build

    assert normalize_for_match(text) == _build(text, False)[0].strip()


def test_a_long_text_is_replaced_one_for_one_as_the_table_says() -> None:
    # texts of 4096 characters and more take str.replace instead of the table
    from citeledger.locate.normalize import _ONE_FOR_ONE_MAP, _ONE_FOR_ONE_TABLE, _build

    chars = "".join(_ONE_FOR_ONE_MAP)
    text = " ".join(f"a{c}b {c}c d{c} \u00e9{c}" for c in chars) * 8
    assert len(text) >= 4096
    assert _build(text, True) == _build(text, True, text.translate(_ONE_FOR_ONE_TABLE))


@settings(max_examples=200, deadline=None)
@given(st.lists(_PIECES, min_size=1, max_size=30).map("".join))
def test_orig_span_is_start_and_end_together(text: str) -> None:
    p = prepare(text)
    n = len(p.norm)
    for a in range(-1, n + 2):
        for b in range(-1, n + 2):
            assert p.orig_span(a, b) == (p.orig_start(a), p.orig_end(b))
