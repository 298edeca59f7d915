"""Snapshots: an image of the captured bytes as a reader would see them, the quote highlighted.

A snapshot is evidence of the retrieval, not a new source: it is made at verify time from the
stored body only (a PDF page rendered by PDFium; nothing is fetched again), stored in the same
WARC as a ``resource`` record bound to the response it renders, and named by digest in the
receipt, so a bundle whose snapshot is missing or altered is ``tampered`` (``judge``).

Images are bounded: each page is rendered so its longer side is at most ``MAX_SIDE_PX`` pixels,
at most ``MAX_PAGES`` pages (those the quote runs over) are stacked into one PNG, and a PNG over
``MAX_PNG_BYTES`` is not kept (the receipt then says why there is no snapshot).

The same drawing says what a reader can see: a PDF's text layer may hold words its page never
shows (render mode 3 over nothing, white or clipped text, text off the page, in an optional-
content group that is off, too small to fill a pixel, or under a filled box). ``pdf_view``
judges each word of a found span on the page as drawn, before the marking: a word none of
whose characters changes the pixels around it (``MIN_INK_CONTRAST``) is unseen, and verify
refuses the span (``verify.receipts``). An OCR'd scan keeps its text in render mode 3 too, but
over the scan's own ink: it is seen. A page PDFium cannot draw leaves nothing known of ink and
the span stands (it has no snapshot either).

Pure: bytes in, PNG bytes out; never touches the network or writes a file. No imaging library
is needed: PDFium renders RGB, the highlight is a byte translation of the blue channel (yellow
marker), and the PNG is written with zlib.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

MAX_SIDE_PX = 1400
MAX_PAGES = 2
MAX_PNG_BYTES = 3_000_000
PDF_RENDERER = "pdfium"
NO_RENDERER = "no snapshot: no renderer available"

# The blue channel of a highlighted pixel is scaled down: white paper turns marker yellow, black
# text stays black.
_MARK = bytes(int(v * 0.35) for v in range(256))


@dataclass(frozen=True)
class Snapshot:
    """One rendered image of the span ``char_start``–``char_end`` of the extracted text."""

    png: bytes
    char_start: int
    char_end: int
    pages: tuple[int, ...]  # 1-based pages shown, top to bottom; () for a web page
    renderer: str
    width: int
    height: int


def png_encode(rgb: bytes, width: int, height: int) -> bytes:
    """A PNG of packed RGB rows (filter 0 on every row)."""
    stride = width * 3
    raw = b"".join(b"\x00" + rgb[y * stride : (y + 1) * stride] for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 6))
        + chunk(b"IEND", b"")
    )


def png_size(png: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG's header, or None when the bytes are not a PNG."""
    if len(png) < 24 or not png.startswith(b"\x89PNG\r\n\x1a\n") or png[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", png[16:24])
    return int(width), int(height)


def highlight(
    rgb: bytearray, width: int, height: int, rects: Sequence[tuple[int, int, int, int]]
) -> None:
    """Mark each (left, top, right, bottom) pixel rectangle, overlaps marked once."""
    rows: dict[int, list[tuple[int, int]]] = {}
    for left, top, right, bottom in rects:
        left, right = max(0, left), min(width, right)
        for y in range(max(0, top), min(height, bottom)):
            rows.setdefault(y, []).append((left, right))
    stride = width * 3
    for y, spans in rows.items():
        spans.sort()
        merged: list[list[int]] = []
        for a, b in spans:
            if merged and a <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        for a, b in merged:
            if b <= a:
                continue
            lo, hi = y * stride + a * 3, y * stride + b * 3
            rgb[lo + 2 : hi : 3] = bytes(rgb[lo + 2 : hi : 3]).translate(_MARK)


def _raw_span(raw: str, clean: str, start: int, end: int) -> tuple[int, int]:
    """Where the cleaned page text's span ``start``–``end`` stands in PDFium's own page text
    (``extract.pdf.clean_page`` drops and rewrites a few characters; the rest align)."""
    from difflib import SequenceMatcher

    ops = SequenceMatcher(None, clean, raw, autojunk=False).get_opcodes()

    def to_raw(i: int) -> int:
        for _tag, c0, c1, r0, r1 in ops:
            if c0 <= i < c1:
                return r0 + min(i - c0, max(0, r1 - r0 - 1)) if _tag != "equal" else r0 + i - c0
        return len(raw)

    return to_raw(start), to_raw(max(start, end - 1)) + 1


def pdf_snapshot(
    body: bytes, page_starts: Sequence[int], text: str, char_start: int, char_end: int
) -> Snapshot | None:
    """The page(s) holding ``text[char_start:char_end]``, rendered, the quote's characters
    highlighted; None when PDFium cannot open the file or the image is over the cap."""
    return pdf_view(body, page_starts, text, char_start, char_end).snapshot


@dataclass(frozen=True)
class PdfView:
    """A PDF span as drawn: its snapshot (None: not rendered, or over the cap) and the words of
    it that leave no ink on their page, with the page (1-based): a reader cannot see them."""

    snapshot: Snapshot | None
    unseen: tuple[tuple[int, str], ...] = ()
    rendered: bool = False  # every page of the span was drawn (else nothing is known of ink)


def pdf_view(
    body: bytes, page_starts: Sequence[int], text: str, char_start: int, char_end: int
) -> PdfView:
    """Draw the page(s) holding ``text[char_start:char_end]`` once: the snapshot, and which of
    the span's words a reader cannot see (:func:`_unseen_words`)."""
    import bisect

    import pypdfium2 as pdfium

    from citeledger.extract.pdf import _LOCK

    if not page_starts:
        return PdfView(None)
    first = bisect.bisect_right(page_starts, char_start) - 1
    last_page = bisect.bisect_right(page_starts, max(char_start, char_end - 1)) - 1
    last = min(last_page, first + MAX_PAGES - 1)
    images: list[tuple[bytearray, int, int]] = []
    unseen: list[tuple[int, str]] = []
    with _LOCK:
        try:
            doc = pdfium.PdfDocument(body)
        except pdfium.PdfiumError:
            return PdfView(None)
        try:
            for index in range(first, last_page + 1):
                page_lo = page_starts[index]
                page_hi = page_starts[index + 1] - 1 if index + 1 < len(page_starts) else len(text)
                lo, hi = max(char_start, page_lo) - page_lo, min(char_end, page_hi) - page_lo
                rgb, w, h, words = _render_page(doc[index], text[page_lo:page_hi], lo, hi)
                unseen.extend((index + 1, word) for word in words)
                if index <= last:
                    images.append((rgb, w, h))
        finally:
            doc.close()
    width = max(w for _, w, _ in images)
    rows: list[bytes] = []
    for rgb, w, h in images:
        pad = b"\xff" * ((width - w) * 3)
        rows.extend(bytes(rgb[y * w * 3 : (y + 1) * w * 3]) + pad for y in range(h))
        rows.append(b"\x80" * (width * 3))  # a grey rule between pages
    rows.pop()
    png = png_encode(b"".join(rows), width, len(rows))
    pages = tuple(range(first + 1, last + 2))
    shot = Snapshot(png, char_start, char_end, pages, PDF_RENDERER, width, len(rows))
    return PdfView(shot if len(png) <= MAX_PNG_BYTES else None, tuple(unseen), True)


# A glyph a reader can see changes the pixels around it: within its box (grown by a pixel or
# two) the darkest and lightest pixels differ by at least this much in one of red, green and
# blue (0-255; green text on white differs in red and blue only). A page
# that draws nothing there (white text, an optional-content group that is off, text clipped
# away or too small to fill a pixel) or draws over it (a filled box) leaves one flat colour.
# Measured on the 25 corpus PDFs: every word of every page has ink by this rule.
MIN_INK_CONTRAST = 24


def _unseen_words(
    page: object, textpage: object, r0: int, r1: int, rgb: bytes, width: int, height: int
) -> list[str]:
    """The words of PDFium's chars ``r0``–``r1`` none of whose characters leaves ink on the
    rendered page (``rgb``: ``width`` × ``height`` packed RGB). Characters PDFium made up
    (spaces, line ends) are not judged; a real character whose box is empty, off the page or
    flat in colour has no ink. Page coordinates become pixels by PDFium's own mapping, the
    one the rendering used (rotation and crop box included)."""
    import ctypes

    import pypdfium2.raw as pdfium_c

    raw_page, raw_text = page.raw, textpage.raw  # type: ignore[attr-defined]
    dx, dy = ctypes.c_int(), ctypes.c_int()

    def device(x: float, y: float) -> tuple[int, int]:
        pdfium_c.FPDF_PageToDevice(raw_page, 0, 0, width, height, 0, x, y, dx, dy)
        return dx.value, dy.value

    words: list[str] = []
    word: list[str] = []
    inked = False

    def close() -> None:
        nonlocal inked
        if word and not inked:
            words.append("".join(word))
        word.clear()
        inked = False

    for i in range(r0, r1):
        if pdfium_c.FPDFText_IsGenerated(raw_text, i) == 1:
            close()
            continue
        ch = chr(pdfium_c.FPDFText_GetUnicode(raw_text, i) or 0xFFFD)
        if ch.isspace():
            close()
            continue
        word.append(ch)
        if inked:
            continue
        left, bottom, right, top = textpage.get_charbox(i)  # type: ignore[attr-defined]
        if right <= left or top <= bottom:
            continue
        corners = [device(x, y) for x in (left, right) for y in (bottom, top)]
        x0 = max(0, min(c[0] for c in corners) - 2)
        x1 = min(width, max(c[0] for c in corners) + 2)
        y0 = max(0, min(c[1] for c in corners) - 2)
        y1 = min(height, max(c[1] for c in corners) + 2)
        for channel in range(3):
            lo, hi = 255, 0
            for y in range(y0, y1):
                row = rgb[(y * width + x0) * 3 + channel : (y * width + x1) * 3 : 3]
                if row:
                    lo, hi = min(lo, min(row)), max(hi, max(row))
            if hi - lo >= MIN_INK_CONTRAST:
                inked = True
                break
    close()
    return [w for w in words if any(c.isalnum() for c in w)]


def _render_page(
    page: object, clean_text: str, lo: int, hi: int
) -> tuple[bytearray, int, int, list[str]]:
    """One page as RGB bytes with the chars of its span ``lo``–``hi`` marked, and the span's
    words that leave no ink on it (judged on the page as drawn, before the marking)."""
    left0, bottom0, right0, top0 = page.get_cropbox()  # type: ignore[attr-defined]
    scale = min(2.0, MAX_SIDE_PX / max(right0 - left0, top0 - bottom0, 1.0))
    bitmap = page.render(scale=scale, rev_byteorder=True)  # type: ignore[attr-defined]
    width, height, stride = bitmap.width, bitmap.height, bitmap.stride
    data = bytes(bitmap.buffer)
    rgb = bytearray(b"".join(data[y * stride : y * stride + width * 3] for y in range(height)))
    textpage = page.get_textpage()  # type: ignore[attr-defined]
    try:
        raw = textpage.get_text_range()
        r0, r1 = _raw_span(raw, clean_text, lo, hi)
        r1 = min(r1, textpage.count_chars())
        boxes = [textpage.get_charbox(i) for i in range(r0, r1)]
        unseen = _unseen_words(page, textpage, r0, r1, bytes(rgb), width, height)
    finally:
        textpage.close()
    pad = max(1, int(scale))
    rects = [
        (
            int((left - left0) * scale) - pad,
            int((top0 - top) * scale) - pad,
            int((right - left0) * scale) + pad,
            int((top0 - bottom) * scale) + pad,
        )
        for left, bottom, right, top in boxes
        if right > left and top > bottom
    ]
    highlight(rgb, width, height, rects)
    return rgb, width, height, unseen
