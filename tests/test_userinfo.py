"""User-info in a URL (``http://user:pass@host/``) is refused: never sent, never stored.

httpx turns a URL's user-info into an ``Authorization`` header; a hostile redirect could thus
make verify send credentials, and write them into the receipt, the evidence, the built HTML's
links and the evidence pages. A ledger URL with credentials is refused when the ledger loads,
without printing them; a redirect to one ends the retrieval before anything is sent to it.
"""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from helpers import PANDOC, venv_env

import netserver as ns
from citeledger.cli import main
from citeledger.judge import Judge
from citeledger.ledger import load_ledger
from citeledger.model import CitationRef, State

netserver = ns.netserver
PASSWORD = "s3cret-pw"
PAGE = b"<html><body><p>Intro.</p><p>The words the writer quoted.</p></body></html>"


def _everything_written(root: Path) -> bytes:
    """Every file under ``root``, WARC records decompressed: where a credential could hide."""
    out = b""
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if path.name.endswith(".gz"):
            data = gzip.decompress(data)
        out += data
    return out


def test_a_ledger_url_with_credentials_is_refused_without_printing_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text(f"sources:\n  k:\n    url: https://me:{PASSWORD}@example.org/p\n")
    assert main(["verify", "--ledger", str(ledger), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert "contains a user name or password" in err and "example.org" in err
    assert PASSWORD not in err and "me:" not in err


def test_a_redirect_to_credentials_is_never_followed_sent_or_stored(
    tmp_path: Path,
    netserver: ns.NetServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    netserver.static("/target", PAGE)
    target = netserver.url("/target").replace("://", f"://user:{PASSWORD}@", 1)
    netserver.redirect("/start", target)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "citeledger.yaml").write_text(
        f"sources:\n  k:\n    url: {netserver.url('/start')}\n"
        "    quotes:\n      - text: The words the writer quoted.\n"
    )
    assert main(["verify", "--yes", "--allow-private"]) in (0, 1)
    out = capsys.readouterr()
    assert PASSWORD not in out.out + out.err
    assert "user name or password" in out.out
    assert [r.path for r in netserver.requests] == ["/start"]  # the target was never asked
    assert all(r.header("authorization") is None for r in netserver.requests)
    led = load_ledger(str(tmp_path / "citeledger.yaml"))
    assert Judge(led).judge(CitationRef("k")).state is State.UNRETRIEVABLE

    (tmp_path / "doc.md").write_text(
        "---\nciteledger:\n  evidence-pages: evidence\n  audit: true\n---\nA claim [@k].\n"
    )
    subprocess.run(
        [PANDOC, "doc.md", "--filter", "pandoc-citeledger", "-s", "-o", "doc.html"],
        cwd=tmp_path,
        env=venv_env(),
        check=True,
        capture_output=True,
    )
    assert main(["check", "doc.md", "--json", "report.json"]) == 1
    assert main(["evidence", "--out", "pages"]) == 0
    written = _everything_written(tmp_path)
    assert b"/start" in written  # the receipt and the report are there …
    assert PASSWORD.encode() not in written  # … and the credentials nowhere


def test_a_page_served_with_credentials_in_its_links_is_stored_as_served(
    tmp_path: Path, netserver: ns.NetServer
) -> None:
    """Only URLs citeledger itself would request are refused; a page's own text is evidence."""
    page = PAGE.replace(b"Intro.", f"Mail http://a:{PASSWORD}@x.example/ here.".encode())
    netserver.static("/p", page)
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text(
        f"sources:\n  k:\n    url: {netserver.url('/p')}\n"
        "    quotes:\n      - text: The words the writer quoted.\n"
    )
    assert main(["verify", "--ledger", str(ledger), "--yes", "--allow-private"]) == 0
    assert Judge(load_ledger(str(ledger))).judge(CitationRef("k")).state is State.CHECKED
