"""The batch: concurrency limits, incremental results, the plan, settings — and what leaves.

The last of these is rule 9/13 of the design seeds: verifying sends the identifier and nothing of
the writer's composition. It is checked on the bytes the server received, for every provider.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import threading

import pytest

from citeledger.errors import CiteledgerError
from citeledger.model import Identifier, Quote, Source
from citeledger.retrieve import (
    CSL_JSON,
    ENV_VARS,
    FetchOutcome,
    FetchRequest,
    RetrieveConfig,
    fetch_all,
    fetch_all_sync,
    plan,
)
from netserver import NetServer, Reply, Seen, StubResolver
from retrieve_util import cfg

pytestmark = pytest.mark.usefixtures("loopback_only")


# --- only identifiers leave -------------------------------------------------------------------

QUOTE = (
    "An appeal against a declined subsidence claim must be received within 60 days of the "
    "date of the decision letter."
)
DOCUMENT = "Handlers have sixty days to appeal, as the manual says [@hchm, p. 14]."
ALLOWED_HEADERS = {
    "host",
    "connection",
    "user-agent",
    "accept",
    "accept-encoding",
    "if-none-match",
    "if-modified-since",
    "cookie",
}


def serve_everything(server: NetServer) -> None:
    server.static("/page", b"<html><p>" + QUOTE.encode() + b"</p></html>")
    # a DOI's landing page that links its full text: one more request, which must say no more
    server.static(
        "/landing",
        b'<html><head><meta name="citation_pdf_url" content="/fulltext.pdf"></head>'
        b"<body><p>" + QUOTE.encode() + b"</p></body></html>",
    )
    server.static("/fulltext.pdf", b"%PDF-1.4\n" + QUOTE.encode(), content_type="application/pdf")

    def resolver(req: Seen) -> Reply:
        if CSL_JSON in (req.header("accept") or ""):
            return Reply(body=json.dumps({"title": "Manual"}).encode(), content_type=CSL_JSON)
        return Reply(302, b"", [("Location", "/landing")], None)

    server.route("/doi/", resolver, prefix=True)
    server.route(
        "/arxiv/pdf/", Reply(body=b"%PDF-1.4\n", content_type="application/pdf"), prefix=True
    )
    server.route("/api/", Reply(body=b"<feed xmlns='http://www.w3.org/2005/Atom'/>"), prefix=True)
    server.route("/ol/", Reply(body=b"{}", content_type="application/json"), prefix=True)


def test_no_request_carries_the_quote_or_the_document(netserver: NetServer) -> None:
    serve_everything(netserver)
    sources = [
        Source(
            "hchm",
            Identifier("url", netserver.url("/page")),
            {"title": "Manual"},
            (Quote(QUOTE, locator="p. 14"),),
        ),
        Source("d", Identifier("doi", "10.5555/manual.7"), {}, (Quote(QUOTE),)),
        Source("a", Identifier("arxiv", "2101.00001v1"), {}, (Quote(QUOTE),)),
        Source("b", Identifier("isbn", "978-0-306-40615-7"), {}, (Quote(QUOTE),)),
    ]
    # what verify does: one request per source, built from the identifier (and validators)
    reqs = [FetchRequest(s.identifier, key=s.key, etag='"v1"') for s in sources]
    outs = fetch_all_sync(reqs, cfg(netserver, mailto="me@example.org"))
    assert [o.ok for o in outs] == [True, True, True, False]
    assert outs[1].url == netserver.url("/fulltext.pdf") and outs[1].fulltext_error is None
    seen = netserver.requests
    # url 1; doi 2, one redirected to /landing, which links /fulltext.pdf (4); arxiv 2; isbn 1
    assert len(seen) == 8
    assert [r.path for r in seen].count("/fulltext.pdf") == 1
    forbidden = [
        QUOTE,
        DOCUMENT,
        "subsidence",
        "decision letter",
        "sixty days",
        hashlib.sha256(QUOTE.encode()).hexdigest(),
        "p. 14",
        "p.%2014",
        "hchm",
    ]
    for req in seen:
        raw = req.raw.decode("latin-1").lower()
        for text in forbidden:
            assert text.lower() not in raw, f"{text!r} leaked in {req.method} {req.path}"
        assert req.method == "GET" and req.body == b""
        assert {k.lower() for k, _ in req.headers} <= ALLOWED_HEADERS


def test_a_fetch_request_cannot_carry_prose() -> None:
    """The interface itself: the only strings are the identifier, validators, a file root and
    the path of the writer's local copy (read from disk; a request with one sends nothing)."""
    names = {f.name for f in dataclasses.fields(FetchRequest)}
    assert names == {
        "identifier",
        "key",
        "etag",
        "last_modified",
        "root",
        "allow_files_outside",
        "local_copy",
    }


def test_the_key_is_never_sent(netserver: NetServer) -> None:
    netserver.static("/p", b"x")
    fetch_all_sync(
        [FetchRequest(Identifier("url", netserver.url("/p")), key="secret-draft-key")], cfg()
    )
    assert b"secret-draft-key" not in netserver.requests[0].raw


# --- the plan ---------------------------------------------------------------------------------


def test_plan_states_hosts_counts_and_what_is_sent() -> None:
    idents = [
        Identifier("doi", "10.5555/abc"),
        Identifier("arxiv", "2101.00001v2"),
        Identifier("url", "https://example.org/a"),
        Identifier("url", "https://example.org/b"),
        Identifier("isbn", "978-0-306-40615-7"),
        Identifier("file", "docs/manual.pdf"),
        Identifier("doi", "doi:10.5555/abc"),
    ]
    p = plan(idents, RetrieveConfig(mailto="me@example.org"))
    assert p.hosts() == {
        "doi.org": 2,
        "arxiv.org": 1,
        "export.arxiv.org": 1,
        "example.org": 2,
        "openlibrary.org": 1,
    }
    assert p.request_count == 7
    assert p.local == (Identifier("file", "docs/manual.pdf"),)
    assert [str(i) for i, _ in p.invalid] == ["doi:doi:10.5555/abc"]
    assert p.sends_only_identifiers
    text = p.describe()
    assert text.splitlines()[0] == "Retrieval plan: 7 requests to 5 hosts (before redirects)."
    assert "  doi.org           2 requests" in text
    assert "Never sent: your quotes, notes or document text." in text
    assert "citeledger/0.1.0 (+mailto:me@example.org)" in text
    assert "GET https://arxiv.org/pdf/2101.00001v2" in text
    assert "are refused" in text and "--allow-private" in text
    assert "Read from disk, no network: 1 file." in text


def test_plan_matches_what_is_fetched(netserver: NetServer) -> None:
    serve_everything(netserver)
    idents = [Identifier("url", netserver.url("/page")), Identifier("arxiv", "2101.00001")]
    config = cfg(netserver)
    planned = [c.url for c in plan(idents, config).calls]
    fetch_all_sync(idents, config)
    assert sorted(netserver.url(r.path) for r in netserver.requests) == sorted(planned)


def test_plan_without_metadata() -> None:
    p = plan([Identifier("doi", "10.5555/abc")], RetrieveConfig(fetch_metadata=False))
    assert p.request_count == 1 and p.calls[0].purpose == "text"


# --- concurrency ------------------------------------------------------------------------------


def test_per_host_limit(netserver: NetServer) -> None:
    netserver.barrier("/b", parties=2, reply=Reply(body=b"x"))
    resolver = StubResolver({"a.test": "127.0.0.1"})
    idents = [Identifier("url", netserver.url(f"/b?n={i}", host="a.test")) for i in range(6)]
    outs = fetch_all_sync(idents, cfg(per_host_concurrency=2, concurrency=8), resolver=resolver)
    assert all(o.ok for o in outs)
    assert netserver.max_in_flight("a.test") == 2


def test_global_limit_across_hosts(netserver: NetServer) -> None:
    netserver.barrier("/b", parties=3, reply=Reply(body=b"x"))
    names = ["a.test", "b.test", "c.test"]
    resolver = StubResolver({n: "127.0.0.1" for n in names})
    idents = [
        Identifier("url", netserver.url(f"/b?n={i}", host=n)) for i in range(2) for n in names
    ]
    outs = fetch_all_sync(idents, cfg(per_host_concurrency=2, concurrency=3), resolver=resolver)
    assert all(o.ok for o in outs)
    assert netserver.max_in_flight() == 3
    assert all(netserver.max_in_flight(n) <= 2 for n in names)


def test_limit_of_one_serialises_a_host(netserver: NetServer) -> None:
    netserver.static("/p", b"x")
    idents = [Identifier("url", netserver.url(f"/p?n={i}")) for i in range(5)]
    fetch_all_sync(idents, cfg(per_host_concurrency=1))
    assert netserver.max_in_flight("127.0.0.1") == 1


# --- incremental results ----------------------------------------------------------------------


def test_on_done_reports_each_as_it_finishes_and_results_keep_request_order(
    netserver: NetServer,
) -> None:
    fast_done = threading.Event()

    def slow(req: Seen) -> Reply:
        fast_done.wait(3.0)  # cannot finish before the fast one has been reported
        return Reply(body=b"slow")

    netserver.route("/slow", slow)
    netserver.static("/fast", b"fast")
    reported: list[str] = []

    def on_done(out: FetchOutcome) -> None:
        reported.append(out.request.key or "")
        if out.request.key == "fast":
            fast_done.set()

    reqs = [
        FetchRequest(Identifier("url", netserver.url("/slow")), key="slow"),
        FetchRequest(Identifier("url", netserver.url("/fast")), key="fast"),
    ]
    outs = fetch_all_sync(reqs, cfg(), on_done=on_done)
    assert reported == ["fast", "slow"]
    assert [o.request.key for o in outs] == ["slow", "fast"]
    assert [o.retrieval.body for o in outs if o.retrieval] == [b"slow", b"fast"]


def test_async_on_done_is_awaited(netserver: NetServer) -> None:
    netserver.static("/p", b"x")
    seen: list[bool] = []

    async def on_done(out: FetchOutcome) -> None:
        await asyncio.sleep(0)
        seen.append(out.ok)

    fetch_all_sync([Identifier("url", netserver.url("/p"))] * 3, cfg(), on_done=on_done)
    assert seen == [True, True, True]


def test_interrupt_keeps_what_finished(netserver: NetServer) -> None:
    """Ctrl-C after the first outcome: it was already handed over; the rest are cancelled."""
    release = threading.Event()
    netserver.static("/fast", b"fast")
    netserver.route("/hang", lambda req: (release.wait(5.0), Reply(body=b"late"))[1])
    written: list[str] = []

    async def run() -> None:
        first = asyncio.Event()

        def on_done(out: FetchOutcome) -> None:
            written.append(out.request.key or "")
            first.set()

        task = asyncio.create_task(
            fetch_all(
                [
                    FetchRequest(Identifier("url", netserver.url("/hang")), key="hang"),
                    FetchRequest(Identifier("url", netserver.url("/fast")), key="fast"),
                ],
                cfg(),
                on_done=on_done,
            )
        )
        await first.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    try:
        asyncio.run(run())
    finally:
        release.set()
    assert written == ["fast"]


def test_on_done_failure_stops_the_run(netserver: NetServer) -> None:
    netserver.static("/p", b"x")

    def on_done(out: FetchOutcome) -> None:
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        fetch_all_sync([Identifier("url", netserver.url("/p"))], cfg(), on_done=on_done)


def test_empty_batch() -> None:
    assert fetch_all_sync([], cfg()) == []


def test_outcome_is_exactly_one_thing() -> None:
    with pytest.raises(ValueError):
        FetchOutcome(FetchRequest(Identifier("url", "https://x.org/")))


# --- settings ---------------------------------------------------------------------------------


def test_env_vars_configure_every_base_url() -> None:
    env = {
        "CITELEDGER_DOI_BASE": "http://127.0.0.1:9/doi",
        "CITELEDGER_ARXIV_BASE": "http://127.0.0.1:9/arxiv/",
        "CITELEDGER_ARXIV_API_BASE": "http://127.0.0.1:9/api/",
        "CITELEDGER_ISBN_BASE": "http://127.0.0.1:9/ol/",
        "CITELEDGER_MAILTO": "me@example.org",
        "CITELEDGER_CONNECT_TIMEOUT": "2.5",
        "CITELEDGER_READ_TIMEOUT": "7",
        "CITELEDGER_MAX_BODY_BYTES": "1000",
        "CITELEDGER_ALLOW_PRIVATE": "yes",
        "CITELEDGER_PER_HOST_CONCURRENCY": "1",
    }
    c = RetrieveConfig.from_env(env)
    assert c.doi_base == "http://127.0.0.1:9/doi/"  # the slash is added
    assert c.arxiv_api_base == "http://127.0.0.1:9/api/"
    assert c.isbn_base == "http://127.0.0.1:9/ol/"
    assert c.user_agent == "citeledger/0.1.0 (+mailto:me@example.org)"
    assert (c.timeout.connect, c.timeout.read) == (2.5, 7.0)
    assert c.max_body_bytes == 1000 and c.allow_private and c.per_host_concurrency == 1
    assert "CITELEDGER_DOI_BASE" in ENV_VARS


def test_mapping_then_env_then_flags() -> None:
    c = RetrieveConfig.load(
        {"doi-base": "https://file.example/", "max-attempts": 5, "retry_after_cap": 10},
        env={"CITELEDGER_MAX_ATTEMPTS": "2"},
        allow_private=True,
    )
    assert c.doi_base == "https://file.example/"
    assert c.max_attempts == 2 and c.retry_after_cap == 10 and c.allow_private


def test_defaults_are_courteous() -> None:
    c = RetrieveConfig.load(env={})
    assert c.doi_base == "https://doi.org/" and c.isbn_base == "https://openlibrary.org/"
    assert not c.allow_private and c.max_redirects == 10 and c.max_body_bytes == 50_000_000
    assert c.per_host_concurrency <= c.concurrency


@pytest.mark.parametrize(
    ("mapping", "message"),
    [
        (
            {"allow_privat": True},
            "config: unknown retrieve setting 'allow_privat' — did you mean 'allow_private'?",
        ),
        (
            {"max_attempts": "many"},
            "config max_attempts: 'many' is not a valid int for retrieve setting max_attempts"
            " — give max_attempts a int",
        ),
        (
            {"doi_base": "doi.org"},
            "retrieve setting doi_base is not an absolute http(s) URL: 'doi.org'"
            " — write it like https://doi.org/",
        ),
        (
            {"allow_private": "perhaps"},
            "config allow_private: 'perhaps' is not a valid bool for retrieve setting"
            " allow_private — give allow_private a bool",
        ),
    ],
)
def test_bad_settings_are_refused_not_ignored(mapping: dict[str, object], message: str) -> None:
    with pytest.raises(CiteledgerError) as info:
        RetrieveConfig.load(mapping, env={})
    assert str(info.value) == message


def test_host_interval_spaces_requests_to_one_host(netserver: NetServer) -> None:
    netserver.static("/p", b"x")
    idents = [Identifier("url", netserver.url(f"/p?n={i}")) for i in range(3)]
    outs = fetch_all_sync(idents, cfg(host_intervals={"127.0.0.1": 0.2}))
    waits = sorted(o.waited for o in outs)
    assert waits[0] == 0  # the first goes at once
    assert sum(waits) > 0.3  # the others waited their turn (about 0.2 s and 0.4 s)


def test_arxiv_api_is_paced_and_the_plan_says_so() -> None:
    assert RetrieveConfig().host_intervals == {"export.arxiv.org": 3.0}
    p = plan([Identifier("arxiv", f"2101.0000{i}") for i in range(1, 4)])
    assert "  export.arxiv.org  3 requests, one every 3 s (at least 6 s)" in p.describe()
    c = RetrieveConfig.load({"host-intervals": {"Example.org": 1}}, env={})
    assert c.host_intervals == {"export.arxiv.org": 3.0, "example.org": 1.0}
