"""``citeledger check``: the filter's judgement offline, with the exit codes CI relies on.

The project here uses only a local file source, so no server is needed: verify reads it, check
judges the document, and the filter must agree with check about every citation.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from citeledger.cli import main

NOTES = """Triage notes

In our March evaluation the threshold on the top softmax score rejected 41% of
out-of-scope requests while keeping 96% of in-scope accuracy.
"""

LEDGER = """# sources of the test chapter
sources:
  notes:
    file: notes.txt
    title: Triage notes
    quotes:
      - text: the threshold on the top softmax score rejected 41% of out-of-scope requests
  never:
    url: https://example.org/paper.html
    quotes:
      - text: some words nobody checked yet
  gone:
    url: https://example.org/other.html
    withdrawn:
      date: 2026-08-02
      reason: the page does not say this
"""

DOC = """---
title: Test chapter
---

The threshold baseline rejected 41% of out-of-scope requests [@notes].
This sentence rests on a source nobody has checked yet [@never].
This claim was withdrawn after the page was read [@gone].
This one cites a key the ledger does not know at all [@missing].
A cross-reference such as @fig-one is not a citation and is left alone.
Nobody cites anything in this long enough sentence here.
[The model says this of its own knowledge, without a source]{.unverified}.
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "notes.txt").write_text(NOTES, encoding="utf-8")
    (tmp_path / "citeledger.yaml").write_text(LEDGER, encoding="utf-8")
    (tmp_path / "chapter.md").write_text(DOC, encoding="utf-8")
    assert (
        main(["verify", "--ledger", str(tmp_path / "citeledger.yaml"), "--yes", "--only", "notes"])
        == 0
    )
    return tmp_path


def test_check_reports_states_json_and_coverage(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    report_path = project / "report.json"
    assert main(["check", str(project / "chapter.md"), "--json", str(report_path)]) == 1
    out = capsys.readouterr().out
    assert "1 of 4 citations checked" in out
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert set(report) >= {"citations", "counts", "coverage"}
    states = {c["key"]: c["state"] for c in report["citations"]}
    assert states == {
        "notes": "checked",
        "never": "unchecked",
        "gone": "withdrawn",
        "missing": "not-in-ledger",
    }
    assert report["counts"] == {"checked": 1, "not-in-ledger": 1, "unchecked": 1, "withdrawn": 1}
    for c in report["citations"]:
        assert {"key", "state", "reasons", "claim", "quote", "anchor"} <= set(c)
    notes = next(c for c in report["citations"] if c["key"] == "notes")
    assert "41%" in notes["claim"] and notes["anchor"]["char_start"] is not None
    cov = report["coverage"]
    assert cov["prose_sentences"] == 7
    assert cov["with_provenance"] == 5  # four citations and one declared-unverified claim
    assert any("Nobody cites anything" in s for s in cov["without_provenance"])


def test_check_exit_codes(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = str(project / "chapter.md")
    assert main(["check", doc, "--warn-only"]) == 0
    assert main(["check", doc, "--warn-only", "--min-coverage", "0.9"]) == 1
    assert "below --min-coverage" in capsys.readouterr().err
    (project / "citeledger.yaml").write_text("sources:\n  a:\n    doi: 10.1/x\n    doi: 10.1/y\n")
    capsys.readouterr()
    # a source the document does not cite is validated only with --all (issue 8 item 4)
    assert main(["check", doc]) == 1
    assert "duplicate" not in capsys.readouterr().err
    assert main(["check", doc, "--all"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "citeledger.yaml:4" in err and "duplicate" in err


def test_check_json_to_stdout_is_pure_json(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    main(["check", str(project / "chapter.md"), "--json", "-", "--warn-only"])
    json.loads(capsys.readouterr().out)


def _rendered_states(node: object, out: list[str]) -> list[str]:
    """The state of every citation the filter rendered, in document order."""
    if isinstance(node, dict):
        if node.get("t") == "Span":
            classes = node["c"][0][1]
            if "citeledger-checked" in classes:
                out.append("checked")
            elif "citeledger-flag" in classes:
                out.extend(
                    c[len("citeledger-") :]
                    for c in classes
                    if c not in ("citeledger-flag",) and c.startswith("citeledger-")
                )
        for value in node.values():
            _rendered_states(value, out)
    elif isinstance(node, list):
        for value in node:
            _rendered_states(value, out)
    return out


def test_filter_and_check_agree(project: Path, pandoc_path: str) -> None:
    """One judgement: the filter renders, citation by citation, the states check reports —
    with the document's own options (here its audience) read the same way by both."""
    doc = project / "chapter.md"
    doc.write_text(
        DOC.replace("title: Test chapter", "title: Test chapter\nciteledger:\n  audience: staff")
        + "\nA memo for staff only says so [@memo].\n",
        encoding="utf-8",
    )
    with (project / "citeledger.yaml").open("a", encoding="utf-8") as fh:
        fh.write(
            "  memo:\n    url: https://example.org/memo\n    audience: [staff, board]\n"
            "    quotes:\n      - text: for staff only\n"
        )
    report = project / "r.json"
    main(["check", str(doc), "--json", str(report), "--warn-only"])
    states = [c["state"] for c in json.loads(report.read_text())["citations"]]
    assert states[-1] == "unchecked"  # open to this build's audience, never verified
    filt = str(Path(sys.executable).parent / "pandoc-citeledger")
    out = subprocess.run(
        [pandoc_path, "chapter.md", "--filter", filt, "-t", "json"],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rendered = _rendered_states(json.loads(out)["blocks"], [])
    assert rendered == states


def test_unwritable_report_and_built_output_are_one_line_errors(
    project: Path, pandoc_path: str, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = str(project / "chapter.md")
    capsys.readouterr()
    assert main(["check", doc, "--json", str(project / "no" / "such" / "r.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "r.json" in err
    built = project / "chapter.docx"
    subprocess.run([pandoc_path, doc, "-o", str(built)], check=True, cwd=project)
    assert main(["check", str(built)]) == 2  # a CI gate on the output must not pass silently
    err = capsys.readouterr().err
    assert "source document" in err and err.count("\n") == 1
