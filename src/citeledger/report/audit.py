"""The "Citation audit" section: every citation of a document, in order, one row each.

It is the reader's index of promises (seed 000 rules 7–8, acceptance 2–4): from each row a
reader reaches the claim (``#citeledger-claim-N``), the evidence page of the retrieval that
checked it, and the source itself at the passage (a text fragment or ``#page=N``); from each
claim's flag the filter links back here (``flag_link_target``). A withdrawn citation keeps its
row with the date and the reason, so the correction stays reachable after the claim is fixed.

The section is built as pandoc JSON AST (API 1.23) plain dicts, so the filter can splice it into
any output format. The element ids are a contract the filter and the browser test follow:

* claim Span ``citeledger-claim-N`` (class ``citeledger-claim``),
* inline flag Span ``citeledger-cite-N`` (class ``citeledger-flag``),
* callout Div ``citeledger-breakdown-N``,
* audit row anchor Span ``citeledger-audit-N`` in the row's first cell,

with N the citation's occurrence number in the document.

What it must never do: leak a ``restricted`` source (no title, identifier, key, quote, evidence
or source link is rendered for one, whatever the caller put in the row); link anywhere but the
document itself, the evidence folder and the source's own http(s) address; read files or the
network. It judges nothing: states and reasons come from ``Judge``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote as _quote

from citeledger.build.names import audit_row_id, claim_id
from citeledger.evidence.page import is_relative_link
from citeledger.evidence.store import EvidenceReader
from citeledger.locate.edits import count_phrase
from citeledger.model import (
    MISPLACED_LABEL,
    Edit,
    Identifier,
    Judgement,
    State,
    Withdrawal,
    title_of,
)
from citeledger.report.summary import anchor_for
from citeledger.review.status import Present

Node = dict[str, Any]

AUDIT_ID = "citeledger-audit"
AUDIT_TITLE = "Citation audit"
TABLE_CLASS = "citeledger-audit-table"
ROW_CLASS = "citeledger-audit-row"
EVIDENCE_LINK_CLASS = "citeledger-evidence-link"
SOURCE_LINK_CLASS = "citeledger-source-link"
CLAIM_LINK_CLASS = "citeledger-claim-link"
REVIEW_CLASS = "citeledger-review"  # the writer's review of a checked claim, in its row
MISPLACED_CLASS = "citeledger-misplaced"  # the badge of a quote found on another page
CLAIM_CHARS = 280  # a claim longer than this is cut in the audit (the claim link shows it all)

_COLUMNS = ("Claim", "Source", "State", "Reasons", "Links")
_WIDTHS = (0.22, 0.2, 0.16, 0.28, 0.14)  # fixed widths: LaTeX/DOCX wrap cells instead of overflow


# --- the ids contract (defined in citeledger.names) ------------------------------------------


def flag_link_target(n: int) -> str:
    """Where a claim's inline flag points: its row in the audit."""
    return "#" + audit_row_id(n)


# --- rows -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AuditRow:
    """One citation as the audit shows it; built by ``row_for`` or by hand in tests.

    ``evidence_page`` is a file name inside the evidence folder (``evidence_pages``), and
    ``source_link`` an absolute http(s) address of the source, ideally at the passage.
    ``withdrawal`` is the ledger's record when the citation was withdrawn or disputed: its date
    and reason are always shown, even if ``reasons`` was trimmed.
    """

    occurrence: int
    key: str
    state: State
    reasons: tuple[str, ...] = ()
    claim: str = ""
    title: str | None = None
    identifier: str | None = None
    evidence_page: str | None = None
    source_link: str | None = None
    source_link_at_passage: bool = False
    withdrawal: Withdrawal | None = None
    signer: str | None = None  # who signed the receipt, and when (Judgement.signer)
    edits: tuple[Edit, ...] = ()  # a checked quotation's accepted brackets and omissions
    review: str | None = None  # the writer's review of a checked claim, or that it is out of date
    misplaced: bool = False  # verify found the quote on another page (``Judgement.misplaced``)

    @property
    def restricted(self) -> bool:
        return self.state is State.RESTRICTED


def resolver_url(identifier: Identifier) -> str | None:
    """The public address an identifier resolves at, for a source with no anchored receipt."""
    if identifier.kind == "url" and identifier.value.lower().startswith(("http://", "https://")):
        return identifier.value
    if identifier.kind == "doi":
        return "https://doi.org/" + _quote(identifier.value, safe="/:;()._-")
    if identifier.kind == "arxiv":
        return "https://arxiv.org/abs/" + _quote(identifier.value, safe="/._-")
    return None  # isbn: no canonical resolver; file: a path on the writer's machine


def row_for(
    occurrence: int,
    judgement: Judgement,
    *,
    claim: str = "",
    evidence_page: str | None = None,
    reader: EvidenceReader | None = None,
    present: Present | None = None,
) -> AuditRow:
    """The row of one judged citation; the source link is the receipt's anchor when there is one.

    A restricted judgement yields a row with nothing of the source in it, so a caller cannot
    leak it by passing an evidence page it wrote for another audience. ``present``: the
    document's claims by the quote they cite (``review.status.present_claims``), so a review of
    another claim of the same quote is not shown as this one's, out of date.
    """
    state = judgement.state
    if state is State.RESTRICTED:
        return AuditRow(occurrence, judgement.key, state, judgement.reasons, claim=claim)
    source = judgement.source
    link: str | None = None
    at_passage = False
    anchor = anchor_for(judgement, reader)
    if anchor is not None and anchor.get("link"):
        link, at_passage = str(anchor["link"]), True
    elif source is not None:
        link = resolver_url(source.identifier)
    withdrawal = None
    if source is not None:
        if state is State.WITHDRAWN:
            withdrawal = source.withdrawn
        elif state is State.DISPUTED:
            withdrawal = source.disputed
    return AuditRow(
        occurrence=occurrence,
        key=judgement.key,
        state=state,
        reasons=judgement.reasons,
        claim=claim,
        title=source.title if source is not None else None,
        identifier=str(source.identifier) if source is not None else None,
        evidence_page=evidence_page,
        source_link=link,
        source_link_at_passage=at_passage,
        withdrawal=withdrawal,
        signer=judgement.signer,
        edits=judgement.receipt.edits
        if state is State.CHECKED and judgement.receipt is not None
        else (),
        review=_review_words(judgement, claim, present),
        misplaced=judgement.misplaced,
    )


def _review_words(judgement: Judgement, claim: str, present: Present | None) -> str | None:
    """A checked row's review (or that it is out of date); nothing while there is none yet —
    ``check`` and ``review --list`` count those."""
    from citeledger.review.status import NOT_REVIEWED, review_of

    status = review_of(judgement, claim, present)
    return None if status is None or status.state == NOT_REVIEWED else status.words


# --- AST constructors (pandoc API 1.23, as JSON dicts) --------------------------------------------


def _attr(ident: str = "", classes: Sequence[str] = ()) -> list[Any]:
    return [ident, list(classes), []]


def _words(text: str) -> list[Node]:
    out: list[Node] = []
    for word in text.split():
        if out:
            out.append({"t": "Space"})
        out.append({"t": "Str", "c": word})
    return out


def _span(ident: str, classes: Sequence[str], inlines: list[Node]) -> Node:
    return {"t": "Span", "c": [_attr(ident, classes), inlines]}


def _link(inlines: list[Node], url: str, title: str = "", classes: Sequence[str] = ()) -> Node:
    return {"t": "Link", "c": [_attr("", classes), inlines, [url, title]]}


def _plain(inlines: list[Node]) -> Node:
    return {"t": "Plain", "c": inlines}


def _lines(lines: Sequence[list[Node]]) -> list[Node]:
    """Inline lines joined by LineBreak: one Plain, which every writer can put in a cell."""
    out: list[Node] = []
    for line in lines:
        if not line:
            continue
        if out:
            out.append({"t": "LineBreak"})
        out.extend(line)
    return out


def _cell(blocks: list[Node]) -> list[Any]:
    return [_attr(), {"t": "AlignDefault"}, 1, 1, blocks]


def _row(ident: str, classes: Sequence[str], cells: list[list[Any]]) -> list[Any]:
    return [_attr(ident, classes), cells]


# --- the section ----------------------------------------------------------------------------------


def audit_blocks(
    rows: Sequence[AuditRow],
    *,
    evidence_dir_href: str | None,
    level: int = 1,
) -> list[dict[str, Any]]:
    """Header ``#citeledger-audit``, a one-line count, and the table of every citation.

    ``evidence_dir_href`` is the evidence folder as a link from the built document (e.g.
    ``evidence``); None for builds without evidence pages, where no evidence link is made.
    """
    if evidence_dir_href is not None:
        _check_relative(evidence_dir_href)
    header = {
        "t": "Header",
        "c": [level, _attr(AUDIT_ID, ["unnumbered"]), _words(AUDIT_TITLE)],
    }
    blocks: list[Node] = [header, {"t": "Para", "c": _words(_summary(rows))}]
    if not rows:
        return blocks
    head = _row("", [], [_cell([_plain(_words(c))]) for c in _COLUMNS])
    body = [_table_row(r, evidence_dir_href) for r in rows]
    table = {
        "t": "Table",
        "c": [
            _attr("", [TABLE_CLASS]),
            [None, []],
            [[{"t": "AlignDefault"}, {"t": "ColWidth", "c": w}] for w in _WIDTHS],
            [_attr(), [head]],
            [[_attr(), 0, [], body]],
            [_attr(), []],
        ],
    }
    blocks.append(table)
    return blocks


def _summary(rows: Sequence[AuditRow]) -> str:
    total = len(rows)
    if total == 0:
        return "This document has no citations."
    breakdowns = sum(1 for r in rows if r.state.is_breakdown)
    checked = total - breakdowns
    noun = "citation" if total == 1 else "citations"
    return (
        f"{total} {noun}: {checked} checked, {breakdowns} not. Each row links to its claim, "
        "to the evidence of its check where there is one, and to the source."
    )


def _table_row(row: AuditRow, evidence_dir_href: str | None) -> list[Any]:
    cells = [
        _cell([_plain(_claim_cell(row))]),
        _cell([_plain(_source_cell(row))]),
        _cell([_plain(_state_cell(row))]),
        _cell([_plain(_lines([_words(r) for r in _reasons(row)]))]),
        _cell([_plain(_links_cell(row, evidence_dir_href))]),
    ]
    return _row("", [ROW_CLASS, f"citeledger-{row.state.value}"], cells)


def _claim_cell(row: AuditRow) -> list[Node]:
    n = row.occurrence
    claim = " ".join(row.claim.split())
    if len(claim) > CLAIM_CHARS:
        claim = claim[:CLAIM_CHARS].rsplit(" ", 1)[0] + " …"
    text = _words(claim) if claim else _words(f"claim {n}")
    anchor = _span(audit_row_id(n), ["citeledger-audit-anchor"], [{"t": "Str", "c": f"{n}."}])
    back = _link(text, "#" + claim_id(n), "Back to the claim", [CLAIM_LINK_CLASS])
    return [anchor, {"t": "Space"}, back]


def _source_cell(row: AuditRow) -> list[Node]:
    if row.restricted:
        # not even the key: keys are often made of the author and title (cavalin2020)
        return _words("Restricted source: not shown to this audience.")
    lines: list[list[Node]] = []
    if row.title:
        lines.append(_words(row.title))
    lines.append([{"t": "Code", "c": [_attr(), "@" + row.key]}])
    if row.identifier:
        lines.append([{"t": "Code", "c": [_attr(), row.identifier]}])
    return _lines(lines)


def _state_cell(row: AuditRow) -> list[Node]:
    state = row.state
    # a quote verify found on another page is no "quote-not-found" to the reader: the callout's
    # and check's words (``title_of``), and a badge of its own
    word = MISPLACED_LABEL.replace(" ", "-") if row.misplaced else state.value
    badge = _span(
        "",
        [
            "citeledger-state",
            f"citeledger-{state.value}",
            *([MISPLACED_CLASS] if row.misplaced else []),
        ],
        [{"t": "Strong", "c": [{"t": "Str", "c": word}]}],
    )
    notes = [_words(f"Signed by {row.signer}")] if row.signer else []
    if row.review and state is State.CHECKED:
        notes.append([_span("", [REVIEW_CLASS], _words(row.review))])
    if state is State.CHECKED:
        if row.edits:  # "checked, with 1 omission": the reader is told the writer edited it
            badge_line = [
                badge,
                {"t": "Str", "c": ","},
                {"t": "Space"},
                *_words(f"with {count_phrase(row.edits)}"),
            ]
        else:
            badge_line = [badge]
        return _lines([badge_line, *notes]) if notes else badge_line
    return _lines([[badge], _words(title_of(state, row.misplaced)), *notes])


def _reasons(row: AuditRow) -> list[str]:
    reasons = [r for r in row.reasons if r and r.strip()]
    w = row.withdrawal
    if w is not None:
        label = "Disputed" if row.state is State.DISPUTED else "Withdrawn"
        record = f"{label} on {w.date}: {w.reason}"
        if not any(w.date in r and w.reason in r for r in reasons):
            reasons.insert(0, record)
        if w.source_says and not any(w.source_says in r for r in reasons):
            reasons.append(f"What the source actually says: “{w.source_says}”")
    if not reasons and row.state.is_breakdown:
        reasons.append(title_of(row.state, row.misplaced))
    return reasons


def _links_cell(row: AuditRow, evidence_dir_href: str | None) -> list[Node]:
    if row.restricted:
        return _words("none for this audience")
    lines: list[list[Node]] = []
    if row.evidence_page and evidence_dir_href is not None:
        href = _join(evidence_dir_href, row.evidence_page)
        title = "The stored retrieval: receipt, digests and the passage highlighted"
        lines.append([_link(_words("evidence"), href, title, [EVIDENCE_LINK_CLASS])])
    elif evidence_dir_href is not None:
        lines.append([{"t": "Emph", "c": _words("no evidence page")}])
    if row.source_link and _is_web(row.source_link):
        label = "source at the passage" if row.source_link_at_passage else "source"
        title = "A new visit to the source, not the stored retrieval"
        lines.append([_link(_words(label), row.source_link, title, [SOURCE_LINK_CLASS])])
    return _lines(lines) or _words("none")


def _is_web(url: str) -> bool:
    return url.lower().startswith(("http://", "https://"))


def _check_relative(href: str) -> None:
    if href and not is_relative_link(href):  # "": the pages beside the document
        raise ValueError(
            f"evidence_dir_href {href!r} must be a path (no scheme, no //host, no spaces): "
            "evidence pages are files beside the document"
        )


def _join(folder: str, page: str) -> str:
    name = _quote(page, safe="._-~")
    folder = folder.rstrip("/")
    return f"{folder}/{name}" if folder else name
