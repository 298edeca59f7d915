"""The full text a scholarly landing page advertises, and whether what came back is that text.

A DOI resolves to a publisher's landing page: an abstract, a title, a download button. The page
usually says where the work itself is, in tags meant for indexers (Highwire Press
``citation_pdf_url`` — most publishers, ACL Anthology, arXiv, OpenReview —,
``citation_fulltext_html_url``, ``<link rel="alternate" type="application/pdf">``). This module
finds that link with a small tag scan (no full HTML parser: the tags live in ``<head>`` and have a
fixed shape) and judges the answer, so that a login page or a paywall notice is never mistaken for
the paper. It must never do I/O, never follow anything a script would compute, and never accept
an HTML page where a PDF was promised.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit, urlunsplit

from .body import mime_of, sniff
from .http import Fetched

PDF = "pdf"
HTML = "html"
SCAN_BYTES = 2_000_000  # the tags sit in <head>; a huge page is not scanned to its end

_TAG = re.compile(rb"<(meta|link|base)\b([^>]*)>", re.I)
_ATTR = re.compile(r"""([^\s"'=<>/]+)\s*(?:=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?""")
_HEAD_END = re.compile(rb"</head\s*>", re.I)
_PASSWORD = re.compile(rb"<input\b[^>]*\btype\s*=\s*[\"']?password\b", re.I)
_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})

ACCEPT_PDF = "application/pdf,*/*;q=0.5"
ACCEPT_HTML = "text/html,application/xhtml+xml,application/pdf;q=0.9,*/*;q=0.5"


@dataclass(frozen=True)
class FulltextLink:
    """A full-text URL found on a landing page: where, what it promises, and which tag said so."""

    url: str
    kind: str  # PDF | HTML
    source: str  # "citation_pdf_url", "citation_fulltext_html_url", "link rel=alternate"

    @property
    def accept(self) -> str:
        return ACCEPT_PDF if self.kind == PDF else ACCEPT_HTML


def _attrs(raw: bytes) -> dict[str, str]:
    text = raw.decode("utf-8", "replace")
    found: dict[str, str] = {}
    for m in _ATTR.finditer(text):
        name = m.group(1).lower()
        value = next((g for g in m.group(2, 3, 4) if g is not None), "")
        found.setdefault(name, html.unescape(value).strip())
    return found


def _absolute(href: str, base: str) -> str | None:
    """``href`` resolved against ``base``, without its fragment; None unless http(s)."""
    try:
        parts = urlsplit(urljoin(base, href.strip()))
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            return None
    except ValueError:  # a malformed IPv6 literal, a bad port…: no link
        return None
    return urlunsplit(parts._replace(fragment=""))


def is_html(fetched: Fetched) -> bool:
    return mime_of(fetched.content_type) in _HTML_TYPES or sniff(fetched.body) == "text/html"


def find_link(body: bytes, page_url: str) -> FulltextLink | None:
    """The full text ``body`` (the page at ``page_url``) advertises, or None.

    A PDF is preferred to an HTML full text (its text is the paper's, with nothing around it):
    ``citation_pdf_url``, then a PDF ``rel=alternate`` link, then ``citation_fulltext_html_url``;
    the first usable one of each kind counts. Relative URLs are resolved against ``<base href>``
    if the page has one, else against the page's own (final) URL. A link back to the page itself
    is no full text.
    """
    head = body[:SCAN_BYTES]
    end = _HEAD_END.search(head)
    if end is not None:
        head = head[: end.start()]
    base = page_url
    here = _absolute(page_url, page_url)
    found: dict[str, FulltextLink] = {}
    for m in _TAG.finditer(head):
        tag, attrs = m.group(1).lower(), _attrs(m.group(2))
        if tag == b"base":
            href = attrs.get("href")
            resolved = _absolute(href, page_url) if href else None
            if resolved and base == page_url:
                base = resolved
            continue
        if tag == b"meta":
            name = (attrs.get("name") or attrs.get("property") or "").lower()
            target = attrs.get("content", "")
            if name == "citation_pdf_url":
                key, kind = "citation_pdf_url", PDF
            elif name == "citation_fulltext_html_url":
                key, kind = "citation_fulltext_html_url", HTML
            else:
                continue
        else:
            rels = (attrs.get("rel") or "").lower().split()
            if "alternate" not in rels or mime_of(attrs.get("type")) != "application/pdf":
                continue
            key, kind, target = "link rel=alternate", PDF, attrs.get("href", "")
        if key in found or not target:
            continue
        url = _absolute(target, base)
        if url is None or url == here:
            continue
        found[key] = FulltextLink(url, kind, key)
    for key in ("citation_pdf_url", "link rel=alternate", "citation_fulltext_html_url"):
        if key in found:
            return found[key]
    return None


def rejection(link: FulltextLink, fetched: Fetched, landing_url: str) -> str | None:
    """Why this answer to ``link`` is not the work's full text, or None when it is.

    The bytes decide, not the declared type: a body starting ``%PDF-`` is a PDF whatever the
    server calls it, and an HTML page served as ``application/pdf`` is a login or paywall page.
    """
    if sniff(fetched.body) == "application/pdf":
        return None
    mime = mime_of(fetched.content_type) or "a body of no declared type"
    login = _PASSWORD.search(fetched.body[:SCAN_BYTES]) is not None
    if link.kind == PDF:
        if is_html(fetched):
            what = "a login page" if login else "an HTML page (a login or paywall page?)"
            return f"got {what} instead of a PDF"
        return f"got {mime}, not a PDF (no %PDF- signature)"
    if not is_html(fetched):
        return f"got {mime} instead of the full text"
    if fetched.url == landing_url:
        return "the full-text link led back to the landing page"
    if login:
        return "got a login page instead of the full text"
    return None
