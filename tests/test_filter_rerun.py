"""Nothing the filter made, or seems to have made, lets a citation skip the judge.

A hand-written ``[[@key]]{.citeledger-cite}``, a forged "checked" wrapper, or the filter's own
output from an earlier build (a Quarto project filters twice, a writer keeps ``-t json``) must
not shield a citation: every Cite is judged on every run. Idempotence comes from comparing: an
unchanged judgement writes back what was there, a changed one replaces the old flag and callout.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from fixture_judge import FixtureJudge, judgement_for
from helpers import body, pandoc_bytes, pandoc_json, run_main, with_class

from citeledger.build.citations import plain_text
from citeledger.model import CitationRef, Judgement, State

FORMATS = ["html", "latex", "docx", "gfm", "markdown", "plain", "odt", "typst"]


def fixture(raw: bytes, fmt: str = "html", **kw):  # type: ignore[no-untyped-def]
    return run_main(raw, fmt, judge_factory=FixtureJudge, **kw)


def _flags(doc: dict) -> list[str]:
    return [f["c"][0][0] for f in with_class(doc, "Span", "citeledger-flag")]


def _callouts(doc: dict, fmt: str = "html") -> int:
    if fmt == "gfm":  # GitHub alerts: the banner's is a [!WARNING], a callout a [!CAUTION]
        return json.dumps(doc).count('["markdown", "[!CAUTION]\\n"]')
    return len(with_class(doc, "Div", "citeledger-breakdown"))


@pytest.mark.parametrize(
    "markdown",
    [
        "A claim [[@st-stale]]{.citeledger-cite}.",
        # forged to look checked, and "the same state as before" for the fixture's not-in-ledger
        "A claim [[@st-stale]]{.citeledger-cite .citeledger-checked"
        ' data-citeledger-states="checked"}.',
        'A claim [[@nobody]]{.citeledger-cite data-citeledger-states="not-in-ledger"}.',
        "A claim [[@st-stale]]{.citeledger-flag}.",  # any of the filter's classes
        "::: citeledger-breakdown\nA claim [@st-stale].\n:::\n",
    ],
)
@pytest.mark.parametrize("fmt", ["html", "gfm"])
def test_a_hand_written_processed_marker_is_judged_flagged_and_strict(
    markdown: str, fmt: str
) -> None:
    raw = pandoc_bytes(markdown, "-M", "citeledger.strict=true")
    run = fixture(raw, fmt)
    assert run.code == 1, run.err  # strict sees the breakdown
    assert "strict: 1 of 1 citations are breakdowns" in run.err
    assert len(run.warnings) == 1 and "citation 1 (@" in run.warnings[0]
    assert _flags(run.doc) == ["citeledger-cite-1"]
    assert _callouts(run.doc, fmt) == 1
    (wrapper,) = with_class(run.doc, "Span", "citeledger-cite")  # one wrapper, never two
    assert "citeledger-checked" not in wrapper["c"][0][1]


def test_check_lists_a_hand_written_marker() -> None:
    """``citeledger check`` uses the same walk: the marker is in its list."""
    from citeledger.build.citations import find_citations

    doc = pandoc_json("A claim [[@st-stale]]{.citeledger-cite}. B [@st-checked].")
    assert [f.ref.key for f in find_citations(doc)] == ["st-stale", "st-checked"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_already_filtered_json_still_fails_strict(fmt: str) -> None:
    first = fixture(pandoc_bytes("A [@st-checked]. B [@st-stale]. C.^[@st-withdrawn]"), fmt)
    assert first.code == 0
    doc = first.doc
    doc["meta"]["citeledger.strict"] = {"t": "MetaBool", "c": True}
    again = fixture(json.dumps(doc).encode(), fmt)
    assert again.code == 1
    assert "strict: 2 of 3 citations are breakdowns" in again.err
    assert len(again.warnings) == 2


class Flips(FixtureJudge):
    """Judges ``@flip`` as ``state``: what a ledger edit between two builds does."""

    state = State.CHECKED

    def judge(self, ref: CitationRef) -> Judgement:
        if ref.key != "flip":
            return super().judge(ref)
        j = judgement_for(CitationRef(f"st-{self.state.value}", locator=ref.locator))
        return Judgement("flip", j.state, j.reasons, source=j.source, quote=j.quote)


class FlipsToStale(Flips):
    state = State.STALE


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_changed_judgement_replaces_the_old_rendering(fmt: str) -> None:
    # a loose list: pandoc's Markdown loosens a tight one that holds a callout, for good
    # (render.pandoc_markdown); every other format gives back the tight list as well
    raw = pandoc_bytes(
        "Once fine [@flip]. Always stale [@st-stale].\n\n- In a list [@flip].\n\n- Another.\n"
    )
    checked = run_main(raw, fmt, judge_factory=Flips)
    stale = run_main(raw, fmt, judge_factory=FlipsToStale)
    # checked → stale: the flags and callouts appear, exactly as in a fresh build
    assert run_main(checked.out, fmt, judge_factory=FlipsToStale).out == stale.out
    # stale → checked: they go, nothing of the old rendering stays behind
    assert run_main(stale.out, fmt, judge_factory=Flips).out == checked.out
    assert _flags(checked.doc) == ["citeledger-cite-2"]
    assert _flags(stale.doc) == ["citeledger-cite-1", "citeledger-cite-2", "citeledger-cite-3"]


def test_a_second_run_keeps_the_quote_selector_it_stripped() -> None:
    """The filter strips ``quote:ID`` for citeproc; the wrapper keeps it for the next judge."""
    judges: list[FixtureJudge] = []

    def factory(options):  # type: ignore[no-untyped-def]
        judges.append(FixtureJudge(options))
        return judges[-1]

    raw = pandoc_bytes("A [@st-stale, p. 4 quote:q1; @st-checked quote:intro; @st-tampered].")
    first = run_main(raw, "html", judge_factory=factory)
    assert "quote:" not in json.dumps(body(first.doc))
    second = run_main(first.out, "html", judge_factory=factory)
    assert second.out == first.out
    assert [r.selector for r in judges[0].seen] == ["q1", "intro", None]
    assert [r.selector for r in judges[1].seen] == ["q1", "intro", None]
    assert [r.locator for r in judges[1].seen] == ["p. 4", None, None]


def test_the_writers_words_and_classes_in_a_forged_wrapper_are_kept() -> None:
    raw = pandoc_bytes("See [[@st-stale] and my own words]{.citeledger-cite .mine} here.")
    run = fixture(raw)
    para = body(run.doc)[0]["c"]
    mine = [n for n in para if n.get("t") == "Span" and "mine" in n["c"][0][1]]
    assert len(mine) == 1 and "citeledger-cite" not in mine[0]["c"][0][1]
    assert "and my own words" in plain_text(mine[0]["c"][1])
    assert _flags(run.doc) == ["citeledger-cite-1"]
    assert fixture(run.out).out == run.out


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_audit_and_header_are_not_added_twice(fmt: str) -> None:
    raw = pandoc_bytes("A [@st-stale]. B [@st-checked].", "-M", "citeledger.audit=true")
    first = fixture(raw, fmt)
    second = fixture(first.out, fmt)
    assert second.out == first.out
    assert len(with_class(second.doc, "Div", "citeledger-audit")) == 1


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_note_whose_citation_sits_in_an_unverified_span_keeps_its_claim_anchor(
    fmt: str,
) -> None:
    """Found by the fuzzer: a note of two paragraphs, ``0`` and ``[@key]{.unverified}0``. The
    first run reads the sentence ``@key0`` (citations only: the claim is where the note
    stands); the marker it adds must not part the two on the second run (a space before
    ``[unverified]`` did, and the claim anchor moved from before the note into it)."""
    raw = pandoc_bytes("x[^1]\n\n[^1]: 0\n\n    [@st-stale]{.unverified}0\n")
    first = fixture(raw, fmt)
    assert fixture(first.out, fmt).out == first.out
