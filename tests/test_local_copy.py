"""``local_copy:``: a source cited by its DOI, checked against the writer's own copy of the work.

The DOI stays the identifier (what the citation names, what the judgement compares); the text
comes from the file, and nothing is sent for that source — not the text request, not the
registry's metadata. The receipt, the judgement and ``check --json`` say where the text came
from.
"""

from __future__ import annotations

import socket
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

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
