"""What each kind of identifier asks of the network, and how its answers are read.

A provider turns an ``Identifier`` into the HTTP calls to make (for the plan and for the fetch)
and reads the metadata answer; the shared HTTP machinery does the rest, so limits, retries and the
address check are the same for every kind. A provider must never put anything in a request but
the identifier itself (no quote, no document text), and must not do I/O of its own except the
``file`` provider reading inside the ledger's folder.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Protocol
from urllib.parse import urlsplit

from citeledger.errors import RetrievalError
from citeledger.model import Identifier, Retrieval

from .body import effective_content_type, human_size
from .config import RetrieveConfig
from .fulltext import FulltextLink
from .http import Fetched, utc_now

TEXT = "text"  # the call whose body is the evidence
METADATA = "metadata"  # the call whose body is the registry's description of the work

ACCEPT_TEXT = "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.5"


@dataclass(frozen=True)
class Call:
    """One GET a provider wants made. ``what`` is shown in the plan, in plain words."""

    url: str
    purpose: str  # TEXT | METADATA
    accept: str
    what: str
    may_follow: str | None = None  # what one more request after this one may be (the plan says)

    @property
    def host(self) -> str:
        return (urlsplit(self.url).hostname or "").lower()


class Provider(Protocol):
    """The interface every identifier kind implements."""

    kind: ClassVar[str]
    local: ClassVar[bool]  # True: read from disk by ``read_local``, no HTTP at all
    no_text_reason: ClassVar[str | None]  # set when this kind never yields text (ISBN)

    def calls(self, identifier: Identifier, config: RetrieveConfig) -> tuple[Call, ...]:
        """The requests to make; raises ``RetrievalError(kind="bad-identifier")`` if malformed."""
        ...

    def parse_metadata(self, identifier: Identifier, fetched: Fetched) -> Mapping[str, Any]:
        """CSL-JSON from the METADATA answer; raises ``RetrievalError(kind="metadata")``."""
        ...

    def fulltext_link(self, fetched: Fetched) -> FulltextLink | None:
        """The full text this TEXT answer links to, to fetch instead (a DOI's landing page)."""
        ...

    def read_local(
        self,
        identifier: Identifier,
        root: str | None,
        allow_outside: bool,
        config: RetrieveConfig,
    ) -> Retrieval:
        """The local body (only for ``local`` providers)."""
        ...


class NetworkProvider:
    """Defaults for providers that only talk HTTP."""

    kind: ClassVar[str] = ""
    local: ClassVar[bool] = False
    no_text_reason: ClassVar[str | None] = None

    def calls(self, identifier: Identifier, config: RetrieveConfig) -> tuple[Call, ...]:
        raise NotImplementedError

    def parse_metadata(self, identifier: Identifier, fetched: Fetched) -> Mapping[str, Any]:
        raise RetrievalError("this identifier kind has no metadata", kind="metadata")

    def fulltext_link(self, fetched: Fetched) -> FulltextLink | None:
        return None

    def read_local(
        self,
        identifier: Identifier,
        root: str | None,
        allow_outside: bool,
        config: RetrieveConfig,
    ) -> Retrieval:
        raise RetrievalError(f"{self.kind} identifiers are not local", kind="bad-identifier")


def bad(identifier: Identifier, why: str) -> RetrievalError:
    return RetrievalError(f"cannot retrieve {identifier}: {why}", kind="bad-identifier")


class UrlProvider(NetworkProvider):
    kind = "url"

    def calls(self, identifier: Identifier, config: RetrieveConfig) -> tuple[Call, ...]:
        url = identifier.value.strip()
        parts = urlsplit(url)
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            raise bad(identifier, "only absolute http(s) URLs can be retrieved")
        return (Call(url, TEXT, ACCEPT_TEXT, "the page"),)


class FileProvider(NetworkProvider):
    """A file beside the ledger: no HTTP exchange happened, so the record says ``reconstructed``."""

    kind = "file"
    local = True

    def calls(self, identifier: Identifier, config: RetrieveConfig) -> tuple[Call, ...]:
        return ()

    def read_local(
        self,
        identifier: Identifier,
        root: str | None,
        allow_outside: bool,
        config: RetrieveConfig,
    ) -> Retrieval:
        if not root:
            raise bad(identifier, "file identifiers are read relative to the ledger's folder")
        base = Path(root).resolve()
        given = Path(identifier.value)
        path = (base / given).resolve()
        if not allow_outside and not path.is_relative_to(base):
            raise RetrievalError(
                f"refused: {identifier.value} is outside the ledger's folder",
                kind="refused",
                fix="move the file into the project, or set allow_files_outside: true",
            )
        if not path.is_file():
            what = "a folder, not a file" if path.is_dir() else "no such file"
            raise RetrievalError(f"not found ({what}: {identifier.value})", kind="not-found")
        size = path.stat().st_size
        if size > config.max_body_bytes:
            raise RetrievalError(
                f"too large (> {human_size(config.max_body_bytes)})", kind="too-large"
            )
        try:
            body = path.read_bytes()
        except PermissionError:
            raise RetrievalError(
                f"refused (cannot read {identifier.value}: permission denied)", kind="refused"
            ) from None
        guessed, _enc = mimetypes.guess_type(path.name)
        if guessed is None and path.suffix.lower() in (".md", ".markdown"):
            guessed = "text/markdown"
        uri = path.as_uri()
        return Retrieval(
            identifier=identifier,
            requested_url=uri,
            url=uri,
            status=200,
            content_type=effective_content_type(guessed, body),
            body=body,
            retrieved_at=utc_now(),
            protocol="file",
            reconstructed=True,
        )
