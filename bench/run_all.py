"""``make bench``: every benchmark, each printing ratios against a baseline run in the same process
or command (absolute times drift on shared machines; ratios are what we compare)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHES = [
    "bench_build.py",
    "bench_filter.py",
    "bench_ledger.py",
    "bench_locate.py",
    "bench_extract_pdf.py",
    "bench_verify.py",
    "bench_verify_http.py",
]


def main() -> int:
    failed = 0
    for name in BENCHES:
        print(f"\n=== {name}", flush=True)
        failed += subprocess.run([sys.executable, str(HERE / name)], check=False).returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
