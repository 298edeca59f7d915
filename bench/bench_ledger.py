"""How long reading the ledger costs a build, against bare PyYAML on the same file.

Builds a ledger of 500 sources, two quotes each, one receipt per quote (in a temp folder), then
prints the best-of-N time of ``load_ledger`` and of ``yaml.load(CSafeLoader)`` and their ratio,
and what one ``append_receipt`` and one batched ``append_receipts`` cost on that ledger.
Run: ``.venv/bin/python bench/bench_ledger.py [--sources N] [--repeat R]``.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import tempfile
import time
from pathlib import Path

import yaml

from citeledger.ledger import append_receipt, append_receipts, load_ledger
from citeledger.ledger.yamlnodes import Loader, compose


def make_ledger(n: int, receipt_on_every_quote: bool = True) -> str:
    lines = ["# benchmark ledger", "citeledger: 1", "", "sources:"]
    for i in range(n):
        doi = f"10.{1000 + i}/bench.{i}"
        lines += [
            f"  src{i}:",
            f"    doi: {doi}",
            "    type: article-journal",
            f"    title: 'A study of things, part {i}'",
            "    author:",
            "      - {family: Author, given: First}",
            f"      - family: Second{i}",
            "        given: Person",
            f"    issued: {1990 + i % 30}",
            "    container-title: Journal of Benchmarks",
            f"    page: {i}-{i + 10}",
            "    quotes:",
        ]
        for q in range(2):
            text = f"The measured effect of condition {q} was {i} percent in every trial we ran."
            digest = hashlib.sha256(text.encode()).hexdigest()
            lines += [
                f'      - text: "{text}"',
                f"        id: q{q}",
                f"        locator: p. {i + q}",
            ]
            if q and not receipt_on_every_quote:
                continue
            lines += [
                "        receipts:",
                "          - outcome: found",
                f"            identifier: doi:{doi}",
                f"            requested_url: https://doi.org/{doi}",
                f"            url: https://example.org/articles/{i}",
                "            redirects:",
                f"              - https://doi.org/{doi}",
                "            status: 200",
                "            content_type: text/html; charset=utf-8",
                "            retrieved_at: '2026-08-02T09:12:44Z'",
                f"            body_sha256: {digest}",
                f"            evidence: sha256/{digest[:2]}/{digest}.warc.gz",
                "            extractor: selectolax 0.3.21",
                f"            text_sha256: {digest}",
                "            page: 1",
                f"            char_start: {100 * q}",
                f"            char_end: {100 * q + len(text)}",
                f'            quote: "{text}"',
                f"            quote_sha256: {digest}",
                "            prefix: 'the context before the quote: '",
                "            suffix: ' and the context after it...'",
                "            match: exact",
                "            score: 1.0",
                f"            writer_quote_sha256: {digest}",
                "            tool: citeledger 0.1.0",
            ]
    return "\n".join(lines) + "\n"


def best(fn: object, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument(
        "--receipts",
        choices=["quote", "source"],
        default="quote",
        help="one receipt on every quote (default) or on the first quote of each source",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "citeledger.yaml"
        path.write_text(make_ledger(args.sources, args.receipts == "quote"), encoding="utf-8")
        ledger = load_ledger(path)
        assert len(ledger.sources) == args.sources

        def bare() -> object:
            return yaml.load(path.read_text(encoding="utf-8"), Loader=Loader)

        text = path.read_text(encoding="utf-8")
        ours = best(lambda: load_ledger(path), args.repeat)
        theirs = best(bare, args.repeat)

        def compose_only() -> None:
            gc.disable()  # as load_ledger does
            try:
                compose(text, str(path))
            finally:
                gc.enable()

        floor = best(compose_only, args.repeat)
        size = path.stat().st_size
        receipt = {
            "outcome": "found",
            "identifier": "doi:10.1000/bench.0",
            "retrieved_at": "2026-08-02T09:12:44Z",
            "tool": "bench",
            "writer_quote_sha256": "d" * 64,
        }
        one = best(lambda: append_receipt(path, "src0", 0, receipt), 3)
        batch = [(f"src{i}", 1, receipt) for i in range(args.sources)]
        many = best(lambda: append_receipts(path, batch), 1)
    per = "quote" if args.receipts == "quote" else "source"
    print(
        f"ledger: {args.sources} sources, 2 quotes each, a receipt per {per}, {size / 1024:.0f} KiB"
    )
    print(f"loader: {Loader.__name__}")
    print(f"load_ledger:           {ours * 1000:7.1f} ms (best of {args.repeat})")
    print(f"  of which compose:    {floor * 1000:7.1f} ms (PyYAML's parser building nodes)")
    print(f"yaml.load (same file): {theirs * 1000:7.1f} ms")
    print(f"ratio load_ledger / yaml.load: {ours / theirs:.2f}")
    print(f"append_receipt (one):  {one * 1000:7.1f} ms (lock, read, splice, validate, replace)")
    print(f"append_receipts ({len(batch)}): {many * 1000:7.1f} ms (one locked write)")


if __name__ == "__main__":
    main()
