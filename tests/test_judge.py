"""The judgement earns "checked" only from the app's own act; every shortcut is a breakdown."""

from __future__ import annotations

import dataclasses
import gzip
import zlib
from pathlib import Path

from citeledger.evidence.derivation import remember
from citeledger.evidence.store import EvidenceStore, sha256_hex, utc_now
from citeledger.judge import Judge
from citeledger.model import (
    CitationRef,
    Extracted,
    Identifier,
    Judgement,
    Ledger,
    Quote,
    Receipt,
    Retrieval,
    Source,
    State,
    Withdrawal,
)
from citeledger.verify.receipts import receipts_for_retrieval

PAGE = (
    b"<html><head><title>Manual</title></head><body><h1>14 Appeals</h1>"
    b"<p>An appeal against a declined subsidence claim must be received within 60 days of the "
    b"date of the decision letter. Except in cases of subsidence, an appeal must be received "
    b"within 30 days.</p></body></html>"
)
QUOTE = (
    "An appeal against a declined subsidence claim must be received within 60 days of the date "
    "of the decision letter."
)
URL = "http://127.0.0.1:9/manual.html"


def _ledger(tmp_path: Path, *sources: Source) -> Ledger:
    return Ledger(
        path=str(tmp_path / "citeledger.yaml"),
        root=str(tmp_path),
        sources={s.key: s for s in sources},
        evidence_dir=str(tmp_path / ".citeledger"),
    )


def _retrieval(identifier: Identifier, metadata: dict[str, str] | None = None) -> Retrieval:
    """The manual's page as retrieved under ``identifier``, with a registry's answer."""
    return Retrieval(
        identifier=identifier,
        requested_url=URL,
        url=URL,
        status=200,
        content_type="text/html; charset=utf-8",
        body=PAGE,
        retrieved_at=utc_now(),
        metadata=metadata,
    )


def _verified(tmp_path: Path, quote_text: str = QUOTE) -> tuple[Source, Receipt]:
    """A source checked by the real receipt path (extract → locate → evidence)."""
    source = Source("hchm", Identifier("url", URL), {"title": "Manual"}, (Quote(quote_text),))
    store = EvidenceStore(tmp_path / ".citeledger")
    [(index, receipt)] = receipts_for_retrieval(source, _retrieval(source.identifier), store)
    assert index == 0
    checked = dataclasses.replace(source, quotes=(Quote(quote_text, receipts=(receipt,)),))
    return checked, receipt


def _judge(tmp_path: Path, source: Source, ref: CitationRef | None = None) -> State:
    judge = Judge(_ledger(tmp_path, source))
    return judge.judge(ref or CitationRef(source.key)).state


def test_a_real_check_is_checked(tmp_path: Path) -> None:
    source, receipt = _verified(tmp_path)
    assert receipt.outcome == "found"
    assert receipt.quote is not None and "60 days" in receipt.quote
    assert _judge(tmp_path, source) is State.CHECKED


def test_a_changed_number_is_quote_not_found(tmp_path: Path) -> None:
    source, receipt = _verified(tmp_path, QUOTE.replace("60", "90"))
    assert receipt.outcome == "not-found"
    assert _judge(tmp_path, source) is State.QUOTE_NOT_FOUND


def test_hand_written_verified_flag_is_unchecked(tmp_path: Path) -> None:
    source = Source("k", Identifier("url", URL), {}, (Quote(QUOTE, asserted_verified=True),))
    judge = Judge(_ledger(tmp_path, source))
    verdict = judge.judge(CitationRef("k"))
    assert verdict.state is State.UNCHECKED
    assert any("not a check" in r for r in verdict.reasons)
    assert judge.warnings and "verify" in judge.warnings[0]


def test_hand_written_receipt_without_evidence_is_not_checked(tmp_path: Path) -> None:
    forged = Receipt(
        outcome="found",
        identifier=f"url:{URL}",
        retrieved_at="2026-01-01T00:00:00Z",
        tool="citeledger 0.1.0",
        writer_quote_sha256=sha256_hex(QUOTE),
        url=URL,
        quote=QUOTE,
        quote_sha256=sha256_hex(QUOTE),
        char_start=0,
        char_end=len(QUOTE),
        body_sha256="0" * 64,
        text_sha256="0" * 64,
        evidence="00/" + "0" * 64 + ".warc.gz",
    )
    source = Source("k", Identifier("url", URL), {}, (Quote(QUOTE, receipts=(forged,)),))
    assert _judge(tmp_path, source) is State.STALE
    incomplete = dataclasses.replace(forged, evidence=None, body_sha256=None)
    source = Source("k", Identifier("url", URL), {}, (Quote(QUOTE, receipts=(incomplete,)),))
    assert _judge(tmp_path, source) is State.STALE


def test_receipt_copied_onto_another_quote_is_not_checked(tmp_path: Path) -> None:
    source, receipt = _verified(tmp_path)
    other = "Except in cases of subsidence, an appeal must be received within 30 days."
    # The attacker also fixes the writer digest so only the evidence can refuse it.
    moved = dataclasses.replace(receipt, writer_quote_sha256=sha256_hex(other))
    forged = dataclasses.replace(source, quotes=(Quote(other, receipts=(moved,)),))
    assert _judge(tmp_path, forged) is State.TAMPERED


def test_quote_edited_after_its_receipt_is_stale(tmp_path: Path) -> None:
    source, receipt = _verified(tmp_path)
    edited = dataclasses.replace(
        source, quotes=(Quote(QUOTE.replace("60 days", "sixty days"), receipts=(receipt,)),)
    )
    assert _judge(tmp_path, edited) is State.STALE


def test_identifier_changed_after_receipt_is_stale(tmp_path: Path) -> None:
    source, _ = _verified(tmp_path)
    moved = dataclasses.replace(source, identifier=Identifier("url", URL + "?v=2"))
    assert _judge(tmp_path, moved) is State.STALE


def test_missing_evidence_is_stale(tmp_path: Path) -> None:
    source, receipt = _verified(tmp_path)
    assert receipt.evidence is not None
    (tmp_path / ".citeledger" / receipt.evidence).unlink()
    assert _judge(tmp_path, source) is State.STALE


def test_edited_evidence_is_tampered(tmp_path: Path) -> None:
    source, receipt = _verified(tmp_path)
    assert receipt.evidence is not None
    path = tmp_path / ".citeledger" / receipt.evidence
    # Edit inside each gzip member so the file stays a well-formed WARC: only digests can tell.
    members, data = [], path.read_bytes()
    while data:
        d = zlib.decompressobj(wbits=31)
        members.append(d.decompress(data).replace(b"60 days", b"90 days"))
        data = d.unused_data
    path.write_bytes(b"".join(gzip.compress(m) for m in members))
    verdict = Judge(_ledger(tmp_path, source)).judge(CitationRef(source.key))
    assert verdict.state is State.TAMPERED
    assert "digest" in verdict.reasons[0]


def test_corrupt_evidence_is_tampered(tmp_path: Path) -> None:
    source, receipt = _verified(tmp_path)
    assert receipt.evidence is not None
    (tmp_path / ".citeledger" / receipt.evidence).write_bytes(b"not a warc file")
    assert _judge(tmp_path, source) is State.TAMPERED


def test_not_in_ledger_withdrawn_disputed_restricted(tmp_path: Path) -> None:
    base = Source("k", Identifier("url", URL), {"title": "Secret plan"}, (Quote(QUOTE),))
    assert Judge(_ledger(tmp_path, base)).judge(CitationRef("nope")).state is State.NOT_IN_LEDGER
    w = Withdrawal("2026-08-02", "the paper does not say this", "It says something else.")
    withdrawn = dataclasses.replace(base, withdrawn=w)
    verdict = Judge(_ledger(tmp_path, withdrawn)).judge(CitationRef("k"))
    assert verdict.state is State.WITHDRAWN
    assert any("2026-08-02" in r for r in verdict.reasons)
    assert any("It says something else." in r for r in verdict.reasons)
    disputed = dataclasses.replace(base, disputed=w)
    assert _judge(tmp_path, disputed) is State.DISPUTED
    restricted = dataclasses.replace(base, audience=("internal",))
    verdict = Judge(_ledger(tmp_path, restricted)).judge(CitationRef("k"))
    assert verdict.state is State.RESTRICTED
    assert not any("Secret plan" in r for r in verdict.reasons)
    assert (
        Judge(_ledger(tmp_path, restricted), audience="internal").judge(CitationRef("k")).state
        is State.UNCHECKED
    )


def test_quote_selection(tmp_path: Path) -> None:
    q1 = Quote("first passage text here", id="a", locator="p. 14")
    q2 = Quote("second passage text here", id="b", locator="sec. 2")
    source = Source("k", Identifier("url", URL), {}, (q1, q2))
    judge = Judge(_ledger(tmp_path, source))
    assert judge.judge(CitationRef("k", locator="page 14")).quote == q1
    assert judge.judge(CitationRef("k", locator="§ 2")).quote == q2
    assert judge.judge(CitationRef("k", selector="b")).quote == q2
    none_selected = judge.judge(CitationRef("k"))
    assert none_selected.state is State.UNCHECKED and none_selected.quote is None
    assert judge.judge(CitationRef("k", locator="p. 99")).quote is None
    assert judge.judge(CitationRef("k", selector="zzz")).quote is None


def test_receipt_records_the_contract_fields(tmp_path: Path) -> None:
    _, receipt = _verified(tmp_path)
    for name in (
        "url",
        "status",
        "content_type",
        "retrieved_at",
        "body_sha256",
        "extractor",
        "text_sha256",
        "char_start",
        "char_end",
        "quote",
        "quote_sha256",
        "prefix",
        "suffix",
        "match",
        "tool",
        "evidence",
    ):
        assert getattr(receipt, name) not in (None, ""), name
    assert receipt.quote_sha256 == sha256_hex(receipt.quote or "")


def test_quote_across_a_page_break_with_running_header_is_checked(tmp_path: Path) -> None:
    """The locator sets running headers aside; the build-time re-check must do the same."""
    from citeledger.locate.locator import prepare
    from citeledger.verify.receipts import Capture, receipts_for_capture

    pages = [
        "Journal of Testing 12 (2026)\nFirst page text about nothing in particular at all.\n",
        "Journal of Testing 12 (2026)\nThe appeal window for subsidence claims is sixty days\n",
        "Journal of Testing 12 (2026)\nfrom the date of the decision letter, as stated above.\n",
        "Journal of Testing 12 (2026)\nA last page so that the header recurs often enough.\n",
    ]
    text = "\f".join(pages)
    starts, at = [], 0
    for page in pages:
        starts.append(at)
        at += len(page) + 1
    quote = (
        "The appeal window for subsidence claims is sixty days from the date of the decision letter"
    )
    extracted = Extracted(text, "pdf", "test", "1", page_starts=tuple(starts))
    source = Source("p", Identifier("url", URL), {}, (Quote(quote),))
    retrieval = Retrieval(
        source.identifier, URL, URL, 200, "application/pdf", b"%PDF-fake", utc_now()
    )
    stored = EvidenceStore(tmp_path / ".citeledger").put(retrieval, extracted)
    assert stored.text_sha256 is not None
    # The text is made up, not extracted: record the derivation as verify records its own.
    remember(stored.body_sha256, "test 1", stored.text_sha256)
    cap = Capture(retrieval, stored, extracted, prepare(text), None)
    [(_, receipt)] = receipts_for_capture(source, cap)
    assert receipt.outcome == "found", receipt.differences
    checked = dataclasses.replace(source, quotes=(Quote(quote, receipts=(receipt,)),))
    assert _judge(tmp_path, checked) is State.CHECKED


def test_receipt_moved_to_another_source_is_tampered(tmp_path: Path) -> None:
    """Copying a good receipt under another key and editing its identifier does not pass: the
    evidence says what was retrieved."""
    source, receipt = _verified(tmp_path)
    other_id = Identifier("doi", "10.18653/v1/D19-1131")
    moved = dataclasses.replace(receipt, identifier=str(other_id))
    forged = Source("larson", other_id, {}, (Quote(QUOTE, receipts=(moved,)),))
    verdict = Judge(_ledger(tmp_path, forged)).judge(CitationRef("larson"))
    assert verdict.state is State.TAMPERED
    assert "cannot be moved" in verdict.reasons[0]
    # Editing the URL the receipt claims is caught too.
    claimed = dataclasses.replace(receipt, url="https://example.org/elsewhere")
    relabelled = dataclasses.replace(source, quotes=(Quote(QUOTE, receipts=(claimed,)),))
    assert _judge(tmp_path, relabelled) is State.TAMPERED


def test_the_pinpoint_is_part_of_the_promise(tmp_path: Path) -> None:
    only = Source("k", Identifier("url", URL), {}, (Quote("the only passage here", id="a"),))
    judge = Judge(_ledger(tmp_path, only))
    assert judge.judge(CitationRef("k")).quote is not None  # no pinpoint: the only quote
    verdict = judge.judge(CitationRef("k", locator="p. 99"))
    assert verdict.quote is None and "add `locator: p. 99`" in verdict.reasons[0]
    placed = Source("k", Identifier("url", URL), {}, (Quote("words", id="c", locator="sec. 14.3"),))
    judge = Judge(_ledger(tmp_path, placed))
    assert judge.judge(CitationRef("k", locator="sec. 14.3", selector="c")).quote is not None
    verdict = judge.judge(CitationRef("k", locator="sec. 99.9", selector="c"))
    assert verdict.state is State.UNCHECKED and "stands at sec. 14.3" in verdict.reasons[0]


def _checked_under(
    tmp_path: Path, identifier: Identifier, metadata: dict[str, str] | None = None
) -> Source:
    """A source checked by the real receipt path under ``identifier`` (the registry's answer
    ``metadata`` stored in its evidence, as verify stores it)."""
    source = Source("w", identifier, {"title": "Manual"}, (Quote(QUOTE),))
    retrieval = _retrieval(identifier, {"title": "Manual", **(metadata or {})})
    [(_, receipt)] = receipts_for_retrieval(source, retrieval, EvidenceStore(tmp_path / ".c"))
    assert receipt.outcome == "found" and receipt.identifier == str(identifier)
    return dataclasses.replace(source, quotes=(Quote(QUOTE, receipts=(receipt,)),))


def _judged_as(tmp_path: Path, source: Source, kind: str, value: str) -> Judgement:
    respelled = dataclasses.replace(source, identifier=Identifier(kind, value))
    ledger = dataclasses.replace(_ledger(tmp_path, respelled), evidence_dir=str(tmp_path / ".c"))
    return Judge(ledger).judge(CitationRef(source.key))


def test_a_respelled_identifier_keeps_its_check_and_another_work_does_not(
    tmp_path: Path,
) -> None:
    """A DOI in other case, an ISBN-10 as its ISBN-13: the same work, judged from its evidence
    as before (deleting the evidence still makes it stale); another DOI is stale."""
    doi = _checked_under(tmp_path / "doi", Identifier("doi", "10.5555/Appeals"))
    assert _judged_as(tmp_path / "doi", doi, "doi", "10.5555/appeals").state is State.CHECKED
    other = _judged_as(tmp_path / "doi", doi, "doi", "10.5555/appeal")
    assert other.state is State.STALE and "identifier changed" in other.reasons[0]
    isbn = _checked_under(tmp_path / "isbn", Identifier("isbn", "0306406152"))
    assert _judged_as(tmp_path / "isbn", isbn, "isbn", "9780306406157").state is State.CHECKED
    receipt = isbn.quotes[0].latest
    assert receipt is not None and receipt.evidence is not None
    (tmp_path / "isbn" / ".c" / receipt.evidence).unlink()
    gone = _judged_as(tmp_path / "isbn", isbn, "isbn", "9780306406157")
    assert gone.state is State.STALE and "evidence for this receipt is gone" in gone.reasons[0]


def test_an_arxiv_version_the_ledger_now_names_counts_only_when_it_was_the_one_checked(
    tmp_path: Path,
) -> None:
    """A check of the latest that retrieved v2 counts for ``v2``, not for ``v1``; a check
    pinned to v1 counts for "the latest" only when v1 was the newest at the check."""
    latest = _checked_under(
        tmp_path / "a", Identifier("arxiv", "2101.00001"), {"version": "v2", "latest_version": "v2"}
    )
    assert _judged_as(tmp_path / "a", latest, "arxiv", "2101.00001v2").state is State.CHECKED
    assert _judged_as(tmp_path / "a", latest, "arxiv", "2101.00001v1").state is State.STALE
    old = _checked_under(
        tmp_path / "b",
        Identifier("arxiv", "2101.00001v1"),
        {"version": "v1", "latest_version": "v2"},
    )
    assert _judged_as(tmp_path / "b", old, "arxiv", "2101.00001").state is State.STALE
    only = _checked_under(
        tmp_path / "c",
        Identifier("arxiv", "2101.00001v1"),
        {"version": "v1", "latest_version": "v1"},
    )
    assert _judged_as(tmp_path / "c", only, "arxiv", "2101.00001").state is State.CHECKED
