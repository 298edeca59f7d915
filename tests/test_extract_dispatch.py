"""The public entry: which extractor a body goes to (content type, magic, name), what is
refused, and that ``extract_file`` says which file failed."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeledger.errors import ExtractError
from citeledger.extract.dispatch import detect_kind, extract, extract_file
from conftest import corpus_file

HTML = b"<!DOCTYPE html><html><head><title>t</title></head><body><p>Hello page</p></body></html>"


@pytest.mark.parametrize(
    ("body", "content_type", "name", "kind"),
    [
        (HTML, "text/html; charset=utf-8", None, "html"),
        (HTML, "application/xhtml+xml", None, "html"),
        (HTML, None, None, "html"),  # sniffed
        (HTML, "application/octet-stream", "page.htm", "html"),
        (b"plain words", "text/plain", None, "text"),
        (b"plain words", None, "notes.md", "text"),
        (b"plain words", None, None, "text"),
        (b"<p>markup, but the server says text</p>", "text/plain", None, "text"),
        (b"%PDF-1.4 ...", "application/pdf", None, "pdf"),
        (b"%PDF-1.4 ...", "application/octet-stream", "x.bin", "pdf"),
        (b"%PDF-1.4 ...", "text/html", None, "pdf"),  # a body starting %PDF- is a PDF
        (b"junk\n%PDF-1.4 ...", None, None, "pdf"),  # header within the first 1024 bytes
        (b"<html><title>About %PDF-1.7</title><p>x</p></html>", "text/html", None, "html"),
        (b"Notes on the header %PDF-1.7 of a file", None, None, "text"),
        (b'{"a": 1}', "application/json", None, "text"),
        (b"%PDF-1.4 ...", None, "https://example.org/paper.pdf?download=1#page=2", "pdf"),
        (b"words", None, "https://example.org/notes.txt?x=1", "text"),
        (b"<p>x</p>", None, "https://example.org/", "html"),
    ],
)
def test_detect_kind(body: bytes, content_type: str | None, name: str | None, kind: str) -> None:
    assert detect_kind(body, content_type, name) == kind


@pytest.mark.parametrize(
    ("body", "content_type", "message"),
    [
        (b"", "text/html", "empty body"),
        (b"   \n", None, "empty body"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "image/png", "unsupported content type image/png"),
        (b"PK\x03\x04\x00\x00binary", "application/zip", "unsupported content type"),
        (b"\x00\x01\x02\x03binary", None, "unsupported binary content"),
        (b"\x00\x01\x02\x03binary", "application/octet-stream", "unsupported binary content"),
    ],
)
def test_no_text_of_the_work_is_refused(body: bytes, content_type: str | None, message: str):
    with pytest.raises(ExtractError) as info:
        extract(body, content_type)
    assert message in info.value.message


def test_extract_routes_to_each_extractor() -> None:
    assert extract(HTML, "text/html").kind == "html"
    assert extract(b"hello", "text/plain").kind == "text"
    pdf = corpus_file("pdf", "dmca.pdf").read_bytes()
    assert extract(pdf, "application/octet-stream").extractor == "citeledger-pdf/pypdfium2"


@pytest.mark.parametrize(
    ("relative", "kind"),
    [("html/v8-blog.html", "html"), ("pdf/seung08.pdf", "pdf"), ("text/rfc2616.txt", "text")],
)
def test_extract_file_infers_the_type(relative: str, kind: str) -> None:
    ex = extract_file(corpus_file(relative))
    assert ex.kind == kind and ex.text.strip()


def test_extract_file_names_the_file_on_failure(tmp_path: Path) -> None:
    missing = tmp_path / "nope.pdf"
    with pytest.raises(ExtractError) as info:
        extract_file(missing)
    assert info.value.file == str(missing) and "cannot read" in info.value.message
    scan = tmp_path / "empty.txt"
    scan.write_bytes(b"")
    with pytest.raises(ExtractError) as info:
        extract_file(scan)
    assert info.value.file == str(scan) and str(scan) in str(info.value)
    assert info.value.message == "empty body"  # the bare reason; the caller frames it
