"""Peak memory and time of the hostile inputs of issue 12 (findings 5-7), each in a fresh process.

- deep documents through the filter (pandoc's own JSON of a 340-deep list, 500-deep quotes and
  divs, 200 citations nested in prefixes, and 3,000-deep quotes, past the bound);
- nested ``<div>``s (10k/100k/200k) and 40 MB pages (a corpus article repeated; 40 MB of
  nesting) through ``extract_html``;
- FlateDecode bombs (1 MB → 1 GiB, 3 MB → 3 GiB) through ``extract_pdf``, at the stream cap and,
  with the cap lifted, through the bounded worker (its 2000 MB memory limit).

``--before`` runs the extractors as they were (no depth cap, no stream cap, no worker) under a
wall-clock timeout. Run: ``.venv/bin/python bench/bench_bounded.py [--before] [--timeout S]``.
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

ROOT = Path(__file__).resolve().parent.parent
PANDOC = str(pypandoc.get_pandoc_path())
FILTER = str(Path(sys.executable).parent / "pandoc-citeledger")

SETUP = f"""
import sys, glob, os
sys.path[:0] = [{str(ROOT / "src")!r}, {str(ROOT / "tests")!r}]
from hostile_inputs import flate_bomb_pdf, nested_divs
from citeledger.extract import html as H, extract_pdf as P
BEFORE = os.environ.get("BENCH_BEFORE") == "1"
if BEFORE:
    H.cap_depth = lambda html, limit=0: html
def corpus_page(size):
    f = max(glob.glob({str(ROOT.parent / "shared/corpus/html/*.htm*")!r}), key=os.path.getsize)
    page = open(f, "rb").read()
    inner = page[page.lower().find(b"<body"):page.lower().rfind(b"</body")]
    return b"<html><body>" + inner * (size // len(inner) + 1) + b"</body></html>"
def run(call):
    try:
        call()
        print("ok")
    except Exception as exc:
        print(type(exc).__name__ + ": " + str(exc)[:90])
"""

EXTRACT_CASES = {
    "html 10k nested divs": "run(lambda: H.extract_html(nested_divs(10_000)))",
    "html 100k nested divs": "run(lambda: H.extract_html(nested_divs(100_000)))",
    "html 200k nested divs": "run(lambda: H.extract_html(nested_divs(200_000)))",
    "html 40 MB article": "run(lambda: H.extract_html(corpus_page(40_000_000)))",
    "html 40 MB nested divs": "run(lambda: H.extract_html(nested_divs(40_000_000 // 11)))",
    "pdf 1 MB -> 1 GiB bomb": (
        "run(lambda: P.extract_pdf(flate_bomb_pdf(1 << 30), 1 << 62 if BEFORE else 250_000_000))"
    ),
    "pdf 3 MB -> 3 GiB bomb": (
        "run(lambda: P.extract_pdf(flate_bomb_pdf(3 << 30), 1 << 62 if BEFORE else 250_000_000))"
    ),
    "pdf 1 GiB bomb, cap lifted, in the worker": (
        "from citeledger.verify.bounded import Limits, run_bounded\n"
        "from citeledger.verify.receipts import analyse\n"
        "run(lambda: run_bounded(analyse, (flate_bomb_pdf(1 << 30), 'application/pdf', None,"
        " 200, (), 1 << 62), Limits()))"
    ),
}

# Not run --before: the worker did not exist, and the issue measured these already (200k divs
# over 300 s, 40 MB of nesting over 600 s, the 3 GiB bomb 4.2 GB): no need to load the machine.
_NOT_BEFORE = ("worker", "200k", "40 MB nested", "3 GiB")

DEEP = {
    "list 340": "\n".join("    " * i + f"- item {i} [@k]" for i in range(340)),
    "quote 500": "> " * 500 + "deep words [@k].",
    "div 500": "\n".join(":" * (503 - i) + " {.d}" for i in range(500))
    + "\n\nwords [@k].\n\n"
    + "\n".join(":" * (4 + i) for i in range(500)),
    "prefix 200": "words " + "[see " * 200 + "[@k]" + "".join(f" @k{i}]" for i in range(200)),
    "quote 3000 (past the bound)": "> " * 3000 + "deep words [@k].",
}


def measure(argv: list[str], stdin: bytes | None, env: dict[str, str], timeout: float) -> str:
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return f"> {timeout:.0f} s (stopped)"
    seconds = time.perf_counter() - start
    last = (out.decode().strip().splitlines() or err.decode().strip().splitlines() or ["?"])[-1]
    return f"{seconds:6.1f} s  {last[:110]}"


def peak_mb() -> int:
    """The largest peak RSS of this process's children (the case, and its worker)."""
    import resource

    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", action="store_true")
    ap.add_argument("--timeout", type=float, default=600)
    args = ap.parse_args()
    env = dict(os.environ, BENCH_BEFORE="1" if args.before else "0")
    print(f"{'input':45} {'peak RSS':>9}  time, outcome")
    for name in EXTRACT_CASES:
        if args.before and any(w in name for w in _NOT_BEFORE):
            continue
        # one process per case, so that ru_maxrss of the children is this case's peak
        line = subprocess.run(
            [sys.executable, __file__, "--one", name, str(args.timeout)],
            env=env,
            capture_output=True,
            text=True,
        )
        print(line.stdout.strip() or line.stderr.strip().splitlines()[-1])
    if args.before:
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "citeledger.yaml").write_text(
            "sources:\n  k:\n    url: https://example.org/\n    quotes:\n      - text: deep\n"
        )
        for name, text in DEEP.items():
            md = Path(tmp, "doc.md")
            md.write_text(text + "\n")
            ast = subprocess.run([PANDOC, str(md), "-t", "json"], capture_output=True).stdout
            line = subprocess.run(
                [sys.executable, __file__, "--filter", name, str(args.timeout)],
                input=ast,
                cwd=tmp,
                capture_output=True,
            )
            print(line.stdout.decode().strip())
    return 0


def one(name: str, timeout: float) -> None:
    code = SETUP + EXTRACT_CASES[name]
    result = measure([sys.executable, "-c", code], None, dict(os.environ), timeout)
    print(f"{name:45} {peak_mb():6d} MB  {result}")


def one_filter(name: str, timeout: float) -> None:
    ast = sys.stdin.buffer.read()
    start = time.perf_counter()
    proc = subprocess.run([FILTER, "html"], input=ast, capture_output=True, timeout=timeout)
    seconds = time.perf_counter() - start
    tail = proc.stderr.decode().strip().splitlines()
    outcome = "ok" if proc.returncode == 0 else (tail[-1][:110] if tail else "?")
    if "Traceback" in proc.stderr.decode():
        outcome = "TRACEBACK " + outcome
    print(
        f"filter {name:38} {peak_mb():6d} MB  {seconds:6.1f} s  exit {proc.returncode}: {outcome}"
    )


if __name__ == "__main__":
    if len(sys.argv) > 3 and sys.argv[1] == "--one":
        one(sys.argv[2], float(sys.argv[3]))
    elif len(sys.argv) > 3 and sys.argv[1] == "--filter":
        one_filter(sys.argv[2], float(sys.argv[3]))
    else:
        sys.exit(main())
