"""Round 10's rules: an omission that frames or ends the words kept, an aside that is a clause
of its own, the lines a PDF's layout sets inside a sentence. Each rule with its honest
counterpart beside it (docs/editorial-marks.md). The texts are made up here, from the rules,
not from any set's cases.
"""

from __future__ import annotations

import pytest

from citeledger.locate.locator import locate

OMISSION_ALTERED = [
    # an attempt is not an achievement
    (
        "We avoid systems that try to learn thresholds on their own.",
        "We avoid systems that … learn thresholds",
    ),
    ("Le système tente de corriger les erreurs seul.", "Le système … corriger les erreurs"),
    # "failing that": a condition
    (
        "It needs high reliability and, failing that, at least clear errors.",
        "It needs high reliability and … at least clear errors",
    ),
    # "some …, others …"
    (
        "While some tribes refloat the whales, others like the Ngati stand back and watch.",
        "some tribes … stand back and watch",
    ),
    # a stance and its "that"
    (
        "He gave no answer, which leaves me with the impression that he has persuaded no one.",
        "which leaves me with … he has persuaded",
    ),
    ("Cela laisse l'impression que rien n'a changé ici.", "Cela laisse … rien"),
    # a hyphenated modifier is one word
    (
        "When the user-supplied map operators are deterministic, the output is too.",
        "When the … map operators are deterministic",
    ),
    # the end of a clause before a kept "but"
    (
        "He is not pleased with a career in a distant land, but his brother never had the drive.",
        "He is not pleased with a career … but his brother never had the drive.",
    ),
    (
        "Il aime la carrière dans un pays lointain, mais son frère refuse.",
        "Il aime la carrière … mais son frère refuse.",
    ),
    # an aside that limits the words kept is no clause of its own
    ("The drug, although not in children, works well.", "The drug … works well."),
    ("The drug, if taken early, works well.", "The drug … works well."),
    ("The drug (in 3 of 40 patients) works well.", "The drug … works well."),
]

OMISSION_HONEST = [
    # a relative clause the source sets off describes its noun, whatever it holds
    (
        "They replace the gas lines — which were made of unprotected steel — with plastic pipes.",
        "They replace the gas lines … with plastic pipes.",
    ),
    (
        "Many accuse the Islamists, who held power from 2011 to 2013, of being slow to act.",
        "Many accuse the Islamists … of being slow to act.",
    ),
    (
        "Christian Paul, qui n'avait pas voté la loi précédente, s'est abstenu hier.",
        "Christian Paul … s'est abstenu hier.",
    ),
    # a concession with its own subject
    (
        "It matters because, although the brain does not use all the data, it uses enough to act.",
        "It matters because … it uses enough to act.",
    ),
    (
        "Le texte passe car, bien que le Sénat ne soit pas d'accord, la majorité le soutient.",
        "Le texte passe car … la majorité le soutient.",
    ),
    # a vote's tally
    (
        "Les députés ont adopté à une large majorité (438 contre 86 et 42 abstentions) le projet.",
        "Les députés ont adopté à une large majorité … le projet.",
    ),
    (
        "The Senate passed (52 to 48) the budget bill on Friday.",
        "The Senate passed … the budget bill on Friday.",
    ),
    # a clause before a kept "and" may end where the source's comma does
    (
        "He mined data from the archive's sources, and turned it into maps.",
        "He mined data … and turned it into maps.",
    ),
]


@pytest.mark.parametrize(("source", "quote"), OMISSION_ALTERED)
def test_an_omission_that_frames_or_limits_the_words_kept_is_refused(
    source: str, quote: str
) -> None:
    assert not locate(source, quote).found


@pytest.mark.parametrize(("source", "quote"), OMISSION_HONEST)
def test_an_omission_of_a_clause_of_its_own_is_found(source: str, quote: str) -> None:
    res = locate(source, quote)
    assert res.found, res
    assert [e.kind for e in res.edits] == ["omission"]


_PROSE = "The Digital Millennium Copyright Act (DMCA) was signed into law by"
_NEXT = "President Clinton on October 28, 1998. The legislation implements two treaties"


def test_a_footnote_marker_on_its_own_line_is_the_layouts() -> None:
    text = f"INTRODUCTION\n{_PROSE}\n1\n{_NEXT} of 1996.\n"
    quote = "was signed into law by President Clinton on October 28, 1998."
    res = locate(text, quote)
    assert res.found, res
    assert res.source_quote is not None and "\n1\n" in res.source_quote
    assert res.reason is not None and "footnote marker" in res.reason


def test_a_figure_between_two_lines_of_a_sentence_is_the_layouts() -> None:
    text = (
        "Each machine had two processors with Hyper-\n"
        "Threading enabled, 4GB of memory, two 160GB IDE\n20 40 60 80 100\nSeconds\n0\n10000\n"
        "Input (MB/s)\n"
        "Figure 2: Data transfer rate over time\n"
        "disks, and a gigabit Ethernet link. The machines were arranged in a tree.\n"
    )
    assert locate(text, "two 160GB IDE disks, and a gigabit Ethernet link.").found


@pytest.mark.parametrize(
    ("text", "quote"),
    [
        # a digit after a one-letter word is a power or an index: "R²" is not "R"
        (
            "Die Produkttopologie auf dem Produkt R\n2\nstimmt mit der euklidischen überein.",
            "auf dem Produkt R stimmt mit",
        ),
        # the line before ends its sentence: the number is no marker inside one
        (f"{_PROSE} the Congress.\n12\n{_NEXT} in total.", "by the Congress. President Clinton"),
        # a prose number on its own line where the next line is a page's start
        (f"{_PROSE} a vote of\n12\n\f{_NEXT}", "by a vote of President"),
        # a caption that wraps: the next line is the caption's, not the sentence's
        (
            "The examples show how the extractor fails on long relations and\n"
            "Table 2: Examples of uninformative relations (left) and\n"
            "their completions (right) are listed below.\n",
            "long relations and their completions",
        ),
    ],
)
def test_a_line_of_the_prose_is_never_set_aside(text: str, quote: str) -> None:
    assert not locate(text, quote).found
