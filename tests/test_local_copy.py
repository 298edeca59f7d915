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
from citeledger.extract.dispatch import extract
from citeledger.ledger import load_ledger
from conftest import corpus_file

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


# --- import: the .bib's attached file becomes local_copy, end to end --------------------------

CORPUS_QUOTE = "The DMCA also addresses a number of other significant copyright-related issues."


def test_import_an_attached_pdf_quote_verify_offline_and_check(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    silent_port: tuple[int, socket.socket],
    loopback_only: object,
) -> None:
    pdf = corpus_file("pdf", "dmca.pdf")
    (tmp_path / "papers").mkdir()
    (tmp_path / "papers" / "x.pdf").write_bytes(pdf.read_bytes())
    text = extract(pdf.read_bytes(), "application/pdf", None).text
    assert CORPUS_QUOTE in " ".join(text.split())  # the quote is the PDF's own words
    monkeypatch.chdir(tmp_path)
    _write(
        tmp_path / "refs.bib",
        """\
        @article{dmca1998,
          title = {The Digital Millennium Copyright Act of 1998},
          author = {{U.S. Copyright Office}},
          year = {1998},
          doi = {10.1234/dmca.1998},
          file = {:papers/x.pdf:PDF}
        }
        @article{gone2021,
          title = {A paper whose PDF is not here},
          doi = {10.1234/gone.2021},
          file = {Full Text PDF:papers/missing.pdf:application/pdf}
        }
        """,
    )
    assert main(["import", "refs.bib"]) == 0
    captured = capsys.readouterr()
    assert "imported 2 sources" in captured.out and "1 with a local copy" in captured.out
    (note,) = captured.err.strip().splitlines()
    assert note.startswith("refs.bib:11: @gone2021: ") and "papers/missing.pdf" in note
    assert "imported without a local copy" in note
    sources = load_ledger("citeledger.yaml").sources
    dmca = sources["dmca1998"]
    assert (str(dmca.identifier), dmca.local_copy) == ("doi:10.1234/dmca.1998", "papers/x.pdf")
    assert str(sources["gone2021"].identifier) == "doi:10.1234/gone.2021"
    assert sources["gone2021"].local_copy is None

    assert main(["quote", "dmca1998", CORPUS_QUOTE]) == 0
    assert main(["quote", "gone2021", "words of a paper we do not hold"]) == 0
    config = str(_config(tmp_path, silent_port[0]))
    # The plan: the source without a copy would go to the (silent) resolver; the other not.
    assert main(["verify", "--dry-run", "--config", config]) == 0
    plan = capsys.readouterr().out
    assert f"GET http://127.0.0.1:{silent_port[0]}/10.1234/gone.2021" in plan
    assert "Read from local copy, no network: doi:10.1234/dmca.1998 ← papers/x.pdf" in plan
    assert "dmca.1998  (" not in plan  # no request for it

    assert main(["verify", "--yes", "--only", "dmca1998", "--config", config]) == 0
    out = capsys.readouterr().out
    assert "0 requests" in out and "@dmca1998: found" in out
    assert _nothing_arrived(silent_port[1])

    _write(tmp_path / "doc.md", "The act addresses more than the treaties [@dmca1998].\n")
    assert main(["check", "doc.md", "--json", "report.json"]) == 0
    assert "1 of 1 citations checked" in capsys.readouterr().out
    (cited,) = json.loads((tmp_path / "report.json").read_text())["citations"]
    assert (cited["state"], cited["identifier"]) == ("checked", "doi:10.1234/dmca.1998")
    assert cited["local_copy"] == "papers/x.pdf" and cited["anchor"]["page"] == 1
    assert "local copy of doi:10.1234/dmca.1998" in cited["reasons"][0]


def test_import_resolves_against_the_bib_folder_and_keeps_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "elsewhere" / "o.pdf"
    project = tmp_path / "project"
    for f in (project / "papers" / "a.pdf", project / "store" / "b.pdf", outside):
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(b"%PDF-1.4\n")
    monkeypatch.chdir(project)
    _write(
        project / "bib" / "refs.bib",
        f"""\
        @article{{rel, doi = {{10.1234/rel}}, file = {{:../papers/a.pdf:PDF}}}}
        @article{{abs, doi = {{10.1234/abs}}, file = {{{project / "store" / "b.pdf"}}}}}
        @article{{out, doi = {{10.1234/out}}, file = {{:{outside}:PDF}}}}
        @article{{many, doi = {{10.1234/many}},
          file = {{Notes:notes.txt:text/plain;:../papers/nothere.pdf:PDF;:../papers/a.pdf:PDF}}}}
        """,
    )
    assert main(["import", "bib/refs.bib"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    sources = load_ledger("citeledger.yaml").sources
    assert sources["rel"].local_copy == "papers/a.pdf"
    assert sources["abs"].local_copy == "store/b.pdf"
    assert sources["many"].local_copy == "papers/a.pdf"  # the first PDF that exists
    assert sources["out"].local_copy is None and str(sources["out"].identifier) == "doi:10.1234/out"
    (note,) = err
    assert note.startswith("bib/refs.bib:3: @out: ") and "outside the project" in note


def test_a_signed_receipt_cannot_lose_its_local_copy_unnoticed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import dataclasses

    from citeledger.judge import Judge
    from citeledger.model import CitationRef, State

    key = tmp_path / "keys" / "k.pem"
    assert main(["key", "init", "--path", str(key)]) == 0
    public = capsys.readouterr().out.strip().splitlines()[-1]
    monkeypatch.setenv("CITELEDGER_SIGNING_KEY", str(key))
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    led_path = _text_ledger(project)
    assert main(["verify", "--yes"]) == 0
    led = load_ledger(led_path)
    source = led.sources["smith2020"]
    receipt = source.quotes[0].latest
    assert receipt is not None and receipt.signature and receipt.local_copy
    ok = Judge(led, trusted_keys=[public], require_signature=True).judge(CitationRef("smith2020"))
    assert ok.state is State.CHECKED, ok.reasons
    # dropped: the reader would no longer be told the text was the writer's own copy
    edited = dataclasses.replace(receipt, local_copy=None)
    quote = dataclasses.replace(source.quotes[0], receipts=(edited,))
    forged = dataclasses.replace(
        led, sources={"smith2020": dataclasses.replace(source, quotes=(quote,))}
    )
    verdict = Judge(forged, trusted_keys=[public]).judge(CitationRef("smith2020"))
    assert verdict.state is State.TAMPERED and "signature does not hold" in verdict.reasons[0]


def test_adopt_takes_the_attached_file_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "papers" / "smith2020.txt", TEXT)
    _write(
        tmp_path / "refs.bib",
        """\
        @article{smith2020, title = {A paper}, doi = {10.1234/smith.2020},
          file = {:papers/smith2020.txt:text/plain}}
        @article{jones2021, title = {Another}, doi = {10.1234/jones.2021},
          file = {:papers/jones2021.pdf:PDF}}
        """,
    )
    _write(tmp_path / "doc.md", "One [@smith2020], two [@jones2021].\n")
    assert main(["adopt", "doc.md", "--bib", "refs.bib"]) == 0
    out = capsys.readouterr().out
    assert "1 sources will be checked against your local copy" in out
    assert "1 attached files could not be used" in out and "refs.bib:4: @jones2021" in out
    sources = load_ledger("citeledger.yaml").sources
    assert sources["smith2020"].local_copy == "papers/smith2020.txt"
    assert sources["jones2021"].local_copy is None


_READS: list[str] = []
_WATCHED: list[str] = []
_HOOKED: list[bool] = []


def _audit(event: str, args: tuple[object, ...]) -> None:
    """Every open of a watched file by this process, and every process started with it."""
    if not _WATCHED:
        return
    if event == "open" and str(args[0]) in _WATCHED:
        _READS.append("open")
    elif event == "subprocess.Popen":
        argv = args[1] if isinstance(args[1], (list, tuple)) else ()
        if any(str(a) in _WATCHED for a in argv):
            _READS.append("pandoc")


def test_import_reads_the_bib_once_and_validates_each_entry_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """One read of the .bib serves pandoc's entries and the raw ``file`` fields (a file edited
    meanwhile cannot give one its entries and the other its attachments); an entry with a
    local copy is validated once, with it; an attached file that cannot be used still says
    so and the entry comes in without it."""
    import sys

    from citeledger.ledger import record

    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "papers" / "smith2020.txt", TEXT)
    bib = _write(
        tmp_path / "refs.bib",
        """\
        @article{smith2020, title = {A paper}, doi = {10.1234/smith.2020},
          file = {:papers/smith2020.txt:text/plain}}
        @article{jones2021, title = {Another}, doi = {10.1234/jones.2021},
          file = {:papers/jones2021.pdf:PDF}}
        @article{plain2022, title = {No file}, doi = {10.1234/plain.2022}}
        """,
    )
    checked: list[str] = []
    real = record.check_source

    def counted(path: str, key: str, fields: object) -> object:
        checked.append(key)
        return real(path, key, fields)  # type: ignore[arg-type]

    monkeypatch.setattr(record, "check_source", counted)
    if not _HOOKED:
        sys.addaudithook(_audit)  # cannot be removed: inert while nothing is watched
        _HOOKED.append(True)
    _READS.clear()
    _WATCHED[:] = [str(bib), "refs.bib", str(bib.resolve())]
    try:
        assert main(["import", "refs.bib"]) == 0
    finally:
        _WATCHED.clear()
    assert _READS == ["open"]
    assert sorted(checked) == ["jones2021", "plain2022", "smith2020"]
    captured = capsys.readouterr()
    assert "imported 3 sources" in captured.out and "1 with a local copy" in captured.out
    (note,) = captured.err.strip().splitlines()
    assert note.startswith("refs.bib:4: @jones2021: ") and "imported without a local copy" in note
    sources = load_ledger("citeledger.yaml").sources
    assert sources["smith2020"].local_copy == "papers/smith2020.txt"
    assert sources["jones2021"].local_copy is None and sources["plain2022"].local_copy is None


def test_a_receipt_that_lost_its_local_copy_line_is_not_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The evidence was read from the writer's file: a receipt without local_copy: would tell
    the reader the source was retrieved from its DOI."""
    monkeypatch.chdir(tmp_path)
    ledger = _text_ledger(tmp_path)
    assert main(["verify", "--yes"]) == 0
    head, receipts = ledger.read_text().split("receipts:")
    assert "            local_copy: papers/smith2020.txt\n" in receipts
    ledger.write_text(
        head + "receipts:" + receipts.replace("            local_copy: papers/smith2020.txt\n", "")
    )
    _write(tmp_path / "doc.md", "A claim [@smith2020].\n")
    assert main(["check", "doc.md", "--json", "report.json", "--warn-only"]) == 0
    (cited,) = json.loads((tmp_path / "report.json").read_text())["citations"]
    assert cited["state"] == "tampered"


def test_a_retraction_an_earlier_retrieval_recorded_outlives_a_local_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The local copy asks the registry nothing: a retraction on record for the source stands."""
    monkeypatch.chdir(tmp_path)
    ledger = _text_ledger(tmp_path)
    assert main(["verify", "--yes"]) == 0
    head, receipts = ledger.read_text().split("receipts:\n")
    lines = receipts.splitlines(keepends=True)
    # an earlier receipt of the same quote, from the registry, that recorded a retraction
    earlier = [lines[0], "            retracted: Retraction notice 10.1234/notice\n"] + [
        line for line in lines[1:] if "local_copy:" not in line
    ]
    ledger.write_text(head + "receipts:\n" + "".join(earlier) + receipts)
    (quote,) = load_ledger(ledger).sources["smith2020"].quotes
    assert quote.receipts[0].retracted and quote.latest is not None and quote.latest.local_copy
    _write(tmp_path / "doc.md", "A claim [@smith2020].\n")
    assert main(["check", "doc.md", "--json", "report.json", "--warn-only"]) == 0
    (cited,) = json.loads((tmp_path / "report.json").read_text())["citations"]
    assert cited["state"] == "retracted"
