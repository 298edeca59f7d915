"""A PDF page as pixels (PDFium, already a dependency): its colours for tests, a PNG for docs/.

No image library is needed: PDFium renders to a raw RGB buffer, and the evidence snapshot's own
encoder writes the PNG. Used by the Word and typst callout tests and
``tools/format_screenshots.py``.
"""

from __future__ import annotations

from collections import Counter

import pypdfium2 as pdfium

from citeledger.evidence.snapshot import png_encode


def _rgb(pdf: bytes, page: int, scale: float) -> tuple[int, int, bytes]:
    doc = pdfium.PdfDocument(pdf)
    try:
        bitmap = doc[page].render(scale=scale, rev_byteorder=True, prefer_bgrx=False)
        width, height, stride = bitmap.width, bitmap.height, bitmap.stride
        raw = bytes(bitmap.buffer)
        channels = stride // width if stride // width in (3, 4) else 3
        rows = b"".join(
            b"".join(
                raw[y * stride + x * channels : y * stride + x * channels + 3] for x in range(width)
            )
            for y in range(height)
        )
        return width, height, rows
    finally:
        doc.close()


def colours(pdf: bytes, page: int = 0, scale: float = 0.5) -> Counter[str]:
    """How many pixels of each colour (``RRGGBB``) the page shows."""
    _, _, rows = _rgb(pdf, page, scale)
    return Counter(rows[i : i + 3].hex().upper() for i in range(0, len(rows), 3))


def png(pdf: bytes, page: int = 0, scale: float = 1.5, *, crop: bool = False) -> bytes:
    """The page as a PNG file; ``crop``: without the blank rows below the last line."""
    width, height, rows = _rgb(pdf, page, scale)
    if crop:
        line = width * 3
        used = [y for y in range(height) if rows[y * line : (y + 1) * line].strip(b"\xff")]
        height = min(height, (used[-1] if used else 0) + int(40 * scale))
        rows = rows[: height * line]
    return png_encode(rows, width, height)
