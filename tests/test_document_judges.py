"""``check``, ``review`` and ``deps`` judge through one loop (``report.check.DocumentJudges``).

What a writer relies on: each judges a document as its build does — the same trust (the
ledger's and the environment's keys, ``require-signature``), the document's own audience —
and keeps the verdicts it judged for the next build, as the filter does, so a ``review`` or a
``make`` step before the build is work the build does not repeat. A real verify of file
sources (a corpus PDF and a small page), the real pandoc, the CLI's ``main``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from citeledger.cli import main
from citeledger.judge import Judge
from test_review import _project


def _fresh_judgements(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every judgement made from evidence, not from the kept verdicts, from now on."""
    made: list[str] = []
    real = Judge._judge_evidence

    def counted(self: Judge, source: object, *args: object) -> object:
        made.append(getattr(source, "key", "?"))
        return real(self, source, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(Judge, "_judge_evidence", counted)
    return made


def test_review_keeps_its_verdicts_for_the_build_that_follows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["review", "doc.md", "--list"]) == 0
    assert "2 checked citations await review" in capsys.readouterr().out
    fresh = _fresh_judgements(monkeypatch)
    assert main(["check", "doc.md", "--quiet"]) == 0
    assert "2 of 2 citations checked" in capsys.readouterr().out
    assert fresh == []  # both verdicts came from what review kept


def test_deps_judges_with_the_builds_trust_and_keeps_its_verdicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With ``require-signature`` from the environment (as CI sets it for the build), deps
    judges as that build will: the build then finds every verdict already judged."""
    _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CITELEDGER_REQUIRE_SIGNATURE", "true")
    capsys.readouterr()
    assert main(["deps", "doc.md", "--target", "doc.html"]) == 0
    rule = capsys.readouterr().out
    assert rule.startswith("doc.html: \\\n citeledger.yaml \\\n .citeledger/history.jsonl")
    assert rule.count(".warc.gz \\\n") + rule.count(".warc.gz\n\n") == 2
    fresh = _fresh_judgements(monkeypatch)
    code = main(["check", "doc.md", "--quiet", "--warn-only"])
    assert code == 0
    assert fresh == []


def test_review_judges_each_document_for_its_own_audience(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two documents, one ledger: a source open to staff only is checked in the staff
    document and restricted in the public one, as their builds judge them; review asks about
    the staff document's claim alone."""
    ledger, _, _ = _project(tmp_path)
    text = ledger.read_text(encoding="utf-8")
    ledger.write_text(
        text.replace("    file: notes.html\n", "    file: notes.html\n    audience: [staff]\n"),
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    (tmp_path / "staff.md").write_text(
        "---\nciteledger:\n  audience: staff\n---\nAppeals take sixty days [@notes].\n",
        encoding="utf-8",
    )
    (tmp_path / "public.md").write_text("Appeals take two months [@notes].\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["review", "staff.md", "public.md", "--list"]) == 0
    listed = capsys.readouterr().out
    assert "staff.md" in listed and "public.md" not in listed
    assert "1 checked citation awaits review" in listed
    assert main(["check", "public.md", "--quiet", "--warn-only"]) == 0
    assert "restricted" in capsys.readouterr().out
