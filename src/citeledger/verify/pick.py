"""The pick act: a quote selected from the retrieved text, written with its receipt.

Seed 000's rule 6: the quotation is the source's own words, selected mechanically. ``pick``
works on a ``Capture`` — the source's stored evidence when a receipt names one, else a
retrieval made now under verify's plan, consent and lock — and ``record`` writes the selected
span's exact characters as the quote, then runs that quote through the same locate + receipt
path as verify (``receipts_for_capture``) and appends the receipt, chained and signed, by
verify's batch writer. The receipt is only written when the locator finds the quote at the very
span selected: a selection is never asserted checked.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

from citeledger import ledger as ledger_mod
from citeledger.errors import CiteledgerError, ExtractError
from citeledger.evidence import leftovers
from citeledger.evidence.store import (
    EvidenceReader,
    EvidenceStore,
    LoadedEvidence,
    StoredEvidence,
    sha256_hex,
)
from citeledger.inert import visible
from citeledger.judge import evidence_problem
from citeledger.model import Extracted, Ledger, Quote, Receipt, Retrieval, Source
from citeledger.verify.batch import Finished, ReceiptBatch
from citeledger.verify.bounded import Limits, run_bounded
from citeledger.verify.receipts import Analysis, Capture, analyse, capture, receipts_for_capture


@dataclass(frozen=True)
class Session:
    """The text a writer picks from, and what recording a pick needs."""

    ledger_path: str
    ledger: Ledger
    source: Source
    extracted: Extracted  # the text shown and selected from
    origin: str  # "stored evidence …" or "retrieved now"
    cap: Capture | None = None  # the stored evidence, when the pick is made from it
    retrieval: Retrieval | None = None  # a retrieval made now: stored with the pick
    limits: Any = None  # the extraction worker's limits, for that retrieval
    metadata: Any = None  # the registry's answer, as verify hands it to the receipt
    fulltext_error: str | None = None  # a DOI's landing page, not the work: why

    @property
    def text(self) -> str:
        return self.extracted.text


def the_source(led: Ledger, key: str) -> Source:
    source = led.sources.get(key)
    if source is None:
        raise CiteledgerError(
            f"source '{key}' is not in the ledger",
            file=led.path,
            fix=f"add it first: citeledger adopt DOC --bib FILE, or citeledger add {key} --url …",
        )
    if source.withdrawn is not None:
        raise CiteledgerError(
            f"source '{key}' is withdrawn; a quote from it would support nothing",
            file=led.path,
            fix="cite another source",
        )
    return source


@contextlib.contextmanager
def session(
    ledger_path: str,
    key: str,
    *,
    assume_yes: bool = False,
    allow_private: bool = False,
    config_path: str | None = None,
    allow_outside: bool = False,
    out: TextIO | None = None,
) -> Iterator[Session]:
    """The source's text, under verify's run lock for the whole pick (stored or retrieved)."""
    from citeledger.verify.run import load_config, load_confined, run_lock

    out = out or sys.stdout
    led = load_confined(ledger_path, allow_outside)
    source = the_source(led, key)
    config = load_config(config_path, allow_private)
    with run_lock(led, "pick", out):  # held for the whole pick: no verify interleaves
        stored = stored_capture(led, source, config.extraction_limits)
        if stored is not None:
            fulltext = next(
                (
                    q.latest.fulltext_error
                    for q in source.quotes
                    if q.latest is not None and q.latest.evidence == stored.stored.evidence
                ),
                None,
            )
            origin = f"stored evidence {stored.stored.evidence}"
            assert stored.extracted is not None
            yield Session(
                ledger_path,
                led,
                source,
                stored.extracted,
                origin,
                cap=stored,
                metadata=stored.retrieval.metadata,
                fulltext_error=fulltext,
            )
            return
        retrieval, extracted, outcome = _retrieve(led, source, assume_yes, config, out)
        yield Session(
            ledger_path,
            led,
            source,
            extracted,
            "retrieved now",
            retrieval=retrieval,
            limits=config.extraction_limits,
            metadata=outcome.metadata,
            fulltext_error=outcome.fulltext_error,
        )


def stored_capture(led: Ledger, source: Source, limits: Limits | None = None) -> Capture | None:
    """The newest stored evidence a receipt of ``source`` names, when it holds the work's text."""
    receipts = [q.latest for q in source.quotes if q.latest is not None]
    usable = [
        r
        for r in receipts
        if r.evidence and r.extractor and r.text_sha256 and r.outcome in ("found", "not-found")
    ]
    if not usable:
        return None
    r = max(usable, key=lambda x: x.retrieved_at)
    assert r.evidence is not None and r.extractor is not None and r.body_sha256 is not None
    ev = EvidenceReader(led.evidence_dir).load(r.evidence)
    if (
        ev.problems
        or ev.text is None
        or ev.body is None
        or ev.file_sha256 != r.evidence_sha256
        or evidence_problem(r, ev) is not None
    ):
        return None  # a damaged or swapped store: pick retrieves afresh rather than trust it
    extracted = _stored_text(ev, r.extractor, limits or Limits())
    if extracted is None:
        return None
    headers = tuple((k, v) for k, v in (("etag", r.etag), ("last-modified", r.last_modified)) if v)
    retrieval = Retrieval(
        identifier=source.identifier,
        requested_url=r.requested_url or "",
        url=r.url or "",
        status=r.status or 200,
        content_type=r.content_type,
        body=b"",  # not needed: the text is the stored one, tied to its body when it was stored
        retrieved_at=r.retrieved_at,
        response_headers=headers,
        redirects=tuple(r.redirects),
        metadata=r.metadata,
        local_copy=r.local_copy,  # the writer's own file stays named as such in the new receipt
    )
    assert ev.body_sha256 is not None
    stored = StoredEvidence(r.evidence, ev.body_sha256, ev.text_sha256, ev.file_sha256)
    return Capture(retrieval, stored, extracted, None, None)


def _stored_text(ev: LoadedEvidence, made_by: str, limits: Limits) -> Extracted | None:
    """The stored text, once it is tied to the stored body, never on the text record's word: a
    rewritten text record (with a receipt edited to match) must not become a new receipt.

    Tied as the build ties it: a derivation remembered from an earlier confirmation
    (``evidence.derivation``), else the text made again from the body in a limited worker, as
    verify makes it, so a hostile stored body cannot hang or exhaust pick; None when it differs.
    """
    from citeledger.evidence.derivation import remember, remembered

    assert ev.body is not None and ev.body_sha256 is not None and ev.text is not None
    if ev.kind and remembered(ev.body_sha256, made_by) == ev.text_sha256:
        name, _, version = made_by.rpartition(" ")
        return Extracted(ev.text, ev.kind, name, version, ev.page_starts, ev.title, ev.last_revised)
    x = _analysed(ev.body, ev.content_type, ev.target_uri, ev.status, limits).extracted
    if x is None or f"{x.extractor} {x.extractor_version}" != made_by:
        return None
    if sha256_hex(x.text) != ev.text_sha256:
        return None
    remember(ev.body_sha256, made_by, ev.text_sha256)
    return x


def _analysed(
    body: bytes, content_type: str | None, url: str | None, status: int | None, limits: Limits
) -> Analysis:
    """``analyse`` in a worker under the extraction limits verify applies; a limit or a
    library's failure is the Analysis's reason."""
    task = (body, content_type, url, status, (), limits.max_inflated_bytes)
    try:
        return run_bounded(analyse, task, limits)
    except ExtractError as exc:
        return Analysis(None, exc.message)


def _retrieve(
    led: Ledger, source: Source, assume_yes: bool, config: Any, out: TextIO
) -> tuple[Retrieval, Extracted, Any]:
    """One retrieval, stated first as verify states its plan, and its text extracted (in a
    limited worker). Nothing is stored until a passage is picked."""
    from citeledger import retrieve
    from citeledger.verify.run import _confirm, _request, refuse_missing_copies

    refuse_missing_copies(led, [source])
    request = _request(retrieve.FetchRequest, led, [source], False)
    out.write(visible(retrieve.plan([request], config).describe()) + "\n")
    if not _confirm("Send this request? [y/N] ", assume_yes, out):
        raise CiteledgerError("nothing was sent, so there is no text to pick from", fix="answer y")
    (outcome,) = retrieve.fetch_all_sync([request], config)
    r = outcome.retrieval
    if r is None:
        why = outcome.error.message if outcome.error is not None else "no response"
        raise CiteledgerError(
            f"@{source.key} could not be retrieved: {why}",
            fix="check the identifier, or run `citeledger verify` to record the failure",
        )
    work = _analysed(r.body, r.content_type, r.url, r.status, config.extraction_limits)
    if work.reason is not None or work.extracted is None:
        raise CiteledgerError(
            f"@{source.key}: {work.reason or 'no text of the work'}",
            fix="there is no text to pick a quote from; cite the passage from another source",
        )
    return r, work.extracted, outcome


def record(
    s: Session, start: int, end: int, locator: str | None, quote_id: str | None = None
) -> Receipt:
    """Write ``text[start:end]`` as a quote of the source and its receipt from the same text.

    Refused (nothing written) unless the locator finds the quote at exactly this span, alone.
    """
    from citeledger.verify.run import _record_head

    words = s.text[start:end]
    probe = dataclasses.replace(s.source, quotes=(Quote(text=words, id=quote_id, locator=locator),))
    cap, pending = s.cap, None
    if cap is None:  # stored now, as verify stores it: extracted, located, snapshot drawn
        assert s.retrieval is not None
        folder = Path(s.ledger.evidence_dir)
        pending = leftovers.note(folder, s.ledger_path, s.retrieval.body)
        cap = capture(s.retrieval, EvidenceStore(folder), (probe,), s.limits)
        if cap.extracted is None or cap.extracted.text != s.text:
            raise CiteledgerError(
                "the source's text came out differently the second time it was extracted",
                fix="run pick again",
            )
    ((_, receipt),) = receipts_for_capture(
        probe, cap, metadata=s.metadata, fulltext_error=s.fulltext_error
    )
    if receipt.outcome != "found" or (receipt.char_start, receipt.char_end) != (start, end):
        raise CiteledgerError(
            "the selection is not found where it was selected: "
            + (receipt.reason or "the locator placed it elsewhere"),
            fix="widen the selection until the passage is unique in the source",
        )
    if receipt.reason:  # e.g. the passage occurs more than once in the source
        raise CiteledgerError(
            f"the selection is not unique: {receipt.reason}",
            fix="widen the selection until the passage is unique in the source",
        )
    from citeledger.evidence.signing import load_signer

    ledger_mod.add_quote(s.ledger_path, s.source.key, words, locator=locator, quote_id=quote_id)
    source = ledger_mod.load_ledger(s.ledger_path).sources[s.source.key]
    index = next(i for i, q in enumerate(source.quotes) if q.text == words)
    batch = ReceiptBatch(s.ledger_path, s.ledger.evidence_dir, load_signer())
    host = urlsplit(receipt.url or "").hostname or "local files"
    item = Finished(source, [(index, receipt)], "picked", host)
    (written,) = batch.write([item], [pending] if pending else [])
    if batch.head and batch.head != batch.head_written:  # the receipts' write may have set it
        _record_head(s.ledger_path, batch.head)
    return written.receipts[0][1]
