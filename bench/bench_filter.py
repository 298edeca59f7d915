"""What the filter adds to a build: pandoc with the filter against pandoc without it.

Builds a synthetic thesis (default 2,000 paragraphs, 500 citations over 250 keys — 150 of them in
a ledger with a quote each, so most citations are ``unchecked`` and the rest ``not-in-ledger``:
every one is a breakdown, the worst case for rendering), then times, best of N:

- plain:    ``pandoc -t json`` → ``pandoc -f json -t html``
- filtered: ``pandoc -t json`` → ``pandoc-citeledger html`` → ``pandoc -f json -t html``

and prints both, their ratio, and the filter's own share (process start included). The stages
run one after another with the JSON held in memory, as a shell pipe would feed them.
Run: ``.venv/bin/python bench/bench_filter.py [--paragraphs N] [--citations N] [--repeat R]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pypandoc

PANDOC = str(pypandoc.get_pandoc_path())
ROOT = Path(__file__).resolve().parent.parent


PROSE = (
    "the results of this chapter suggest that the measured effect is robust across samples "
    "and that earlier estimates were biased by the selection of cases"
)


def make_thesis(paragraphs: int, citations: int, keys: int) -> str:
    words = PROSE.split(" ")
    out = ["---", "title: A synthetic thesis", "---", ""]
    every = max(1, paragraphs // citations)
    cited = 0
    for i in range(paragraphs):
        if i % 200 == 0:
            out += [f"# Chapter {i // 200 + 1}", ""]
        sentence = " ".join(words[(i + j) % len(words)] for j in range(40)).capitalize()
        text = f"{sentence}. A second sentence follows here, with *emphasis* and `code`."
        if i % every == 0 and cited < citations:
            key = f"src{cited % keys}"
            text = f"{sentence} [@{key}, p. {cited % 300 + 1}]. A second sentence follows."
            cited += 1
        out += [text, ""]
    return "\n".join(out)


def make_ledger(in_ledger: int) -> str:
    lines = ["sources:"]
    for i in range(in_ledger):
        lines += [
            f"  src{i}:",
            f"    url: https://example.org/paper/{i}",
            f"    title: A study of things, part {i}",
            "    quotes:",
            f"      - text: The measured effect is robust across samples, study {i}.",
        ]
    return "\n".join(lines) + "\n"


def filter_command() -> list[str]:
    script = Path(sys.executable).parent / "pandoc-citeledger"
    if script.exists():
        return [str(script), "html"]
    return [sys.executable, str(ROOT / "filters" / "citeledger.py"), "html"]


def run(cmd: list[str], data: bytes, cwd: Path, env: dict[str, str]) -> tuple[bytes, float]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, input=data, capture_output=True, cwd=cwd, env=env, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed: {proc.stderr.decode(errors='replace')[-800:]}")
    return proc.stdout, elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paragraphs", type=int, default=2000)
    parser.add_argument("--citations", type=int, default=500)
    parser.add_argument("--keys", type=int, default=250)
    parser.add_argument("--in-ledger", type=int, default=150)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        markdown = make_thesis(args.paragraphs, args.citations, args.keys).encode()
        (folder / "citeledger.yaml").write_text(make_ledger(args.in_ledger))
        env = dict(os.environ, CITELEDGER_LEDGER=str(folder / "citeledger.yaml"))
        to_json = [PANDOC, "-f", "markdown", "-t", "json"]
        to_html = [PANDOC, "-f", "json", "-t", "html"]
        plain: list[float] = []
        filtered: list[float] = []
        filter_only: list[float] = []
        writer_plain: list[float] = []
        writer_filtered: list[float] = []
        for _ in range(args.repeat):
            ast, t_json = run(to_json, markdown, folder, env)
            _, t_html = run(to_html, ast, folder, env)
            plain.append(t_json + t_html)
            writer_plain.append(t_html)
            ast, t_json = run(to_json, markdown, folder, env)
            out, t_filter = run(filter_command(), ast, folder, env)
            _, t_html = run(to_html, out, folder, env)
            filtered.append(t_json + t_filter + t_html)
            filter_only.append(t_filter)
            writer_filtered.append(t_html)
        best_plain, best_filtered = min(plain), min(filtered)
        print(
            f"document: {args.paragraphs} paragraphs, {args.citations} citations, "
            f"{len(markdown) // 1024} KiB Markdown, {len(ast) // 1024} KiB JSON"
        )
        print(f"plain    pandoc -t json | pandoc -f json:                    {best_plain:.3f} s")
        print(
            f"filtered pandoc -t json | pandoc-citeledger | pandoc -f json: {best_filtered:.3f} s"
        )
        print(
            f"filter process alone (start-up included):                    {min(filter_only):.3f} s"
        )
        extra = min(writer_filtered) - min(writer_plain)
        print(f"pandoc writing the added flags and callouts:                  {extra:+.3f} s")
        print(f"ratio filtered / plain: {best_filtered / best_plain:.2f} (best of {args.repeat})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
