"""Hostile inputs built in the test, never copied from anywhere: a FlateDecode bomb PDF and
pages of deeply nested HTML (issue 12, findings 6 and 7). Used by tests and bench_bounded."""

from __future__ import annotations

import struct
import zlib

_BLOCK = 1 << 24  # 16 MiB of zeros, deflated once and repeated


def zlib_bomb(inflated: int) -> bytes:
    """A valid zlib stream of ``inflated`` zero bytes (a multiple of 16 MiB) in ~1/1000 the
    size, built without compressing it all: after a full flush the deflater's state is reset,
    so every block of zeros deflates to the same bytes."""
    blocks = max(1, inflated // _BLOCK)
    zeros = bytes(_BLOCK)
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = c.compress(zeros) + c.flush(zlib.Z_FULL_FLUSH)
    end = c.flush(zlib.Z_FINISH)
    adler = 1
    for _ in range(blocks):
        adler = zlib.adler32(zeros, adler)
    return b"\x78\xda" + block * blocks + end + struct.pack(">I", adler)


def pdf(streams: list[tuple[bytes, bytes]], text: str = "A page of words about nothing.") -> bytes:
    """A one-page PDF written by hand: its content shows ``text``; ``streams`` are extra
    objects (dictionary entries, raw stream bytes) the page draws as XObjects."""
    draws = "".join(f" q /X{i} Do Q" for i in range(len(streams)))
    content = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET{draws}".encode()
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"",  # the page, below: it names the extra streams
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
    ]
    names = []
    for i, (entries, data) in enumerate(streams):
        num = len(objs) + 1
        names.append(b"/X%d %d 0 R" % (i, num))
        objs.append(b"<< %s /Length %d >>\nstream\n" % (entries, len(data)) + data + b"\nendstream")
    objs[2] = (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R "
        b"/Resources << /Font << /F1 4 0 R >> /XObject << " + b" ".join(names) + b" >> >> >>"
    )
    return write_pdf(objs)


def write_pdf(objs: list[bytes], version: bytes = b"1.4") -> bytes:
    """The PDF file of objects ``objs`` (object 1 the catalog), with its xref table."""
    out = bytearray(b"%PDF-" + version + b"\n")
    offsets = []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


def flate_bomb_pdf(inflated: int) -> bytes:
    """A PDF whose one form XObject is ``inflated`` bytes of zeros, FlateDecode'd."""
    form = b"/Type /XObject /Subtype /Form /BBox [0 0 1 1] /Filter /FlateDecode"
    return pdf([(form, zlib_bomb(inflated))])


def nested_divs(n: int, words: str = "deep words here") -> bytes:
    return (
        b"<html><body>"
        + b"<div>" * n
        + f"<p>{words}</p>".encode()
        + b"</div>" * n
        + b"</body></html>"
    )
