"""One callout per block of breakdowns, and the banner of counts (issue 14, item 3).

A paragraph with three breakdowns gets one callout listing each citation — its own id, state,
reasons and link back to its flag — with a reason shared by several said once; the body opens
with ``Div.citeledger-banner`` giving the counts by state, linking to the audit when there is
one; a fully checked document has no banner; a second run changes nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from fixture_judge import FixtureJudge
from helpers import pandoc_bytes, run_main, walk, with_class

THREE = (
    "Not found [@st-quote-not-found], and neither [@alpha; @beta, ch. 2].\n\nFine [@st-checked].\n"
)


def fixture(raw: bytes, fmt: str = "html"):  # type: ignore[no-untyped-def]
    return run_main(raw, fmt, judge_factory=FixtureJudge)


def _text(node: object) -> str:
    return " ".join(
        n["c"] if n["t"] == "Str" else n["c"][1]
        for n in walk(node)
        if n.get("t") in ("Str", "Code")
    )


def test_three_breakdowns_of_one_paragraph_are_one_callout_listing_each() -> None:
    doc = fixture(pandoc_bytes(THREE)).doc
    (callout,) = with_class(doc, "Div", "citeledger-breakdown")
    assert "citeledger-breakdowns" in callout["c"][0][1]
    items = with_class(callout, "Div", "citeledger-breakdown-item")
    assert [i["c"][0][0] for i in items] == [f"citeledger-breakdown-{n}" for n in (1, 2, 3)]
    assert [i["c"][0][1][1] for i in items] == [
        "citeledger-quote-not-found",
        "citeledger-not-in-ledger",
        "citeledger-not-in-ledger",
    ]
    for n, item in enumerate(items, 1):  # each item links back to its own flag
        back = [x["c"][2][0] for x in walk(item) if x.get("t") == "Link"]
        assert back == [f"#citeledger-cite-{n}"]
    flags = with_class(doc, "Span", "citeledger-flag")
    targets = [x["c"][2][0] for f in flags for x in walk(f) if x.get("t") == "Link"]
    assert targets == [f"#citeledger-breakdown-{n}" for n in (1, 2, 3)]
    text = _text(callout)
    assert text.startswith("3 citations here are not checked")
    assert text.count("key has no source in the ledger.") == 1, text  # shared: said once
    assert "Why (citations 2 and 3): The key has no source" in text  # with its owners
    assert "not in the retrieved source" in _text(items[0])  # an item's own reason stays with it


def test_the_banner_opens_the_body_with_the_counts_and_links_the_audit() -> None:
    raw = pandoc_bytes(THREE, "-M", "citeledger.audit=true")
    doc = fixture(raw).doc
    banner = doc["blocks"][0]
    assert banner["t"] == "Div" and "citeledger-banner" in banner["c"][0][1]
    text = _text(banner)
    assert "Citation check: 1 of 4 citations checked; 3 not checked" in text
    assert "1 quote not found, 2 not in ledger" in text
    links = [x["c"][2][0] for x in walk(banner) if x.get("t") == "Link"]
    assert links == ["#citeledger-audit"]
    audit_ids = [x["c"][1][0] for x in walk(doc) if x.get("t") == "Header"]
    assert "citeledger-audit" in audit_ids


def test_a_fully_checked_document_has_no_banner() -> None:
    doc = fixture(pandoc_bytes("Fine [@st-checked].")).doc
    assert not with_class(doc, "Div", "citeledger-banner")


@pytest.mark.parametrize("fmt", ["html", "latex", "gfm", "plain", "docx"])
def test_a_second_run_gives_back_the_same_banner_and_callout(fmt: str) -> None:
    first = fixture(pandoc_bytes(THREE), fmt)
    second = fixture(first.out, fmt)
    assert second.out == first.out
    if fmt == "gfm":  # the banner is a [!WARNING] alert there
        assert second.out.decode().count("[!WARNING]") == 1
        return
    assert len(with_class(second.doc, "Div", "citeledger-banner")) == 1
