"""Which addresses retrieval may connect to, checked on the IP that is actually dialled.

The check lives in the network backend underneath httpx, so it runs for every connection the pool
opens — the first request, each redirect hop, each retry — on the address then connected to, not
on URL text that DNS can re-point at an internal service (rebinding). It must never resolve a name
twice (check one answer, dial another), never let a refused address reach ``connect()``, and never
route through an environment proxy (which would dial on our behalf, unchecked).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

import anyio
import httpcore
import httpx

from citeledger.errors import RefusedAddress, RetrievalError

from .config import RetrieveConfig

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Awaitable[Sequence[str]]]
"""``async (host, port) -> [ip, …]``; raises ``socket.gaierror`` when the name does not exist."""

ALLOW_FIX = "pass --allow-private to contact private, loopback or link-local hosts"

_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_ULA = ipaddress.ip_network("fc00::/7")
_ALWAYS_REFUSED = frozenset({"unspecified", "multicast", "broadcast"})


def parse_ip(text: str) -> IPAddress | None:
    """An IP literal (brackets and IPv6 zone ids tolerated), or None for a host name."""
    text = text.strip().strip("[]")
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    if "%" in text:  # fe80::1%eth0
        try:
            return ipaddress.ip_address(text.split("%", 1)[0])
        except ValueError:
            return None
    return None


def address_class(ip: IPAddress) -> str | None:
    """Why this address is not on the public internet, or None when it is globally routable.

    Addresses that embed an IPv4 address (IPv4-mapped, NAT64, 6to4, Teredo) are judged by the
    embedded one, so ``::ffff:10.0.0.1`` is as private as ``10.0.0.1``.
    """
    if isinstance(ip, ipaddress.IPv6Address):
        embedded: ipaddress.IPv4Address | None = ip.ipv4_mapped or ip.sixtofour
        if embedded is None and ip in _NAT64:
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is None and ip.teredo:
            embedded = ip.teredo[1]
        if embedded is not None:
            return address_class(embedded)
    if ip.is_unspecified:
        return "unspecified"
    if ip.is_multicast:
        return "multicast"
    if isinstance(ip, ipaddress.IPv4Address) and ip == ipaddress.IPv4Address("255.255.255.255"):
        return "broadcast"
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link-local"
    if isinstance(ip, ipaddress.IPv6Address) and ip in _ULA:
        return "unique-local"
    if isinstance(ip, ipaddress.IPv4Address) and ip in _CGNAT:
        return "shared (carrier-grade NAT)"
    if ip.is_reserved:
        return "reserved"
    if ip.is_private:
        return "private"
    if not ip.is_global:
        return "reserved"
    return None


def refusal(host: str, ips: Iterable[str], allow_private: bool) -> RefusedAddress | None:
    """The refusal for connecting to ``host`` at these addresses, or None when all are allowed.

    One refused answer refuses the name: a name that resolves to both a public and an internal
    address is exactly what a rebinding attack looks like.
    """
    for text in ips:
        ip = parse_ip(text)
        if ip is None:
            return RefusedAddress(f"refused address: {host} resolved to a non-IP answer {text!r}")
        why = address_class(ip)
        if why is None:
            continue
        if why in _ALWAYS_REFUSED:
            return RefusedAddress(f"refused address: {host} is {ip} ({why}), never contacted")
        if not allow_private:
            shown = str(ip) if parse_ip(host) is not None else f"{host} resolves to {ip}"
            return RefusedAddress(f"refused address: {shown} ({why})", fix=ALLOW_FIX)
    return None


async def system_resolver(host: str, port: int) -> list[str]:
    """The operating system's resolver, every answer, in its order, without duplicates."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    seen: list[str] = []
    for _family, _type, _proto, _canon, sockaddr in infos:
        ip = str(sockaddr[0])
        if ip not in seen:
            seen.append(ip)
    return seen


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """Resolve once, refuse internal answers, then dial exactly the IPs that were checked.

    TLS still verifies the certificate against the host name: httpcore passes the origin's name as
    ``server_hostname`` to ``start_tls`` on the stream returned here.
    """

    def __init__(
        self,
        allow_private: bool,
        resolver: Resolver | None = None,
        inner: httpcore.AsyncNetworkBackend | None = None,
    ) -> None:
        self.allow_private = allow_private
        self.resolver: Resolver = resolver or system_resolver
        self.inner = inner or httpcore.AnyIOBackend()
        self.dialled: list[tuple[str, str, int]] = []  # (host, ip, port), for tests and audits

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        literal = parse_ip(host)
        ips = [str(literal)] if literal is not None else await self._resolve(host, port, timeout)
        refused = refusal(host, ips, self.allow_private)
        if refused is not None:
            raise refused
        last: Exception | None = None
        for ip in ips:
            try:
                stream = await self.inner.connect_tcp(
                    ip,
                    port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except httpcore.ConnectError as exc:
                last = exc
                continue
            self.dialled.append((host, ip, port))
            return stream
        assert last is not None
        raise last

    async def _resolve(self, host: str, port: int, timeout: float | None) -> list[str]:
        try:
            with anyio.fail_after(timeout):
                ips = list(await self.resolver(host, port))
        except TimeoutError:
            raise httpcore.ConnectTimeout(f"timed out resolving {host}") from None
        except socket.gaierror as exc:
            if exc.errno == socket.EAI_AGAIN:
                raise RetrievalError(
                    f"host not found: {host} (temporary DNS failure)", kind="dns"
                ) from None
            raise RetrievalError(f"host not found: {host}", kind="dns") from None
        except OSError as exc:
            raise RetrievalError(f"host not found: {host} ({exc})", kind="dns") from None
        if not ips:
            raise RetrievalError(f"host not found: {host}", kind="dns")
        return ips

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise RefusedAddress("refused address: unix sockets are never used for retrieval")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


def ssl_context(config: RetrieveConfig) -> ssl.SSLContext:
    """The system/certifi trust store, plus the configured extra bundle; never the env's."""
    ctx = httpx.create_ssl_context(trust_env=False)
    if config.ca_bundle:
        ctx.load_verify_locations(cafile=config.ca_bundle)
    return ctx


def guarded_transport(
    config: RetrieveConfig,
    *,
    resolver: Resolver | None = None,
    backend: httpcore.AsyncNetworkBackend | None = None,
) -> httpx.AsyncHTTPTransport:
    """An httpx transport whose every connection goes through :class:`GuardedBackend`.

    httpx offers no public hook for the network backend, so the pool it built is given ours; if a
    future httpx no longer has that pool, this raises rather than run without the check.
    """
    transport = httpx.AsyncHTTPTransport(
        verify=ssl_context(config),
        trust_env=False,
        limits=config.limits,
        http1=True,
        http2=False,
    )
    pool = getattr(transport, "_pool", None)
    if not isinstance(pool, httpcore.AsyncConnectionPool) or not hasattr(pool, "_network_backend"):
        raise RuntimeError("httpx internals changed: cannot install the address check")
    pool._network_backend = GuardedBackend(
        config.allow_private, resolver=resolver, inner=backend or pool._network_backend
    )
    return transport
