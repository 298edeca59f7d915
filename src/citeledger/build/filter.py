"""The pandoc filter: ``pandoc --filter pandoc-citeledger`` (or ``filters/citeledger.py``).

Reads pandoc's JSON AST on stdin, judges every citation (``citations.find_citations`` → the
judge), and writes the AST back with each breakdown made loud: an inline flag at the citation
and a callout block next to the claim (``render``). Checked citations keep their Cite inside a
``citeledger-checked`` Span; every Cite stays a Cite so ``--citeproc`` still formats it.

Where the callout goes (the nearest place a block may stand after the claim):

- paragraph, plain block, heading, line block: directly after it, in the same block list — so
  inside a list item, a definition, a block quote or a Div when the claim is there;
- table (any cell, or its caption) and figure (caption or body): after the table or figure;
- definition-list term: at the start of the term's first definition;
- footnote: after the note's paragraph, inside the note (AsciiDoc, which drops a note of more
  than one block: after the block holding the note; a note in a heading: after the heading, as
  LaTeX's ``\\section{…}`` cannot hold a block) — unless the note is made only of
  citations (``^[@key]``, ``^[See also @key.]``), in which case the claim is the sentence the
  note hangs on and the callout goes after that sentence's block;
- a citation in the metadata (title, author, date, abstract, include-before…: every field but
  nocite, references and the like, ``citations.metadata_fields``): flagged where it stands;
  its callout goes at the top of the body (a title cannot hold a block, and not every template
  prints the abstract, while the body is always shown);
- an image's alt text: flagged in it; the callout goes where the paragraph's would;
- Markdown builds (GitHub alerts cannot nest in a list, quote, definition or note): after the
  top-level block holding the claim, whatever the claim is inside;
- one callout per block holding breakdowns: one citation's as ever, several listed in one
  grouped callout (each item still its own number, state, reasons and links; a reason shared by
  several said once), so a paragraph of six breakdowns is not six identical boxes;
- a banner at the top of the body (``Div.citeledger-banner``) when any citation is not checked:
  the counts by state, and a link to the audit when there is one.

Links (HTML, LaTeX, DOCX): each citation has a claim anchor ``#citeledger-claim-N`` (before
the Cite; for a citation-only note, before the note in the body; on the writer's ``[…]{.claim}``
Span when that is the claim — see ``citations``), the flag links to its callout
— or, with ``audit: true``, to its row of the "Citation audit" section (``citeledger.report.audit``,
whose ids these are), which links back to the claim — and the callout links back to the flag.
With ``evidence-pages: DIR`` an HTML (or GitHub Markdown) build writes one read-only evidence
page per receipt into DIR (``citeledger.evidence.publish``) and links it from the citation,
callout and audit row.
A checked citation of an http(s) source also links to the source itself at the passage (a text
fragment, or ``#page=N`` for a PDF: ``report.anchor_for``), in every format that shows URLs,
with or without evidence pages; a restricted citation never does.

Unverified markers (seed 001): a writer's ``[…]{.unverified}`` Span or ``::: unverified`` Div is
a declared, unscored claim. It is rendered as such in every format (``Renderer.mark_unverified``:
the class ``citeledger-unverified`` and a visible ``[unverified]`` word marker) and is otherwise
left alone: no judge, no warning, no flag, no callout, and ``strict`` ignores it.

Speed: the filter runs on every build, so it never converts the document to panflute objects.
Input holding neither ``"Cite"`` nor ``"unverified"`` (a byte search) is written back untouched
without even being parsed. Otherwise it walks the raw dicts once, edits only the Cites and
markers it found and the block lists that receive a callout, and passes everything else through
untouched; a document without citations and unverified markers is written back byte for byte.

Contract with pandoc: stdout carries only the AST. Warnings go to stderr as
``[WARNING] citeledger: …`` (one per breakdown, plus the judge's); a bad ledger or option is one
``[ERROR] citeledger: …`` line and exit 2; ``strict: true`` writes the AST and then exits 1 so
pandoc fails; evidence pages that cannot be written are one ``[ERROR] citeledger: cannot write
evidence pages to DIR: reason`` line and exit 2, with nothing on stdout.

Run twice, it changes nothing more — by comparison, never by trust: every Cite is judged on
every run, also one inside a ``citeledger-cite`` wrapper (an earlier run's, or a forged one).
The earlier run's wrappers, flags, anchors, callouts and audit are removed first
(``render.previous``), so an unchanged judgement renders exactly what was there, a changed one
replaces it, and ``strict`` counts every breakdown. Marked unverified markers are skipped.
``pandoc -H`` silently replaces header-includes, where the stylesheet and LaTeX definitions go;
the filter cannot see ``-H`` — HTML callouts then lose their colours but keep their words, LaTeX
ones their frame (their uses are guarded so the build still succeeds).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol
from urllib.parse import quote

from citeledger.build.api_version import check_api_version
from citeledger.build.citations import (
    crossref_prefixes,
    resolve,
    scan_document,
    sourced_crossrefs,
    strip_selector,
)
from citeledger.build.citeproc_order import citeproc_warnings
from citeledger.build.crossref_sources import (
    CrossrefNotes,
    any_source,
    bibliography_sources,
    ledger_sources,
)
from citeledger.build.deep import dumps as deep_dumps
from citeledger.build.deep import loads as deep_loads
from citeledger.build.deep import run_deep
from citeledger.build.names import ALERT_MARK, PREFIX
from citeledger.build.options import META_KEY, NAMES, Options, read_options
from citeledger.build.placement import AuditPlace, audit_place, put_audit
from citeledger.build.references import add_references
from citeledger.build.render import family_of, renderer_for
from citeledger.build.render.base import Renderer
from citeledger.build.render.previous import Undo, strip_previous
from citeledger.build.render.quarto import is_quarto_build
from citeledger.build.render.words import Item
from citeledger.confine import confine
from citeledger.errors import CiteledgerError
from citeledger.inert import visible
from citeledger.model import CitationRef, Judgement, Ledger, State

if TYPE_CHECKING:
    from citeledger.build.batch import HeldEvidence
    from citeledger.report.audit import AuditRow
    from citeledger.review.status import Present

# Every Cite serialises as "t":"Cite" (with or without a space); the word alone in a Str gives a
# false alarm, which only costs the walk. Without this no Cite can be present.
CITE_MARK = b'"Cite"'
# The class of an unverified marker, as JSON: ["unverified"] in a Span's or Div's attributes. A
# Str of that one word is a false alarm, again costing only the walk.
UNVERIFIED_MARK = b'"unverified"'
# Everything an earlier run leaves is named citeledger-… (build.names) or is a GitHub alert.
# A raw element ("RawInline", "RawBlock") with a TeX command naming "cite" (a JSON string
# escapes its backslash) or typst code: only then can a raw citation command be there.
RAW_MARK = b'"Raw'
TEX_CITE_BYTES = re.compile(rb"\\\\[A-Za-z]*cite")
PREVIOUS_MARK = b'"' + PREFIX.encode() + b""
ALERT_BYTES = ALERT_MARK.strip().encode()


class Judging(Protocol):
    """What the filter needs of a judge (``citeledger.judge.Judge`` or a test's fake)."""

    warnings: list[str]

    def judge(self, ref: CitationRef) -> Judgement: ...


JudgeFactory = Callable[[Options], Judging]


class LedgerJudges:
    """The default judge factory: loads each ledger once, one ``Judge`` per audience.

    A ledger named explicitly (metadata, environment) must exist; the default
    ``citeledger.yaml`` may be missing, and then every citation is ``not-in-ledger`` — with a
    warning, since nothing may be cited without a ledger source.

    ``held``: the pages of one batch (``build.batch``) share their ledgers, evidence readers
    and judgement index there; this factory's warnings stay its own page's.
    """

    def __init__(self, cwd: Path | None = None, held: HeldEvidence | None = None) -> None:
        self.cwd = cwd
        self.held = held
        self.warnings: list[str] = []
        # by path and the name as written: the name appears in reasons
        self._ledgers: dict[tuple[Path, str], Ledger] = held.ledgers if held else {}

    def __call__(self, options: Options) -> Judging:
        from citeledger.judge import Judge
        from citeledger.ledger.outlined import load_lazy  # a parse only when one is needed

        path = options.ledger_path(self.cwd)
        if options.ledger_from_document:  # a stranger's document may name /etc/passwd
            confine(
                path,
                [self.cwd or Path.cwd()],
                named_by=f"the document's {META_KEY}.ledger",
                what="a ledger",
                allow=options.allow_outside,
            )
        # the name as the writer gave it: it appears in reasons, and so in the published document
        name = options.ledger if self.cwd is None else str(path)
        ledger = self._ledgers.get((path, name))
        missing = not (options.ledger_given or path.exists())
        if missing:
            self.warnings.append(
                f"no ledger at {name}: every citation is not in the ledger (create one with "
                "`citeledger add`, or set citeledger.ledger)"
            )
        if missing:
            # never cached: a later page of a batch that names this ledger must fail as a lone
            # run does, not be handed the empty stand-in
            ledger = Ledger(name, str(path.parent), {}, str(path.parent / ".citeledger"))
        elif ledger is None:
            ledger = self._ledgers[(path, name)] = load_lazy(name)  # cited only
        reader, index = self.held.evidence(ledger.evidence_dir) if self.held else (None, None)
        return Judge(
            ledger,
            audience=options.audience,
            reader=reader,
            index=index,
            trusted_keys=options.trusted_keys,
            require_signature=options.require_signature,
        )


@dataclass
class FilterResult:
    """The filtered AST and what the run found. An item's ``found.ref.claim`` is filled for the
    breakdowns (every item when the audit is on): a checked citation's claim is shown nowhere,
    and cutting sentences is most of a scan (``scan_document(defer_claims=True)``)."""

    doc: dict[str, Any]
    changed: bool
    items: list[Item] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def breakdowns(self) -> list[Item]:
        return [item for item in self.items if item.state.is_breakdown]

    @property
    def exit_code(self) -> int:
        return 1 if self.errors else 0


def run_filter(
    doc_json: dict[str, Any],
    fmt: str = "html",
    *,
    judge_factory: JudgeFactory | None = None,
    environ: Mapping[str, str] | None = None,
    rerun: bool = True,
) -> FilterResult:
    """Judge and render every citation of ``doc_json`` (edited in place) for output ``fmt``.

    ``rerun=False`` says the input cannot hold an earlier run's output (``main`` knows from the
    bytes); it only saves a walk, since every scan also looks for that output.

    Four phases, as panflute names them: prepare (scan, undo an earlier run, read the options),
    judge (every citation, one judge per audience), render (flags, callouts, header) and
    finalize (references, audit, evidence pages, warnings, strict). Raises ``CiteledgerError``
    for a bad ledger or option; never prints.
    """
    factory = judge_factory or LedgerJudges()
    prepared = _prepare(doc_json, environ, rerun, factory)
    if isinstance(prepared, FilterResult):
        return prepared
    scan, options, notes = prepared
    quarto = is_quarto_build(doc_json["meta"], os.environ if environ is None else environ)
    renderer = renderer_for(fmt, audit=options.audit, quarto=quarto)
    if not scan.citations:  # only unverified markers: nothing to judge, no ledger needed
        _render(doc_json, [], scan.unverified, renderer, options)
        return _with_labels(
            FilterResult(doc_json, changed=True, warnings=_option_warnings(options)),
            notes,
            options,
        )
    citeproc_first = citeproc_warnings(doc_json, scan.citations)  # before the Cites are wrapped
    judged = _judge(scan.citations, options, factory, notes.judged)
    pages = _EvidencePages.start(options, fmt, judged.reader, getattr(judged.factory, "held", None))
    # the claims the build shows (a breakdown's warning, the audit), cut before anything moves
    items = [
        replace(item, found=scan.with_claim(item.found))
        if options.audit or item.state.is_breakdown
        else item
        for item in judged.items
    ]
    if pages is not None:
        items = [replace(item, evidence=pages.add(item)) for item in items]
    items = _with_source_links(items, judged.reader)
    place = audit_place(doc_json, scan)  # before any insertion: held by reference
    _render(doc_json, items, scan.unverified, renderer, options)
    result = _finalize(doc_json, items, judged, renderer, options, pages, place)
    result.warnings[:0] = citeproc_first
    return _with_labels(result, notes, options)


def _with_labels(result: FilterResult, notes: CrossrefNotes, options: Options) -> FilterResult:
    warnings, errors = notes.messages(options)
    result.warnings[:0] = warnings
    result.errors += errors
    return result


def _prepare(
    doc_json: dict[str, Any],
    environ: Mapping[str, str] | None,
    rerun: bool = True,
    factory: JudgeFactory | None = None,
) -> FilterResult | tuple[Any, Options, CrossrefNotes]:
    """Scan the document once and read the options; a document with nothing to judge comes
    back as its result at once.

    An earlier run's output is undone by the scan itself, each list before the walk reads it
    (``render.previous.Undo``): a re-run walks its document once, as a first run does. A key
    like ``@sec-2020`` that is a ledger source is a citation (``citations.sourced_crossrefs``);
    what the filter says of such keys comes back with them (``CrossrefNotes``)."""
    undo = Undo(crossref_prefixes(doc_json.get("meta"))) if rerun else None
    scan = scan_document(doc_json, defer_claims=True, undo=undo)
    changed = scan.previous
    if changed and undo is None:  # the bytes said no earlier output, yet there is: undo it
        strip_previous(doc_json, scan.prefixes)
        scan = scan_document(doc_json, defer_claims=True)
    options: Options | None = None
    notes = CrossrefNotes()
    if scan.crossrefs and factory is not None:
        options = read_options(doc_json.setdefault("meta", {}), environ)
        # pandoc's working directory is the filter's; a judge factory's own folder after it
        folders = list(dict.fromkeys([Path.cwd(), getattr(factory, "cwd", None) or Path.cwd()]))
        sources = any_source(
            ledger_sources(options, factory),
            bibliography_sources(doc_json.get("meta") or {}, folders),
        )
        scan, labels = sourced_crossrefs(doc_json, scan, sources, defer_claims=True)
        notes = CrossrefNotes.of(labels, sources.answer, (f.ref.key for f in scan.citations))
    if not scan.citations and not scan.unverified:
        result = FilterResult(doc_json, changed=changed)
        return _with_labels(result, notes, options) if options is not None else result
    return scan, options or read_options(doc_json.setdefault("meta", {}), environ), notes


@dataclass
class _Judged:
    items: list[Item]
    strict_items: list[Item]  # breakdowns where strict is on (document or element)
    judges: dict[str | None, Judging]
    factory: JudgeFactory
    reader: Any  # the evidence reader of the one ledger, when there is one


def _judge(
    found: list[Any],
    options: Options,
    factory: JudgeFactory,
    reframe: Callable[[Judgement], Judgement] = lambda judgement: judgement,
) -> _Judged:
    """Every citation judged, by one judge per audience (an element may narrow its own);
    ``reframe``: what the filter adds to a judgement (``CrossrefNotes.judged``)."""
    judges: dict[str | None, Judging] = {}
    items: list[Item] = []
    strict_items: list[Item] = []
    for fc in found:
        local = options.for_element(fc.attributes)
        judge = judges.get(local.audience)
        if judge is None:
            judge = judges[local.audience] = factory(replace(options, audience=local.audience))
        item = Item(fc, reframe(judge.judge(fc.ref)))
        items.append(item)
        if local.strict and item.state.is_breakdown:
            strict_items.append(item)
    for judge in judges.values():  # a judge may keep what it judged for the next build
        finish = getattr(judge, "finish", None)
        if finish is not None:
            finish()
    reader = next((getattr(j, "reader", None) for j in judges.values()), None)  # one ledger
    return _Judged(items, strict_items, judges, factory, reader)


def _render(
    doc_json: dict[str, Any],
    items: list[Item],
    unverified: list[Any],
    renderer: Renderer,
    options: Options,
) -> None:
    """Flags and callouts at the claims, unverified markers, the format's header."""
    if items:
        _apply(doc_json, items, renderer, audit=options.audit)
    for node in unverified:  # by reference: _apply's insertions cannot have moved them
        renderer.mark_unverified(node)
    renderer.add_header(doc_json.setdefault("meta", {}))


def _finalize(
    doc_json: dict[str, Any],
    items: list[Item],
    judged: _Judged,
    renderer: Renderer,
    options: Options,
    pages: _EvidencePages | None,
    place: AuditPlace,
) -> FilterResult:
    """What belongs to the whole document: references, the audit (before the bibliography:
    ``placement``), the evidence pages, and the warnings and strict verdict of the run."""
    reference_warnings: list[str] = []
    if options.references:
        add_references(doc_json["meta"], (i.judgement for i in items), reference_warnings)
    if options.audit:
        from citeledger.review.status import present_claims

        present = present_claims((i.judgement, i.found.ref.claim) for i in items)
        rows = [_audit_row(item, pages, judged.reader, present) for item in items]
        put_audit(place, renderer.audit(rows, pages.href if pages else None))
    if pages is not None:
        pages.write()  # raises CiteledgerError: the pages are part of the build
    warnings = _unique(
        [
            *getattr(judged.factory, "warnings", []),
            *(w for j in judged.judges.values() for w in j.warnings),
        ]
    )
    warnings += _option_warnings(options) + reference_warnings
    warnings += [_breakdown_warning(item) for item in items if item.state.is_breakdown]
    errors = []
    if judged.strict_items:
        errors.append(
            f"strict: {len(judged.strict_items)} of {len(items)} citations are breakdowns; "
            "failing the build (set citeledger.strict: false to build anyway)"
        )
    return FilterResult(doc_json, changed=True, items=items, warnings=warnings, errors=errors)


def _option_warnings(options: Options) -> list[str]:
    return [
        f"unknown option citeledger.{name} (known: {', '.join(NAMES)})" for name in options.unknown
    ]


def _with_source_links(items: list[Item], reader: Any) -> list[Item]:
    """Each checked item with its source link at the passage, when the source is on the web."""
    if not any(item.state is State.CHECKED for item in items):
        return items
    from citeledger.report.summary import (
        anchor_for,  # it loads evidence: only for checked citations
    )

    out = []
    for item in items:
        anchor = anchor_for(item.judgement, reader) if item.state is State.CHECKED else None
        link = anchor.get("link") if anchor else None
        if isinstance(link, str) and link.lower().startswith(("http://", "https://")):
            item = replace(item, source=link)
        out.append(item)
    return out


def _apply(doc: dict[str, Any], items: list[Item], renderer: Renderer, *, audit: bool) -> None:
    """Wrap each Cite, strip quote selectors, insert claim anchors, callouts and the banner.

    Every list is resolved before anything is changed, and each list is edited by reference, so
    an insertion in one list can never shift a path into another; within a list, insertions go
    from the last position to the first.
    """
    groups: dict[tuple[Any, ...], list[Item]] = {}
    for item in items:
        groups.setdefault(item.found.cite_path, []).append(item)
    wraps: list[tuple[list[Any], int, list[Item], list[Any], list[Any]]] = []
    raw_blocks: list[tuple[list[Any], int, list[Item]]] = []
    for cite_path, group in groups.items():
        parent = resolve(doc, cite_path[:-1])
        if group[0].found.raw:  # a raw command: flagged where it stands, nothing to strip
            if parent[int(cite_path[-1])].get("t") == "RawBlock":
                raw_blocks.append((parent, int(cite_path[-1]), group))
            else:
                wraps.append((parent, int(cite_path[-1]), group, [], []))
            continue
        citations = [resolve(doc, item.found.citation_path) for item in group]
        # each item's own Cite (a nested one sits in the outer item's suffix): path ends c, 0, j
        own = {id(c): c for c in (resolve(doc, i.found.citation_path[:-3]) for i in group)}
        wraps.append((parent, int(cite_path[-1]), group, citations, list(own.values())))
    claims: dict[tuple[Any, ...], tuple[Any, list[Item]]] = {}
    for item in items:
        span_path = item.found.claim_span
        if span_path is not None:
            claims.setdefault(span_path, (resolve(doc, span_path), []))[1].append(item)
    inserts: dict[int, tuple[list[Any], dict[int, list[Any]]]] = {}

    def insert(into: list[Any], at: int, nodes: list[Any]) -> None:
        entry = inserts.setdefault(id(into), (into, {}))
        entry[1].setdefault(at, []).extend(nodes)

    for span, claimed in claims.values():  # the writer's [words]{.claim}: the anchor goes on it
        anchors = renderer.mark_claim(span, claimed)
        if anchors:
            insert(span["c"][1], 0, anchors)
    banner = renderer.banner(items, audit=audit)
    if banner is not None:
        insert(doc["blocks"], 0, [banner])
    for parent, index, group in raw_blocks:  # a block cannot be wrapped: its flags follow it
        insert(parent, index + 1, [renderer.raw_block_flags(group)])
    callouts: dict[tuple[int, int], tuple[list[Any], list[Item]]] = {}
    for item in items:
        fc = item.found
        if fc.claim_span is None and fc.claim_at is not None:
            # a citation-only note: the claim is where the note stands
            insert(
                resolve(doc, fc.claim_at[:-1]), int(fc.claim_at[-1]), renderer.claim_anchor(item)
            )
        if item.state.is_breakdown:
            host, after = fc.host_path, fc.host_after
            if renderer.top_level_callouts and host != ("blocks",):
                host, after = ("blocks",), fc.block_index
            elif renderer.callouts_outside_notes and fc.note_host is not None:
                host, after = fc.note_host
            into = resolve(doc, host)
            callouts.setdefault((id(into), after + 1), (into, []))[1].append(item)
    for (_, at), (into, group) in callouts.items():  # one callout per block: its breakdowns
        renderer.before_callout(into[at - 1], group)
        insert(into, at, [renderer.callout(group)])

    for parent, index, group, citations, cites in wraps:
        for citation in citations:
            suffix = citation.get("citationSuffix")
            if suffix:
                citation["citationSuffix"] = strip_selector(suffix)
        for cite in cites:
            cite["c"][1] = strip_selector(cite["c"][1])
        parent[index] = renderer.wrap(parent[index], group)
    for target, by_index in inserts.values():
        for at in sorted(by_index, reverse=True):
            target[at:at] = by_index[at]


class _EvidencePages:
    """HTML and GitHub Markdown builds with ``evidence-pages``: one read-only page per receipt,
    written at the end.

    ``evidence-pages`` is where the pages are written (relative to the current directory);
    ``evidence-link`` is how the output links to that folder (default: the same path), so a
    build into ``public/guide/x.html`` writes ``public/evidence`` and links ``../evidence``.
    Named by the document, the folder must lie inside the current directory (``confine``).
    Pages are written only when the judge reads evidence (``Judge.reader``); a page links back
    to nothing, since a filter is not told the name of the document it builds.
    """

    def __init__(self, href: str, pages: Any) -> None:
        self.href = href.rstrip("/") or "."
        self.pages = pages

    @classmethod
    def start(
        cls, options: Options, fmt: str, reader: Any, held: HeldEvidence | None = None
    ) -> _EvidencePages | None:
        if not options.evidence_pages or family_of(fmt) not in ("html", "markdown"):
            return None
        if options.evidence_pages_source == "metadata":  # the pages are written there
            confine(
                Path(options.evidence_pages).expanduser(),
                [Path.cwd()],
                named_by=f"the document's {META_KEY}.evidence-pages",
                what="a folder",
                allow=options.allow_outside,
            )
        from citeledger.evidence.publish import EvidencePageSet

        rendered = held.rendered if held is not None else None  # a batch renders each once
        pages = (
            EvidencePageSet(reader, options.evidence_pages, rendered)
            if reader is not None
            else None
        )
        return cls(options.evidence_link or options.evidence_pages, pages)

    def name(self, item: Item) -> str | None:
        from citeledger.evidence.page import evidence_page_name
        from citeledger.evidence.publish import page_receipt

        if self.pages is not None:
            name: str | None = self.pages.add(item.judgement, key=item.found.ref.key)
            return name
        receipt = page_receipt(item.judgement)
        return evidence_page_name(receipt, item.found.ref.key) if receipt is not None else None

    def add(self, item: Item) -> str | None:
        name = self.name(item)
        return f"{self.href}/{quote(name, safe='._-~')}" if name else None

    def write(self) -> None:
        if self.pages is None:
            return
        try:
            self.pages.write()
        except OSError as exc:
            reason = exc.strerror or str(exc)
            if exc.filename and str(exc.filename) != str(self.pages.out_dir):
                reason += f" ({exc.filename})"
            raise CiteledgerError(
                f"cannot write evidence pages to {self.pages.out_dir}: {reason}",
                fix="set citeledger.evidence-pages to a folder you can write",
            ) from exc


def _audit_row(
    item: Item, pages: _EvidencePages | None, reader: Any, present: Present | None = None
) -> AuditRow:
    from citeledger.report.audit import row_for  # it loads the evidence store: only for an audit

    name = pages.name(item) if pages is not None else None
    claim = item.found.ref.claim
    return row_for(
        item.number, item.judgement, claim=claim, evidence_page=name, reader=reader, present=present
    )


def _breakdown_warning(item: Item) -> str:
    ref = item.found.ref
    where = f"@{ref.key}" + (f", {ref.locator}" if ref.locator else "")
    claim = ref.claim if len(ref.claim) <= 60 else ref.claim[:57].rstrip() + "…"
    reason = item.judgement.reasons[0] if item.judgement.reasons else ""
    text = f"citation {ref.occurrence} ({where}) {item.state.value}: {item.judgement.title}"
    if claim:
        text += f" — in “{claim}”"
    if reason:
        text += f" — {reason}"
    return " ".join(text.split())


def _unique(messages: list[str]) -> list[str]:
    return list(dict.fromkeys(" ".join(m.split()) for m in messages if m.strip()))


def main(
    argv: list[str] | None = None,
    *,
    stdin: IO[bytes] | None = None,
    stdout: IO[bytes] | None = None,
    stderr: IO[str] | None = None,
    judge_factory: JudgeFactory | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    """Console script ``pandoc-citeledger``: pandoc passes the output format as argv[1]."""
    args = sys.argv[1:] if argv is None else argv
    err = stderr or sys.stderr
    if args and args[0] in ("-h", "--help"):
        err.write("usage: pandoc --filter pandoc-citeledger …  (reads pandoc JSON on stdin)\n")
        return 0
    fmt = args[0] if args else "html"
    raw = (stdin or sys.stdin.buffer).read()
    out = stdout or sys.stdout.buffer
    if CITE_MARK not in raw and UNVERIFIED_MARK not in raw and not _raw_citation(raw):
        out.write(raw)
        out.flush()
        return 0
    # the process's own run (the console script): its AST is left to the process's end
    own_process = argv is None and stdin is None and stdout is None and stderr is None
    kept: list[Any] = []
    try:  # the whole job, in a thread whose stack fits any document pandoc reads
        from citeledger.ledger.outlined import gc_paused

        with gc_paused():  # millions of objects, no cycles: the collector's passes are wasted
            code = run_deep(lambda: _filter(raw, fmt, out, err, judge_factory, environ, kept))
    except CiteledgerError as exc:
        err.write(f"[ERROR] citeledger: {exc.one_line()}\n")
        code = 2
    if own_process:
        _end_process(code)
    return code


def _end_process(code: int) -> None:
    """End the console script's process once everything is written and flushed, without
    freeing the AST object by object (a thesis's million objects cost 40 ms to free, and the
    interpreter's teardown more): everything the build writes (the output, the judgement
    index, evidence pages) is written and closed before this, and stdout and stderr are
    flushed here; the memory goes back to the system at once."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed or broken pipe: the exit code still says it
        code = code or 2
    os._exit(code)


def _raw_citation(raw: bytes) -> bool:
    """Might a raw TeX or typst element hold a citation command (``citations.raw_citations``)?
    A false alarm costs only the walk."""
    return RAW_MARK in raw and (TEX_CITE_BYTES.search(raw) is not None or b'"typst"' in raw)


def _filter(
    raw: bytes,
    fmt: str,
    out: IO[bytes],
    err: IO[str],
    judge_factory: JudgeFactory | None,
    environ: Mapping[str, str] | None,
    kept: list[Any] | None = None,
) -> int:
    """One run on the AST ``raw``; ``kept`` receives the parsed AST, so that the caller decides
    when it is freed."""
    try:
        doc = deep_loads(raw)
    except ValueError as exc:
        err.write(visible(f"[ERROR] citeledger: the input is not pandoc JSON ({exc})") + "\n")
        return 2
    if kept is not None:
        kept.append(doc)
    try:
        check_api_version(doc)
        rerun = PREVIOUS_MARK in raw or ALERT_BYTES in raw  # else no earlier output can be there
        result = run_filter(doc, fmt, judge_factory=judge_factory, environ=environ, rerun=rerun)
    except CiteledgerError as exc:
        err.write(visible(f"[ERROR] citeledger: {exc.one_line()}") + "\n")
        return 2
    except OSError as exc:  # the edge: a file the filter reads or writes, never a traceback
        where = f" ({exc.filename})" if exc.filename else ""
        err.write(visible(f"[ERROR] citeledger: {exc.strerror or exc}{where}") + "\n")
        return 2
    for warning in result.warnings:
        err.write(visible(f"[WARNING] citeledger: {warning}") + "\n")
    if result.changed:
        out.write(deep_dumps(result.doc))
    else:
        out.write(raw)
    out.flush()
    for error in result.errors:
        err.write(visible(f"[ERROR] citeledger: {error}") + "\n")
    err.flush()
    return result.exit_code


if __name__ == "__main__":  # pragma: no cover - ``python -m citeledger.filter``
    sys.exit(main())
