"""The build side of issue 8: what the filter costs a thesis, a page and a site, as ratios.

Makes a project of local text sources (verified by a real ``citeledger verify``, so every
citation has a receipt and WARC evidence), then measures, each figure against its baseline in
the same run (best of ``--repeat``; the baselines and the filter runs are interleaved):

- thesis: 144k words, 3,000 citations over 500 sources, ``pandoc -f markdown -t html`` with
  ``--filter pandoc-citeledger`` against the same build with a ``cat`` filter and with a
  panflute identity filter (wall time of the whole pandoc run);
- page: a one-citation page against a 2,000-source ledger, the filter's CPU time (user + sys)
  above a ``cat`` filter's on the same JSON;
- site: 300 pages of 1–5 citations each sharing the 2,000-source ledger: built one after
  another with the filter against ``cat``, and by ``citeledger build`` (one process, pandoc
  run per page) against the ``cat`` loop at the same concurrency (``--jobs`` 1 and 2);
- rerun: the filter on its own output against its first run on the thesis (filter process only).

The judgement index (``citeledger.evidence.judgements``) is written by the first build; the
figures are for the builds after it (a writer's second build onwards), and the thesis line also
prints the first build's time without an index, the site lines the first ``citeledger build``
(without and with ``--evidence-pages``). Needs panflute (``pip install panflute``) for
the panflute baseline, which is skipped without it.

Run: ``.venv/bin/python bench/bench_build.py [--repeat R] [--pages N] [--only NAME]``.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pypandoc

PANDOC = str(pypandoc.get_pandoc_path())
BIN = Path(sys.executable).parent
PROSE = (
    "the results of this chapter suggest that the measured effect is robust across samples "
    "and that earlier estimates were biased by the selection of cases in several studies"
)
WORDS = PROSE.split(" ")


def make_sources(folder: Path, n: int) -> None:
    """``n`` local text sources of about 1,000 words, one quote each, verified for real."""
    rng = random.Random(n)
    lines = ["sources:"]
    for i in range(n):
        filler = " ".join(rng.choice(WORDS) for _ in range(1000))
        (folder / f"src{i}.txt").write_text(
            f"Source {i}. {filler}. The measured effect number {i} is robust. {filler}.\n"
        )
        lines += [
            f"  s{i}:",
            f"    file: src{i}.txt",
            f"    title: A study of things, part {i}",
            "    quotes:",
            f"      - text: The measured effect number {i} is robust.",
        ]
    (folder / "citeledger.yaml").write_text("\n".join(lines) + "\n", "utf-8")
    proc = subprocess.run(
        [str(BIN / "citeledger"), "verify", "--yes"],
        cwd=folder,
        capture_output=True,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"verify failed: {proc.stderr.decode(errors='replace')[-800:]}")


def paragraph(rng: random.Random, words: int, keys: list[int]) -> str:
    text = " ".join(rng.choice(WORDS) for _ in range(words)).capitalize()
    cites = "".join(f" [@s{k}]" for k in keys)
    return f"{text}{cites}. A second sentence follows, with *emphasis* and `code`."


def make_thesis(words: int, citations: int, keys: int) -> str:
    rng = random.Random(1)
    per = max(1, words // citations - 9)
    out = ["---", "title: A synthetic thesis", "---", ""]
    for i in range(citations):
        if i % 150 == 0:
            out += [f"# Chapter {i // 150 + 1}", ""]
        out += [paragraph(rng, per, [i % keys]), ""]
    return "\n".join(out)


def make_pages(n: int, keys: int) -> list[str]:
    rng = random.Random(2)
    pages = []
    for p in range(n):
        cited = [rng.randrange(keys) for _ in range(rng.randint(1, 5))]
        body = [f"# Page {p}", ""] + [paragraph(rng, 60, [k]) + "\n" for k in cited]
        pages.append("\n".join(body))
    return pages


def write_filters(folder: Path) -> dict[str, str]:
    cat = folder / "cat-filter"
    cat.write_text("#!/bin/sh\nexec cat\n")
    cat.chmod(0o755)
    filters = {"cat": str(cat), "citeledger": str(BIN / "pandoc-citeledger")}
    try:
        import panflute  # noqa: F401
    except ImportError:
        return filters
    pf = folder / "panflute-identity"
    pf.write_text(
        f"#!{sys.executable}\nimport panflute\n\n"
        "def identity(elem, doc):\n    return None\n\n"
        "panflute.run_filter(identity)\n"
    )
    pf.chmod(0o755)
    filters["panflute"] = str(pf)
    return filters


def timed(cmd: list[str], cwd: Path, data: bytes | None = None) -> tuple[float, float, bytes]:
    """Wall seconds, children's CPU seconds and stdout of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, input=data, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{cmd} failed: {proc.stderr.decode(errors='replace')[-800:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


Times = tuple[float, float]  # wall seconds, CPU seconds (user + sys of the processes)


def best(repeat: int, runs: dict[str, Callable[[], Times]]) -> dict[str, Times]:
    """Each run's best wall and best CPU time of ``repeat``, the runs interleaved so that noise
    hits them alike."""
    times: dict[str, list[Times]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            times[name].append(run())
    return {name: (min(w for w, _ in ts), min(c for _, c in ts)) for name, ts in times.items()}


def ratio_line(what: str, t: dict[str, Times], a: str, b: str, target: str) -> str:
    wall, cpu = t[a][0] / t[b][0], t[a][1] / t[b][1]
    return f"  {what:<28} {wall:.2f} wall, {cpu:.2f} CPU  (target {target})"


def build(folder: Path, doc: str, filt: str) -> Times:
    wall, cpu, _ = timed([PANDOC, doc, "-t", "html", "-o", os.devnull, "--filter", filt], folder)
    return wall, cpu


def bench_thesis(folder: Path, filters: dict[str, str], repeat: int) -> None:
    (folder / "thesis.md").write_text(make_thesis(144_000, 3000, 500), "utf-8")
    shutil.rmtree(folder / ".citeledger" / "judgements", ignore_errors=True)
    first = build(folder, "thesis.md", filters["citeledger"])
    runs = {name: (lambda f=f: build(folder, "thesis.md", f)) for name, f in filters.items()}
    t = best(repeat, runs)
    print(f"thesis (144k words, 3,000 citations, 500 sources), best of {repeat}:")
    for name, (wall, cpu) in t.items():
        print(f"  pandoc --filter {name:<11} {wall:.3f} s wall, {cpu:.3f} s CPU")
    print(f"  first build, no index yet:  {first[0]:.3f} s wall, {first[1]:.3f} s CPU")
    print(ratio_line("ratio citeledger / cat:", t, "citeledger", "cat", "<= 1.25"))
    if "panflute" in t:
        print(ratio_line("ratio citeledger / panflute:", t, "citeledger", "panflute", "<= 0.8"))
    else:
        print("  panflute not installed: no panflute ratio (pip install panflute)")
    ast = timed([PANDOC, "thesis.md", "-t", "json"], folder)[2]
    filtered = timed([filters["citeledger"], "html"], folder, ast)[2]
    rerun = best(
        repeat,
        {
            "first": lambda: timed([filters["citeledger"], "html"], folder, ast)[:2],
            "again": lambda: timed([filters["citeledger"], "html"], folder, filtered)[:2],
        },
    )
    print(f"rerun: the filter on its own output vs a first run, best of {repeat}:")
    for name, (wall, cpu) in rerun.items():
        print(f"  {name:<6} {wall:.3f} s wall, {cpu:.3f} s CPU")
    print(ratio_line("ratio rerun / first:", rerun, "again", "first", "<= 1.1"))
    # what the build costs beyond the filter process: pandoc reading and writing the wrapped
    # citations (a Span each, the claim anchor its id), which the filter cannot make cheaper
    html = [PANDOC, "-f", "json", "-t", "html", "-o", os.devnull]
    floor = best(
        repeat,
        {
            "own": lambda: timed(html, folder, ast)[:2],
            "filtered": lambda: timed(html, folder, filtered)[:2],
        },
    )
    extra = floor["filtered"][1] - floor["own"][1]
    print(f"  filter process {rerun['first'][1]:.3f} s CPU; pandoc writing its output instead")
    print(f"  of the plain AST: +{extra:.3f} s CPU (the wrapped citations, not the filter)")


def bench_page(folder: Path, filters: dict[str, str], repeat: int) -> None:
    (folder / "page.md").write_text(paragraph(random.Random(3), 60, [1234]) + "\n", "utf-8")
    ast = timed([PANDOC, "page.md", "-t", "json"], folder)[2]
    timed([filters["citeledger"], "html"], folder, ast)  # a first build: index and outline
    runs = {name: (lambda f=f: timed([f, "html"], folder, ast)[:2]) for name, f in filters.items()}
    t = best(repeat, runs)
    extra = t["citeledger"][1] - t["cat"][1]
    print(f"page (one citation, 2,000-source ledger), the filter process alone, best of {repeat}:")
    print(f"  cat {t['cat'][1]:.3f} s CPU, citeledger {t['citeledger'][1]:.3f} s CPU")
    print(f"  filter CPU above cat:        {extra:.3f} s  (target <= 0.15)")


def bench_site(folder: Path, filters: dict[str, str], repeat: int, pages: int) -> None:
    site = folder / "site"
    site.mkdir(exist_ok=True)
    names = []
    for i, text in enumerate(make_pages(pages, 2000)):
        (site / f"p{i}.md").write_text(text, "utf-8")
        names.append(f"site/p{i}.md")

    def all_pages(filt: str) -> Times:
        each = [build(folder, name, filt) for name in names]
        return sum(w for w, _ in each), sum(c for _, c in each)

    first = {}
    for name, extra in (("build", ()), ("+ evidence pages", ("--evidence-pages", "site-ev"))):
        shutil.rmtree(folder / ".citeledger" / "judgements", ignore_errors=True)
        shutil.rmtree(folder / "site-ev", ignore_errors=True)
        first[name] = site_batch(folder, names, 1, *extra)
    all_pages(filters["citeledger"])  # the first build writes the index entries
    runs = {name: (lambda f=filters[name]: all_pages(f)) for name in ("cat", "citeledger")}
    t = best(repeat, runs)
    print(f"site ({pages} pages of 1-5 citations, 2,000-source ledger), best of {repeat}:")
    print("  a filter process per page (pandoc PAGE -t html --filter F, one page after another):")
    for name, (wall, cpu) in t.items():
        print(f"  {name:<10} {wall:.2f} s wall, {cpu:.2f} s CPU")
    print(ratio_line("ratio citeledger / cat:", t, "citeledger", "cat", "<= 1.5"))
    print("  citeledger build --jobs 1, first build (no judgement index yet):")
    for name, (wall, cpu) in first.items():
        print(f"  {name:<18} {wall:.2f} s wall, {cpu:.2f} s CPU")
    for jobs in (1, 2):
        batch = best(
            repeat,
            {
                "cat": lambda j=jobs: cat_loop(folder, names, filters["cat"], j),
                "build": lambda j=jobs: site_batch(folder, names, j),
            },
        )
        print(f"  citeledger build --jobs {jobs} vs the cat loop {jobs} pages at a time (-o FILE):")
        for name, (wall, cpu) in batch.items():
            print(f"  {name:<10} {wall:.2f} s wall, {cpu:.2f} s CPU")
        print(ratio_line(f"ratio build / cat, jobs={jobs}:", batch, "build", "cat", "<= 1.5"))


def cat_loop(folder: Path, names: list[str], cat: str, jobs: int) -> Times:
    """Every page through pandoc with the ``cat`` filter into its file, ``jobs`` at a time."""
    from concurrent.futures import ThreadPoolExecutor

    out = folder / "site-cat"
    out.mkdir(exist_ok=True)

    def one(name: str) -> None:
        html = str(out / Path(name).with_suffix(".html").name)
        timed([PANDOC, name, "-t", "html", "-o", html, "--filter", cat], folder)

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(one, names))
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def site_batch(folder: Path, names: list[str], jobs: int, *extra: str) -> Times:
    """``citeledger build`` of every page into its file (the same pandoc arguments)."""
    cmd = [str(BIN / "citeledger"), "build", *names, "--base", "site", "-o", "site-built"]
    cmd += ["--jobs", str(jobs), "--pandoc", PANDOC, *extra, "--", "-t", "html"]
    wall, cpu, _ = timed(cmd, folder)
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--only", choices=("thesis", "page", "site"), action="append")
    parser.add_argument("--keep", help="build the projects in this folder and keep them")
    args = parser.parse_args()
    only = set(args.only or ("thesis", "page", "site"))
    tmp = tempfile.mkdtemp(prefix="bench-build-")
    root = Path(args.keep or tmp)
    root.mkdir(parents=True, exist_ok=True)
    try:
        os.environ["CITELEDGER_CACHE_DIR"] = str(root / "cache")
        # as pip leaves an install: with bytecode (an editable checkout, or a shell with
        # PYTHONDONTWRITEBYTECODE, would otherwise compile every module in every filter run)
        import citeledger

        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(Path(citeledger.__file__).parent)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        filters = write_filters(root)
        if "thesis" in only:
            thesis = root / "thesis"
            if not (thesis / "citeledger.yaml").exists():
                thesis.mkdir(parents=True, exist_ok=True)
                make_sources(thesis, 500)
            bench_thesis(thesis, filters, args.repeat)
        if only & {"page", "site"}:
            big = root / "big"
            if not (big / "citeledger.yaml").exists():
                big.mkdir(parents=True, exist_ok=True)
                make_sources(big, 2000)
            if "page" in only:
                bench_page(big, filters, args.repeat)
            if "site" in only:
                bench_site(big, filters, args.repeat, args.pages)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
