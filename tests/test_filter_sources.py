"""A checked citation links to the source itself, opened at the passage (seed 002).

Next to the ``evidence`` link (what was retrieved), a checked citation of a web source gets a
``source`` link: a URL text fragment for an HTML page, ``#page=N`` for a PDF — exactly the link
``report.anchor_for`` gives ``check --json`` and the audit, so all three agree. With or without
evidence pages; never for a restricted citation, a breakdown, a local file, or inside link text.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))
sys.path.insert(0, str(Path(__file__).parent / "golden" / "sources"))

from helpers import body, pandoc_bytes, pandoc_json, run_main, walk, with_class
from web_judge import PAGE_URL, PDF_URL, QUOTE, RESTRICTED_TITLE, TEXT, WebJudge

from citeledger.build.citations import plain_text
from citeledger.build.filter import run_filter
from citeledger.evidence import links as textfragment

DOC = (
    "Web [@web-checked]. PDF [@pdf-checked, p. 3]. File [@file-checked]. "
    "Restricted [@web-restricted]. Stale [@st-stale].\n\n"
    "See [text with @web-checked](https://example.org/elsewhere).\n"
)
PAGE_LINK = textfragment.text_fragment_url(
    PAGE_URL, TEXT, TEXT.index(QUOTE), TEXT.index(QUOTE) + len(QUOTE)
)


def web(raw: bytes, fmt: str = "html", **kw):  # type: ignore[no-untyped-def]
    return run_main(raw, fmt, judge_factory=WebJudge, **kw)


def _source_links(node: object) -> list[str]:
    return [
        link["c"][2][0]
        for span in with_class(node, "Span", "citeledger-source")
        for link in walk(span)
        if link.get("t") == "Link"
    ]


def _wraps(doc: dict) -> dict[str, dict]:
    """Each processed Cite's wrapper, by the key of its (first) citation."""
    out = {}
    for wrap in with_class(body(doc), "Span", "citeledger-cite"):
        cite = next(n for n in walk(wrap) if n.get("t") == "Cite")
        out.setdefault(cite["c"][0][0]["citationId"], wrap)
    return out


def test_checked_web_citations_link_to_the_passage_without_evidence_pages() -> None:
    doc = web(pandoc_bytes(DOC)).doc
    assert PAGE_LINK.startswith(PAGE_URL + "#:~:text=")
    wraps = _wraps(doc)
    assert _source_links(wraps["web-checked"]) == [PAGE_LINK]
    assert _source_links(wraps["pdf-checked"]) == [PDF_URL + "#page=3"]
    assert _source_links(body(doc)) == [PAGE_LINK, PDF_URL + "#page=3"]  # no others
    link = next(n for n in walk(wraps["web-checked"]) if n.get("t") == "Link")
    assert plain_text(link["c"][1]) == "source"
    assert "passage" in link["c"][2][1]  # its title says where it leads


def test_it_is_the_link_the_report_and_the_audit_give() -> None:
    from fixture_judge import FixtureJudge  # noqa: F401 - the web judge builds on it

    from citeledger.model import CitationRef
    from citeledger.report.summary import anchor_for

    judge = WebJudge()
    anchor = anchor_for(judge.judge(CitationRef("web-checked")), judge.reader)
    assert anchor is not None and anchor["link"] == PAGE_LINK
    doc = web(pandoc_bytes("Web [@web-checked].", "-M", "citeledger.audit=true")).doc
    audit = [n["c"][2][0] for n in walk(body(doc)[-1]) if n.get("t") == "Link"]
    assert PAGE_LINK in audit and _source_links(body(doc)[0]) == [PAGE_LINK]


def test_with_evidence_pages_both_links_show_evidence_first() -> None:
    class Linked(WebJudge):
        reader = None  # no store to write pages from: links only (a PDF needs no text)

    raw = pandoc_bytes("PDF [@pdf-checked].", "-M", "citeledger.evidence-pages=evidence")
    wrap = _wraps(run_main(raw, "html", judge_factory=Linked).doc)["pdf-checked"]
    kinds = [n["c"][0][1] for n in wrap["c"][1] if n.get("t") == "Span"]
    assert kinds[-2:] == [["citeledger-evidence"], ["citeledger-source"]]
    assert wrap["c"][1][-2] == {"t": "Space"}  # the two words never run together


@pytest.mark.parametrize("fmt", ["latex", "docx", "gfm", "markdown", "typst", "rst"])
def test_other_formats_get_a_normal_raised_link(fmt: str) -> None:
    doc = web(pandoc_bytes(DOC), fmt).doc
    assert _source_links(body(doc)) == [PAGE_LINK, PDF_URL + "#page=3"]
    span = with_class(body(doc), "Span", "citeledger-source")[0]
    # GitHub Markdown has no superscript (it would be <sup> HTML): a plain link there
    assert span["c"][1][0]["t"] == ("Link" if fmt == "gfm" else "Superscript")


def test_plain_text_drops_urls_so_it_gets_no_dead_source_word() -> None:
    doc = web(pandoc_bytes(DOC), "plain").doc
    assert not with_class(body(doc), "Span", "citeledger-source")


@pytest.mark.parametrize("fmt", ["html", "latex", "docx", "gfm", "plain"])
def test_restricted_citations_never_get_it_nor_leak(fmt: str) -> None:
    run = web(pandoc_bytes("Restricted [@web-restricted].", "-M", "citeledger.audit=true"), fmt)
    text = run.out.decode()
    assert PAGE_URL not in text
    assert RESTRICTED_TITLE not in text and RESTRICTED_TITLE not in run.err


def test_no_source_link_inside_link_text_or_on_a_breakdown() -> None:
    doc = web(pandoc_bytes(DOC)).doc
    linked = body(doc)[1]
    assert not with_class(linked, "Span", "citeledger-source")
    for key in ("st-stale", "web-restricted", "file-checked"):
        assert not _source_links(_wraps(doc)[key])


@pytest.mark.parametrize("fmt", ["html", "latex", "gfm"])
def test_a_second_run_changes_nothing(fmt: str) -> None:
    first = web(pandoc_bytes(DOC), fmt)
    assert web(first.out, fmt).out == first.out


def test_the_real_judge_and_evidence_store_give_a_text_fragment(tmp_path: Path) -> None:
    """End to end on real receipts (the browser test's sample ledger): no stub in the way."""
    from browser_util import URL, sample_ledger
    from citeledger.evidence.store import EvidenceReader
    from citeledger.judge import Judge
    from citeledger.model import CitationRef
    from citeledger.report.summary import anchor_for

    ledger = sample_ledger(tmp_path)
    reader = EvidenceReader(ledger.evidence_dir)

    def judges(options):  # type: ignore[no-untyped-def]
        return Judge(ledger, reader=reader)

    doc = pandoc_json("Checked [@hchm]. Misquoted [@hchm-misquoted]. Unread [@larson2019].")
    result = run_filter(doc, "html", judge_factory=judges)
    links = _source_links(body(result.doc))
    expected = anchor_for(Judge(ledger, reader=reader).judge(CitationRef("hchm")), reader)
    assert expected is not None
    assert links == [expected["link"]]
    assert links[0].startswith(URL + "#:~:text=")
