"""Retrieval: the only code in citeledger that touches the network.

``plan`` states what will be sent before anything is; ``fetch_all`` sends it — identifiers only,
never the writer's quotes or text — under a global and a per-host limit, with every connection's
resolved address checked (private, loopback and link-local refused unless ``allow_private``), and
returns one ``FetchOutcome`` per request: a ``model.Retrieval``, a ``RetrievalError`` with a
precise reason and ``kind``, or "not modified". A DOI's evidence is the work's full text when its
landing page links one (``citation_pdf_url`` …: one more request, announced by the plan), else
the landing page, with ``FetchOutcome.fulltext_error`` saying why. Nothing outside
``verify``/``recheck`` may import this package (``judge``, ``render``, ``filter`` and ``report``
are offline by construction).
"""

from __future__ import annotations

from citeledger.ledger.identifiers import ArxivId, parse_arxiv

from .address import GuardedBackend, Resolver, address_class, system_resolver
from .arxiv import abs_url, pdf_url
from .config import ENV_VARS, RetrieveConfig
from .doi import CSL_JSON, doi_url, retraction_of
from .fetch import fetch_all, fetch_all_sync
from .fulltext import FulltextLink, find_link
from .isbn import NO_TEXT, normalize_isbn
from .outcome import FetchOutcome, FetchRequest
from .plan import Plan, PlannedCall, plan
from .providers import METADATA, TEXT, Call, Provider
from .registry import PROVIDERS, provider_for

ERROR_KINDS = (
    "refused-address",  # private/loopback/link-local/… address, before any connection
    "not-found",  # HTTP 404/410, missing file
    "refused",  # HTTP 401/403/407/451, unreadable or out-of-project file
    "rate-limited",  # HTTP 429 after retries, or Retry-After beyond the cap
    "unavailable",  # HTTP 503 after retries, or Retry-After beyond the cap
    "server-error",  # other 5xx
    "http-error",  # any other unexpected status
    "timeout",  # connect, read, or whole-exchange deadline
    "too-large",  # body or decompressed body over its cap
    "truncated",  # fewer bytes than announced, dropped connection, cut compressed stream
    "redirect",  # loop, too many, no Location, unsupported scheme
    "tls",  # certificate or handshake failure
    "dns",  # host not found
    "connection",  # refused/reset connections (after retries)
    "decode",  # corrupt or unsupported content encoding
    "no-text",  # the identifier has metadata only (ISBN)
    "bad-identifier",  # malformed identifier, unknown kind
    "metadata",  # (metadata_error only) the registry's answer was unusable
    "failed",  # anything else; the reason says what
)

__all__ = [
    "CSL_JSON",
    "ENV_VARS",
    "ERROR_KINDS",
    "METADATA",
    "NO_TEXT",
    "PROVIDERS",
    "TEXT",
    "ArxivId",
    "Call",
    "FetchOutcome",
    "FetchRequest",
    "FulltextLink",
    "GuardedBackend",
    "Plan",
    "PlannedCall",
    "Provider",
    "Resolver",
    "RetrieveConfig",
    "abs_url",
    "address_class",
    "doi_url",
    "fetch_all",
    "fetch_all_sync",
    "find_link",
    "normalize_isbn",
    "parse_arxiv",
    "pdf_url",
    "plan",
    "provider_for",
    "retraction_of",
    "system_resolver",
]
