"""Property tests on real text: sentences of corpus documents, reformatted honestly, are found at
their own words; with one number, negation or content word changed, they are refused.

The sentences are read from ../shared/corpus at test time (nothing is copied into the project);
the tests skip when the corpus is not beside the repository.
"""

from __future__ import annotations

import functools
import random
import re

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from citeledger.cli.locate import extract_path
from citeledger.locate.locator import locate_prepared, prepare
from citeledger.locate.normalize import Prepared, normalize_for_match
from citeledger.locate.wordlists import (
    COMPARATIVES,
    HEDGES,
    MODALS,
    NEGATIONS,
    NEGATIVE_WORDS,
    NUMBER_WORDS,
    QUANTIFIERS,
    is_reference,
)
from conftest import CORPUS

SOURCES = ("text/project_gutenberg_frankenstein.txt", "text/rfc2616.txt")
EDGE = ".,;:!?'\" "

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not all((CORPUS / s).is_file() for s in SOURCES), reason="../shared/corpus is not present"
    ),
]

_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_WORD = re.compile(r"^[a-z]{5,}$")


@functools.cache
def source(name: str) -> tuple[Prepared, tuple[str, ...], tuple[str, ...]]:
    """The prepared text, its sentences (original text, as found) and a vocabulary."""
    text = extract_path(CORPUS / name).text
    out = []
    for block in re.split(r"\n\s*\n", text):
        for s in _SPLIT.split(block.strip()):
            words = s.split()
            letters = sum(c.isalpha() for c in s)
            dense = letters > 0.8 * len(s.replace(" ", ""))
            if (
                8 <= len(words) <= 40
                and s[-1:] in ".!?"
                and dense
                and not re.search(r"[\[\]_|]|\.\.\.| {3}", s)
            ):
                out.append(s)
    vocab = sorted({w for s in out for w in s.split() if _WORD.match(w)})
    return prepare(text), tuple(out), tuple(vocab)


def _sep(rng: random.Random) -> str:
    return rng.choice([" ", " ", " ", "\n", "  ", "\u00a0", "\u2009", "\r\n", " \n   "])


def honest(sentence: str, rng: random.Random) -> str:
    """A random honest reformatting of the sentence as found in the text."""
    words = sentence.split()
    if rng.random() < 0.3:
        i = rng.randrange(len(words))
        w = words[i]
        if len(w) >= 8 and w.isalpha():
            cut = rng.randint(3, len(w) - 3)
            words[i] = w[:cut] + rng.choice(["-\n", "\u00ad", "\u00ad\n"]) + w[cut:]
    if rng.random() < 0.3:
        words = [w.replace("fi", "\ufb01").replace("fl", "\ufb02") for w in words]
    out = words[0] + "".join(_sep(rng) + w for w in words[1:])
    if rng.random() < 0.4:
        out = out.replace("'", "\u2019").replace('"', "\u201c", 1).replace('"', "\u201d", 1)
    if rng.random() < 0.3:
        out = out.replace("--", rng.choice(["\u2014", " \u2014 ", "--"]))
    if rng.random() < 0.3 and out[0].isalpha():
        out = out[0].swapcase() + out[1:]
    if rng.random() < 0.3:
        out = out.rstrip(".!?")
    return out


def _absent(prep: Prepared, quote: str) -> bool:
    q = normalize_for_match(quote).strip(EDGE)
    letters = re.sub(r"[\W_]+", "", q).lower()
    return q not in prep.norm and letters not in re.sub(r"[\W_]+", "", prep.norm).lower()


def _flip_negation(words: list[str], rng: random.Random) -> list[str] | None:
    for i, w in enumerate(words):
        if w.lower() in ("not", "never", "no") and 0 < i < len(words) - 1:
            return words[:i] + words[i + 1 :]
    aux = [
        i
        for i, w in enumerate(words[:-1])
        if w in ("is", "was", "are", "were", "MUST", "can", "will", "would", "should", "may")
    ]
    if not aux:
        return None
    i = rng.choice(aux)
    return [*words[: i + 1], "not" if words[i] != "MUST" else "NOT", *words[i + 1 :]]


def _change_number(words: list[str], rng: random.Random) -> list[str] | None:
    idx = [i for i, w in enumerate(words) if re.search(r"\d", w)]
    if not idx:
        return None
    i = rng.choice(idx)
    w = words[i]
    pos = [k for k, c in enumerate(w) if c.isdigit()]
    k = rng.choice(pos)
    words = list(words)
    words[i] = w[:k] + str((int(w[k]) + rng.randint(1, 9)) % 10) + w[k + 1 :]
    return words


def _swap_word(words: list[str], vocab: tuple[str, ...], rng: random.Random) -> list[str] | None:
    idx = [i for i, w in enumerate(words) if _WORD.match(w)]
    if not idx:
        return None
    i = rng.choice(idx)
    new = rng.choice(vocab)
    if new == words[i]:
        return None
    words = list(words)
    words[i] = new
    return words


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SOURCES), st.integers(min_value=0), st.randoms(use_true_random=False))
def test_honest_reformatting_is_found_at_the_sentence(
    name: str, pick: int, rng: random.Random
) -> None:
    prep, sentences, _ = source(name)
    sentence = sentences[pick % len(sentences)]
    quote = honest(sentence, rng)
    r = locate_prepared(prep, quote)
    assert r.found, (sentence, quote, r)
    assert r.char_start is not None and r.char_end is not None
    assert r.source_quote == prep.text[r.char_start : r.char_end]
    # the span holds the sentence's own words (or an identical occurrence of them)
    assert normalize_for_match(r.source_quote).strip(EDGE) == normalize_for_match(sentence).strip(
        EDGE
    )


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(SOURCES),
    st.integers(min_value=0),
    st.sampled_from(["number", "negation", "word"]),
    st.randoms(use_true_random=False),
    st.booleans(),
)
def test_one_change_of_meaning_is_refused(
    name: str, pick: int, how: str, rng: random.Random, reformat: bool
) -> None:
    prep, sentences, vocab = source(name)
    words = sentences[pick % len(sentences)].split()
    if how == "number":
        altered = _change_number(words, rng)
    elif how == "negation":
        altered = _flip_negation(words, rng)
    else:
        altered = _swap_word(words, vocab, rng)
    assume(altered is not None)
    assert altered is not None
    quote = " ".join(altered)
    assume(_absent(prep, quote))
    if reformat:
        quote = honest(quote, rng)  # honest formatting must not unlock an altered quote
    r = locate_prepared(prep, quote)
    assert not r.found, (quote, r)


# --- the editorial-mark rules (docs/editorial-marks.md), one property each --------------------

_LISTED = sorted(
    NEGATIONS | MODALS | HEDGES | QUANTIFIERS | COMPARATIVES | NEGATIVE_WORDS | NUMBER_WORDS
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(SOURCES),
    st.integers(min_value=0),
    st.sampled_from(["negation", "number", "word", "replace"]),
    st.randoms(use_true_random=False),
)
def test_a_bracket_bringing_in_a_negation_number_or_content_word_is_refused(
    name: str, pick: int, how: str, rng: random.Random
) -> None:
    prep, sentences, vocab = source(name)
    words = sentences[pick % len(sentences)].split()
    i = rng.randrange(1, len(words) - 1)
    if how == "negation":
        new = rng.choice(sorted(NEGATIONS))
    elif how == "number":
        new = str(rng.randint(2, 999))
    else:
        new = rng.choice(vocab)
    assume(not is_reference(new) and new.lower() not in {w.lower() for w in words})
    if how == "replace":  # a source word replaced by another content word
        assume(not is_reference(words[i]))
        altered = [*words[:i], f"[{new}]", *words[i + 1 :]]
    else:  # inserted before word i
        altered = [*words[:i], f"[{new}]", *words[i:]]
    quote = " ".join(altered)
    r = locate_prepared(prep, quote)
    assert not r.found, (quote, r)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SOURCES), st.integers(min_value=0), st.randoms(use_true_random=False))
def test_a_bracketed_case_change_is_found_on_the_first_word_only(
    name: str, pick: int, rng: random.Random
) -> None:
    """Case may change on the quote's first word; past it, case makes the word ("[b]ush" is
    not "Bush"): a bracketed case change there is refused, unless a sentence ends before it."""
    prep, sentences, _ = source(name)
    sentence = sentences[pick % len(sentences)]
    assume(sentence[:1].isalpha() and sentence[1:2].isalpha())
    words = sentence.split()
    words[0] = f"[{words[0][0].swapcase()}]{words[0][1:]}"
    mid = [
        k
        for k in range(1, len(words))
        if words[k][:1].isalpha() and words[k][1:2].isalpha() and words[k - 1][-1:] not in ".!?"
    ]
    if mid and rng.random() < 0.5:
        k = rng.choice(mid)
        words[k] = f"[{words[k][0].swapcase()}]{words[k][1:]}"
        r = locate_prepared(prep, " ".join(words))
        assert not r.found, (" ".join(words), r)
        return
    quote = " ".join(words)
    r = locate_prepared(prep, quote)
    assert r.found, (quote, r)
    assert r.source_quote is not None
    assert normalize_for_match(r.source_quote).strip(EDGE) == normalize_for_match(sentence).strip(
        EDGE
    )
    assert r.edits and all(e.kind == "bracket" for e in r.edits)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(SOURCES),
    st.integers(min_value=0),
    st.sampled_from(_LISTED),
    st.randoms(use_true_random=False),
    st.sampled_from([" … ", " ... ", " [...] ", " [\u2026] ", " . . . "]),
)
def test_an_omission_holding_a_listed_word_is_refused(
    name: str, pick: int, listed: str, rng: random.Random, mark: str
) -> None:
    """The listed word is put into the source's sentence (a window of the text around it), and
    the quote leaves it out with up to two words either side."""
    prep, sentences, _ = source(name)
    sentence = sentences[pick % len(sentences)]
    words = sentence.split()
    assume(len(words) >= 10)
    at = prep.text.find(sentence)
    assume(at >= 0)
    i = rng.randint(4, len(words) - 4)
    source_words = [*words[:i], listed, *words[i:]]
    a = max(3, i - rng.randint(0, 2))
    b = min(len(source_words) - 3, i + 1 + rng.randint(0, 2))
    window = prep.text[max(0, at - 1500) : at] + " ".join(source_words)
    window += prep.text[at + len(sentence) : at + len(sentence) + 1500]
    quote = " ".join(source_words[:a]) + mark + " ".join(source_words[b:])
    kept = [normalize_for_match(" ".join(p)) for p in (source_words[:a], source_words[b:])]
    norm = normalize_for_match(window)
    assume(all(norm.count(k) == 1 for k in kept))  # no other passage the quote could be of
    r = locate_prepared(prepare(window), quote)
    assert not r.found, (quote, r)
