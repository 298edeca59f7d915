"""Writers that die or race: the ledger is always a valid ledger, and no receipt is lost."""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citeledger.ledger import append_receipt, load_ledger

pytestmark = pytest.mark.slow  # real processes racing, killed mid-write

LEDGER = """\
# shared by several writers
sources:
  a:
    doi: 10.1234/a   # first
    quotes:
      - text: The first words.
      - text: The second words.

  b:
    url: https://example.org/b
    quotes:
      - text: Other words.
"""


def receipt(tool: str) -> dict[str, str]:
    return {
        "outcome": "found",
        "identifier": "doi:10.1234/a",
        "retrieved_at": "2026-08-02T09:12:44Z",
        "tool": tool,
        "writer_quote_sha256": "d" * 64,
        "quote": "The first words.",
    }


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    path = tmp_path / "citeledger.yaml"
    path.write_text(LEDGER, "utf-8")
    return path


def run_writer(code: str, *args: str) -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).parents[1] / "src"))
    return subprocess.Popen([sys.executable, "-c", code, *args], env=env)


def wait_for(path: Path, proc: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert proc.poll() is None, "the writer exited before reaching the point to kill it"
        assert time.monotonic() < deadline, "the writer never got there"
        time.sleep(0.01)


# The writer stops for good at the moment named by argv[3]: after the temp file is written and
# validated (just before the rename), or in the middle of writing the temp file.
STALLED_WRITER = """
import os, sys, time
from pathlib import Path
import citeledger.ledger as ledger

marker, where = Path(sys.argv[2]), sys.argv[3]

def stall(*args, **kwargs):
    marker.write_text("stalled")
    time.sleep(120)

if where == "before-rename":
    os.replace = stall
else:
    os.fsync = stall
ledger.append_receipt(sys.argv[1], "a", 0, {
    "outcome": "found", "identifier": "doi:10.1234/a", "retrieved_at": "2026-08-02T09:12:44Z",
    "tool": "killed writer", "writer_quote_sha256": "d" * 64,
})
"""


@pytest.mark.parametrize("where", ["before-rename", "writing-temp"])
def test_a_writer_killed_mid_write_leaves_the_ledger_valid(
    ledger: Path, tmp_path: Path, where: str
) -> None:
    before = ledger.read_bytes()
    marker = tmp_path / "marker"
    proc = run_writer(STALLED_WRITER, str(ledger), str(marker), where)
    try:
        wait_for(marker, proc)
        orphans = list(tmp_path.glob(".citeledger.yaml.*.citeledger-tmp"))
        assert len(orphans) == 1  # the new version exists, but only as a temp file
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    assert ledger.read_bytes() == before
    load_ledger(ledger)
    # the dead writer's lock died with it; the next writer cleans up and succeeds
    append_receipt(ledger, "a", 0, receipt("next writer"), lock_timeout=10)
    assert not list(tmp_path.glob(".citeledger.yaml.*.citeledger-tmp"))
    assert [r.tool for r in load_ledger(ledger).sources["a"].quotes[0].receipts] == ["next writer"]


LOOPING_WRITER = """
import sys
from pathlib import Path
from citeledger.ledger import append_receipt
for i in range(10_000):
    append_receipt(sys.argv[1], "a", i % 2, {
        "outcome": "found", "identifier": "doi:10.1234/a",
        "retrieved_at": "2026-08-02T09:12:44Z", "tool": f"loop {i}",
        "writer_quote_sha256": "d" * 64,
    })
    if i == 0:
        Path(sys.argv[2]).write_text("running")
"""


def test_killing_a_busy_writer_at_random_moments_never_corrupts(
    ledger: Path, tmp_path: Path
) -> None:
    rng = random.Random(20260802)
    seen = 0
    for attempt in range(3):
        marker = tmp_path / f"marker{attempt}"
        proc = run_writer(LOOPING_WRITER, str(ledger), str(marker))
        try:
            wait_for(marker, proc)
            time.sleep(rng.uniform(0.0, 0.3))
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        quotes = load_ledger(ledger).sources["a"].quotes  # always a valid ledger
        count = sum(len(q.receipts) for q in quotes)
        assert count > seen  # what was written stays written
        seen = count
        text = ledger.read_text("utf-8")
        assert text.startswith("# shared by several writers\nsources:\n  a:\n")
        assert "    url: https://example.org/b\n" in text


def _writer(path: str, name: str, count: int, quote: int) -> None:
    for i in range(count):
        append_receipt(path, "a", quote, receipt(f"{name}-{i}"), lock_timeout=60)


@pytest.mark.parametrize("quotes", [(0, 0), (0, 1)], ids=["same-quote", "different-quotes"])
def test_concurrent_writers_both_land_their_receipts(ledger: Path, quotes: tuple[int, int]) -> None:
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    count = 6
    procs = [
        ctx.Process(target=_writer, args=(str(ledger), name, count, quote))
        for name, quote in zip("AB", quotes, strict=True)
    ]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(timeout=120)
        assert proc.exitcode == 0
    source = load_ledger(ledger).sources["a"]
    tools = [r.tool for q in source.quotes for r in q.receipts]
    assert sorted(tools) == sorted(f"{n}-{i}" for n in "AB" for i in range(count))
    for name in "AB":  # each writer's own receipts are in the order it wrote them
        mine = [t for t in tools if t.startswith(name)]
        assert mine == [f"{name}-{i}" for i in range(count)]
    text = ledger.read_text("utf-8")
    assert text.startswith(
        "# shared by several writers\nsources:\n  a:\n    doi: 10.1234/a   # first\n"
    )
