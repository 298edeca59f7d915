"""Turning one retrieval into receipts: extract → locate → receipt, one per quote.

This is the middle of the verify act, kept free of the network so it can be tested with values:
``verify`` hands it a finished ``Retrieval`` (or the error that ended one) and writes what it
returns. The source's words in a receipt are always cut mechanically from the extracted text at
the located span — never the writer's typing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from citeledger import __version__
from citeledger.errors import ExtractError
from citeledger.evidence.other_work import copy_is_other_work
from citeledger.evidence.registry import metadata_mismatch as _mismatch
from citeledger.evidence.registry import retraction_of
from citeledger.evidence.store import EvidenceStore, StoredEvidence, sha256_hex, utc_now
from citeledger.model import Extracted, LocateResult, Quote, Receipt, Retrieval, Source

TOOL = f"citeledger {__version__}"
CONTEXT_CHARS = 32


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
    return {
        "metadata": dict(metadata),
        "metadata_mismatch": metadata_mismatch(source, metadata),
        "retracted": retraction_of(metadata),
    }


@dataclass(frozen=True)
class Analysis:
    """What extraction and locating made of one body: all a worker process hands back."""

    extracted: Extracted | None
    reason: str | None  # why there is no text of the work, when there is none
    located: Mapping[tuple[str, int | None], LocateResult] = field(default_factory=dict)
    snapshots: tuple[Any, ...] = ()  # evidence.snapshot.Snapshot, one per span found
    snapshot_note: str | None = None  # why a found quote has no snapshot


def quote_hint(quote: Quote) -> int | None:
    """Where the quote was last found: the locator looks there first."""
    return quote.last_found.char_start if quote.last_found else None


def analyse(
    body: bytes,
    content_type: str | None,
    url: str | None,
    status: int | None,
    quotes: Sequence[tuple[str, int | None]] = (),
    max_inflated: int | None = None,
) -> Analysis:
    """Extract the text of the work and locate each (quote, hint) in it. Pure: a worker runs it."""
    from citeledger.extract.dispatch import extract, no_work_reason
    from citeledger.locate.locator import locate_prepared, prepare

    extracted: Extracted | None = None
    reason: str | None = None
    try:
        extra = {} if max_inflated is None else {"max_inflated": max_inflated}
        extracted = extract(body, content_type, url, **extra)
    except ExtractError as exc:
        reason = f"no text of the work: {exc.message}"
    if extracted is not None:
        reason = no_work_reason(extracted, status)
    located: dict[tuple[str, int | None], LocateResult] = {}
    if extracted is not None and reason is None and quotes:
        prepared = prepare(extracted.text)
        for text, hint in quotes:
            located[(text, hint)] = locate_prepared(
                prepared, text, page_starts=extracted.page_starts, hint=hint
            )
    snapshots, note, unseen = _snapshots(body, extracted, located.values())
    for key, result in located.items():
        span = (result.char_start or 0, result.char_end or 0)
        words = unseen.get(span) if result.found else None
        if words:
            located[key] = _not_visible(result, words)
    return Analysis(extracted, reason, located, snapshots, note)


def _visible(body: bytes, extracted: Extracted, result: LocateResult) -> LocateResult:
    """``result``, or its refusal when it is a PDF span whose words the page does not show
    (the same check ``analyse`` makes, for a quote located outside the worker)."""
    if extracted.kind != "pdf" or not result.found or result.char_start is None:
        return result
    from citeledger.evidence import snapshot

    try:
        view = snapshot.pdf_view(
            body, extracted.page_starts, extracted.text, result.char_start, result.char_end or 0
        )
    except Exception:  # as in _snapshots: a renderer's failure costs the image only
        return result
    return _not_visible(result, view.unseen) if view.unseen else result


def _not_visible(result: LocateResult, words: tuple[tuple[int, str], ...]) -> LocateResult:
    """A span found in a PDF's text layer whose words the page does not show: refused."""
    pages = sorted({page for page, _ in words})
    shown = " ".join(word for _, word in words[:8]) + (" …" if len(words) > 8 else "")
    where = "page " + ", ".join(map(str, pages)) if len(pages) < 4 else f"{len(pages)} pages"
    return LocateResult(
        found=False,
        score=result.score,
        candidate=result.source_quote,
        differences=(f"the PDF's text has these words but {where} shows no ink for them: {shown}",),
        reason="the quoted words are in the PDF's text layer but not visible on its page",
    )


def _snapshots(
    body: bytes, extracted: Extracted | None, located: Any
) -> tuple[tuple[Any, ...], str | None, dict[tuple[int, int], tuple[tuple[int, str], ...]]]:
    """One image per distinct span found, from the stored body only (``evidence.snapshot``),
    and for a PDF the words of each span that its page shows no ink for (``pdf_view``)."""
    spans = _found_spans(located)
    if extracted is None or not spans:
        return (), None, {}
    from citeledger.evidence import snapshot

    if extracted.kind == "html":
        return (), None, {}  # drawn by Chromium in the verify process, after this worker returns
    if extracted.kind != "pdf":
        return (), snapshot.NO_RENDERER, {}
    made = []
    unseen: dict[tuple[int, int], tuple[tuple[int, str], ...]] = {}
    for start, end in spans:
        try:
            view = snapshot.pdf_view(body, extracted.page_starts, extracted.text, start, end)
        except Exception:  # a renderer's failure costs the image, never the check
            view = snapshot.PdfView(None)
        if view.unseen:
            unseen[(start, end)] = view.unseen
        elif view.snapshot is not None:
            made.append(view.snapshot)
    kept = len(spans) - len(unseen)
    note = None if len(made) == kept else "no snapshot: the page could not be rendered"
    return tuple(made), note, unseen


def _found_spans(located: Any) -> list[tuple[int, int]]:
    """The distinct spans of the quotes found, in order."""
    return sorted(
        {
            (r.char_start, r.char_end)
            for r in located
            if r.found and r.char_start is not None and r.char_end is not None
        }
    )


def _wants_html_snapshot(work: Analysis) -> bool:
    """A web page with a quote found in it: its image is drawn (or its absence said)."""
    extracted = work.extracted
    if extracted is None or extracted.kind != "html" or work.reason is not None:
        return False
    return bool(_found_spans(work.located.values()))


def _html_snapshots(body: bytes, content_type: str | None, work: Analysis) -> Analysis:
    """The web page's snapshots, drawn here and not in the limited worker (Chromium is a
    process tree of its own); an absent or failing browser costs the image, never the check."""
    extracted = work.extracted
    if extracted is None or not _wants_html_snapshot(work):
        return work
    spans = _found_spans(work.located.values())
    from dataclasses import replace

    from citeledger.evidence import htmlshot, snapshot

    if not htmlshot.renderer_available():
        return replace(work, snapshot_note=snapshot.NO_RENDERER)
    try:
        shots = htmlshot.html_snapshots(body, content_type, extracted.text, spans)
    except Exception:  # a browser that will not start or times out: no image, said so
        return replace(work, snapshot_note="no snapshot: the page could not be rendered")
    made = tuple(s for s in shots if s is not None)
    note = None if len(made) == len(spans) else "no snapshot: the page could not be rendered"
    return replace(work, snapshots=made, snapshot_note=note)


@dataclass(frozen=True)
class Capture:
    """One retrieval, extracted and stored once, however many sources share its identifier."""

    retrieval: Retrieval
    stored: StoredEvidence
    extracted: Extracted | None
    prepared: Any  # locate.Prepared: the text normalised once for every quote, or None
    reason: str | None  # why there is no text of the work, when there is none
    located: Mapping[tuple[str, int | None], LocateResult] = field(default_factory=dict)
    snapshot_note: str | None = None  # why a found quote has no snapshot, when it has none

    def locate(self, prepared: Any, quote: str, *, page_starts: Any, hint: int | None) -> Any:
        """The worker's result for this quote; located here only for a quote it was not given."""
        found = self.located.get((quote, hint))
        if found is not None:
            return found
        from citeledger.locate.locator import locate_prepared, prepare

        assert self.extracted is not None
        if prepared is None:
            prepared = prepare(self.extracted.text)
        result = locate_prepared(prepared, quote, page_starts=page_starts, hint=hint)
        return _visible(self.retrieval.body, self.extracted, result)


def capture(
    retrieval: Retrieval,
    store: EvidenceStore,
    sources: Sequence[Source] = (),
    limits: Any = None,
    pool: Any = None,
    noted_for: str | None = None,
) -> Capture:
    """Extract the text of the work, locate the quotes of ``sources`` and store the evidence.

    With ``limits`` (``bounded.Limits``) extraction and locating run in a worker process under
    them, and a source over a limit has no text of the work, the limit named as the reason;
    with ``pool`` (``bounded.WorkerPool``, whose limits then apply) in one of its workers, which
    also writes the evidence file (its WARC serialising is CPU the event loop's process would
    otherwise share under one interpreter lock) unless an HTML snapshot is still to be drawn.

    ``noted_for`` (a ledger's absolute path): the body's leftovers note is taken for that
    ledger before the evidence is stored (``evidence.leftovers``) — in the worker with
    ``pool`` (the note's lock and append are CPU the event loop's process need not spend),
    here when the worker could not.
    """
    args = (retrieval.body, retrieval.content_type, retrieval.url, retrieval.status)
    quotes = tuple(dict.fromkeys((q.text, quote_hint(q)) for s in sources for q in s.quotes))
    stored: StoredEvidence | None = None
    if noted_for is not None and pool is None:
        _note(store.root, noted_for, retrieval.body)
    if limits is None and pool is None:
        from citeledger.locate.locator import prepare  # here only: a pool's parent never locates

        work = analyse(*args, quotes)
        prepared = prepare(work.extracted.text) if work.extracted and not work.reason else None
    elif pool is not None:
        body_sha = sha256_hex(retrieval.body)
        with store.holding(body_sha):  # the worker's write is this digest's one write
            noted = noted_for is None
            try:
                inflated = pool.limits.max_inflated_bytes
                job = (retrieval, quotes, inflated, store.root, body_sha, store.synced)
                work, stored, noted = pool.run(analyse_and_store, (*job, noted_for))
            except ExtractError as exc:
                work = Analysis(None, exc.message)
            if noted_for is not None and not noted:  # a failed note or worker: noted here
                _note(store.root, noted_for, retrieval.body)  # (a second line is harmless)
            if stored is None:  # not written: an HTML page's image, a failed write or worker
                work = _html_snapshots(retrieval.body, retrieval.content_type, work)
                stored = store.put_held(retrieval, work.extracted, work.snapshots, body_sha)
                _remember(work, stored)
            else:
                store.adopt(stored)
        prepared = None
    else:
        from citeledger.verify.bounded import run_bounded

        task = (*args, quotes, limits.max_inflated_bytes)
        try:
            work = run_bounded(analyse, task, limits)
        except ExtractError as exc:
            work = Analysis(None, exc.message)
        prepared = None
    if stored is None:
        work = _html_snapshots(retrieval.body, retrieval.content_type, work)
        stored = store.put(retrieval, work.extracted, work.snapshots)
        _remember(work, stored)
    return Capture(
        retrieval, stored, work.extracted, prepared, work.reason, work.located, work.snapshot_note
    )


def analyse_and_store(
    retrieval: Retrieval,
    quotes: Sequence[tuple[str, int | None]],
    max_inflated: int | None,
    root: Any,
    body_sha: str,
    synced: bool,
    noted_for: str | None = None,
) -> tuple[Analysis, StoredEvidence | None, bool]:
    """The body's leftovers note (for the ledger ``noted_for``), ``analyse``, then the evidence
    file written (``write_evidence``), in a pool's worker; and whether the note was taken.

    Not written when an HTML snapshot is still to be drawn (Chromium runs in verify's process,
    never in a limited worker), nor when the note or the write fails: ``None``, and the caller
    notes, draws the image and writes the file (its failure then the run's one-line error, not
    the source's).
    """
    from citeledger.evidence.store import write_evidence

    r = retrieval
    noted = noted_for is None
    if not noted:
        try:  # before anything is stored: a kill after the write leaves a noted file
            _note(root, str(noted_for), r.body)
            noted = True
        except OSError:
            pass
    work = analyse(r.body, r.content_type, r.url, r.status, quotes, max_inflated)
    if not noted or _wants_html_snapshot(work):
        return work, None, noted
    try:
        stored = write_evidence(root, r, work.extracted, work.snapshots, body_sha, synced=synced)
    except OSError:  # a full disk, a read-only store: verify's own write then says which file
        return work, None, noted
    _remember(work, stored)
    return work, stored, noted


def _note(root: Any, ledger_path: str, body: bytes) -> None:
    from pathlib import Path

    from citeledger.evidence import leftovers

    leftovers.note(Path(root), ledger_path, body)


def _remember(work: Analysis, stored: StoredEvidence) -> None:
    """The derivation this process just made (``evidence.derivation``): a build then trusts the
    stored text without running the extractor again."""
    if work.extracted is not None and stored.text_sha256 is not None:
        from citeledger.evidence.derivation import remember

        made_by = f"{work.extracted.extractor} {work.extracted.extractor_version}"
        remember(stored.body_sha256, made_by, stored.text_sha256)


def receipts_for_retrieval(
    source: Source,
    retrieval: Retrieval,
    store: EvidenceStore,
    *,
    metadata: Mapping[str, Any] | None = None,
) -> list[tuple[int, Receipt]]:
    """Extract, store the evidence, locate every quote and make its receipt."""
    return receipts_for_capture(source, capture(retrieval, store, (source,)), metadata=metadata)


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
    retrieval, stored, extracted = cap.retrieval, cap.stored, cap.extracted
    # A local file is named as the ledger names it: an absolute file:// path would publish the
    # writer's folder layout in a shared ledger and break when the project moves.
    # The writer's local copy of a DOI is named as ``file:PATH`` and said in ``local_copy``.
    where = retrieval.recorded_uri if retrieval.reconstructed else None
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
        "evidence_sha256": stored.file_sha256,
        "etag": _header(retrieval.response_headers, "etag"),
        "last_modified": _header(retrieval.response_headers, "last-modified"),
        "fulltext_error": fulltext_error,
        "local_copy": retrieval.local_copy,
    }
    base.update(_metadata_fields(source, metadata or retrieval.metadata))
    other = copy_is_other_work(base["identifier"], retrieval, extracted)  # evidence/other_work
    base["metadata_mismatch"] = base.get("metadata_mismatch") or other
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
        (_with_snapshot(i, _quote_receipt(q, extracted, cap.prepared, base, cap.locate), cap))
        for i, q in enumerate(source.quotes)
    ]


def _with_snapshot(i: int, receipt: Receipt, cap: Capture) -> tuple[int, Receipt]:
    """A found quote's receipt names the stored image of its span, or says why there is none."""
    if receipt.outcome != "found":
        return i, receipt
    import dataclasses

    shot = cap.stored.snapshots.get((receipt.char_start or 0, receipt.char_end or 0))
    if shot is None:
        note = cap.snapshot_note or "no snapshot: none was made for this quote"
        return i, dataclasses.replace(receipt, snapshot_note=note)
    record_id, digest = shot
    return i, dataclasses.replace(receipt, snapshot=record_id, snapshot_sha256=digest)


def _quote_receipt(
    quote: Quote, extracted: Extracted, prepared: Any, base: Mapping[str, Any], locate_prepared: Any
) -> Receipt:
    hint = quote_hint(quote)
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
    """The registry's title versus the ledger's (one rule, in ``registry_answer``)."""
    return _mismatch(str(source.csl.get("title") or ""), metadata)


def sign_receipts(receipts: list[tuple[int, Receipt]], signer: Any) -> list[tuple[int, Receipt]]:
    """Each receipt signed with its evidence file's digest (``signing``); unchanged without a
    key."""
    if signer is None:
        return receipts
    import dataclasses

    from citeledger.evidence.signing import payload

    signed = []
    for i, r in receipts:
        r = dataclasses.replace(r, signed_by=signer.public, signed_at=utc_now())
        signed.append((i, dataclasses.replace(r, signature=signer.sign(payload(r)))))
    return signed
