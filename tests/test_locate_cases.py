"""The labelled set (tests/data/locate_cases.jsonl, built by tools/make_locate_cases.py from
../shared/corpus): zero false accepts, recall ≥ 0.99 per honest kind, honest quotes found at
their own words.

Print the per-kind figures with:
    .venv/bin/citeledger locate --batch tests/data/locate_cases.jsonl --score --out /dev/null
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from citeledger.cli.locate import extract_path, run_batch, score_cases
from citeledger.judge import _window
from citeledger.locate.locator import locate
from citeledger.locate.normalize import normalize_for_match
from conftest import CORPUS, REPO

CASES = REPO / "tests" / "data" / "locate_cases.jsonl"
EDGE = ".,;:!?'\"() "

pytestmark = pytest.mark.slow  # the whole labelled set over the corpus texts


@pytest.fixture(scope="module")
def batch(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not beside the repository")
    cases = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line]
    present = [c for c in cases if (REPO / c["source"]).is_file()]
    if not present:
        pytest.skip("none of the labelled cases' sources are present")
    path = tmp_path_factory.mktemp("cases") / "present.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in present), encoding="utf-8")
    out = io.StringIO()
    results = run_batch(path, out, base=REPO)
    assert len(out.getvalue().splitlines()) == len(present)
    return present, results


def test_the_set_is_big_and_covers_every_kind() -> None:
    cases = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line]
    assert len(cases) >= 300
    kinds = {(c["kind"], c["expect_found"]) for c in cases}
    for kind in (
        "whitespace_reflow",
        "smart_quotes",
        "dashes",
        "ligatures",
        "soft_hyphens",
        "nbsp_thin_spaces",
        "hyphenation_line_break",
        "first_letter_case",
        "bracket_first_letter",
        "ellipsis",
    ):
        assert (kind, True) in kinds, kind
    for kind in (
        "number_changed",
        "negation_inserted",
        "negation_dropped",
        "content_word_swapped",
        "entity_swapped",
        "splice",
        "word_dropped",
    ):
        assert (kind, False) in kinds, kind


def test_zero_false_accepts_and_recall(batch: tuple[list[dict], list[dict]]) -> None:
    cases, results = batch
    scores = score_cases(results, cases)
    report = "\n".join(scores.lines())
    assert not scores.unresolved, report
    assert scores.false_accepts == (), report
    assert scores.recall >= 0.99, report


def test_every_kind_is_measured_on_enough_cases_and_every_honest_kind_is_found(
    batch: tuple[list[dict], list[dict]],
) -> None:
    """Per kind, as the issue's done-when says: recall >= 0.99 on every honest kind, no altered
    quote found, and at least 40 cases of each editorial-mark kind."""
    cases, results = batch
    by_id = {r["id"]: r for r in results}
    seen: dict[tuple[str, bool], list[bool]] = {}
    for c in cases:
        seen.setdefault((c["kind"], c["expect_found"]), []).append(by_id[c["id"]]["found"])
    low = {k: sum(v) / len(v) for k, v in seen.items() if k[1] and sum(v) / len(v) < 0.99}
    accepted = {k[0]: sum(v) for k, v in seen.items() if not k[1] and any(v)}
    assert not low and not accepted, (low, accepted)
    for kind in ("ellipsis", "ellipsis_two_sentences", "source_ellipsis", "html_entities"):
        assert len(seen.get((kind, True), [])) >= 40, kind
    for kind in (
        "bracket_negation",
        "bracket_number",
        "bracket_content_word",
        "bracket_inserted_word",
        "bracket_letters",
        "ellipsis_listed_word",
        "ellipsis_unmarked_sentences",
        "ellipsis_across_paragraphs",
        "symbol_added",
        "symbol_changed",
        "word_split",
        "words_joined",
        "scare_quotes_added",
        "quote_marks_removed",
        "bracket_for_listed_word",
        "bracket_case_midquote",
        "starts_after_negation",
        "stops_before_negation",
        "full_stop_where_source_goes_on",
        "ellipsis_takes_subject",
        "bracket_referent_not_named",
        "ellipsis_takes_governing_verb",
    ):
        assert len(seen.get((kind, False), [])) >= 40, kind
    assert seen.get(("window_cut_from_frame", False)), "no window cut from its sentence's frame"
    assert seen.get(("ellipsis_foreign_negation", False)), "no foreign negation omitted"
    assert seen.get(("ellipsis_aside_clause", True)), "no honest aside clause omitted"


def test_honest_quotes_are_found_at_their_own_words(batch: tuple[list[dict], list[dict]]) -> None:
    cases, results = batch
    by_id = {r["id"]: r for r in results}
    wrong = []
    for c in cases:
        r = by_id[c["id"]]
        if not (c["expect_found"] and r["found"] and "expect_norm" in c):
            continue
        got = normalize_for_match(r["source_quote"]).strip(EDGE)
        want = c["expect_norm"].strip(EDGE)
        if c["kind"] == "short_exact":  # may be found elsewhere too: the same words, though
            ok = got.lower() == normalize_for_match(c["quote"]).strip(EDGE).lower()
        elif c["kind"] in ("edge_punctuation", "punctuation_dropped"):
            ok = got in want or want in got
        else:
            ok = got == want
        if not ok:
            wrong.append((c["id"], got[:80], want[:80]))
    assert not wrong, wrong


def test_found_spans_still_hold_within_a_small_window(batch: tuple[list[dict], list[dict]]) -> None:
    """What the judge re-checks at build time: the span and the context around it that the
    locator reads (``judge._window``: its sentence's frame, a bracket's referent)."""
    cases, results = batch
    by_id = {r["id"]: r for r in results}
    texts: dict[str, str] = {}
    lost = []
    for c in cases:
        r = by_id[c["id"]]
        if not r["found"] or c["kind"] == "page_break_header":
            continue  # a running header needs the pages to be skipped: not a window's job
        text = texts.setdefault(c["source"], "")
        if not text:
            text = texts[c["source"]] = extract_path(REPO / c["source"]).text
        lo, hi = _window(text, r["char_start"], r["char_end"])
        w = locate(text[lo:hi], c["quote"])
        if not (w.found and w.char_start is not None and lo + w.char_start < r["char_end"]):
            lost.append(c["id"])
    assert not lost, lost
