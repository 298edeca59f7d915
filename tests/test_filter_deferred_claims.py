"""The filter cuts a claim only where it shows one (issue 8 item 3), and the claims it shows
are exactly the ones a full scan cuts: every breakdown's (its warning, its callout), and every
citation's when the audit is on. Explicit claim Spans and citation-only notes, which decide
where a callout goes, are cut during the walk as before.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from fixture_judge import FixtureJudge
from helpers import pandoc_json

from citeledger.build.citations import find_citations
from citeledger.build.filter import run_filter

MARKDOWN = """\
First claim of the page holds [@st-checked]. A second sentence cites [@st-stale] here.

[An explicit claim]{.claim} [@st-checked] and *emphasis around @st-tampered citing* it.

A footnoted sentence here.^[@st-checked] Another sentence with its own note.^[See also
@st-withdrawn.]

| cell | claim |
|------|-------|
| A cell claim [@st-unchecked] | and [@st-checked] |

- A list item claim [@st-checked; @st-disputed].
"""


@pytest.mark.parametrize("audit", [False, True])
def test_the_claims_shown_are_the_full_scans(audit: bool) -> None:
    doc = pandoc_json(MARKDOWN)
    if audit:
        doc["meta"]["citeledger"] = {"t": "MetaMap", "c": {"audit": {"t": "MetaBool", "c": True}}}
    eager = {f.ref.occurrence: f.ref.claim for f in find_citations(copy.deepcopy(doc))}
    result = run_filter(doc, "html", judge_factory=FixtureJudge)
    assert len(result.items) == len(eager) == 10
    for item in result.items:
        if audit or item.state.is_breakdown:
            assert item.found.ref.claim == eager[item.found.ref.occurrence]
    shown = [w for w in result.warnings if w.startswith("citation ")]
    assert len(shown) == sum(item.state.is_breakdown for item in result.items)
    for item, warning in zip(result.breakdowns, shown, strict=True):
        assert eager[item.found.ref.occurrence][:40].rstrip() in warning
