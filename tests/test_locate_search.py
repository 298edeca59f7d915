"""The locator's quick search: counting what a text holds may make it stop early, never answer
differently. Every answer is checked against a plain scan of the whole normalised text.

The texts here are made up for these tests (repetitive on purpose, so that passages recur).
"""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from citeledger.locate.locator import _bounds_ok, locate, prepare
from citeledger.locate.normalize import PIECE_MARK
from citeledger.locate.numbers import cut_number_problem
from citeledger.locate.wordlists import word_class

WORDS = ["the", "see", "tree", "free", "agree", "we", "were", "here", "one", "not", "70", "ee"]


def _text(rng: random.Random, n: int) -> str:
    """Prose from a small vocabulary: every short passage occurs several times."""
    out = []
    for _ in range(n):
        w = rng.choice(WORDS)
        out.append(w.capitalize() if rng.random() < 0.1 else w)
        out.append(rng.choice([" ", " ", " ", ", ", ". ", "\n"]))
    return "".join(out)


def _occurrences(norm: str, needle: str) -> list[int]:
    """Every start of ``needle`` at word boundaries, first letter case-free: the plain scan."""
    first, rest = needle[0], needle[1:]
    out = []
    for i in range(len(norm) - len(needle) + 1):
        same_first = norm[i] == first or norm[i].lower() == first.lower() != first.upper()
        if same_first and norm.startswith(rest, i + 1) and _bounds_ok(norm, i, i + len(needle)):
            out.append(i)
    return out


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 10**9), st.integers(3, 40), st.integers(1, 12))
def test_found_ambiguous_and_first_span_agree_with_a_plain_scan(seed: int, at: int, n: int) -> None:
    rng = random.Random(seed)
    text = _text(rng, 400)
    p = prepare(text)
    words = p.norm.split(" ")
    needle = " ".join(words[at : at + n]).strip(".,; ")
    if len(needle) < 2 or not needle[0].isalnum():
        return
    starts = _occurrences(p.norm, needle)
    r = locate(text, needle)
    if not starts:
        return  # edge punctuation or a fuzzy match decide those; not this test's business
    # the three words before, in the clause the quote starts in (a negation there governs it)
    lead = re.split(r"[,;:.]", p.norm[: starts[0]])[-1]
    before = lead.split()[-3:] if p.norm[starts[0] - 1 : starts[0]].isspace() else []
    rest = p.norm[starts[0] + len(needle) :]
    after = rest.split()[:1] if rest[:1].isspace() else []
    if any(word_class(w.strip(".,;")) == "negation" for w in before + after):
        return  # a quote beside the source's negation is refused (docs/editorial-marks.md)
    last = re.split(r"[,;:.()]| and ", needle)[-1].split()
    if after and any(word_class(w) == "negation" for w in last[:-2]):
        return  # nor one that stops inside the clause its negation governs (the same document)
    cs, ce = p.orig_span(starts[0], starts[0] + len(needle))
    if cut_number_problem(needle, text, cs, ce) is not None:
        return  # nor one cut from its number's expression or noun (the same document)
    assert r.found
    assert r.ambiguous == (len(starts) > 1)
    if r.match in ("exact", "normalized"):
        assert r.char_start == p.orig_start(starts[0])


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10**9), st.integers(0, 2000), st.integers(1, 80))
def test_occurrence_bound_is_never_below_the_count(seed: int, at: int, size: int) -> None:
    rng = random.Random(seed)
    p = prepare(_text(rng, 300))
    s = p.norm[at : at + size]
    if rng.random() < 0.3 and s:  # and strings the text may not have
        i = rng.randrange(len(s))
        s = s[:i] + rng.choice("exz 7") + s[i + 1 :]
    if not s:
        return
    count = sum(1 for i in range(len(p.norm)) if p.norm.startswith(s, i))
    bound = p.occurrence_bound(s)
    assert count <= bound if s.count(PIECE_MARK) >= 2 else bound == -1


def test_a_rare_word_that_recurs_does_not_make_a_unique_passage_ambiguous() -> None:
    # "committee" occurs three times, the passage once; then the passage twice
    text = (
        "The committee met. A committee of three found that the treatment was not effective. "
        "Nobody asked the committee again."
    )
    r = locate(text, "found that the treatment was not effective")
    assert r.found and not r.ambiguous
    twice = text + " Later they found that the treatment was not effective."
    r = locate(twice, "found that the treatment was not effective")
    assert r.found and r.ambiguous
    assert r.char_start == text.index("found that")  # the first occurrence, without a hint
    r = locate(twice, "found that the treatment was not effective", hint=len(twice))
    assert r.char_start == twice.rindex("found that")  # the nearest to the hint


def test_a_passage_the_text_lacks_is_refused_without_a_match() -> None:
    text = "We see the tree here. We see the free tree there. " * 50
    r = locate(text, "We see the green tree here")
    assert not r.found
    r = locate(text, "we see the tree here")  # first letter's case only: found, ambiguous
    assert r.found and r.ambiguous
