"""A DOI's evidence is the work's text: the landing page's full-text link is followed.

Before this, a quote from a paper's body was "not found" on the publisher's abstract page, when
the truth was that we never had the text. These tests run the whole path against the loopback
server standing in for doi.org and a publisher: the landing page advertises the PDF with
Highwire tags, the PDF (a real corpus paper) becomes the retrieval, the chain is recorded, and
every way the link can fail (paywall, 404, a login page instead of a PDF, an internal address)
keeps the landing page and says why.
"""

from __future__ import annotations

import json

import pytest

from citeledger.model import Identifier
from citeledger.retrieve import (
    CSL_JSON,
    FetchOutcome,
    FetchRequest,
    FulltextLink,
    RetrieveConfig,
    fetch_all_sync,
    find_link,
    plan,
)
from citeledger.retrieve.fetch import NO_LINK
from conftest import CORPUS
from netserver import NetServer, Reply, Seen, StandInBackend, StubResolver
from retrieve_util import cfg as loopback_cfg

pytestmark = pytest.mark.usefixtures("loopback_only")

PAPER = CORPUS / "pdf" / "bunescu-acl07.pdf"
PUBLIC = "93.184.216.34"  # a globally routable address; only ever handed to StandInBackend
DOI = "10.5555/acl07.1"
CSL = {"DOI": DOI, "type": "paper-conference", "title": "Learning to extract relations"}
LOGIN = (
    b"<!doctype html><html><head><title>Sign in</title></head><body>"
    b"<form action='/login'><input name=user><input type='password' name=pw></form></body></html>"
)


def cfg(server: NetServer | None = None, host: str | None = None, **kw: object) -> RetrieveConfig:
    """The shared loopback settings with only the DOI base on the server (under ``host``)."""
    if server is not None:
        kw = {"doi_base": server.url("/doi/", host=host), **kw}
    return loopback_cfg(**kw)


def paper() -> bytes:
    if not PAPER.is_file():
        pytest.skip("../shared/corpus is not beside the repository")
    return PAPER.read_bytes()


def landing_html(*tags: str, body: str = "<p>Abstract: we learn relations.</p>") -> bytes:
    head = "".join(tags)
    page = f"<!doctype html><html><head><title>Paper</title>{head}</head><body>{body}</body>"
    return page.encode()


def publisher(
    server: NetServer,
    landing: bytes,
    *,
    landing_host: str | None = None,
    headers: tuple[tuple[str, str], ...] = (),
) -> None:
    """doi.org's behaviour (CSL-JSON to the registry, HTML to the publisher) and the landing."""
    where = server.url(f"/article/{DOI}", host=landing_host) if landing_host else None

    def resolver(req: Seen) -> Reply:
        if CSL_JSON in (req.header("accept") or ""):
            return Reply(body=json.dumps(CSL).encode(), content_type=CSL_JSON)
        return Reply(302, b"", [("Location", where or f"/article/{DOI}")], None)

    server.route("/doi/", resolver, prefix=True)
    server.static(f"/article/{DOI}", landing, headers=headers)


def one(config: RetrieveConfig, req: FetchRequest | None = None, **kw: object) -> FetchOutcome:
    [out] = fetch_all_sync([req or FetchRequest(Identifier("doi", DOI))], config, **kw)
    return out


# --- following the link -----------------------------------------------------------------------


def test_the_pdf_a_landing_page_advertises_is_the_retrieval(netserver: NetServer) -> None:
    pdf = paper()
    netserver.serve_directory("/files", CORPUS / "pdf")
    pdf_url = netserver.url("/files/bunescu-acl07.pdf", host="publisher.test")
    publisher(
        netserver,
        landing_html(f'<meta name="citation_pdf_url" content="{pdf_url}">'),
        landing_host="publisher.test",
    )
    resolver = StubResolver({"resolver.test": "127.0.0.1", "publisher.test": "127.0.0.1"})
    out = one(cfg(netserver, host="resolver.test"), resolver=resolver)
    r = out.retrieval
    assert r is not None
    assert r.body == pdf and r.content_type == "application/pdf"
    doi_url = netserver.url(f"/doi/{DOI}", host="resolver.test")
    landing = netserver.url(f"/article/{DOI}", host="publisher.test")
    # the receipt's provenance: DOI → landing page → full text
    assert r.requested_url == doi_url and out.requested_url == doi_url
    assert r.redirects == (doi_url, landing) and out.redirects == r.redirects
    assert r.url == pdf_url and out.url == pdf_url
    assert out.fulltext_url == pdf_url and out.fulltext_error is None
    assert r.metadata == CSL and out.metadata == CSL  # the registry's record is still asked
    assert out.attempts == 3  # resolver, landing page, PDF
    [got] = netserver.requests_to("/files/bunescu-acl07.pdf")
    assert got.host == "publisher.test"
    assert (got.header("accept") or "").startswith("application/pdf")
    assert {k.lower(): v for k, v in r.request_headers}["accept"].startswith("application/pdf")


def test_a_relative_pdf_url_is_resolved_against_the_landing_pages_final_url(
    netserver: NetServer,
) -> None:
    pdf = paper()
    netserver.static("/article/10.5555/acl07.1.pdf", pdf, content_type="application/octet-stream")
    # the landing page sits at /article/10.5555/acl07.1 after the resolver's redirect
    publisher(netserver, landing_html("<meta content='acl07.1.pdf' name='citation_pdf_url' />"))
    out = one(cfg(netserver))
    assert out.retrieval is not None and out.retrieval.body == pdf
    assert out.retrieval.content_type == "application/pdf"  # the bytes say so
    assert out.url == netserver.url("/article/10.5555/acl07.1.pdf")
    assert out.retrieval.redirects == (
        netserver.url(f"/doi/{DOI}"),
        netserver.url(f"/article/{DOI}"),
    )


def test_the_full_texts_own_redirects_are_part_of_the_chain(netserver: NetServer) -> None:
    pdf = paper()
    netserver.redirect("/download/7", "/cdn/7.pdf")
    netserver.static("/cdn/7.pdf", pdf, content_type="application/pdf")
    publisher(netserver, landing_html('<meta name="citation_pdf_url" content="/download/7">'))
    out = one(cfg(netserver))
    assert out.retrieval is not None and out.retrieval.body == pdf
    assert out.retrieval.redirects == (
        netserver.url(f"/doi/{DOI}"),
        netserver.url(f"/article/{DOI}"),
        netserver.url("/download/7"),
    )
    assert out.url == netserver.url("/cdn/7.pdf")
    assert out.fulltext_url == netserver.url("/download/7")


def test_an_html_full_text_is_followed_when_there_is_no_pdf(netserver: NetServer) -> None:
    text = b"<html><body><article><p>The whole paper, section 3.</p></article></body></html>"
    netserver.static("/full/acl07", text)
    publisher(
        netserver, landing_html('<meta name="citation_fulltext_html_url" content="/full/acl07">')
    )
    out = one(cfg(netserver))
    assert out.retrieval is not None and out.retrieval.body == text
    assert out.fulltext_error is None and out.url == netserver.url("/full/acl07")


def test_a_doi_that_resolves_straight_to_a_pdf_asks_nothing_more(netserver: NetServer) -> None:
    pdf = paper()
    publisher(netserver, pdf)  # served as text/html: the bytes say otherwise
    out = one(cfg(netserver))
    assert out.retrieval is not None and out.retrieval.body == pdf
    assert out.fulltext_url is None and out.fulltext_error is None
    assert out.retrieval.redirects == (netserver.url(f"/doi/{DOI}"),)


def test_a_landing_page_without_a_link_is_kept_and_says_so(netserver: NetServer) -> None:
    page = landing_html('<meta name="citation_title" content="Learning">')
    publisher(netserver, page)
    out = one(cfg(netserver))
    assert out.retrieval is not None and out.retrieval.body == page
    assert out.fulltext_url is None
    assert out.fulltext_error == NO_LINK
    assert NO_LINK.startswith("the landing page links no full text")
    assert len(netserver.requests) == 3  # resolver twice (text, metadata) and the landing page


def test_url_identifiers_never_follow_links(netserver: NetServer) -> None:
    netserver.static("/pdf", b"%PDF-1.4\n", content_type="application/pdf")
    page = landing_html('<meta name="citation_pdf_url" content="/pdf">')
    netserver.static("/page", page)
    [out] = fetch_all_sync([Identifier("url", netserver.url("/page"))], cfg())
    assert out.retrieval is not None and out.retrieval.body == page
    assert out.fulltext_error is None and out.fulltext_url is None
    assert netserver.requests_to("/pdf") == []


# --- when the link fails, the landing page is kept and the reason recorded ---------------------


def _kept(out: FetchOutcome, server: NetServer, page: bytes) -> None:
    assert out.ok and out.retrieval is not None
    assert out.retrieval.body == page
    assert out.retrieval.url == server.url(f"/article/{DOI}")
    assert out.retrieval.redirects == (server.url(f"/doi/{DOI}"),)
    assert out.metadata == CSL


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (Reply(403, b"Subscribe to read"), "refused (HTTP 403)"),
        (Reply(401, b"Sign in"), "refused (HTTP 401)"),
        (Reply(404, b"no such file"), "not found (HTTP 404)"),
        (
            Reply(body=LOGIN, content_type="application/pdf"),
            "got a login page instead of a PDF",
        ),
        (
            Reply(body=b"<html><p>Buy this article for $39.95</p></html>", content_type=None),
            "got an HTML page (a login or paywall page?) instead of a PDF",
        ),
        (
            Reply(body=b"\x00\x01 not a pdf", content_type="application/pdf"),
            "got application/pdf, not a PDF (no %PDF- signature)",
        ),
    ],
)
def test_a_failed_pdf_keeps_the_landing_page(
    netserver: NetServer, reply: Reply, reason: str
) -> None:
    netserver.route("/paper.pdf", reply)
    page = landing_html('<meta name="citation_pdf_url" content="/paper.pdf">')
    publisher(netserver, page)
    out = one(cfg(netserver))
    _kept(out, netserver, page)
    pdf_url = netserver.url("/paper.pdf")
    assert out.fulltext_url == pdf_url
    assert out.fulltext_error == (
        f"the full text at {pdf_url} (citation_pdf_url) was not used: {reason}; "
        "the evidence is the landing page"
    )


def test_a_pdf_link_redirecting_to_a_login_page_keeps_the_landing_page(
    netserver: NetServer,
) -> None:
    netserver.redirect("/paper.pdf", "/login?next=/paper.pdf")
    netserver.static("/login", LOGIN)
    page = landing_html('<link rel="alternate" type="application/pdf" href="/paper.pdf">')
    publisher(netserver, page)
    out = one(cfg(netserver))
    _kept(out, netserver, page)
    assert out.fulltext_error is not None
    assert "(link rel=alternate) was not used: got a login page instead of a PDF" in (
        out.fulltext_error
    )


def test_an_html_full_text_that_is_a_login_form_is_not_the_text(netserver: NetServer) -> None:
    netserver.static("/full", LOGIN)
    page = landing_html('<meta name="citation_fulltext_html_url" content="/full">')
    publisher(netserver, page)
    out = one(cfg(netserver))
    _kept(out, netserver, page)
    assert out.fulltext_error is not None
    assert "was not used: got a login page instead of the full text" in out.fulltext_error


def test_the_full_text_is_held_to_the_same_size_cap(netserver: NetServer) -> None:
    netserver.static("/big.pdf", b"%PDF-1.4\n" + b"x" * 5000, content_type="application/pdf")
    page = landing_html('<meta name="citation_pdf_url" content="/big.pdf">')
    publisher(netserver, page)
    out = one(cfg(netserver, max_body_bytes=2000))
    _kept(out, netserver, page)
    assert out.fulltext_error is not None and "was not used: too large (> 2 kB" in (
        out.fulltext_error
    )


@pytest.mark.parametrize(
    "target",
    [
        "http://internal.test/paper.pdf",  # the name resolves to 192.168.1.20
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/paper.pdf",
    ],
)
def test_a_full_text_link_to_an_internal_address_is_refused_like_any_hop(
    netserver: NetServer, target: str
) -> None:
    page = landing_html(f'<meta name="citation_pdf_url" content="{target}">')
    publisher(netserver, page, landing_host="publisher.test")
    resolver = StubResolver(
        {"resolver.test": PUBLIC, "publisher.test": PUBLIC, "internal.test": "192.168.1.20"}
    )
    stand_in = StandInBackend()
    out = one(
        cfg(netserver, host="resolver.test", allow_private=False),
        resolver=resolver,
        backend=stand_in,
    )
    assert out.ok and out.retrieval is not None and out.retrieval.body == page
    assert out.fulltext_url == target
    assert out.fulltext_error is not None
    assert f"the full text at {target} (citation_pdf_url) was not used: refused address: " in (
        out.fulltext_error
    )
    # nothing was dialled but the public hops, and the server never saw the internal request
    assert {ip for ip, _port in stand_in.dialled} == {PUBLIC}
    assert sorted(r.path for r in netserver.requests) == sorted(
        [f"/doi/{DOI}", f"/doi/{DOI}", f"/article/{DOI}"]
    )


def test_the_full_text_obeys_the_per_host_limit(netserver: NetServer) -> None:
    netserver.barrier("/paper.pdf", parties=2, reply=Reply(body=b"%PDF-1.4\n"), timeout=0.3)
    page = landing_html('<meta name="citation_pdf_url" content="/paper.pdf">')
    netserver.route("/article/", Reply(body=page, content_type="text/html"), prefix=True)

    def resolver(req: Seen) -> Reply:
        return Reply(302, b"", [("Location", "/article/" + req.path[len("/doi/") :])], None)

    netserver.route("/doi/", resolver, prefix=True)
    idents = [Identifier("doi", f"10.5555/p{i}") for i in range(3)]
    outs = fetch_all_sync(
        idents, cfg(netserver, per_host_concurrency=1, concurrency=8, fetch_metadata=False)
    )
    assert all(o.ok and o.fulltext_error is None for o in outs)
    assert netserver.max_in_flight("127.0.0.1") == 1


# --- rechecks ---------------------------------------------------------------------------------


def test_a_recheck_asks_the_full_text_conditionally_and_gets_not_modified(
    netserver: NetServer,
) -> None:
    doc = netserver.document("/paper.pdf", b"%PDF-1.4\nthe paper", content_type="application/pdf")
    publisher(
        netserver,
        landing_html('<meta name="citation_pdf_url" content="/paper.pdf">'),
        headers=(("ETag", '"landing-1"'),),
    )
    first = one(cfg(netserver))
    assert first.retrieval is not None and first.etag == doc.etag
    again = FetchRequest(Identifier("doi", DOI), etag=first.etag, last_modified=first.last_modified)
    out = one(cfg(netserver), again)
    assert out.not_modified and out.status == 304
    assert out.url == netserver.url("/paper.pdf")
    assert out.redirects == (netserver.url(f"/doi/{DOI}"), netserver.url(f"/article/{DOI}"))
    landing_asks = netserver.requests_to(f"/article/{DOI}")
    assert [q.header("if-none-match") for q in landing_asks] == [None, None]
    assert netserver.requests_to("/paper.pdf")[-1].header("if-none-match") == doc.etag


def test_validators_of_a_kept_landing_page_are_not_sent_to_the_full_text(
    netserver: NetServer,
) -> None:
    """The last receipt was the landing page (the PDF was paywalled); now the PDF is open."""
    netserver.static("/paper.pdf", b"%PDF-1.4\nnow open", content_type="application/pdf")
    publisher(
        netserver,
        landing_html('<meta name="citation_pdf_url" content="/paper.pdf">'),
        headers=(("Last-Modified", "Tue, 02 Jan 2024 03:04:05 GMT"),),
    )
    again = FetchRequest(Identifier("doi", DOI), last_modified="Tue, 02 Jan 2024 03:04:05 GMT")
    out = one(cfg(netserver), again)
    assert out.retrieval is not None and out.retrieval.body == b"%PDF-1.4\nnow open"
    assert netserver.requests_to("/paper.pdf")[0].header("if-modified-since") is None


# --- the plan says so -------------------------------------------------------------------------


def test_the_plan_says_a_doi_may_lead_to_one_more_request() -> None:
    p = plan(
        [
            Identifier("doi", "10.5555/a"),
            Identifier("doi", "10.5555/b"),
            Identifier("url", "https://example.org/a"),
        ],
        RetrieveConfig(),
    )
    assert p.request_count == 5 and p.followups == 2
    text = p.describe()
    assert (
        "Full text: a DOI may lead to one more request for the full text, on the publisher's "
        "host (up to 2 more requests in all)"
    ) in text
    assert (
        "  GET https://doi.org/10.5555/a  (doi:10.5555/a: resolve the DOI to its landing page "
        "or full text)\n    then perhaps one GET of the full text its landing page links, on "
        "the publisher's host\n"
    ) in text
    urls = plan([Identifier("url", "https://example.org/a")], RetrieveConfig())
    assert urls.followups == 0 and "Full text:" not in urls.describe()


# --- reading the landing page -----------------------------------------------------------------

PAGE = "https://pub.example/article/10.1/x?src=doi"


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (
            '<meta name="citation_pdf_url" content="https://pub.example/x.pdf">',
            ("https://pub.example/x.pdf", "pdf", "citation_pdf_url"),
        ),
        (  # relative, attribute order and quoting as publishers write them
            "<META CONTENT=x.pdf NAME=Citation_PDF_URL>",
            ("https://pub.example/article/10.1/x.pdf", "pdf", "citation_pdf_url"),
        ),
        (
            "<meta name='citation_pdf_url' content='/files/x.pdf?download=1&amp;v=2#page=1'>",
            ("https://pub.example/files/x.pdf?download=1&v=2", "pdf", "citation_pdf_url"),
        ),
        (
            '<meta property="citation_pdf_url" content="//cdn.example/x.pdf">',
            ("https://cdn.example/x.pdf", "pdf", "citation_pdf_url"),
        ),
        (
            '<link rel="alternate" type="application/pdf" href="x/download">',
            ("https://pub.example/article/10.1/x/download", "pdf", "link rel=alternate"),
        ),
        (
            '<meta name="citation_fulltext_html_url" content="/full/x">',
            ("https://pub.example/full/x", "html", "citation_fulltext_html_url"),
        ),
        (  # a PDF is preferred, wherever it appears
            '<meta name="citation_fulltext_html_url" content="/full/x">'
            '<link rel="alternate" type="application/pdf" href="/alt.pdf">'
            '<meta name="citation_pdf_url" content="/cit.pdf">',
            ("https://pub.example/cit.pdf", "pdf", "citation_pdf_url"),
        ),
        (
            '<base href="https://mirror.example/papers/"><meta name="citation_pdf_url" '
            'content="x.pdf">',
            ("https://mirror.example/papers/x.pdf", "pdf", "citation_pdf_url"),
        ),
        (  # unusable links are skipped, not fatal
            '<meta name="citation_pdf_url" content="javascript:download()">'
            '<meta name="citation_pdf_url" content="">'
            '<meta name="citation_pdf_url" content="/ok.pdf">',
            ("https://pub.example/ok.pdf", "pdf", "citation_pdf_url"),
        ),
        ('<link rel="alternate" type="application/rss+xml" href="/feed">', None),
        ('<link rel="stylesheet" type="application/pdf" href="/x.pdf">', None),
        ('<meta name="citation_fulltext_html_url" content="' + PAGE + '">', None),  # itself
        ('<meta name="citation_title" content="A paper">', None),
    ],
)
def test_find_link(head: str, expected: tuple[str, str, str] | None) -> None:
    body = f"<html><head>{head}</head><body>x</body></html>".encode()
    found = find_link(body, PAGE)
    assert found == (FulltextLink(*expected) if expected else None)


def test_links_in_the_body_of_the_page_are_not_the_works_full_text() -> None:
    """Only the head speaks for the work: a reference list may cite other papers' PDFs."""
    body = (
        b"<html><head><title>x</title></head><body>"
        b'<meta name="citation_pdf_url" content="/someone-elses.pdf"></body></html>'
    )
    assert find_link(body, PAGE) is None


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (  # commented out: the publisher took it away
            '<!-- <meta name="citation_pdf_url" content="/old.pdf"> -->'
            '<meta name="citation_pdf_url" content="/new.pdf">',
            "https://pub.example/new.pdf",
        ),
        (  # a string inside a script is not a tag of the page
            '<script>var t = \'<meta name="citation_pdf_url" content="/js.pdf">\';</script>'
            '<meta name="citation_pdf_url" content="/real.pdf">',
            "https://pub.example/real.pdf",
        ),
        (  # a '>' inside a quoted attribute does not end the tag
            '<meta data-note="a > b" name="citation_pdf_url" content="/quoted.pdf">',
            "https://pub.example/quoted.pdf",
        ),
        ('<!-- <meta name="citation_pdf_url" content="/old.pdf"> -->', None),
    ],
)
def test_the_landing_page_is_read_as_a_browser_reads_it(head: str, expected: str | None) -> None:
    body = f"<html><head>{head}</head><body>x</body></html>".encode()
    found = find_link(body, PAGE)
    assert (found.url if found else None) == expected
