"""Snapshots: the page holding the quote, rendered from the captured bytes, bound to the capture.

What a reader relies on: a checked PDF citation carries an image of the page as retrieved with
the quote marked; the image is in the same evidence file, named by digest in the receipt; and a
bundle whose image is gone or altered is not checked.
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest

import netserver as ns
from citeledger.evidence.snapshot import MAX_SIDE_PX, png_size
from citeledger.evidence.store import EvidenceReader
from citeledger.extract.dispatch import extract
from citeledger.judge import Judge
from citeledger.ledger import load_ledger
from citeledger.model import CitationRef, State
from conftest import corpus_file
from verify_util import found_receipt, verified_one

PDF = "agarwal11.pdf"


def _pdf_quote(body: bytes) -> str:
    """A sentence of page 2, cut from the extracted text (the corpus paper is MIT-free to read
    in place; nothing of it is copied into the repository)."""
    from citeledger.sentence_end import sentence_spans

    x = extract(body, "application/pdf", "http://127.0.0.1/p.pdf")
    start = x.page_starts[1] + 300
    page = x.text[start : x.page_starts[2]]
    # a whole sentence: a window cut anywhere may stop inside a clause that governs it, which
    # the locator rightly refuses ("… almost exclusively in the noiseless ⟦setting⟧")
    for a, b in sentence_spans(page)[1:]:  # (the first is cut where the window starts)
        sentence = " ".join(page[a:b].split())
        if 60 <= len(sentence) <= 200 and '"' not in sentence and "\\" not in sentence:
            return sentence
    raise AssertionError("page 2 holds no sentence of 60-200 characters")


def _verified(tmp_path: Path, netserver: ns.NetServer) -> Path:
    body = corpus_file("pdf", PDF).read_bytes()
    netserver.static("/paper.pdf", body, content_type="application/pdf")
    return verified_one(tmp_path, "paper", netserver.url("/paper.pdf"), _pdf_quote(body))


def _receipt(ledger: Path):  # type: ignore[no-untyped-def]
    return found_receipt(ledger, "paper")


def test_pdf_snapshot_is_made_stored_and_named_by_digest(
    tmp_path: Path, netserver: ns.NetServer
) -> None:
    ledger = _verified(tmp_path, netserver)
    receipt = _receipt(ledger)
    assert receipt.snapshot and receipt.snapshot_sha256 and receipt.snapshot_note is None
    led = load_ledger(ledger)
    ev = EvidenceReader(led.evidence_dir).load(receipt.evidence)
    assert ev.ok, ev.problems
    shot = ev.snapshots[receipt.snapshot]
    assert shot.sha256 == receipt.snapshot_sha256
    assert shot.content_type == "image/png" and shot.pages == "2"
    # bound to the response record it renders, not to another capture
    assert shot.renders is not None and shot.renders in _record_ids(led.evidence_dir, receipt)
    size = png_size(shot.png)
    assert size is not None and max(size) <= MAX_SIDE_PX
    assert Judge(led).judge(CitationRef("paper")).state is State.CHECKED
    # only the one request for the document: the image came from the captured bytes
    assert [s.path for s in netserver.requests] == ["/paper.pdf"]


def _record_ids(root: str, receipt) -> list[str]:  # type: ignore[no-untyped-def]
    from warcio.archiveiterator import ArchiveIterator

    with open(Path(root) / receipt.evidence, "rb") as fh:
        return [
            r.rec_headers.get_header("WARC-Record-ID")
            for r in ArchiveIterator(fh)
            if r.rec_type == "response"
        ]


def _rewrite(path: Path, change) -> None:  # type: ignore[no-untyped-def]
    """Rewrite the evidence file with its snapshot record dropped or its image changed."""
    from warcio.archiveiterator import ArchiveIterator
    from warcio.warcwriter import WARCWriter

    out = io.BytesIO()
    writer = WARCWriter(out, gzip=True, warc_version="1.1")
    with path.open("rb") as fh:
        for record in ArchiveIterator(fh):
            if record.rec_headers.get_header("WARC-Citeledger-Snapshot-Of") is not None:
                png = change(record.content_stream().read())
                if png is None:
                    continue
                record = writer.create_warc_record(
                    record.rec_headers.get_header("WARC-Target-URI"),
                    "resource",
                    payload=io.BytesIO(png),
                    length=len(png),
                    warc_headers_dict=dict(record.rec_headers.headers),
                )
            writer.write_record(record)
    path.write_bytes(out.getvalue())
    gzip.decompress(out.getvalue())  # still a readable file


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda png: None, "no longer holds"),
        (lambda png: png[:-20] + bytes(20), "no longer matches"),
    ],
    ids=["removed", "altered"],
)
def test_missing_or_altered_snapshot_makes_the_bundle_tampered(
    tmp_path: Path,
    netserver: ns.NetServer,
    change,
    words: str,  # type: ignore[no-untyped-def]
) -> None:
    ledger = _verified(tmp_path, netserver)
    receipt = _receipt(ledger)
    led = load_ledger(ledger)
    _rewrite(Path(led.evidence_dir) / receipt.evidence, change)
    judgement = Judge(load_ledger(ledger)).judge(CitationRef("paper"))
    assert judgement.state is State.TAMPERED
    assert "snapshot" in " ".join(judgement.reasons) and words in " ".join(judgement.reasons)


def test_evidence_page_embeds_the_snapshot_and_still_loads_nothing(
    tmp_path: Path, netserver: ns.NetServer
) -> None:
    import base64
    import re

    from citeledger.evidence.page import CSP
    from citeledger.evidence.publish import render_page

    ledger = _verified(tmp_path, netserver)
    led = load_ledger(ledger)
    reader = EvidenceReader(led.evidence_dir)
    judgement = Judge(led, reader=reader).judge(CitationRef("paper"))
    page = render_page(judgement, reader, key="paper")
    assert page is not None and not page.failed
    html = page.html
    (src,) = re.findall(r'<img src="([^"]+)"', html)
    assert src.startswith("data:image/png;base64,")
    png = base64.b64decode(src.split(",", 1)[1])
    assert png == reader.load(_receipt(ledger).evidence).snapshots[_receipt(ledger).snapshot].png
    assert "<script" not in html.lower() and "<iframe" not in html.lower()
    assert not re.findall(r'href="(?!#)', html)  # no link out: only same-page anchors
    assert re.findall(r"(?:src|href|action)=\"https?:", html) == []
    from html import escape

    assert f'content="{escape(CSP)}"' in html and "img-src data:" in CSP and "script" not in CSP


def test_evidence_page_says_in_place_why_there_is_no_snapshot() -> None:
    from citeledger.evidence.page import render_evidence_page
    from citeledger.evidence.snapshot import NO_RENDERER
    from citeledger.model import Judgement, Receipt

    text = "Intro. The quoted words stand here. Outro."
    words = "The quoted words stand here."
    start = text.index(words)
    from citeledger.evidence.store import sha256_hex

    r = Receipt(
        outcome="found",
        identifier="url:https://example.org/a.html",
        retrieved_at="2026-01-01T00:00:00Z",
        tool="t",
        writer_quote_sha256=sha256_hex(words),
        url="https://example.org/a.html",
        text_sha256=sha256_hex(text),
        char_start=start,
        char_end=start + len(words),
        quote=words,
        quote_sha256=sha256_hex(words),
        match="exact",
        snapshot_note=NO_RENDERER,
    )
    html = render_evidence_page(Judgement("a", State.CHECKED, (), receipt=r), text=text)
    section = html.split('<section id="snapshot">', 1)[1].split("</section>", 1)[0]
    assert "No snapshot: no renderer available" in section
    assert "citeledger-evidence-no-snapshot" in section and 'role="alert"' in section
    assert "<img" not in html
