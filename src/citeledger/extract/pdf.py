"""PDF bytes → the text of each page, joined, with where each page starts.

Library, chosen by measurement on the 25 corpus PDFs (``bench/bench_extract_pdf.py``; 40 probe
sentences read off the rendered pages, found contiguous after the locator's normalisation):

==================  =======  =====  ======  =============================================
library             seconds  ratio  probes  notes
==================  =======  =====  ======  =============================================
pypdfium2 (PDFium)     0.77    1.0   31/40  ligatures → letters; line-end hyphen marked
pypdf                  14.2   18.4   28/40  keeps U+FB01…; words split or run together
pdfminer.six           30.1   39.1   27/40  keeps U+FB01…, "(cid:2)"; tears math lines
==================  =======  =====  ======  =============================================

(one run on 2 cores; another gave pypdf 11.8 s, pdfminer.six 29.0 s, PDFium 0.75 s.)

* **pypdfium2** (PDFium, Chrome's PDF engine; Apache-2.0 / BSD-3) is the extractor: fastest
  by 15–18×, most probes found, and in a spot check the only one of the three that opened a
  PDF whose ``startxref`` was damaged. It maps ligature glyphs to their letters (ﬁ → "fi")
  and marks a word hyphenated at a line end with U+FFFE in place of hyphen and line break,
  which we turn back into the ``-`` + newline printed on the page. Its faults, seen on the
  corpus: an accent built from a separate glyph can vanish ("Schölkopf" → "Scholkopf"), a
  Greek letter with no Unicode mapping can vanish (smith07's ε), and a superscript footnote
  mark moves to the line end.
* **pypdf** (BSD, pure Python) is the fallback, used only when PDFium cannot open a file or
  is not installed: second on probes and 2–2.5× faster than pdfminer.six. The extractor name
  in the result (and so in the receipt) says which one produced the text.
* pdfminer.six (MIT) was measured and not chosen: slowest, and its layout analysis splits
  sentences around inline mathematics and reorders code listings.
* PyMuPDF is excluded unmeasured: it is AGPL-3.0 (or commercial), which would impose the AGPL
  on every user and redistributor of this MIT-licensed tool.
* All three fail the same probes where a sentence runs from one column to the next past a
  figure, table or footnote: they emit the float's text in between, as the content stream
  orders it. The locator's fuzzy match is what can bridge that.

The text is defined, so that offsets in a receipt mean one thing: each page's text with CRLF
and CR → LF, spaces before a line end dropped, PDFium's end-of-line hyphen mark → ``-\\n``, C0
control characters (glyphs the file maps to no character) → U+FFFD, and each page ending in
``\\n``; pages are joined by ``\\f``, and ``page_starts[i]`` is where page i+1's text begins.
Ligatures are what the library gives (PDFium: letters; pypdf keeps U+FB01 etc.), and words
hyphenated at a line end stay hyphenated: folding both is the locator's normalisation.

The text is the file's text layer, whether or not the page shows it; verify refuses a quote
found in words the drawn page leaves no ink for (``evidence.snapshot.pdf_view``).

Before either library sees the bytes, :func:`check_inflated_size` inflates every Flate stream
that is not an image, discarding the output, and refuses a file whose streams would grow past
``max_inflated`` bytes: PDFium holds a decompressed stream whole, so a 1 MB file holding a 1 GB
stream took 2.15 GB. Images are not counted (text extraction never decodes them).

Never does network or file I/O; PDFium is not thread-safe, so calls are serialised by a lock.
"""

from __future__ import annotations

import io
import logging
import re
import threading
import zlib
from collections.abc import Sequence

from citeledger import model
from citeledger.errors import ExtractError
from citeledger.extract.text import _version

PDF_RULES_VERSION = "1"
PDFIUM_EXTRACTOR = "citeledger-pdf/pypdfium2"
PYPDF_EXTRACTOR = "citeledger-pdf/pypdf"

SCANNED_REASON = "no text layer (scanned PDF?)"
# A page with fewer letters and digits than this carries no text of the work (a scan's page
# number or a stamp): a real page of prose has hundreds.
MIN_PAGE_CHARS = 20

MB = 1_000_000
MAX_INFLATED_BYTES = 250 * MB
"""Default cap on the inflated size of a PDF's streams, images left out: 2.5 times the HTTP
decompression cap, as a PDF's content streams legitimately run to 50-100 kB a page."""

_LOCK = threading.Lock()
_STREAM = re.compile(rb"(?<!end)stream\r?\n")
_FLATE = re.compile(rb"/(?:FlateDecode|Fl)\b")
_IMAGE = re.compile(rb"/Subtype\s*/Image\b")
_PIECE = 1 << 20
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_EOL_SPACE = re.compile(r"[ \t]+\n")
_ALNUM = re.compile(r"\w", re.UNICODE)


def clean_page(raw: str, pdfium: bool = True) -> str:
    text = raw.replace("\r\n", "\n").replace("\r", "\n")
    if pdfium:
        text = text.replace("\ufffe", "-\n")  # PDFium's mark for a hyphen at a line end
    text = _CONTROL.sub("\ufffd", text)
    text = _EOL_SPACE.sub("\n", text).rstrip()
    return text + "\n"


def join_pages(pages: Sequence[str]) -> tuple[str, tuple[int, ...]]:
    """The pages (each cleaned: no form feed inside) joined by "\f", and where each starts."""
    text = "\f".join(pages)
    return text, model.page_starts_of("pdf", text)


def pdfium_pages(body: bytes) -> list[str]:
    import pypdfium2 as pdfium

    with _LOCK:
        try:
            doc = pdfium.PdfDocument(body)
        except pdfium.PdfiumError as exc:
            if "password" in str(exc).lower():
                raise ExtractError(
                    "PDF is password-protected",
                    fix="retrieve an unencrypted copy, or cite a file you can open",
                ) from exc
            raise
        try:
            pages = []
            for i in range(len(doc)):
                page = doc[i]
                textpage = page.get_textpage()
                try:
                    pages.append(textpage.get_text_range())
                finally:
                    textpage.close()
                    page.close()
            return pages
        finally:
            doc.close()


def pypdf_pages(body: bytes) -> list[str]:
    import pypdf

    # pypdf reports font quirks through logging; with no handler configured, Python would print
    # them to stderr, which the pandoc filter must keep for its own warnings.
    log = logging.getLogger("pypdf")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        reader = pypdf.PdfReader(io.BytesIO(body), strict=False)
        if reader.is_encrypted and reader.decrypt("") == 0:
            raise ExtractError(
                "PDF is password-protected",
                fix="retrieve an unencrypted copy, or cite a file you can open",
            )
        return [page.extract_text() or "" for page in reader.pages]
    finally:
        log.setLevel(level)


def _pdfium_version() -> str:
    try:
        import pypdfium2 as pdfium

        return f"pypdfium2-{pdfium.version.PYPDFIUM_INFO}+pdfium-{pdfium.version.PDFIUM_INFO}"
    except Exception:  # pragma: no cover - the version object is informative only
        return f"pypdfium2-{_version('pypdfium2')}"


def _raw_pages(body: bytes) -> tuple[list[str], str, str]:
    """(pages, extractor, version): PDFium first, pypdf when PDFium cannot read the file."""
    first_error: Exception | None = None
    try:
        pages = pdfium_pages(body)
        return pages, PDFIUM_EXTRACTOR, f"{PDF_RULES_VERSION}+{_pdfium_version()}"
    except ExtractError:
        raise
    except Exception as exc:  # ImportError, PdfiumError: try the pure-Python reader
        first_error = exc
    try:
        pages = pypdf_pages(body)
    except ExtractError:
        raise
    except Exception as exc:
        raise ExtractError(
            f"not a readable PDF (PDFium: {first_error}; pypdf: {type(exc).__name__}: {exc})",
            fix="check that the file is a complete PDF (a truncated download fails like this)",
        ) from exc
    return pages, PYPDF_EXTRACTOR, f"{PDF_RULES_VERSION}+pypdf-{_version('pypdf')}"


def _inflated(data: memoryview, layers: int, budget: int) -> int:
    """Bytes ``data`` inflates to through ``layers`` Flate filters, counting stops past
    ``budget``; a layer that is not valid zlib ends the count where it fails."""
    decoders = [zlib.decompressobj() for _ in range(layers)]
    total = 0

    def through(level: int, chunk: bytes) -> None:
        nonlocal total
        d = decoders[level]
        while chunk and not d.eof and total <= budget:
            out = d.decompress(chunk, _PIECE)
            chunk = d.unconsumed_tail
            if level + 1 < len(decoders):
                through(level + 1, out)
            else:
                total += len(out)

    try:
        for i in range(0, len(data), _PIECE):
            if decoders[0].eof or total > budget:
                break
            through(0, bytes(data[i : i + _PIECE]))
    except zlib.error:
        pass
    return total


def check_inflated_size(body: bytes, max_inflated: int = MAX_INFLATED_BYTES) -> None:
    """Refuse a PDF whose non-image Flate streams inflate past ``max_inflated`` bytes."""
    view = memoryview(body)
    total = 0
    for m in _STREAM.finditer(body):
        head_from = body.rfind(b"obj", max(0, m.start() - 8192), m.start())
        head = body[max(head_from, m.start() - 8192) : m.start()]
        layers = len(_FLATE.findall(head))
        if not layers or _IMAGE.search(head):
            continue
        end = body.find(b"endstream", m.end())
        total += _inflated(
            view[m.end() : end if end >= 0 else len(body)], min(layers, 4), max_inflated - total
        )
        if total > max_inflated:
            raise ExtractError(
                f"PDF streams too large when decompressed (> {max_inflated // MB} MB)",
                fix="raise max_inflated_pdf_bytes in the retrieval settings if the file is genuine",
            )


def extract_pdf(body: bytes, max_inflated: int = MAX_INFLATED_BYTES) -> model.Extracted:
    check_inflated_size(body, max_inflated)
    raw, extractor, version = _raw_pages(body)
    if not raw:
        raise ExtractError("PDF has no pages")
    pages = [clean_page(p, pdfium=extractor == PDFIUM_EXTRACTOR) for p in raw]
    counts = [len(_ALNUM.findall(p)) for p in pages]
    with_text = sum(1 for c in counts if c >= MIN_PAGE_CHARS)
    if sum(counts) < MIN_PAGE_CHARS or with_text * 10 < len(pages):  # text on < 10% of pages
        raise ExtractError(
            SCANNED_REASON,
            fix="find a PDF with a text layer (the publisher's, or an OCR'd copy)",
        )
    text, starts = join_pages(pages)
    return model.Extracted(
        text=text, kind="pdf", extractor=extractor, extractor_version=version, page_starts=starts
    )
