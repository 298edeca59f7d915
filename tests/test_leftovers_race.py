"""The pending notes of ``evidence.leftovers`` under concurrent writers.

A run notes each retrieval before storing its evidence while its batch writes forget the
notes the receipts settle, and another ledger's run may share the evidence folder. Real
processes, started together: one appends notes, two forget others. Afterwards the file holds
exactly the notes nobody forgot — none lost (its evidence would never be cleaned up after a
kill), none brought back (a settled retrieval's evidence would be taken for a leftover).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from citeledger.evidence import leftovers

WORKER = """
import sys, time
from pathlib import Path
from citeledger.evidence import leftovers
folder, verb, go = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
bodies = sys.argv[4:]
while not go.exists():
    time.sleep(0.005)
for body in bodies:
    if verb == "note":
        leftovers.note(folder, "citeledger.yaml", body.encode())
    else:
        import hashlib
        leftovers.forget(folder, hashlib.sha256(body.encode()).hexdigest())
"""


def _noted(folder: Path) -> set[str]:
    return {str(e["body_sha256"]) for e in leftovers._entries(folder)}


def _start(folder: Path, verb: str, go: Path, bodies: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", WORKER, str(folder), verb, str(go), *bodies],
        stderr=subprocess.PIPE,
    )


def test_notes_and_forgets_of_three_processes_lose_nothing_and_bring_nothing_back(
    tmp_path: Path,
) -> None:
    import hashlib

    old_a = [f"settled by a {n}" for n in range(40)]
    old_b = [f"settled by b {n}" for n in range(40)]
    new = [f"pending {n}" for n in range(120)]
    for body in old_a + old_b:
        leftovers.note(tmp_path, "citeledger.yaml", body.encode())
    go = tmp_path / "go"
    workers = [
        _start(tmp_path, "forget", go, old_a),
        _start(tmp_path, "forget", go, old_b),
        _start(tmp_path, "note", go, new),
    ]
    time.sleep(0.5)  # the interpreters start; then all three at once
    go.touch()
    for w in workers:
        _, err = w.communicate(timeout=120)
        assert w.returncode == 0, err.decode()
    assert _noted(tmp_path) == {hashlib.sha256(b.encode()).hexdigest() for b in new}


def test_a_note_beside_a_forget_in_another_thread_is_kept(tmp_path: Path) -> None:
    """Within one run: the batch's write (a thread) forgets while the loop notes."""
    import threading

    settled = [leftovers.note(tmp_path, "l.yaml", f"old {n}".encode()) for n in range(60)]
    noted: list[str] = []

    def forget_each() -> None:
        for digest in settled:
            leftovers.forget(tmp_path, digest)

    t = threading.Thread(target=forget_each)
    t.start()
    while t.is_alive() or len(noted) < 60:
        noted.append(leftovers.note(tmp_path, "l.yaml", f"new {len(noted)}".encode()))
    t.join()
    assert _noted(tmp_path) == set(noted)
