"""What ``citeledger.panflute`` costs against the standalone filter, on the same document.

Builds bench_filter's synthetic thesis (default 2,000 paragraphs, 500 citations, a ledger of 150
of the 250 keys), then times, in one process, best of N:

- standalone: ``citeledger.build.filter.main`` on the JSON bytes (what ``pandoc-citeledger`` does)
- panflute:   ``panflute.load`` → ``citeledger.panflute`` in ``run_filters`` → ``panflute.dump``

and prints both and their ratio: the price of putting citeledger in a panflute chain, which the
standalone filter does not pay (it never imports panflute).
Run: ``.venv/bin/python bench/bench_panflute.py [--paragraphs N] [--citations N] [--repeat R]``.
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench_filter import PANDOC, make_ledger, make_thesis


def best(work: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--paragraphs", type=int, default=2000)
    parser.add_argument("--citations", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    import panflute as pf

    from citeledger.build.filter import main as standalone
    from citeledger.panflute import Citeledger

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "citeledger.yaml").write_text(make_ledger(150))
        md = make_thesis(args.paragraphs, args.citations, 250)
        raw = subprocess.run(
            [PANDOC, "-f", "markdown", "-t", "json"], input=md.encode(), capture_output=True
        ).stdout
        os.chdir(folder)

        def plain() -> None:
            out = io.BytesIO()
            standalone(["html"], stdin=io.BytesIO(raw), stdout=out, stderr=io.StringIO())

        def chained() -> None:
            doc = pf.load(io.StringIO(raw.decode()))
            doc.format = "html"
            Citeledger(stderr=io.StringIO()).run(doc)
            pf.dump(doc, io.StringIO())

        a, b = best(plain, args.repeat), best(chained, args.repeat)
    print(f"document: {len(raw) // 1024} KB of JSON, {args.citations} citations")
    print(f"standalone filter:        {a * 1000:7.0f} ms")
    print(f"citeledger.panflute:      {b * 1000:7.0f} ms  ({b / a:.1f}x the standalone filter)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
