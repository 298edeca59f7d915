"""The report of a judged document: ``check --json``, the readable summary and the exit code.

Built from judgements only, so it can never disagree with what the filter renders. A
``restricted`` citation is reported without its title, quote or anchor: the report may be read
by the audience the source is hidden from. Never touches the network.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from citeledger.evidence.links import passage_link, receipt_is_pdf
from citeledger.evidence.store import EvidenceReader
from citeledger.model import CitationRef, Judgement, State, title_of


@dataclass(frozen=True)
class Entry:
    document: str
    ref: CitationRef
    judgement: Judgement
    reader: EvidenceReader | None = None  # the evidence of the ledger that judged it


def anchor_for(judgement: Judgement, reader: EvidenceReader | None) -> dict[str, Any] | None:
    """Where a reader lands to check the passage: a text fragment or a PDF page, plus evidence."""
    r = judgement.receipt
    if r is None or judgement.state is State.RESTRICTED or r.outcome != "found":
        return None
    anchor: dict[str, Any] = {
        "url": r.url,
        "page": r.page,
        "char_start": r.char_start,
        "char_end": r.char_end,
        "evidence": r.evidence,
    }
    text = None
    on_web = (r.url or "").lower().startswith(("http://", "https://"))  # else no link to make
    if on_web and not receipt_is_pdf(r) and reader is not None and r.evidence:
        ev = reader.load(r.evidence)
        text = ev.text if not ev.problems else None
    link = passage_link(r, text) if r.char_start is not None else None  # a found span only
    if link is not None:
        anchor["link"] = link
    return anchor


def entry_json(entry: Entry) -> dict[str, Any]:
    j = entry.judgement
    restricted = j.state is State.RESTRICTED
    out: dict[str, Any] = {
        "key": j.key,
        "state": j.state.value,
        "reasons": list(j.reasons),
        "claim": "" if restricted else entry.ref.claim,
        "quote": None if restricted or j.quote is None else j.quote.text,
        "anchor": None if restricted else anchor_for(j, entry.reader),
        "document": entry.document,
        "occurrence": entry.ref.occurrence,
        "locator": entry.ref.locator,
    }
    if not restricted and j.source is not None:
        out["title"] = j.source.title
        out["identifier"] = str(j.source.identifier)
    if not restricted and j.receipt is not None and j.receipt.local_copy:
        # the text was the writer's own copy of the work, not what the identifier serves
        out["local_copy"] = j.receipt.local_copy
    if not restricted and j.receipt is not None and j.receipt.quote:
        out["source_quote"] = j.receipt.quote
    if not restricted and j.receipt is not None and j.receipt.outcome == "found":
        out["edits"] = [dataclasses.asdict(e) for e in j.receipt.edits]
    if not restricted and j.misplaced and j.receipt is not None:
        out["found_on_page"] = j.receipt.page  # verify found it there; the locator says not
    return out


def citation_title(c: Mapping[str, Any]) -> str:
    """A report citation's title in words (``model.title_of``, as the callout says it)."""
    return title_of(State(c["state"]), "found_on_page" in c)


def build_report(
    entries: Sequence[Entry],
    coverage: dict[str, Any] | None,
    warnings: Sequence[str] = (),
) -> dict[str, Any]:
    counts = Counter(e.judgement.state.value for e in entries)
    return {
        "citations": [entry_json(e) for e in entries],
        "counts": dict(sorted(counts.items())),
        "coverage": coverage,
        "warnings": list(warnings),
    }


def summary_text(report: dict[str, Any], *, quiet: bool = False) -> str:
    lines: list[str] = []
    if not quiet:
        for c in report["citations"]:
            if c["state"] == State.CHECKED.value:
                continue
            where = f"{c['document']} #{c['occurrence']}"
            lines.append(f"{where}: @{c['key']}: {citation_title(c)}")
            for reason in c["reasons"]:
                lines.append(f"    {reason}")
    counts = report["counts"]
    total = sum(counts.values())
    checked = counts.get(State.CHECKED.value, 0)
    parts = ", ".join(f"{n} {k}" for k, n in counts.items()) or "no citations"
    lines.append(f"citeledger: {checked} of {total} citations checked ({parts})")
    cov = report.get("coverage")
    missing = (cov or {}).get("without_provenance") or []
    if missing and not quiet:
        lines.append(
            f"Sentences without provenance ({len(missing)}; cite them or mark them "
            "[…]{.unverified}):"
        )
        lines.extend(f"    {s}" for s in missing[:10])
        if len(missing) > 10:
            lines.append(f"    … and {len(missing) - 10} more (see --json)")
    if cov and cov.get("prose_sentences"):
        ratio = cov.get("ratio")
        pct = f"{ratio:.0%}" if isinstance(ratio, (int, float)) else "n/a"
        lines.append(
            f"citeledger: coverage {pct}: {cov['with_provenance']} of {cov['prose_sentences']} "
            "prose sentences declare provenance"
        )
    return "\n".join(lines)
