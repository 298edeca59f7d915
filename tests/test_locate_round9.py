"""Red team r9's gaps: a number cut from its expression, an ellipsis over a closed aside, the
context a cut leaves out. Each rule with the honest quote beside it that must still pass
(docs/editorial-marks.md). The texts are made up here.
"""

from __future__ import annotations

import pytest

from citeledger.locate.locator import locate


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # a range's bound, at either end of the quote
        ("The clinic saw 10–20 patients a day in winter.", "The clinic saw 10"),
        ("The clinic saw 10–20 patients a day in winter.", "20 patients a day in winter"),
        ("Each shard holds 16 MB to 64 MB of records.", "Each shard holds 16 MB"),
        ("Most years bring between 300 and 500 floods here.", "Most years bring between 300"),
        # a thousands group spaced, thin-spaced or with a comma; decimals
        ("The register lists 3 417 households in the valley.", "417 households in the valley"),
        ("The register lists 3\u2009417 households in the valley.", "417 households"),
        ("The register lists 3,417 households in the valley.", "417 households in the valley"),
        ("The register lists 3 417 households in the valley.", "The register lists 3"),
        ("The average rose to 7.25 points over the year.", "The average rose to 7"),
        ("The average rose to 7.25 points over the year.", "25 points over the year"),
        # a sign, a currency, a fraction, a scale without its number
        ("The lake froze at \u22125 degrees that night.", "5 degrees that night"),
        ("The ticket cost $40 million to build.", "40 million to build"),
        ("The recipe needs 2\u00bd cups of flour.", "The recipe needs 2"),
        ("The fund lost 2 million dollars in a week.", "million dollars in a week"),
        # a part of a whole, a ratio
        ("The jury convicted three of the seven defendants.", "The jury convicted three"),
        ("The survey found that 4 out of 5 dentists agree.", "the survey found that 4"),
        ("The drug helped one in ten patients.", "The drug helped one"),
        # a count cut from the noun it counts
        ("Inspectors found 120 cracked welds on the bridge.", "Inspectors found 120"),
    ],
)
def test_a_number_is_never_cut_from_its_expression(source: str, quote: str) -> None:
    assert not locate(source, quote).found


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # the number whole, or its phrase ended by the source's punctuation or a phrase word
        ("The clinic saw 10–20 patients a day in winter.", "The clinic saw 10–20 patients"),
        ("The register lists 3 417 households in the valley.", "3 417 households"),
        ("The jury convicted three of the seven defendants.", "three of the seven defendants"),
        ("In 2019 the firm moved to Leeds.", "In 2019"),
        ("Prices rose in 2018 thanks to the drought.", "Prices rose in 2018"),
        ("The vote was won by 52, a narrow margin.", "The vote was won by 52"),
        ("Inspectors found 120 in the first week.", "Inspectors found 120"),
        ("See page 12 for the table of results.", "See page 12"),
        ("Section 3 describes the method in full.", "Section 3"),
        ("The study followed 300 people for a decade.", "followed 300 people"),
        # a year on one line, a heading on the next
        ("Screening saved 27,000 lives in 2018\nA new study estimates the rate.", "in 2018"),
    ],
)
def test_a_whole_number_or_its_phrase_end_passes(source: str, quote: str) -> None:
    assert locate(source, quote).found


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # a parenthetical, a dash aside, an appositive in commas that qualifies nothing kept
        (
            "Bach, who died in 1750, wrote over a thousand works.",
            "Bach … wrote over a thousand works",
        ),
        (
            "The old mill (built in 1820 by two brothers) still grinds flour.",
            "The old mill … still grinds flour",
        ),
        (
            "The port handled 9 million tonnes — with another 2 million due next year — "
            "in the year 2020.",
            "The port handled 9 million tonnes … in the year 2020",
        ),
        (
            "The league, along with its clubs and their owners, backed the plan.",
            "The league … backed the plan",
        ),
        (
            "The two rivers — which each carry melt from glaciers — flood in June.",
            "The two rivers … flood in June",
        ),
        # a relative clause describes its noun, share and all: it scopes nothing kept
        (
            "The volunteers, who built 23% of the code, make up most of the team.",
            "The volunteers … make up most of the team",
        ),
    ],
)
def test_an_ellipsis_over_a_closed_aside_passes(source: str, quote: str) -> None:
    got = locate(source, quote)
    assert got.found, got.differences


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # the aside limits, turns, counts or bounds what the quote keeps
        ("The drug (but only in mice) halted the tumour.", "The drug … halted the tumour"),
        ("The drug (not the placebo) halted the tumour.", "The drug … halted the tumour"),
        ("The trees, if watered, survive the summer.", "The trees … survive the summer"),
        ("The patients — 12 of the 40 — recovered fully.", "The patients … recovered fully"),
        ("The patients (some of them) recovered fully.", "The patients … recovered fully"),
        ("The patients (aged 65 and over) recovered fully.", "The patients … recovered fully"),
        ("The patients (over 18) recovered fully.", "The patients … recovered fully"),
        ("The party, which ruled from 2011 to 2013, was blamed.", "The party … was blamed"),
        ("The towns (solely the coastal ones) were flooded.", "The towns … were flooded"),
        ("The towns, probably all of them, were flooded.", "The towns … were flooded"),
        # a count or share anywhere in the aside scopes the claim kept
        ("The drug reduced pain (in 3 of 40 patients) by May.", "The drug reduced pain … by May"),
        ("The drug reduced pain (one in ten cases) by May.", "The drug reduced pain … by May"),
        ("The drug reduced pain (for 7% of users) by May.", "The drug reduced pain … by May"),
        ("The drug reduced pain (in half of the trials) by May.", "The drug reduced pain … by May"),
        # an aside that opens another clause is not an aside
        ("The firm cut jobs, and its rival, prices, in May.", "The firm cut jobs … in May"),
    ],
)
def test_an_ellipsis_over_an_aside_that_qualifies_is_refused(source: str, quote: str) -> None:
    assert not locate(source, quote).found


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # an attribution the sentence goes on with after its comma or dash
        ("The dam will hold, engineers said.", "The dam will hold"),
        ("The dam will hold, say the engineers who built it.", "The dam will hold"),
        ("The dam will hold, according to the council's report.", "The dam will hold"),
        ("The dam will hold — critics claim — despite the floods.", "The dam will hold"),
        ("The dam will hold, the minister told reporters.", "The dam will hold"),
        # a condition of time, a concession, a comparison's other term after the quote
        ("The gate must be shut once the water rises.", "The gate must be shut"),
        ("The gate was shut, albeit only for a day.", "The gate was shut"),
        ("Wind costs much less per unit than coal in the north.", "Wind costs much less per unit"),
        # a frame fronted after "that" or a colon; a note marker glued to the frame's word
        ("She said that even if it rains, the dam will hold.", "the dam will hold"),
        ("One rule applies: within a year of use, every dam must be inspected.", "every dam must"),
        ("\u00b9If the gate sticks, the dam will overflow.", "the dam will overflow"),
        # a hedge at its clause's start
        ("The pump failed; perhaps the seal was worn.", "the seal was worn"),
        ("Reportedly the seal was worn through.", "the seal was worn through"),
        # a belief or an estimate that frames what follows
        ("The engineers believe the dam will hold in a flood.", "the dam will hold in a flood"),
        ("A new survey estimates that the dam will hold.", "the dam will hold"),
        ("We argue that the dam will hold in a flood.", "the dam will hold in a flood"),
        ("A common myth is that the dam will hold.", "the dam will hold"),
        # a fronted scope or time the claim holds in
        ("In dry summers, the dam loses a third of its water.", "the dam loses a third of its"),
        ("Within a year of opening, the dam leaked.", "the dam leaked"),
        ("During the drought, officials said, the dam ran dry.", "the dam ran dry"),
        ("Under the new rules, the dam must be inspected yearly.", "the dam must be inspected"),
        # a part made the whole
        ("Some dams built before 1950 will fail in a flood.", "dams built before 1950 will fail"),
        ("Engineers warn that most of the old dams will fail.", "the old dams will fail"),
        ("Only the oldest dams were inspected last year.", "the oldest dams were inspected"),
    ],
)
def test_a_quote_cut_from_its_attribution_or_its_part_is_refused(source: str, quote: str) -> None:
    assert not locate(source, quote).found


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # a quote too short to claim anything of its part
        ("Some deep words of the page are here.", "deep words"),
        # a hedge inside a phrase is its verb's
        ("We hope to potentially improve the seal design.", "improve the seal design"),
        # a quote that ends on the comparative itself
        ("Wind is cheaper than coal in the north.", "Wind is cheaper"),
        # a date, a turn of discourse, an occasion before the comma
        ("In May, the dam was finished.", "the dam was finished"),
        ("In addition, the dam was finished.", "the dam was finished"),
        ("In an interview, the engineer said the dam was finished.", "the engineer said the dam"),
        ("In this paper, we describe the dam and its design.", "we describe the dam and its"),
        # a clause of its own after the comma; a quantifier inside a phrase
        ("The dam will hold, which engineers said was likely.", "The dam will hold"),
        ("The dam will hold, and the town is safe.", "The dam will hold"),
        ("The dam held in several ways: the wall did not crack.", "ways: the wall did not crack"),
        ("We spent much of the year on the dam.", "the year on the dam"),
    ],
)
def test_a_clause_or_phrase_after_or_before_the_quote_still_passes(source: str, quote: str) -> None:
    got = locate(source, quote)
    assert got.found, got.differences
