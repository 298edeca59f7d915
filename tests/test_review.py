"""``citeledger review``: the writer reads each checked claim against its quote and answers.

What a writer relies on: on a terminal each checked claim is put before them with the quote in
its source context and the snapshot; "supports" records a review in the ledger (their comments
kept), "does not support" records a dispute with their reason; a review never makes or keeps
anything checked; an edited claim shows its review as out of date; ``check`` counts reviews and
``--min-reviewed`` fails below the share; the audit row shows the review. Driven through a real
pseudo-terminal, with the real pandoc, a real verify of file sources and a corpus PDF.
"""

from __future__ import annotations

import json
import os
import pty
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citeledger.cli import main
from citeledger.errors import CiteledgerError
from citeledger.judge import Judge
from citeledger.ledger import load_ledger
from citeledger.model import CitationRef, State
from citeledger.review.records import make_review, record_review, reviewer_name
from citeledger.review.status import claim_sha256
from conftest import corpus_file
from test_snapshot import _pdf_quote

NOTE = "Appeals must be lodged within sixty days of the decision."
PAPER_CLAIM = "Label embeddings help classify short texts"
NOTES_CLAIM = "Appeals take sixty days"
REASON = "The page says this holds only for residents."


def _project(folder: Path) -> tuple[Path, Path, str]:
    """A verified project: a corpus PDF and a small page, cited once each by doc.md."""
    body = corpus_file("pdf", "agarwal11.pdf").read_bytes()
    shutil.copyfile(corpus_file("pdf", "agarwal11.pdf"), folder / "paper.pdf")
    (folder / "notes.html").write_text(
        f"<html><body><p>Some preface.</p><p>{NOTE}</p><p>After that.</p></body></html>",
        encoding="utf-8",
    )
    quote = _pdf_quote(body)
    ledger = folder / "citeledger.yaml"
    ledger.write_text(
        "# the writer's own notes stay\n"
        "sources:\n"
        "  paper:\n"
        "    file: paper.pdf\n"
        "    quotes:\n"
        f'      - text: "{quote}"  # from page 2\n'
        "  notes:\n"
        "    file: notes.html\n"
        "    quotes:\n"
        f'      - text: "{NOTE}"\n',
        encoding="utf-8",
    )
    doc = folder / "doc.md"
    doc.write_text(
        f"[{PAPER_CLAIM}]{{.claim}} [@paper]. {NOTES_CLAIM} [@notes].\n", encoding="utf-8"
    )
    assert main(["verify", "--ledger", str(ledger), "--yes"]) == 0
    return ledger, doc, quote


class Terminal:
    """A child process on a real pseudo-terminal: read until some words appear, type a line."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            args, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env, close_fds=True
        )
        os.close(slave)
        self.seen = ""

    def expect(self, words: str) -> str:
        """Everything read up to and including ``words``; a hang fails instead of waiting on."""
        deadline = time.monotonic() + 120  # a guard against a hung child, not a measurement
        while words not in self.seen:
            left = deadline - time.monotonic()
            assert left > 0, f"never saw {words!r}; the terminal showed:\n{self.seen}"
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:  # the child closed the terminal
                    chunk = b""
                assert chunk, f"the child ended before {words!r}:\n{self.seen}"
                self.seen += chunk.decode("utf-8", "replace").replace("\r\n", "\n")
        upto = self.seen.index(words) + len(words)
        shown, self.seen = self.seen[:upto], self.seen[upto:]
        return shown

    def type(self, line: str) -> None:
        os.write(self.master, line.encode("utf-8") + b"\n")

    def close(self) -> int:
        code = self.proc.wait(timeout=120)
        os.close(self.master)
        return code


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        HOME=str(tmp_path / "home"),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="Ada Writer",
        GIT_AUTHOR_EMAIL="ada@example.org",
        TMPDIR=str(tmp_path / "tmp"),
    )
    (tmp_path / "tmp").mkdir()
    return env


def _review(tmp_path: Path, *extra: str) -> Terminal:
    args = [sys.executable, "-m", "citeledger.cli", "review", "doc.md", *extra]
    return Terminal(args, tmp_path, _env(tmp_path))


def test_the_writer_reviews_each_checked_claim_on_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    ledger, doc, quote = _project(tmp_path)
    before = load_ledger(ledger)
    judge = Judge(before)
    assert judge.judge(CitationRef("paper", claim=PAPER_CLAIM)).state is State.CHECKED
    capsys.readouterr()

    term = _review(tmp_path)
    first = term.expect("[q]uit: ")
    assert "[1/2] @paper" in first and f"Claim:   {PAPER_CLAIM}" in first
    words = " ".join(quote.split())
    assert f">>> {words} <<<" in " ".join(first.split())  # the quote, inside its context
    snapshot = first.split("Snapshot: ", 1)[1].split("\n", 1)[0].strip()
    assert Path(snapshot).read_bytes().startswith(b"\x89PNG")  # the image the receipt names
    term.type("s")
    term.expect("review recorded for @paper")
    second = term.expect("[q]uit: ")
    assert "[2/2] @notes" in second and f"Claim:   {NOTES_CLAIM}." in second
    assert f">>> {NOTE} <<<" in second and "After that." in second
    term.type("d")
    warned = term.expect("Why does it not support the claim? (one sentence): ")
    assert "records @notes as disputed: every citation of it will show so" in warned
    term.type(REASON)
    term.expect("(Enter to leave out): ")
    term.type("")
    assert "1 reviewed, 1 disputed, 0 skipped" in term.expect("skipped")
    assert term.close() == 0
    assert not Path(snapshot).parent.exists()  # the session's images go with it
    assert list((tmp_path / "tmp").iterdir()) == []  # nothing left in the temporary folder

    text = ledger.read_text(encoding="utf-8")
    assert "# the writer's own notes stay" in text and "# from page 2" in text  # nothing lost
    after = load_ledger(ledger)
    [review] = after.sources["paper"].quotes[0].reviews
    assert review.reviewer == "Ada Writer <ada@example.org>"
    assert review.claim_sha256 == claim_sha256(PAPER_CLAIM) and review.claim == PAPER_CLAIM
    disputed = after.sources["notes"].disputed
    assert disputed is not None and disputed.reason == REASON
    # a review changes no receipt and no state: checked stays earned by the retrieval alone
    assert after.sources["paper"].quotes[0].receipts == before.sources["paper"].quotes[0].receipts
    judge = Judge(after)
    assert judge.judge(CitationRef("paper", claim=PAPER_CLAIM)).state is State.CHECKED
    assert judge.judge(CitationRef("notes", claim=NOTES_CLAIM)).state is State.DISPUTED

    assert main(["review", str(doc), "--list"]) == 0
    assert "0 checked citations await review" in capsys.readouterr().out
    main(["check", str(doc), "--json", "-", "--quiet"])
    report = json.loads(capsys.readouterr().out)
    assert [c.get("review") for c in report["citations"]] == ["reviewed", None]
    assert report["reviews"]["reviewed"] == 1 and report["reviews"]["checked"] == 1


def test_skip_and_quit_record_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    ledger, _, _ = _project(tmp_path)
    text = ledger.read_text(encoding="utf-8")
    term = _review(tmp_path, "--as", "Bo Reader")
    first = term.expect("[q]uit: ")
    snapshot = Path(first.split("Snapshot: ", 1)[1].split("\n", 1)[0].strip())
    assert snapshot.read_bytes().startswith(b"\x89PNG")  # openable while the writer answers
    term.type("maybe")  # not an answer: asked again
    term.expect("please answer s, d, k or q")
    term.type("k")
    term.expect("[2/2]")
    term.type("q")
    assert "0 reviewed, 0 disputed, 1 skipped" in term.expect("skipped")
    assert term.close() == 0
    assert not snapshot.parent.exists()  # quitting removes them too
    assert ledger.read_text(encoding="utf-8") == text


def _reviewed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The project's document, with the paper's claim reviewed (as ``review`` records it)."""
    monkeypatch.chdir(tmp_path)
    ledger, doc, quote = _project(tmp_path)
    review = make_review(PAPER_CLAIM, quote, "Ada Writer", "2026-12-01")
    record_review(str(ledger), "paper", 0, quote, review)
    return doc


def test_an_edited_claim_shows_its_review_out_of_date_and_check_gates_on_reviews(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = _reviewed(tmp_path, monkeypatch)
    capsys.readouterr()
    assert main(["check", str(doc), "--min-reviewed", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "reviews: 1 of 2 checked citations reviewed (1 not reviewed" in out
    assert main(["check", str(doc), "--min-reviewed", "0.75"]) == 1
    assert "50% of checked citations reviewed, below --min-reviewed 75%" in capsys.readouterr().err

    doc.write_text(doc.read_text(encoding="utf-8").replace("help", "always help"), "utf-8")
    assert main(["check", str(doc), "--min-reviewed", "0.5"]) == 1
    assert "1 review out of date" in capsys.readouterr().out
    assert main(["review", str(doc), "--list"]) == 0
    listed = capsys.readouterr().out
    assert "@paper: review out of date — “Label embeddings always help" in listed
    assert "@notes: not reviewed" in listed and "2 checked citations await review" in listed
    # the citation itself is as checked as before: a review is beside the state, not in it
    assert main(["check", str(doc), "--quiet"]) == 0


def test_a_review_of_one_claim_is_not_another_claims_of_the_same_quote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = _reviewed(tmp_path, monkeypatch)
    doc.write_text(doc.read_text(encoding="utf-8") + "\nA second claim on it [@paper].\n", "utf-8")
    capsys.readouterr()
    main(["check", str(doc), "--json", "-", "--quiet"])
    report = json.loads(capsys.readouterr().out)
    assert [c["review"] for c in report["citations"]] == [
        "reviewed",
        "not-reviewed",
        "not-reviewed",
    ]
    assert main(["review", str(doc), "--list"]) == 0
    assert "@paper: not reviewed — “A second claim on it.”" in capsys.readouterr().out


def test_the_audit_row_shows_the_review(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pypandoc

    doc = _reviewed(tmp_path, monkeypatch)
    filt = Path(sys.executable).parent / "pandoc-citeledger"

    def build() -> str:
        out = tmp_path / "doc.html"
        subprocess.run(
            [
                pypandoc.get_pandoc_path(),
                str(doc),
                "--filter",
                str(filt),
                "-M",
                "citeledger.audit=true",
                "-s",
                "-o",
                str(out),
            ],
            check=True,
            cwd=tmp_path,
        )
        return " ".join(out.read_text(encoding="utf-8").split())  # pandoc wraps lines

    html = build()
    assert 'class="citeledger-review"' in html
    assert "Reviewed by Ada Writer on 2026-12-01: the quote supports the claim" in html
    assert html.count('class="citeledger-review"') == 1  # the unreviewed row says nothing

    doc.write_text(doc.read_text(encoding="utf-8").replace("help", "always help"), "utf-8")
    html = build()
    assert "Review out of date: the claim or the quote changed after Ada Writer" in html
    assert f"(reviewed: “{PAPER_CLAIM}”)" in html


def test_off_a_terminal_review_asks_nothing_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    ledger, doc, _ = _project(tmp_path)
    text = ledger.read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["review", str(doc)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not a terminal" in err and "review --list" in err
    assert ledger.read_text(encoding="utf-8") == text


def test_a_reviewer_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "EMAIL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.chdir(tmp_path)
    assert reviewer_name("  Bo   Reader ") == "Bo Reader"
    with pytest.raises(CiteledgerError, match="--as"):
        reviewer_name(None)
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Ada Writer")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "ada@example.org")
    assert reviewer_name(None) == "Ada Writer <ada@example.org>"


def test_a_hand_written_review_proves_nothing_and_a_broken_one_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger = tmp_path / "citeledger.yaml"
    review = (
        "        reviews:\n"
        "          - date: 2026-12-01\n"
        "            reviewer: Someone\n"
        f"            claim_sha256: {claim_sha256(NOTES_CLAIM)}\n"
        f"            quote_sha256: {'0' * 64}\n"
    )
    ledger.write_text(
        f'sources:\n  notes:\n    url: https://example.org/n\n    quotes:\n      - text: "{NOTE}"\n'
        + review,
        encoding="utf-8",
    )
    judged = Judge(load_ledger(ledger)).judge(CitationRef("notes", claim=NOTES_CLAIM))
    assert judged.state is State.UNCHECKED  # a review is no check
    ledger.write_text(
        ledger.read_text(encoding="utf-8").replace("            reviewer: Someone\n", "")
    )
    doc = tmp_path / "doc.md"
    doc.write_text(f"{NOTES_CLAIM} [@notes].\n", encoding="utf-8")
    assert main(["check", str(doc)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "citeledger.yaml:7" in err and "has no reviewer" in err and "citeledger review" in err
