"""One content sniffer: retrieval's label correction and extraction's dispatch read bytes alike."""

from __future__ import annotations

import pytest

from citeledger.extract.dispatch import detect_kind
from citeledger.retrieve.body import effective_content_type

KIND = {"application/pdf": "pdf", "text/html": "html", "text/plain": "text"}


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        (b"%PDF-1.7\n...", "pdf"),
        (b"junk\r\n%PDF-1.4 ...", "pdf"),  # after a stray header, at a line start
        (b"<html><title>About %PDF-1.7</title><p>a page about PDF</p></html>", "html"),
        (b"\xef\xbb\xbf<!DOCTYPE html><p>x</p>", "html"),
        (b'<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><p>x</p>', "html"),
        (b'<?xml version="1.0"?><feed><title>not a page</title></feed>', "text"),
        (b"Notes on the header %PDF-1.7 of a file", "text"),
    ],
)
def test_retrieval_and_extraction_agree_on_an_unlabelled_body(body: bytes, kind: str) -> None:
    assert detect_kind(body, None) == kind
    assert KIND[effective_content_type(None, body) or ""] == kind
