"""A PDF's text layer can hold words its page never shows: a quote found only there is refused.

r2 F6: text in render mode 3 over nothing, white text, text outside the page, in an
optional-content group that is off, clipped away, 0.2 pt high or under a filled box was found
(exact) and checked, the snapshot highlighting nothing. Verify now looks at the page as drawn:
a found span with a word that leaves no ink is refused. Render mode 3 is also how an OCR'd scan
keeps its text layer: over the scan's own ink it is seen, and found.
"""

from __future__ import annotations

import zlib

import pytest

from citeledger.evidence.snapshot import pdf_view
from citeledger.verify.receipts import analyse
from hostile_inputs import write_pdf

Q = "The drug is not effective in adults."
V = "The drug is effective in adults."
PROSE = (
    "Patients were followed for five years after the start of treatment and the "
    "outcomes were recorded by clinicians blind to the allocation of each arm."
)
FILLER = PROSE.split()


def _pdf(content: bytes, ocg: bool = False, image: tuple[bytes, int, int] | None = None) -> bytes:
    """A one-page Letter PDF (Helvetica as /F1; an optional-content group /OC1 that is off; an
    optional full-page RGB image /Im1)."""
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R"
        + (b" /OCProperties << /OCGs [6 0 R] /D << /OFF [6 0 R] >> >>" if ocg else b"")
        + b" >>",
        b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R"
        b" >> /Properties << /OC1 6 0 R >> /XObject << /Im1 7 0 R >> >> /Contents 5 0 R >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /OCG /Name (Hidden) >>",
    ]
    if image is not None:
        rgb, w, h = image
        data = zlib.compress(rgb)
        objs.append(
            b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB "
            b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n"
            % (w, h, len(data))
            + data
            + b"\nendstream"
        )
    else:
        objs.append(b"<< >>")
    return write_pdf(objs, b"1.5")


def _line(y: int, text: str, size: float = 12, mode: int = 0, rgb: str = "") -> bytes:
    colour = f"{rgb} rg " if rgb else ""
    return f"BT {colour}/F1 {size} Tf {mode} Tr 72 {y} Td ({text}) Tj ET\n".encode()


def _filler() -> bytes:
    return b"".join(_line(600 - 14 * k, " ".join(FILLER[8 * k : 8 * k + 8])) for k in range(3))


HIDDEN = {
    "render-mode-3": _line(700, V) + _line(680, Q, mode=3),
    "white": _line(700, V) + _line(680, Q, rgb="1 1 1"),
    "off-page": _line(700, V) + _line(2000, Q),
    "tiny": _line(700, V) + _line(680, Q, size=0.2),
    "under-a-box": _line(700, V) + _line(680, Q) + b"0 0 0 rg 60 670 400 25 re f\n",
    "clipped": _line(700, V) + b"q 0 0 1 1 re W n\n" + _line(680, Q) + b"Q\n",
    "ocg-off": _line(700, V) + b"/OC /OC1 BDC\n" + _line(680, Q) + b"EMC\n",
}


def _analysed(body: bytes) -> object:
    work = analyse(body, "application/pdf", "file:s.pdf", 200, [(Q, None)])
    return work.located[(Q, None)]


@pytest.mark.parametrize("case", sorted(HIDDEN))
def test_text_the_page_does_not_show_is_refused(case: str) -> None:
    body = _pdf(HIDDEN[case] + _filler(), ocg=case == "ocg-off")
    result = _analysed(body)
    assert not result.found, case  # type: ignore[attr-defined]
    assert "not visible" in (result.reason or "")  # type: ignore[attr-defined]
    assert "shows no ink" in result.differences[0]  # type: ignore[attr-defined]


def test_a_hidden_word_inside_a_visible_sentence_is_refused() -> None:
    """ "The drug is [white: not] effective": the span is mostly ink, one word is not."""
    content = (
        b"BT /F1 12 Tf 72 680 Td (The drug is ) Tj 1 1 1 rg (not ) Tj 0 0 0 rg "
        b"(effective in adults.) Tj ET\n"
    )
    result = _analysed(_pdf(content + _filler()))
    assert not result.found  # type: ignore[attr-defined]
    assert result.differences[0].endswith(": not")  # type: ignore[attr-defined]


def test_visible_text_is_found_and_snapshotted() -> None:
    body = _pdf(_line(680, Q) + _filler())
    work = analyse(body, "application/pdf", "file:s.pdf", 200, [(Q, None)])
    assert work.located[(Q, None)].found
    assert len(work.snapshots) == 1 and work.snapshot_note is None


def test_an_ocr_text_layer_over_a_scan_is_found() -> None:
    """A scan: the page is an image of printed text, its words in render mode 3 above it."""
    import pypdfium2 as pdfium

    printed = _pdf(_line(680, Q) + _filler())
    doc = pdfium.PdfDocument(printed)
    bitmap = doc[0].render(scale=1, rev_byteorder=True)
    w, h, stride = bitmap.width, bitmap.height, bitmap.stride
    data = bytes(bitmap.buffer)
    rgb = b"".join(data[y * stride : y * stride + w * 3] for y in range(h))
    doc.close()
    layer = _line(680, Q, mode=3) + b"".join(
        _line(600 - 14 * k, " ".join(FILLER[8 * k : 8 * k + 8]), mode=3) for k in range(3)
    )
    scan = _pdf(b"q 612 0 0 792 0 0 cm /Im1 Do Q\n" + layer, image=(rgb, w, h))
    result = _analysed(scan)
    assert result.found, result  # type: ignore[attr-defined]


def test_a_coloured_glyph_on_white_has_ink() -> None:
    """Pure green on white differs from white in red and blue only."""
    body = _pdf(_line(680, Q, rgb="0 1 0") + _filler())
    assert _analysed(body).found  # type: ignore[attr-defined]


def test_pdf_view_names_the_unseen_words_and_their_page() -> None:
    from citeledger.extract.dispatch import extract

    body = _pdf(HIDDEN["white"] + _filler())
    ex = extract(body, "application/pdf")
    start = ex.text.index(Q)
    view = pdf_view(body, ex.page_starts, ex.text, start, start + len(Q))
    assert view.rendered
    assert [w for _, w in view.unseen] == Q.split()
    assert {p for p, _ in view.unseen} == {1}
