"""The batch writer process (``verify.writer``): it writes what verify's process hands it, and
it never outlives that process (a killed run must not go on writing under a next run's feet).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citeledger.verify import writer

pytestmark = pytest.mark.skipif(not writer.available(), reason="no PR_SET_PDEATHSIG here")

_KILLED_PARENT = """
import os, signal, sys
from citeledger.verify.batch import ReceiptBatch
from citeledger.verify.writer import BatchWriter

batch = ReceiptBatch(sys.argv[1], sys.argv[2], None)
child = BatchWriter(batch)
print(child._proc.pid, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie waiting for its reaper is gone too
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"


def test_the_writer_dies_with_the_process_that_started_it(tmp_path: Path) -> None:
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text("sources:\n  a:\n    url: http://127.0.0.1/a\n", "utf-8")
    said = tmp_path / "pid"
    with said.open("w") as out:  # a file, not a pipe: a surviving writer would hold a pipe open
        run = subprocess.run(
            [sys.executable, "-c", _KILLED_PARENT, str(ledger), str(tmp_path / ".citeledger")],
            stdout=out,
        )
    assert run.returncode == -signal.SIGKILL
    pid = int(said.read_text().split()[0])
    for _ in range(100):  # the kernel's signal is at once; the poll only waits for it to land
        if not _alive(pid):
            break
        time.sleep(0.1)
    alive = _alive(pid)
    if alive:
        os.kill(pid, signal.SIGKILL)
    assert not alive, "the writer outlived verify's process"
