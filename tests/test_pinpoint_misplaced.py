"""A quote verify found, on another page than its locator names: a breakdown whose words say
what is true — found on page N (printed page M when the PDF shows it), the locator says p. X,
fix one or the other — in the callout, the flag, the build's warning and ``check`` (text and
JSON), never "the quoted words are not in the source", which would contradict verify.
Real PDFs, a real verify, real pandoc with the real filter."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from helpers import PANDOC, venv_env

from citeledger.cli import main
from citeledger.model import MISPLACED_TITLE, STATE_TITLES, State
from test_extract_pdf import make_pdf

QUOTE = "The appeal must be received within 60 days."
NOT_IN_SOURCE = STATE_TITLES[State.QUOTE_NOT_FOUND]


def _project(tmp_path: Path, pages: list[list[str] | None], locator: str) -> Path:
    (tmp_path / "sources").mkdir()
    (tmp_path / "sources" / "r.pdf").write_bytes(make_pdf(pages))
    (tmp_path / "citeledger.yaml").write_text(
        "sources:\n  r:\n    file: sources/r.pdf\n    title: Report\n    quotes:\n"
        f"      - text: {QUOTE}\n        locator: {locator}\n",
        encoding="utf-8",
    )
    (tmp_path / "doc.md").write_text(f"Appeals take 60 days [@r, {locator}].\n", "utf-8")
    assert main(["verify", "--ledger", str(tmp_path / "citeledger.yaml"), "--yes"]) == 0
    return tmp_path


def _check(project: Path, capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, object], str]:
    report = project / "report.json"
    args = ["check", str(project / "doc.md"), "--ledger", str(project / "citeledger.yaml")]
    capsys.readouterr()
    assert main([*args, "--json", str(report)]) == 1
    text = capsys.readouterr().out
    [c] = json.loads(report.read_text(encoding="utf-8"))["citations"]
    assert isinstance(c, dict)
    return c, text


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path.parent / f"{tmp_path.name}-cache"  # outside the project: it is believed
    monkeypatch.setenv("CITELEDGER_CACHE_DIR", str(cache))
    return cache


def test_check_says_where_verify_found_the_quote(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], cache: Path
) -> None:
    project = _project(tmp_path, [[QUOTE], ["Page two text."], ["Page three text."]], "p. 3")
    c, text = _check(project, capsys)
    assert c["state"] == "quote-not-found"  # still a breakdown, never checked
    assert c["found_on_page"] == 1
    [reason] = c["reasons"]  # type: ignore[misc]
    assert "found the quote on page 1 of the PDF" in reason
    assert "its locator says p. 3" in reason and "Fix the locator" in reason
    assert "printed page" not in reason  # the PDF prints no page numbers
    assert f"@r: {MISPLACED_TITLE}" in text and NOT_IN_SOURCE not in text
    assert reason in text


def test_the_printed_page_is_named_when_the_pdf_shows_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], cache: Path
) -> None:
    """A journal's pages print 169, 170, 171: the quote on the file's page 2 is on p. 170."""
    pages = [["169", "Intro."], ["170", QUOTE], ["171", "More."]]
    c, _ = _check(_project(tmp_path, pages, "p. 3"), capsys)
    assert c["state"] == "quote-not-found" and c["found_on_page"] == 2
    assert "on page 2 of the PDF (printed page 170)" in str(c["reasons"])


def test_a_quote_not_in_the_source_keeps_its_own_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], cache: Path
) -> None:
    """Only a quote verify found is "misplaced": one it did not find says it is not there."""
    (tmp_path / "sources").mkdir()
    (tmp_path / "sources" / "r.pdf").write_bytes(make_pdf([["Something else entirely."]]))
    (tmp_path / "citeledger.yaml").write_text(
        "sources:\n  r:\n    file: sources/r.pdf\n    title: Report\n    quotes:\n"
        f"      - text: {QUOTE}\n        locator: p. 1\n",
        encoding="utf-8",
    )
    (tmp_path / "doc.md").write_text("Appeals take 60 days [@r, p. 1].\n", "utf-8")
    main(["verify", "--ledger", str(tmp_path / "citeledger.yaml"), "--yes"])
    c, text = _check(tmp_path, capsys)
    assert c["state"] == "quote-not-found" and "found_on_page" not in c
    assert NOT_IN_SOURCE in text and MISPLACED_TITLE not in text


def _build(project: Path, cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PANDOC, "doc.md", "--filter", "pandoc-citeledger", "--wrap=none", *args],
        cwd=project,
        capture_output=True,
        text=True,
        env=venv_env(CITELEDGER_CACHE_DIR=str(cache)),
        check=True,
    )


def test_the_build_says_the_same(tmp_path: Path, cache: Path) -> None:
    project = _project(tmp_path, [[QUOTE], ["Page two text."], ["Page three text."]], "p. 3")
    build = _build(project, cache, "-t", "plain")
    out = build.stdout
    assert "[citation 1: quote on another page]" in out
    assert MISPLACED_TITLE.upper() in out and NOT_IN_SOURCE.upper() not in out
    assert "found the quote on page 1 of the PDF" in out
    assert "1 not checked (1 quote on another page)" in out
    assert f"quote-not-found: {MISPLACED_TITLE}" in build.stderr


def test_the_audit_says_the_same(tmp_path: Path, cache: Path) -> None:
    """The audit row of a quote found on another page has its own badge and the callout's
    words, not the generic quote-not-found ones."""
    project = _project(tmp_path, [[QUOTE], ["Page two text."], ["Page three text."]], "p. 3")
    build = _build(project, cache, "-t", "html", "-M", "citeledger.audit=true")
    [row] = re.findall(r'<tr class="citeledger-audit-row[^"]*">.*?</tr>', build.stdout, re.S)
    assert "citeledger-misplaced" in row and "<strong>quote-on-another-page</strong>" in row
    assert MISPLACED_TITLE in row and NOT_IN_SOURCE not in row
    assert "found the quote on page 1 of the PDF" in row


def test_the_evidence_page_says_the_same(tmp_path: Path, cache: Path) -> None:
    project = _project(tmp_path, [[QUOTE], ["Page two text."], ["Page three text."]], "p. 3")
    out = project / "evidence"
    assert main(["evidence", "--ledger", str(project / "citeledger.yaml"), "--out", str(out)]) == 0
    [page] = [p.read_text("utf-8") for p in out.glob("r-*.html")]
    assert f"FAILED: {MISPLACED_TITLE}" in page and NOT_IN_SOURCE not in page
    assert "found the quote on page 1 of the PDF" in page
