"""Terminal output is inert: a source's or a ledger's escape sequences are shown, never obeyed.

``ESC ] 0;… BEL`` sets a terminal's title, ``ESC [ 2K`` erases the line a reader is looking at;
both survive HTML extraction and a text file's reading, and reach ``verify``'s progress lines,
``check``'s summary, the filter's warnings and the error lines. Every such line must carry them
written out (``\\x1b``), so the reader sees they were there and the terminal does nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from helpers import pandoc_bytes, run_main

import netserver as ns
from citeledger.cli import main
from test_inert_output import HostileJudge

netserver = ns.netserver
QUOTE = "An appeal must be received within sixty days of the date of the decision letter."
HOSTILE = "An appeal must be received within \x1b]0;owned\x07ninety\x1b[2K days of the date of the"
SENTENCE = HOSTILE + " decision letter."


def _no_raw_controls(text: str) -> None:
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text, repr(text)


def _project(tmp_path: Path, ident: str) -> Path:
    (tmp_path / "doc.md").write_text("A claim [@k].\n", encoding="utf-8")
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text(f'sources:\n  k:\n    {ident}\n    quotes:\n      - text: "{QUOTE}"\n')
    return ledger


def test_verify_and_check_show_a_text_files_escapes_written_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "src.txt").write_text(f"Intro.\n\n{SENTENCE}\n", encoding="utf-8")
    ledger = _project(tmp_path, "file: src.txt")
    assert main(["verify", "--ledger", str(ledger), "--yes"]) == 1  # the quote is not in the source
    out = capsys.readouterr()
    _no_raw_controls(out.out + out.err)
    assert "\\x1b[2K" in out.out
    assert main(["check", str(tmp_path / "doc.md")]) == 1
    out = capsys.readouterr()
    _no_raw_controls(out.out + out.err)
    assert "\\x1b]0;owned\\x07ninety" in out.out


def test_a_title_setting_sequence_in_a_retrieved_page_never_reaches_the_terminal(
    tmp_path: Path, netserver: ns.NetServer, capsys: pytest.CaptureFixture[str]
) -> None:
    page = f"<html><head><title>\x1b]0;owned\x07</title></head><body><p>{SENTENCE}</p></body>"
    netserver.static("/page.html", page.encode())
    url = netserver.url("/page.html")
    ledger = _project(tmp_path, f"url: {url}")
    assert (
        main(["verify", "--ledger", str(ledger), "--yes", "--allow-private"]) == 1
    )  # the quote is not in the source
    assert main(["check", str(tmp_path / "doc.md")]) == 1
    out = capsys.readouterr()
    _no_raw_controls(out.out + out.err)
    assert "\\x1b]0;owned\\x07" in out.out


def test_filter_warnings_write_the_ledgers_escapes_out() -> None:
    run = run_main(
        pandoc_bytes("A claim [@st-quote-not-found]."), "html", judge_factory=HostileJudge
    )
    assert run.warnings
    _no_raw_controls(run.err)
    assert "\\x1b]8;;http://x\\x07" in run.err


def test_an_error_quoting_a_ledger_key_writes_its_escapes_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text('sources:\n  "k\\e]0;owned\\a":\n    url: https://example.org/\n')
    assert main(["verify", "--ledger", str(ledger), "--dry-run"]) == 2
    err = capsys.readouterr().err
    _no_raw_controls(err)
    assert "k\\x1b]0;owned\\x07" in err
