"""The cheap walk of ``render.previous`` undoes exactly what the old, exhaustive one undid.

``strip_previous`` skips text and raw elements and rebuilds only the lists holding a Span, Div
or block quote (issue 8). Its result must not change: on the filter's output for every golden
case in every output family, and on hand-made and forged output, both walks give the same JSON.
The undo inside the scan (``scan_document(undo=…)``, one walk for a re-run) must give the same
document and the same scan as undoing first and scanning after.
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

from citeledger.build.citations import Scan, crossref_prefixes, scan_document
from citeledger.build.render.previous import Undo, strip_previous

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
    # undone inside the scan: an author-in-text Cite before an anchor and its claim Span, a
    # wrapper after the first, the blanks before flags, a figure's image, unread metadata
    "[@st-checked]{.citeledger-cite} []{.citeledger-claim} [argues this]{.claim}, and"
    " [[@st-stale]]{.citeledger-cite} [x]{.citeledger-flag} [y]{.citeledger-source}.",
    "One [[@st-stale]]{.citeledger-cite}\n[x]{.citeledger-flag} two [@st-checked]"
    " [[@st-stale]{.citeledger-cite}]{.claim #citeledger-claim-2}.",
    "![A caption [@st-stale] [x]{.citeledger-flag}](a.png)\n\n"
    "::: citeledger-banner\nCounts.\n:::\n\nAfter [@st-checked].",
    "---\nnocite: '[[@st-stale]]{.citeledger-cite}'\nkeywords: '[x]{.citeledger-flag} k'\n---\n"
    "Text [@st-checked].",
]


def _both(doc: dict) -> tuple[str, str]:
    prefixes = crossref_prefixes(doc.get("meta"))
    old, new = copy.deepcopy(doc), copy.deepcopy(doc)
    previous_reference.strip_previous(old, prefixes)
    strip_previous(new, prefixes)
    _same_in_one_walk(doc, new)
    return json.dumps(old, ensure_ascii=False), json.dumps(new, ensure_ascii=False)


def _seen(scan: Scan) -> tuple:
    """What a scan tells the filter, deferred claims cut."""
    found = [scan.with_claim(f) for f in scan.citations]
    extra = [(f.block_index, f.list_depth, f.note_host) for f in found]  # compare=False fields
    return found, extra, scan.unverified, scan.audit_slot, scan.refs, scan.crossrefs


def _same_in_one_walk(doc: dict, stripped: dict) -> None:
    """Undoing inside the scan leaves ``stripped`` (undone first) and scans as it is scanned."""
    one = copy.deepcopy(doc)
    scan = scan_document(one, defer_claims=True, undo=Undo(crossref_prefixes(doc.get("meta"))))
    assert json.dumps(one, ensure_ascii=False) == json.dumps(stripped, ensure_ascii=False)
    assert _seen(scan) == _seen(scan_document(stripped, defer_claims=True))


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


# review rev3 F4: a raw citation (``\\cite{…}``, judged by the scan as a breakdown) inside a Span
# or Div carrying the filter's classes is the writer's, like a Cite there: the undo keeps it
RAW_IN_OURS = (
    "Markets fell `\\cite{smith}`{=latex}.\n\n"
    "Markets rose [`\\cite{smith}`{=latex}]{.citeledger-flag}.\n\n"
    "::: {.citeledger-breakdown}\n```{=latex}\nPrices held \\cite{smith}.\n```\n:::\n"
)


@pytest.mark.parametrize("fmt", ["latex", "html"])
def test_a_raw_citation_in_the_filters_classes_is_kept_and_judged(fmt: str) -> None:
    first = run_main(pandoc_bytes(RAW_IN_OURS), fmt, judge_factory=FixtureJudge)
    assert first.err.count("(@smith)") == 3, first.err
    again = run_main(first.out, fmt, judge_factory=FixtureJudge)  # the re-run undoes the first
    assert again.err.count("(@smith)") == 3, again.err
    assert json.loads(again.out) == json.loads(first.out)
