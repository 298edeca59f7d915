"""Retrieval settings for a run against the loopback server (``netserver``), shared by the
retrieve tests: short timeouts and backoffs, private addresses allowed (the server is on
127.0.0.1), and every provider's base URL pointed at the server when one is given."""

from __future__ import annotations

import httpx

from citeledger.retrieve import RetrieveConfig
from netserver import NetServer


def cfg(server: NetServer | None = None, **kw: object) -> RetrieveConfig:
    base: dict[str, object] = {
        "allow_private": True,
        "timeout": httpx.Timeout(2.0, connect=1.0),
        "backoff_base": 0.01,
        "backoff_cap": 0.02,
        "deadline": 5.0,
    }
    if server is not None:
        base.update(
            doi_base=server.url("/doi/"),
            arxiv_base=server.url("/arxiv/"),
            arxiv_api_base=server.url("/api/"),
            isbn_base=server.url("/ol/"),
        )
    base.update(kw)
    return RetrieveConfig(**base)  # type: ignore[arg-type]
