"""The network as it really is, against a real loopback server: each fault ends in its reason.

A writer sees these reasons in the callout of an ``unretrievable`` citation, so each is asserted
word for word, with its ``kind`` (what verify branches on). Timeouts are short so the file runs
in seconds; no assertion depends on how long anything took.
"""

from __future__ import annotations

import socket

import httpx
import pytest

from citeledger.model import Identifier
from citeledger.retrieve import FetchOutcome, FetchRequest, RetrieveConfig, fetch_all_sync
from netserver import NetServer, Reply, StubResolver, unaccepting_port

pytestmark = pytest.mark.usefixtures("loopback_only")


def cfg(**kw: object) -> RetrieveConfig:
    base: dict[str, object] = {
        "allow_private": True,  # the test server is on loopback
        "timeout": httpx.Timeout(1.0, connect=0.5),
        "max_attempts": 3,
        "backoff_base": 0.01,
        "backoff_cap": 0.02,
        "deadline": 5.0,
    }
    base.update(kw)
    return RetrieveConfig(**base)  # type: ignore[arg-type]


def fetch(url: str, config: RetrieveConfig | None = None, **kw: object) -> FetchOutcome:
    [out] = fetch_all_sync([Identifier("url", url)], config or cfg(), **kw)  # type: ignore[arg-type]
    return out


def failed(out: FetchOutcome, kind: str, reason: str) -> None:
    assert not out.ok, f"expected {kind}, got a body"
    assert (out.kind, out.reason) == (kind, reason)


# --- success and what is sent -----------------------------------------------------------------


def test_a_page_is_retrieved_with_everything_the_evidence_needs(netserver: NetServer) -> None:
    netserver.static("/p", b"<html><p>The words.</p></html>", headers=[("X-Test", "1")])
    out = fetch(netserver.url("/p"))
    r = out.retrieval
    assert r is not None
    assert r.body == b"<html><p>The words.</p></html>"
    assert r.status == 200 and r.content_type == "text/html; charset=utf-8"
    assert r.url == r.requested_url == netserver.url("/p")
    assert ("X-Test", "1") in r.response_headers
    assert r.protocol == "HTTP/1.1" and not r.reconstructed
    assert r.retrieved_at.endswith("Z")
    sent = dict(r.request_headers)
    assert sent["User-Agent"] == "citeledger/0.1.0"
    seen = netserver.requests[0]
    assert seen.header("user-agent") == "citeledger/0.1.0"
    assert seen.header("accept-encoding") == "gzip, deflate, br"
    assert seen.header("cookie") is None


def test_user_agent_carries_the_contact_address(netserver: NetServer) -> None:
    netserver.static("/p", b"x")
    fetch(netserver.url("/p"), cfg(mailto="editor@example.org"))
    ua = netserver.requests[0].header("user-agent")
    assert ua == "citeledger/0.1.0 (+mailto:editor@example.org)"


def test_connections_are_reused(netserver: NetServer) -> None:
    for i in range(4):
        netserver.static(f"/p{i}", b"x" * 100)
    outs = fetch_all_sync(
        [Identifier("url", netserver.url(f"/p{i}")) for i in range(4)],
        cfg(per_host_concurrency=1),
    )
    assert all(o.ok for o in outs)
    assert netserver.connections == 1


# --- statuses ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "kind", "reason"),
    [
        (404, "not-found", "not found (HTTP 404)"),
        (410, "not-found", "not found (HTTP 410)"),
        (401, "refused", "refused (HTTP 401)"),
        (403, "refused", "refused (HTTP 403)"),
        (451, "refused", "refused (HTTP 451)"),
        (501, "server-error", "server error (HTTP 501)"),
        (418, "http-error", "unexpected response (HTTP 418)"),
    ],
)
def test_final_statuses(netserver: NetServer, code: int, kind: str, reason: str) -> None:
    netserver.status("/x", code)
    out = fetch(netserver.url("/x"))
    failed(out, kind, reason)
    assert out.status == code
    assert len(netserver.requests) == 1  # not retried


def test_429_with_retry_after_is_obeyed_then_succeeds(netserver: NetServer) -> None:
    netserver.flaky("/x", fail=429, times=2, retry_after="0", then=b"welcome")
    out = fetch(netserver.url("/x"))
    assert out.retrieval is not None and out.retrieval.body == b"welcome"
    assert out.attempts == 3
    assert len(netserver.requests) == 3


def test_retry_after_seconds_are_waited(netserver: NetServer) -> None:
    netserver.flaky("/x", fail=503, times=1, retry_after="1", then=b"ok")
    out = fetch(netserver.url("/x"))
    assert out.ok
    assert out.waited == 1.0  # the server's value, not our backoff


def test_503_gives_up_after_max_attempts(netserver: NetServer) -> None:
    netserver.flaky("/x", fail=503, times=99, retry_after="0")
    out = fetch(netserver.url("/x"), cfg(max_attempts=4))
    failed(out, "unavailable", "unavailable (HTTP 503): gave up after 4 attempts")
    assert len(netserver.requests) == 4


def test_429_gives_up_with_backoff_when_no_retry_after(netserver: NetServer) -> None:
    netserver.flaky("/x", fail=429, times=99, retry_after=None)
    out = fetch(netserver.url("/x"), cfg(max_attempts=3))
    failed(out, "rate-limited", "rate limited (HTTP 429): gave up after 3 attempts")
    assert len(netserver.requests) == 3
    assert 0 < out.waited <= 0.04  # two backoffs, each within the cap


def test_retry_after_beyond_the_cap_is_given_up_at_once(netserver: NetServer) -> None:
    netserver.flaky("/x", fail=429, times=99, retry_after="3600")
    out = fetch(netserver.url("/x"), cfg(retry_after_cap=30))
    failed(
        out,
        "rate-limited",
        "rate limited (HTTP 429): the server asks to wait 3600 s, "
        "more than the 30 s this run allows",
    )
    assert len(netserver.requests) == 1
    assert out.waited == 0


def test_retry_after_as_an_http_date_in_the_past_means_now(netserver: NetServer) -> None:
    netserver.flaky("/x", fail=503, times=1, retry_after="Wed, 21 Oct 2015 07:28:00 GMT")
    out = fetch(netserver.url("/x"))
    assert out.ok and out.waited == 0


def test_other_5xx_are_retried_then_reported(netserver: NetServer) -> None:
    netserver.flaky("/x", fail=502, times=99, retry_after=None)
    out = fetch(netserver.url("/x"), cfg(max_attempts=2))
    failed(out, "server-error", "server error (HTTP 502): gave up after 2 attempts")
    netserver.flaky("/y", fail=500, times=1, retry_after=None, then=b"recovered")
    assert fetch(netserver.url("/y")).ok


# --- redirects --------------------------------------------------------------------------------


def test_redirect_chain_is_followed_and_recorded(netserver: NetServer) -> None:
    final = netserver.redirect_chain("/r", 3, b"the end")
    out = fetch(netserver.url("/r"))
    assert out.retrieval is not None and out.retrieval.body == b"the end"
    assert out.retrieval.url == netserver.url(final)
    assert out.retrieval.requested_url == netserver.url("/r")
    assert out.retrieval.redirects == (
        netserver.url("/r"),
        netserver.url("/r/1"),
        netserver.url("/r/2"),
    )


def test_cross_host_redirect_is_recorded(netserver: NetServer) -> None:
    netserver.redirect("/doi/10.1/x", netserver.url("/article", host="publisher.test"), 302)
    netserver.static("/article", b"<p>article</p>")
    resolver = StubResolver({"resolver.test": "127.0.0.1", "publisher.test": "127.0.0.1"})
    out = fetch(netserver.url("/doi/10.1/x", host="resolver.test"), resolver=resolver)
    assert out.retrieval is not None
    assert out.retrieval.redirects == (netserver.url("/doi/10.1/x", host="resolver.test"),)
    assert out.retrieval.url == netserver.url("/article", host="publisher.test")
    assert [r.host for r in netserver.requests] == ["resolver.test", "publisher.test"]


def test_too_many_redirects(netserver: NetServer) -> None:
    netserver.redirect_chain("/r", 5, b"never")
    failed(
        fetch(netserver.url("/r"), cfg(max_redirects=4)),
        "redirect",
        "too many redirects (more than 4)",
    )
    assert len(netserver.requests) == 5  # the 5th Location is not followed
    assert fetch(netserver.url("/r"), cfg(max_redirects=5)).ok


def test_redirect_loop_is_named(netserver: NetServer) -> None:
    netserver.redirect_loop("/a", "/b")
    out = fetch(netserver.url("/a"))
    a, b = netserver.url("/a"), netserver.url("/b")
    failed(out, "redirect", f"redirect loop: {a} → {b} → {a}")


def test_cookie_check_redirect_to_the_same_url_is_not_a_loop(netserver: NetServer) -> None:
    """Publishers set a cookie and redirect to the same URL; this retrieval's jar allows it."""

    def handler(req):  # type: ignore[no-untyped-def]
        if req.header("cookie") == "session=1":
            return Reply(body=b"<p>article</p>")
        return Reply(302, b"", [("Location", "/art"), ("Set-Cookie", "session=1; Path=/")])

    netserver.route("/art", handler)
    out = fetch(netserver.url("/art"))
    assert out.retrieval is not None and out.retrieval.body == b"<p>article</p>"
    # ...and the cookie never travels to the next, unrelated retrieval.
    fetch(netserver.url("/art"))
    assert netserver.requests[2].header("cookie") is None


def test_redirect_without_location_and_to_other_schemes(netserver: NetServer) -> None:
    netserver.route("/nowhere", Reply(301, b"", [], None))
    failed(fetch(netserver.url("/nowhere")), "redirect", "redirect without a Location (HTTP 301)")
    netserver.redirect("/ftp", "ftp://files.test/paper.pdf")
    failed(
        fetch(netserver.url("/ftp")),
        "redirect",
        f"redirect to an unsupported scheme (ftp:) from {netserver.url('/ftp')} — only http(s) "
        "pages are retrieved; cite the page's own http(s) address, or a file: identifier for a "
        "local copy",
    )
    netserver.redirect("/file", "file:///etc/passwd")
    assert fetch(netserver.url("/file")).kind == "redirect"


# --- timeouts ---------------------------------------------------------------------------------


def test_read_timeout(netserver: NetServer) -> None:
    netserver.delay("/slow", 3.0)
    out = fetch(netserver.url("/slow"), cfg(timeout=httpx.Timeout(0.3, connect=0.5)))
    failed(out, "timeout", "timed out waiting for 127.0.0.1 (no data for 0.3 s)")


def test_connect_timeout() -> None:
    with unaccepting_port() as port:
        out = fetch(f"http://127.0.0.1:{port}/", cfg(timeout=httpx.Timeout(1.0, connect=0.3)))
    failed(out, "timeout", "timed out connecting to 127.0.0.1 after 0.3 s")


def test_a_slow_drip_is_cut_by_the_deadline(netserver: NetServer) -> None:
    netserver.drip("/drip", [b"x"] * 100, interval=0.1)  # never idle long enough to time out
    out = fetch(netserver.url("/drip"), cfg(deadline=0.5))
    failed(out, "timeout", "timed out: no complete response from 127.0.0.1 within 0.5 s")


def test_connection_refused_is_reported_after_retries() -> None:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    out = fetch(f"http://127.0.0.1:{port}/", cfg(max_attempts=2))
    failed(
        out,
        "connection",
        "could not connect to 127.0.0.1: connection refused (gave up after 2 attempts)",
    )


# --- bodies -----------------------------------------------------------------------------------


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "deflate-raw", "br", ["gzip", "br"]])
def test_content_encodings_are_decoded(netserver: NetServer, encoding: object) -> None:
    text = "<p>Ünïcode survives décompression. " * 200 + "</p>"
    netserver.encoded("/e", text.encode(), encoding)  # type: ignore[arg-type]
    out = fetch(netserver.url("/e"))
    assert out.retrieval is not None
    assert out.retrieval.body.decode() == text
    assert out.retrieval.content_type == "text/html; charset=utf-8"  # charset passed through


def test_gzip_bomb_stops_at_the_decompression_cap(netserver: NetServer) -> None:
    netserver.gzip_bomb("/bomb", 256 * 1024 * 1024)
    out = fetch(netserver.url("/bomb"), cfg(max_decompressed_bytes=5_000_000))
    failed(out, "too-large", "too large when decompressed (> 5 MB)")


def test_body_cap_is_enforced_from_the_announced_length(netserver: NetServer) -> None:
    netserver.static("/big", b"x" * 20_000)
    out = fetch(netserver.url("/big"), cfg(max_body_bytes=10_000))
    failed(out, "too-large", "too large (> 10 kB; the server announces 20 kB)")


def test_body_cap_is_enforced_while_streaming(netserver: NetServer) -> None:
    netserver.route("/big", Reply(body=[b"x" * 4096] * 10, chunked=True))
    out = fetch(netserver.url("/big"), cfg(max_body_bytes=10_000))
    failed(out, "too-large", "too large (> 10 kB)")


def test_default_body_cap_reads_fifty_megabytes() -> None:
    assert RetrieveConfig().max_body_bytes == 50_000_000
    assert RetrieveConfig().max_redirects == 10


def test_content_length_lie_is_a_truncated_body(netserver: NetServer) -> None:
    netserver.truncated("/t", b"x" * 300, claimed=1000)
    failed(
        fetch(netserver.url("/t")),
        "truncated",
        "truncated body (connection closed after 300 of 1000 bytes)",
    )


def test_connection_dropped_mid_chunked_body(netserver: NetServer) -> None:
    netserver.route("/t", Reply(body=[b"a" * 100, b"b" * 100], chunked=True, drop_after=150))
    failed(
        fetch(netserver.url("/t")),
        "truncated",
        "truncated body (connection closed after 150 bytes)",
    )


def test_a_cut_compressed_stream_is_truncated_not_silently_short(netserver: NetServer) -> None:
    import zlib

    comp = zlib.compressobj(6, zlib.DEFLATED, 31)
    whole = comp.compress(b"<p>" + b"words " * 5000 + b"</p>") + comp.flush()
    netserver.route(
        "/cut",
        Reply(body=whole[: len(whole) // 2], headers=[("Content-Encoding", "gzip")]),
    )
    failed(fetch(netserver.url("/cut")), "truncated", "truncated body (the gzip stream ends early)")


def test_corrupt_and_unknown_encodings(netserver: NetServer) -> None:
    netserver.route("/bad", Reply(body=b"not gzip at all", headers=[("Content-Encoding", "gzip")]))
    out = fetch(netserver.url("/bad"))
    assert out.kind == "decode"
    assert out.reason is not None and out.reason.startswith("corrupt compressed body (gzip): ")
    netserver.route("/zst", Reply(body=b"....", headers=[("Content-Encoding", "zstd")]))
    failed(
        fetch(netserver.url("/zst")),
        "decode",
        "cannot decode the body: unsupported content encoding 'zstd'",
    )


@pytest.mark.parametrize(
    ("declared", "body", "expected"),
    [
        ("text/html", b"%PDF-1.7\n...", "application/pdf"),  # a PDF served as a page
        (None, b"%PDF-1.4\n...", "application/pdf"),
        ("application/octet-stream", b"<!DOCTYPE html><p>x", "text/html"),
        ("application/pdf", b"<html><form>Log in</form></html>", "text/html"),  # a login page
        (None, b"plain words", "text/plain"),
        ("text/html; charset=iso-8859-1", b"<p>caf\xe9</p>", "text/html; charset=iso-8859-1"),
    ],
)
def test_content_type_is_sniffed_only_when_wrong_or_missing(
    netserver: NetServer, declared: str | None, body: bytes, expected: str
) -> None:
    netserver.static("/c", body, content_type=declared)
    out = fetch(netserver.url("/c"))
    assert out.retrieval is not None
    assert out.retrieval.content_type == expected
    if declared:
        assert ("Content-Type", declared) in out.retrieval.response_headers  # truth kept


# --- TLS --------------------------------------------------------------------------------------


def test_untrusted_certificate_is_a_tls_error(tls_netserver: NetServer) -> None:
    tls_netserver.static("/p", b"secret")
    out = fetch(tls_netserver.url("/p"))
    failed(out, "tls", "TLS error: certificate verify failed: self-signed certificate")
    assert tls_netserver.requests == []


def test_trusted_certificate_works_over_tls(tls_netserver: NetServer) -> None:
    tls_netserver.static("/p", b"<p>over TLS</p>")
    out = fetch(tls_netserver.url("/p"), cfg(ca_bundle=tls_netserver.cert_file))
    assert out.retrieval is not None and out.retrieval.body == b"<p>over TLS</p>"


def test_https_to_a_plain_http_server_is_a_tls_error(netserver: NetServer) -> None:
    netserver.static("/p", b"x")
    out = fetch(netserver.url("/p").replace("http://", "https://"))
    assert out.kind == "tls"
    assert out.reason is not None and out.reason.startswith("TLS error: ")


# --- conditional requests ---------------------------------------------------------------------


def test_conditional_request_gets_not_modified(netserver: NetServer) -> None:
    doc = netserver.document("/doc", b"<p>version one</p>")
    first = fetch(netserver.url("/doc"))
    assert first.ok and first.etag == doc.etag and first.last_modified == doc.last_modified
    req = FetchRequest(
        Identifier("url", netserver.url("/doc")), etag=first.etag, last_modified=first.last_modified
    )
    [again] = fetch_all_sync([req], cfg())
    assert again.not_modified and again.retrieval is None and again.error is None
    assert again.status == 304 and again.etag == doc.etag
    seen = netserver.requests[-1]
    assert seen.header("if-none-match") == doc.etag
    assert seen.header("if-modified-since") == doc.last_modified


def test_changed_document_is_fetched_again_in_full(netserver: NetServer) -> None:
    doc = netserver.document("/doc", b"<p>version one</p>")
    first = fetch(netserver.url("/doc"))
    doc.update(b"<p>version two</p>")
    [again] = fetch_all_sync(
        [FetchRequest(Identifier("url", netserver.url("/doc")), etag=first.etag)], cfg()
    )
    assert again.retrieval is not None and again.retrieval.body == b"<p>version two</p>"
    assert again.etag == doc.etag != first.etag


def test_if_modified_since_alone(netserver: NetServer) -> None:
    doc = netserver.document("/doc", b"<p>one</p>")
    req = FetchRequest(Identifier("url", netserver.url("/doc")), last_modified=doc.last_modified)
    [out] = fetch_all_sync([req], cfg())
    assert out.not_modified


def test_unconditional_304_is_an_error(netserver: NetServer) -> None:
    netserver.route("/w", Reply(304, b"", content_type=None))
    failed(
        fetch(netserver.url("/w")),
        "http-error",
        "unexpected HTTP 304 (not modified) to an unconditional request",
    )


def test_documents_that_change_between_requests(netserver: NetServer) -> None:
    netserver.changing("/c", [b"<p>first</p>", b"<p>second</p>"])
    bodies = [fetch(netserver.url("/c")).retrieval.body for _ in range(3)]  # type: ignore[union-attr]
    assert bodies == [b"<p>first</p>", b"<p>second</p>", b"<p>second</p>"]


def test_a_mock_transport_can_stand_in_for_the_network() -> None:
    """For tests of callers (verify): no sockets at all, same outcomes."""

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/gone":
            return httpx.Response(410)
        return httpx.Response(200, content=b"<p>mocked</p>", headers={"Content-Type": "text/html"})

    outs = fetch_all_sync(
        [Identifier("url", "https://example.org/p"), Identifier("url", "https://example.org/gone")],
        cfg(allow_private=False),
        transport=httpx.MockTransport(handler),
    )
    assert outs[0].retrieval is not None and outs[0].retrieval.body == b"<p>mocked</p>"
    assert (outs[1].kind, outs[1].reason) == ("not-found", "not found (HTTP 410)")
