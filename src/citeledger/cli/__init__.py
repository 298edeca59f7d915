"""The ``citeledger`` command line: one verb per command, each doing one thing.

This is the only place (with ``filter.main``) that turns exceptions into one-line messages and
exit codes: 0 success, 1 a breakdown, a failed threshold or (verify) a quote left unchecked,
2 bad input, 130 interrupted.
Nothing imports this module.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from citeledger import __version__
from citeledger.cli import build, deps
from citeledger.cli import review as review_cli
from citeledger.errors import CiteledgerError
from citeledger.inert import visible

_OUTSIDE = "allow a ledger's evidence_dir or a document's ledger outside the project"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="citeledger",
        description="Every citation a promise a reader can check.",
    )
    p.add_argument("--version", action="version", version=f"citeledger {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    v = sub.add_parser("verify", help="retrieve each source and find its quotes (the check)")
    v.add_argument("--ledger", default="citeledger.yaml")
    v.add_argument("--only", nargs="+", metavar="KEY", default=())
    v.add_argument("--dry-run", action="store_true", help="state the plan, send nothing")
    v.add_argument("--yes", action="store_true", help="do not ask before sending")
    v.add_argument(
        "--allow-private",
        action="store_true",
        help="allow loopback, private and link-local addresses",
    )
    v.add_argument("--config", help="retrieval settings (YAML): base URLs, mailto, limits")
    v.add_argument("--allow-outside", action="store_true", help=_OUTSIDE)
    v.add_argument("--warn-only", action="store_true", help="exit 0 even when a quote is unchecked")

    r = sub.add_parser("recheck", help="re-retrieve and classify: unchanged/moved/changed/gone")
    r.add_argument("--ledger", default="citeledger.yaml")
    r.add_argument("--only", nargs="+", metavar="KEY", default=())
    r.add_argument("--dry-run", action="store_true")
    r.add_argument("--yes", action="store_true")
    r.add_argument("--allow-private", action="store_true")
    r.add_argument("--config")
    r.add_argument("--allow-outside", action="store_true", help=_OUTSIDE)

    c = sub.add_parser("check", help="judge a document's citations offline (what the filter does)")
    c.add_argument("docs", nargs="+", metavar="DOC")
    c.add_argument("--ledger", help="default: the document's citeledger.ledger, else beside it")
    c.add_argument("--json", dest="json_out", metavar="FILE", help="write the report ('-': stdout)")
    c.add_argument("--warn-only", action="store_true", help="exit 0 even with breakdowns")
    c.add_argument(
        "--min-coverage",
        type=float,
        metavar="RATIO",
        help="fail when the share of prose sentences with provenance is lower",
    )
    review_cli.add_check_options(c)
    c.add_argument("--audience", help="the build's audience (default: public)")
    c.add_argument("--from", dest="from_format", metavar="FORMAT", help="pandoc reader")
    c.add_argument("--quiet", action="store_true", help="only the summary line")
    c.add_argument(
        "--all",
        dest="validate_all",
        action="store_true",
        help="validate every source of the ledger, not only the ones the documents cite",
    )
    c.add_argument(
        "--trusted-key",
        action="append",
        default=[],
        metavar="ed25519:…",
        help="a public key whose signed receipts this build trusts (repeatable)",
    )
    c.add_argument(
        "--require-signature",
        action="store_true",
        help="a receipt not signed by a trusted key is not checked",
    )
    c.add_argument("--allow-outside", action="store_true", help=_OUTSIDE)
    c.add_argument(
        "--format",
        dest="output_format",
        choices=("text", "github"),
        default="text",
        help="github: a workflow annotation at the line of each breakdown",
    )
    c.add_argument("--junit", metavar="FILE", help="write a JUnit XML report (a case per citation)")
    c.add_argument("--sarif", metavar="FILE", help="write a SARIF 2.1.0 log of the breakdowns")
    c.add_argument("--progress", action="store_true", help="print the checked share")
    c.add_argument(
        "--since",
        metavar="REPORT.json",
        help="a previous --json report: newly checked and newly broken citations since it",
    )

    loc = sub.add_parser("locate", help="find a quote in a source file (the locator alone)")
    loc.add_argument("source", nargs="?")
    loc.add_argument("quote", nargs="?")
    loc.add_argument("--batch", metavar="CASES.jsonl")
    loc.add_argument("--out", metavar="FILE", help="batch output (default stdout)")
    loc.add_argument("--score", action="store_true", help="batch: score against expect_found")

    w = sub.add_parser("withdraw", help="record a withdrawal (nothing is deleted)")
    w.add_argument("key")
    w.add_argument("--reason", required=True)
    w.add_argument("--source-says", help="what the source actually says")
    w.add_argument("--date", help="default: today (UTC)")
    w.add_argument("--ledger", default="citeledger.yaml")

    d = sub.add_parser("dispute", help="record that the source does not support the claim")
    d.add_argument("key")
    d.add_argument("--reason", required=True)
    d.add_argument("--source-says")
    d.add_argument("--date")
    d.add_argument("--ledger", default="citeledger.yaml")

    a = sub.add_parser("add", help="add a source to the ledger")
    a.add_argument("key")
    ident = a.add_mutually_exclusive_group(required=True)
    for kind in ("url", "doi", "arxiv", "isbn", "file"):
        ident.add_argument(f"--{kind}")
    a.add_argument("--title")
    a.add_argument("--quote", action="append", default=[], help="a passage (repeatable)")
    a.add_argument("--locator", help="locator of the (first) quote, e.g. 'p. 14'")
    a.add_argument("--ledger", default="citeledger.yaml")

    _quote_parser(sub)
    from citeledger.cli import adopt, pick

    adopt.add_parser(sub)
    pick.add_parser(sub)
    deps.add_parser(sub)
    build.add_parser(sub)
    review_cli.add_parser(sub)

    i = sub.add_parser("import", help="add sources from a BibTeX or CSL-JSON file")
    i.add_argument("bibliography")
    i.add_argument("--ledger", default="citeledger.yaml")

    k = sub.add_parser("key", help="the signing key verify signs receipts with")
    ksub = k.add_subparsers(dest="key_command", required=True, metavar="ACTION")
    ki = ksub.add_parser("init", help="create a key outside the project; print its public name")
    ki.add_argument("--path", help="default: $XDG_CONFIG_HOME/citeledger/signing-key.pem")
    ki.add_argument("--force", action="store_true", help="replace an existing key")
    ks = ksub.add_parser("show", help="print the public name of the signing key")
    ks.add_argument("--path")

    e = sub.add_parser("evidence", help="write one read-only evidence page per receipt")
    e.add_argument("--ledger", default="citeledger.yaml")
    e.add_argument("--out", default="evidence", help="folder for the pages")
    e.add_argument(
        "--lang",
        help="the citing document's language (its `lang:`): quote locators are read with its "
        "terms, as the build reads them (`locator: S. 3` is page 3 in German)",
    )
    _fill_help(p)
    return p


#: Help for the options that recur across subcommands, by destination; an option's own help
#: wins. Keeps ``--help`` complete without repeating the same line at every subcommand.
_COMMON_HELP = {
    "ledger": "the ledger file (default: %(default)s)",
    "only": "only these citation keys",
    "dry_run": "state the plan (hosts, requests), send nothing",
    "yes": "do not ask before sending (for CI)",
    "allow_private": "allow loopback, private and link-local addresses",
    "config": "retrieval settings (YAML): base URLs, mailto, limits",
    "docs": "the documents to judge",
    "source": "the source file (HTML, PDF, text…)",
    "quote": "the quoted words to find",
    "batch": "a JSONL file of cases to locate, one per line",
    "key": "the source's citation key",
    "reason": "why the citation is withdrawn or disputed",
    "bibliography": "a BibTeX/BibLaTeX .bib or CSL-JSON .json file",
    "title": "the work's title (CSL title)",
    "url": "identifier: a web address",
    "doi": "identifier: a bare DOI (10.…)",
    "arxiv": "identifier: an arXiv id",
    "isbn": "identifier: an ISBN",
    "file": "identifier: a file relative to the ledger",
    "path": "the signing key file",
    "source_says": "what the source actually says",
    "date": "the date of the record (default: today, UTC)",
}


def _fill_help(parser: argparse.ArgumentParser) -> None:
    """A help line for every option and a description for every subcommand."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                sub = action.choices[choice.dest]
                sub.description = sub.description or choice.help
                _fill_help(sub)
        elif action.help is None:
            action.help = _COMMON_HELP.get(action.dest)


def main(argv: Sequence[str] | None = None) -> int:
    words, pandoc_args = build.split_argv(list(sys.argv[1:] if argv is None else argv))
    args = _parser().parse_args(words)
    try:
        if args.command == "build":
            return build.run(args, pandoc_args)
        return _dispatch(args)
    except CiteledgerError as exc:
        print(visible(f"citeledger: error: {exc.one_line()}"), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("citeledger: interrupted; every finished receipt was kept", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
    except OSError as exc:  # a path that cannot be read or written: a full disk, a read-only folder
        from citeledger.atomic import failure_fix

        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        print(
            visible(f"citeledger: error: {where}{exc.strerror or exc} — {failure_fix(exc)}"),
            file=sys.stderr,
        )
        return 2


def _dispatch(args: argparse.Namespace) -> int:
    cmd = args.command
    if cmd in ("verify", "recheck"):
        from citeledger.cli import verify_exit
        from citeledger.verify.recheck import run_recheck
        from citeledger.verify.run import Written, run_verify

        runner = run_verify if cmd == "verify" else run_recheck
        written = Written()
        code = runner(
            args.ledger,
            only=tuple(args.only),
            dry_run=args.dry_run,
            assume_yes=args.yes,
            allow_private=args.allow_private,
            config_path=args.config,
            allow_outside=args.allow_outside,
            written=written,
        )
        if cmd == "verify" and code == 0 and not args.dry_run:
            code = verify_exit.outcome_code(args.ledger, written, warn_only=args.warn_only)
        return code
    if cmd == "deps":
        return deps.run(args)
    if cmd == "check":
        from citeledger.evidence.signing import parse_keys
        from citeledger.report.check import run_check

        return run_check(
            args.docs,
            ledger=args.ledger,
            json_out=args.json_out,
            warn_only=args.warn_only,
            min_coverage=args.min_coverage,
            audience=args.audience,
            from_format=args.from_format,
            quiet=args.quiet,
            trusted_keys=parse_keys(args.trusted_key),
            require_signature=args.require_signature,
            allow_outside=args.allow_outside,
            output_format=args.output_format,
            junit_out=args.junit,
            sarif_out=args.sarif,
            validate_all=args.validate_all,
            since=args.since,
            show_progress=args.progress,
            min_reviewed=args.min_reviewed,
        )
    if cmd == "locate":
        from citeledger.cli.locate import main as locate_main

        return int(locate_main(args))
    if cmd in ("withdraw", "dispute"):
        from citeledger.ledger.record import record_withdrawal

        return record_withdrawal(
            args.ledger,
            args.key,
            kind=cmd,
            reason=args.reason,
            source_says=args.source_says,
            date=args.date,
        )
    if cmd == "add":
        from citeledger.ledger.record import add_source

        ident = next(
            (k, getattr(args, k))
            for k in ("url", "doi", "arxiv", "isbn", "file")
            if getattr(args, k)
        )
        return add_source(
            args.ledger,
            args.key,
            ident,
            title=args.title,
            quotes=args.quote,
            locator=args.locator,
        )
    if cmd in ("adopt", "pick"):
        from citeledger.cli import adopt, pick

        return int((adopt if cmd == "adopt" else pick).main(args))
    if cmd == "quote":
        return _quote(args)
    if cmd == "review":
        return review_cli.run(args)
    if cmd == "import":
        from citeledger.ledger.record import import_bibliography

        return import_bibliography(args.ledger, args.bibliography)
    if cmd == "key":
        return _key(args)
    if cmd == "evidence":
        from citeledger.evidence.publish import write_evidence_pages

        return write_evidence_pages(args.ledger, args.out, lang=args.lang)
    raise AssertionError(cmd)  # pragma: no cover - argparse restricts the choices


def _quote_parser(sub: Any) -> None:
    q = sub.add_parser(
        "quote",
        help="add a quote to a source already in the ledger",
        description="Append a quote to an existing source (e.g. one made by import); "
        "the ledger is written atomically and its comments are kept.",
    )
    q.add_argument("key", help="the source's citation key")
    q.add_argument("text", help="the source's words, exactly as the source has them")
    q.add_argument("--locator", help="where in the source, e.g. 'p. 14' or 'sec. 2.1'")
    q.add_argument("--id", dest="quote_id", help="an id, for [@key quote:ID]")
    q.add_argument("--ledger", default="citeledger.yaml", help="default: citeledger.yaml")


def _quote(args: argparse.Namespace) -> int:
    from citeledger.ledger.record import add_quote

    return add_quote(args.ledger, args.key, args.text, locator=args.locator, quote_id=args.quote_id)


def _key(args: argparse.Namespace) -> int:
    from pathlib import Path

    from citeledger.evidence import signing

    path = Path(args.path) if args.path else None
    if args.key_command == "init":
        public = signing.init_key(path, force=args.force)
        where = path or signing.default_key_path()
        print(f"citeledger: signing key written to {where} (keep it out of the project)")
        print("citeledger: trust it in a ledger with `trusted_keys: [<the line below>]`:")
    else:
        signer = signing.load_signer(path)
        if signer is None:
            raise CiteledgerError(
                f"no signing key at {signing.default_key_path()}",
                fix="create one with `citeledger key init`",
            )
        public = signer.public
    print(public)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
