"""``check --progress`` and ``check --since report.json``: the checked share and what changed.

A real project (a local file source, verified for real): the first report has nothing checked;
after verify the citation is newly checked; after a withdrawal it is newly broken, named on
its own line. A citation keeps its identity when another is added above it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from citeledger.cli import main

NOTES = "Triage notes\n\nThe threshold rejected 41% of out-of-scope requests in March.\n"

LEDGER = """# the writer's ledger
sources:
  notes:
    file: notes.txt
    quotes:
      - text: The threshold rejected 41% of out-of-scope requests
  other:
    url: https://example.org/p.html
"""

DOC = "The threshold rejected 41% of them [@notes].\n\nAnother claim [@other].\n"


def _check(tmp_path: Path, *extra: str) -> int:
    return main(["check", str(tmp_path / "ch.md"), "--quiet", *extra])


def test_since_reports_newly_checked_then_newly_broken(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes.txt").write_text(NOTES, encoding="utf-8")
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text(LEDGER, encoding="utf-8")
    (tmp_path / "ch.md").write_text(DOC, encoding="utf-8")
    first, second = tmp_path / "r1.json", tmp_path / "r2.json"
    assert _check(tmp_path, "--json", str(first), "--progress") == 1
    out = capsys.readouterr().out
    assert "citeledger: progress: 0 of 2 citations checked (0%)" in out

    assert main(["verify", "--ledger", str(ledger), "--yes"]) == 0
    # another citation above: the running numbers move, the identity does not
    (tmp_path / "ch.md").write_text("New first claim [@other].\n\n" + DOC, encoding="utf-8")
    capsys.readouterr()
    assert _check(tmp_path, "--since", str(first), "--json", str(second)) == 1
    out = capsys.readouterr().out
    assert "progress: 1 of 3 citations checked (33%); before: 0 of 2 (0%)" in out
    assert "since the previous report: 1 newly checked, 0 newly broken" in out
    assert f"  checked {tmp_path / 'ch.md'} #2: @notes" in out

    assert main(["withdraw", "notes", "--reason", "misread", "--ledger", str(ledger)]) == 0
    capsys.readouterr()
    assert _check(tmp_path, "--since", str(second)) == 1
    out = capsys.readouterr().out
    assert "0 newly checked, 1 newly broken" in out
    assert f"  BROKEN {tmp_path / 'ch.md'} #2: @notes: withdrawn" in out


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("not json", "the previous report is not JSON"),
        ('{"citations": 3}', "not a citeledger check report"),
    ],
)
def test_a_bad_since_report_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, says: str
) -> None:
    (tmp_path / "ch.md").write_text(DOC, encoding="utf-8")
    bad = tmp_path / "old.json"
    bad.write_text(content, encoding="utf-8")
    assert _check(tmp_path, "--since", str(bad)) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and says in err and str(bad) in err
    assert "check --json" in err  # the fix


def test_a_missing_since_report_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "ch.md").write_text(DOC, encoding="utf-8")
    assert _check(tmp_path, "--since", str(tmp_path / "nope.json")) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "nope.json" in err
