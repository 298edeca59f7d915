"""Bytes → str for plain text (and the charset decisions HTML shares), with honest offsets.

A receipt stores code-point offsets into the *extracted* text, so this module defines that text
exactly: the body decoded (BOM, then a declared charset, then strict UTF-8, then
charset-normalizer's best guess), the BOM dropped, and every CRLF or lone CR turned into LF.
Nothing else is changed — no trimming, no Unicode normalisation, no tab expansion, form feeds
kept — so that the same bytes always give the same text and the locator's normalisation stays
the locator's business. It never does network or file I/O.
"""

from __future__ import annotations

import codecs
import re
from importlib import metadata

import webencodings

from citeledger import model
from citeledger.errors import ExtractError

TEXT_RULES_VERSION = "2"  # 2: charset labels by the WHATWG table (webencodings)
TEXT_EXTRACTOR = "citeledger-text"

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: it starts with the same two bytes
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

# The WHATWG Encoding standard's name (``webencodings`` holds its label table) → the Python
# codec that decodes it as browsers do, where Python's codec of the same name is narrower.
_WHATWG_CODECS = {
    "euc-kr": "cp949",  # the web's EUC-KR is Windows-949
    "shift_jis": "cp932",  # the web's Shift_JIS is Windows-31J
    "gbk": "gb18030",  # WHATWG decodes GBK with the gb18030 decoder
    "big5": "big5hkscs",  # the web's Big5 includes HKSCS
    "iso-8859-8-i": "iso-8859-8",
    "windows-874": "cp874",
    "x-mac-cyrillic": "mac-cyrillic",
    "macintosh": "mac-roman",
    "utf-16le": "utf-16-le",
    "utf-16be": "utf-16-be",
}
_NO_DECODER = frozenset({"replacement", "x-user-defined"})  # no text to be had
# Codecs that do not turn bytes into text (a page must not be able to pick one).
_NOT_TEXT = {
    "base64_codec",
    "bz2_codec",
    "hex_codec",
    "quopri_codec",
    "rot_13",
    "uu_codec",
    "zlib_codec",
    "idna",
    "punycode",
    "raw_unicode_escape",
    "unicode_escape",
    "undefined",
    "mbcs",
    "oem",
}

_CHARSET_PARAM = re.compile(r"""charset\s*=\s*["']?\s*([A-Za-z0-9._:\-]+)""", re.I)


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:  # pragma: no cover - installed via pyproject
        return "unknown"


def normalize_charset(label: str | None) -> str | None:
    """The Python codec for a declared charset label, as the WHATWG table reads it; None when the
    label is unknown to the web or names no text (``replacement``, ``x-user-defined``)."""
    if not label:
        return None
    encoding = webencodings.lookup(label.strip().strip("\"'"))
    if encoding is None or encoding.name in _NO_DECODER:
        return None
    return codec_name(_WHATWG_CODECS.get(encoding.name, encoding.name))


def codec_name(name: str) -> str | None:
    """Python's own name for a codec (a detector's answer), or None when it does not read text."""
    try:
        info = codecs.lookup(name)
    except LookupError:
        return None
    if info.name in _NOT_TEXT:
        return None
    # A declared "utf-16" without a BOM is ambiguous; the BOM check ran first, so use LE as
    # browsers do.
    return {"utf-16": "utf-16-le", "utf-32": "utf-32-le"}.get(info.name, info.name)


def charset_from_content_type(content_type: str | None) -> str | None:
    if not content_type:
        return None
    m = _CHARSET_PARAM.search(content_type)
    return normalize_charset(m.group(1)) if m else None


def sniff_bom(body: bytes) -> tuple[str, int] | None:
    """(codec, BOM length) when the body starts with a byte-order mark."""
    for bom, name in _BOMS:
        if body.startswith(bom):
            return name, len(bom)
    return None


def decode(
    body: bytes, declared: str | None = None, *, utf8_first: bool = False
) -> tuple[str, str]:
    """Decode ``body``; return (text without BOM, codec used).

    Order: BOM (it cannot lie about itself); then the declared charset (transport or document),
    decoded the way a browser shows it, with U+FFFD for invalid bytes; then strict UTF-8; then
    charset-normalizer; then UTF-8 with replacement, so that decoding never fails. With
    ``utf8_first`` (plain text, where servers often declare a stale ISO-8859-1 default) strict
    UTF-8 is tried before the declaration: bytes that are valid UTF-8 almost never are by chance.
    """
    bom = sniff_bom(body)
    if bom:
        name, skip = bom
        return body[skip:].decode(name, errors="replace"), name
    if utf8_first:
        try:
            return body.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            pass
    if declared:
        return body.decode(declared, errors="replace"), declared
    try:
        return body.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    guessed = _guess(body)
    if guessed:
        return body.decode(guessed, errors="replace"), guessed
    return body.decode("utf-8", errors="replace"), "utf-8"


def _guess(body: bytes) -> str | None:
    from charset_normalizer import from_bytes

    matches = list(from_bytes(body[: 1 << 20]))  # a megabyte is plenty to tell, and bounds time
    if not matches:
        return None
    best = matches[0]
    # On short Western text the detector's first pick is often a Baltic or Mac code page that
    # garbles è as č; windows-1252, the web's legacy default, wins when it reads the bytes
    # (nearly) as cleanly. A Cyrillic or Greek body read as windows-1252 is far noisier.
    for match in matches:
        if "cp1252" in match.could_be_from_charset and match.chaos <= best.chaos + 0.1:
            return "cp1252"
    return codec_name(best.encoding)


def normalize_newlines(text: str) -> str:
    """CRLF and lone CR → LF: the only change made to decoded text (documented offsets)."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def looks_binary(body: bytes) -> bool:
    """NUL bytes in the first 8 KiB (without a UTF-16/32 BOM) mean this is not text."""
    if sniff_bom(body):
        return False
    return b"\x00" in body[:8192]


def extract_text(body: bytes, content_type: str | None = None) -> model.Extracted:
    if looks_binary(body):
        raise ExtractError("binary content, not text")
    text, codec = decode(body, charset_from_content_type(content_type), utf8_first=True)
    text = normalize_newlines(text)
    if not text.strip():
        raise ExtractError("empty text")
    return model.Extracted(
        text=text,
        kind="text",
        extractor=TEXT_EXTRACTOR,
        extractor_version=f"{TEXT_RULES_VERSION}; charset={codec}",
    )
