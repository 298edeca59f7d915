"""``citeledger build PAGE… [-o DIR] [--base DIR] [--ext EXT] [--jobs N] -- PANDOC-ARGS…``.

A site's pages built in one process (``citeledger.build.batch``), each exactly as ``pandoc PAGE
--filter pandoc-citeledger PANDOC-ARGS -o OUT`` would build it.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

_EPILOG = """\
Everything after -- is pandoc's: reader and writer options, -M, --citeproc, filters. Our filter
runs where --filter pandoc-citeledger stands among them (default: before every other filter
and --citeproc). Each page's output is its path under --base, moved to -o DIR, with --ext
(default: from -t, else .html). Example:

  citeledger build pages/*.md pages/*/*.md --base pages -o public \\
      --evidence-pages public/evidence -- -s --citeproc -M citeledger.ledger=citeledger.yaml
"""


def add_parser(sub: Any) -> None:
    b = sub.add_parser(
        "build",
        usage="citeledger build PAGE... [-o DIR] [--base DIR] [--ext EXT] [-j N] "
        "[--evidence-pages DIR] [--pandoc PATH] [-- PANDOC-ARGS...]",
        help="build many pages with pandoc and the filter in one process (a site)",
        description="Build each PAGE as `pandoc PAGE --filter pandoc-citeledger PANDOC-ARGS -o "
        "OUT` would, byte for byte, with the ledger and the evidence read once for all pages. "
        "A page that fails (strict, bad input) is not written; the others are.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    b.add_argument("pages", nargs="+", metavar="PAGE", help="the pages (files) to build")
    b.add_argument(
        "-o", "--out-dir", metavar="DIR", help="the output folder (default: the --base folder)"
    )
    b.add_argument(
        "--base",
        metavar="DIR",
        help="the folder the pages' paths are taken relative to (default: the current one)",
    )
    b.add_argument("--ext", metavar="EXT", help="the outputs' extension (default: from -t)")
    b.add_argument(
        "-j", "--jobs", type=int, metavar="N", help="pages built at once (default: the CPUs)"
    )
    b.add_argument(
        "--evidence-pages",
        metavar="DIR",
        help="write evidence pages to DIR and link each page to it relatively (its own "
        "citeledger.evidence-link); a -M or the page's metadata wins",
    )
    b.add_argument("--pandoc", metavar="PATH", help="the pandoc to run (default: $PANDOC, PATH)")


def split_argv(argv: list[str]) -> tuple[list[str], list[str]]:
    """Our arguments and pandoc's: for ``build``, everything after the first ``--``."""
    if "--" not in argv:
        return argv, []
    at = argv.index("--")
    command = next((w for w in argv[:at] if not w.startswith("-")), None)
    if command != "build":
        return argv, []
    return argv[:at], argv[at + 1 :]


def run(args: argparse.Namespace, pandoc_args: list[str]) -> int:
    from citeledger.build.batch import run_build

    try:
        return run_build(
            args.pages,
            pandoc_args,
            out_dir=args.out_dir,
            base=args.base,
            ext=args.ext,
            jobs=args.jobs,
            pandoc=args.pandoc,
            evidence_pages=args.evidence_pages,
            stderr=sys.stderr,
        )
    except KeyboardInterrupt:  # the pages being built are left as they were
        print("citeledger: build interrupted; every page written is whole", file=sys.stderr)
        return 130
