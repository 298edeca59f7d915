"""No leaks through paths: what a document or a ledger names stays inside the project.

On CI over a pull request a stranger writes the document: its ``citeledger.ledger`` must not
make the build read (and print) a ``.env`` or ``/etc/passwd``, and its ``evidence-pages`` must
not make the build write outside its tree; a ledger's ``evidence_dir`` must not make ``verify``
write anywhere. The command line and the environment are the build's own and may reach out.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from helpers import pandoc_bytes, run_main

from citeledger.cli import main

SECRET = "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI-do-not-print"
LEDGER = "sources:\n  k:\n    file: src.txt\n    quotes:\n      - text: The words.\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``tmp/project`` (the build's working directory) and a secret beside it, outside."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / ".env").write_text(f"{SECRET}\nOTHER=1\n")
    root = tmp_path / "project"
    root.mkdir()
    (root / "src.txt").write_text("Intro.\n\nThe words.\n")
    (root / "citeledger.yaml").write_text(LEDGER)
    monkeypatch.chdir(root)
    monkeypatch.delenv("CITELEDGER_ALLOW_OUTSIDE", raising=False)
    monkeypatch.delenv("CITELEDGER_LEDGER", raising=False)
    return root


def _doc(meta: str) -> bytes:
    return pandoc_bytes(f"---\nciteledger:\n  {meta}\n---\nA claim [@k].\n")


def test_a_documents_ledger_outside_the_project_is_refused_without_reading_it(
    project: Path,
) -> None:
    for named in ("../outside/.env", str(project.parent / "outside" / ".env"), "/etc/passwd"):
        run = run_main(_doc(f"ledger: {named}"), "html", environ={})
        assert run.code == 2
        assert "outside the project" in run.err and "CITELEDGER_ALLOW_OUTSIDE" in run.err
        assert "wJalr" not in run.err and "root:" not in run.err


def test_a_symbolic_link_inside_the_project_does_not_lead_out(project: Path) -> None:
    (project / "ledger.yaml").symlink_to(project.parent / "outside" / ".env")
    run = run_main(_doc("ledger: ledger.yaml"), "html", environ={})
    assert run.code == 2 and "outside the project" in run.err and "wJalr" not in run.err


def test_no_error_quotes_a_non_ledgers_content(project: Path) -> None:
    """Allowed (or inside the project), a file that is no ledger is named, never printed."""
    (project / ".env").write_text(f"{SECRET}\n")
    inside = run_main(_doc("ledger: .env"), "html", environ={})
    allowed = run_main(
        _doc("ledger: ../outside/.env"), "html", environ={"CITELEDGER_ALLOW_OUTSIDE": "1"}
    )
    by_env = run_main(_doc("audit: false"), "html", environ={"CITELEDGER_LEDGER": "/etc/passwd"})
    for run in (inside, allowed, by_env):
        assert run.code == 2, run.err
        assert "must be a mapping with a 'sources:' key" in run.err
        assert "wJalr" not in run.err and "root:" not in run.err and "OTHER" not in run.err
    # /etc/shadow's lines end in ':', so YAML reads each whole line, hash included, as a key
    (project / "shadow").write_text("root:$6$salt$HASHofTHEpassword:19000:0:99999:7:::\n")
    shadow = run_main(_doc("ledger: shadow"), "html", environ={})
    assert shadow.code == 2 and "unknown top-level key" in shadow.err
    assert "HASHof" not in shadow.err


def test_check_confines_the_documents_ledger_but_not_its_own_options(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = project / "chapter.md"
    doc.write_text("---\nciteledger:\n  ledger: ../outside/.env\n---\nA claim [@k].\n")
    assert main(["check", str(doc)]) == 2
    err = capsys.readouterr().err
    assert "outside the project" in err and "wJalr" not in err
    outside = str(project.parent / "outside" / ".env")
    for argv in (["check", str(doc), "--allow-outside"], ["check", str(doc), "--ledger", outside]):
        assert main(argv) == 2  # allowed, read, refused as a ledger: without its content
        err = capsys.readouterr().err
        assert "outside the project" not in err and "sources:" in err and "wJalr" not in err
    (project / "docs").mkdir()
    nested = project / "docs" / "chapter.md"
    nested.write_text("---\nciteledger:\n  ledger: ../citeledger.yaml\n---\nA claim [@k].\n")
    assert main(["check", str(nested)]) == 1  # inside the project: judged (unchecked)


def test_a_documents_evidence_pages_stay_inside_the_project(project: Path) -> None:
    run = run_main(_doc("evidence-pages: ../elsewhere"), "html", environ={})
    assert run.code == 2 and "evidence-pages names a folder outside the project" in run.err
    assert not (project.parent / "elsewhere").exists()
    ok = run_main(_doc("audit: false"), "html", environ={"CITELEDGER_EVIDENCE_PAGES": "../out"})
    assert ok.code == 0, ok.err
    inside = run_main(_doc("evidence-pages: evidence"), "html", environ={})
    assert inside.code == 0, inside.err


def test_a_ledgers_evidence_dir_outside_its_folder_needs_the_command_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "citeledger.yaml").write_text("evidence_dir: ../store\n" + LEDGER)
    assert main(["verify", "--yes"]) == 2
    err = capsys.readouterr().err
    assert "evidence_dir names a folder outside the project" in err and "--allow-outside" in err
    assert not (project.parent / "store").exists()
    assert main(["verify", "--yes", "--allow-outside"]) == 0
    assert any((project.parent / "store").rglob("*.warc.gz"))


def test_the_environment_allows_what_the_command_line_allows(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "citeledger.yaml").write_text(f"evidence_dir: {project.parent / 'store'}\n{LEDGER}")
    monkeypatch.setenv("CITELEDGER_ALLOW_OUTSIDE", "1")
    assert main(["verify", "--yes"]) == 0
    assert os.listdir(project.parent / "store")


def test_a_sibling_sharing_the_folders_name_as_a_prefix_is_outside_for_every_reader(
    tmp_path: Path,
) -> None:
    """``/x/proj2`` is not inside ``/x/proj``: the one prefix rule (``confine.below``), as the
    document's paths, the ledger's files and the evidence store all apply it."""
    from citeledger.confine import below, inside
    from citeledger.errors import LedgerError
    from citeledger.evidence.store import EvidenceReader
    from citeledger.ledger import load_ledger

    proj, sibling = tmp_path / "proj", tmp_path / "proj2"
    (proj / "store").mkdir(parents=True)
    (tmp_path / "proj" / "store2").mkdir()
    sibling.mkdir()
    (sibling / "a.txt").write_text("words")
    (proj / "store2" / "e.warc.gz").write_bytes(b"")
    assert below(str(proj), str(proj)) and below(str(proj / "a"), str(proj) + os.sep)
    assert below("/a", "/") and not below("/a/bc", "/a/b")
    assert inside(proj / "a.txt", [proj]) and not inside(sibling / "a.txt", [proj])
    ledger = proj / "citeledger.yaml"
    ledger.write_text("sources:\n  k:\n    file: ../proj2/a.txt\n")
    with pytest.raises(LedgerError, match="outside"):
        load_ledger(ledger)
    ev = EvidenceReader(proj / "store").load("../store2/e.warc.gz")
    assert ev.problems == ["evidence path '../store2/e.warc.gz' leaves the evidence store"]
