"""Explicit claim spans (seed 002): ``[words]{.claim}`` beats the sentence heuristic.

The claim is what the citation stands behind: the audit, the warnings and ``check --json`` quote
it, and the claim anchor ``#citeledger-claim-N`` (where the audit row leads back to) must sit on
the words the writer marked, not on an empty point before the Cite.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from fixture_judge import FixtureJudge
from helpers import body, pandoc_bytes, pandoc_json, run_main, walk, with_class

from citeledger.build.citations import find_citations, plain_text, resolve


def fixture(raw: bytes, fmt: str = "html", **kw):  # type: ignore[no-untyped-def]
    return run_main(raw, fmt, judge_factory=FixtureJudge, **kw)


def found_one(markdown: str):  # type: ignore[no-untyped-def]
    doc = pandoc_json(markdown)
    (found,) = find_citations(doc)
    return doc, found


def _span_text(doc: dict, path: tuple) -> str:
    span = resolve(doc, path)
    assert span["t"] == "Span" and "claim" in span["c"][0][1]
    return plain_text(span["c"][1])


@pytest.mark.parametrize(
    ("markdown", "claim", "span"),
    [
        # beside it, before the Cite
        ("Intro words, then [appeals take 60 days]{.claim} [@k]. More.", None, None),
        ("[Across a\nline break]{.claim}\n[@k].", "Across a line break", None),
        # around the Cite: the citation's own words are not part of the claim
        ("[It holds [@k] inside]{.claim}, then more.", "It holds inside", "It holds [@k] inside"),
        # after an author-in-text citation
        ("As @k [argues, the threshold works]{.claim}.", "argues, the threshold works", None),
        # inside emphasis: the same inline list holds span and Cite
        ("*Emphasised [claim words]{.claim} [@k]* here.", "claim words", None),
        # beside one wins over around one
        ("[Outer [inner words]{.claim} [@k] tail]{.claim}.", "inner words", None),
    ],
)
def test_an_explicit_claim_span_is_the_claim(
    markdown: str, claim: str | None, span: str | None
) -> None:
    claim = claim or "appeals take 60 days"
    doc, found = found_one(markdown)
    assert found.ref.claim == claim
    assert found.claim_span is not None
    assert _span_text(doc, found.claim_span) == (span or claim)


@pytest.mark.parametrize(
    ("markdown", "claim"),
    [
        ("[Not beside]{.claim} and then words [@k].", "Not beside and then words."),
        ("A normal citation [@k] [after it]{.claim}.", "A normal citation after it."),
        ("An empty span []{.claim} [@k] says nothing.", "An empty span says nothing."),
        ("A [claim-ish]{.claimed} class [@k].", "A claim-ish class."),
    ],
)
def test_otherwise_the_sentence_is_the_claim(markdown: str, claim: str) -> None:
    _, found = found_one(markdown)
    assert found.ref.claim == claim
    assert found.claim_span is None


def test_a_citation_only_note_takes_the_claim_span_it_hangs_on() -> None:
    doc, found = found_one("Body text [a marked claim]{.claim}^[@k] and a note.")
    assert found.ref.claim == "a marked claim"
    assert found.claim_at is not None and found.claim_span is not None
    assert _span_text(doc, found.claim_span) == "a marked claim"
    doc, found = found_one("[A claim with its note^[See also @k.]]{.claim} and more.")
    assert found.ref.claim == "A claim with its note"


def test_a_note_with_words_of_its_own_is_its_own_claim() -> None:
    _, found = found_one("[Outer words^[A note argues this [@k].]]{.claim} here.")
    assert found.ref.claim == "A note argues this."
    assert found.claim_span is None


def test_the_anchor_goes_on_the_span_and_the_audit_quotes_it() -> None:
    raw = pandoc_bytes(
        "Intro, then [appeals take 60 days]{.claim} [@st-stale]. Next sentence.",
        "-M",
        "citeledger.audit=true",
    )
    run = fixture(raw)
    para = body(run.doc)[0]["c"]
    (span,) = [n for n in para if n.get("t") == "Span" and "claim" in n["c"][0][1]]
    assert span["c"][0][0] == "citeledger-claim-1"
    assert span["c"][0][1] == ["claim"]  # the writer's classes only: the words stay prose
    wrap = with_class(run.doc, "Span", "citeledger-cite")[0]
    assert not with_class(wrap, "Span", "citeledger-claim")  # no second, empty anchor
    ids = [n["c"][0][0] for n in walk(body(run.doc)) if n.get("t") in ("Span", "Div")]
    assert ids.count("citeledger-claim-1") == 1
    audit = body(run.doc)[-1]
    links = [
        n for n in walk(audit) if n.get("t") == "Link" and n["c"][2][0] == "#citeledger-claim-1"
    ]
    assert plain_text(links[0]["c"][1]) == "appeals take 60 days"
    assert "in “appeals take 60 days”" in run.err  # the warning quotes the marked words


def test_several_citations_share_one_span() -> None:
    raw = pandoc_bytes("[Two share this claim]{.claim} [@st-checked; @st-disputed].")
    span = body(fixture(raw).doc)[0]["c"][0]
    assert span["c"][0][0] == "citeledger-claim-1"
    first = span["c"][1][0]  # the second citation's anchor opens the claim's words
    assert first["c"][0][:2] == ["citeledger-claim-2", ["citeledger-claim"]]
    assert plain_text(span["c"][1]) == "Two share this claim"


def test_a_writers_own_id_is_kept() -> None:
    span = body(fixture(pandoc_bytes("[Named words]{#mine .claim} [@st-stale].")).doc)[0]["c"][0]
    assert span["c"][0][0] == "mine"
    assert span["c"][1][0]["c"][0][0] == "citeledger-claim-1"


@pytest.mark.parametrize("fmt", ["latex", "docx"])
def test_formats_with_internal_links_anchor_the_span(fmt: str) -> None:
    span = body(fixture(pandoc_bytes("[Claim words]{.claim} [@st-stale]."), fmt).doc)[0]["c"][0]
    assert span["c"][0][0] == "citeledger-claim-1"


@pytest.mark.parametrize("fmt", ["gfm", "plain"])
def test_formats_without_internal_links_leave_the_span_alone(fmt: str) -> None:
    before = pandoc_json("[Claim words]{.claim} [@st-stale].")["blocks"][0]["c"][0]
    after = body(fixture(pandoc_bytes("[Claim words]{.claim} [@st-stale]."), fmt).doc)[0]["c"][0]
    assert after == before


@pytest.mark.parametrize("fmt", ["html", "latex", "docx", "gfm"])
def test_a_second_run_changes_nothing(fmt: str) -> None:
    raw = pandoc_bytes(
        "[A]{.claim} [@st-checked]. [B [@st-stale] c]{.claim}. [D]{.claim}^[@st-withdrawn]\n\n"
        "[Two]{.claim} [@st-checked; @st-disputed].\n"
    )
    first = fixture(raw, fmt)
    assert fixture(first.out, fmt).out == first.out


def test_coverage_reads_the_claim_words_as_prose_after_the_filter() -> None:
    """The span keeps the writer's classes, so the filtered document has the same coverage."""
    from citeledger.report.coverage import compute_coverage

    markdown = (
        "Intro words, then [appeals take sixty days]{.claim} [@st-stale]. More words follow "
        "here without a source.\n\n[Both of these words count as claims]{.claim} [@a; @b].\n"
    )
    before = compute_coverage(pandoc_json(markdown)).to_json()
    after = compute_coverage(json.loads(fixture(pandoc_bytes(markdown)).out)).to_json()
    assert after == before
    assert before["prose_sentences"] == 3 and before["with_provenance"] == 2
