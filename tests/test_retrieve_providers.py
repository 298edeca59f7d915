"""Providers: what each identifier kind asks for and what comes back, against a loopback registry.

The loopback server stands in for doi.org, arxiv.org, the arXiv API and Open Library through the
configurable base URLs, so these tests exercise the same code paths as a real run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeledger.model import Identifier
from citeledger.retrieve import (
    CSL_JSON,
    NO_TEXT,
    FetchOutcome,
    FetchRequest,
    RetrieveConfig,
    fetch_all_sync,
    normalize_isbn,
    parse_arxiv,
    plan,
    retraction_of,
)
from conftest import CORPUS
from netserver import NetServer, Reply, Seen
from retrieve_util import cfg

pytestmark = pytest.mark.usefixtures("loopback_only")


def one(ident: Identifier, config: RetrieveConfig) -> FetchOutcome:
    [out] = fetch_all_sync([ident], config)
    return out


# --- DOI --------------------------------------------------------------------------------------

CSL = {
    "DOI": "10.5555/abc.123",
    "type": "article-journal",
    "title": "A study of things",
    "author": [{"family": "Doe", "given": "Jane"}],
    "issued": {"date-parts": [[2020, 5]]},
}


def doi_registry(server: NetServer, csl: dict[str, object] = CSL) -> None:
    """doi.org's behaviour: content negotiation goes to the registry, HTML to the publisher."""

    def resolver(req: Seen) -> Reply:
        suffix = req.path[len("/doi/") :]
        if CSL_JSON in (req.header("accept") or ""):
            return Reply(303, b"", [("Location", f"/registry/{suffix}")], None)
        return Reply(302, b"", [("Location", f"/landing/{suffix}")], None)

    server.route("/doi/", resolver, prefix=True)
    server.route(
        "/registry/",
        Reply(body=json.dumps(csl).encode(), content_type=f"{CSL_JSON}; charset=utf-8"),
        prefix=True,
    )
    server.route(
        "/landing/",
        Reply(body=b"<html><p>Landing page</p></html>", content_type="text/html"),
        prefix=True,
    )


def test_doi_follows_to_the_landing_page_and_fetches_csl_json(netserver: NetServer) -> None:
    doi_registry(netserver)
    out = one(Identifier("doi", "10.5555/abc.123"), cfg(netserver))
    r = out.retrieval
    assert r is not None
    assert r.body == b"<html><p>Landing page</p></html>"
    assert r.requested_url == netserver.url("/doi/10.5555/abc.123")
    assert r.url == netserver.url("/landing/10.5555/abc.123")
    assert r.redirects == (netserver.url("/doi/10.5555/abc.123"),)
    assert r.metadata == CSL and out.metadata == CSL
    assert out.metadata_error is None and out.retracted is None
    # the landing page links no full text: it is the evidence, and the outcome says why
    assert out.fulltext_url is None
    assert out.fulltext_error is not None
    assert out.fulltext_error.startswith("the landing page links no full text")
    accepts = sorted(
        q.header("accept") or "" for q in netserver.requests_to("/doi/10.5555/abc.123")
    )
    assert accepts[0] == CSL_JSON and accepts[1].startswith("text/html")


def test_doi_metadata_survives_a_refused_landing_page(netserver: NetServer) -> None:
    """A paywall refuses the text, but the registry still says the work is retracted."""
    retracted = dict(CSL, title="RETRACTED: A study of things")
    doi_registry(netserver, retracted)
    netserver.route("/landing/", Reply(403, b"paywall"), prefix=True)
    out = one(Identifier("doi", "10.5555/abc.123"), cfg(netserver))
    assert out.kind == "refused" and out.reason == "refused (HTTP 403)"
    assert out.metadata is not None and out.metadata["title"].startswith("RETRACTED")
    assert out.retracted == (
        "the registry's title is marked RETRACTED: RETRACTED: A study of things"
    )


def test_doi_without_negotiated_metadata_reports_why(netserver: NetServer) -> None:
    netserver.route(
        "/doi/", Reply(body=b"<html>landing</html>", content_type="text/html"), prefix=True
    )
    out = one(Identifier("doi", "10.5555/x"), cfg(netserver))
    assert out.ok and out.metadata is None
    assert out.metadata_error is not None
    assert out.metadata_error.message == (
        "the DOI registry returned no JSON metadata (got text/html)"
    )


def test_doi_characters_are_escaped_in_the_resolver_url() -> None:
    p = plan(
        [Identifier("doi", "10.1002/(SICI)1097-4571(199806)49:8<693::AID>3.0.CO;2-O")],
        RetrieveConfig(),
    )
    assert p.calls[0].url == (
        "https://doi.org/10.1002/(SICI)1097-4571(199806)49:8%3C693::AID%3E3.0.CO;2-O"
    )
    assert plan([Identifier("doi", "10.1000/a#b?c")]).calls[0].url.endswith("a%23b%3Fc")


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [
        ({"DOI": "10.1/x", "title": "Fine"}, None),
        (None, None),
        (
            {
                "DOI": "10.1/x",
                "updated-by": [
                    {
                        "type": "retraction",
                        "DOI": "10.1/notice",
                        "updated": {"date-parts": [[2021, 3, 4]]},
                    }
                ],
            },
            "retraction recorded by the registry (2021-03-04), notice 10.1/notice",
        ),
        (
            {"DOI": "10.1/X", "update-to": [{"type": "retraction", "DOI": "10.1/x"}]},
            "retraction recorded by the registry",
        ),
        (
            {"DOI": "10.1/x", "update-to": [{"type": "Retraction"}]},
            "retraction recorded by the registry",
        ),
        (
            {"DOI": "10.1/x", "updated-by": [{"type": "withdrawal"}]},
            "withdrawal recorded by the registry",
        ),
        # a retraction *notice* that retracts some other work is not itself retracted
        ({"DOI": "10.1/notice", "update-to": [{"type": "retraction", "DOI": "10.1/x"}]}, None),
        ({"DOI": "10.1/x", "updated-by": [{"type": "correction", "DOI": "10.1/c"}]}, None),
        (
            {"title": ["RETRACTED ARTICLE: Old claims"]},
            "the registry's title is marked RETRACTED: RETRACTED ARTICLE: Old claims",
        ),
        (
            {"title": "Retracted: Old claims"},
            "the registry's title is marked RETRACTED: Retracted: Old claims",
        ),
        ({"title": "Retractable landing gear"}, None),
    ],
)
def test_retraction_of(metadata: dict[str, object] | None, expected: str | None) -> None:
    assert retraction_of(metadata) == expected


# --- arXiv ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "base", "version"),
    [
        ("2101.00001", "2101.00001", None),
        ("2101.00001v2", "2101.00001", 2),
        ("1412.6980v9", "1412.6980", 9),
        ("0704.0001", "0704.0001", None),
        ("hep-th/9901001", "hep-th/9901001", None),
        ("hep-th/9901001v3", "hep-th/9901001", 3),
        ("math.GT/0309136", "math.GT/0309136", None),
        ("cond-mat/0703470v1", "cond-mat/0703470", 1),
    ],
)
def test_arxiv_id_forms(value: str, base: str, version: int | None) -> None:
    aid = parse_arxiv(value)
    assert (aid.base, aid.version) == (base, version)


@pytest.mark.parametrize(
    "value",
    [
        "2101.0001",
        "1412.00001",
        "2113.00001",
        "2101.00001v0",
        "hep-th/99010",
        "1234",
        "https://arxiv.org/abs/2101.00001",
        "HEP-TH/9901001",
        "arXiv:1412.6980v9",  # the ledger refuses the prefix, so the provider does too
    ],
)
def test_malformed_arxiv_ids_are_never_sent(value: str) -> None:
    with pytest.raises(ValueError):
        parse_arxiv(value)
    p = plan([Identifier("arxiv", value)])
    assert p.calls == () and len(p.invalid) == 1


def test_arxiv_urls_pin_the_version() -> None:
    p = plan([Identifier("arxiv", "2101.00001v2"), Identifier("arxiv", "hep-th/9901001")])
    assert [c.url for c in p.calls] == [
        "https://arxiv.org/pdf/2101.00001v2",
        # the API is asked about the work: its answer names the newest version
        "https://export.arxiv.org/api/query?id_list=2101.00001&max_results=1",
        "https://arxiv.org/pdf/hep-th/9901001",
        "https://export.arxiv.org/api/query?id_list=hep-th/9901001&max_results=1",
    ]


ATOM = b"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">
  <entry>
    <id>http://arxiv.org/abs/2101.00001v3</id>
    <published>2021-01-01T00:00:00Z</published>
    <title>Graph Embeddings
      for Class Labels</title>
    <summary>  We study  things. </summary>
    <author><name>Paulo Cavalin</name></author>
    <author><name>Ana  Maria Silva</name></author>
    <arxiv:doi>10.18653/v1/2020.emnlp-main.324</arxiv:doi>
  </entry>
</feed>"""


def test_arxiv_prefers_the_pdf_and_reads_metadata_from_the_api(netserver: NetServer) -> None:
    netserver.static("/arxiv/pdf/2101.00001", b"%PDF-1.5\n...", content_type="application/pdf")
    netserver.static("/api/query", ATOM, content_type="application/atom+xml")
    out = one(Identifier("arxiv", "2101.00001"), cfg(netserver))
    assert out.retrieval is not None
    assert out.retrieval.body.startswith(b"%PDF")
    assert out.retrieval.content_type == "application/pdf"
    meta = out.metadata
    assert meta is not None
    assert meta["title"] == "Graph Embeddings for Class Labels"
    assert meta["author"] == [
        {"family": "Cavalin", "given": "Paulo"},
        {"family": "Silva", "given": "Ana Maria"},
    ]
    assert meta["issued"] == {"date-parts": [[2021, 1, 1]]}
    assert meta["version"] == "v3"  # which version "latest" was
    assert meta["DOI"] == "10.18653/v1/2020.emnlp-main.324"
    assert meta["URL"] == "https://arxiv.org/abs/2101.00001v3"
    [api] = netserver.requests_to("/api/query")
    assert api.path == "/api/query?id_list=2101.00001&max_results=1"


def test_arxiv_api_without_a_record(netserver: NetServer) -> None:
    netserver.static("/arxiv/pdf/2101.99999v1", b"%PDF-1.5\n", content_type="application/pdf")
    netserver.static(
        "/api/query",
        b'<feed xmlns="http://www.w3.org/2005/Atom"><entry>'
        b"<id>http://arxiv.org/api/errors#incorrect_id_format</id></entry></feed>",
    )
    out = one(Identifier("arxiv", "2101.99999v1"), cfg(netserver))
    assert out.ok
    assert out.metadata_error is not None
    assert out.metadata_error.message == "the arXiv API has no record of 2101.99999v1"


# --- ISBN -------------------------------------------------------------------------------------


def test_isbn_gives_metadata_and_no_text(netserver: NetServer) -> None:
    netserver.redirect("/ol/isbn/9780306406157.json", "/ol/books/OL1M.json")
    netserver.static(
        "/ol/books/OL1M.json",
        json.dumps(
            {
                "title": "Fundamentals",
                "subtitle": "A Primer",
                "publishers": ["Plenum"],
                "publish_date": "March 1983",
                "number_of_pages": 321,
                "key": "/books/OL1M",
            }
        ).encode(),
        content_type="application/json",
    )
    out = one(Identifier("isbn", "978-0-306-40615-7"), cfg(netserver))
    assert (out.kind, out.reason) == ("no-text", NO_TEXT)
    assert NO_TEXT == "no text available (ISBN gives metadata only)"
    assert out.retrieval is None
    assert out.metadata == {
        "type": "book",
        "ISBN": "9780306406157",
        "title": "Fundamentals: A Primer",
        "publisher": "Plenum",
        "issued": {"date-parts": [[1983]]},
        "number-of-pages": 321,
        "URL": netserver.url("/ol/books/OL1M.json"),
    }


def test_isbn_unknown_to_the_catalogue_still_says_no_text(netserver: NetServer) -> None:
    out = one(Identifier("isbn", "0-306-40615-2"), cfg(netserver))
    assert (out.kind, out.reason) == ("no-text", NO_TEXT)
    assert out.metadata is None
    assert out.metadata_error is not None and out.metadata_error.message == "not found (HTTP 404)"


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("978-0-306-40615-7", "9780306406157"),
        ("0-306-40615-2", "0306406152"),
        ("0-8044-2957-X", "080442957X"),
        ("978-0-306-40615-8", None),
        ("12345", None),
    ],
)
def test_isbn_check_digits(value: str, ok: str | None) -> None:
    if ok is None:
        with pytest.raises(ValueError):
            normalize_isbn(value)
    else:
        assert normalize_isbn(value) == ok


# --- file and url -----------------------------------------------------------------------------


def test_file_is_read_relative_to_the_ledger_root(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "manual.html").write_bytes(b"<html><p>Section 14.2</p></html>")
    req = FetchRequest(Identifier("file", "docs/manual.html"), root=str(tmp_path))
    [out] = fetch_all_sync([req], cfg())
    r = out.retrieval
    assert r is not None
    assert r.reconstructed and r.status == 200
    assert r.url == (tmp_path / "docs" / "manual.html").resolve().as_uri()
    assert r.url.startswith("file://")
    assert r.content_type == "text/html"
    assert r.body == b"<html><p>Section 14.2</p></html>"


def test_a_corpus_pdf_is_read_as_a_file_with_its_type() -> None:
    pdfs = sorted((CORPUS / "pdf").glob("*.pdf")) if CORPUS.exists() else []
    if not pdfs:
        pytest.skip("corpus not present")
    req = FetchRequest(Identifier("file", f"pdf/{pdfs[0].name}"), root=str(CORPUS))
    [out] = fetch_all_sync([req], cfg())
    assert out.retrieval is not None and out.retrieval.content_type == "application/pdf"


def test_file_outside_the_root_is_refused(tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("private notes")
    root = tmp_path / "project"
    root.mkdir()
    req = FetchRequest(Identifier("file", "../outside.txt"), root=str(root))
    [out] = fetch_all_sync([req], cfg())
    assert out.kind == "refused"
    assert out.error is not None
    assert out.error.message == "refused: ../outside.txt is outside the ledger's folder"
    allowed = FetchRequest(
        Identifier("file", "../outside.txt"), root=str(root), allow_files_outside=True
    )
    assert fetch_all_sync([allowed], cfg())[0].ok


def test_missing_file(tmp_path: Path) -> None:
    [out] = fetch_all_sync(
        [FetchRequest(Identifier("file", "nope.pdf"), root=str(tmp_path))], cfg()
    )
    assert (out.kind, out.reason) == ("not-found", "not found (no such file: nope.pdf)")


def test_file_larger_than_the_cap(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_bytes(b"x" * 2000)
    req = FetchRequest(Identifier("file", "big.txt"), root=str(tmp_path))
    [out] = fetch_all_sync([req], cfg(max_body_bytes=1000))
    assert (out.kind, out.reason) == ("too-large", "too large (> 1 kB)")


@pytest.mark.parametrize("value", ["ftp://example.org/x", "/relative/path", "javascript:alert(1)"])
def test_only_http_urls_are_retrieved(value: str) -> None:
    [out] = fetch_all_sync([Identifier("url", value)], cfg())
    assert out.kind == "bad-identifier"
    assert out.reason == f"cannot retrieve url:{value}: only absolute http(s) URLs can be retrieved"


def test_unknown_kind_is_an_outcome_not_a_crash() -> None:
    [out] = fetch_all_sync([Identifier("pmid", "12345")], cfg())
    assert out.kind == "bad-identifier"
    assert out.reason == "cannot retrieve pmid:12345: unknown identifier kind 'pmid'"
