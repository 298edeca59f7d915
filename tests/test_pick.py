"""``citeledger pick``: a quote selected from the retrieved text, written with its receipt.

End to end on a corpus PDF (a ``file:`` source) and on a corpus web page served on 127.0.0.1:
the written quote is byte-identical to the source's span as the extractor gives it, and
``check`` says checked. Off a terminal ``--find`` picks the one match or lists the candidates
and exits 1, writing nothing; on a real pseudo-terminal the writer searches, widens and narrows
the selection and writes it. A second pick reads the stored evidence: no request is sent.
"""

from __future__ import annotations

import os
import pty
import select
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from citeledger.cli import main
from citeledger.extract.dispatch import extract, extract_file
from citeledger.ledger import load_ledger
from conftest import corpus_file

PDF = "agarwal11.pdf"
PDF_WORDS = "controlling sensor failures in video and image processing"
HTML = "ebb-org.html"
HTML_WORDS = "I have been silent the last month"


def _pdf_project(tmp_path: Path) -> Path:
    shutil.copy(corpus_file("pdf", PDF), tmp_path / PDF)
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text(f"# mine\nsources:\n  ag:  # the paper\n    file: {PDF}\n", encoding="utf-8")
    return ledger


def _checked(tmp_path: Path, cite: str, capsys: pytest.CaptureFixture[str]) -> str:
    (tmp_path / "d.md").write_text(f"A claim [{cite}].\n", encoding="utf-8")
    capsys.readouterr()
    code = main(["check", str(tmp_path / "d.md"), "--quiet"])
    out = capsys.readouterr().out
    assert code == 0, out
    return out


def _span_of(text: str, words: str) -> str:
    """The source's own characters for ``words`` (whitespace as the source has it)."""
    import re

    pattern = r"\s+".join(re.escape(w) for w in words.split())
    m = re.search(pattern, text)
    assert m is not None
    return m.group()


def test_find_on_a_pdf_writes_the_sources_exact_span_and_it_checks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger = _pdf_project(tmp_path)
    code = main(["pick", "ag", "--find", PDF_WORDS, "--ledger", str(ledger), "--yes"])
    out = capsys.readouterr().out
    assert code == 0, out
    (quote,) = load_ledger(ledger).sources["ag"].quotes
    source_text = extract_file(tmp_path / PDF).text
    span = _span_of(source_text, PDF_WORDS)
    assert "\n" in span  # a line break of the PDF, kept as the source has it
    assert quote.text.encode("utf-8") == span.encode("utf-8")
    assert quote.locator == "p. 1"
    receipt = quote.latest
    assert receipt is not None and receipt.outcome == "found" and receipt.page == 1
    assert source_text[receipt.char_start : receipt.char_end] == quote.text
    assert receipt.snapshot is not None  # stored as verify stores it, page image included
    text = ledger.read_text(encoding="utf-8")
    assert text.startswith("# mine\n") and "# the paper" in text  # the writer's text kept
    assert "1 of 1 citations checked" in _checked(tmp_path, "@ag", capsys)


def test_several_matches_are_listed_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger = _pdf_project(tmp_path)
    before = ledger.read_bytes()
    assert main(["pick", "ag", "--find", "low rank", "--ledger", str(ledger), "--yes"]) == 1
    out = capsys.readouterr().out
    assert "passages have “low rank”:" in out
    assert "  1. p. 1: …" in out and "fix: give more words, or --page N" in out
    assert ledger.read_bytes() == before
    assert main(["pick", "ag", "--find", "no such words", "--ledger", str(ledger), "--yes"]) == 1
    assert "no passage has the words" in capsys.readouterr().out
    assert ledger.read_bytes() == before


def test_page_narrows_the_search(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ledger = _pdf_project(tmp_path)
    pages = extract_file(tmp_path / PDF).page_starts
    args = ["pick", "ag", "--ledger", str(ledger), "--yes", "--id", "p2"]
    assert main([*args, "--find", "Related decompositions", "--page", "2"]) == 1
    assert "no passage has the words" in capsys.readouterr().out
    assert main([*args, "--find", "Related decompositions", "--page", "1"]) == 0
    (quote,) = load_ledger(ledger).sources["ag"].quotes
    assert quote.id == "p2" and quote.latest is not None
    assert quote.latest.char_start is not None and quote.latest.char_start < pages[1]
    assert main([*args, "--find", "x", "--page", "99"]) == 2
    assert "the source has no page 99" in capsys.readouterr().err


def test_off_a_terminal_without_find_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger = _pdf_project(tmp_path)
    assert main(["pick", "ag", "--ledger", str(ledger)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--find" in err
    assert main(["pick", "nokey", "--find", "x", "--ledger", str(ledger)]) == 2
    err = capsys.readouterr().err.strip()
    assert "source 'nokey' is not in the ledger" in err and "adopt" in err


def test_a_web_page_on_loopback_then_its_stored_evidence(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    netserver,
    loopback_only,  # type: ignore[no-untyped-def]
) -> None:
    body = corpus_file("html", HTML).read_bytes()
    netserver.static("/post.html", body, content_type="text/html; charset=utf-8")
    url = netserver.url("/post.html")
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text(f"sources:\n  ebb:\n    url: {url}\n", encoding="utf-8")
    args = ["pick", "ebb", "--ledger", str(ledger), "--yes", "--allow-private"]
    assert main([*args, "--find", HTML_WORDS, "--id", "silent"]) == 0
    out = capsys.readouterr().out
    assert "Retrieval plan: 1 request to 1 host" in out  # stated before it was sent
    assert len(netserver.requests_to("/post.html")) == 1
    (quote,) = load_ledger(ledger).sources["ebb"].quotes
    page_text = extract(body, "text/html; charset=utf-8", url).text
    assert quote.text.encode("utf-8") == _span_of(page_text, HTML_WORDS).encode("utf-8")
    assert quote.locator == "sec. On Recent Controversial Events"  # the heading above it
    assert "1 of 1 citations checked" in _checked(tmp_path, "@ebb quote:silent", capsys)

    netserver.stop()  # the second pick needs no network: it reads the stored evidence
    assert main([*args, "--find", "member of FSF's Board of Directors", "--id", "board"]) == 0
    out = capsys.readouterr().out
    assert "from stored evidence" in out and "Retrieval plan" not in out
    assert "1 of 1 citations checked" in _checked(tmp_path, "@ebb quote:board", capsys)


# ----------------------------------------------------------------------------- a real terminal


class Terminal:
    """A child process on a real pseudo-terminal, read until the text a step waits for."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, close_fds=True
        )
        os.close(slave)
        self.seen = ""

    def expect(self, text: str, deadline: float = 120.0) -> str:
        """Everything up to ``text`` (the deadline only keeps a broken child from hanging)."""
        waited = 0.0
        while text not in self.seen:
            ready, _, _ = select.select([self.master], [], [], 1.0)
            waited += 1.0
            if not ready:
                assert waited < deadline, f"never saw {text!r} in:\n{self.seen}"
                continue
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                chunk = b""
            assert chunk, f"the child ended before {text!r}:\n{self.seen}"
            self.seen += chunk.decode("utf-8", "replace").replace("\r\n", "\n")  # ONLCR
        upto, _, self.seen = self.seen.partition(text)
        return upto

    def send(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode("utf-8"))

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=120)
        finally:
            if self.proc.poll() is None:  # a failed step left it waiting for input
                self.proc.kill()
                self.proc.wait()
            os.close(self.master)


def test_on_a_terminal_search_widen_narrow_and_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger = _pdf_project(tmp_path)
    argv = [sys.executable, "-m", "citeledger.cli", "pick", "ag", "--ledger", str(ledger), "--yes"]
    term = Terminal(argv, tmp_path)
    try:
        assert "pages" in term.expect("pick> ")
        term.send("/sensor failures")
        shown = term.expect("pick> ")
        assert "\x1b[7msensor failures\x1b[0m" in shown  # the selection, highlighted
        term.send("+")  # widen the end by a word
        term.send("+")
        term.send("-")  # and narrow it again
        term.expect("pick> ")
        term.expect("pick> ")
        shown = term.expect("pick> ")
        assert "\x1b[7msensor failures in\x1b[0m" in shown
        term.send("<")  # widen the start
        shown = term.expect("pick> ")
        assert "\x1b[7mcontrolling sensor failures in\x1b[0m" in shown
        term.send("y")
        assert "picked @ag (p. 1): “controlling sensor failures in”" in term.expect("written")
    finally:
        code = term.close()
    assert code == 0
    (quote,) = load_ledger(ledger).sources["ag"].quotes
    assert quote.text == "controlling sensor failures in"
    assert "1 of 1 citations checked" in _checked(tmp_path, "@ag", capsys)


def test_on_a_terminal_the_whole_sentence_and_quit_writes_nothing(tmp_path: Path) -> None:
    ledger = _pdf_project(tmp_path)
    before = ledger.read_bytes()
    argv = [sys.executable, "-m", "citeledger.cli", "pick", "ag", "--ledger", str(ledger), "--yes"]
    argv += ["--find", "Related decompositions"]
    term = Terminal(argv, tmp_path)
    try:
        term.expect("pick> ")
        term.send("s")
        shown = term.expect("pick> ")
        assert "\x1b[7mRelated decompositions\narise in Gaussian covariance selection" in shown
        term.send("q")
        assert "nothing written" in term.expect("\n", 60) + term.expect("\n", 60)
    finally:
        code = term.close()
    assert code == 1
    assert ledger.read_bytes() == before


def test_a_pick_records_the_history_head_with_its_receipt_in_one_ledger_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The receipt's write already sets ``history_head``: a second locked read, parse and
    validation of the whole ledger (``set_history_head``) would only cost a large ledger."""
    from citeledger import ledger as ledger_mod
    from citeledger.evidence.store import EvidenceReader

    ledger = _pdf_project(tmp_path)
    again: list[str] = []
    real = ledger_mod.set_history_head

    def counted(path: str, head: str, **kw: object) -> bool:
        again.append(head)
        return real(path, head)

    monkeypatch.setattr(ledger_mod, "set_history_head", counted)
    code = main(["pick", "ag", "--find", PDF_WORDS, "--ledger", str(ledger), "--yes"])
    assert code == 0, capsys.readouterr().out
    assert again == []
    led = load_ledger(ledger)
    (quote,) = led.sources["ag"].quotes
    assert quote.latest is not None and quote.latest.history is not None
    assert led.history_head == quote.latest.history  # the newest entry, recorded all the same
    assert EvidenceReader(led.evidence_dir).history().index(led.history_head) is not None


def test_a_pick_from_stored_evidence_is_held_to_verifys_extraction_limits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """pick ties the stored text to the stored body as the build does: a derivation remembered
    from an earlier confirmation, else the extractor run again in verify's limited worker — so
    a page that takes seconds of CPU to extract is stopped at the configured limit (one line,
    nothing written) instead of running unbounded in pick's own process."""
    from hostile_inputs import nested_divs

    words = "Some deep words of the page are here."
    (tmp_path / "deep.html").write_bytes(nested_divs(1_000_000, words))  # seconds of CPU
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text("sources:\n  deep:\n    file: deep.html\n", encoding="utf-8")
    (tmp_path / "tight.yaml").write_text("extract_cpu_seconds: 1\n", encoding="utf-8")
    assert main(["quote", "deep", words, "--ledger", str(ledger)]) == 0
    assert main(["verify", "--ledger", str(ledger), "--yes"]) == 0  # the default limits
    verified = ledger.read_text(encoding="utf-8")
    args = ["pick", "deep", "--find", "deep words", "--ledger", str(ledger), "--yes"]
    tight = [*args, "--config", str(tmp_path / "tight.yaml"), "--id", "again"]
    capsys.readouterr()

    monkeypatch.setenv("CITELEDGER_CACHE_DIR", str(tmp_path / "fresh-cache"))
    assert main(tight) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "extraction exceeded 1 s of CPU" in err
    assert ledger.read_text(encoding="utf-8") == verified  # nothing written

    monkeypatch.undo()  # the cache verify filled: the derivation is known, nothing re-extracted
    assert main(tight) == 0, capsys.readouterr()
    assert "from stored evidence" in capsys.readouterr().out
    ids = [q.id for q in load_ledger(ledger).sources["deep"].quotes]
    assert ids == [None, "again"]
