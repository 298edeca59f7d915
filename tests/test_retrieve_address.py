"""The address policy: internal destinations are refused on the IP actually dialled.

Every refusal here is provoked with a stubbed resolver or a literal address and asserted to
happen before any connection: the network guard fails the test if anything tried to leave
loopback, and the loopback server's connection count proves nothing reached it either.
"""

from __future__ import annotations

import asyncio
import ipaddress

import httpcore
import httpx
import pytest

from citeledger.errors import RefusedAddress
from citeledger.model import Identifier
from citeledger.retrieve import RetrieveConfig, address_class, fetch_all_sync, plan
from citeledger.retrieve.address import GuardedBackend, refusal
from netserver import NetServer, StandInBackend, StubResolver

pytestmark = pytest.mark.usefixtures("loopback_only")

PUBLIC = "93.184.216.34"  # a globally routable address; only ever handed to StandInBackend


def cfg(**kw: object) -> RetrieveConfig:
    base: dict[str, object] = {
        "timeout": httpx.Timeout(2.0, connect=1.0),
        "backoff_base": 0.01,
        "backoff_cap": 0.02,
        "deadline": 5.0,
    }
    base.update(kw)
    return RetrieveConfig(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("ip", "why"),
    [
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("172.31.255.254", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local"),
        ("169.254.0.1", "link-local"),
        ("127.0.0.1", "loopback"),
        ("127.8.9.10", "loopback"),
        ("::1", "loopback"),
        ("fd00::1", "unique-local"),
        ("fc12:3456::1", "unique-local"),
        ("fe80::1", "link-local"),
        ("::ffff:10.0.0.1", "private"),  # IPv4-mapped
        ("::ffff:169.254.169.254", "link-local"),
        ("64:ff9b::a00:1", "private"),  # NAT64 of 10.0.0.1
        ("2002:a00:1::1", "private"),  # 6to4 of 10.0.0.1
        ("100.64.0.1", "shared (carrier-grade NAT)"),
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("224.0.0.1", "multicast"),
        ("192.0.2.1", "private"),  # documentation range: not global either way
        ("240.0.0.1", "reserved"),
    ],
)
def test_internal_addresses_are_classified(ip: str, why: str) -> None:
    assert address_class(ipaddress.ip_address(ip)) == why


@pytest.mark.parametrize("ip", ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111", "8.8.8.8"])
def test_public_addresses_pass(ip: str) -> None:
    assert address_class(ipaddress.ip_address(ip)) is None
    assert refusal("example.org", [ip], allow_private=False) is None


def test_one_internal_answer_refuses_the_name() -> None:
    refused = refusal("mixed.test", [PUBLIC, "10.0.0.7"], allow_private=False)
    assert isinstance(refused, RefusedAddress)
    assert refused.message == "refused address: mixed.test resolves to 10.0.0.7 (private)"
    assert "--allow-private" in (refused.fix or "")


def test_allow_private_allows_internal_but_never_unspecified_or_multicast() -> None:
    assert refusal("h", ["10.0.0.1", "127.0.0.1", "169.254.169.254", "fd00::1"], True) is None
    assert refusal("h", ["0.0.0.0"], True) is not None
    assert refusal("h", ["224.0.0.1"], True) is not None


class _Recording(httpcore.AsyncNetworkBackend):
    """An inner backend that must never be reached when the check refuses."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):  # type: ignore[no-untyped-def]
        self.calls.append(host)
        raise httpcore.ConnectError("the test backend never connects")


@pytest.mark.parametrize(
    "answer",
    [
        "10.0.0.5",
        "172.20.1.1",
        "192.168.0.10",
        "169.254.169.254",
        "127.0.0.1",
        "::1",
        "fd12::34",
        "fe80::1%eth0",
        "::ffff:192.168.0.1",
        [PUBLIC, "10.9.9.9"],
    ],
)
def test_guarded_backend_refuses_resolved_internal_answers_before_dialling(answer: object) -> None:
    inner = _Recording()
    backend = GuardedBackend(False, resolver=StubResolver({"rebind.test": answer}), inner=inner)
    with pytest.raises(RefusedAddress) as info:
        asyncio.run(backend.connect_tcp("rebind.test", 443, timeout=1.0))
    assert info.value.kind == "refused-address"
    assert info.value.message.startswith("refused address: rebind.test resolves to ")
    assert inner.calls == []


def test_guarded_backend_dials_exactly_the_checked_ip() -> None:
    inner = _Recording()
    resolver = StubResolver({"site.test": [PUBLIC]})
    backend = GuardedBackend(False, resolver=resolver, inner=inner)
    with pytest.raises(httpcore.ConnectError):
        asyncio.run(backend.connect_tcp("site.test", 80, timeout=1.0))
    assert inner.calls == [PUBLIC]  # the IP that was checked, never the name again
    assert resolver.calls == ["site.test"]  # one lookup: no window for a second answer


def test_loopback_url_without_allow_private_is_refused_before_any_connection(
    netserver: NetServer,
) -> None:
    netserver.static("/page", b"<p>secret admin page</p>")
    [out] = fetch_all_sync([Identifier("url", netserver.url("/page"))], cfg())
    assert out.kind == "refused-address"
    assert out.error is not None
    assert out.error.message == "refused address: 127.0.0.1 (loopback)"
    assert "--allow-private" in (out.reason or "")
    assert netserver.connections == 0
    assert netserver.requests == []


def test_name_resolving_to_loopback_is_refused_without_allow_private(
    netserver: NetServer,
) -> None:
    """DNS rebinding: the URL names an innocent host; its answer is the machine itself."""
    netserver.static("/page", b"<p>internal</p>")
    resolver = StubResolver({"innocent.test": "127.0.0.1"})
    [out] = fetch_all_sync(
        [Identifier("url", netserver.url("/page", host="innocent.test"))], cfg(), resolver=resolver
    )
    assert out.kind == "refused-address"
    assert out.error is not None
    assert out.error.message == "refused address: innocent.test resolves to 127.0.0.1 (loopback)"
    assert netserver.connections == 0


def test_rebinding_between_lookups_is_caught_on_the_second_connection(
    netserver: NetServer,
) -> None:
    """First answer public, later answer internal: each new connection is checked anew."""
    netserver.static("/one", b"one")
    netserver.redirect("/hop", netserver.url("/two", host="flip.test"))
    resolver = StubResolver(
        {
            "site.test": PUBLIC,
            "flip.test": lambda n: PUBLIC if n == 1 else "10.0.0.8",
        }
    )
    stand_in = StandInBackend()
    first = fetch_all_sync(
        [Identifier("url", netserver.url("/one", host="flip.test"))],
        cfg(),
        resolver=resolver,
        backend=stand_in,  # type: ignore[arg-type]
    )
    assert first[0].ok
    second = fetch_all_sync(
        [Identifier("url", netserver.url("/hop", host="site.test"))],
        cfg(),
        resolver=resolver,
        backend=stand_in,  # type: ignore[arg-type]
    )
    assert second[0].kind == "refused-address"
    assert second[0].error is not None
    assert "flip.test resolves to 10.0.0.8 (private)" in second[0].error.message
    assert [r.path for r in netserver.requests] == ["/one", "/hop"]


@pytest.mark.parametrize(
    "target",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/admin",
        "http://[::1]:8080/",
        "http://[fd00::1]/",
        "http://internal.test/secret",  # resolves to 192.168.1.20
    ],
)
def test_every_redirect_hop_is_checked(netserver: NetServer, target: str) -> None:
    netserver.redirect("/start", target)
    stand_in = StandInBackend()
    resolver = StubResolver({"public.test": PUBLIC, "internal.test": "192.168.1.20"})
    [out] = fetch_all_sync(
        [Identifier("url", netserver.url("/start", host="public.test"))],
        cfg(),
        resolver=resolver,
        backend=stand_in,  # type: ignore[arg-type]
    )
    assert out.kind == "refused-address"
    assert out.redirects == (netserver.url("/start", host="public.test"),)
    assert stand_in.dialled == [(PUBLIC, netserver.port)]  # only the public first hop
    assert [r.path for r in netserver.requests] == ["/start"]


def test_dns_failure_is_host_not_found() -> None:
    [out] = fetch_all_sync(
        [Identifier("url", "https://no-such-host.test/paper")],
        cfg(),
        resolver=StubResolver({}),
    )
    assert out.kind == "dns"
    assert out.reason == "host not found: no-such-host.test"


def test_allow_private_lets_a_stubbed_name_reach_the_loopback_server(
    netserver: NetServer,
) -> None:
    netserver.static("/p", b"<p>fine</p>")
    resolver = StubResolver({"intranet.test": "127.0.0.1"})
    [out] = fetch_all_sync(
        [Identifier("url", netserver.url("/p", host="intranet.test"))],
        cfg(allow_private=True),
        resolver=resolver,
    )
    assert out.ok and out.retrieval is not None
    assert out.retrieval.body == b"<p>fine</p>"
    assert netserver.requests[0].host == "intranet.test"  # TLS/Host still use the name


def test_plan_refuses_literal_internal_addresses_without_any_lookup() -> None:
    p = plan(
        [
            Identifier("url", "http://169.254.169.254/latest/meta-data/"),
            Identifier("url", "http://[fe80::1]/x"),
            Identifier("url", "https://example.org/ok"),
        ],
        cfg(),
    )
    assert [str(i) for i, _ in p.refused] == [
        "url:http://169.254.169.254/latest/meta-data/",
        "url:http://[fe80::1]/x",
    ]
    assert p.hosts() == {"example.org": 1}
