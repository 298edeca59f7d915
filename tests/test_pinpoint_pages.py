"""A ledger's page locator is a promise about where a reader finds the words: in a PDF the
quote must stand on that page, or on one that prints that page number (a journal's p. 170 on
the file's sixth page). Checked with real PDFs through a real verify."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeledger.build.pinpoints import pages_named
from citeledger.cli import main
from test_extract_pdf import make_pdf

QUOTE = "The appeal must be received within 60 days."


def _project(tmp_path: Path, pages: list[list[str] | None], locator: str) -> Path:
    (tmp_path / "sources").mkdir()
    (tmp_path / "sources" / "r.pdf").write_bytes(make_pdf(pages))
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text(
        "sources:\n  r:\n    file: sources/r.pdf\n    title: Report\n    quotes:\n"
        f"      - text: {QUOTE}\n        locator: {locator}\n",
        encoding="utf-8",
    )
    (tmp_path / "doc.md").write_text(f"Appeals take 60 days [@r, {locator}].\n", "utf-8")
    assert main(["verify", "--ledger", str(ledger), "--yes"]) == 0
    return tmp_path


def _state(project: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, list[str]]:
    report = project / "report.json"
    args = ["check", str(project / "doc.md"), "--ledger", str(project / "citeledger.yaml")]
    main([*args, "--quiet", "--json", str(report)])
    [c] = json.loads(report.read_text(encoding="utf-8"))["citations"]
    return c["state"], c["reasons"]


def test_a_page_locator_the_quote_does_not_stand_on_is_not_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITELEDGER_CACHE_DIR", str(tmp_path.parent / f"{tmp_path.name}-cache"))
    project = _project(tmp_path, [[QUOTE], ["Page two text."], ["Page three text."]], "p. 3")
    state, reasons = _state(project, capsys)
    assert state == "quote-not-found"
    assert "p. 3" in reasons[0] and "page 1 of the PDF" in reasons[0]


@pytest.mark.parametrize(
    ("pages", "locator", "expected"),
    [
        ([["Page one."], [QUOTE], ["Page three."]], "p. 2", "checked"),  # the file's own page
        ([["Intro 169"], ["170", QUOTE]], "p. 170", "checked"),  # the page prints its number
        ([["Intro 169"], ["171", QUOTE]], "pp. 170-172", "checked"),  # a range
        ([["Page one."], [QUOTE]], "sec. 4", "checked"),  # not a page: nothing to compare
        # review F4: a reader sent to p. 60 finds nothing there, whatever number the quote holds
        ([[QUOTE], ["Page two text."], ["Page three text."]], "p. 60", "quote-not-found"),
        (  # a number mid-page is not a running head or foot
            [["Heading", "Intro", "Body with 170 in it.", "More", QUOTE, "Tail", "Foot"]],
            "p. 170",
            "quote-not-found",
        ),
    ],
)
def test_the_page_the_locator_names_is_checked(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    pages: list[list[str] | None],
    locator: str,
    expected: str,
) -> None:
    monkeypatch.setenv("CITELEDGER_CACHE_DIR", str(tmp_path.parent / f"{tmp_path.name}-cache"))
    state, reasons = _state(_project(tmp_path, pages, locator), capsys)
    assert state == expected, reasons
    if expected != "checked":
        assert locator in reasons[0]


def test_pages_named() -> None:
    assert pages_named("p. 14") == {14}
    assert pages_named("pp. 14–16, 20") == {14, 15, 16, 20}
    assert pages_named("p. xii") is None and pages_named("sec. 2") is None
    assert pages_named("pp. 1-900") is None and pages_named(None) is None
