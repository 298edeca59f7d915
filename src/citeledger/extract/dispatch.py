"""The extraction stage: a retrieved body's bytes → the text of the work, with a page map.

This is the one entry point the rest of the tool calls (``verify``, ``recheck``, ``locate``,
and ``judge`` when it re-derives text from stored evidence). It decides what kind of body it
was given and hands it to one extractor: HTML (``extract_html``), PDF (``extract_pdf``) or
plain text (``extract_text``). ``Extracted.extractor`` and ``extractor_version`` name exactly
what produced the text, and offsets are code points into ``Extracted.text`` as defined by that
module, so a receipt's span means one thing.

When there is no text of the work — an empty body, a scanned PDF without a text layer, a binary
type — it raises ``ExtractError`` whose message is the bare reason ("no text layer (scanned
PDF?)"), for the caller to frame. A page that *has*
text but is a login wall, paywall, captcha or soft 404 is a judgement, not a failure to
extract: :func:`no_work_reason` makes it, so that the caller decides what to record.

Pure: no network, no writes; ``extract_file`` only reads the path it is given.
"""

from __future__ import annotations

import os
from pathlib import Path

from citeledger import model
from citeledger.errors import ExtractError
from citeledger.extract.html import HtmlExtracted, extract_html, no_work_reason
from citeledger.extract.pdf import MAX_INFLATED_BYTES, extract_pdf
from citeledger.extract.text import extract_text, looks_binary
from citeledger.sniff import is_pdf as _is_pdf
from citeledger.sniff import looks_html as _looks_html
from citeledger.sniff import media_type as _media_type

__all__ = ["HtmlExtracted", "detect_kind", "extract", "extract_file", "no_work_reason"]

_HTML_TYPES = {"text/html", "application/xhtml+xml", "application/vnd.wap.xhtml+xml"}
_PDF_TYPES = {"application/pdf", "application/x-pdf", "application/acrobat", "text/pdf"}
_TEXT_TYPES = {"application/json", "application/xml", "application/x-tex", "application/x-latex"}
_UNTYPED = {
    "",
    "application/octet-stream",
    "binary/octet-stream",
    "application/unknown",
    "application/download",
    "application/force-download",
}
_SUFFIXES = {
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".shtml": "html",
    ".pdf": "pdf",
    ".txt": "text",
    ".text": "text",
    ".md": "text",
    ".markdown": "text",
    ".rst": "text",
    ".tex": "text",
    ".csv": "text",
    ".org": "text",
    ".adoc": "text",
}


def _suffix(name: str | None) -> str:
    """The suffix of a file name or of a URL's path (``…/paper.pdf?download=1`` → ``.pdf``)."""
    if not name:
        return ""
    path = name.split("#", 1)[0].split("?", 1)[0]
    if "://" in path:
        path = path.split("://", 1)[1].partition("/")[2]
    return Path(path).suffix.lower()


def detect_kind(body: bytes, content_type: str | None = None, name: str | None = None) -> str:
    """``html``, ``pdf`` or ``text``; raises ``ExtractError`` for anything without text.

    Order: the content type, then the ``%PDF-`` magic, then the name's suffix, then sniffing.
    One exception: a body that *starts* with ``%PDF-`` is a PDF whatever its label says — no
    page or text starts that way, and servers mislabel PDFs far more often than the reverse.
    """
    media = _media_type(content_type)
    if _is_pdf(body, strict=True) or media in _PDF_TYPES:
        return "pdf"
    if media in _HTML_TYPES:
        return "html"
    if media.startswith("text/") or media in _TEXT_TYPES or media.endswith(("+xml", "+json")):
        return "text"
    if media and media not in _UNTYPED:
        raise ExtractError(f"unsupported content type {media}")
    if _is_pdf(body):
        return "pdf"
    suffix = _suffix(name)
    if suffix in _SUFFIXES:
        return _SUFFIXES[suffix]
    if _looks_html(body):
        return "html"
    if not looks_binary(body):
        return "text"
    shown = f" ({name})" if name else ""
    raise ExtractError(f"unsupported binary content{shown}")


def extract(
    body: bytes,
    content_type: str | None = None,
    name: str | None = None,
    *,
    max_inflated: int = MAX_INFLATED_BYTES,
) -> model.Extracted:
    """The text of the work in ``body``; ``ExtractError(reason)`` when there is none.

    ``max_inflated`` caps what a PDF's streams may decompress to (``extract_pdf``)."""
    if not body or not body.strip():
        raise ExtractError("empty body")
    kind = detect_kind(body, content_type, name)
    if kind == "pdf":
        return extract_pdf(body, max_inflated)
    if kind == "html":
        return extract_html(body, content_type)
    return extract_text(body, content_type)


def extract_file(path: str | os.PathLike[str]) -> model.Extracted:
    """Read ``path`` and extract it, the type inferred from its magic bytes and suffix."""
    p = Path(path)
    try:
        body = p.read_bytes()
    except OSError as exc:
        raise ExtractError(
            f"cannot read the file: {exc.strerror or exc}",
            file=str(path),
            fix="check the path (relative to the ledger) and its permissions",
        ) from exc
    try:
        return extract(body, None, p.name)
    except ExtractError as exc:
        if exc.file is not None:
            raise
        raise ExtractError(exc.message, file=str(path), line=exc.line, fix=exc.fix) from exc
