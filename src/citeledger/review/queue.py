"""What awaits review: each checked citation of the documents whose claim has no review that
holds for its present words, judged by ``check``'s loop (``DocumentJudges``): the build's walk,
judge and trust."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from citeledger.evidence.store import EvidenceReader
from citeledger.judge import Judge
from citeledger.model import CitationRef, Judgement
from citeledger.report.check import DocumentJudges
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
    judges = DocumentJudges(ledger=ledger, from_format=from_format, allow_outside=allow_outside)
    for doc in docs:
        found = judges.judge(doc)
        assert found is not None  # a ledger is required here
        for citation, judgement in zip(found.citations, found.judgements, strict=True):
            judged.append((doc, found.ledger, citation.ref, judgement, found.judge))
    judges.finish()  # the verdicts kept for the next build, as check and the filter keep them
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
