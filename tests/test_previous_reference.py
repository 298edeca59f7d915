"""The cheap walk of ``render.previous`` undoes exactly what the old, exhaustive one undid.

``strip_previous`` skips text and raw elements and rebuilds only the lists holding a Span, Div
or block quote (issue 8). Its result must not change: on the filter's output for every golden
case in every output family, and on hand-made and forged output, both walks give the same JSON.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

import previous_reference
from fixture_judge import FixtureJudge
from helpers import pandoc_bytes, run_main

from citeledger.build.citations import crossref_prefixes
from citeledger.build.render.previous import strip_previous

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(p.name for p in GOLDEN.iterdir() if (p / "input.md").is_file())
FORMATS = ["html", "latex", "docx", "gfm", "markdown", "plain", "typst"]
HAND_MADE = [
    "A claim [[@st-stale]]{.citeledger-cite}.",
    "A claim [[@st-stale]]{.citeledger-cite .citeledger-checked"
    ' data-citeledger-states="checked" data-citeledger-selectors="0=q1"}.',
    "A claim [[@st-stale]]{.citeledger-flag}. And [x]{.citeledger-flag} after a space.",
    "::: citeledger-breakdown\nA claim [@st-stale].\n:::\n\n::: citeledger-audit\nGone.\n:::\n",
    "[claimed words]{.claim #citeledger-claim-3} [@st-checked].\n\n"
    "> [!CAUTION]\n> an alert\n\n- item [A]{.citeledger-source} `code` $x$\n",
    "| a [@st-stale] |\n|---|\n| [b]{.citeledger-evidence} |\n\n"
    "Note.^[[@st-checked]{.citeledger-cite}]",
    "A claim [see [y]{.citeledger-flag} @st-stale, p. 3 [x]{.citeledger-flag}].",
]


def _both(doc: dict) -> tuple[str, str]:
    prefixes = crossref_prefixes(doc.get("meta"))
    old, new = copy.deepcopy(doc), copy.deepcopy(doc)
    previous_reference.strip_previous(old, prefixes)
    strip_previous(new, prefixes)
    return json.dumps(old, ensure_ascii=False), json.dumps(new, ensure_ascii=False)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", CASES)
def test_the_cheap_walk_matches_the_old_on_the_goldens(case: str, fmt: str) -> None:
    raw = pandoc_bytes((GOLDEN / case / "input.md").read_text("utf-8"))
    run = run_main(raw, fmt, judge_factory=FixtureJudge)
    assert run.code in (0, 1), run.err
    assert b"citeledger-" in run.out  # something to undo
    old, new = _both(json.loads(run.out))
    assert new == old
    assert "citeledger-cite" not in new  # the walk did undo something


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("markdown", HAND_MADE)
def test_the_cheap_walk_matches_the_old_on_hand_made_output(markdown: str, fmt: str) -> None:
    raw = pandoc_bytes(markdown)
    old, new = _both(json.loads(raw))
    assert new == old
    run = run_main(raw, fmt, judge_factory=FixtureJudge)  # and once more, on a run's output
    old, new = _both(json.loads(run.out))
    assert new == old


def _span(ident: str, classes: list[str], content: list) -> dict:
    return {"t": "Span", "c": [[ident, classes, []], content]}


def _forged_wrappers(cite: dict) -> list[dict]:
    """Wrappers near the usual shape (claim anchor, Cite) that the quick path must not take
    for it, and the usual shape around a Cite whose content holds a flag."""
    anchor = _span("citeledger-claim-1", ["citeledger-claim"], [])
    word = {"t": "Str", "c": "words"}
    flagged = copy.deepcopy(cite)
    flagged["c"][1] = [_span("", ["citeledger-flag"], [word])]
    return [
        _span("", ["citeledger-cite"], [copy.deepcopy(anchor), copy.deepcopy(cite)]),
        _span("", ["citeledger-cite"], [_span("", ["citeledger-claim"], [word, cite]), cite]),
        _span("", ["citeledger-cite"], [_span("", ["citeledger-cite"], []), cite]),
        _span("", ["citeledger-cite"], [_span("", ["writer"], []), cite]),
        _span("", ["citeledger-cite"], [_span("", [], []), cite]),
        _span("", ["citeledger-cite", "mine"], [copy.deepcopy(anchor), flagged]),
        flagged,
    ]


def test_the_cheap_walk_matches_the_old_on_forged_wrappers() -> None:
    doc = json.loads(pandoc_bytes("A claim [@st-stale]."))
    para = doc["blocks"][0]["c"]
    cite = next(el for el in para if el["t"] == "Cite")
    para[:] = [el for w in _forged_wrappers(cite) for el in (w, {"t": "Space"})]
    old, new = _both(doc)
    assert new == old
    assert "citeledger-flag" not in new  # even inside a Cite's content
