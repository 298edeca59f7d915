"""Turning one retrieval into receipts: extract → locate → receipt, one per quote.

This is the middle of the verify act, kept free of the network so it can be tested with values:
``verify`` hands it a finished ``Retrieval`` (or the error that ended one) and writes what it
returns. The source's words in a receipt are always cut mechanically from the extracted text at
the located span — never the writer's typing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rapidfuzz import fuzz

from citeledger import __version__
from citeledger.errors import ExtractError
from citeledger.evidence import EvidenceStore, StoredEvidence, sha256_hex, utc_now
from citeledger.model import Extracted, Quote, Receipt, Retrieval, Source

TOOL = f"citeledger {__version__}"
CONTEXT_CHARS = 32
TITLE_MISMATCH_BELOW = 60  # token-set similarity (0-100) under which titles name different works


def failure_receipts(
    source: Source,
    reason: str,
    retrieved_at: str | None = None,
    *,
    metadata: Mapping[str, Any] | None = None,
    outcome: str = "unretrievable",
) -> list[tuple[int, Receipt]]:
    """Every quote of the source gets an ``unretrievable`` (or, on recheck, ``gone``) receipt
    carrying the precise reason.

    The registry's metadata still counts: a paywalled paper that was retracted is retracted.
    """
    at = retrieved_at or utc_now()
    extra = _metadata_fields(source, metadata)
    return [
        (
            i,
            Receipt(
                outcome=outcome,
                identifier=str(source.identifier),
                retrieved_at=at,
                tool=TOOL,
                writer_quote_sha256=sha256_hex(q.text),
                reason=reason,
                **extra,
            ),
        )
        for i, q in enumerate(source.quotes)
    ]


def _metadata_fields(source: Source, metadata: Mapping[str, Any] | None) -> dict[str, Any]:
    if not metadata:
        return {}
    from citeledger.retrieve import retraction_of

    return {
        "metadata": dict(metadata),
        "metadata_mismatch": metadata_mismatch(source, metadata),
        "retracted": retraction_of(metadata),
    }


@dataclass(frozen=True)
class Capture:
    """One retrieval, extracted and stored once, however many sources share its identifier."""

    retrieval: Retrieval
    stored: StoredEvidence
    extracted: Extracted | None
    prepared: Any  # locate.Prepared: the text normalised once for every quote
    reason: str | None  # why there is no text of the work, when there is none


def capture(retrieval: Retrieval, store: EvidenceStore) -> Capture:
    """Extract the text of the work and store the evidence (body, text, extractor)."""
    from citeledger.extract import extract, no_work_reason
    from citeledger.locate import prepare

    extracted: Extracted | None = None
    reason: str | None = None
    try:
        extracted = extract(retrieval.body, retrieval.content_type, retrieval.url)
    except ExtractError as exc:
        reason = f"no text of the work: {exc.message}"
    if extracted is not None:
        reason = no_work_reason(extracted, retrieval.status)
    stored = store.put(retrieval, extracted)
    prepared = prepare(extracted.text) if extracted is not None and reason is None else None
    return Capture(retrieval, stored, extracted, prepared, reason)


def receipts_for_retrieval(
    source: Source,
    retrieval: Retrieval,
    store: EvidenceStore,
    *,
    metadata: Mapping[str, Any] | None = None,
) -> list[tuple[int, Receipt]]:
    """Extract, store the evidence, locate every quote and make its receipt."""
    return receipts_for_capture(source, capture(retrieval, store), metadata=metadata)


def receipts_for_capture(
    source: Source,
    cap: Capture,
    *,
    metadata: Mapping[str, Any] | None = None,
    fulltext_error: str | None = None,
) -> list[tuple[int, Receipt]]:
    """Locate every quote of ``source`` in an already stored capture.

    ``fulltext_error`` says the capture is a DOI's landing page, not the work: a quote missing
    from it is then ``unretrievable`` (we never had the text), not ``not-found``.
    """
    from citeledger.locate import locate_prepared

    retrieval, stored, extracted = cap.retrieval, cap.stored, cap.extracted
    # A local file is named as the ledger names it: an absolute file:// path would publish the
    # writer's folder layout in a shared ledger and break when the project moves.
    where = str(source.identifier) if retrieval.reconstructed else None
    base: dict[str, Any] = {
        "identifier": str(source.identifier),
        "retrieved_at": retrieval.retrieved_at,
        "tool": TOOL,
        "requested_url": where or retrieval.requested_url,
        "url": where or retrieval.url,
        "redirects": tuple(retrieval.redirects),
        "status": retrieval.status,
        "content_type": retrieval.content_type,
        "body_sha256": stored.body_sha256,
        "evidence": stored.evidence,
        "etag": _header(retrieval.response_headers, "etag"),
        "last_modified": _header(retrieval.response_headers, "last-modified"),
        "fulltext_error": fulltext_error,
    }
    base.update(_metadata_fields(source, metadata or retrieval.metadata))
    if cap.reason is not None or extracted is None:
        return [
            (
                i,
                Receipt(
                    outcome="unretrievable",
                    writer_quote_sha256=sha256_hex(q.text),
                    reason=cap.reason or "no text of the work",
                    **base,
                ),
            )
            for i, q in enumerate(source.quotes)
        ]
    base["extractor"] = f"{extracted.extractor} {extracted.extractor_version}"
    base["text_sha256"] = stored.text_sha256
    base["last_revised"] = extracted.last_revised
    return [
        (i, _quote_receipt(q, extracted, cap.prepared, base, locate_prepared))
        for i, q in enumerate(source.quotes)
    ]


def _quote_receipt(
    quote: Quote, extracted: Extracted, prepared: Any, base: Mapping[str, Any], locate_prepared: Any
) -> Receipt:
    hint = quote.last_found.char_start if quote.last_found else None
    result = locate_prepared(prepared, quote.text, page_starts=extracted.page_starts, hint=hint)
    writer_sha = sha256_hex(quote.text)
    not_found = not result.found or result.char_start is None or result.char_end is None
    if not_found and base.get("fulltext_error"):
        return Receipt(
            outcome="unretrievable",
            writer_quote_sha256=writer_sha,
            reason=f"no text of the work: {base['fulltext_error']}",
            **base,
        )
    if not_found:
        return Receipt(
            outcome="not-found",
            writer_quote_sha256=writer_sha,
            reason=result.reason,
            candidate=result.candidate,
            differences=tuple(result.differences),
            score=result.score,
            **base,
        )
    text = extracted.text
    start, end = result.char_start, result.char_end
    words = text[start:end]
    return Receipt(
        outcome="found",
        writer_quote_sha256=writer_sha,
        page=extracted.page_of(start),
        char_start=start,
        char_end=end,
        quote=words,
        quote_sha256=sha256_hex(words),
        prefix=text[max(0, start - CONTEXT_CHARS) : start],
        suffix=text[end : end + CONTEXT_CHARS],
        match=result.match,
        score=result.score,
        edits=tuple(result.edits),
        reason="the passage occurs more than once in the source" if result.ambiguous else None,
        **base,
    )


def _header(headers: tuple[tuple[str, str], ...], name: str) -> str | None:
    for k, v in headers:
        if k.lower() == name:
            return v
    return None


def metadata_mismatch(source: Source, metadata: Mapping[str, Any]) -> str | None:
    """The registry's title versus the ledger's: a wrong DOI is the commonest citation error."""
    ours = str(source.csl.get("title") or "").strip()
    theirs = metadata.get("title")
    if isinstance(theirs, list):
        theirs = theirs[0] if theirs else ""
    theirs = str(theirs or "").strip()
    if not ours or not theirs:
        return None
    if fuzz.token_set_ratio(ours.lower(), theirs.lower()) >= TITLE_MISMATCH_BELOW:
        return None
    return f"the ledger says “{ours}”, the registry says “{theirs}”"
