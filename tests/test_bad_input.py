"""Every bad input is one line naming the file, what is wrong and the fix; exit 2, no traceback.

Each case runs the real command line in-process (``citeledger.cli.main``) on real files: a
binary settings or cases file, a bibliography that is not one, a FIFO where a file belongs, a
threshold outside 0..1, a missing CA bundle, a full disk and a read-only folder (the error
injected at the write, since the tests may run as root, for whom no folder is read-only).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path

import pytest

import netserver as ns
from citeledger import atomic
from citeledger.cli import main
from citeledger.model import Identifier
from citeledger.retrieve import RetrieveConfig, fetch_all_sync
from netserver import NetServer, Reply

# the shared fixtures of tests/netserver.py, used by name; nothing may leave loopback
loopback_only, netserver = ns.loopback_only, ns.netserver
pytestmark = pytest.mark.usefixtures("loopback_only")
LOOPBACK_OK = RetrieveConfig(allow_private=True, max_attempts=1)

LEDGER = "sources:\n  a:\n    file: page.txt\n    quotes:\n      - text: the quoted words\n"
BINARY = bytes(range(256)) * 4


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    err = capsys.readouterr().err
    return code, err


def one_line(err: str, file: str, *words: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert lines[0].startswith("citeledger: error: "), lines[0]
    assert f"{file}:" in lines[0].split(" ")[2], lines[0]  # the file comes first
    assert " — " in lines[0], f"no fix in: {lines[0]}"
    for word in words:
        assert word in lines[0], lines[0]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "citeledger.yaml").write_text(LEDGER, "utf-8")
    (tmp_path / "page.txt").write_text("Here are the quoted words, in a page.\n", "utf-8")
    (tmp_path / "doc.md").write_text("A claim about the words here [@a].\n", "utf-8")
    (tmp_path / "bin.dat").write_bytes(BINARY)
    return tmp_path


def test_a_binary_config_file(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = run(capsys, "verify", "--config", "bin.dat", "--dry-run")
    assert code == 2
    one_line(err, "bin.dat", "retrieval settings", "binary", "--config")


def test_a_config_file_that_is_not_a_mapping(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "c.yaml").write_text("- a\n- b\n", "utf-8")
    code, err = run(capsys, "verify", "--config", "c.yaml", "--dry-run")
    assert code == 2
    one_line(err, "c.yaml", "must be a mapping")


def test_a_missing_ca_bundle(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "c.yaml").write_text("ca_bundle: corporate.pem\n", "utf-8")
    code, err = run(capsys, "verify", "--config", "c.yaml", "--dry-run")
    assert code == 2
    one_line(err, "corporate.pem", "ca_bundle", "no such file", "PEM")
    (project / "corporate.pem").write_text("not a certificate\n", "utf-8")
    code, err = run(capsys, "verify", "--config", "c.yaml", "--dry-run")
    assert code == 2
    one_line(err, "corporate.pem", "not a PEM file")


def test_a_binary_batch_file(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = run(capsys, "locate", "--batch", "bin.dat")
    assert code == 2
    one_line(err, "bin.dat", "cases file", "binary", "JSON Lines")


@pytest.mark.parametrize(
    ("name", "content", "says"),
    [
        ("refs.json", b'{"id": "a", "DOI": "10.1234/x"}', "expected a list of items"),
        ("refs.json", b'["a", "b"]', "expected a list of items"),
        ("refs.json", b"[{", "not valid JSON"),
        ("refs.json", BINARY, "binary"),
        ("refs.bib", BINARY, "binary"),
        ("refs.bib", b"just some words, no entries\n", "has no entries"),
    ],
)
def test_import_of_a_non_bibliography(
    project: Path, capsys: pytest.CaptureFixture[str], name: str, content: bytes, says: str
) -> None:
    (project / name).write_bytes(content)
    before = (project / "citeledger.yaml").read_bytes()
    code, err = run(capsys, "import", name)
    assert code == 2
    one_line(err, name, says)
    assert (project / "citeledger.yaml").read_bytes() == before


@pytest.mark.parametrize("value", ["5", "-1", "1.5", "nan"])
def test_min_coverage_outside_zero_to_one(
    project: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    code = main(["check", "doc.md", f"--min-coverage={value}", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2
    assert "--min-coverage" in err and "between 0 and 1" in err and "e.g." in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "f.fifo"],
        ["import", "f.fifo"],
        ["locate", "--batch", "f.fifo"],
        ["verify", "--ledger", "f.fifo", "--dry-run"],
        ["verify", "--config", "f.fifo", "--dry-run"],
        ["withdraw", "a", "--reason", "r", "--ledger", "f.fifo"],
    ],
)
def test_a_fifo_is_reported_as_what_it_is(
    project: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    """Opening a FIFO for reading would wait forever for a writer; it is never opened."""
    os.mkfifo(project / "f.fifo")
    code, err = run(capsys, *argv)
    assert code == 2
    one_line(err, "f.fifo", "named pipe (FIFO)", "not a file")


def _failing(err_no: int, spare: str | None = None) -> Callable[..., None]:
    """An fsync that fails, except for the file named ``spare`` (Linux: by /proc/self/fd)."""
    real = os.fsync

    def fsync(fd: int) -> None:
        if spare is not None and os.readlink(f"/proc/self/fd/{fd}").endswith(spare):
            return real(fd)
        raise OSError(err_no, os.strerror(err_no))

    return fsync


@pytest.mark.parametrize(
    ("err_no", "fix"),
    [(errno.ENOSPC, "free some space"), (errno.EROFS, "writable"), (errno.EACCES, "writable")],
)
def test_a_full_disk_or_read_only_folder_when_writing_the_ledger(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    err_no: int,
    fix: str,
) -> None:
    before = (project / "citeledger.yaml").read_bytes()
    # the withdrawal is logged before the ledger is written: this is the ledger's failure
    monkeypatch.setattr("citeledger.atomic.os.fsync", _failing(err_no, spare="history.jsonl"))
    code, err = run(capsys, "withdraw", "a", "--reason", "the page moved")
    assert code == 2
    one_line(err, "citeledger.yaml", "cannot write the ledger", fix, "unchanged")
    assert (project / "citeledger.yaml").read_bytes() == before
    assert not [p for p in project.iterdir() if p.name.endswith(".citeledger-tmp")]


@pytest.mark.parametrize(
    ("err_no", "fix"), [(errno.ENOSPC, "free some space"), (errno.EROFS, "writable")]
)
def test_a_full_disk_or_read_only_folder_when_writing_evidence(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    err_no: int,
    fix: str,
) -> None:
    """verify of a local file (no network): the evidence write fails; one line, no temp left."""
    before = (project / "citeledger.yaml").read_bytes()
    monkeypatch.setattr(atomic.os, "fsync", _failing(err_no))
    code, err = run(capsys, "verify", "--yes")
    assert code == 2
    lines = [line for line in err.strip().splitlines() if line.startswith("citeledger: error")]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert "/.citeledger/" in lines[0] and fix in lines[0], lines[0]  # a file of the store
    assert ".tmp-" not in lines[0]  # the file that was being written, not the temp file
    assert (project / "citeledger.yaml").read_bytes() == before
    assert not list((project / ".citeledger").rglob(".tmp-*"))


# --- hostile servers (a real server on 127.0.0.1) -----------------------------------------------


@pytest.mark.parametrize(
    "location", ["javascript:alert(document.cookie)", "data:text/html;base64,PGgxPmhpPC9oMT4="]
)
def test_a_redirect_to_a_non_web_scheme_is_refused_in_words(
    netserver: NetServer, location: str
) -> None:
    netserver.redirect("/r", location)
    [out] = fetch_all_sync([Identifier("url", netserver.url("/r"))], LOOPBACK_OK)
    scheme = location.split(":")[0]
    assert out.kind == "redirect"
    assert out.reason is not None
    assert out.reason.startswith(f"redirect to an unsupported scheme ({scheme}:) from ")
    assert "cite the page's own http(s) address" in out.reason
    assert "alert" not in out.reason and "base64" not in out.reason  # the server's text stays out


def test_oversized_response_headers_are_refused_in_words(netserver: NetServer) -> None:
    netserver.route("/h", Reply(200, b"hi", [(f"X-H{i}", "b" * 100) for i in range(2000)], None))
    [out] = fetch_all_sync([Identifier("url", netserver.url("/h"))], LOOPBACK_OK)
    assert out.kind == "too-large"
    assert out.reason is not None and "response headers too large" in out.reason
    assert "try again later or cite another copy" in out.reason
