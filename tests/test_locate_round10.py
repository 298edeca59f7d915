"""Round 10's rules: the lines a PDF's layout sets inside a sentence. Each rule with its honest
counterpart beside it (docs/editorial-marks.md). The texts are made up here, from the rules,
not from any set's cases.
"""

from __future__ import annotations

import pytest

from citeledger.locate.locator import locate

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
