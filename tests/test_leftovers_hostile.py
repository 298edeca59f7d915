"""A committed ``pending.jsonl`` is data from disk: ``verify`` never deletes what it names.

A note names a body digest, a ledger and a time; the next run used to delete every
``{digest}*.warc.gz`` in ``{store}/{digest[:2]}`` that the noted ledger's receipts did not
name. A pull request could commit notes that named a real evidence file with an empty ledger
and time 0 (the evidence went, the citation turned stale), or a "digest" holding ``..`` (a
``*.warc.gz`` of another project went). Each case is a real project verified with the real
CLI; the hostile notes are written as a pull request would commit them.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from citeledger.cli import main
from citeledger.evidence import leftovers
from citeledger.ledger import load_ledger
from verify_util import text_project


def _evidence(ledger: Path) -> dict[str, Path]:
    led = load_ledger(ledger)
    out = {}
    for key, source in led.sources.items():
        receipt = source.quotes[0].latest
        assert receipt is not None and receipt.evidence
        out[key] = Path(led.evidence_dir) / receipt.evidence
    return out


def test_committed_notes_delete_no_evidence_inside_the_store_or_outside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "p"
    project.mkdir()
    ledger = text_project(project, 3, words=40)
    monkeypatch.chdir(project)
    assert main(["verify", "--yes"]) == 0
    files = _evidence(ledger)
    other = tmp_path / "other-project" / "ab"
    other.mkdir(parents=True)
    (other / "theirs.warc.gz").write_bytes(b"another project's evidence")
    (project / "empty.yaml").write_text("sources: {}\n")
    now = time.time()
    digest = files["s2"].name.split(".")[0]
    notes = [
        {"body_sha256": digest, "ledger": str(project / "empty.yaml"), "since": 0.0},
        {"body_sha256": "../../other-project/ab/", "ledger": str(ledger), "since": 0.0},
        {"body_sha256": digest, "ledger": str(ledger), "since": now - 1.0},  # named: kept
        {"body_sha256": digest.upper(), "ledger": str(ledger), "since": now - 1.0},
    ]
    store = Path(load_ledger(ledger).evidence_dir)
    (store / leftovers.PENDING).write_text("".join(json.dumps(n) + "\n" for n in notes))
    assert main(["verify", "--yes", "--only", "s0"]) == 0
    assert all(p.is_file() for p in files.values()), "a note made verify delete evidence"
    assert (other / "theirs.warc.gz").read_bytes() == b"another project's evidence"
    (project / "doc.md").write_text("One [@s0]. Two [@s1]. Three [@s2].\n")
    assert main(["check", "doc.md", "--quiet"]) == 0  # every citation still checked


def test_a_leftover_is_moved_aside_and_the_quarantine_is_purged_only_when_old(
    tmp_path: Path,
) -> None:
    """A genuine leftover of this ledger is one rename from back; the quarantine keeps the
    store bounded by deleting what sat there ``QUARANTINE_DAYS``."""
    store = tmp_path / ".citeledger"
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text("sources: {}\n")
    digest = leftovers.note(store, str(ledger), b"a body whose receipts never came")
    path = store / digest[:2] / f"{digest}.warc.gz"
    path.parent.mkdir()
    path.write_bytes(b"evidence")
    old = store / leftovers.QUARANTINE / ("cd" * 32 + ".warc.gz.1")
    old.parent.mkdir()
    old.write_bytes(b"long ago")
    theirs = store / leftovers.QUARANTINE / "notes.txt"  # not a name the quarantine gives
    theirs.write_bytes(b"a writer's file")
    ago = time.time() - (leftovers.QUARANTINE_DAYS + 1) * 86400
    os.utime(old, (ago, ago))
    os.utime(theirs, (ago, ago))
    assert leftovers.clean_leftovers(store, load_ledger(ledger)) == [path]
    assert not path.exists() and not old.exists()
    assert (store / leftovers.QUARANTINE / path.name).read_bytes() == b"evidence"
    assert theirs.read_bytes() == b"a writer's file"


def test_a_leftovers_link_never_makes_the_purge_delete_evidence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A committed ``.citeledger/leftovers`` link to a digest folder (inside the store, so the
    store's confinement allowed it) once made every verify delete the old evidence there, and
    the citations it backed went stale. The quarantine is the store's own folder or none."""
    project = tmp_path / "p"
    project.mkdir()
    monkeypatch.chdir(project)
    for i in range(2):
        (project / f"page{i}.txt").write_text(f"Page {i}. The passage number {i} is here.\n")
    (project / "citeledger.yaml").write_text(
        "sources:\n"
        + "".join(
            f"  s{i}:\n    file: page{i}.txt\n    quotes:\n"
            f"      - text: The passage number {i} is here.\n"
            for i in range(2)
        )
    )
    assert main(["verify", "--yes"]) == 0
    store = project / ".citeledger"
    ago = time.time() - (leftovers.QUARANTINE_DAYS + 60) * 86400
    evidence = sorted(p for p in store.glob("??/*.warc.gz"))
    assert evidence
    for p in evidence:
        os.utime(p, (ago, ago))
    link = store / leftovers.QUARANTINE
    if link.exists():
        link.rmdir()
    link.symlink_to(evidence[0].parent.name)
    # a leftover of a killed run, so that the run also tries to move one into the "quarantine"
    digest = leftovers.note(store, str(project / "citeledger.yaml"), b"a body never receipted")
    stray = store / digest[:2] / f"{digest}.warc.gz"
    stray.parent.mkdir(exist_ok=True)
    stray.write_bytes(b"stray")
    assert main(["verify", "--yes", "--only", "s1"]) == 0
    assert all(p.is_file() for p in evidence), "the purge deleted evidence through a link"
    assert stray.is_file() and digest in (store / leftovers.PENDING).read_text()
    (project / "doc.md").write_text("One [@s0]. Two [@s1].\n")
    assert main(["check", "doc.md", "--quiet"]) == 0


def test_a_build_names_where_a_moved_leftover_went(tmp_path: Path) -> None:
    """Moved aside by mistake (a hostile note of this ledger's shape), the file is one move
    from back: the build's "evidence is gone" says where it is."""
    from citeledger.evidence.store import EvidenceReader

    store = tmp_path / ".citeledger"
    (store / leftovers.QUARANTINE).mkdir(parents=True)
    name = "ab" * 32 + ".warc.gz"
    (store / leftovers.QUARANTINE / name).write_bytes(b"x")
    problems = EvidenceReader(store).load(f"ab/{name}").problems
    assert any("moved a file of that name to leftovers/" in p for p in problems), problems
