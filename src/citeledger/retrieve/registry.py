"""The identifier kinds retrieval knows, each with its provider.

Kept apart from ``providers`` so that each provider module can import the shared interface without
a cycle. It must never do I/O: looking a provider up is pure.
"""

from __future__ import annotations

from collections.abc import Mapping

from citeledger.model import Identifier

from .arxiv import ArxivProvider
from .doi import DoiProvider
from .isbn import IsbnProvider
from .providers import FileProvider, Provider, UrlProvider, bad

_ALL: tuple[Provider, ...] = (
    UrlProvider(),
    FileProvider(),
    DoiProvider(),
    ArxivProvider(),
    IsbnProvider(),
)
PROVIDERS: Mapping[str, Provider] = {p.kind: p for p in _ALL}


def provider_for(identifier: Identifier) -> Provider:
    try:
        return PROVIDERS[identifier.kind]
    except KeyError:
        raise bad(identifier, f"unknown identifier kind {identifier.kind!r}") from None
