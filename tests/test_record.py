"""add, import, withdraw, dispute: additions to the record, never deletions."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeledger.cli import main
from citeledger.judge import Judge
from citeledger.ledger import load_ledger
from citeledger.model import CitationRef, State

DATA = Path(__file__).resolve().parent / "data" / "record"


def test_add_then_withdraw_keeps_everything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger = tmp_path / "citeledger.yaml"
    assert (
        main(
            [
                "add",
                "hchm",
                "--url",
                "https://example.org/m.html",
                "--title",
                "Manual",
                "--quote",
                "within 60 days of the decision",
                "--locator",
                "p. 14",
                "--ledger",
                str(ledger),
            ]
        )
        == 0
    )
    source = load_ledger(ledger).sources["hchm"]
    assert source.quotes[0].locator == "p. 14"
    assert (
        main(
            [
                "withdraw",
                "hchm",
                "--reason",
                "the manual says 30 days for this case",
                "--source-says",
                "within 30 days",
                "--date",
                "2026-08-02",
                "--ledger",
                str(ledger),
            ]
        )
        == 0
    )
    source = load_ledger(ledger).sources["hchm"]
    assert source.withdrawn is not None and source.withdrawn.date == "2026-08-02"
    assert source.quotes[0].text == "within 60 days of the decision"  # nothing removed
    verdict = Judge(load_ledger(ledger)).judge(CitationRef("hchm"))
    assert verdict.state is State.WITHDRAWN
    assert any("30 days for this case" in r for r in verdict.reasons)
    # A second withdrawal would overwrite the first: refused, one line, exit 2.
    capsys.readouterr()
    assert main(["withdraw", "hchm", "--reason", "again", "--ledger", str(ledger)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "citeledger.yaml" in err
    assert load_ledger(ledger).sources["hchm"].withdrawn.reason.startswith("the manual")  # type: ignore[union-attr]


def test_dispute(tmp_path: Path) -> None:
    ledger = tmp_path / "citeledger.yaml"
    assert (
        main(
            [
                "add",
                "k",
                "--doi",
                "10.1000/xyz",
                "--quote",
                "some words here now",
                "--ledger",
                str(ledger),
            ]
        )
        == 0
    )
    assert (
        main(
            ["dispute", "k", "--reason", "the paper reports the opposite", "--ledger", str(ledger)]
        )
        == 0
    )
    assert Judge(load_ledger(ledger)).judge(CitationRef("k")).state is State.DISPUTED


def test_add_refuses_a_bad_identifier(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ledger = tmp_path / "citeledger.yaml"
    assert main(["add", "k", "--doi", "https://doi.org/10.1000/xyz", "--ledger", str(ledger)]) == 2
    assert "bare DOI" in capsys.readouterr().err


def test_import_bibtex(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ledger = tmp_path / "citeledger.yaml"
    assert main(["import", str(DATA / "refs.bib"), "--ledger", str(ledger)]) == 0
    captured = capsys.readouterr()
    sources = load_ledger(ledger).sources
    assert str(sources["cavalin2020"].identifier) == "doi:10.18653/v1/2020.emnlp-main.324"
    # pandoc turns BibTeX title case into CSL sentence case; the words are kept.
    assert sources["cavalin2020"].csl["title"].lower().startswith("improving out-of-scope")
    assert str(sources["vaswani2017"].identifier) == "arxiv:1706.03762"
    assert "nourl" not in sources
    assert "@nourl not imported" in captured.err  # said, not silently skipped
    # Importing again adds nothing and says so.
    assert main(["import", str(DATA / "refs.bib"), "--ledger", str(ledger)]) == 0
    assert "already in the ledger" in capsys.readouterr().err
