"""Unverified markers (seed 001): a declared, unscored claim renders as such in every format.

``[the model's own claim]{.unverified}`` and ``::: unverified`` are provenance the writer
declares honestly: the reader must see the word "unverified" at the claim, in every output family,
and it must never look like a checked citation nor like a breakdown. Documents without markers
(and without citations) must still cost nothing: they are written back without being parsed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from fixture_judge import FixtureJudge
from helpers import pandoc_bytes, run_main, walk, with_class

from citeledger.build.citations import plain_text, scan_document
from citeledger.build.hidden import revealed

FORMATS = ["html", "latex", "docx", "gfm", "plain", "typst", "markdown", "epub3", "rst"]
MARKED = "citeledger-unverified"
LABEL = "citeledger-unverified-label"

DOC = (
    "[The model's own claim]{.unverified}, stated from memory.\n\n"
    "::: unverified\nThis paragraph comes from memory. So does this one.\n\nA second one.\n:::\n\n"
    "::: unverified\n- a list opens this block\n:::\n\n"
    "Nested [outer [inner]{.unverified} words]{.unverified} here.\n"
)


def fixture(raw: bytes, fmt: str = "html", **kw):  # type: ignore[no-untyped-def]
    return run_main(raw, fmt, judge_factory=FixtureJudge, **kw)


def _labels(node: object) -> list[str]:
    return [plain_text(s["c"][1]) for s in with_class(node, "Span", LABEL)]


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_marker_gets_the_class_and_the_word_in_every_format(fmt: str) -> None:
    run = fixture(pandoc_bytes(DOC), fmt)
    assert run.code == 0 and run.err == ""
    blocks = run.doc["blocks"]
    marked = [n for n in walk(blocks) if n.get("t") in ("Span", "Div") and MARKED in n["c"][0][1]]
    assert [n["t"] for n in marked] == ["Span", "Div", "Div", "Span"]  # the nested one: no
    assert all("unverified" in n["c"][0][1] for n in marked)  # the writer's class stays
    assert _labels(blocks) == ["[unverified]"] * 4
    # a Span's marker comes after its words; a Div's opens its first paragraph
    span = marked[0]
    assert plain_text(span["c"][1]) == "The model’s own claim [unverified]"
    assert LABEL in revealed(span["c"][1][-1])["c"][0][1]  # GitHub Markdown: hidden there
    first = marked[1]["c"][1][0]
    assert first["t"] == "Para" and plain_text(first["c"]).startswith("[unverified] This paragraph")
    listed = marked[2]["c"][1]
    assert [b["t"] for b in listed] == ["Para", "BulletList"]  # its own line before the list


@pytest.mark.parametrize("fmt", ["html", "latex", "docx", "gfm", "plain"])
def test_a_marker_never_looks_like_a_check_or_a_breakdown(fmt: str) -> None:
    raw = pandoc_bytes(DOC + "\nA checked claim [@st-checked].\n", "-M", "citeledger.strict=true")
    run = fixture(raw, fmt)
    assert run.code == 0  # strict: a declaration is not a breakdown
    assert run.warnings == []
    doc = run.doc
    assert not with_class(doc, "Span", "citeledger-flag")
    assert not with_class(doc, "Div", "citeledger-breakdown")
    for node in with_class(doc, "Span", MARKED) + with_class(doc, "Div", MARKED):
        inside = {c for n in walk(node) if n.get("t") in ("Span", "Div") for c in n["c"][0][1]}
        assert not inside & {"citeledger-checked", "citeledger-cite", "citeledger-flag"}
        assert not [n for n in walk(node) if n.get("t") == "Link"]  # it promises no check
    text = run.out.decode()
    assert "Checked" not in text and "Unchecked" not in text


def test_the_label_is_bold_words_where_bold_shows_and_styled_in_word() -> None:
    latex = fixture(pandoc_bytes(DOC), "latex").doc
    label = with_class(latex, "Span", LABEL)[0]
    # the space before it is the label's own, among the filter's words (a rerun reads the same)
    strong = {"t": "Strong", "c": [{"t": "Str", "c": "[unverified]"}]}
    assert label["c"][1] == [{"t": "Space"}, strong]
    docx = fixture(pandoc_bytes(DOC), "docx").doc
    styled = [n for n in walk(with_class(docx, "Span", LABEL)[0]) if n.get("t") == "Span"][1]
    assert ["custom-style", "Citeledger Unverified"] in styled["c"][0][2]
    assert styled["c"][1][0]["t"] == "Strong"


def test_html_label_is_a_word_whose_brackets_the_stylesheet_hides() -> None:
    from importlib import resources

    doc = fixture(pandoc_bytes(DOC), "html").doc
    label = with_class(doc, "Span", LABEL)[0]
    assert ["title", "Declared unverified by the writer: no source backs these words"] in label[
        "c"
    ][0][2]
    brackets = with_class(label, "Span", "citeledger-bracket")
    assert [plain_text(b["c"][1]) for b in brackets] == ["[", "]"]
    # a document with markers only still gets the stylesheet that draws the label
    raws = [n["c"] for n in walk(doc["meta"]["header-includes"]) if n.get("t") == "RawBlock"]
    css = resources.files("citeledger.templates").joinpath("citeledger.css").read_text()
    assert any(f == "html" and css.strip() in text for f, text in raws)
    assert ".citeledger-unverified-label .citeledger-bracket { display: none; }" in css
    assert "#b00020" not in _rules(css, ".citeledger-unverified")  # not a breakdown's red
    assert "#2e7d32" not in _rules(css, ".citeledger-unverified")  # nor a check's green


def _rules(css: str, selector: str) -> str:
    """Every rule block whose selector mentions ``selector``."""
    out = []
    for chunk in css.split("}"):
        head, _, body = chunk.partition("{")
        if selector in head:
            out.append(body)
    return "\n".join(out)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_second_run_changes_nothing(fmt: str) -> None:
    first = fixture(pandoc_bytes(DOC + "\nAnd a citation [@st-stale].\n"), fmt)
    second = fixture(first.out, fmt)
    assert second.code == 0 and second.out == first.out
    only = fixture(pandoc_bytes(DOC), fmt)
    assert fixture(only.out, fmt).out == only.out


def test_markers_need_no_ledger_and_judge_nothing() -> None:
    made: list[object] = []

    def factory(options):  # type: ignore[no-untyped-def]
        made.append(options)
        return FixtureJudge(options)

    run = run_main(pandoc_bytes(DOC), "html", judge_factory=factory)
    assert run.code == 0 and made == [] and run.err == ""
    assert not with_class(run.doc["blocks"], "Div", "citeledger-audit")


@pytest.mark.parametrize(
    "markdown",
    [
        "The word unverified in prose is not a marker.\n",
        "A [span]{.unverifiedish} and a `unverified` code.\n",
        "::: {.note}\nA div with another class.\n:::\n",
    ],
)
def test_documents_without_markers_or_citations_come_out_byte_identical(markdown: str) -> None:
    raw = pandoc_bytes(markdown)
    run = fixture(raw)
    assert run.code == 0 and run.err == ""
    assert run.out == raw


def test_input_without_either_mark_is_not_even_parsed() -> None:
    """The speed design: a byte search decides; only input naming a Cite or the class is read."""
    junk = b'{"blocks": [ this is not JSON'
    assert fixture(junk).out == junk
    assert fixture(junk + b' "unverified"').code == 2  # now it must be parsed, and fails
    assert fixture(junk + b' "Cite"').code == 2


def test_the_walk_finds_markers_everywhere_prose_goes() -> None:
    doc = pandoc_bytes(
        "# A [heading claim]{.unverified}\n\n"
        "| [cell]{.unverified} |\n|---|\n| x |\n\n"
        "Body.^[A note [from memory]{.unverified}.]\n\n"
        "- [item]{.unverified}\n\n"
        "> ::: unverified\n> quoted\n> :::\n\n"
        "See [the [linked]{.unverified} text](https://example.org).\n"
    )
    import json

    found = scan_document(json.loads(doc)).unverified
    texts = [plain_text(n["c"][1]) if n["t"] == "Span" else "div" for n in found]
    assert texts == ["heading claim", "cell", "from memory", "item", "div", "linked"]
