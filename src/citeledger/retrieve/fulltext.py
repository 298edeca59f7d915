"""The full text a scholarly landing page advertises, and whether what came back is that text.

A DOI resolves to a publisher's landing page: an abstract, a title, a download button. The page
usually says where the work itself is, in tags meant for indexers (Highwire Press
``citation_pdf_url`` — most publishers, ACL Anthology, arXiv, OpenReview —,
``citation_fulltext_html_url``, ``<link rel="alternate" type="application/pdf">``). This module
finds that link with the HTML5 parser extraction uses (selectolax's lexbor: a tag in a comment,
in a ``<script>`` string or in the body is not the page's, and a quoted ``>`` ends no tag) and
judges the answer, so that a login page or a paywall notice is never mistaken for
the paper. It must never do I/O, never follow anything a script would compute, and never accept
an HTML page where a PDF was promised.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit, urlunsplit

from selectolax.lexbor import LexborHTMLParser, LexborNode

from citeledger.sniff import media_type as mime_of
from citeledger.sniff import sniff

from .http import Fetched

PDF = "pdf"
HTML = "html"
SCAN_BYTES = 2_000_000  # the tags sit in <head>; a huge page is not scanned to its end

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


def _attr(node: LexborNode, name: str) -> str:
    return (node.attributes.get(name) or "").strip()


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
    tree = LexborHTMLParser(body[:SCAN_BYTES].decode("utf-8", "replace"))
    head = tree.head
    if head is None:
        return None
    base = page_url
    for node in head.css("base[href]"):
        base = _absolute(_attr(node, "href"), page_url) or page_url
        break  # only the first <base href> counts (HTML)
    here = _absolute(page_url, page_url)
    found: dict[str, FulltextLink] = {}
    for node in head.css("meta, link"):
        if node.tag == "meta":
            name = (_attr(node, "name") or _attr(node, "property")).lower()
            target = _attr(node, "content")
            if name == "citation_pdf_url":
                key, kind = "citation_pdf_url", PDF
            elif name == "citation_fulltext_html_url":
                key, kind = "citation_fulltext_html_url", HTML
            else:
                continue
        else:
            rels = _attr(node, "rel").lower().split()
            if "alternate" not in rels or mime_of(_attr(node, "type")) != "application/pdf":
                continue
            key, kind, target = "link rel=alternate", PDF, _attr(node, "href")
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
