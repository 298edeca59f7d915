"""``citeledger deps DOC…``: the files a build of DOC depends on, in make's format.

A build's judgement reads the ledger, the evidence files its citations' receipts name and the
chained history log, none of which appear on pandoc's command line, so without this ``make``
cannot know that a re-verify or an altered capture must rebuild the PDF. The output is a make
rule (``TARGET: the files``) plus an empty rule per file, as ``gcc -MP`` writes them, so a
deleted evidence file rebuilds (and shows its breakdown) instead of stopping make with "No rule
to make target". Paths are relative to the current directory when they lie under it. Offline:
it judges with ``check``'s loop (``DocumentJudges``: the build's walk, judge and trust) and
never touches the network.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from citeledger.atomic import atomic_write


def add_parser(sub: Any) -> None:
    d = sub.add_parser(
        "deps",
        help="print the files a build depends on (ledger, evidence) as a make rule",
        description="Print a make rule naming the files a build of DOC reads besides DOC: the "
        "ledger, the evidence files its citations' receipts name and the history log. Include "
        "it in a Makefile so a re-verify or a changed capture rebuilds the output.",
    )
    d.add_argument("docs", nargs="+", metavar="DOC", help="the document(s) of one build")
    d.add_argument(
        "--target",
        help="the rule's target, the file the build writes (default: DOC's name with .pdf)",
    )
    d.add_argument("-o", "--out", metavar="FILE", help="write the rule to FILE (default stdout)")
    d.add_argument("--ledger", help="default: the document's citeledger.ledger, else beside it")
    d.add_argument("--from", dest="from_format", metavar="FORMAT", help="pandoc reader")
    d.add_argument("--allow-outside", action="store_true", help="allow a ledger outside")


def run(args: argparse.Namespace) -> int:
    target = args.target or str(Path(args.docs[0]).with_suffix(".pdf"))
    files = dependencies(
        args.docs,
        ledger=args.ledger,
        from_format=args.from_format,
        allow_outside=args.allow_outside,
    )
    targets = [target] + ([args.out] if args.out else [])
    text = make_rule(targets, files)
    if args.out:
        atomic_write(Path(args.out), text.encode("utf-8"), mode=0o644)
    else:
        sys.stdout.write(text)
    return 0


def dependencies(
    docs: Sequence[str],
    *,
    ledger: str | None = None,
    from_format: str | None = None,
    allow_outside: bool = False,
) -> list[str]:
    """The ledger, the evidence files the judged receipts name, and the history log, in order."""
    from citeledger.evidence.store import HISTORY
    from citeledger.report.check import DocumentJudges

    found: dict[str, None] = {}
    judges = DocumentJudges(ledger=ledger, from_format=from_format, allow_outside=allow_outside)
    for doc in docs:
        judged = judges.judge(doc, ledger_optional=True)
        if judged is None:
            continue  # no ledger by default: the filter warns; nothing for make to watch
        found[judged.ledger] = None
        store = Path(judged.judge.ledger.evidence_dir)
        history = store / HISTORY
        if history.is_file():
            found[str(history)] = None
        for judgement in judged.judgements:
            receipt = judgement.receipt
            if receipt is None and judgement.quote is not None:
                receipt = judgement.quote.latest
            if receipt is not None and receipt.evidence:
                found[str(store / receipt.evidence)] = None
    judges.finish()  # judged as the build judges: its verdicts serve the build that follows
    return [_relative(p) for p in found]


def _relative(path: str) -> str:
    """Relative to the current directory when under it: no machine path in a committed file."""
    p = Path(path).resolve()
    try:
        return str(p.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(p)


def make_rule(targets: Iterable[str], files: Sequence[str]) -> str:
    """``targets: files`` with continuation lines, then ``file:`` for each (gcc's -MP)."""
    head = " ".join(_escape(t) for t in targets) + ":"
    lines = [head] + [f" {_escape(f)}" for f in files]
    out = " \\\n".join(lines) + "\n"
    for f in files:
        out += f"\n{_escape(f)}:\n"
    return out


def _escape(path: str) -> str:
    """A path as a make word: spaces, ``#``, ``:`` and ``\\`` escaped, ``$`` doubled."""
    out = path.replace("\\", "\\\\").replace("$", "$$")
    for ch in " #:":
        out = out.replace(ch, "\\" + ch)
    return out
