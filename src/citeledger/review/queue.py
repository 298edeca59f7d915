"""What awaits review: each checked citation of the documents whose claim has no review that
holds for its present words, found with the same walk and judge as the build and ``check``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from citeledger.build.citations import find_citations
from citeledger.build.options import read_options
from citeledger.evidence.store import EvidenceReader
from citeledger.judge import Judge
from citeledger.ledger import load_ledger
from citeledger.model import CitationRef, Judgement
from citeledger.report.check import ledger_for, pandoc_json
from citeledger.review.status import (
    REVIEWED,
    ReviewStatus,
    claim_sha256,
    present_claims,
    review_of,
)

CONTEXT = 240  # characters of the source shown either side of the quote


@dataclass(frozen=True)
class Pending:
    """One claim to put before the writer, with what they need to answer."""

    document: str
    ledger: str
    ref: CitationRef
    judgement: Judgement
    status: ReviewStatus
    quote_index: int
    reader: EvidenceReader

    @property
    def where(self) -> str:
        return f"{self.document} #{self.ref.occurrence}"


def awaiting(
    docs: Sequence[str],
    *,
    ledger: str | None = None,
    from_format: str | None = None,
    allow_outside: bool = False,
) -> list[Pending]:
    """The checked citations without a review that holds, in document order; a claim cited
    twice with the same quote is asked once."""
    judged: list[tuple[str, str, CitationRef, Judgement, Judge]] = []
    judges: dict[str, Judge] = {}
    for doc in docs:
        doc_json = pandoc_json(doc, from_format)
        opts = read_options(doc_json.get("meta", {}))
        lpath = ledger_for(doc, opts, ledger, allow_outside=allow_outside)
        judge = judges.get(lpath)
        if judge is None:
            judge = judges[lpath] = Judge(
                load_ledger(lpath),
                audience=opts.audience,
                trusted_keys=opts.trusted_keys,
                require_signature=opts.require_signature,
            )
        for found in find_citations(doc_json):
            judged.append((doc, lpath, found.ref, judge.judge(found.ref), judge))
    present = present_claims((j, ref.claim) for _, _, ref, j, _ in judged)
    out: list[Pending] = []
    seen: set[tuple[str, str, int, str]] = set()
    for doc, lpath, ref, judgement, judge in judged:
        status = review_of(judgement, ref.claim, present)
        if status is None or status.state == REVIEWED or judgement.source is None:
            continue
        quote = judgement.quote
        assert quote is not None  # review_of: a checked judgement has its quote
        index = judgement.source.quotes.index(quote)
        once = (lpath, ref.key, index, claim_sha256(ref.claim))
        if once not in seen:
            seen.add(once)
            out.append(Pending(doc, lpath, ref, judgement, status, index, judge.reader))
    return out


def in_context(item: Pending) -> tuple[str, str, str]:
    """The source's words before the quote, the quote as the source has it, and after."""
    r = item.judgement.receipt
    if r is None:
        return "", item.judgement.quote.text if item.judgement.quote else "", ""
    text = item.reader.load(r.evidence).text if r.evidence else None
    if text and r.char_start is not None and r.char_end is not None:
        start, end = r.char_start, r.char_end
        before = text[max(0, start - CONTEXT) : start]
        return before, text[start:end], text[end : end + CONTEXT]
    return r.prefix or "", r.quote or "", r.suffix or ""
