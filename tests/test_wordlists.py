"""Every entry of the editorial-mark word lists is what its class says (docs/editorial-marks.md):
an omission holding it, or a bracket bringing it in, is refused."""

from __future__ import annotations

import pytest

from citeledger.locate.locator import locate
from citeledger.locate.wordlists import (
    ATTRIBUTIONS,
    COMPARATIVES,
    CONDITIONS,
    CONTRASTS,
    DEGREES,
    HEDGES,
    MODALS,
    NEGATIONS,
    NEGATIVE_WORDS,
    NUMBER_WORDS,
    QUANTIFIERS,
    SYMBOLS,
    first_meaningful,
    is_reference,
)

ALL = sorted(
    NEGATIONS
    | MODALS
    | HEDGES
    | QUANTIFIERS
    | COMPARATIVES
    | NEGATIVE_WORDS
    | NUMBER_WORDS
    | CONTRASTS
    | CONDITIONS
    | ATTRIBUTIONS
    | DEGREES
)


@pytest.mark.parametrize("word", ALL)
def test_every_listed_word_is_classed(word: str) -> None:
    assert first_meaningful(f"the {word} plan") is not None


@pytest.mark.parametrize("word", ALL)
def test_an_omission_holding_a_listed_word_is_refused(word: str) -> None:
    text = f"The board agreed that the plan was {word} approved by the council in the end."
    assert not locate(text, "The board agreed that the plan was … approved by the council").found
    assert locate(text, "The board agreed that the plan … approved by the council").found is (
        first_meaningful(f"was {word}") is None
    )


@pytest.mark.parametrize("word", ALL)
def test_a_bracket_may_not_bring_in_a_listed_word(word: str) -> None:
    text = "The board agreed that it was approved by the council in the end."
    assert not locate(text, f"The board agreed that [{word}] was approved by the council").found


@pytest.mark.parametrize("sym", sorted(set(SYMBOLS)))
def test_every_symbol_is_a_difference(sym: str) -> None:
    text = "The measured value x stays well within the bound for every sample we took."
    q = f"The measured value x {sym} stays well within the bound for every sample"
    assert not locate(text, q).found


@pytest.mark.parametrize("word", sorted(CONTRASTS))
def test_a_contrast_and_its_clause_may_not_be_left_out(word: str) -> None:
    """The caveat a contrast word opens is the source's: hiding it is cherry-picking."""
    text = f"The board agreed that the plan was sound, {word} late, and it was approved in May."
    assert first_meaningful(word) == (word, "contrast")
    assert not locate(text, "The board agreed that the plan was sound … and it was approved").found
    assert locate(text, f"The board agreed that the plan was sound, {word} late, and it was").found


def test_former_and_latter_are_references_only_after_the() -> None:
    assert is_reference("the former") and is_reference("it") and is_reference("the latter")
    assert not is_reference("former") and not is_reference("latter")
    text = "Reports say that former security chief Emmerson Mnangagwa has been mapping it out."
    assert not locate(text, "Reports say that [blamed] security chief Emmerson Mnangagwa").found
    text = "Smith met Jones; the former has been mapping out a vision for more than a year."
    assert locate(text, "Smith met Jones; [Smith] has been mapping out a vision").found
