"""GitHub Markdown as a reader of the source sees it: plain citations, alerts, no filter HTML.

What GitHub shows is what the ``.md`` file says, so the filter writes no ``<span>``, ``<sup>``
or ``<div>`` of its own there: a checked citation is the plain citation plus its plain links,
a breakdown a bold flag and a ``> [!CAUTION]`` alert, the banner a ``> [!WARNING]`` alert.
What is left as HTML is the writer's own (``[…]{.claim}``, ``::: aside``), citeproc's, pandoc's
figure, and the one ``<div>`` around the audit, whose table is a pipe table.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(p.name for p in GOLDEN.iterdir() if (p / "expected.gfm").is_file())


def _before_audit(case: str) -> str:
    return (GOLDEN / case / "expected.gfm").read_text("utf-8").split('<div class="citeledger')[0]


@pytest.mark.parametrize("case", CASES)
def test_no_html_of_the_filter_before_the_audit(case: str) -> None:
    text = _before_audit(case)
    tags = " ".join(re.findall(r"<[a-z][^>]*>", text))
    tags = tags.replace("citeledger-unverified", "")  # the filter's class on the writer's Span
    tags = tags.replace('id="citeledger-audit"', "")  # the writer's place for the audit
    assert "citeledger" not in tags
    assert "<sup>" not in text and "data-citeledger" not in text


def test_a_checked_citation_is_the_plain_citation_and_its_plain_links() -> None:
    text = " ".join(_before_audit("sources").split())
    assert "A web page, checked [@web-checked] [source](https://example.org/manual.html#:~:" in text
    assert (
        "A PDF, checked [@pdf-checked, p. 3] [source](https://example.org/paper.pdf#page=3" in text
    )
    assert "has no source link [@file-checked]." in text
    evidence = " ".join(_before_audit("edits").split())
    assert "[@omitted] [evidence (checked, with 1 omission)](evidence/omitted-" in evidence


def test_breakdowns_are_github_alerts_and_flags_bold_words() -> None:
    text = _before_audit("states")
    assert text.startswith("> [!WARNING]\n> **Citation check:")
    assert text.count("> [!CAUTION]\n") == 13
    assert "Unchecked claim [@st-unchecked] **\\[citation 2: unchecked\\]**." in text


def test_the_audit_is_a_pipe_table_whose_claims_cite_nothing() -> None:
    text = (GOLDEN / "sources" / "expected.gfm").read_text("utf-8").split("citeledger-audit")[1]
    assert "<table" not in text and "| Claim | Source | State | Reasons | Links |" in text
    assert "Inside link text with \\@web-checked nothing nests." in text


@pytest.mark.parametrize("citeproc_first", [True, False])
def test_citeproc_formats_the_citation_before_or_after_the_filter(citeproc_first: bool) -> None:
    """citeproc's text is kept whichever runs first; the raw ``[@key]`` is only the fallback."""
    import subprocess
    import sys

    sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))
    from helpers import FIXTURE_FILTER, PANDOC, venv_env

    doc = (
        "---\nreferences:\n- {id: st-checked, type: book, title: A book, author: [{family: Doe}],"
        " issued: 2020}\n---\n\nA claim [@st-checked, p. 3].\n"
    )
    steps = [["--citeproc"], ["--filter", str(FIXTURE_FILTER)]]
    args = [a for step in (steps if citeproc_first else steps[::-1]) for a in step]
    out = subprocess.run(
        [PANDOC, "-f", "markdown", "-t", "gfm", *args],
        input=doc,
        capture_output=True,
        text=True,
        env=venv_env(),
        check=True,
    ).stdout
    # before: the document's reference; after: the ledger's, which the filter adds (a title)
    assert ("A claim (Doe 2020, 3)." if citeproc_first else "Checked,” n.d., 3).") in out
    assert "@st-checked" not in out
