"""verify at scale: N local text sources, against a bare in-process loop doing the same work.

Generates (in a temp folder) a ledger of N sources, each a ~6 KB text file with one quote, runs
the real CLI ``citeledger verify --yes`` on it, and prints its wall time, sources per second and
peak RSS, then a bare loop in this process that reads, hashes, extracts and locates the same
files (``analyse``), and the ratio of the two throughputs (both measured in this run: the
machine is shared and absolute times drift). Each verify runs under a small launcher process,
so ``getrusage(RUSAGE_CHILDREN)`` there is that run's alone: the peak RSS of its largest
process (the CLI or one of its extraction workers). ``--rss 500,1000,2000`` prints the peak for
each size, to show memory flat in N.
Run: ``.venv/bin/python bench/bench_verify.py [--sources N] [--rss 500,1000,2000]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from citeledger.ledger import load_ledger
from citeledger.verify.receipts import analyse

# Runs one verify as its child and reports its wall time and peak RSS (kB on Linux).
LAUNCHER = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
subprocess.run([sys.executable, "-m", "citeledger.cli", "verify", "--yes"],
               stdout=subprocess.DEVNULL, check=True)
wall = time.perf_counter() - start
use = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "rss_kb": use.ru_maxrss, "cpu": use.ru_utime + use.ru_stime}))
"""


def make_project(folder: Path, n: int) -> Path:
    lines = ["citeledger: 1", "sources:"]
    for i in range(n):
        filler = " ".join(f"word{i}x{j}" for j in range(700))
        text = f"Page {i}. {filler[:3000]} The passage number {i} is here. {filler[3000:6000]}\n"
        (folder / f"page{i}.txt").write_text(text, "utf-8")
        lines += [f"  s{i}:", f"    file: page{i}.txt", "    quotes:"]
        lines += [f"      - text: The passage number {i} is here."]
    ledger = folder / "citeledger.yaml"
    ledger.write_text("\n".join(lines) + "\n", "utf-8")
    return ledger


def run_verify(folder: Path) -> tuple[float, float, float]:
    """Wall seconds, peak RSS (MB) and CPU seconds of one real ``citeledger verify --yes``."""
    done = subprocess.run(
        [sys.executable, "-c", LAUNCHER], cwd=folder, check=True, capture_output=True, text=True
    )
    figures = json.loads(done.stdout)
    return float(figures["wall"]), float(figures["rss_kb"]) / 1024, float(figures["cpu"])


def bare_loop(folder: Path, n: int) -> float:
    """The same work with nothing around it: read, hash, extract and locate, one by one."""
    start = time.perf_counter()
    for i in range(n):
        body = (folder / f"page{i}.txt").read_bytes()
        hashlib.sha256(body).hexdigest()
        analyse(body, "text/plain", None, None, ((f"The passage number {i} is here.", None),))
    return time.perf_counter() - start


def measure(n: int) -> tuple[float, float, float, int, float]:
    """verify's wall time, peak RSS, CPU time and receipts written, and the bare loop's time."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ledger = make_project(folder, n)
        wall, rss, cpu = run_verify(folder)
        led = load_ledger(ledger)
        found = sum(1 for s in led.sources.values() for q in s.quotes if q.latest)
        bare = bare_loop(folder, n)
    return wall, rss, cpu, found, bare


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sources", type=int, default=2000)
    parser.add_argument("--rss", default="", help="sizes for the memory series, e.g. 500,1000")
    args = parser.parse_args()
    n = args.sources
    wall, rss, cpu, found, bare = measure(n)
    print(
        f"verify, {n} local sources: {wall:.2f} s wall, {n / wall:.0f} sources/s, {found} receipts"
        f" ({cpu:.1f} s CPU in all its processes)"
    )
    print(f"verify peak RSS (largest process: CLI or a worker): {rss:.0f} MB")
    print(f"bare in-process read+hash+extract+locate loop: {bare:.2f} s ({n / bare:.0f} sources/s)")
    print(f"throughput ratio verify / bare loop: {bare / wall:.2f}x")
    for size in [int(s) for s in args.rss.split(",") if s.strip()]:
        wall, rss, _, found, _ = measure(size)
        print(f"peak RSS at {size} sources: {rss:.0f} MB ({size / wall:.0f} sources/s)")


if __name__ == "__main__":
    main()
