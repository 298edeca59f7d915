"""What verify asks retrieval for, and what it gets back: one request in, one outcome out.

A request carries the identifier and, for a recheck, the validators of the previous receipt —
nothing of the writer's prose can be put into it. An outcome is exactly one of: a ``Retrieval``,
a ``RetrievalError``, or "not modified"; with the registry's metadata alongside whichever it is
(a retraction matters even when the publisher refuses us the text). Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from citeledger.errors import RetrievalError
from citeledger.model import Identifier, Retrieval

from .doi import retraction_of


@dataclass(frozen=True)
class FetchRequest:
    """One identifier to retrieve. ``key`` is the caller's label, echoed back untouched."""

    identifier: Identifier
    key: str | None = None
    etag: str | None = None  # from the previous receipt → If-None-Match
    last_modified: str | None = None  # from the previous receipt → If-Modified-Since
    root: str | None = None  # the ledger's folder, for file: identifiers
    allow_files_outside: bool = False
    # the writer's copy of the work (a path relative to ``root``): read from disk instead of
    # sending anything for this identifier, which stays the source's name
    local_copy: str | None = None

    def conditional_headers(self) -> dict[str, str]:
        headers: dict[str, str] = {}
        if self.etag:
            headers["If-None-Match"] = self.etag
        if self.last_modified:
            headers["If-Modified-Since"] = self.last_modified
        return headers


@dataclass(frozen=True)
class FetchOutcome:
    """The end of one request: ``retrieval`` xor ``error`` xor ``not_modified``.

    For a DOI whose landing page links the full text (``citation_pdf_url`` …), the retrieval is
    that full text: ``url`` is where it ended, and ``redirects`` the whole chain that led there —
    the resolver, the publisher's redirects, the landing page, the full text's own redirects —
    so ``requested_url → *redirects → url`` is where the evidence came from. ``fulltext_url`` is
    the link the landing page gave (None when none was followed). ``fulltext_error`` is set
    whenever a DOI's evidence is its HTML landing page rather than the work's text: the link
    failed (a 401/403 paywall, a 404, a login page served instead of a PDF, a refused address…)
    or the page links no full text. It says why, so "quote not found" can be read as "we never
    had the text" rather than "the work does not say this".
    """

    request: FetchRequest
    retrieval: Retrieval | None = None
    error: RetrievalError | None = None
    not_modified: bool = False
    metadata: Mapping[str, Any] | None = None  # CSL-JSON from the registry, when fetched
    metadata_error: RetrievalError | None = None  # why there is no metadata, if one was asked
    requested_url: str | None = None
    url: str | None = None  # final URL (after redirects), or where a failure ended
    status: int | None = None
    redirects: tuple[str, ...] = ()
    etag: str | None = None  # validators of the response, for the next recheck
    last_modified: str | None = None
    attempts: int = 0  # HTTP exchanges for the text: redirect hops plus retries
    waited: float = 0.0  # seconds slept: Retry-After, backoff, host_intervals pacing
    retrieved_at: str | None = None
    fulltext_url: str | None = None  # the full-text link a landing page gave, when followed
    fulltext_error: str | None = None  # why the evidence is a landing page, not the full text

    def __post_init__(self) -> None:
        ends = (self.retrieval is not None) + (self.error is not None) + self.not_modified
        if ends != 1:
            raise ValueError("a FetchOutcome is exactly one of retrieval, error, not_modified")

    @property
    def identifier(self) -> Identifier:
        return self.request.identifier

    @property
    def ok(self) -> bool:
        return self.retrieval is not None

    @property
    def kind(self) -> str | None:
        """The error's kind (``not-found``, ``timeout``, ``refused-address`` …), or None."""
        return self.error.kind if self.error is not None else None

    @property
    def reason(self) -> str | None:
        """The error's one-line reason for the writer, or None."""
        return self.error.one_line() if self.error is not None else None

    @property
    def retracted(self) -> str | None:
        return retraction_of(self.metadata)
