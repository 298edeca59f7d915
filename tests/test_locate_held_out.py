"""Rules a held-out adversarial set (built to docs/editorial-marks.md, never shown the code)
found the locator breaking: each test is the rule, on a sentence of its own."""

from __future__ import annotations

import pytest

from citeledger.locate import locate
from citeledger.locate.wordlists import first_meaningful


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # a sign or minus at the quote's edge is a token, in the fuzzy stage too
        ("The tester holds a CompTIA A+ certification today.", "holds a CompTIA A−"),
        ("Pages score 1/2+1/3 = 5/6 in the end here.", "Pages score 1/2−"),
        ("The library (implemented in C++) is linked in.", "library (implemented in C−+)"),
        ("The library (implemented in C++) is linked in.", "library (implemented in C+-)"),
        ("It reached precision 0.8 or higher on most runs.", "It reached precision 0.8−"),
        (
            "It keeps O(M + R) scheduling decisions in memory.",
            "− R) scheduling decisions in memory",
        ),
    ],
)
def test_a_flipped_or_added_sign_is_refused(source: str, quote: str) -> None:
    assert not locate(source, quote).found


def test_a_dash_between_words_is_still_punctuation() -> None:
    text = "He left\u2014and came back the next morning with the keys."
    assert locate(text, "He left - and came back the next morning").found
    assert locate(text, "He left -- and came back the next morning").found


@pytest.mark.parametrize(
    "word",
    [
        "first",
        "second",
        "single",
        "just",
        "merely",
        "simply",
        "little",
        "possible",
        "potential",
        "hypothetical",
        "estimated",
        "faster",
        "longer",
        "previous",
        "average",
    ],
)
def test_an_omission_may_not_hide_an_ordinal_minimizer_hedge_or_comparative(word: str) -> None:
    text = f"The board agreed that the {word} plan was approved by the council in the end."
    assert first_meaningful(word) is not None
    assert not locate(text, "The board agreed that the … plan was approved by the council").found
    # the same omission of a plain word is allowed: the refusal is the word's, not the mark's
    plain = text.replace(word, "newly drafted")
    assert locate(plain, "The board agreed that the … plan was approved by the council").found


@pytest.mark.parametrize("word", ["we'd", "they\u2019d", "that'll", "it'll", "I'd"])
def test_a_contracted_modal_may_not_be_left_out(word: str) -> None:
    text = f"The team said that {word} be losing some support for the old format soon."
    assert first_meaningful(word) == (word, "modal")
    assert not locate(text, "The team said that … be losing some support for the old format").found
    plain = text.replace(word, "its members")
    assert locate(plain, "The team said that … be losing some support for the old format").found


def test_an_approximator_before_a_number_may_not_be_left_out() -> None:
    text = "The project costs about 50 dollars a year and takes over 30 days to finish."
    assert not locate(text, "The project costs … 50 dollars a year").found
    assert not locate(text, "and takes … 30 days to finish").found
    # the same word elsewhere is a preposition like any other
    text = "He talked about the weather and then about the five other things."
    assert locate(text, "He talked … and then about the five other things").found


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "The site is new. We expect to polish it, and beef up the site later.",
            "polish [the site], and beef up",
        ),
        (
            "We fixed the functions. Satisfies them; our goal is to find one soon.",
            "Satisfies [the functions]; our goal",
        ),
        (
            "Lorenz worked alone. \u201cHe carried a lot in his head,\u201d she said.",
            "\u201c[Lorenz] carried a lot in",
        ),
        (
            "The result is old. Thus (this follows from [10]) we see it.",
            "Thus ([this result] follows from [10])",
        ),
    ],
)
def test_a_reference_bracket_beside_punctuation_is_honest(source: str, quote: str) -> None:
    got = locate(source, quote)
    assert got.found, got.differences
    assert got.edits and got.edits[0].kind == "bracket"


def test_a_bracket_beside_punctuation_still_may_not_bring_in_a_word() -> None:
    text = "We expect to polish it, and beef up the site later."
    assert not locate(text, "polish [not it], and beef up").found
    assert not locate(text, "polish [it not], and beef up").found


def test_the_sources_own_ellipsis_beside_a_sic() -> None:
    text = "He asked me how to query the tables in this article... well, I used PopSQL then."
    got = locate(text, "asked me [sic] how to query the tables in this article... well, I used")
    assert got.found, got.differences


def test_the_sources_citation_brackets_beside_an_honest_reformat() -> None:
    text = "V8 is a cross-platform engine that runs JavaScript.[60][61] It is fast."
    assert locate(text, "V8 is a cross platform engine that runs JavaScript.[60][61]").found
    assert not locate(text, "V8 is a cross platform engine that runs JavaScript.[60][62]").found
    assert not locate(text, "V8 is a cross platform engine that runs Java.[60][61]").found


CHAIN = (
    "The committee met in May. It decided that the plan, which had been drafted in haste, "
    "was sound and would be adopted by the board."
)


def test_a_bracket_and_an_ellipsis_in_one_quote_each_keep_their_rule() -> None:
    got = locate(CHAIN, "The committee met in May. … [The committee] decided that the plan")
    assert got.found, got.differences
    assert [e.kind for e in got.edits if e.kind == "bracket"] == ["bracket"]
    assert any(e.source_text == "It" for e in got.edits)
    got = locate(CHAIN, "… [t]he plan, which had been drafted in haste, was sound")
    assert got.found
    got = locate(CHAIN, "[I]t decided that the plan … was sound and would be adopted")
    assert got.found and [e.kind for e in got.edits] == ["omission"]


@pytest.mark.parametrize(
    "quote",
    [
        "It decided that the plan … was [not] sound and would be adopted",
        "It decided that the plan … was sound and [could] be adopted by the board",
        "[They] decided that the plan … was sound and would be adopted by the board",
        "It decided that the [policy] … was sound and would be adopted by the board",
    ],
)
def test_an_ellipsis_quote_may_not_smuggle_a_bracketed_change(quote: str) -> None:
    assert not locate(CHAIN, quote).found


@pytest.mark.parametrize(("content", "source"), [("they", "it"), ("he", "she"), ("this", "that")])
def test_a_bracket_may_not_put_another_reference_in_a_references_place(
    content: str, source: str
) -> None:
    text = (
        f"The plan came up. The report said that {source} was approved by the council in the end."
    )
    assert not locate(text, f"The report said that [{content}] was approved by the council").found
    assert locate(text, "The report said that [the plan] was approved by the council").found


def test_a_bracket_that_ends_the_quote_stands_for_the_clause_end() -> None:
    text = "All of the writes finish about 850 seconds into the computation. Then it stops."
    got = locate(text, "All of the writes finish about 850 seconds into [it].")
    assert got.found and got.edits[0].source_text == "the computation"
    # never for a first word that leaves the rest of the clause out
    text = (
        "It is accompanied by an update to the trigger timestamp in the assoc table of the store."
    )
    assert not locate(
        text, "It is accompanied by an update to the trigger timestamp in [it]."
    ).found


# Round 2 of the held-out set: case past the first word, more omitted classes, numbers cut off.


def test_past_the_first_word_case_makes_the_word() -> None:
    text = "Press secretary Josh Earnest condemned the attack on the embassy in strong words."
    q = "Press secretary Josh earnest condemned the attack on the embassy in strong words"
    assert not locate(text, q).found
    assert locate(text, "press secretary Josh Earnest condemned the attack on the embassy").found


@pytest.mark.parametrize(
    "gap",
    [
        "if p is bad",
        "Mozilla reported that",
        "especially",
        "slightly",
        "typically",
        "necessarily",
        "so-called",
        "former",
    ],
)
def test_an_omission_may_not_hide_a_condition_an_attribution_or_a_degree(gap: str) -> None:
    text = f"In the end the {gap} results were approved by the council after a long debate."
    assert first_meaningful(gap) is not None
    assert not locate(text, "In the end the … results were approved by the council").found


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("On 24K tokens, our model scored 82.2%. Then it fell.", "our model scored 82.2."),
        ("It is used by more than 200 million users today.", "It is used by more than 200"),
        ("The chart shows a period of 12 hours and a peak.", "The chart shows a period of 12"),
    ],
)
def test_a_quote_may_not_cut_a_number_from_its_unit_or_scale(source: str, quote: str) -> None:
    assert not locate(source, quote).found


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("In 2019, the firm grew fast and far.", "In 2019, the firm grew"),
        ("The firm grew (see Table 3) and it rose.", "The firm grew (see Table 3"),
        ("Il se rendra à Doha le 4 mai prochain.", "Il se rendra à Doha le 4"),
        ("It reached the threshold 0.65 in most runs.", "It reached the threshold 0.65"),
    ],
)
def test_a_number_may_end_a_quote_where_its_phrase_ends(source: str, quote: str) -> None:
    assert locate(source, quote).found


# Round 3: splices inside one sentence, identifiers.


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "Only the scheme component is required; the other components may be empty.",
            "Only the scheme … components may be empty.",
        ),
        (
            "A nation can be the agent of an attack, and a city can be a target, never more.",
            "A nation can be the agent … can be a target, never more.",
        ),
        (
            "He tossed a bulging notebook into his bookshelf and lodged his hard drive there.",
            "He tossed … his hard drive there.",
        ),
    ],
)
def test_an_omission_may_not_splice_two_clauses(source: str, quote: str) -> None:
    assert not locate(source, quote).found


def test_an_omission_inside_one_clause_still_holds() -> None:
    text = "He tossed a bulging, heavy notebook into his bookshelf before he left the room."
    assert locate(text, "He tossed a … notebook into his bookshelf before he left").found


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "Run SELECT full_text FROM standard WHERE type = 1 now.",
            "SELECT fulltext FROM standard WHERE type",
        ),
        (
            "It moves webRequest to optional_permissions in the end.",
            "It moves web_request to optional_permissions",
        ),
        (
            "by Ahiza Garcia @ahiza_garcia February 1, 2016 today",
            "by Ahiza Garcia @ahizagarcia February 1, 2016",
        ),
    ],
)
def test_an_identifier_keeps_its_underscores(source: str, quote: str) -> None:
    assert not locate(source, quote).found


def test_a_bracketed_ellipsis_is_an_omission_never_a_reference_spelled_out() -> None:
    # the text has its own "..." elsewhere, so the bracket route is tried: "[...]" once stood
    # for "you said", taken for a reference ("you" and "the said")
    text = "Well... I note that you said thoughtful, gentle, kind words to him, and he wrote it."
    assert not locate(text, "I note that [...] thoughtful, gentle, kind words to him").found
    assert not locate(text, "I note that […] thoughtful, gentle, kind words to him").found
    # the same mark over words no list holds is an honest omission
    assert locate(text, "I note that you said [...] kind words to him").found


def test_said_after_a_pronoun_is_a_verb_not_a_reference() -> None:
    from citeledger.locate.wordlists import is_reference

    assert is_reference("the said") and is_reference("this same") and is_reference("the former")
    assert not is_reference("he said") and not is_reference("you said")
    assert not is_reference("they same")


@pytest.mark.parametrize("word", ["specifically", "officially", "technically", "effectively"])
def test_an_omission_may_not_hide_a_scope_or_status_word(word: str) -> None:
    text = f"The rights have only been {word} recognised in law by the national council."
    assert first_meaningful(word) is not None
    assert not locate(text, "The rights have only been … recognised in law").found
    assert locate(
        text, f"The rights have only been {word} recognised … by the national council"
    ).found


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("The colonel who led the way was about thirty, not handsome.", "was … thirty, not"),
        ("It was not made within two years after the sale.", "not made ... two years after"),
        ("It bumps the frame rate up to 60FPS in performance mode.", "frame rate . . . 60FPS in"),
        ("A proxy SHOULD use up to 2*N connections to a server.", "SHOULD use ... 2*N connections"),
    ],
)
def test_an_approximator_before_a_spelled_number_or_up_to_may_not_be_left_out(
    source: str, quote: str
) -> None:
    assert not locate(source, quote).found


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # a negative by in-/dis-/mis-, a manner adverb, a status word: no list holds them all
        (
            "He seemed incapable of fatigue on the long march north.",
            "He seemed … of fatigue on the long march",
        ),
        (
            "The safety net was ineffective because nobody checked.",
            "The safety net was [...] because nobody checked",
        ),
        ("Martino secretly filed the papers with the court.", "Martino […] filed the papers"),
        ("The tool will erroneously change it in place.", "The tool will [...] change it in"),
        ("She was a deputy editor of the paper for years.", "She was a … editor of the paper"),
        ("In those rare cases the server restarts itself.", "In those […] cases the server"),
        (
            "Printers may (erroneously) introduce a hyphen at a break.",
            "Printers may … introduce a hyphen at a break",
        ),
    ],
)
def test_an_ellipsis_may_not_leave_out_one_content_word_alone(source: str, quote: str) -> None:
    got = locate(source, quote)
    assert not got.found
    assert any("leaves out one word" in d for d in got.differences), got.differences


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "He talked about the plan that the council had approved.",
            "He talked about the plan … the council had approved",
        ),
        (
            "Markov random fields (MRFs) define a prior over images.",
            "Markov random fields … define a prior",
        ),
        (
            "Die Lösung ist einfach oder schnell zu bauen, sagt sie.",
            "Die Lösung ist einfach … schnell zu bauen, sagt sie.",
        ),
        (
            "It solves the problem for two. Proof. Cars to the right move on.",
            "It solves the problem for two. … Cars to the right move on.",
        ),
        (
            "The committee met twice, quietly, calmly, in the spring.",
            "The committee met twice, … in the spring",
        ),
    ],
)
def test_a_function_word_an_acronym_aside_or_a_one_word_sentence_may_go(
    source: str, quote: str
) -> None:
    assert locate(source, quote).found


def test_the_other_half_of_an_or_is_not_left_out_for_what_follows() -> None:
    text = "They might call for help or some casualties might have been reported by now."
    assert not locate(text, "They might call […] some casualties might have been reported").found


@pytest.mark.parametrize("mark", ["\u200e", "\u200f", "\u2066", "\u202a"])
def test_a_direction_mark_inside_a_word_is_invisible(mark: str) -> None:
    text = "But Bob has no idea that Alice just did this to the server."
    assert locate(text, f"But Bob has no idea th{mark}at Alice just did this").found


def test_decomposed_accents_are_the_same_text() -> None:
    import unicodedata

    text = "Her patience was nearly worn out before the tête-à-tête was over."
    quote = unicodedata.normalize("NFD", "worn out before the tête-à-tête was over")
    assert quote != "worn out before the tête-à-tête was over"
    assert locate(text, quote).found


def test_not_equal_spelled_in_ascii_is_one_symbol() -> None:
    text = "The loop stops as soon as the counter x = 0 holds at the top of the block."
    assert not locate(text, "the loop stops as soon as the counter x != 0 holds").found
    code = "The loop stops as soon as the counter x != 0 holds at the top of the block."
    assert not locate(code, "the loop stops as soon as the counter x = 0 holds").found
    assert locate(code, "the loop stops as soon as the counter x != 0 holds").found
    assert locate(code, "the loop stops as soon as the counter x \u2260 0 holds").found


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # an exception narrows the claim
        (
            "Prices excluding taxes and shipping fees rose by a third over the last year.",
            "Prices … rose by a third over the last year",
        ),
        (
            "The plant ran at a loss, minus the subsidies it was paid each year by the state.",
            "The plant ran at a loss, … it was paid each year by the state",
        ),
        # a time bound is a condition
        (
            "The old bridge was to be demolished until the council reversed its decision in June.",
            "The old bridge was to be demolished … in June",
        ),
        (
            "The treaty has been in force since the war ended and remains binding today.",
            "The treaty has been in force … and remains binding today",
        ),
        # a direction of change, or the other side of a comparison
        (
            "Shares of the firm fell sharply in early trading on the exchange today.",
            "Shares of the firm … in early trading on the exchange today",
        ),
        (
            "Users in the trial group, versus those in the control group, reported better sleep.",
            "Users in the trial group … reported better sleep",
        ),
    ],
)
def test_an_ellipsis_may_not_hide_an_exception_a_time_bound_or_a_change(
    source: str, quote: str
) -> None:
    assert not locate(source, quote).found


def test_an_ellipsis_without_those_words_still_passes() -> None:
    text = "Prices of fresh fruit in the northern markets rose by a third over the last year."
    assert locate(text, "Prices of fresh fruit … rose by a third over the last year").found


def test_a_quote_may_not_stop_inside_a_unit() -> None:
    text = "The car can reach 100 km/h in 4.2 seconds and a top speed of 250 km/h on a track."
    assert not locate(text, "and a top speed of 250 km").found
    assert locate(text, "and a top speed of 250 km/h").found
    assert locate(text, "The car can reach 100 km/h in 4.2 seconds").found


BLOCKS = "Not recommended\n\n- Ibuprofen\n- Aspirin\n\nRecommended for children\n\n- Paracetamol\n"


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # whitespace folding must not join a list under one heading to the next heading
        (BLOCKS, "Ibuprofen, Aspirin: Recommended for children"),
        (BLOCKS, "Aspirin Recommended for children"),
        ("The committee approved\n\nthe dam was safe.", "The committee approved the dam was safe."),
        ("The committee approved\n \t\nthe dam was safe.", "committee approved the dam"),
    ],
)
def test_a_quote_may_not_run_across_a_paragraph_break(source: str, quote: str) -> None:
    r = locate(source, quote)
    assert not r.found and "paragraph break" in r.differences[0]


def test_paragraphs_quoted_as_paragraphs_and_page_breaks_still_pass() -> None:
    assert locate(BLOCKS, "Recommended for children").found
    assert locate("Para one ends.\n\nPara two starts.", "Para one ends.\n\nPara two starts.").found
    # pages are joined by a form feed: a quote may run on from one page to the next
    assert locate("first page ends here\fand the second goes on", "ends here and the second").found
    # the span's own edges may take in the blank line before it
    assert locate("Intro.\n\n- All of it MUST be done in GMT.", "- All of it MUST be done").found


@pytest.mark.parametrize(
    ("quote", "word"),
    [("He will resign the contract", "re-sign"), ("and recover the sofa", "re-cover")],
)
def test_a_hyphen_printed_inside_a_line_may_not_be_dropped(quote: str, word: str) -> None:
    source = "He will re-sign the contract next week and re-cover the sofa.\n"
    r = locate(source, quote)
    assert not r.found and word in r.differences[0]


def test_a_line_end_hyphen_may_go_and_a_kept_hyphen_passes() -> None:
    source = "He will re-sign the contract, a long line-\nbreak here, and a cooperate co-operate."
    assert locate(source, "He will re-sign the contract").found
    assert locate(source, "a long linebreak here").found
    assert locate(source, "a cooperate co-operate").found  # the joined form is the source's too


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # a reference in brackets may not take the place of a listed word of the source
        ("The inspectors found no trace of the solvent in the river.", "found [the] trace of"),
        ("Only night shifts were told to leave the plant early.", "[The] night shifts were told"),
        ("The fund will cover some of the repairs to the old school.", "will cover [it] of the"),
        ("The council rejected several proposals for the new park.", "rejected [they] for the"),
        ("She could see nothing through the fog on the bay that night.", "could see [it] through"),
        ("He kept everything in a locked drawer of his old desk.", "He kept [it] in a locked"),
        ("They asked someone at the desk for the keys to the hall.", "asked [him] at the desk"),
        ("Few residents of the valley had heard of the plan at all.", "[The] residents of the"),
        # a determiner in brackets stands for one determiner, not for the words after it
        ("The court struck down the forged will of the late owner.", "struck down [the] will of"),
        ("Police found a stolen van near the bridge on Tuesday.", "Police found [the] van near"),
    ],
)
def test_a_bracket_may_not_stand_for_a_listed_word_or_leave_words_out(
    source: str, quote: str
) -> None:
    assert not locate(source, quote).found


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "The solvent leaked. The inspectors said it was found in the river.",
            "said [the solvent] was found",
        ),
        ("Police found a van near the bridge on Tuesday.", "Police found [the] van near"),
        (
            "Two plans, a merger and a sale, came up, and the former was dropped.",
            "and [the merger] was dropped",
        ),
        (
            "The budget was late. It was approved by the council in the end.",
            "[The budget] was approved by",
        ),
    ],
)
def test_a_bracket_spelling_out_a_reference_still_passes(source: str, quote: str) -> None:
    assert locate(source, quote).found


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # a negation in the source's own language, left out at an ellipsis
        (
            "Le ministre ne signera jamais un accord sans le vote du parlement européen.",
            "Le ministre ne … un accord sans le vote du parlement européen",
        ),
        (
            "Le maire n'a pas répondu aux questions posées par les habitants du quartier.",
            "Le maire … répondu aux questions posées par les habitants du quartier",
        ),
        (
            "Die Regierung hat keine neuen Steuern für kleine Betriebe geplant, sagte er.",
            "Die Regierung hat … neuen Steuern für kleine Betriebe geplant",
        ),
        (
            "Der Vertrag wurde ohne Zustimmung des Rates in Kraft gesetzt und gilt seitdem.",
            "Der Vertrag wurde … des Rates in Kraft gesetzt und gilt seitdem",
        ),
        (
            "O governo não aprovou o novo orçamento para as escolas públicas do estado.",
            "O governo … aprovou o novo orçamento para as escolas públicas do estado",
        ),
        (
            "El tribunal nunca admitió las pruebas presentadas por la defensa del acusado.",
            "El tribunal … admitió las pruebas presentadas por la defensa del acusado",
        ),
        (
            "Il comune non ha mai chiuso la scuola durante i mesi più freddi dell'anno.",
            "Il comune non ha … chiuso la scuola durante i mesi più freddi dell'anno",
        ),
    ],
)
def test_an_ellipsis_may_not_hide_a_negation_in_any_covered_language(
    source: str, quote: str
) -> None:
    assert not locate(source, quote).found


def test_a_foreign_omission_without_a_negation_still_passes() -> None:
    text = "Le ministre a signé hier soir un accord avec le vote du parlement européen à Bruxelles."
    assert locate(text, "Le ministre a signé … un accord avec le vote du parlement européen").found


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # a quote may not start right after the source's negation ...
        ("Residents were not entitled to the same benefits as workers.", "entitled to the same"),
        ("The panel could not\nconfirm the figures it had been sent.", "confirm the figures it"),
        ("We don't expect the bridge to reopen before the spring.", "expect the bridge to reopen"),
        ("Il ne faut pas oublier les victimes de la guerre civile.", "oublier les victimes de la"),
        ("Das Gericht hat die Klage nicht abgewiesen, sagte sie.", "abgewiesen, sagte sie"),
        # ... nor stop right before it
        ("The new filter did not reduce the noise in the samples.", "The new filter did"),
        ("She said the plan would never work without more staff.", "She said the plan would"),
        # nor end with a full stop of its own where the source's sentence goes on
        (
            "The alarm goes off every hour until someone resets it.",
            "The alarm goes off every hour.",
        ),
        (
            "Prices stayed flat in the second quarter\nof the year.",
            "Prices stayed flat in the second quarter.",
        ),
    ],
)
def test_a_quote_may_not_start_or_stop_beside_a_reversing_word(source: str, quote: str) -> None:
    assert not locate(source, quote).found


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("No. The plan was dropped in the spring.", "The plan was dropped"),
        ("The plan was dropped. Nothing else changed.", "The plan was dropped."),
        ("The plan was dropped, not delayed, in May.", "The plan was dropped"),
        (
            "The alarm goes off every hour and wakes the street.",
            "The alarm goes off every hour …",
        ),
        (
            "The alarm goes off every hour, until someone resets it.",
            "The alarm goes off every hour.",
        ),
        ("Overview\nThe plan was dropped in the spring.", "Overview."),
    ],
)
def test_a_quote_beside_punctuation_still_passes(source: str, quote: str) -> None:
    assert locate(source, quote).found


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # past the quote's first word, a bracket may not change a word's case
        ("The tour ends in Paris before the crews fly home.", "The tour ends in [p]aris before"),
        ("Shares of Apple rose after the launch in March.", "Shares of [a]pple rose after"),
        ("He met the Bush family at the ranch in Texas.", "He met the [b]ush family at"),
        ("Mr. Bush spoke to reporters on the lawn today.", "Mr. [b]ush spoke to reporters"),
        ("She joined the White House staff in the spring.", "She joined the [white house] staff"),
        ("The white house on the hill was sold last year.", "[The White House] on the hill"),
    ],
)
def test_a_bracket_may_change_case_only_where_a_sentence_starts(source: str, quote: str) -> None:
    assert not locate(source, quote).found


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("the tour ends in Paris before the crews fly home.", "[T]he tour ends in Paris"),
        ("The tour ends in Paris. the crews fly home after.", "in Paris. [T]he crews fly home"),
        ("The tour ends in Paris and the crews fly home after.", "The tour ends … [T]he crews fly"),
        ("The white house on the hill was sold last year.", "[The] white house on the hill"),
    ],
)
def test_a_case_change_on_a_sentence_s_first_word_still_passes(source: str, quote: str) -> None:
    assert locate(source, quote).found


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # an omission may not take the subject of the verb the quote goes on with
        (
            "The survey showed that the new vaccine was safe for most of the children tested.",
            "The survey showed … was safe for most of the children tested",
        ),
        (
            "Critics of the bill who live in rural districts have asked for a second vote.",
            "Critics of the bill … have asked for a second vote",
        ),
        (
            "The only bridge which the army had repaired could carry the heavy trucks again.",
            "The only bridge … could carry the heavy trucks again",
        ),
    ],
)
def test_an_ellipsis_may_not_take_the_subject_of_the_next_verb(source: str, quote: str) -> None:
    assert not locate(source, quote).found


def test_an_ellipsis_leaving_out_an_aside_clause_still_passes() -> None:
    text = "The old bridge, which the army had repaired in June, could carry the trucks again."
    assert locate(text, "The old bridge … could carry the trucks again").found


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # an "or" or "and" inside a closed aside in parentheses joins no clauses
        (
            "The kiln was fired twice a week (on Mondays or Thursdays) by the two apprentices.",
            "The kiln was fired twice a week … by the two apprentices",
        ),
        # whole sentences left out join nothing, whatever they hold
        (
            "The kiln was fired twice a week. The clay came from the river, and the wood from "
            "the hills. Its pots were sold at the market in town.",
            "The kiln was fired twice a week. … Its pots were sold at the market in town",
        ),
    ],
)
def test_an_omission_that_joins_no_clauses_still_passes(source: str, quote: str) -> None:
    assert locate(source, quote).found


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "The kiln was fired twice a week (but not in winter) by the two apprentices.",
            "The kiln was fired twice a week … by the two apprentices",
        ),
        (
            "The kiln was fired twice a week. The clay came from the river, and the wood "
            "came from the hills.",
            "The kiln was fired twice a week. … the wood came from the hills",
        ),
    ],
)
def test_an_aside_or_a_sentence_still_may_not_hide_a_listed_word_or_a_joint(
    source: str, quote: str
) -> None:
    assert not locate(source, quote).found
