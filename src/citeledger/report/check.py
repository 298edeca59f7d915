"""``citeledger check``: the filter's judgement, offline, for CI and Makefiles.

It parses each document with the same pandoc the build uses, finds citations with the same walk
as the filter (``citations.find_citations``) and judges them with the same ``Judge``, so a
document that passes ``check`` renders without breakdowns, and vice versa. Never touches the
network.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citeledger.build.api_version import check_api_version
from citeledger.build.deep import loads as deep_loads
from citeledger.build.deep import run_deep
from citeledger.build.options import Options, read_options
from citeledger.confine import confine
from citeledger.errors import CiteledgerError
from citeledger.inert import visible
from citeledger.inputs import file_kind
from citeledger.judge import Judge
from citeledger.ledger import load_ledger
from citeledger.model import Judgement
from citeledger.report.summary import Entry, build_report, summary_text

if TYPE_CHECKING:
    from citeledger.build.citations import FoundCitation

_READERS = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".qmd": "markdown",
    ".rmd": "markdown",
    ".txt": "markdown",
    ".tex": "latex",
    ".rst": "rst",
    ".org": "org",
    ".docx": "docx",
    ".html": "html",
    ".ipynb": "ipynb",
    ".typ": "typst",
}


# Formats a build writes: a citation in them is formatted text, no longer a pandoc Cite.
_BUILT_OUTPUTS = frozenset({".docx", ".html", ".htm", ".odt", ".pdf", ".epub"})


def pandoc_json(doc: str, from_format: str | None = None) -> dict[str, Any]:
    import pypandoc

    path = Path(doc)
    kind = file_kind(path)
    if kind == "missing":
        raise CiteledgerError("document not found", file=doc, fix="check the path")
    if kind is not None:
        raise CiteledgerError(
            f"the document path is {kind}, not a file", file=doc, fix="give a document file"
        )
    reader = from_format or _READERS.get(path.suffix.lower(), "markdown")
    proc = subprocess.run(
        [pypandoc.get_pandoc_path(), "-f", reader, "-t", "json", str(path)],
        capture_output=True,
        check=False,
    )
    if proc.returncode != 0:
        msg = proc.stderr.decode("utf-8", "replace").strip().splitlines() or ["pandoc failed"]
        raise CiteledgerError(f"pandoc could not read it: {msg[0]}", file=doc)
    result: dict[str, Any] = deep_loads(proc.stdout, file=doc)
    check_api_version(result, file=doc)
    return result


def ledger_for(
    doc: str, opts: Options, explicit: str | None, *, allow_outside: bool = False
) -> str:
    """--ledger; else the document's ``citeledger.ledger`` (relative to the document, and inside
    the project: the current directory or the document's folder, unless ``allow_outside``); else
    ``CITELEDGER_LEDGER`` (relative to the current directory, as the filter reads it); else
    ``citeledger.yaml`` beside the document."""
    if explicit:
        return explicit
    base = Path(doc).resolve().parent
    if opts.ledger_from_document:
        path = base / Path(opts.ledger).expanduser()
        confine(
            path,
            [Path.cwd(), base],
            named_by="its citeledger.ledger",
            what="a ledger",
            allow=allow_outside or opts.allow_outside,
            file=doc,
        )
        return _shown(path)
    if opts.ledger_given:
        return _shown(opts.ledger_path())
    return _shown(base / "citeledger.yaml")


def _shown(path: Path) -> str:
    """The ledger's name as reports print it: relative to the current directory when under it,
    so no machine path ends up in a report, an annotation or a published reason."""
    try:
        return str(path.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


@dataclass(frozen=True)
class JudgedDocument:
    """One document as its build sees it: the AST, the ledger, each citation and its verdict."""

    path: str
    ast: dict[str, Any]
    ledger: str
    judge: Judge
    citations: list[FoundCitation]
    judgements: list[Judgement]

    @property
    def cited_crossrefs(self) -> set[str]:
        """The keys with a cross-reference prefix that are citations here (a source's)."""
        from citeledger.build.citations import crossref_prefixes, is_crossref

        prefixes = crossref_prefixes(self.ast.get("meta"))
        return {f.ref.key for f in self.citations if is_crossref(f.ref.key, prefixes)}


class DocumentJudges:
    """The one judging loop of ``check``, ``review`` and ``deps``, so none can disagree with
    the build: each document read by the build's pandoc, its options read as the filter reads
    them, its citations found by the one walk and judged by one ``Judge`` per ledger and
    audience that trusts what the filter trusts (the ledger's and the environment's keys) and
    what the command line adds. ``finish`` keeps the verdicts for the next build, as the
    filter does."""

    def __init__(
        self,
        *,
        ledger: str | None = None,
        from_format: str | None = None,
        allow_outside: bool = False,
        audience: str | None = None,
        trusted_keys: Iterable[str] = (),
        require_signature: bool = False,
        validate_all: bool = False,
    ) -> None:
        self.ledger = ledger
        self.from_format = from_format
        self.allow_outside = allow_outside
        self.audience = audience
        self.trusted_keys = tuple(trusted_keys)
        self.require_signature = require_signature
        self.validate_all = validate_all
        self._judges: dict[tuple[str, str | None], Judge] = {}
        self._warnings: list[str] = []  # the documents' own: ledger keys that are labels too

    def judge(self, doc: str, *, ledger_optional: bool = False) -> JudgedDocument | None:
        """``doc`` judged; None when ``ledger_optional`` and it names no ledger and the default
        one is missing (the filter then only warns)."""
        from citeledger.build.citations import scan_document, sourced_crossrefs
        from citeledger.build.crossref import label_warning
        from citeledger.build.crossref_sources import (
            CrossrefNotes,
            any_source,
            bibliography_sources,
        )

        ast = pandoc_json(doc, self.from_format)
        opts = read_options(ast.get("meta", {}))  # the filter's options, the same way
        lpath = ledger_for(doc, opts, self.ledger, allow_outside=self.allow_outside)
        if ledger_optional and not (self.ledger or opts.ledger_given or Path(lpath).exists()):
            return None
        who = self.audience or opts.audience
        judge = self._judges.get((lpath, who))
        if judge is None:
            # the cited sources are validated as they are judged; --all validates every one
            judge = self._judges[(lpath, who)] = Judge(
                load_ledger(lpath, lazy=not self.validate_all),
                audience=who,
                trusted_keys=(*opts.trusted_keys, *self.trusted_keys),
                require_signature=self.require_signature or opts.require_signature,
            )
        # a key like @sec-2020 that is a ledger source is a citation, as the filter reads it
        ledger = judge.ledger.sources
        sources = any_source(
            lambda keys: [k for k in keys if k in ledger],
            bibliography_sources(ast.get("meta") or {}, [Path.cwd(), Path(doc).parent]),
        )
        scan, labels = sourced_crossrefs(ast, scan_document(ast), sources)
        found = scan.citations
        notes = CrossrefNotes.of(labels, sources.answer, (f.ref.key for f in found))
        self._warnings += [f"{doc}: {label_warning(key, lpath)}" for key in labels]
        self._warnings += [f"{doc}: {warning}" for warning in notes.unread_warnings()]
        judged = [notes.judged(judge.judge(f.ref)) for f in found]
        return JudgedDocument(doc, ast, lpath, judge, found, judged)

    def finish(self) -> list[str]:
        """The end of the run: every judge's new verdicts kept; their warnings, in order."""
        warnings = list(self._warnings)
        for judge in self._judges.values():
            judge.finish()
            warnings.extend(judge.warnings)
        return warnings


def run_check(docs: Sequence[str], **options: Any) -> int:
    """``check``, in a thread whose stack fits any document pandoc reads (``deep``)."""
    return run_deep(lambda: _run_check(docs, **options))


def _run_check(
    docs: Sequence[str],
    *,
    ledger: str | None = None,
    json_out: str | None = None,
    warn_only: bool = False,
    min_coverage: float | None = None,
    audience: str | None = None,
    from_format: str | None = None,
    quiet: bool = False,
    trusted_keys: Sequence[str] = (),
    require_signature: bool = False,
    allow_outside: bool = False,
    output_format: str = "text",
    junit_out: str | None = None,
    sarif_out: str | None = None,
    validate_all: bool = False,
    min_reviewed: float | None = None,
    since: str | None = None,
    show_progress: bool = False,
) -> int:
    previous = None
    if since is not None:  # read first: a bad --since costs nothing else
        from citeledger.report.progress import read_report

        previous = read_report(since)
    _share_or_refuse("--min-reviewed", min_reviewed, "checked citations with a review")
    _share_or_refuse("--min-coverage", min_coverage, "prose sentences")
    from citeledger.report.coverage import compute_coverage

    entries: list[Entry] = []
    cov_total = {"prose_sentences": 0, "with_provenance": 0, "unverified": 0}
    without: list[str] = []
    judges = DocumentJudges(
        ledger=ledger,
        from_format=from_format,
        allow_outside=allow_outside,
        audience=audience,
        trusted_keys=trusted_keys,
        require_signature=require_signature,
        validate_all=validate_all,
    )
    for doc in docs:
        judged = judges.judge(doc)
        assert judged is not None  # a ledger is required here
        if not judged.citations and Path(doc).suffix.lower() in _BUILT_OUTPUTS:
            raise CiteledgerError(
                "no pandoc citations in it: a built document has none left to judge",
                file=doc,
                fix="run check on the source document (the Markdown), not on the output",
            )
        for found, judgement in zip(judged.citations, judged.judgements, strict=True):
            entries.append(Entry(doc, found.ref, judgement, judged.judge.reader))
        cov = compute_coverage(judged.ast, judged.cited_crossrefs)
        cov_total["prose_sentences"] += cov.prose_sentences
        cov_total["with_provenance"] += cov.with_provenance
        cov_total["unverified"] += cov.unverified
        without.extend(cov.without_provenance)
    warnings = judges.finish()
    n = cov_total["prose_sentences"]
    coverage: dict[str, Any] = {
        **cov_total,
        "ratio": (cov_total["with_provenance"] / n) if n else None,
        "without_provenance": without,
    }
    report = build_report(entries, coverage, warnings)
    reviews = _add_reviews(report, entries)
    for w in warnings:
        print(visible(f"[WARNING] citeledger: {w}"), file=sys.stderr)
    if json_out and json_out != "-":
        Path(json_out).write_text(
            json.dumps(report, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
        )
    from citeledger.report.ci import claim_lines

    # each citation's line, found once for every CI format asked for (it reads each document)
    lines = (
        claim_lines(report["citations"])
        if output_format == "github" or junit_out or sarif_out
        else {}
    )
    _write_ci_reports(report, lines, junit_out, sarif_out)
    # With --json - the report owns stdout; the readable summary goes to stderr.
    summary_stream = sys.stderr if json_out == "-" else sys.stdout
    if output_format == "github":
        from citeledger.report.ci import github_commands

        commands = github_commands(report, lines, warn_only=warn_only)
        if commands:
            print(commands, file=summary_stream)
        quiet = True  # the annotations carry the detail; the log keeps the summary line
    print(visible(summary_text(report, quiet=quiet)), file=summary_stream)
    if reviews["checked"]:
        from citeledger.review.status import tally_line

        print(tally_line(reviews), file=summary_stream)
    if show_progress or previous is not None:
        from citeledger.report.progress import progress, progress_text

        print(visible(progress_text(progress(report, previous))), file=summary_stream)
    if json_out == "-":
        json.dump(report, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    code = 0
    if any(e.judgement.is_breakdown for e in entries) and not warn_only:
        code = 1
    ratio = coverage["ratio"]
    if min_coverage is not None and ratio is not None and ratio < min_coverage:
        print(
            f"citeledger: coverage {ratio:.0%} is below --min-coverage {min_coverage:.0%}",
            file=sys.stderr,
        )
        code = 1
    return code | _below_reviewed(reviews, min_reviewed)


def _share_or_refuse(option: str, value: float | None, of: str) -> None:
    if value is not None and not 0 <= value <= 1:
        raise CiteledgerError(
            f"{option} {value:g} is not a share between 0 and 1",
            fix=f"write e.g. {option} 0.6 for 60% of {of}",
        )


def _add_reviews(report: dict[str, Any], entries: Sequence[Entry]) -> dict[str, Any]:
    """Each checked citation's review state in the report, and the counts (``review.status``)."""
    from citeledger.review.status import present_claims, review_of, tally

    present = present_claims((e.judgement, e.ref.claim) for e in entries)
    statuses = [review_of(e.judgement, e.ref.claim, present) for e in entries]
    for cited, status in zip(report["citations"], statuses, strict=True):
        if status is not None:
            cited["review"] = status.state
    report["reviews"] = tally(statuses)
    return dict(report["reviews"])


def _below_reviewed(reviews: dict[str, Any], min_reviewed: float | None) -> int:
    ratio = reviews["ratio"]
    if min_reviewed is None or ratio is None or ratio >= min_reviewed:
        return 0
    print(
        f"citeledger: {ratio:.0%} of checked citations reviewed, below --min-reviewed "
        f"{min_reviewed:.0%}; run `citeledger review`",
        file=sys.stderr,
    )
    return 1


def _write_ci_reports(
    report: dict[str, Any],
    lines: dict[tuple[str, int], int],
    junit_out: str | None,
    sarif_out: str | None,
) -> None:
    """``--junit FILE`` and ``--sarif FILE``, each written atomically."""
    if not junit_out and not sarif_out:
        return
    from citeledger.atomic import atomic_write
    from citeledger.report.ci import junit_xml, sarif_log

    if junit_out:
        atomic_write(Path(junit_out), junit_xml(report, lines).encode("utf-8"))
    if sarif_out:
        text = json.dumps(sarif_log(report, lines), ensure_ascii=False, indent=2) + "\n"
        atomic_write(Path(sarif_out), text.encode("utf-8"))
