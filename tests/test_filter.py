"""The filter as pandoc runs it: stdin JSON → stdout JSON, warnings on stderr, exit codes.

Tests call ``filter.main`` in-process with the fixture judge (``tests/data/filter``: the key
``@st-<state>`` is judged <state>) on JSON made by the real pandoc, and assert on what a writer
relies on: breakdowns are flagged and explained, Cites survive for citeproc, nothing else moves,
strict builds fail, bad input fails in one line, and a second run changes nothing.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from fixture_judge import SECRET, FixtureJudge
from helpers import body, pandoc_bytes, pandoc_json, run_main, walk, with_class

from citeledger.build.citations import find_citations
from citeledger.build.filter import LedgerJudges, run_filter
from citeledger.model import State

ALL_STATES = "\n\n".join(f"Claim {s.value} [@st-{s.value}]." for s in State)
FORMATS = ["html", "latex", "docx", "gfm", "plain", "typst", "markdown", "epub3", "beamer", "rst"]


def fixture(raw: bytes, fmt: str = "html", **kw):  # type: ignore[no-untyped-def]
    return run_main(raw, fmt, judge_factory=FixtureJudge, **kw)


@pytest.fixture(scope="module")
def all_states() -> bytes:
    return pandoc_bytes(ALL_STATES)


# --- pass-through ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "markdown",
    [
        "# A document\n\nNo *citations*, only me@example.org and a table:\n\n| a |\n|---|\n| b |\n",
        "See @fig-one and [@sec:two; @tbl-three].\n",  # cross-references only
        "---\nnocite: '@*'\n---\n\nA citation in metadata only.\n",
    ],
)
def test_documents_without_citations_come_out_byte_identical(markdown: str) -> None:
    raw = pandoc_bytes(markdown)
    run = fixture(raw)
    assert run.code == 0
    assert run.out == raw
    assert run.err == ""


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_second_run_changes_nothing(all_states: bytes, fmt: str) -> None:
    first = fixture(all_states, fmt)
    second = fixture(first.out, fmt)
    assert second.code == 0
    assert second.out == first.out
    # every citation is judged again: the same breakdowns are reported again, never hidden
    assert second.warnings == first.warnings and len(first.warnings) == 12


def test_blocks_without_citations_are_passed_through_untouched() -> None:
    markdown = "Plain *text* here.\n\n| t |\n|---|\n| u |\n\nA claim [@st-unchecked].\n\nAfter.\n"
    before = pandoc_json(markdown)
    after = fixture(json.dumps(before).encode()).doc
    assert body(after)[0] == before["blocks"][0]
    assert body(after)[1] == before["blocks"][1]
    assert body(after)[-1] == before["blocks"][-1]
    assert after["pandoc-api-version"] == before["pandoc-api-version"]


# --- flags, callouts, cites -----------------------------------------------------------------


def test_every_breakdown_gets_a_flag_and_a_callout_and_checked_ones_neither(
    all_states: bytes,
) -> None:
    run = fixture(all_states)
    assert run.code == 0
    doc = run.doc
    flags = with_class(doc, "Span", "citeledger-flag")
    callouts = with_class(doc, "Div", "citeledger-breakdown")
    breakdowns = [s for s in State if s.is_breakdown]
    assert [f["c"][0][0] for f in flags] == [f"citeledger-cite-{n}" for n in range(2, 14)]
    assert [c["c"][0][0] for c in callouts] == [f"citeledger-breakdown-{n}" for n in range(2, 14)]
    for flag, callout, state in zip(flags, callouts, breakdowns, strict=True):
        assert f"citeledger-{state.value}" in flag["c"][0][1]
        assert f"citeledger-{state.value}" in callout["c"][0][1]
        assert state.title in _text(callout)
        assert f"citation {state.value.replace('-', ' ')}" not in _text(flag)  # label, not title
    checked = with_class(doc, "Span", "citeledger-checked")
    assert len(checked) == 1
    assert [n["t"] for n in checked[0]["c"][1]] == ["Cite"]  # the claim anchor is its id
    wrapper_attr = ["citeledger-claim-1", ["citeledger-cite", "citeledger-checked"], []]
    assert checked[0]["c"][0] == wrapper_attr  # no states: the class says checked


def test_each_callout_follows_its_claim(all_states: bytes) -> None:
    blocks = body(fixture(all_states).doc)
    kinds = [b["t"] for b in blocks]
    # Para (checked), then Para + Div for each of the twelve breakdowns
    assert kinds == ["Para"] + ["Para", "Div"] * 12


def test_cites_stay_cites_and_the_selector_is_gone() -> None:
    raw = pandoc_bytes("Claim [@st-withdrawn, p. 14 quote:q1; @st-checked].")
    doc = fixture(raw).doc
    cites = [n for n in walk(doc) if n.get("t") == "Cite"]
    assert len(cites) == 1
    items = cites[0]["c"][0]
    assert [i["citationId"] for i in items] == ["st-withdrawn", "st-checked"]
    suffix = json.dumps(items[0]["citationSuffix"])
    assert "quote:" not in suffix and "14" in suffix
    assert "quote:" not in json.dumps(cites[0]["c"][1])
    wrapper = with_class(doc, "Span", "citeledger-cite")[0]
    assert "citeledger-checked" not in wrapper["c"][0][1]  # one item is a breakdown
    assert dict(wrapper["c"][0][2])["data-citeledger-states"] == "withdrawn checked"


def test_flag_and_callout_link_to_each_other_except_inside_link_text() -> None:
    raw = pandoc_bytes("A [@st-stale] and [text @st-tampered](http://example.org).")
    doc = fixture(raw).doc
    first, second = with_class(doc, "Span", "citeledger-flag")
    links = [n for n in walk(first) if n.get("t") == "Link"]
    assert [link["c"][2][0] for link in links] == ["#citeledger-breakdown-1"]
    assert not [n for n in walk(second) if n.get("t") == "Link"]  # no link inside a link
    # one paragraph, two breakdowns: one grouped callout, each item linking back to its flag
    (callout,) = with_class(doc, "Div", "citeledger-breakdown")
    item = with_class(callout, "Div", "citeledger-breakdown-item")[0]
    assert item["c"][0][0] == "citeledger-breakdown-1"
    back = [n["c"][2][0] for n in walk(item) if n.get("t") == "Link"]
    assert back == ["#citeledger-cite-1"]


def test_withdrawn_callout_says_date_reason_and_what_the_source_says() -> None:
    doc = fixture(pandoc_bytes("Claim [@st-withdrawn].")).doc
    text = _text(with_class(doc, "Div", "citeledger-breakdown")[0])
    assert "Withdrawn citation" in text
    assert "st-withdrawn" in text
    assert "Withdrawn on 2026-08-02: The paper is about word-graph embeddings" in text
    assert "What the source says: “This paper explores word-graph embeddings" in text
    assert "You quoted: “Appeals must arrive within 60 days.” (p. 14)" in text
    assert "Why: The writer withdrew this citation." in text


def test_callout_does_not_repeat_what_the_judges_reasons_already_say() -> None:
    from fixture_judge import judgement_for

    from citeledger.model import Judgement

    class SaysItAll(FixtureJudge):
        def judge(self, ref):  # type: ignore[no-untyped-def]
            j = judgement_for(ref)
            w = j.source.withdrawn
            reasons = (
                f"Withdrawn on {w.date}: {w.reason}",
                f"What the source says: “{w.source_says}”",
            )
            return Judgement(j.key, j.state, reasons, source=j.source, quote=j.quote)

    doc = run_main(pandoc_bytes("Claim [@st-withdrawn]."), judge_factory=SaysItAll).doc
    text = _text(with_class(doc, "Div", "citeledger-breakdown")[0])
    assert text.count("word-graph embeddings; it does not make this claim") == 1
    assert text.count("for class labels") == 1

    class SaysTheCandidate(FixtureJudge):
        def judge(self, ref):  # type: ignore[no-untyped-def]
            j = judgement_for(ref)
            r = j.receipt
            reasons = (f"Nearest passage in the source: “{r.candidate}”", r.differences[0])
            return Judgement(j.key, j.state, reasons, source=j.source, quote=j.quote, receipt=r)

    raw = pandoc_bytes("Claim [@st-quote-not-found].")
    doc = run_main(raw, judge_factory=SaysTheCandidate).doc
    text = _text(with_class(doc, "Div", "citeledger-breakdown")[0])
    assert text.count("within 90 days") == 1
    assert text.count("source says '90'") == 1


@pytest.mark.parametrize("fmt", FORMATS)
def test_restricted_sources_never_leak(fmt: str) -> None:
    run = fixture(
        pandoc_bytes("Claim [@st-restricted]. Audit.\n\n---\n", "-M", "citeledger.audit=true"), fmt
    )
    assert SECRET not in run.out.decode()
    assert SECRET not in run.err
    assert "Restricted citation" in _text(body(run.doc))


def test_quote_not_found_shows_the_nearest_passage_and_differences() -> None:
    doc = fixture(pandoc_bytes("Claim [@st-quote-not-found].")).doc
    text = _text(with_class(doc, "Div", "citeledger-breakdown")[0])
    assert "Nearest passage in the source: “Appeals must arrive within 90 days.”" in text
    assert "source says '90', quote says '60'" in text


def test_judge_reasons_render_code_and_keys_as_code() -> None:
    doc = fixture(pandoc_bytes("Claim [@st-unchecked].")).doc
    callout = with_class(doc, "Div", "citeledger-breakdown")[0]
    codes = [n["c"][1] for n in walk(callout) if n.get("t") == "Code"]
    assert "citeledger verify" in codes and "st-unchecked" in codes


# --- placement in the document --------------------------------------------------------------


def test_callouts_go_to_the_nearest_legal_place() -> None:
    markdown = (
        "# Heading [@st-stale]\n\n"
        "| h |\n|---|\n| cell [@st-tampered] |\n\n"
        "- item [@st-retracted]\n\n"
        "Term [@st-disputed]\n:   Definition.\n\n"
        "> quoted [@st-unchecked]\n\n"
        "Body.^[@st-withdrawn] Next.^[A note claims it [@st-unretrievable].]\n"
    )
    blocks = body(fixture(pandoc_bytes(markdown)).doc)

    def callout_ids(node: object) -> list[str]:
        return [d["c"][0][0] for d in with_class(node, "Div", "citeledger-breakdown")]

    kinds = [b["t"] for b in blocks]
    assert kinds == [
        "Header",
        "Div",
        "Table",
        "Div",
        "BulletList",
        "DefinitionList",
        "BlockQuote",
        "Para",
        "Div",
    ]
    assert callout_ids(blocks[1]) == ["citeledger-breakdown-1"]  # after the heading
    assert callout_ids(blocks[3]) == ["citeledger-breakdown-2"]  # after the table
    item = blocks[4]["c"][0]
    assert [b["t"] for b in item] == ["Plain", "Div"]  # inside the list item
    definition = blocks[5]["c"][0][1][0]
    assert [b["t"] for b in definition][:2] == ["Div", "Plain"]  # start of the definition
    assert [b["t"] for b in blocks[6]["c"]] == ["Para", "Div"]  # inside the quote
    # citation-only note → after the body paragraph; a note with a claim → inside the note
    assert callout_ids(blocks[8]) == ["citeledger-breakdown-6"]
    note = [n for n in walk(blocks[7]) if n.get("t") == "Note"][1]
    assert [b["t"] for b in note["c"]] == ["Para", "Div"]


# --- header-includes ------------------------------------------------------------------------


def _header_raw(doc: dict) -> list[tuple[str, str]]:
    return [
        tuple(n["c"])
        for n in walk(doc["meta"].get("header-includes", {}))
        if n.get("t") == "RawBlock"
    ]


@pytest.mark.parametrize(
    ("fmt", "raw_format", "marker"),
    [("html", "html", "citeledger-stylesheet"), ("latex", "latex", "citeledger-header")],
)
def test_header_includes_are_appended_not_replaced(fmt: str, raw_format: str, marker: str) -> None:
    markdown = (
        "---\nheader-includes: |\n  ```{=html}\n  <meta name=mine>\n  ```\n---\n\n"
        "Claim [@st-stale].\n"
    )
    doc = fixture(pandoc_bytes(markdown), fmt).doc
    raws = _header_raw(doc)
    assert ("html", "<meta name=mine>") in raws  # the writer's own stays
    ours = [text for f, text in raws if f == raw_format and marker in text]
    assert len(ours) == 1


def test_header_includes_list_is_extended_and_a_second_run_does_not_add_again() -> None:
    markdown = "---\nheader-includes:\n- one\n- two\n---\n\nClaim [@st-stale].\n"
    first = fixture(pandoc_bytes(markdown), "latex")
    items = first.doc["meta"]["header-includes"]["c"]
    assert len(items) == 3
    # even if the Cite were new, an existing citeledger header is not added twice
    doc = first.doc
    doc["blocks"].append({"t": "Para", "c": [pandoc_json("[@st-unchecked]")["blocks"][0]["c"][0]]})
    again = fixture(json.dumps(doc).encode(), "latex").doc
    assert len(again["meta"]["header-includes"]["c"]) == 3


def test_the_stylesheet_is_the_shipped_template() -> None:
    from importlib import resources

    css = resources.files("citeledger.templates").joinpath("citeledger.css").read_text()
    doc = fixture(pandoc_bytes("Claim [@st-stale]."), "html").doc
    (text,) = [t for f, t in _header_raw(doc) if f == "html"]
    assert css.strip() in text and text.startswith("<style")


def test_gfm_and_plain_add_no_header() -> None:
    for fmt in ("gfm", "plain"):
        assert "header-includes" not in fixture(pandoc_bytes("Claim [@st-stale]."), fmt).doc["meta"]


# --- families -------------------------------------------------------------------------------


def test_html_callout_is_a_div_with_role_note() -> None:
    doc = fixture(pandoc_bytes("Claim [@st-stale]."), "html5").doc
    div = with_class(doc, "Div", "citeledger-breakdown")[0]
    assert ["role", "note"] in div["c"][0][2]


def test_latex_callout_uses_the_guarded_environment() -> None:
    doc = fixture(pandoc_bytes("Claim [@st-stale]."), "latex").doc
    div = with_class(doc, "Div", "citeledger-breakdown")[0]
    first, last = div["c"][1][0], div["c"][1][-1]
    assert first == {
        "t": "RawBlock",
        "c": ["latex", r"\ifdefined\citeledgerbreakdown\begin{citeledgerbreakdown}\fi"],
    }
    assert last["c"][1].endswith(r"\end{citeledgerbreakdown}\fi")
    flag = with_class(doc, "Span", "citeledger-flag")[0]
    assert flag["c"][1][0]["c"] == [
        "latex",
        r"\ifdefined\citeledgerflag\expandafter\citeledgerflag\fi{",
    ]


def test_docx_uses_custom_styles_and_bold_words() -> None:
    doc = fixture(pandoc_bytes("Claim [@st-stale]."), "docx").doc
    div = with_class(doc, "Div", "citeledger-breakdown")[0]
    assert ["custom-style", "Citeledger Breakdown"] in div["c"][0][2]
    (raw,) = div["c"][1]  # the paragraphs as WordprocessingML (render.ooxml)
    assert raw["c"][0] == "openxml"
    assert raw["c"][1].startswith('<w:p><w:pPr><w:pStyle w:val="CiteledgerBreakdown"/><w:pBdr>')
    title = '<w:b/><w:bCs/><w:color w:val="B00020"/></w:rPr><w:t xml:space="preserve">Unchecked'
    assert title in raw["c"][1]  # bold in the border's colour (tests/test_docx_look.py)
    odt = fixture(pandoc_bytes("Claim [@st-stale]."), "odt").doc
    div = with_class(odt, "Div", "citeledger-breakdown")[0]
    assert div["c"][1][0]["c"][0]["t"] == "Strong"  # ODT: pandoc's own rendering
    styled = [
        n for n in walk(with_class(doc, "Span", "citeledger-flag")[0]) if n.get("t") == "Span"
    ]
    assert any(["custom-style", "Citeledger Flag"] in s["c"][0][2] for s in styled)


@pytest.mark.parametrize("fmt", ["gfm", "commonmark", "markdown_strict", "gfm+alerts"])
def test_markdown_callout_is_a_github_caution_alert(fmt: str) -> None:
    doc = fixture(pandoc_bytes("Claim [@st-stale]."), fmt).doc
    quote = body(doc)[1]
    assert quote["t"] == "BlockQuote"
    assert quote["c"][0]["c"][0] == {"t": "RawInline", "c": ["markdown", "[!CAUTION]\n"]}
    assert quote["c"][0]["c"][1]["t"] == "Strong"


def test_plain_text_shouts_the_title_and_other_formats_bold_it() -> None:
    plain = fixture(pandoc_bytes("Claim [@st-stale]."), "plain").doc
    rst = fixture(pandoc_bytes("Claim [@st-stale]."), "rst").doc
    assert State.STALE.title.upper() in _text(body(plain)[1])
    quote = body(rst)[1]["c"][1][0]
    assert quote["t"] == "BlockQuote" and quote["c"][0]["c"][0]["t"] == "Strong"


# --- warnings, strict, errors ---------------------------------------------------------------


def test_one_warning_per_breakdown_and_stdout_is_only_the_ast(all_states: bytes) -> None:
    run = fixture(all_states)
    assert len(run.warnings) == 12
    assert all(line.startswith("[WARNING] citeledger: ") for line in run.err.splitlines())
    assert "citation 9 (@st-withdrawn)" in run.err
    json.loads(run.out)


def test_judge_warnings_are_passed_on_once() -> None:
    class Warns(FixtureJudge):
        def judge(self, ref):  # type: ignore[no-untyped-def]
            self.warnings.append("a hand-written verified flag is not a check")
            return super().judge(ref)

    run = run_main(pandoc_bytes("A [@st-checked]. B [@st-checked]."), judge_factory=Warns)
    assert run.warnings == ["[WARNING] citeledger: a hand-written verified flag is not a check"]


def test_strict_fails_after_writing_the_ast(all_states: bytes) -> None:
    run = fixture(all_states, environ={"CITELEDGER_STRICT": "true"})
    assert run.code == 1
    json.loads(run.out)
    assert "[ERROR] citeledger: strict: 12 of 13 citations are breakdowns" in run.err


def test_the_console_script_ends_with_everything_written(tmp_path: Path) -> None:
    """The script's process ends without freeing its AST (``filter._end_process``): the whole
    AST, every warning and the strict error are still written, with the exit code."""
    raw = pandoc_bytes(
        "A claim [@nowhere]. Another [@elsewhere].\n", "-M", "citeledger.strict=true"
    )
    script = Path(sys.executable).parent / "pandoc-citeledger"
    proc = subprocess.run([str(script), "html"], input=raw, capture_output=True, cwd=tmp_path)
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert doc["blocks"] and "citeledger-not-in-ledger" in proc.stdout.decode()
    err = proc.stderr.decode()
    assert err.count("[WARNING] citeledger: citation ") == 2
    assert err.rstrip().endswith("failing the build (set citeledger.strict: false to build anyway)")


def test_strict_only_tightens() -> None:
    checked = pandoc_bytes("---\nciteledger:\n  strict: true\n---\n\nA [@st-checked].\n")
    assert fixture(checked).code == 0
    # A document cannot exempt itself from a strict build...
    exempt = pandoc_bytes(
        "---\nciteledger:\n  strict: true\n---\n\n"
        "::: {citeledger-strict=false}\nKnown gap [@st-stale].\n:::\n"
    )
    assert fixture(exempt).code == 1
    off = pandoc_bytes("---\nciteledger:\n  strict: false\n---\n\nA [@st-stale].\n")
    assert fixture(off, environ={"CITELEDGER_STRICT": "true"}).code == 1
    # ...but a part of it can be made strict.
    part = pandoc_bytes("A [@st-stale].\n\n::: {citeledger-strict=true}\nB [@st-stale].\n:::\n")
    run = fixture(part)
    assert run.code == 1 and "1 of 2 citations" in run.err


def test_flat_metadata_from_dash_m_sets_strict() -> None:
    raw = pandoc_bytes("A [@st-stale].", "-M", "citeledger.strict=true")
    assert fixture(raw).code == 1


def test_bad_ledger_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "citeledger.yaml"
    bad.write_text("sources:\n  a: {url: https://example.org}\n  a: {url: https://example.org}\n")
    run = run_main(pandoc_bytes("A [@a]."), environ={"CITELEDGER_LEDGER": str(bad)})
    assert run.code == 2
    assert run.out == b""
    lines = run.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("[ERROR] citeledger: ")
    assert "Traceback" not in run.err


def test_a_named_ledger_that_does_not_exist_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the document's ledger must lie inside the project (confine.py)
    raw = pandoc_bytes("A [@a].", "-M", f"citeledger.ledger={tmp_path / 'missing.yaml'}")
    run = run_main(raw)
    assert run.code == 2 and "does not exist" in run.err


def test_without_any_ledger_every_citation_is_not_in_ledger(tmp_path: Path) -> None:
    result = run_filter(pandoc_json("A [@a]. B [@b]."), judge_factory=LedgerJudges(cwd=tmp_path))
    assert [i.state for i in result.items] == [State.NOT_IN_LEDGER] * 2
    assert any("no ledger at" in w for w in result.warnings)


def test_bad_option_value_is_an_error() -> None:
    run = fixture(pandoc_bytes("A [@st-stale].", "-M", "citeledger.strict=maybe"))
    assert run.code == 2 and "must be true or false" in run.err


def test_input_that_is_not_json_is_an_error() -> None:
    run = fixture(b'{"t":"Cite" broken')
    assert run.code == 2 and run.err.startswith("[ERROR] citeledger: ")


# --- the real judge and ledger --------------------------------------------------------------


def test_real_ledger_and_judge(tmp_path: Path) -> None:
    ledger = tmp_path / "refs.yaml"
    ledger.write_text(
        "sources:\n"
        "  hchm:\n"
        "    url: https://example.org/manual\n"
        "    title: Household Claims Handling Manual\n"
        "    quotes:\n"
        "      - text: An appeal must be received within 60 days.\n"
        "        locator: p. 14\n"
    )
    raw = pandoc_bytes("Appeals take 60 days [@hchm, p. 14]. Unknown [@nobody].")
    run = run_main(raw, environ={"CITELEDGER_LEDGER": str(ledger)})
    assert run.code == 0
    states = [
        dict(s["c"][0][2])["data-citeledger-states"]
        for s in with_class(run.doc, "Span", "citeledger-cite")
    ]
    assert states == ["unchecked", "not-in-ledger"]


# --- judges per audience, audit -------------------------------------------------------------


def test_an_element_cannot_widen_the_audience() -> None:
    seen: list[str | None] = []

    def factory(options):  # type: ignore[no-untyped-def]
        seen.append(options.audience)
        return FixtureJudge(options)

    raw = pandoc_bytes(
        "---\nciteledger:\n  audience: internal\n---\n\nA [@x].\n\n"
        "::: {citeledger-audience=internal}\nB [@y]. C [@z].\n:::\n",
        "-M",
        "citeledger.audience=public",
    )
    run_main(raw, judge_factory=factory)
    assert seen == ["internal,public"]  # one judge, for both: a source must be open to each


def test_audit_section_follows_the_ids_contract_of_citeledger_audit() -> None:
    """claim ↔ audit row ↔ flag: the ids of ``citeledger.report.audit``, as the browser test."""
    raw = pandoc_bytes(
        "A [@st-checked]. B [@st-withdrawn]. C.^[@st-stale]\n", "-M", "citeledger.audit=true"
    )
    doc = fixture(raw).doc
    audit = body(doc)[-1]
    assert "citeledger-audit" in audit["c"][0][1]
    assert audit["c"][1][0]["c"][1][0] == "citeledger-audit"  # the section's heading id
    text = _text(audit)
    assert "Citation audit" in text and "3 citations: 1 checked, 2 not." in text
    rows = [
        n for n in walk(audit) if n.get("t") == "Span" and "citeledger-audit-anchor" in n["c"][0][1]
    ]
    assert [r["c"][0][0] for r in rows] == [
        "citeledger-audit-1",
        "citeledger-audit-2",
        "citeledger-audit-3",
    ]
    back = [n["c"][2][0] for n in walk(audit) if n.get("t") == "Link"]
    assert {"#citeledger-claim-1", "#citeledger-claim-2", "#citeledger-claim-3"} <= set(back)
    # flags lead to their rows; every claim anchor exists once in the text
    flags = with_class(body(doc), "Span", "citeledger-flag")
    targets = [n["c"][2][0] for f in flags for n in walk(f) if n.get("t") == "Link"]
    assert targets == ["#citeledger-audit-2", "#citeledger-audit-3"]
    claims = [  # an empty anchor, or the wrapper's own id
        n["c"][0][0]
        for n in walk(body(doc))
        if n.get("t") == "Span" and n["c"][0][0].startswith("citeledger-claim-")
    ]
    assert sorted(claims) == ["citeledger-claim-1", "citeledger-claim-2", "citeledger-claim-3"]
    # a citation-only note: its claim anchor stands in the body paragraph, before the note
    para = body(doc)[0]["c"]
    note_at = next(i for i, el in enumerate(para) if el["t"] == "Note")
    assert para[note_at - 1]["c"][0][0] == "citeledger-claim-3"


def test_flag_count_matches_the_walk_for_a_mixed_document() -> None:
    raw = pandoc_bytes("[@a; @fig:x; @b, see @c] and ^[@d] in | t |\n\n| x [@e] |\n|---|\n| y |\n")
    found = find_citations(json.loads(raw))
    doc = fixture(raw).doc
    assert len(with_class(doc, "Span", "citeledger-flag")) == len(found) == 5


def _text(node: object) -> str:
    from citeledger.build.citations import plain_text

    blocks = node["c"][1] if isinstance(node, dict) and node.get("t") == "Div" else node
    parts: list[str] = []
    for n in walk(blocks):
        if n.get("t") in ("Para", "Plain", "Header"):
            inlines = n["c"][2] if n["t"] == "Header" else n["c"]
            parts.append(plain_text(inlines))
    if isinstance(node, dict) and node.get("t") == "Span":
        parts.append(plain_text(node["c"][1]))
    return " ".join(parts)


def test_html_builds_link_to_evidence_pages_when_asked() -> None:
    from fixture_judge import judgement_for

    from citeledger.evidence.publish import evidence_page_name
    from citeledger.model import CitationRef

    raw = pandoc_bytes(
        "A [@st-checked]. B [@st-quote-not-found]. C [@st-restricted].",
        "-M",
        "citeledger.evidence-pages=evidence",
    )
    doc = fixture(raw, "html").doc
    hrefs = [n["c"][2][0] for n in walk(body(doc)) if n.get("t") == "Link"]
    checked = judgement_for(CitationRef("st-checked")).receipt
    failed = judgement_for(CitationRef("st-quote-not-found")).receipt
    assert f"evidence/{evidence_page_name(checked, 'st-checked')}" in hrefs
    assert f"evidence/{evidence_page_name(failed, 'st-quote-not-found')}" in hrefs
    assert not [h for h in hrefs if "restricted" in h]  # no page for a restricted source
    assert len(with_class(doc, "Span", "citeledger-evidence")) == 1  # the checked one
    # GitHub Markdown links them too (a site keeps the pages beside its Markdown), as plain links
    gfm = fixture(raw, "gfm").doc
    gfm_hrefs = [n["c"][2][0] for n in walk(body(gfm)) if n.get("t") == "Link"]
    assert [h for h in gfm_hrefs if h.startswith("evidence/")] == [
        h for h in hrefs if h.startswith("evidence/")
    ]
    # other families get no links to HTML pages
    latex = fixture(raw, "latex").doc
    assert not [
        n for n in walk(latex["blocks"]) if n.get("t") == "Link" and "evidence/" in n["c"][2][0]
    ]


def test_a_misspelt_option_is_warned_about() -> None:
    run = fixture(pandoc_bytes("---\nciteledger:\n  stric: true\n---\n\nA [@st-stale].\n"))
    assert run.code == 0
    assert any("unknown option citeledger.stric" in w for w in run.warnings)


def test_reasons_name_the_ledger_as_the_writer_gave_it(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "refs.yaml").write_text("sources: {}\n")
    monkeypatch.chdir(tmp_path)
    run = run_main(pandoc_bytes("A [@a]."), environ={"CITELEDGER_LEDGER": "refs.yaml"})
    assert run.code == 0
    assert str(tmp_path) not in run.out.decode()  # no local path in the published document


def test_json_written_with_spaces_by_another_tool_is_still_filtered() -> None:
    raw = json.dumps(pandoc_json("A claim [@st-stale].")).encode()  # "t": "Cite", with a space
    assert b'"t":"Cite"' not in raw
    run = fixture(raw)
    assert len(with_class(run.doc, "Span", "citeledger-flag")) == 1


def test_an_html_build_writes_the_evidence_pages_it_links(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from citeledger.evidence.store import EvidenceReader

    class Reads(FixtureJudge):
        reader = EvidenceReader(str(tmp_path / ".citeledger"))

    monkeypatch.chdir(tmp_path)
    raw = pandoc_bytes(
        "A [@st-checked]. B [@st-restricted].", "-M", "citeledger.evidence-pages=evidence"
    )
    run = run_main(raw, "html", judge_factory=Reads)
    assert run.code == 0
    hrefs = [n["c"][2][0] for n in walk(body(run.doc)) if n.get("t") == "Link"]
    pages = sorted(p.name for p in (tmp_path / "evidence").iterdir())
    assert len(pages) == 1  # one receipt; none for the restricted source
    assert f"evidence/{pages[0]}" in hrefs
    page = (tmp_path / "evidence" / pages[0]).read_text()
    assert "<script" not in page and SECRET not in page


# --- cross-references, GitHub alerts, unwritable evidence pages -------------------------------


def test_quarto_crossrefs_and_custom_kinds_are_left_alone() -> None:
    raw = pandoc_bytes(
        "---\ncrossref:\n  custom:\n    - kind: float\n      key: vid\n---\n\n"
        "By @thm-main and @lem-two, see @nte-x, @cau-y, @def-z and @vid-intro; [@st-stale].\n"
    )
    run = fixture(raw)
    wrapped = [
        item["citationId"]
        for w in with_class(run.doc, "Span", "citeledger-cite")
        for n in walk(w)
        if n.get("t") == "Cite"
        for item in n["c"][0]
    ]
    assert wrapped == ["st-stale"]
    assert len(run.warnings) == 1


MARKDOWN_NESTED = (
    "- A list claim [@st-stale].\n"
    "    - A nested claim [@st-tampered].\n\n"
    "> A quoted claim [@st-unchecked].\n\n"
    "Term\n:   A definition claim [@st-retracted].\n\n"
    "A body claim.^[A note claims it [@st-disputed].]\n\n"
    "::: aside\nA div claim [@st-withdrawn].\n:::\n\n"
    "1.  An item.\n\n    | Cell |\n    |------|\n    | In a table in a list [@st-not-in-ledger] |\n"
)


@pytest.mark.parametrize("fmt", ["gfm", "commonmark", "commonmark_x"])
def test_github_alerts_are_never_nested(fmt: str) -> None:
    """GitHub renders ``> [!CAUTION]`` only at the top level: each goes after its top block."""
    import subprocess

    from helpers import PANDOC

    run = fixture(pandoc_bytes(MARKDOWN_NESTED), fmt)
    text = subprocess.run(
        [PANDOC, "-f", "json", "-t", fmt, "--wrap=none"],
        input=run.out,
        capture_output=True,
        check=True,
    ).stdout.decode()
    lines = text.splitlines()
    alerts = [i for i, line in enumerate(lines) if "[!CAUTION]" in line]
    # the list's two claims (outer and nested item) share one top-level block: one alert
    assert len(alerts) == 6
    assert all(lines[i] == "> [!CAUTION]" for i in alerts), [lines[i] for i in alerts]
    for i in alerts:  # an alert starts a block of its own: a blank line before it
        assert lines[i - 1] == "" or lines[i - 1].startswith("<!--")
    # in citation order, each after the top-level block that holds its claim
    numbers = re.findall(r"^> Citation (\d+):", text, re.M)
    assert [int(n) for n in numbers] == [1, 2, 3, 4, 5, 6, 7]
    assert text.index("A nested claim") < text.index("> [!CAUTION]") < text.index("A quoted")


def test_other_formats_keep_the_callout_next_to_the_claim() -> None:
    doc = fixture(pandoc_bytes(MARKDOWN_NESTED), "html").doc
    item = body(doc)[0]["c"][0]
    assert [b["t"] for b in item] == ["Plain", "Div", "BulletList"]  # inside the list item


@pytest.mark.parametrize(
    ("folder", "reason"),
    [("m.md", "File exists"), ("/proc/citeledger-nope", "No such file or directory")],
)
def test_unwritable_evidence_pages_are_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, folder: str, reason: str
) -> None:
    from citeledger.evidence.store import EvidenceReader

    class Reads(FixtureJudge):
        reader = EvidenceReader(str(tmp_path / ".citeledger"))

    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.md").write_text("the writer's own file\n")
    raw = pandoc_bytes("A [@st-checked].", "-M", f"citeledger.evidence-pages={folder}")
    allow = {"CITELEDGER_ALLOW_OUTSIDE": "1"}  # /proc is outside the project (confine.py)
    run = run_main(raw, "html", judge_factory=Reads, environ=allow)
    assert run.code == 2
    assert run.out == b""
    assert run.err.splitlines() == [
        f"[ERROR] citeledger: cannot write evidence pages to {folder}: {reason}"
        " — set citeledger.evidence-pages to a folder you can write"
    ]
    assert (tmp_path / "m.md").read_text() == "the writer's own file\n"
