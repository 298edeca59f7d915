"""Every entry of the editorial-mark word lists is what its class says (docs/editorial-marks.md):
an omission holding it, or a bracket bringing it in, is refused."""

from __future__ import annotations

import pytest

from citeledger.locate import locate
from citeledger.wordlists import (
    COMPARATIVES,
    HEDGES,
    MODALS,
    NEGATIONS,
    NEGATIVE_WORDS,
    QUANTIFIERS,
    SYMBOLS,
    first_meaningful,
)

ALL = sorted(NEGATIONS | MODALS | HEDGES | QUANTIFIERS | COMPARATIVES | NEGATIVE_WORDS)


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
