"""The verify act end to end: a real loopback server, the real CLI, the real ledger on disk.

What a writer relies on: verify states its plan and needs consent, sends identifiers only,
writes receipts that the offline judgement then accepts (or refuses), keeps every finished
receipt when killed, and recheck tells unchanged from moved from changed from gone.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import netserver as ns
from citeledger.cli import main
from citeledger.judge import Judge
from citeledger.ledger import load_ledger
from citeledger.model import CitationRef, State
from conftest import CORPUS

REPO = Path(__file__).resolve().parent.parent
MANUAL = (REPO / "examples/standing-case/publisher/claims-manual.html").read_bytes()
QUOTE = (
    "An appeal against a declined subsidence claim must be received within 60 days of the date "
    "of the decision letter."
)


def _ledger(tmp_path: Path, sources: str) -> Path:
    path = tmp_path / "citeledger.yaml"
    path.write_text("# my sources\nsources:\n" + sources, encoding="utf-8")
    return path


def _state(ledger: Path, key: str) -> State:
    return Judge(load_ledger(ledger)).judge(CitationRef(key)).state


def _verify(ledger: Path, *extra: str) -> int:
    return main(["verify", "--ledger", str(ledger), "--yes", "--allow-private", *extra])


def test_verify_checks_refuses_and_sends_only_identifiers(
    tmp_path: Path, netserver: ns.NetServer, capsys: pytest.CaptureFixture[str]
) -> None:
    url = netserver.url("/manual.html")
    netserver.static("/manual.html", MANUAL)
    missing = netserver.url("/gone.html")
    netserver.status("/gone.html", 404)
    ledger = _ledger(
        tmp_path,
        f"""  good:  # the real quote
    url: {url}
    quotes:
      - text: "{QUOTE}"
  misquoted:
    url: {url}
    quotes:
      - text: "{QUOTE.replace("60", "90")}"
  notnegated:
    url: {url}
    quotes:
      - text: "{QUOTE.replace("must be", "must not be")}"
  missing:
    url: {missing}
    quotes:
      - text: "{QUOTE}"
""",
    )
    assert _verify(ledger) == 1  # a quote not found, a source not retrieved: exit 1
    out = capsys.readouterr().out
    assert "Retrieval plan" in out and "Never sent" in out
    assert _state(ledger, "good") is State.CHECKED
    assert _state(ledger, "misquoted") is State.QUOTE_NOT_FOUND
    assert _state(ledger, "notnegated") is State.QUOTE_NOT_FOUND
    assert _state(ledger, "missing") is State.UNRETRIEVABLE
    reasons = Judge(load_ledger(ledger)).judge(CitationRef("misquoted")).reasons
    assert any("60" in r and "90" in r for r in reasons)
    # One request per identifier, and no request carries the writer's words.
    assert len(netserver.requests_to("/manual.html")) == 1
    for seen in netserver.requests:
        assert b"subsidence" not in seen.raw and b"appeal" not in seen.raw
    text = ledger.read_text(encoding="utf-8")
    assert text.startswith("# my sources\n") and "# the real quote" in text


def test_verify_without_consent_sends_nothing(
    tmp_path: Path, netserver: ns.NetServer, capsys: pytest.CaptureFixture[str]
) -> None:
    url = netserver.url("/manual.html")
    netserver.static("/manual.html", MANUAL)
    ledger = _ledger(tmp_path, f"  good:\n    url: {url}\n    quotes:\n      - text: x y z w\n")
    before = ledger.read_bytes()
    # pytest's stdin is not a terminal: without --yes nothing may be sent.
    assert main(["verify", "--ledger", str(ledger), "--allow-private"]) == 2
    assert "--yes" in capsys.readouterr().err
    assert main(["verify", "--ledger", str(ledger), "--dry-run", "--allow-private"]) == 0
    assert netserver.requests == []
    assert ledger.read_bytes() == before


def test_loopback_is_refused_without_allow_private(
    tmp_path: Path, netserver: ns.NetServer, capsys: pytest.CaptureFixture[str]
) -> None:
    url = netserver.url("/manual.html")
    netserver.static("/manual.html", MANUAL)
    ledger = _ledger(tmp_path, f"  good:\n    url: {url}\n    quotes:\n      - text: '{QUOTE}'\n")
    assert (
        main(["verify", "--ledger", str(ledger), "--yes"]) == 1
    )  # refused before sending: nothing was found
    assert netserver.requests == []
    out = capsys.readouterr().out
    assert "NOT SENT" in out and "loopback" in out
    assert _state(ledger, "good") is State.UNCHECKED  # nothing was learnt: no receipt
    # A refusal never overwrites a real check.
    assert _verify(ledger) == 0
    assert _state(ledger, "good") is State.CHECKED
    assert (
        main(["verify", "--ledger", str(ledger), "--yes"]) == 1
    )  # refused again: this run found nothing
    assert _state(ledger, "good") is State.CHECKED
    assert len(load_ledger(ledger).sources["good"].quotes[0].receipts) == 1


def test_recheck_branches(tmp_path: Path, netserver: ns.NetServer) -> None:
    other = b"<p>Another sentence that stands first in the new version of the page.</p>"
    doc = netserver.document("/m.html", MANUAL)
    url = netserver.url("/m.html")
    ledger = _ledger(tmp_path, f"  m:\n    url: {url}\n    quotes:\n      - text: '{QUOTE}'\n")
    assert _verify(ledger) == 0
    first = load_ledger(ledger).sources["m"].quotes[0].latest
    assert first is not None and first.outcome == "found"

    def recheck() -> None:
        assert main(["recheck", "--ledger", str(ledger), "--yes", "--allow-private"]) == 0

    recheck()  # unchanged: 304, nothing appended
    assert len(load_ledger(ledger).sources["m"].quotes[0].receipts) == 1
    assert netserver.requests_to("/m.html")[-1].header("if-none-match") == doc.etag

    doc.update(MANUAL.replace(b"<h1>", other + b"<h1>"))  # moved
    recheck()
    moved = load_ledger(ledger).sources["m"].quotes[0].latest
    assert moved is not None and moved.outcome == "found"
    assert moved.char_start != first.char_start
    assert _state(ledger, "m") is State.CHECKED

    doc.update(MANUAL.replace(b"60 days", b"45 days"))  # changed
    recheck()
    assert load_ledger(ledger).sources["m"].quotes[0].latest.outcome == "changed"  # type: ignore[union-attr]
    verdict = Judge(load_ledger(ledger)).judge(CitationRef("m"))
    assert verdict.state is State.SOURCE_CHANGED
    assert any("Last seen" in r for r in verdict.reasons)

    doc.gone = True  # gone
    recheck()
    quote = load_ledger(ledger).sources["m"].quotes[0]
    assert quote.latest is not None and quote.latest.outcome == "gone"
    assert _state(ledger, "m") is State.SOURCE_CHANGED
    # History is kept: found, found (moved), changed, gone.
    assert [r.outcome for r in quote.receipts] == ["found", "found", "changed", "gone"]


def test_killed_mid_run_keeps_finished_receipts(tmp_path: Path, netserver: ns.NetServer) -> None:
    netserver.static("/fast.html", MANUAL)
    netserver.delay("/slow.html", 30.0, MANUAL)
    ledger = _ledger(
        tmp_path,
        f"""  fast:
    url: {netserver.url("/fast.html")}
    quotes:
      - text: "{QUOTE}"
  slow:
    url: {netserver.url("/slow.html")}
    quotes:
      - text: "{QUOTE}"
""",
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "citeledger.cli",
            "verify",
            "--ledger",
            str(ledger),
            "--yes",
            "--allow-private",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    deadline = time.monotonic() + 20
    try:
        while time.monotonic() < deadline:
            if "receipts:" in ledger.read_text(encoding="utf-8"):
                break
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=10)
    led = load_ledger(ledger)  # valid
    assert led.sources["fast"].quotes[0].latest is not None
    assert led.sources["slow"].quotes[0].latest is None
    assert _state(ledger, "fast") is State.CHECKED
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".") and "tmp" in p.name]


def test_two_runs_at_once_are_serialised(tmp_path: Path, netserver: ns.NetServer) -> None:
    netserver.delay("/slow.html", 1.0, MANUAL)
    ledger = _ledger(
        tmp_path,
        f"  m:\n    url: {netserver.url('/slow.html')}\n    quotes:\n      - text: '{QUOTE}'\n",
    )
    cmd = [
        sys.executable,
        "-m",
        "citeledger.cli",
        "verify",
        "--ledger",
        str(ledger),
        "--yes",
        "--allow-private",
    ]
    first = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.4)
    second = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out1, err1 = first.communicate(timeout=60)
    out2, err2 = second.communicate(timeout=60)
    assert first.returncode == 0 and second.returncode == 0, err1 + err2
    assert "waits" in out1 + out2
    receipts = load_ledger(ledger).sources["m"].quotes[0].receipts
    assert [r.outcome for r in receipts] == ["found", "found"]
    assert _state(ledger, "m") is State.CHECKED


LOGIN = b"""<html><head><title>Sign in to continue</title></head><body><h1>Sign in</h1>
<form><input type="password" name="pw"></form><p>Subscribe to continue reading.</p></body></html>"""


def test_hostile_network_ends_in_precise_unretrievable_states(
    tmp_path: Path, netserver: ns.NetServer
) -> None:
    """Each fault, through the real CLI and ledger, becomes a breakdown with its reason; the
    receipts of the sources that worked are written all the same."""
    netserver.static("/ok.html", MANUAL)
    netserver.static("/login.html", LOGIN)
    netserver.gzip_bomb("/bomb.html", size=64 * 1024 * 1024)
    netserver.delay("/slow.html", 5.0, MANUAL)
    netserver.flaky("/busy.html", fail=503, times=5, retry_after="0")
    netserver.redirect_loop("/a.html", "/b.html")
    netserver.status("/refused.html", 403)
    cases = {
        "ok": ("/ok.html", None),
        "login": ("/login.html", "no text of the work"),
        "bomb": ("/bomb.html", "too large when decompressed"),
        "slow": ("/slow.html", "timed out"),
        "busy": ("/busy.html", "unavailable (HTTP 503)"),
        "loop": ("/a.html", "redirect loop"),
        "refused": ("/refused.html", "refused (HTTP 403)"),
    }
    ledger = _ledger(
        tmp_path,
        "".join(
            f"  {key}:\n    url: {netserver.url(path)}\n    quotes:\n      - text: '{QUOTE}'\n"
            for key, (path, _) in cases.items()
        ),
    )
    settings = tmp_path / "settings.yaml"
    settings.write_text(
        "read_timeout: 1\nmax_decompressed_bytes: 8000000\nmax_attempts: 2\nbackoff_base: 0\n",
        encoding="utf-8",
    )
    assert _verify(ledger, "--config", str(settings)) == 1  # every one unretrievable
    judge = Judge(load_ledger(ledger))
    for key, (_, reason) in cases.items():
        verdict = judge.judge(CitationRef(key))
        if reason is None:
            assert verdict.state is State.CHECKED
        else:
            assert verdict.state is State.UNRETRIEVABLE, (key, verdict)
            assert any(reason in r for r in verdict.reasons), (key, verdict.reasons)
    # The login page was stored as evidence but never searched for the quote.
    login = load_ledger(ledger).sources["login"].quotes[0].latest
    assert login is not None and login.evidence and login.char_start is None


def test_deleting_a_later_receipt_by_hand_does_not_bring_back_checked(
    tmp_path: Path, netserver: ns.NetServer
) -> None:
    doc = netserver.document("/m.html", MANUAL)
    ledger = _ledger(
        tmp_path,
        f"  m:\n    url: {netserver.url('/m.html')}\n    quotes:\n      - text: '{QUOTE}'\n",
    )
    good = ledger.read_text(encoding="utf-8")
    assert _verify(ledger) == 0
    verified = ledger.read_text(encoding="utf-8")
    doc.update(MANUAL.replace(b"60 days", b"45 days"))
    assert main(["recheck", "--ledger", str(ledger), "--yes", "--allow-private"]) == 0
    assert _state(ledger, "m") is State.SOURCE_CHANGED
    ledger.write_text(verified, encoding="utf-8")  # the writer deletes the `changed` receipt
    verdict = Judge(load_ledger(ledger)).judge(CitationRef("m"))
    assert verdict.state is State.STALE
    assert "receipt was removed" in verdict.reasons[0]
    assert good != verified


PDF = CORPUS / "pdf" / "bunescu-acl07.pdf"
PAPER_QUOTE = (
    "We present experimental results demonstrating that our approach is able to accurately "
    "extract relations from the web by learning from such weak supervision."
)


def _publisher(server: ns.NetServer, doi: str, head: str) -> None:
    """doi.org and a publisher on the loopback server: CSL-JSON to the registry, a landing page."""

    def resolver(req: ns.Seen) -> ns.Reply:
        if "citationstyles" in (req.header("accept") or ""):
            body = b'{"type": "paper-conference", "title": "Learning to Extract Relations"}'
            return ns.Reply(body=body, content_type="application/vnd.citationstyles.csl+json")
        return ns.Reply(302, b"", [("Location", "/article/" + req.path[len("/doi/") :])], None)

    server.route("/doi/", resolver, prefix=True)
    page = f"<html><head><title>Paper</title>{head}</head><body><p>Abstract only.</p></body></html>"
    server.static(f"/article/{doi}", page.encode())


def test_a_doi_is_checked_against_the_full_text_its_landing_page_links(
    tmp_path: Path, netserver: ns.NetServer
) -> None:
    if not PDF.is_file():
        pytest.skip("../shared/corpus is not beside the repository")
    netserver.static("/files/paper.pdf", PDF.read_bytes(), content_type="application/pdf")
    pdf_url = netserver.url("/files/paper.pdf")
    _publisher(netserver, "10.5555/with.pdf", f'<meta name="citation_pdf_url" content="{pdf_url}">')
    _publisher_no_link = "10.5555/no.link"
    netserver.static(
        f"/article/{_publisher_no_link}",
        b"<html><head><title>P</title></head><body>x</body></html>",
    )
    ledger = _ledger(
        tmp_path,
        f"""  paper:
    doi: 10.5555/with.pdf
    title: Learning to Extract Relations
    quotes:
      - text: "{PAPER_QUOTE}"
  abstract-only:
    doi: {_publisher_no_link}
    title: Learning to Extract Relations
    quotes:
      - text: "{PAPER_QUOTE}"
""",
    )
    settings = tmp_path / "settings.yaml"
    settings.write_text(f"doi_base: {netserver.url('/doi/')}\n", encoding="utf-8")
    assert _verify(ledger, "--config", str(settings)) == 1  # the abstract-only one was not found
    judge = Judge(load_ledger(ledger))
    paper = judge.judge(CitationRef("paper"))
    assert paper.state is State.CHECKED, paper.reasons
    assert paper.receipt is not None and paper.receipt.url == pdf_url
    assert paper.receipt.page == 1 and paper.receipt.redirects  # DOI → landing → PDF
    # No link to the text: the quote is not "not found", we never had the work.
    only = judge.judge(CitationRef("abstract-only"))
    assert only.state is State.UNRETRIEVABLE
    assert any("no text of the work" in r for r in only.reasons)


def test_verify_exit_code_says_whether_every_quote_was_found(
    tmp_path: Path, netserver: ns.NetServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """0 only when each quote got a found receipt in this run; --warn-only keeps 0; and the
    store gets a .gitignore so "commit .citeledger/" leaves out its locks and temp files."""
    netserver.static("/manual.html", MANUAL)
    url = netserver.url("/manual.html")
    (tmp_path / "good").mkdir()
    (tmp_path / "bad").mkdir()
    good = _ledger(
        tmp_path / "good", f'  k:\n    url: {url}\n    quotes:\n      - text: "{QUOTE}"\n'
    )
    assert _verify(good) == 0
    ignore = (good.parent / ".citeledger" / ".gitignore").read_text()
    assert "*.lock" in ignore.splitlines() and "pending.jsonl" in ignore.splitlines()
    bad = _ledger(
        tmp_path / "bad",
        f'  k:\n    url: {url}\n    quotes:\n      - text: "within 90 days"\n',
    )
    capsys.readouterr()
    assert _verify(bad) == 1
    assert "1 quote was not found: @k quote 1: not-found" in capsys.readouterr().err
    assert _verify(bad, "--warn-only") == 0


def test_a_timed_batch_still_writing_when_the_fetching_ends_is_reported(
    tmp_path: Path,
    netserver: ns.NetServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A batch written on its timer while the last retrieval ends: the run waits for it, so
    its receipts are in the summary and the exit code (they were written, but the write was
    cancelled under the report when the event loop closed: "no receipt (not retrieved)")."""
    import citeledger.verify.batch as batch_mod

    page = b"Page. The passage that is quoted stands here. " + b"filler " * 200
    for i in range(2):
        netserver.static(f"/p{i}.txt", page + str(i).encode(), content_type="text/plain")
    sources = "".join(
        f"  s{i}:\n    url: {netserver.url(f'/p{i}.txt')}\n    quotes:\n"
        "      - text: The passage that is quoted stands here.\n"
        for i in range(2)
    )
    ledger = _ledger(tmp_path, sources)
    start = batch_mod.ReceiptBatch.__post_init__
    write = batch_mod.ReceiptBatch.write

    def at_once(self: batch_mod.ReceiptBatch) -> None:
        start(self)
        self.seconds = 0.0  # every source's receipts on a timer of their own

    def slowly(self: batch_mod.ReceiptBatch, *args: object) -> object:
        time.sleep(0.5)  # (in the writer process too: it is forked from this one)
        return write(self, *args)

    monkeypatch.setattr(batch_mod.ReceiptBatch, "__post_init__", at_once)
    monkeypatch.setattr(batch_mod.ReceiptBatch, "due", lambda self: False)  # only the timer
    monkeypatch.setattr(batch_mod.ReceiptBatch, "write", slowly)
    capsys.readouterr()
    assert _verify(ledger) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "verify finished: 2 found" in out, out
    assert _state(ledger, "s0") is State.CHECKED and _state(ledger, "s1") is State.CHECKED
