"""``kill -9`` at random points of a real ``verify``: the next run leaves nothing behind.

A run over local files (no network) is killed with SIGKILL after a random delay, several
times; each time the next, complete run must leave no temp file of an atomic write, no ledger
temp file, no evidence file that no receipt names, and a ledger that loads with a receipt for
every quote.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from citeledger.ledger import load_ledger
from verify_util import start_verify, text_project

SOURCES = 200  # verify runs at 100-200 sources/s: enough work to be interrupted
TRIALS = 5


def project(folder: Path) -> Path:
    return text_project(folder, SOURCES, words=400)


verify = start_verify


def test_the_run_after_a_sigkill_leaves_nothing_behind(tmp_path: Path) -> None:
    rng = random.Random(12)
    kills = 0
    for trial in range(TRIALS):
        folder = tmp_path / f"t{trial}"
        folder.mkdir()
        ledger = project(folder)
        proc = verify(folder)
        time.sleep(rng.uniform(0.4, 1.4))
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            kills += 1
        proc.wait(timeout=60)
        assert verify(folder).wait(timeout=120) == 0
        led = load_ledger(ledger)
        assert all(q.receipts for s in led.sources.values() for q in s.quotes)
        named = {
            os.path.normpath(os.path.join(led.evidence_dir, r.evidence))
            for s in led.sources.values()
            for q in s.quotes
            for r in q.receipts
            if r.evidence
        }
        store = Path(led.evidence_dir)
        evidence = {os.path.normpath(p) for p in store.glob("??/*.warc.gz")}
        assert evidence <= named, f"evidence no receipt names: {sorted(evidence - named)}"
        assert not list(store.rglob(".tmp-*")), "a temp file of an atomic write was left"
        assert not list(folder.glob(".*.citeledger-tmp")), "a ledger temp file was left"
        assert not (store / "pending.jsonl").exists()
    assert kills >= 2  # the runs were really interrupted, not finished before the kill


_KILL_AT_FIRST_WRITE = """
import os, signal, sys
from citeledger.ledger.held import HeldLedger
from citeledger.cli import main

calls = []
original = HeldLedger.append
run = os.getpid()  # verify's process; the batch may be written by its forked writer

def append(*args, **kwargs):
    calls.append(1)
    if len(calls) == 1:  # the first batch's evidence is stored; its receipts are not
        if os.getpid() != run:
            os.kill(run, signal.SIGKILL)
        os.kill(os.getpid(), signal.SIGKILL)
    return original(*args, **kwargs)

HeldLedger.append = append
sys.exit(main(["verify", "--yes"]))
"""


def test_evidence_of_a_run_killed_before_its_receipts_is_moved_aside_by_the_next(
    tmp_path: Path,
) -> None:
    """The window the random kills above only sometimes hit, hit every time."""
    ledger = project(tmp_path)
    killed = subprocess.run(
        [sys.executable, "-c", _KILL_AT_FIRST_WRITE], cwd=tmp_path, capture_output=True
    )
    assert killed.returncode == -signal.SIGKILL
    store = tmp_path / ".citeledger"
    before = {p.name for p in store.glob("??/*.warc.gz")}
    assert before  # evidence stored, its receipts (a batch) not written
    assert (store / "pending.jsonl").exists()
    led = load_ledger(ledger)
    orphan = {p.name for p in store.glob("??/*.warc.gz")} - names(led)
    assert orphan == before
    temp = store / "8c" / ".tmp-abc123.gz"  # what a kill between write and rename leaves
    temp.parent.mkdir(exist_ok=True)
    temp.write_bytes(b"half a warc")
    again = subprocess.run(  # the next run, of another source: it cleans up all the same
        [sys.executable, "-m", "citeledger.cli", "verify", "--yes", "--only", "s0"],
        cwd=tmp_path,
        capture_output=True,
    )
    assert again.returncode == 0, again.stderr
    after = {p.name for p in store.glob("??/*.warc.gz")}
    # only s0's, which the second run stored again and now names
    assert len(orphan & after) <= 1, "the evidence without a receipt was kept"
    assert after <= names(load_ledger(ledger))
    quarantined = {p.name for p in (store / "leftovers").iterdir()}
    assert orphan - after <= quarantined  # moved aside, not deleted: nothing a note names is lost
    assert not (store / "pending.jsonl").exists()
    assert not temp.exists()


def names(led: Any) -> set[str]:
    return {
        os.path.basename(r.evidence)
        for s in led.sources.values()
        for q in s.quotes
        for r in q.receipts
        if r.evidence
    }
