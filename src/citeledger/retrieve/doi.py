"""DOIs: the resolver leads to the landing page, the page to the full text; CSL-JSON alongside.

Two GETs to the resolver with the DOI as the only thing said: one that follows the redirects to
the publisher, one asking for ``application/vnd.citationstyles.csl+json`` (the registry's own
description, where a retraction shows). When the publisher's answer is a landing page that
advertises the work's full text (``citation_pdf_url`` and kin, see ``fulltext``), one more GET
fetches that, and it — not the abstract page — is the evidence. It must never guess a
retraction: only what the registry records counts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from citeledger.errors import RetrievalError
from citeledger.identifiers import IdentifierError, validate_doi
from citeledger.model import Identifier

from .body import mime_of, sniff
from .config import RetrieveConfig
from .fulltext import FulltextLink, find_link, is_html
from .http import Fetched
from .providers import ACCEPT_TEXT, METADATA, TEXT, Call, NetworkProvider, bad

CSL_JSON = "application/vnd.citationstyles.csl+json"
FOLLOW = "then perhaps one GET of the full text its landing page links, on the publisher's host"
RETRACTION_TYPES = frozenset({"retraction", "partial_retraction", "withdrawal", "removal"})
_TITLE_MARK = re.compile(r"^\s*\(?(retracted|withdrawn)(?:\s+article)?\b\)?\s*[:.\-–—]?", re.I)


def doi_url(doi: str, config: RetrieveConfig) -> str:
    """The resolver URL; characters a path cannot carry (``#?%<>`` spaces…) are escaped."""
    return config.doi_base + quote(doi, safe="/:;()[]._-~!$&'*+,=@")


class DoiProvider(NetworkProvider):
    kind = "doi"

    def calls(self, identifier: Identifier, config: RetrieveConfig) -> tuple[Call, ...]:
        try:
            doi = validate_doi(identifier.value)
        except IdentifierError as exc:
            raise bad(identifier, str(exc)) from None
        url = doi_url(doi, config)
        return (
            Call(
                url,
                TEXT,
                ACCEPT_TEXT,
                "resolve the DOI to its landing page or full text",
                may_follow=FOLLOW,
            ),
            Call(url, METADATA, CSL_JSON, "CSL-JSON metadata (content negotiation)"),
        )

    def fulltext_link(self, fetched: Fetched) -> FulltextLink | None:
        if not is_html(fetched):  # the resolver led straight to a PDF (or to plain text)
            return None
        return find_link(fetched.body, fetched.url)

    def parse_metadata(self, identifier: Identifier, fetched: Fetched) -> Mapping[str, Any]:
        return parse_json_metadata(fetched, "the DOI registry")


def parse_json_metadata(fetched: Fetched, who: str) -> Mapping[str, Any]:
    mime = mime_of(fetched.content_type)
    if sniff(fetched.body) == "text/html" or mime.startswith("text/html"):
        raise RetrievalError(f"{who} returned no JSON metadata (got text/html)", kind="metadata")
    try:
        data = json.loads(fetched.body.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RetrievalError(
            f"{who} returned unreadable JSON metadata: {exc}", kind="metadata"
        ) from None
    if isinstance(data, list) and len(data) == 1 and isinstance(data[0], dict):
        data = data[0]
    if not isinstance(data, dict):
        raise RetrievalError(f"{who} returned JSON that is not one record", kind="metadata")
    return data


def _date(value: Any) -> str | None:
    if isinstance(value, Mapping):
        parts = value.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            try:
                return "-".join(
                    f"{int(p):02d}" if i else str(int(p)) for i, p in enumerate(parts[0])
                )
            except (TypeError, ValueError):
                return None
        if isinstance(value.get("date-time"), str):
            return value["date-time"][:10]
    if isinstance(value, str | int):
        return str(value)
    return None


def _text(value: Any) -> str:
    if isinstance(value, list):
        value = value[0] if value else ""
    return value if isinstance(value, str) else ""


def retraction_of(metadata: Mapping[str, Any] | None) -> str | None:
    """What the registry's record says about a retraction of this work, or None.

    Signals, in order: ``updated-by`` naming a retraction/withdrawal/removal (Crossref's link from
    the work to its notice); ``update-to`` of that type naming this same DOI or none (a work
    retracted in place); a title starting ``RETRACTED`` or ``WITHDRAWN``. An ``update-to`` naming
    a *different* DOI means this record is the notice about another work, not a retraction of it.
    """
    if not metadata:
        return None
    own = _text(metadata.get("DOI")).strip().lower()
    for field in ("updated-by", "update-to"):
        updates = metadata.get(field)
        if isinstance(updates, Mapping):
            updates = [updates]
        if not isinstance(updates, list):
            continue
        for update in updates:
            if not isinstance(update, Mapping):
                continue
            kind = _text(update.get("type")).strip().lower().replace("-", "_").replace(" ", "_")
            if kind not in RETRACTION_TYPES:
                continue
            target = _text(update.get("DOI") or update.get("doi")).strip().lower()
            if field == "update-to" and target and own and target != own:
                continue
            words = kind.replace("_", " ")
            when = _date(update.get("updated"))
            notice = f", notice {target}" if field == "updated-by" and target else ""
            return f"{words} recorded by the registry" + (f" ({when})" if when else "") + notice
    title = _text(metadata.get("title"))
    mark = _TITLE_MARK.match(title)
    if mark:
        return f"the registry's title is marked {mark.group(1).upper()}: {title.strip()[:120]}"
    return None
