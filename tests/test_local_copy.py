"""``local_copy:``: a source cited by its DOI, checked against the writer's own copy of the work.

The DOI stays the identifier (what the citation names, what the judgement compares); the text
comes from the file, and nothing is sent for that source — not the text request, not the
registry's metadata. The receipt, the judgement and ``check --json`` say where the text came
from.
"""

from __future__ import annotations

import json
import socket
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from citeledger.cli import main
from citeledger.errors import LedgerError
from citeledger.ledger import load_ledger

QUOTE = "The quick brown fox jumps over the lazy dog."
TEXT = f"A first line of the paper.\n{QUOTE}\nAnd a last one.\n"


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


@pytest.fixture
def silent_port() -> Iterator[tuple[int, socket.socket]]:
    """A loopback port that listens and never answers: any request would wait in its queue."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.setblocking(False)
    try:
        yield sock.getsockname()[1], sock
    finally:
        sock.close()


def _nothing_arrived(sock: socket.socket) -> bool:
    try:
        conn, _ = sock.accept()
    except BlockingIOError:
        return True
    conn.close()
    return False


def _config(tmp_path: Path, port: int) -> Path:
    """Retrieval settings whose DOI resolver is the silent loopback port."""
    return _write(
        tmp_path / "retrieve.yaml",
        f"""\
        doi_base: "http://127.0.0.1:{port}/"
        allow_private: true
        read_timeout: 2
        deadline: 5
        """,
    )


# --- the ledger field -------------------------------------------------------------------------


def test_local_copy_is_read_and_a_missing_file_is_not_an_error_when_loading(
    tmp_path: Path,
) -> None:
    path = _write(
        tmp_path / "citeledger.yaml",
        """\
        sources:
          smith2020:
            doi: 10.1234/x
            local_copy: papers/smith2020.pdf   # not there yet: the build still reads the ledger
        """,
    )
    source = load_ledger(path).sources["smith2020"]
    assert str(source.identifier) == "doi:10.1234/x"
    assert (source.local_copy, source.local_copy_line) == ("papers/smith2020.pdf", 4)


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("/etc/passwd", "the local_copy of source 'a' is an absolute path"),
        ("../outside.pdf", "is outside the ledger's folder"),
        ("https://example.org/a.pdf", "the local_copy of source 'a' is a URL"),
        ("''", "the local_copy of source 'a' must be a path"),
        ("[a.pdf]", "the local_copy of source 'a' must be a path"),
    ],
)
def test_a_bad_local_copy_is_one_line_naming_its_line(
    tmp_path: Path, value: str, said: str
) -> None:
    path = _write(
        tmp_path / "citeledger.yaml",
        f"sources:\n  a:\n    doi: 10.1234/x\n    local_copy: {value}\n",
    )
    with pytest.raises(LedgerError) as err:
        load_ledger(path)
    line = err.value.one_line()
    assert said in line and f"{path}:4:" in line and "\n" not in line and err.value.fix


def test_a_file_source_takes_no_local_copy(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "citeledger.yaml",
        "sources:\n  a:\n    file: a.txt\n    local_copy: b.txt\n",
    )
    with pytest.raises(LedgerError, match="its identifier is already a file"):
        load_ledger(path)


def test_local_copy_outside_is_allowed_with_allow_files_outside(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "proj" / "citeledger.yaml",
        "allow_files_outside: true\nsources:\n  a:\n    doi: 10.1234/x\n    local_copy: ../a.pdf\n",
    )
    assert load_ledger(path).sources["a"].local_copy == "../a.pdf"


# --- verify reads the local copy --------------------------------------------------------------


def _text_ledger(tmp_path: Path) -> Path:
    _write(tmp_path / "papers" / "smith2020.txt", TEXT)
    return _write(
        tmp_path / "citeledger.yaml",
        f"""\
        # my sources
        sources:
          smith2020:
            doi: 10.1234/smith.2020   # the identifier stays the DOI
            title: A paper
            local_copy: papers/smith2020.txt
            quotes:
              - text: "{QUOTE}"
        """,
    )


def test_verify_reads_the_local_copy_and_sends_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    silent_port: tuple[int, socket.socket],
    loopback_only: object,
) -> None:
    port, sock = silent_port
    monkeypatch.chdir(tmp_path)
    ledger = _text_ledger(tmp_path)
    config = _config(tmp_path, port)
    assert main(["verify", "--yes", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "Read from local copy, no network: doi:10.1234/smith.2020 ← papers/smith2020.txt" in out
    assert "0 requests" in out and "GET " not in out
    assert _nothing_arrived(sock)
    assert "# the identifier stays the DOI" in ledger.read_text()
    (quote,) = load_ledger(ledger).sources["smith2020"].quotes
    r = quote.latest
    assert r is not None and r.outcome == "found"
    assert (r.identifier, r.local_copy) == ("doi:10.1234/smith.2020", "papers/smith2020.txt")
    assert r.url == r.requested_url == "file:papers/smith2020.txt"
    assert r.metadata is None  # the registry was not asked either
    assert str(tmp_path) not in ledger.read_text()  # no machine path in the shared ledger

    _write(tmp_path / "doc.md", "A claim [@smith2020].\n")
    assert main(["check", "doc.md", "--json", "report.json"]) == 0
    (cited,) = json.loads((tmp_path / "report.json").read_text())["citations"]
    assert cited["state"] == "checked"
    assert cited["identifier"] == "doi:10.1234/smith.2020"
    assert cited["local_copy"] == "papers/smith2020.txt"
    assert (
        "Checked against the writer's local copy of doi:10.1234/smith.2020" in cited["reasons"][0]
    )


def test_a_missing_local_copy_is_one_line_at_verify_and_nothing_is_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    ledger = _text_ledger(tmp_path)
    (tmp_path / "papers" / "smith2020.txt").unlink()
    before = ledger.read_text()
    assert main(["verify", "--yes"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "citeledger.yaml:6:" in err and "papers/smith2020.txt" in err and "does not exist" in err
    assert "remove the local_copy: line" in err
    assert ledger.read_text() == before


def test_a_receipt_whose_local_copy_was_edited_is_not_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    ledger = _text_ledger(tmp_path)
    assert main(["verify", "--yes"]) == 0
    text = ledger.read_text()
    assert "local_copy: papers/smith2020.txt\n" in text.split("receipts:")[1]
    ledger.write_text(
        text.replace(
            "            local_copy: papers/smith2020.txt", "            local_copy: other.txt"
        )
    )
    _write(tmp_path / "doc.md", "A claim [@smith2020].\n")
    assert main(["check", "doc.md", "--json", "report.json", "--warn-only"]) == 0
    (cited,) = json.loads((tmp_path / "report.json").read_text())["citations"]
    assert cited["state"] == "tampered"
