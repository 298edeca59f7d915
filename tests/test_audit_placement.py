"""The audit and the bibliography in the right order, whatever the document's ending.

A document usually ends with ``# References`` (citeproc puts the bibliography under it), or
with a ``{#refs}`` Div, or with nothing; the writer may also say where the audit goes with a
``::: {#citeledger-audit}`` Div. The reader must find the audit before the references — never
between their heading and the entries — or exactly where the writer put it, once, on every
run, with citeproc before or after the filter.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from fixture_judge import FixtureJudge
from helpers import FIXTURE_FILTER, PANDOC, pandoc_bytes, run_main, venv_env

HEAD = """---
citeledger:
  audit: true
references:  # for a citeproc that runs before the filter (which adds the ledger's)
  - {id: st-withdrawn, title: A withdrawn work, type: book}
  - {id: st-checked, title: A checked work, type: book}
---

# Findings

A claim [@st-withdrawn] and [@st-checked].

"""
ENDINGS = {
    "heading": "# References\n",
    "refs-div": "::: {#refs}\n:::\n",
    "heading-and-refs-div": "# References\n\n::: {#refs}\n:::\n",
    "none": "The last paragraph.\n",
    "slot": "::: {#citeledger-audit}\n:::\n\n# Works cited\n",
    "slot-before-refs": (
        "# Appendix\n\n::: {#citeledger-audit}\n:::\n\n# References\n\n::: {#refs}\n:::\n"
    ),
}


def _build(markdown: str, *order: str, fmt: str = "json") -> str:
    """pandoc with the fixture filter and citeproc in the given order (``filter``, ``citeproc``)."""
    args = {"filter": ["--filter", str(FIXTURE_FILTER)], "citeproc": ["--citeproc"]}
    proc = subprocess.run(
        [PANDOC, "-f", "markdown", "-t", fmt, *(a for step in order for a in args[step])],
        input=markdown,
        capture_output=True,
        text=True,
        env=venv_env(),
        check=True,
    )
    return proc.stdout


def _landmarks(blocks: list[Any], out: list[str]) -> list[str]:
    """The audit, the headings and the bibliography's entries, in document order."""
    for block in blocks:
        t, c = block.get("t"), block.get("c")
        if t == "Header":
            out.append("audit-heading" if c[1][0] == "citeledger-audit" else f"# {c[1][0]}")
        elif t == "Div":
            ident, classes = c[0][0], c[0][1]
            if "citeledger-audit" in classes:
                out.append("audit")
            elif "csl-entry" in classes:
                out.append("entry")
            elif ident == "citeledger-audit":
                out.append("slot")
            if "citeledger-audit" not in classes:
                _landmarks(c[1], out)
    return out


@pytest.mark.parametrize(
    ("ending", "expected"),
    [
        ("heading", ["# findings", "audit", "# references", "entry", "entry"]),
        ("refs-div", ["# findings", "audit", "entry", "entry"]),
        ("heading-and-refs-div", ["# findings", "audit", "# references", "entry", "entry"]),
        ("none", ["# findings", "audit", "entry", "entry"]),
        ("slot", ["# findings", "slot", "audit", "# works-cited", "entry", "entry"]),
        (
            "slot-before-refs",
            ["# findings", "# appendix", "slot", "audit", "# references", "entry", "entry"],
        ),
    ],
)
@pytest.mark.parametrize("order", [("filter", "citeproc"), ("citeproc", "filter")])
def test_the_audit_stands_before_the_references(
    ending: str, expected: list[str], order: tuple[str, str]
) -> None:
    doc = json.loads(_build(HEAD + ENDINGS[ending], *order))
    assert _landmarks(doc["blocks"], []) == expected


@pytest.mark.parametrize("ending", sorted(ENDINGS))
def test_the_audit_is_placed_once_on_every_run(ending: str) -> None:
    """Run on its own output, the filter finds the same place and writes the same document."""
    raw = pandoc_bytes(HEAD + ENDINGS[ending])
    once = run_main(raw, "html", judge_factory=FixtureJudge)
    twice = run_main(once.out, "html", judge_factory=FixtureJudge)
    assert twice.out == once.out
    assert _landmarks(twice.doc["blocks"], []).count("audit") == 1


def test_the_writers_slot_is_the_one_target_of_the_audit_links() -> None:
    html = _build(HEAD + ENDINGS["slot"], "filter", "citeproc", fmt="html")
    assert html.count('id="citeledger-audit"') == 1
    assert html.index('<div id="citeledger-audit">') < html.index("Citation audit</h1>")
    assert 'href="#citeledger-audit"' in html  # the banner's link reaches it
