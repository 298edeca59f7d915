"""The sentence a quote is cut from (red team r8's gaps): its frame, its limit, the referent a
bracket names, the number it ends on, the verb an omission takes. Each rule with the honest
quote beside it that must still pass (docs/editorial-marks.md). The texts are made up here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from citeledger.judge import Judge
from citeledger.locate.locator import locate
from citeledger.model import CitationRef, State
from test_judge import _ledger, _verified


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # a fronted condition, hedge, stance or attribution governs the main clause
        ("If the valve sticks, the boiler will burst within an hour.", "the boiler will burst"),
        ("But when the tank is cold, the pump draws twice the current.", "the pump draws"),
        ("To our knowledge, this is the oldest bridge in the county.", "this is the oldest bridge"),
        ("According to the union, the plant will close in May.", "the plant will close in May"),
        ("Arguably, the merger saved the airline from ruin.", "the merger saved the airline"),
        # a report's or a view's "that", a verb of saying, a stance stated
        ("The paper reports that the vaccine halves infections.", "the vaccine halves infections"),
        ("One hypothesis is that the comet broke up early.", "the comet broke up early"),
        ("The mayor said the bridge is safe for lorries.", "the bridge is safe for lorries"),
        ("There is concern the dam will fail next winter.", "the dam will fail next winter"),
        # a negation close before, in the quote's clause
        ("The law does not require that drivers carry a permit.", "drivers carry a permit"),
        ("Nobody has bothered to test the backup power.", "bothered to test the backup power"),
        # the words after the quote limit it
        (
            "The drug lowers blood pressure only in older patients.",
            "The drug lowers blood pressure",
        ),
        ("Trains run every ten minutes, except on Sundays.", "Trains run every ten minutes"),
        ("The road stays open unless it snows.", "The road stays open"),
        ("The bound is tight up to a log factor.", "The bound is tight"),
        ("The engine runs 20% faster when the filter is removed.", "The engine runs 20% faster"),
        ("The tests pass at first, then fail after an hour.", "The tests pass"),
        ("Members were teachers, nurses, or both.", "Members were teachers"),
    ],
)
def test_a_quote_cut_from_its_frame_or_limit_is_refused(source: str, quote: str) -> None:
    got = locate(source, quote)
    assert not got.found, got
    assert got.differences


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "If the valve sticks, the boiler will burst.",
            "If the valve sticks, the boiler will burst.",
        ),
        ("In May, the plant closed for good.", "the plant closed for good"),
        ("However, the plant closed for good in May.", "the plant closed for good in May"),
        ("The plant closed. If asked, staff will say so.", "The plant closed."),
        ("The plant closed in May, and the town lost its jobs.", "The plant closed in May"),
        ("The claim form must be sent within 30 days.", "must be sent within 30 days"),
        ("No. The plan was dropped in spring.", "The plan was dropped in spring"),
        ("He did not go, but his sister stayed to help.", "his sister stayed to help"),
        ("It works even if the disk is full.", "It works"),
        (
            "Trains run every ten minutes. Except on Sundays, buses run too.",
            "Trains run every ten minutes",
        ),
    ],
)
def test_a_quote_whose_sentence_does_not_qualify_it_still_passes(source: str, quote: str) -> None:
    got = locate(source, quote)
    assert got.found, got.differences


REFERENT = (
    "The senator met the governor on Monday. The talks ran late. "
    "Afterwards she said the deal was close. The state budget is due in June, "
    "and it will include the new transit fund."
)


@pytest.mark.parametrize(
    "quote",
    [
        "Afterwards [the senator] said the deal was close.",
        "Afterwards [the governor] said the deal was close.",  # named: which one, we cannot tell
        "and [the state budget] will include the new transit fund",
        "and [the budget] will include the new transit fund",
    ],
)
def test_a_bracket_naming_what_the_source_names_nearby_passes(quote: str) -> None:
    got = locate(REFERENT, quote)
    assert got.found, got.differences
    assert any(e.kind == "bracket" for e in got.edits)


@pytest.mark.parametrize(
    "quote",
    [
        "Afterwards [the mayor] said the deal was close.",  # no mayor in the text
        "Afterwards [the state senator] said the deal was close.",  # not the source's words
        "and [the transit fund] will include the new transit fund",  # named only after it
        "and [the city budget] will include the new transit fund",
    ],
)
def test_a_bracket_naming_what_the_source_does_not_name_there_is_refused(quote: str) -> None:
    got = locate(REFERENT, quote)
    assert not got.found
    assert any("does not name" in d for d in got.differences), got.differences


def test_a_name_far_back_is_not_a_referent_here() -> None:
    far = "Ms Okafor opened the session. " + "The room was full. " * 5
    text = far + "Later she closed the vote."
    assert not locate(text, "Later [Ms Okafor] closed the vote.").found
    near = "Ms Okafor opened the session. The room was full. Later she closed the vote."
    assert locate(near, "Later [Ms Okafor] closed the vote.").found
    assert locate(near, "Later [Okafor] closed the vote.").found  # a name's last word


def test_a_definite_description_may_be_spelled_out_by_the_name_before_it() -> None:
    text = "Chile held a vote in 2020. Then the country chose to write a new constitution."
    assert locate(text, "Then [Chile] chose to write a new constitution").found
    assert not locate(text, "Then [Peru] chose to write a new constitution").found
    # only a name spells a description out: "[The vote]" for "the country" is another word
    assert not locate(text, "Then [The vote] chose to write a new constitution").found
    # a description holding a listed word is not a reference
    text = "Chile held a vote. Then the two countries chose to sign."
    assert not locate(text, "Then [Chile] chose to sign").found


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("The field has order p^2 over the base.", "The field has order p"),
        ("The buffer holds at most 2^16 - 1 bytes.", "The buffer holds at most 2^16"),
        ("The run used N = 40, 000 samples overall.", "The run used N = 40"),
        ("The grid has area a² in all.", "The grid has area a"),
    ],
)
def test_a_quote_may_not_stop_inside_the_number_it_ends_on(source: str, quote: str) -> None:
    assert not locate(source, quote).found


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("The field has order p, as before.", "The field has order p"),
        ("In 2019, 300 people came to the fair.", "In 2019"),
        ("The buffer holds 16 bytes and no more.", "The buffer holds 16 bytes"),
    ],
)
def test_a_number_the_source_closes_may_end_a_quote(source: str, quote: str) -> None:
    assert locate(source, quote).found


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "The serum could be used to help to treat the fever.",
            "could be used … to treat the fever",
        ),
        (
            "The app lets you ask a friend to unlock the door.",
            "The app lets you … to unlock the door",
        ),
        (
            "The loss came thanks in part to the storm in March.",
            "The loss came thanks … to the storm",
        ),
        (
            "The survey covered adults at high risk of flu in the city.",
            "The survey covered adults … of flu in the city.",
        ),
        ("The crew fixed the remaining damaged panels on the roof.", "The crew fixed the … panels"),
    ],
)
def test_an_omission_may_not_take_the_verb_or_degree_the_rest_rests_on(
    source: str, quote: str
) -> None:
    assert not locate(source, quote).found


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "The board voted, after a long and bitter debate, to approve the plan.",
            "The board voted … to approve the plan.",
        ),
        (
            "The guards, in their blue uniforms, stood at the gate all night.",
            "The guards … stood at the gate all night.",
        ),
        (
            "The dean of the University's law school, a judge, spoke first at the dinner.",
            "The dean … spoke first at the dinner.",
        ),
        ("He went down the hill to the river at dawn.", "He went … to the river at dawn."),
    ],
)
def test_an_aside_before_an_infinitive_or_with_an_un_word_may_go(source: str, quote: str) -> None:
    got = locate(source, quote)
    assert got.found, got.differences


def test_the_builds_window_judges_a_quote_as_the_whole_text_does() -> None:
    """The build re-checks a receipt in a window of the source (judge._window): it must read
    the frame and the referent verify read, or an honest bracket fails at build time and a
    cut from a long frame passes there."""
    from citeledger.judge import _window  # the build's window, a private helper

    filler = "The weather was mild and the roads were quiet all week. " * 20
    frame = "If the council approves the plan at its meeting next month after the review, "
    text = filler + "Mr Ruiz spoke first. " + filler + "Ms Okafor chaired it. "
    text += "The parks, the markets and the roads of the old town were quiet all through the week. "
    text += "Later she closed the vote. Then he left. "
    text += filler + frame + "the depot will close by the end of the year."
    for quote, found in (
        ("Later [Ms Okafor] closed the vote.", True),
        ("Then [Mr Ruiz] left.", False),  # named too far back, in both readings
        ("the depot will close by the end of the year", False),
        ("Later she closed the vote.", True),
    ):
        whole = locate(text, quote)
        assert whole.found is found, whole.differences
        if whole.char_start is None or whole.char_end is None:
            start = text.index(quote.replace("[Mr Ruiz]", "he"))
            end = start + len(quote)
        else:
            start, end = whole.char_start, whole.char_end
        lo, hi = _window(text, start, end)
        assert locate(text[lo:hi], quote).found is found, quote


def test_verify_records_a_cut_and_the_judge_says_why(tmp_path: Path) -> None:
    """The real receipt path (extract → locate → evidence → judge): a quote cut from its
    sentence's exception is recorded not-found, and the breakdown says its words are there
    but not as the source's claim, and which words to quote."""
    source, receipt = _verified(tmp_path, "an appeal must be received within 30 days")
    assert receipt.outcome == "not-found"
    verdict = Judge(_ledger(tmp_path, source)).judge(CitationRef(source.key))
    assert verdict.state is State.QUOTE_NOT_FOUND
    assert (
        "are in the source" in verdict.reasons[0] and "say what it does not" in verdict.reasons[0]
    )
    assert any("'Except'" in r and "from its start" in r for r in verdict.reasons), verdict.reasons
