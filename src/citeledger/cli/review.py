"""``citeledger review DOC…``: its options, and the call into ``review.session``."""

from __future__ import annotations

import argparse
from typing import Any

_OUTSIDE = "allow a document's ledger outside the project"


def add_parser(sub: Any) -> None:
    r = sub.add_parser(
        "review",
        help="read each checked claim against its quote and record whether it supports it",
        description="On a terminal, put each checked citation without a review that holds "
        "before you: the claim, the quote in its context, the snapshot. Answer supports (a "
        "review is recorded in the ledger), does not support (the source is recorded as "
        "disputed) or skip. A review never makes a citation checked.",
    )
    r.add_argument("docs", nargs="+", metavar="DOC", help="the documents whose claims to review")
    r.add_argument("--ledger", help="default: the document's citeledger.ledger, else beside it")
    r.add_argument(
        "--as", dest="reviewer", metavar="NAME", help="who reviews (default: the git author)"
    )
    r.add_argument(
        "--list", dest="list_only", action="store_true", help="print what awaits; ask nothing"
    )
    r.add_argument("--from", dest="from_format", metavar="FORMAT", help="pandoc reader")
    r.add_argument("--allow-outside", action="store_true", help=_OUTSIDE)


def add_check_options(c: Any) -> None:
    """``check --min-reviewed``: the review gate beside ``--min-coverage``."""
    c.add_argument(
        "--min-reviewed",
        type=float,
        metavar="RATIO",
        help="fail when the share of checked citations with a review that holds is lower",
    )


def run(args: argparse.Namespace) -> int:
    from citeledger.review.session import run_review

    return run_review(
        args.docs,
        ledger=args.ledger,
        reviewer=args.reviewer,
        list_only=args.list_only,
        from_format=args.from_format,
        allow_outside=args.allow_outside,
    )
