"""Reading a response body within bounds: wire-size cap, streamed decompression with its own cap.

Bytes arrive in chunks and are counted before they are kept; content-encodings (gzip, deflate,
br) are undone here, incrementally and with a bounded output per step, so a gzip bomb stops at the
cap instead of exhausting memory. It must never hold more than the caps allow, never trust a
declared length, and never guess a charset (the extractor does that): content type is only
corrected when the bytes unambiguously say otherwise (a PDF served as HTML, a login page served as
PDF).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Any, Protocol

from citeledger.errors import RetrievalError
from citeledger.sniff import media_type as mime_of
from citeledger.sniff import sniff

try:  # httpx[brotli] installs it; without it we simply do not offer "br".
    import brotli
except ImportError:  # pragma: no cover
    brotli = None

PIECE = 256 * 1024  # most bytes one decompression step may produce


def human_size(n: int) -> str:
    if n >= 1_000_000:
        return f"{n // 1_000_000} MB" if n % 1_000_000 == 0 else f"{n / 1_000_000:.1f} MB"
    if n >= 1000:
        return f"{n // 1000} kB" if n % 1000 == 0 else f"{n / 1000:.1f} kB"
    return f"{n} bytes"


def accept_encoding() -> str:
    return "gzip, deflate, br" if brotli is not None else "gzip, deflate"


_DECODE_ERRORS: tuple[type[Exception], ...] = (zlib.error,) + (
    (brotli.error,) if brotli is not None else ()
)


class _Decoder(Protocol):
    name: str

    def feed(self, data: bytes) -> Iterator[bytes]: ...

    def done(self) -> bool: ...


class _ZlibDecoder:
    """gzip (several members allowed, as browsers do) or deflate (zlib-wrapped or raw)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._d: Any = None  # zlib's decompress object (its type is private)

    def _new(self, first: bytes) -> Any:
        if self.name == "gzip":
            return zlib.decompressobj(16 + zlib.MAX_WBITS)
        # RFC 9110 says zlib format; some servers send raw deflate. Tell them apart by the header.
        if len(first) >= 2 and first[0] & 0x0F == 8 and (first[0] << 8 | first[1]) % 31 == 0:
            return zlib.decompressobj(zlib.MAX_WBITS)
        return zlib.decompressobj(-zlib.MAX_WBITS)

    def feed(self, data: bytes) -> Iterator[bytes]:
        pending = data
        while True:
            if self._d is None:
                if not pending:
                    return
                self._d = self._new(pending)
            elif self._d.eof:
                if self.name == "gzip" and pending.startswith(b"\x1f\x8b"):
                    self._d = self._new(pending)  # the next gzip member
                else:
                    return  # trailing bytes after the stream: ignored, as browsers do
            piece = self._d.decompress(pending, PIECE)
            if piece:
                yield piece
            if self._d.eof:
                pending = self._d.unused_data
                continue
            pending = self._d.unconsumed_tail
            if not pending and len(piece) < PIECE:
                return  # all input consumed and all its output produced

    def done(self) -> bool:
        return self._d is None or bool(self._d.eof)


class _BrotliDecoder:
    name = "br"

    def __init__(self) -> None:
        assert brotli is not None
        self._d = brotli.Decompressor()
        self._seen = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        if not data:
            return
        self._seen = True
        piece = self._d.process(data, output_buffer_limit=PIECE)
        if piece:
            yield piece
        while not self._d.can_accept_more_data():
            piece = self._d.process(b"", output_buffer_limit=PIECE)
            if piece:
                yield piece

    def done(self) -> bool:
        return not self._seen or bool(self._d.is_finished())


def _decoder(name: str) -> _Decoder | None:
    if name in ("gzip", "x-gzip"):
        return _ZlibDecoder("gzip")
    if name == "deflate":
        return _ZlibDecoder("deflate")
    if name == "br" and brotli is not None:
        return _BrotliDecoder()
    if name in ("identity", ""):
        return None
    raise RetrievalError(
        f"cannot decode the body: unsupported content encoding {name!r}", kind="decode"
    )


class BodyReader:
    """Feed raw chunks; get the decoded body, or a RetrievalError the moment a bound is crossed."""

    def __init__(self, content_encoding: str | None, max_raw: int, max_decoded: int) -> None:
        names = [p.strip().lower() for p in (content_encoding or "").split(",") if p.strip()]
        # Encodings are listed in the order they were applied, so they are undone last-first.
        decoders = [_decoder(n) for n in reversed(names)]
        self._decoders: list[_Decoder] = [d for d in decoders if d is not None]
        self.max_raw = max_raw
        self.max_decoded = max_decoded
        self.raw_bytes = 0
        self.decoded_bytes = 0
        self._parts: list[bytes] = []

    def feed(self, chunk: bytes) -> None:
        self.raw_bytes += len(chunk)
        if self.raw_bytes > self.max_raw:
            raise RetrievalError(f"too large (> {human_size(self.max_raw)})", kind="too-large")
        for piece in self._through(0, chunk):
            self.decoded_bytes += len(piece)
            if self.decoded_bytes > self.max_decoded:
                what = "when decompressed " if self._decoders else ""
                raise RetrievalError(
                    f"too large {what}(> {human_size(self.max_decoded)})", kind="too-large"
                )
            self._parts.append(piece)

    def _through(self, level: int, data: bytes) -> Iterator[bytes]:
        """Pass data down the decoder chain one bounded piece at a time."""
        if level == len(self._decoders):
            if data:
                yield data
            return
        dec = self._decoders[level]
        try:
            for piece in dec.feed(data):
                yield from self._through(level + 1, piece)
        except _DECODE_ERRORS as exc:
            raise RetrievalError(
                f"corrupt compressed body ({dec.name}): {exc}", kind="decode"
            ) from None

    def finish(self) -> bytes:
        for dec in self._decoders:
            if not dec.done():
                raise RetrievalError(
                    f"truncated body (the {dec.name} stream ends early)", kind="truncated"
                )
        return b"".join(self._parts)


_NEUTRAL = frozenset(
    {
        "",
        "application/octet-stream",
        "binary/octet-stream",
        "application/x-download",
        "application/force-download",
        "application/unknown",
    }
)


def effective_content_type(declared: str | None, body: bytes) -> str | None:
    """The declared type, corrected only when the bytes contradict it or it says nothing."""
    mime = mime_of(declared)
    seen = sniff(body)
    if mime in _NEUTRAL:
        if seen:
            return seen
        head = body[:2048]
        if head and b"\x00" not in head:
            try:
                head.decode("utf-8")
            except UnicodeDecodeError as exc:
                if exc.start < len(head) - 4:  # a split multi-byte character at the cut is fine
                    return declared or None
            return "text/plain"
        return declared or None
    if seen == "application/pdf" and mime != "application/pdf":
        return "application/pdf"
    if seen == "text/html" and mime in ("application/pdf", "text/plain"):
        return "text/html"
    return declared
