"""Every read of a file in the evidence store goes through one confined, kind-checked gate.

The store is the writer's folder, often committed, and git recreates symbolic links: a pull
request can make ``history.jsonl``, an index shard or an evidence file a link to ``/dev/zero``
(a read that never ends) or out of the store, and a FIFO waits forever for a writer. Each case
here is a real project of local files, verified and built for real; then one store file is
replaced, and the next build (or verify) runs in a subprocess with a timeout and a memory cap,
so a regression fails the test instead of hanging the suite or eating the machine's memory.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import netserver as ns
from citeledger.cli import main
from citeledger.evidence.judgements import FOLDER
from citeledger.evidence.store import HISTORY, EvidenceReader, StoreFileError, StoreFiles
from citeledger.inputs import NotAFile, read_regular
from citeledger.ledger import load_ledger
from verify_util import text_project

netserver = ns.netserver
CLI = str(Path(sys.executable).with_name("citeledger"))
TIMEOUT = 20
DOC = "\n\n".join(f"Claim number {i} holds here [@s{i}]." for i in range(4)) + "\n"


def _write_project(folder: Path) -> None:
    text_project(folder, 4, words=50)
    (folder / "doc.md").write_text(DOC, "utf-8")


def _capped() -> None:
    """A regression reads /dev/zero into memory: let it fail at 3 GB, not take the machine's."""
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def _run(folder: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CITELEDGER_JUDGEMENT_INDEX": "on"}
    env.pop("CITELEDGER_LEDGER", None)
    try:
        return subprocess.run(
            [CLI, *argv],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            preexec_fn=_capped,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"citeledger {' '.join(argv)} still reading after {TIMEOUT} s")


def _build(folder: Path) -> dict[str, tuple[str, str]]:
    """``check --json``: each citation's state and first reason, by key."""
    report = folder / "report.json"
    report.unlink(missing_ok=True)
    done = _run(folder, "check", "doc.md", "--warn-only", "--quiet", "--json", "report.json")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    cites = json.loads(report.read_text("utf-8"))["citations"]
    return {c["key"]: (c["state"], " ".join(c["reasons"])) for c in cites}


@pytest.fixture(scope="module")
def verified(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("store-files")
    _write_project(folder)
    done = _run(folder, "verify", "--yes")
    assert done.returncode == 0, done.stderr
    return folder


@pytest.fixture()
def project(verified: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "p"
    shutil.copytree(verified, folder, symlinks=True)
    built = _build(folder)  # a build: the index remembers every verdict
    assert {s for s, _ in built.values()} == {"checked"}, built
    return folder


def _store(folder: Path) -> Path:
    return Path(load_ledger(folder / "citeledger.yaml").evidence_dir)


def _evidence(folder: Path, key: str) -> Path:
    receipt = load_ledger(folder / "citeledger.yaml").sources[key].quotes[0].latest
    assert receipt is not None and receipt.evidence
    return _store(folder) / str(receipt.evidence)


def _to_zero(path: Path) -> None:
    path.unlink()
    path.symlink_to("/dev/zero")


def _to_fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


REPLACE: dict[str, tuple[Callable[[Path], None], str]] = {
    "/dev/zero": (_to_zero, "leaves the evidence store"),
    "fifo": (_to_fifo, "is a named pipe (FIFO), not a file"),
}


@pytest.mark.parametrize("how", list(REPLACE))
def test_a_history_log_that_is_no_file_is_stale_with_its_reason(project: Path, how: str) -> None:
    replace, kind = REPLACE[how]
    replace(_store(project) / HISTORY)
    built = _build(project)
    for state, reason in built.values():
        assert state == "stale", built
        assert f"log lines cannot be read (the log {kind})" in reason, reason


@pytest.mark.parametrize("how", list(REPLACE))
def test_index_shards_that_are_no_files_are_no_entries(project: Path, how: str) -> None:
    replace, _ = REPLACE[how]
    shards = sorted((_store(project) / FOLDER).glob("?.json"))
    assert shards
    for shard in shards:
        replace(shard)
    assert {s for s, _ in _build(project).values()} == {"checked"}
    # the build wrote its own index in their place: files, read by the next build
    assert all(s.is_file() and not s.is_symlink() for s in shards)
    assert {s for s, _ in _build(project).values()} == {"checked"}


@pytest.mark.parametrize("how", list(REPLACE))
def test_an_evidence_file_that_is_no_file_is_not_checked(project: Path, how: str) -> None:
    """The index remembers s1's verdict: hashing its evidence to use it must not read forever."""
    replace, kind = REPLACE[how]
    replace(_evidence(project, "s1"))
    built = _build(project)
    state, reason = built.pop("s1")
    assert state != "checked" and kind in reason, (state, reason)
    assert {s for s, _ in built.values()} == {"checked"}, built


@pytest.fixture()
def revisited(tmp_path: Path, netserver: ns.NetServer) -> Path:
    """Two addresses serving one body: the second's evidence is a WARC revisit of the first's
    capture (a ``file:`` source stores its own payload whatever it repeats)."""
    body = b"<html><body><p>The passage is here, served twice.</p></body></html>"
    for name in ("one", "two"):
        netserver.static(f"/{name}.html", body)
    folder = tmp_path / "web"
    folder.mkdir()
    lines = ["sources:"]
    for name in ("one", "two"):
        lines += [f"  {name}:", f"    url: {netserver.url(f'/{name}.html')}", "    quotes:"]
        lines += ["      - text: The passage is here, served twice."]
    (folder / "citeledger.yaml").write_text("\n".join(lines) + "\n", "utf-8")
    (folder / "doc.md").write_text("One [@one]. Two [@two].\n", "utf-8")
    ledger = str(folder / "citeledger.yaml")
    assert main(["verify", "--ledger", ledger, "--yes", "--allow-private"]) == 0
    assert {s for s, _ in _build(folder).values()} == {"checked"}
    return folder


@pytest.mark.parametrize("how", ["outside", *REPLACE])
def test_the_first_capture_a_revisit_refers_to_is_read_through_the_same_gate(
    revisited: Path, tmp_path: Path, how: str
) -> None:
    """The revisit's body is read from the first capture: confined and kind-checked as well."""
    captures = {k: _evidence(revisited, k) for k in ("one", "two")}
    first = next(p for p in captures.values() if "~" not in p.name)
    revisit = next(k for k, p in captures.items() if "~" in p.name)
    if how == "outside":
        moved = tmp_path / "elsewhere.warc.gz"
        shutil.move(first, moved)
        first.symlink_to(moved)
        said = "leaves the evidence store"
    else:
        replace, said = REPLACE[how]
        replace(first)
    for key, (state, reason) in _build(revisited).items():
        assert state != "checked" and said in reason, (key, state, reason)
    # judged afresh, without the index: the revisit is refused the same way
    shutil.rmtree(_store(revisited) / FOLDER)
    state, reason = _build(revisited)[revisit]
    assert state != "checked" and f"this revisit refers to {said}" in reason, (state, reason)


def test_verify_does_not_wait_on_a_pending_notes_fifo(tmp_path: Path) -> None:
    _write_project(tmp_path)
    (tmp_path / ".citeledger").mkdir()
    os.mkfifo(tmp_path / ".citeledger" / "pending.jsonl")
    done = _run(tmp_path, "verify", "--yes")
    assert "Traceback" not in done.stderr, done.stderr[-2000:]


def test_verify_refuses_a_history_log_that_is_no_file_in_one_line(tmp_path: Path) -> None:
    """Appending to a FIFO would wait for a reader forever; to a link out, write outside."""
    _write_project(tmp_path)
    (tmp_path / ".citeledger").mkdir()
    os.mkfifo(tmp_path / ".citeledger" / HISTORY)
    done = _run(tmp_path, "verify", "--yes")
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert "the history log is a named pipe (FIFO), not a file" in done.stderr, done.stderr


def test_the_gate_says_why_it_read_nothing(tmp_path: Path) -> None:
    store = tmp_path / "store"
    (store / "ab").mkdir(parents=True)
    (store / "ab" / "f").write_bytes(b"x")
    os.symlink("/dev/zero", store / "ab" / "zero")
    os.mkfifo(store / "ab" / "pipe")
    (tmp_path / "outside").write_bytes(b"y")
    os.symlink(tmp_path / "outside", store / "ab" / "out")
    files = StoreFiles(store)
    assert files.read("ab/f") == b"x"
    for rel, said in [
        ("ab/zero", "leaves the evidence store"),
        ("ab/pipe", "is a named pipe (FIFO), not a file"),
        ("ab/out", "leaves the evidence store"),
        ("ab", "is a folder, not a file"),
        ("ab/none", "is missing from the evidence store"),
    ]:
        with pytest.raises(StoreFileError) as caught:
            files.read(rel)
        assert caught.value.reason == said and caught.value.missing == (rel == "ab/none")
    with pytest.raises(NotAFile) as device:  # a device inside the store: refused by kind
        read_regular("/dev/zero")
    assert device.value.kind == "a character device"
    reader = EvidenceReader(store)
    assert reader.digest("ab/pipe") is None and reader.digest("ab/zero") is None
    assert reader.load("ab/pipe").problems == [
        "evidence file ab/pipe is a named pipe (FIFO), not a file"
    ]


def _links_out(tmp_path: Path) -> tuple[Path, Path]:
    """A project whose committed store holds links out of it; the folder they point into."""
    project = tmp_path / "p"
    project.mkdir()
    _write_project(project)
    outside = tmp_path / "outside"
    outside.mkdir()
    store = project / ".citeledger"
    store.mkdir()
    os.symlink("../citeledger.yaml", store / "pending.jsonl")  # to the writer's ledger
    return project, outside


def test_a_pending_notes_link_to_the_ledger_is_refused_and_the_ledger_kept(tmp_path: Path) -> None:
    """A committed ``pending.jsonl -> ../citeledger.yaml`` took a note's line into the ledger."""
    project, _ = _links_out(tmp_path)
    before = (project / "citeledger.yaml").read_bytes()
    done = _run(project, "verify", "--yes")
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert "pending.jsonl: this file of the evidence store is a symbolic link" in done.stderr
    assert (project / "citeledger.yaml").read_bytes() == before


def test_no_store_write_follows_a_link_out_of_the_store(tmp_path: Path) -> None:
    """A dangling ``pending.lock`` link made verify create its target; a digest folder that
    is a link took the evidence file outside. Each is refused, and nothing is made outside."""
    project, outside = _links_out(tmp_path)
    store = project / ".citeledger"
    (store / "pending.jsonl").unlink()
    os.symlink(outside / "made-by-verify.txt", store / "pending.lock")
    done = _run(project, "verify", "--yes")
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert "pending.lock: this file of the evidence store is a symbolic link" in done.stderr
    (store / "pending.lock").unlink()
    digest = hashlib.sha256((project / "page0.txt").read_bytes()).hexdigest()
    os.symlink(outside, store / digest[:2])
    done = _run(project, "verify", "--yes")
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert "a link out of it" in done.stderr, done.stderr[-2000:]
    assert list(outside.iterdir()) == []
