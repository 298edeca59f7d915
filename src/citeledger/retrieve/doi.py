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
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from citeledger.errors import RetrievalError
from citeledger.evidence.registry import RETRACTION_TYPES, retraction_of
from citeledger.ledger.identifiers import IdentifierError, validate_doi
from citeledger.model import Identifier
from citeledger.sniff import media_type as mime_of
from citeledger.sniff import sniff

from .config import RetrieveConfig
from .fulltext import FulltextLink, find_link, is_html
from .http import Fetched
from .providers import ACCEPT_TEXT, METADATA, TEXT, Call, NetworkProvider, bad

CSL_JSON = "application/vnd.citationstyles.csl+json"
FOLLOW = "then perhaps one GET of the full text its landing page links, on the publisher's host"


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


__all__ = ["CSL_JSON", "RETRACTION_TYPES", "DoiProvider", "doi_url", "retraction_of"]
