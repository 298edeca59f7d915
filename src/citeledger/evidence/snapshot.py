"""Snapshots: an image of the captured bytes as a reader would see them, the quote highlighted.

A snapshot is evidence of the retrieval, not a new source: it is made at verify time from the
stored body only (a PDF page rendered by PDFium; nothing is fetched again), stored in the same
WARC as a ``resource`` record bound to the response it renders, and named by digest in the
receipt, so a bundle whose snapshot is missing or altered is ``tampered`` (``judge``).

Images are bounded: each page is rendered so its longer side is at most ``MAX_SIDE_PX`` pixels,
at most ``MAX_PAGES`` pages (those the quote runs over) are stacked into one PNG, and a PNG over
``MAX_PNG_BYTES`` is not kept (the receipt then says why there is no snapshot).

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
    import bisect

    import pypdfium2 as pdfium

    from citeledger.extract.pdf import _LOCK

    if not page_starts:
        return None
    first = bisect.bisect_right(page_starts, char_start) - 1
    last = bisect.bisect_right(page_starts, max(char_start, char_end - 1)) - 1
    last = min(last, first + MAX_PAGES - 1)
    images: list[tuple[bytearray, int, int]] = []
    with _LOCK:
        try:
            doc = pdfium.PdfDocument(body)
        except pdfium.PdfiumError:
            return None
        try:
            for index in range(first, last + 1):
                page_lo = page_starts[index]
                page_hi = page_starts[index + 1] - 1 if index + 1 < len(page_starts) else len(text)
                lo, hi = max(char_start, page_lo) - page_lo, min(char_end, page_hi) - page_lo
                images.append(_render_page(doc[index], text[page_lo:page_hi], lo, hi))
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
    if len(png) > MAX_PNG_BYTES:
        return None
    pages = tuple(range(first + 1, last + 2))
    return Snapshot(png, char_start, char_end, pages, PDF_RENDERER, width, len(rows))


def _render_page(page: object, clean_text: str, lo: int, hi: int) -> tuple[bytearray, int, int]:
    """One page as RGB bytes with the chars of its span ``lo``–``hi`` marked."""
    textpage = page.get_textpage()  # type: ignore[attr-defined]
    try:
        raw = textpage.get_text_range()
        r0, r1 = _raw_span(raw, clean_text, lo, hi)
        boxes = [textpage.get_charbox(i) for i in range(r0, min(r1, textpage.count_chars()))]
    finally:
        textpage.close()
    left0, bottom0, right0, top0 = page.get_cropbox()  # type: ignore[attr-defined]
    scale = min(2.0, MAX_SIDE_PX / max(right0 - left0, top0 - bottom0, 1.0))
    bitmap = page.render(scale=scale, rev_byteorder=True)  # type: ignore[attr-defined]
    width, height, stride = bitmap.width, bitmap.height, bitmap.stride
    data = bytes(bitmap.buffer)
    rgb = bytearray(b"".join(data[y * stride : y * stride + width * 3] for y in range(height)))
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
    return rgb, width, height
