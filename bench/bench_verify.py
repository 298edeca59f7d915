"""verify at scale: N local text sources, against a bare in-process loop doing the same work.

Generates (in a temp folder) a ledger of N sources, each a ~6 KB text file with one quote, runs
the real CLI ``citeledger verify --yes`` on it in a subprocess, and prints its wall time, sources
per second and peak RSS (the CLI and its workers, ``RUSAGE_CHILDREN``), then the same extraction
and locating done by a bare loop in this process (read, ``analyse``), and the ratio of the two.
Run: ``.venv/bin/python bench/bench_verify.py [--sources N]`` (default 2,000).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from citeledger.ledger import load_ledger
from citeledger.verify.receipts import analyse


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


def run_verify(folder: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one real ``citeledger verify --yes``."""
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "citeledger.cli", "verify", "--yes"],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        check=True,
    )
    wall = time.perf_counter() - start
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, peak_kb / 1000


def bare_loop(folder: Path, n: int) -> float:
    start = time.perf_counter()
    for i in range(n):
        body = (folder / f"page{i}.txt").read_bytes()
        analyse(body, "text/plain", None, None, ((f"The passage number {i} is here.", None),))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sources", type=int, default=2000)
    args = parser.parse_args()
    n = args.sources
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ledger = make_project(folder, n)
        wall, rss = run_verify(folder)
        led = load_ledger(ledger)
        found = sum(1 for s in led.sources.values() for q in s.quotes if q.latest)
        bare = bare_loop(folder, n)
    print(
        f"verify, {n} local sources: {wall:.2f} s wall, {n / wall:.0f} sources/s, {found} receipts"
    )
    print(f"verify peak RSS (CLI and workers): {rss:.0f} MB")
    print(f"bare in-process extract+locate loop: {bare:.2f} s ({n / bare:.0f} sources/s)")
    print(f"ratio verify / bare loop: {wall / bare:.2f}x")


if __name__ == "__main__":
    main()
