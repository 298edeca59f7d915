"""Running a batch of retrievals concurrently and courteously, reporting each as it finishes.

One client per run (connection reuse), a global and a per-host limit, and ``on_done`` called the
moment an outcome exists, so verify can write receipts incrementally and an interrupt loses
nothing that finished. A DOI's landing page that links the work's full text leads to one more GET,
made here under the same client, address checks, caps and limits, and the full text becomes the
evidence (the landing page when that GET fails, with the reason in ``fulltext_error``). It must
never raise for anything the network does (each request ends in an outcome), and never start a
request it was not given, other than that one full-text GET the plan announces.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
from collections.abc import Awaitable, Callable, Sequence
from contextlib import suppress
from typing import Any
from urllib.parse import urlsplit

import httpcore
import httpx

from citeledger.errors import RetrievalError
from citeledger.model import Identifier, Retrieval

from .address import Resolver, guarded_transport
from .config import RetrieveConfig
from .fulltext import FulltextLink, is_html, rejection
from .http import Courtesy, Failed, Fetched, client_for, get, utc_now
from .outcome import FetchOutcome, FetchRequest
from .providers import METADATA, TEXT, Provider
from .registry import provider_for

OnDone = Callable[[FetchOutcome], Awaitable[None] | None]


async def fetch_all(
    requests: Sequence[FetchRequest | Identifier],
    config: RetrieveConfig | None = None,
    *,
    on_done: OnDone | None = None,
    resolver: Resolver | None = None,
    backend: httpcore.AsyncNetworkBackend | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    keep: bool = True,
) -> list[FetchOutcome]:
    """Retrieve every request; outcomes come back in the order of ``requests``.

    ``keep=False`` returns nothing and holds no outcome after its ``on_done``: a caller that
    handles each outcome there (verify) then never holds every body of a large run at once.
    Local files are read a window at a time, each held until its ``on_done`` has returned.

    ``on_done(outcome)`` (sync or async) runs as each finishes; if it raises, the rest are
    cancelled and the exception propagates. ``resolver`` and ``backend`` replace DNS and the
    socket layer under the address check (tests); ``transport`` replaces the whole transport —
    and with it the address check — so it is for mock transports only.
    """
    config = config or RetrieveConfig()
    reqs = [r if isinstance(r, FetchRequest) else FetchRequest(r) for r in requests]
    if not reqs:
        return []
    _remember_absent_sniffio()
    results: list[FetchOutcome | None] = [None] * len(reqs)
    courtesy = Courtesy(config)
    chosen = transport or guarded_transport(config, resolver=resolver, backend=backend)
    # Bodies held at once, fetched and not yet handed over: when ``on_done`` is slower than the
    # network (extraction, evidence writes), fetching waits for it, and memory stays flat in N.
    window = asyncio.Semaphore(max(16, 4 * config.concurrency))
    async with client_for(config, chosen) as client:

        async def run(i: int, req: FetchRequest) -> None:
            async with window:
                outcome = await fetch_one(client, req, config, courtesy)
                if keep:
                    results[i] = outcome
                if on_done is not None:
                    done = on_done(outcome)
                    if inspect.isawaitable(done):
                        await done

        # Started host by host in turn: the window's places, taken in this order, are not all
        # held by one host's requests waiting on its per-host limit while other hosts idle.
        tasks = [asyncio.create_task(run(i, reqs[i])) for i in _interleaved(reqs)]
        try:
            await asyncio.gather(*tasks)
        finally:
            for t in tasks:
                if not t.done():
                    t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    return [r for r in results if r is not None]


def _remember_absent_sniffio() -> None:
    """httpcore asks ``import sniffio`` four times a request; absent (anyio 4 no longer needs
    it), each ask searched ``sys.path`` again: ~0.1 ms a request, a tenth of a bare loop's.
    ``None`` in ``sys.modules`` makes the import fail at once, as it would after the search."""
    import importlib.util
    import sys

    if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
        sys.modules["sniffio"] = None  # type: ignore[assignment]


def _interleaved(reqs: Sequence[FetchRequest]) -> list[int]:
    """The requests' indexes, one per host in turn (a URL's host; other kinds by kind)."""
    from itertools import chain, zip_longest

    by_host: dict[str, list[int]] = {}
    for i, req in enumerate(reqs):
        ident = req.identifier
        host = ""
        if ident.kind == "url":
            with suppress(ValueError):  # a malformed address is fetch_one's to report
                host = urlsplit(ident.value).hostname or ""
        by_host.setdefault(f"{ident.kind} {host}", []).append(i)
    rounds = zip_longest(*by_host.values())
    return [i for i in chain.from_iterable(rounds) if i is not None]


def fetch_all_sync(
    requests: Sequence[FetchRequest | Identifier],
    config: RetrieveConfig | None = None,
    **kw: Any,
) -> list[FetchOutcome]:
    """``fetch_all`` for callers without an event loop (the CLI)."""
    return asyncio.run(fetch_all(requests, config, **kw))


async def fetch_one(
    client: httpx.AsyncClient, req: FetchRequest, config: RetrieveConfig, courtesy: Courtesy
) -> FetchOutcome:
    try:
        return await _fetch_one(client, req, config, courtesy)
    except RetrievalError as exc:
        return FetchOutcome(req, error=exc, retrieved_at=utc_now())
    except Exception as exc:  # a bug must still end in an outcome the writer can read
        err = RetrievalError(f"unexpected failure: {type(exc).__name__}: {exc}", kind="failed")
        return FetchOutcome(req, error=err, retrieved_at=utc_now())


async def _fetch_one(
    client: httpx.AsyncClient, req: FetchRequest, config: RetrieveConfig, courtesy: Courtesy
) -> FetchOutcome:
    provider = provider_for(req.identifier)
    if provider.local or req.local_copy is not None:
        if req.local_copy is not None:
            retrieval = await asyncio.to_thread(read_local_copy, req, config)
        else:
            retrieval = await asyncio.to_thread(
                provider.read_local, req.identifier, req.root, req.allow_files_outside, config
            )
        return FetchOutcome(
            req,
            retrieval=retrieval,
            requested_url=retrieval.requested_url,
            url=retrieval.url,
            status=retrieval.status,
            retrieved_at=retrieval.retrieved_at,
        )
    calls = provider.calls(req.identifier, config)
    text_call = next((c for c in calls if c.purpose == TEXT), None)
    meta_call = next((c for c in calls if c.purpose == METADATA), None)
    if not config.fetch_metadata:
        meta_call = None
    # A landing page that may lead to the full text is asked for unconditionally: its body is
    # needed to find the link, and the previous receipt's validators may be the full text's.
    follows = text_call is not None and text_call.may_follow is not None
    cookies = httpx.Cookies() if follows else None

    async def nothing() -> None:
        return None

    text, meta = await asyncio.gather(
        get(
            client,
            text_call.url,
            config=config,
            courtesy=courtesy,
            accept=text_call.accept,
            conditional=None if follows else req.conditional_headers(),
            cookies=cookies,
        )
        if text_call
        else nothing(),
        get(client, meta_call.url, config=config, courtesy=courtesy, accept=meta_call.accept)
        if meta_call
        else nothing(),
    )
    metadata, metadata_error = _metadata(provider, req.identifier, meta)
    common: dict[str, Any] = {"metadata": metadata, "metadata_error": metadata_error}
    if text is None:
        reason = provider.no_text_reason or "no text to retrieve"
        return FetchOutcome(
            req,
            error=RetrievalError(reason, kind="no-text"),
            retrieved_at=meta.retrieved_at if meta is not None else utc_now(),
            **common,
        )
    common.update(
        requested_url=text.requested_url,
        url=text.url,
        redirects=text.redirects,
        attempts=text.attempts,
        waited=text.waited,
        retrieved_at=text.retrieved_at,
    )
    if isinstance(text, Failed):
        return FetchOutcome(req, error=text.error, status=text.status, **common)
    common.update(
        status=text.status, etag=text.header("etag"), last_modified=text.header("last-modified")
    )
    if text.not_modified:
        return FetchOutcome(req, not_modified=True, **common)
    if follows:
        link = provider.fulltext_link(text)
        if link is not None:
            return await _fulltext(client, req, config, courtesy, text, link, cookies, common)
        if is_html(text):
            common["fulltext_error"] = NO_LINK
    return FetchOutcome(req, retrieval=_retrieval(req, text, metadata), **common)


def read_local_copy(req: FetchRequest, config: RetrieveConfig) -> Retrieval:
    """The writer's local copy of the work, read as a ``file:`` source is (same confinement,
    caps and errors), recorded under the source's own identifier: nothing is sent for it,
    not even the registry's metadata."""
    assert req.local_copy is not None
    local = Identifier("file", req.local_copy)
    try:
        read = provider_for(local).read_local(local, req.root, req.allow_files_outside, config)
    except RetrievalError as exc:
        raise RetrievalError(
            f"the local copy {req.local_copy}: {exc.message}", kind=exc.kind, fix=exc.fix
        ) from None
    return dataclasses.replace(read, identifier=req.identifier, local_copy=req.local_copy)


NO_LINK = (
    "the landing page links no full text (no citation_pdf_url, citation_fulltext_html_url "
    "or PDF alternate link): the evidence is the landing page"
)


async def _fulltext(
    client: httpx.AsyncClient,
    req: FetchRequest,
    config: RetrieveConfig,
    courtesy: Courtesy,
    landing: Fetched,
    link: FulltextLink,
    cookies: httpx.Cookies | None,
    common: dict[str, Any],
) -> FetchOutcome:
    """One more GET, under the same client, checks and limits: the full text, or the landing."""
    conditional = req.conditional_headers()
    if _validators_of(landing, req):  # the previous evidence was this landing page itself
        conditional = {}
    full = await get(
        client,
        link.url,
        config=config,
        courtesy=courtesy,
        accept=link.accept,
        conditional=conditional,
        cookies=cookies,
    )
    common.update(
        fulltext_url=link.url,
        attempts=landing.attempts + full.attempts,
        waited=landing.waited + full.waited,
    )
    if isinstance(full, Failed):
        problem: str | None = full.error.message
    elif full.not_modified:
        problem = None
    else:
        problem = rejection(link, full, landing.url)
    if isinstance(full, Failed) or problem is not None:
        common["fulltext_error"] = (
            f"the full text at {link.url} ({link.source}) was not used: {problem}; "
            "the evidence is the landing page"
        )
        return FetchOutcome(req, retrieval=_retrieval(req, landing, common["metadata"]), **common)
    # DOI → the publisher's redirects → the landing page → the full text's own redirects.
    chain = (*landing.redirects, landing.url, *full.redirects)
    common.update(
        url=full.url,
        redirects=chain,
        status=full.status,
        etag=full.header("etag"),
        last_modified=full.header("last-modified"),
        retrieved_at=full.retrieved_at,
    )
    if full.not_modified:
        return FetchOutcome(req, not_modified=True, **common)
    retrieval = _retrieval(
        req, full, common["metadata"], requested_url=landing.requested_url, redirects=chain
    )
    return FetchOutcome(req, retrieval=retrieval, **common)


def _validators_of(fetched: Fetched, req: FetchRequest) -> bool:
    """Whether the request's validators are this response's own (its ETag or Last-Modified)."""
    etag, modified = fetched.header("etag"), fetched.header("last-modified")
    return bool(
        (req.etag and etag and req.etag.strip() == etag.strip())
        or (req.last_modified and modified and req.last_modified.strip() == modified.strip())
    )


def _retrieval(
    req: FetchRequest,
    fetched: Fetched,
    metadata: Any,
    *,
    requested_url: str | None = None,
    redirects: tuple[str, ...] | None = None,
) -> Retrieval:
    return Retrieval(
        identifier=req.identifier,
        requested_url=requested_url or fetched.requested_url,
        url=fetched.url,
        status=fetched.status,
        content_type=fetched.content_type,
        body=fetched.body,
        retrieved_at=fetched.retrieved_at,
        request_headers=fetched.request_headers,
        response_headers=fetched.response_headers,
        redirects=fetched.redirects if redirects is None else redirects,
        protocol=fetched.protocol,
        metadata=metadata,
    )


def _metadata(
    provider: Provider, identifier: Identifier, meta: Fetched | Failed | None
) -> tuple[Any, RetrievalError | None]:
    if meta is None:
        return None, None
    if isinstance(meta, Failed):
        return None, meta.error
    if meta.not_modified:  # never asked conditionally; treat as nothing said
        return None, RetrievalError("metadata: unexpected HTTP 304", kind="metadata")
    try:
        return provider.parse_metadata(identifier, meta), None
    except RetrievalError as exc:
        return None, exc
