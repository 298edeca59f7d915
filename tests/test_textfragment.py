"""Text fragments must open the browser at exactly the quoted words, and nothing else.

The directives are decoded and resolved here by a reference matcher written independently of
the module (a regular expression over case- and accent-folded text, per the WICG spec), so a
fragment that only round-trips through the module's own matcher cannot pass.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import unquote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeledger.evidence.links import (
    EXACT_MAX_WORDS,
    RANGE_MAX_WORDS,
    encode_term,
    pdf_page_url,
    text_directive,
    text_fragment_url,
)

# --- a reference decoder and matcher, used only here ---------------------------------------------


def decode(url: str) -> dict[str, str | None]:
    """The last ``text=`` directive of ``url``, parsed as the spec's "parse a text directive"."""
    fragment = url.partition("#")[2]
    assert ":~:" in fragment, url
    directives = fragment.split(":~:", 1)[1].split("&")
    texts = [d for d in directives if d.startswith("text=")]
    assert texts, url
    raw = texts[-1][len("text=") :]
    # only the syntax may be literal: every term character is unreserved or percent-encoded
    assert re.fullmatch(r"[A-Za-z0-9._~%,\-]+", raw), raw
    tokens = raw.split(",")
    parsed: dict[str, str | None] = {"prefix": None, "start": None, "end": None, "suffix": None}
    if tokens[0].endswith("-"):
        parsed["prefix"] = unquote(tokens.pop(0)[:-1], errors="strict")
    if tokens and tokens[-1].startswith("-"):
        parsed["suffix"] = unquote(tokens.pop()[1:], errors="strict")
    assert 1 <= len(tokens) <= 2, raw
    parsed["start"] = unquote(tokens[0], errors="strict")
    if len(tokens) == 2:
        parsed["end"] = unquote(tokens[1], errors="strict")
    assert all(value is None or value for value in parsed.values()), raw  # no empty terms
    return parsed


def fold(s: str) -> str:
    """Primary-strength folding, one character for one (case and accents ignored)."""
    out = []
    for c in s:
        base = unicodedata.normalize("NFD", c)[0]
        low = base.lower()
        out.append(low if len(low) == 1 else base)
    return "".join(out)


def reference_match(text: str, d: dict[str, str | None]) -> tuple[int, int] | None:
    """First span the directive selects in ``text`` (whitespace collapsed by the caller)."""
    t = fold(text)
    pattern = r"(?<!\w)"
    if d["prefix"]:
        pattern += re.escape(fold(d["prefix"])) + r"\s*"
    start = re.escape(fold(d["start"] or ""))
    if d["end"]:
        pattern += f"({start}.*?{re.escape(fold(d['end']))})"
    else:
        pattern += f"({start})"
    if d["suffix"]:
        pattern += r"\s*" + re.escape(fold(d["suffix"]))
    pattern += r"(?!\w)"
    m = re.search(pattern, t, re.S)
    return (m.start(1), m.end(1)) if m else None


def resolves_to(url: str, text: str, start: int, end: int) -> bool:
    return reference_match(text, decode(url)) == (start, end)


BASE = "https://example.org/paper?id=7&lang=en"

# --- encoding ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("term", "encoded"),
    [
        ("a-b", "a%2Db"),
        ("x,y", "x%2Cy"),
        ("R&D", "R%26D"),
        ("two words", "two%20words"),
        ("100%", "100%25"),
        ("#1", "%231"),
        ("Müller", "M%C3%BCller"),
        ("—", "%E2%80%94"),
        ("a.b_c~d", "a.b_c~d"),
    ],
)
def test_terms_are_percent_encoded_utf8(term: str, encoded: str) -> None:
    assert encode_term(term) == encoded
    assert unquote(encoded) == term


def test_quote_full_of_syntax_characters_still_resolves() -> None:
    text = (
        "Preface text. The co-founder of Müller & Söhne, Ltd — 100% sure — said #1 wins. "
        "Closing remarks follow."
    )
    quote = "Müller & Söhne, Ltd — 100% sure —"
    start = text.index(quote)
    url = text_fragment_url(BASE, text, start, start + len(quote))
    assert url.startswith(BASE + "#:~:text=")
    directive = url.split(":~:", 1)[1]
    for literal in ("&", " ", "#", "—", "ü"):
        assert literal not in directive
    assert resolves_to(url, text, start, start + len(quote))


# --- disambiguation ------------------------------------------------------------------------------


def test_first_occurrence_needs_no_context() -> None:
    text = "The results were clear. Later on, the results were clear again."
    start = text.index("The results were clear")
    d = text_directive(text, start, start + len("The results were clear"))
    assert d is not None and d.prefix is None and d.suffix is None and d.end is None


def test_repeated_start_phrase_gets_a_prefix() -> None:
    text = "The results were clear. Later on, the results were clear again."
    start = text.rindex("the results were clear")
    end = start + len("the results were clear")
    d = text_directive(text, start, end)
    assert d is not None and d.prefix is not None
    url = text_fragment_url(BASE, text, start, end)
    assert resolves_to(url, text, start, end)


def test_repeat_differing_only_in_case_and_accents_is_a_repeat() -> None:
    # browsers match at UTS #10 primary strength: "MULLER" matches "Müller"
    text = "MULLER said yes to that. Later Müller said yes to that."
    start = text.index("Müller said yes")
    end = start + len("Müller said yes")
    d = text_directive(text, start, end)
    assert d is not None and (d.prefix or d.suffix)
    assert resolves_to(text_fragment_url(BASE, text, start, end), text, start, end)


def test_long_quote_uses_start_and_end() -> None:
    words = [f"word{i}" for i in range(40)]
    quote = " ".join(words)
    text = f"Intro sentence here. {quote} Outro sentence here."
    start = text.index(quote)
    end = start + len(quote)
    d = text_directive(text, start, end)
    assert d is not None and d.end is not None
    assert len(d.start.split()) <= RANGE_MAX_WORDS and len(d.end.split()) <= RANGE_MAX_WORDS
    url = text_fragment_url(BASE, text, start, end)
    assert len(url) < len(BASE) + len(quote) // 2
    assert resolves_to(url, text, start, end)


def test_end_term_that_repeats_inside_the_quote_is_grown() -> None:
    quote = (
        "we measured the signal on the left side first and then we measured the signal on "
        "the left side"
    )
    text = f"Before this. {quote} and nothing else happened."
    start = text.index(quote)
    end = start + len(quote)
    url = text_fragment_url(BASE, text, start, end)
    assert resolves_to(url, text, start, end)


def test_short_quote_is_given_whole() -> None:
    text = "Alpha beta gamma delta epsilon."
    d = text_directive(text, 6, 16)  # "beta gamma"
    assert d is not None and d.start == "beta gamma" and d.end is None
    assert EXACT_MAX_WORDS >= 2


def test_unresolvable_repeat_leaves_the_url_alone() -> None:
    text = "same words here. " * 30
    middle = len("same words here. ") * 15
    assert text_directive(text, middle, middle + len("same words here.")) is None
    assert text_fragment_url(BASE, text, middle, middle + 15) == BASE


def test_quote_is_widened_to_whole_words() -> None:
    text = "Readers understand context better than they think."
    start = text.index("nderstand")
    d = text_directive(text, start, start + len("nderstand"))
    assert d is not None and d.start == "understand"


def test_quote_spanning_a_line_break_never_puts_the_break_in_a_term() -> None:
    text = "The first paragraph ends here.\n\nThe second one starts now and goes on."
    start = text.index("ends here")
    end = text.index("starts now") + len("starts now")
    d = text_directive(text, start, end)
    assert d is not None and d.end is not None
    assert "second" not in d.start and "ends" not in d.end
    flat = " ".join(text.split())  # what the reference matcher sees, like a rendered page
    f_start = flat.index("ends here")
    f_end = flat.index("starts now") + len("starts now")
    assert resolves_to(text_fragment_url(BASE, text, start, end), flat, f_start, f_end)


def test_blank_quote_gives_no_directive() -> None:
    assert text_directive("a   b", 1, 4) is None


def test_span_outside_the_text_is_refused() -> None:
    with pytest.raises(ValueError):
        text_directive("short", 2, 99)
    with pytest.raises(ValueError):
        text_directive("short", 3, 2)


# --- fragments already on the URL ----------------------------------------------------------------

TEXT = "One two three four five six."


@pytest.mark.parametrize(
    ("url", "head"),
    [
        ("https://example.org/a", "https://example.org/a#:~:text="),
        ("https://example.org/a#", "https://example.org/a#:~:text="),
        ("https://example.org/a?q=1#sec-2", "https://example.org/a?q=1#sec-2:~:text="),
        ("https://example.org/a#:~:text=foo", "https://example.org/a#:~:text=foo&text="),
        ("https://example.org/a#x:~:", "https://example.org/a#x:~:text="),
    ],
)
def test_existing_fragment_is_kept(url: str, head: str) -> None:
    out = text_fragment_url(url, TEXT, 4, 13)
    assert out.startswith(url)
    assert out.startswith(head)
    assert decode(out)["start"] == "two three"


# --- PDF pages -----------------------------------------------------------------------------------


def test_pdf_page_url() -> None:
    assert pdf_page_url("https://x.org/a.pdf", 14) == "https://x.org/a.pdf#page=14"
    assert pdf_page_url("https://x.org/a.pdf#", 2) == "https://x.org/a.pdf#page=2"
    assert pdf_page_url("https://x.org/a.pdf#zoom=50", 3) == "https://x.org/a.pdf#zoom=50&page=3"
    assert (
        pdf_page_url("https://x.org/a.pdf#page=1&zoom=9", 4) == "https://x.org/a.pdf#page=4&zoom=9"
    )


@pytest.mark.parametrize("page", [0, -3, True, 2.0, "3"])
def test_pdf_page_must_be_a_positive_integer(page: object) -> None:
    with pytest.raises(ValueError):
        pdf_page_url("https://x.org/a.pdf", page)  # type: ignore[arg-type]


# --- any quote in any text -----------------------------------------------------------------------

VOCAB = [
    "the",
    "cat",
    "sat",
    "Müller",
    "muller",
    "MÜLLER",
    "—",
    "&",
    "a-b",
    "x,y",
    "3.5%",
    "#1",
    "naïve",
    "café",
    "%20",
]


@settings(max_examples=300, deadline=None)
@given(
    tokens=st.lists(st.sampled_from(VOCAB), min_size=1, max_size=60),
    seps=st.lists(st.sampled_from([" ", " ", " ", "\n"]), min_size=60, max_size=60),
    data=st.data(),
)
def test_every_directive_selects_exactly_its_quote(tokens, seps, data) -> None:
    starts = []
    text = ""
    for i, tok in enumerate(tokens):
        if i:
            text += seps[i]
        starts.append(len(text))
        text += tok
    i = data.draw(st.integers(0, len(tokens) - 1))
    j = data.draw(st.integers(i, len(tokens) - 1))
    q_start, q_end = starts[i], starts[j] + len(tokens[j])
    d = text_directive(text, q_start, q_end)
    url = text_fragment_url(BASE, text, q_start, q_end)
    if d is None:
        assert url == BASE
        return
    flat = text.replace("\n", " ")  # single separators: offsets are unchanged
    assert reference_match(flat, decode(url)) == (q_start, q_end)
    for term in (d.prefix, d.start, d.end, d.suffix):
        assert term is None or "\n" not in term
