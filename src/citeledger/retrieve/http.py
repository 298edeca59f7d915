"""One GET as the network really behaves: manual redirects, retries, bounded bodies, exact reasons.

Redirects are followed here, not by httpx, so every hop is recorded, loops and over-long chains are
named, and each hop's connection passes the address check again (``address.GuardedBackend``).
Every failure becomes a ``RetrievalError`` whose message a writer can act on. It must never send
anything but the URL and the fixed headers built here (no quote, no document text, no cookies
from another retrieval), never read a body past its caps, and never wait longer than the server's
Retry-After within the configured cap.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import ssl
import sys
import time
from collections import defaultdict
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass
from datetime import timezone
from http.cookiejar import CookieJar, DefaultCookiePolicy
from typing import TypeVar
from urllib.parse import urlsplit

import httpx

from citeledger.errors import RetrievalError
from citeledger.evidence.store import utc_now as utc_now  # the one clock of stored times

from .address import parse_ip, refusal
from .body import BodyReader, accept_encoding, effective_content_type, human_size
from .config import RetrieveConfig

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
T = TypeVar("T")
NO_COOKIES = DefaultCookiePolicy(allowed_domains=[])  # the shared client remembers nothing


@dataclass(frozen=True)
class Fetched:
    """A final response: 2xx with its bounded, decoded body, or a 304 to a conditional request."""

    requested_url: str
    url: str
    status: int
    content_type: str | None  # declared, corrected only by unambiguous magic bytes
    body: bytes
    retrieved_at: str
    request_headers: tuple[tuple[str, str], ...]
    response_headers: tuple[tuple[str, str], ...]
    redirects: tuple[str, ...]  # every URL that answered with a redirect, in order
    protocol: str
    attempts: int
    waited: float  # seconds slept for Retry-After/backoff

    @property
    def not_modified(self) -> bool:
        return self.status == 304

    def header(self, name: str) -> str | None:
        name = name.lower()
        for k, v in self.response_headers:
            if k.lower() == name:
                return v
        return None


@dataclass(frozen=True)
class Failed:
    """A retrieval that ended in an error, with how far it got."""

    error: RetrievalError
    requested_url: str
    url: str  # where it ended
    status: int | None
    redirects: tuple[str, ...]
    attempts: int
    waited: float
    retrieved_at: str


class Courtesy:
    """The run's shared limits: a global semaphore and one per host, created on first use."""

    def __init__(self, config: RetrieveConfig) -> None:
        self.config = config
        self.total = asyncio.Semaphore(config.concurrency)
        self._hosts: defaultdict[str, asyncio.Semaphore] = defaultdict(
            lambda: asyncio.Semaphore(config.per_host_concurrency)
        )

        self._next: dict[str, float] = {}
        self._pace: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)

    def host(self, name: str) -> asyncio.Semaphore:
        return self._hosts[name.lower()]

    async def pace(self, name: str) -> float:
        """Wait until ``name`` may be asked again (``host_intervals``); returns seconds waited."""
        name = name.lower()
        interval = self.config.host_intervals.get(name)
        if not interval:
            return 0.0
        loop = asyncio.get_running_loop()
        async with self._pace[name]:
            wait = max(0.0, self._next.get(name, 0.0) - loop.time())
            if wait:
                await asyncio.sleep(wait)
            self._next[name] = loop.time() + interval
            return wait


def base_headers(config: RetrieveConfig, accept: str) -> dict[str, str]:
    """Everything we say besides the URL. Nothing here may come from the writer's text."""
    return {
        "User-Agent": config.user_agent,
        "Accept": accept,
        "Accept-Encoding": accept_encoding(),
    }


def status_error(status: int, attempts: int) -> RetrievalError:
    tries = f"gave up after {attempts} attempt{'s' if attempts != 1 else ''}"
    if status in (404, 410):
        return RetrievalError(f"not found (HTTP {status})", kind="not-found")
    if status in (401, 403, 407, 451):
        return RetrievalError(f"refused (HTTP {status})", kind="refused")
    if status == 429:
        return RetrievalError(f"rate limited (HTTP 429): {tries}", kind="rate-limited")
    if status == 503:
        return RetrievalError(f"unavailable (HTTP 503): {tries}", kind="unavailable")
    if status in RETRY_STATUSES:
        return RetrievalError(f"server error (HTTP {status}): {tries}", kind="server-error")
    if 500 <= status < 600:
        return RetrievalError(f"server error (HTTP {status})", kind="server-error")
    if status == 304:
        return RetrievalError(
            "unexpected HTTP 304 (not modified) to an unconditional request", kind="http-error"
        )
    return RetrievalError(f"unexpected response (HTTP {status})", kind="http-error")


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """Retry-After as seconds from now (delta-seconds or an HTTP date), or None if absent/bad."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def backoff_delay(config: RetrieveConfig, attempt: int) -> float:
    """Exponential with jitter: half fixed, half random, never above the cap."""
    delay = min(config.backoff_cap, config.backoff_base * (2 ** (attempt - 1)))
    return float(delay / 2 + random.uniform(0, delay / 2))


def _in_chain(exc: BaseException, kind: type[BaseException]) -> bool:
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, kind):
            return True
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return False


def _tls_reason(exc: BaseException) -> str | None:
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, ssl.SSLCertVerificationError):
            detail = cur.verify_message or cur.reason or "failed"
            return f"TLS error: certificate verify failed: {detail}"
        if isinstance(cur, ssl.SSLError):
            reason = cur.reason or str(cur)
            return f"TLS error: {str(reason).lower().replace('_', ' ')}"
        cur = cur.__cause__ or cur.__context__
    text = str(exc)
    if "SSL" in text or "TLS" in text or "certificate" in text:
        return f"TLS error: {text}"
    return None


def transport_error(
    exc: Exception, host: str, config: RetrieveConfig
) -> tuple[RetrievalError, bool]:
    """The reason for an httpx transport failure, and whether retrying might help."""
    timeout = config.timeout
    if isinstance(exc, RetrievalError):
        return exc, False
    if isinstance(exc, httpx.ConnectTimeout):
        after = f" after {timeout.connect:g} s" if timeout.connect else ""
        return RetrievalError(f"timed out connecting to {host}{after}", kind="timeout"), False
    if isinstance(exc, httpx.ReadTimeout):
        after = f" (no data for {timeout.read:g} s)" if timeout.read else ""
        return RetrievalError(f"timed out waiting for {host}{after}", kind="timeout"), False
    if isinstance(exc, httpx.TimeoutException):
        return RetrievalError(f"timed out talking to {host}", kind="timeout"), False
    tls = _tls_reason(exc)
    if tls is not None:
        return RetrievalError(tls, kind="tls"), False
    if isinstance(exc, httpx.ConnectError):
        detail = str(exc) or type(exc).__name__
        if _in_chain(exc, ConnectionRefusedError) or "refused" in detail.lower():
            detail = "connection refused"
        elif _in_chain(exc, ConnectionResetError):
            detail = "connection reset"
        return RetrievalError(f"could not connect to {host}: {detail}", kind="connection"), True
    if isinstance(exc, httpx.RemoteProtocolError) and "buffer too long" in str(exc):
        return (
            RetrievalError(
                f"{host} sent response headers too large to read (over h11's 16 KiB per "
                "header block) — the server is misbehaving; try again later or cite another copy",
                kind="too-large",
            ),
            False,
        )
    if isinstance(exc, httpx.RemoteProtocolError):
        return (
            RetrievalError(
                f"{host} closed the connection without a valid response: {exc}", kind="connection"
            ),
            True,
        )
    if isinstance(exc, httpx.ReadError | httpx.WriteError):
        return RetrievalError(
            f"connection to {host} failed: {exc or 'reset'}", kind="connection"
        ), True
    if isinstance(exc, httpx.UnsupportedProtocol | httpx.InvalidURL):
        return RetrievalError(f"not a retrievable URL: {exc}", kind="bad-identifier"), False
    if isinstance(exc, httpx.HTTPError):
        return RetrievalError(f"HTTP failure talking to {host}: {exc}", kind="failed"), False
    raise exc


CREDENTIALS_REFUSED = (
    "carries a user name or password: refused, nothing was sent to it (citeledger never sends "
    "credentials, and never stores them in a receipt or the evidence)"
)


def public_url(url: httpx.URL) -> httpx.URL:
    """``url`` without its user-info: what may be shown, stored or linked."""
    return url.copy_with(username=None, password=None) if url.userinfo else url


def _next_url(current: httpx.URL, location: str) -> httpx.URL:
    nxt = current.join(location.strip())
    return nxt.copy_with(fragment=None)


def _unsupported_scheme(location: str, current: httpx.URL) -> RetrievalError | None:
    """A redirect to ``javascript:``, ``data:``, ``file:``, ``ftp:``…: refused, never followed.

    Only the scheme is named: the rest of such a URL is the server's text (a script, a page).
    """
    scheme = urlsplit(location.strip()).scheme.lower()
    if not scheme or scheme in ("http", "https"):
        return None
    if not scheme.isascii() or not scheme.replace("+", "").replace("-", "").isalnum():
        scheme = "a non-web"
    return RetrievalError(
        f"redirect to an unsupported scheme ({scheme}:) from {current} — only http(s) pages are "
        "retrieved; cite the page's own http(s) address, or a file: identifier for a local copy",
        kind="redirect",
    )


class _Redirect(Exception):
    def __init__(self, location: str, status: int) -> None:
        self.location = location
        self.status = status


class _HopFailed(Exception):
    def __init__(self, error: RetrievalError, status: int | None) -> None:
        self.error = error
        self.status = status


@dataclass
class _Progress:
    attempts: int = 0
    waited: float = 0.0


async def get(
    client: httpx.AsyncClient,
    url: str,
    *,
    config: RetrieveConfig,
    courtesy: Courtesy,
    accept: str,
    conditional: Mapping[str, str] | None = None,
    cookies: httpx.Cookies | None = None,
) -> Fetched | Failed:
    """GET ``url`` following redirects by hand; never raises for anything the network does.

    ``cookies`` is the retrieval's own jar, shared only by the GETs of one retrieval (a DOI's
    landing page and its full text: publishers often set a session cookie the PDF link needs);
    by default each GET starts empty.
    """
    headers = base_headers(config, accept)
    if conditional:
        headers.update(conditional)
    if cookies is None:  # this retrieval's own jar: publishers' cookie-check redirects work
        cookies = httpx.Cookies()
    redirects: list[str] = []
    progress = _Progress()
    try:
        current = httpx.URL(url)
    except httpx.InvalidURL as exc:
        err = RetrievalError(f"not a retrievable URL: {exc}", kind="bad-identifier")
        return Failed(err, url, url, None, (), 0, 0.0, utc_now())
    if current.userinfo:  # httpx would send it as an Authorization header
        shown = str(public_url(current))
        err = RetrievalError(f"the URL {CREDENTIALS_REFUSED}", kind="bad-identifier")
        return Failed(err, shown, shown, None, (), 0, 0.0, utc_now())
    seen = {(str(current), "")}
    status: int | None = None
    async with courtesy.total:
        while True:
            try:
                return await _hop(
                    client,
                    current,
                    headers,
                    cookies,
                    config,
                    courtesy,
                    progress,
                    tuple(redirects),
                    url,
                )
            except _Redirect as r:
                status = r.status
                problem = _unsupported_scheme(r.location, current)
                try:
                    nxt = current if problem else _next_url(current, r.location)
                except httpx.InvalidURL as exc:
                    problem = RetrievalError(f"redirect to an invalid URL: {exc}", kind="redirect")
                    nxt = current
                redirects.append(str(current))
                jar = "; ".join(f"{c.name}={c.value}" for c in cookies.jar)
                key = (str(nxt), jar)
                if problem is None and nxt.userinfo:
                    nxt = public_url(nxt)
                    problem = RetrievalError(
                        f"redirect from {current} to a URL that {CREDENTIALS_REFUSED}",
                        kind="redirect",
                    )
                if problem is None:
                    problem = _unsupported_scheme(str(nxt), current)
                if problem is None and key in seen:
                    loop_from = next((i for i, u in enumerate(redirects) if u == str(nxt)), 0)
                    chain = " → ".join([*redirects[loop_from:], str(nxt)])
                    problem = RetrievalError(f"redirect loop: {chain}", kind="redirect")
                elif problem is None and len(redirects) > config.max_redirects:
                    problem = RetrievalError(
                        f"too many redirects (more than {config.max_redirects})",
                        kind="redirect",
                    )
                if problem is not None:
                    return Failed(
                        problem,
                        url,
                        str(nxt),
                        status,
                        tuple(redirects),
                        progress.attempts,
                        progress.waited,
                        utc_now(),
                    )
                seen.add(key)
                current = nxt
            except _HopFailed as f:
                return Failed(
                    f.error,
                    url,
                    str(current),
                    f.status,
                    tuple(redirects),
                    progress.attempts,
                    progress.waited,
                    utc_now(),
                )


async def _hop(
    client: httpx.AsyncClient,
    url: httpx.URL,
    headers: Mapping[str, str],
    cookies: httpx.Cookies,
    config: RetrieveConfig,
    courtesy: Courtesy,
    progress: _Progress,
    redirects: tuple[str, ...],
    requested: str,
) -> Fetched:
    """One URL, retried per policy. Raises _Redirect or _HopFailed; returns a final response."""
    host = url.host
    literal = parse_ip(host)
    if literal is not None:  # refuse before even touching the pool; the backend checks again
        refused = refusal(host, [str(literal)], config.allow_private)
        if refused is not None:
            raise _HopFailed(refused, None)
    attempt = 0
    async with courtesy.host(host):  # held while backing off: a host that asked us to slow
        while True:  # down does not get our other requests meanwhile
            attempt += 1
            progress.attempts += 1
            progress.waited += await courtesy.pace(host)
            try:
                result = await _within(
                    config.deadline,
                    _exchange(
                        client, url, headers, cookies, config, redirects, requested, progress
                    ),
                )
            except asyncio.TimeoutError:
                err = RetrievalError(
                    f"timed out: no complete response from {host} within {config.deadline:g} s",
                    kind="timeout",
                )
                raise _HopFailed(err, None) from None
            if isinstance(result, Fetched):
                return result
            error, status, retry_after, retryable = result
            if not retryable or attempt >= config.max_attempts:
                if status is not None and status in RETRY_STATUSES:
                    error = status_error(status, attempt)
                elif retryable and attempt > 1:
                    error = RetrievalError(
                        f"{error.message} (gave up after {attempt} attempts)", kind=error.kind
                    )
                raise _HopFailed(error, status)
            if retry_after is not None and retry_after > config.retry_after_cap:
                word = "rate limited" if status == 429 else "unavailable"
                err = RetrievalError(
                    f"{word} (HTTP {status}): the server asks to wait {retry_after:g} s, "
                    f"more than the {config.retry_after_cap:g} s this run allows",
                    kind="rate-limited" if status == 429 else "unavailable",
                )
                raise _HopFailed(err, status)
            delay = retry_after if retry_after is not None else backoff_delay(config, attempt)
            progress.waited += delay
            await asyncio.sleep(delay)


async def _within(seconds: float, exchange: Awaitable[T]) -> T:
    """``exchange`` under a deadline (``asyncio.TimeoutError`` when it passes): on Python 3.11+
    in the caller's own task, not a task of its own per request as ``wait_for`` makes."""
    if sys.version_info >= (3, 11):
        async with asyncio.timeout(seconds):
            return await exchange
    return await asyncio.wait_for(exchange, seconds)  # pragma: no cover - Python 3.10


async def _exchange(
    client: httpx.AsyncClient,
    url: httpx.URL,
    headers: Mapping[str, str],
    cookies: httpx.Cookies,
    config: RetrieveConfig,
    redirects: tuple[str, ...],
    requested: str,
    progress: _Progress,
) -> Fetched | tuple[RetrievalError, int | None, float | None, bool]:
    """Send once and read the body; a failure is returned with (status, retry-after, retryable)."""
    host = url.host
    request = client.build_request("GET", url, headers=headers)
    if len(cookies.jar):  # an empty jar adds no header: its urllib round trip is skipped
        cookies.set_cookie_header(request)
    try:
        response = await client.send(request, stream=True, follow_redirects=False)
    except _Redirect:
        raise
    except Exception as exc:  # every transport failure gets a reason, never a traceback
        error, retryable = transport_error(exc, host, config)
        return error, None, None, retryable
    try:
        if "set-cookie" in response.headers:  # nothing to keep otherwise
            cookies.extract_cookies(response)
        status = response.status_code
        if status in REDIRECT_STATUSES:
            location = response.headers.get("location")
            if not location:
                err = RetrievalError(
                    f"redirect without a Location (HTTP {status})", kind="redirect"
                )
                return err, status, None, False
            await _drain(response)
            raise _Redirect(location, status)
        if status == 304 and any(k.lower().startswith("if-") for k in headers):
            return _final(response, request, b"", requested, redirects, progress)
        if not 200 <= status < 300:
            retry_after = None
            if status in (429, 503):
                retry_after = retry_after_seconds(response.headers.get("retry-after"))
            await _drain(response)
            return status_error(status, 1), status, retry_after, status in RETRY_STATUSES
        body = await _read_body(response, host, config)
        return _final(response, request, body, requested, redirects, progress)
    except RetrievalError as exc:
        return exc, None, None, False
    finally:
        await response.aclose()


async def _drain(response: httpx.Response, limit: int = 64 * 1024) -> None:
    """Read a small unwanted body (a redirect's, an error page) so the connection is reused."""
    declared = response.headers.get("content-length", "")
    if declared.strip().isdigit() and int(declared) > limit:
        return
    seen = 0
    try:
        async for chunk in response.aiter_raw():
            seen += len(chunk)
            if seen > limit:
                return
    except (httpx.HTTPError, httpx.StreamError):
        return


async def _read_body(response: httpx.Response, host: str, config: RetrieveConfig) -> bytes:
    declared = response.headers.get("content-length")
    length: int | None = None
    if declared is not None and declared.strip().isdigit():
        length = int(declared)
        if length > config.max_body_bytes:
            raise RetrievalError(
                f"too large (> {human_size(config.max_body_bytes)}; "
                f"the server announces {human_size(length)})",
                kind="too-large",
            )
    reader = BodyReader(
        response.headers.get("content-encoding"),
        config.max_body_bytes,
        config.max_decompressed_bytes,
    )
    try:
        async for chunk in response.aiter_raw():
            reader.feed(chunk)
    except httpx.StreamConsumed:
        # A response built in memory (httpx.MockTransport) arrives already read and decoded.
        reader = BodyReader(None, config.max_body_bytes, config.max_decompressed_bytes)
        reader.feed(response.content)
        return reader.finish()
    except (httpx.RemoteProtocolError, httpx.ReadError) as exc:
        got = reader.raw_bytes
        of = f" of {length}" if length is not None else ""
        tls = _tls_reason(exc)
        if tls is not None:
            raise RetrievalError(tls, kind="tls") from None
        raise RetrievalError(
            f"truncated body (connection closed after {got}{of} bytes)", kind="truncated"
        ) from None
    except httpx.ReadTimeout:
        after = f" (no data for {config.timeout.read:g} s)" if config.timeout.read else ""
        raise RetrievalError(
            f"timed out reading the body from {host}{after}", kind="timeout"
        ) from None
    if length is not None and reader.raw_bytes != length:
        raise RetrievalError(
            f"truncated body (received {reader.raw_bytes} of {length} bytes)", kind="truncated"
        )
    return reader.finish()


def _final(
    response: httpx.Response,
    request: httpx.Request,
    body: bytes,
    requested: str,
    redirects: tuple[str, ...],
    progress: _Progress,
) -> Fetched:
    declared = response.headers.get("content-type")
    content_type = (
        declared if response.status_code == 304 else effective_content_type(declared, body)
    )
    return Fetched(
        requested_url=requested,
        url=str(response.url),
        status=response.status_code,
        content_type=content_type,
        body=body,
        retrieved_at=utc_now(),
        request_headers=tuple(
            (k.decode("latin-1"), v.decode("latin-1")) for k, v in request.headers.raw
        ),
        response_headers=tuple(
            (k.decode("latin-1"), v.decode("latin-1")) for k, v in response.headers.raw
        ),
        redirects=redirects,
        protocol=response.http_version,
        attempts=progress.attempts,
        waited=progress.waited,
    )


def client_for(config: RetrieveConfig, transport: httpx.AsyncBaseTransport) -> httpx.AsyncClient:
    """The run's one client: connection reuse, no env proxies, no shared cookie memory."""
    return httpx.AsyncClient(
        transport=transport,
        timeout=config.timeout,
        follow_redirects=False,
        trust_env=False,
        cookies=httpx.Cookies(CookieJar(policy=NO_COOKIES)),
        headers={"User-Agent": config.user_agent},
        event_hooks={"response": [_non_web_redirect]},
    )


async def _non_web_redirect(response: httpx.Response) -> None:
    """httpx parses every Location even when not following it, and a ``javascript:`` one fails
    as an invalid URL of *our* request; hand such a redirect to :func:`get` as what it is."""
    if response.status_code in REDIRECT_STATUSES:
        location = response.headers.get("location") or ""
        if _unsupported_scheme(location, response.request.url) is not None:
            await response.aclose()
            raise _Redirect(location, response.status_code)
