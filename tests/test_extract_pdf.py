"""PDF extraction: page map, ligatures, hyphenation, scans, damaged and encrypted files, the
fallback — on the 25 corpus PDFs and on PDFs built here."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from citeledger.errors import ExtractError
from citeledger.extract import pdf as xp
from citeledger.extract.dispatch import extract, extract_file
from conftest import CORPUS as SHARED_CORPUS
from conftest import require

CORPUS = SHARED_CORPUS / "pdf"
PDFS = sorted(CORPUS.glob("*.pdf"))


def make_pdf(pages: list[list[str] | None]) -> bytes:
    """A minimal valid PDF: one page per entry, text lines in Helvetica, or (None) a page
    holding only an image, as a scan without a text layer does."""
    objects: list[bytes] = []
    kids = []
    font_id = 3
    for i, lines in enumerate(pages):
        page_id, content_id = 4 + 2 * i, 5 + 2 * i
        kids.append(f"{page_id} 0 R")
        if lines is None:
            stream = b"q 400 0 0 600 72 100 cm BI /W 2 /H 2 /CS /G /BPC 8 ID \x10\x80\x80\x10 EI Q"
        else:
            ops = ["BT /F1 12 Tf 14 TL 72 720 Td"]
            for line in lines:
                escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
                ops.append(f"({escaped}) Tj T*")
            ops.append("ET")
            stream = "\n".join(ops).encode("latin-1")
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {content_id} 0 R "
            f"/Resources << /Font << /F1 {font_id} 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    head = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(pages)} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, body in enumerate(head + objects, start=1):
        offsets.append(out.tell())
        out.write(f"{n} 0 obj\n".encode() + body + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(offsets) + 1}\n0000000000 65535 f \n".encode())
    for off in offsets:
        out.write(f"{off:010d} 00000 n \n".encode())
    out.write(
        f"trailer\n<< /Size {len(offsets) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return out.getvalue()


THREE_PAGES = make_pdf(
    [
        ["Alpha page begins here with enough words to count as text."],
        ["Bravo page two holds the phrase we look for.", "A second line on page two."],
        ["Charlie page three ends the document politely."],
    ]
)


def test_corpus_is_present() -> None:
    assert len(PDFS) == 25, f"expected the 25 corpus PDFs in {CORPUS}"


@pytest.fixture(scope="module")
def bunescu():
    return extract_file(CORPUS / "bunescu-acl07.pdf")


def test_page_map_on_a_real_paper(bunescu) -> None:
    ex = bunescu
    assert ex.kind == "pdf" and ex.extractor == "citeledger-pdf/pypdfium2"
    assert "pdfium-" in ex.extractor_version
    assert len(ex.page_starts) == 8 and ex.page_starts[0] == 0
    assert list(ex.page_starts) == sorted(set(ex.page_starts))
    assert all(ex.text[s - 1] == "\f" for s in ex.page_starts[1:])
    # Phrases as printed: the title on page 1, a table caption and a heading on page 2.
    assert ex.page_of(ex.text.index("Learning to Extract Relations from the Web")) == 1
    assert ex.page_of(ex.text.index("Table 1: Corporate Acquisition Pairs.")) == 2
    assert ex.page_of(ex.text.index("Multiple Instance Learning\n")) == 2
    assert ex.page_of(len(ex.text) - 1) == 8


def test_ligatures_become_letters_and_line_end_hyphens_stay(bunescu) -> None:
    text = bunescu.text
    assert not any("\ufb00" <= ch <= "\ufb06" for ch in text)
    assert "can work efficiently with instances" in text  # printed with an ﬃ ligature
    assert "relation ex-\ntraction that requires only a handful" in text  # as on the page
    assert "\ufffe" not in text and "\x02" not in text and "\r" not in text


def test_page_map_on_a_built_pdf() -> None:
    ex = extract(THREE_PAGES, "application/pdf")
    assert ex.page_of(ex.text.index("the phrase we look for")) == 2
    assert ex.page_of(ex.text.index("Alpha")) == 1
    assert ex.page_of(ex.text.index("politely")) == 3
    bounds = [*ex.page_starts, len(ex.text)]
    page2 = ex.text[bounds[1] : bounds[2]]
    assert page2 == "Bravo page two holds the phrase we look for.\nA second line on page two.\n\f"


@pytest.mark.parametrize("path", PDFS, ids=[p.stem for p in PDFS])
def test_every_corpus_pdf_extracts_or_says_why(path: Path) -> None:
    try:
        ex = extract_file(path)
    except ExtractError as exc:  # allowed, but only with a reason a writer can read
        assert exc.message and exc.file == str(path)
        return
    assert ex.kind == "pdf" and len(ex.text.split()) > 500
    assert len(ex.page_starts) >= 4
    assert "\ufffe" not in ex.text


def test_german_and_government_documents() -> None:
    geo = extract_file(CORPUS / "GeoTopo-komprimiert.pdf")
    assert len(geo.page_starts) == 117
    assert geo.page_of(geo.text.index("Die Metrik d induziert die diskrete Topologie.")) == 10
    dmca = extract_file(CORPUS / "dmca.pdf")
    i = dmca.text.index("That protection must be no less favorable than that accorded to")
    assert dmca.page_of(i) == 2


def test_scanned_pdf_without_text_layer() -> None:
    with pytest.raises(ExtractError) as info:
        extract(make_pdf([None, None, None]), "application/pdf")
    assert info.value.message == "no text layer (scanned PDF?)"
    with pytest.raises(ExtractError, match="scanned"):  # a page-number stamp is not a text layer
        extract(make_pdf([["1"], ["2"], None]), "application/pdf")


def test_truncated_pdf_is_an_error_with_a_reason() -> None:
    body = (CORPUS / "bunescu-acl07.pdf").read_bytes()
    with pytest.raises(ExtractError, match="not a readable PDF"):
        extract(body[: len(body) // 2], "application/pdf")


def test_password_protected_pdf() -> None:
    pypdf = require("pypdf")
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(THREE_PAGES))
    writer.encrypt(user_password="secret", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    with pytest.raises(ExtractError, match="password-protected"):
        extract(out.getvalue(), "application/pdf")


def test_fallback_to_pypdf_when_pdfium_cannot_read(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(body: bytes) -> list[str]:
        raise RuntimeError("PDFium refused")

    monkeypatch.setattr(xp, "pdfium_pages", refuse)
    ex = extract(THREE_PAGES, "application/pdf")
    assert ex.extractor == "citeledger-pdf/pypdf" and "pypdf-" in ex.extractor_version
    assert ex.page_of(ex.text.index("the phrase we look for")) == 2


def test_clean_page_defines_the_text() -> None:
    raw = "ex\ufffetraction  \r\nnext\rline\x0c\x04 end   "
    assert xp.clean_page(raw) == "ex-\ntraction\nnext\nline\ufffd\ufffd end\n"
    assert xp.clean_page("a\x02b", pdfium=False) == "a\ufffdb\n"  # pypdf: no hyphen marks
