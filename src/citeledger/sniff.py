"""What a body's first bytes say it is: the one content sniffer of retrieval and extraction.

``retrieve`` corrects a server's label with it and ``extract`` picks an extractor with it, so a
body is a PDF or a page to both or to neither. Pure functions of bytes.
"""

from __future__ import annotations

import codecs
import re

PDF = "application/pdf"
HTML = "text/html"

_HTML_STARTS = (
    b"<!doctype html",
    b"<html",
    b"<head",
    b"<body",
    b"<meta",
    b"<title",
    b"<!--",
    b"<div",
    b"<p>",
    b"<p ",
    b"<h1",
)
_PDF_AFTER_JUNK = re.compile(rb"[\r\n]%PDF-\d")


def media_type(content_type: str | None) -> str:
    """The media type of a Content-Type value, lower case, without parameters."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def is_pdf(body: bytes, strict: bool = False) -> bool:
    """PDF magic. Readers accept the header anywhere in the first 1024 bytes; ``strict`` (for a
    body labelled HTML or text, which may well *mention* "%PDF-") wants it at the start."""
    if body.lstrip().startswith(b"%PDF-"):
        return True
    # After junk (a MacBinary header, stray HTTP headers) the header still starts a line.
    return not strict and _PDF_AFTER_JUNK.search(body[:1024]) is not None


def looks_html(body: bytes) -> bool:
    """The body starts like a web page (after a UTF-8 BOM and white space)."""
    head = body.removeprefix(codecs.BOM_UTF8)[:2048].lstrip().lower()
    if head.startswith(b"<?xml"):
        return b"<html" in head  # XHTML, not any XML document
    return head.startswith(_HTML_STARTS)


def sniff(body: bytes) -> str | None:
    """``application/pdf`` or ``text/html`` when the first bytes say so unambiguously, else None."""
    if is_pdf(body):
        return PDF
    if looks_html(body):
        return HTML
    return None
