"""The citation audit: every citation reachable both ways, withdrawals kept, restricted ones mute.

The blocks are turned into HTML (and other formats) by the bundled pandoc, so what is asserted is
what a reader's page holds, not the shape of our dicts.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path

import pytest
from selectolax.lexbor import LexborHTMLParser as HTMLParser
from selectolax.lexbor import LexborNode as Node

from browser_util import sample_ledger
from citeledger.evidence.store import EvidenceReader
from citeledger.judge import Judge
from citeledger.model import CitationRef, Identifier, State, Withdrawal
from citeledger.report.audit import (
    AUDIT_ID,
    AuditRow,
    audit_blocks,
    audit_row_id,
    claim_id,
    flag_link_target,
    resolver_url,
    row_for,
)

SECRET_TITLE = "Board minutes on the merger"
SECRET_ID = "url:https://intranet.example/minutes-7.pdf"


def convert(blocks: list[dict], pandoc: str, fmt: str = "html", *extra: str) -> str:
    doc = {"pandoc-api-version": [1, 23, 1, 1], "meta": {}, "blocks": blocks}
    done = subprocess.run(
        [pandoc, "-f", "json", "-t", fmt, "--wrap=none", *extra],
        input=json.dumps(doc),
        capture_output=True,
        text=True,
        check=True,
    )
    assert not done.stderr, done.stderr
    return done.stdout


def html_of(rows: list[AuditRow], pandoc: str, evidence: str | None = "evidence") -> HTMLParser:
    return HTMLParser(convert(audit_blocks(rows, evidence_dir_href=evidence), pandoc))


def row_node(tree: HTMLParser, n: int) -> Node:
    anchor = tree.css_first(f"#{audit_row_id(n)}")
    assert anchor is not None, f"no anchor for row {n}"
    node = anchor
    while node.tag != "tr":
        node = node.parent
        assert node is not None
    return node


ROWS = [
    AuditRow(
        1,
        "hchm",
        State.CHECKED,
        ("Retrieved on 2026-08-03; the quote was found (exact match).",),
        claim="A declined subsidence claim can be appealed within 60 days.",
        title="Household Claims Handling Manual",
        identifier="url:https://example.org/manual.html",
        evidence_page="hchm-20260803T100000Z-a07b75be4bcc-bbfa7e67.html",
        source_link="https://example.org/manual.html#:~:text=within%2060%20days",
        source_link_at_passage=True,
    ),
    AuditRow(
        2,
        "larson2019",
        State.UNCHECKED,
        ("Never verified: nobody has retrieved this source and found the quote.",),
        claim="Classifiers struggle with out-of-scope queries.",
        title="An Evaluation Dataset for Intent Classification",
        identifier="doi:10.18653/v1/D19-1131",
        source_link="https://doi.org/10.18653/v1/D19-1131",
    ),
]


def test_every_row_reaches_its_claim_evidence_and_source(pandoc_path: str) -> None:
    tree = html_of(ROWS, pandoc_path)
    header = tree.css_first(f"h1#{AUDIT_ID}")
    assert header is not None and header.text().strip() == "Citation audit"
    rows = tree.css("tbody tr")
    assert len(rows) == 2

    first = row_node(tree, 1)
    cells = first.css("td")
    assert len(cells) == 5
    assert cells[0].css_first(f"#{audit_row_id(1)}") is not None  # the anchor is in cell one
    back = cells[0].css_first("a")
    assert back is not None and back.attributes["href"] == f"#{claim_id(1)}"
    assert "appealed within 60 days" in back.text()
    links = {a.text().strip(): a.attributes["href"] for a in cells[4].css("a")}
    assert links == {
        "evidence": "evidence/hchm-20260803T100000Z-a07b75be4bcc-bbfa7e67.html",
        "source at the passage": "https://example.org/manual.html#:~:text=within%2060%20days",
    }
    assert "checked" in cells[2].text()
    assert "citeledger-checked" in first.attributes["class"]

    second = row_node(tree, 2)
    links2 = {a.text().strip(): a.attributes["href"] for a in second.css("td")[4].css("a")}
    assert links2 == {"source": "https://doi.org/10.18653/v1/D19-1131"}
    assert "no evidence page" in second.css("td")[4].text()
    assert "Unchecked citation" in second.css("td")[2].text()
    assert "Never verified" in second.css("td")[3].text()
    assert "citeledger-unchecked" in second.attributes["class"]


def test_ids_follow_the_contract() -> None:
    assert flag_link_target(7) == "#citeledger-audit-7"
    assert audit_row_id(7) == "citeledger-audit-7"
    assert claim_id(7) == "citeledger-claim-7"


def test_restricted_row_leaks_nothing_of_its_source(pandoc_path: str) -> None:
    leaky = AuditRow(
        3,
        "board-minutes-merger",
        State.RESTRICTED,
        ("This source is limited to staff; this build is for public: details are not shown.",),
        claim="The decision was taken in March.",
        title=SECRET_TITLE,
        identifier=SECRET_ID,
        evidence_page="board-minutes-merger-2026.html",
        source_link="https://intranet.example/minutes-7.pdf#page=3",
    )
    page = convert(audit_blocks([leaky], evidence_dir_href="evidence"), pandoc_path)
    for secret in (SECRET_TITLE, "intranet.example", "board-minutes", "minutes-7"):
        assert secret not in page
    tree = HTMLParser(page)
    row = row_node(tree, 3)
    assert row.css("td")[4].css("a") == []
    assert "Restricted source" in row.css("td")[1].text()
    assert row.css_first("td a").attributes["href"] == "#citeledger-claim-3"  # still reachable


def test_restricted_judgement_gives_a_mute_row(tmp_path: Path) -> None:
    ledger = sample_ledger(tmp_path)
    hidden = dataclasses.replace(ledger.sources["hchm"], audience=("staff",))
    ledger = dataclasses.replace(ledger, sources={**ledger.sources, "hchm": hidden})
    reader = EvidenceReader(ledger.evidence_dir)
    j = Judge(ledger, audience="public", reader=reader).judge(CitationRef("hchm"))
    assert j.state is State.RESTRICTED
    row = row_for(2, j, claim="c", evidence_page="leak.html", reader=reader)
    assert row.title is None and row.identifier is None
    assert row.evidence_page is None and row.source_link is None


def test_withdrawn_row_keeps_reason_and_date(pandoc_path: str) -> None:
    withdrawal = Withdrawal(
        "2026-08-02", "The paper was never read.", "It is about word-graph embeddings."
    )
    row = AuditRow(
        1,
        "cavalin2020",
        State.WITHDRAWN,
        (),  # even with no reasons passed, the record itself is shown
        claim="An explicit reject class performs worse than the alternatives.",
        title="Improving Out-of-Scope Detection in Intent Classification",
        identifier="doi:10.18653/v1/2020.emnlp-main.324",
        withdrawal=withdrawal,
    )
    tree = html_of([row], pandoc_path)
    node = row_node(tree, 1)
    reasons = node.css("td")[3].text()
    assert "Withdrawn on 2026-08-02: The paper was never read." in " ".join(reasons.split())
    assert "word-graph embeddings" in reasons
    assert "withdrawn" in node.css("td")[2].text()
    assert node.css_first("td a").attributes["href"] == "#citeledger-claim-1"


def test_rows_from_real_judgements(tmp_path: Path, pandoc_path: str) -> None:
    ledger = sample_ledger(tmp_path)
    reader = EvidenceReader(ledger.evidence_dir)
    judge = Judge(ledger, reader=reader)
    checked = row_for(1, judge.judge(CitationRef("hchm")), claim="c1", reader=reader)
    assert checked.state is State.CHECKED
    assert checked.source_link_at_passage
    assert checked.source_link and "#:~:text=" in checked.source_link

    withdrawn = row_for(2, judge.judge(CitationRef("cavalin2020")), claim="c2", reader=reader)
    assert withdrawn.state is State.WITHDRAWN
    assert withdrawn.withdrawal is not None and withdrawn.withdrawal.date == "2026-08-02"
    assert withdrawn.source_link == "https://doi.org/10.18653/v1/2020.emnlp-main.324"
    assert not withdrawn.source_link_at_passage

    missing = row_for(3, judge.judge(CitationRef("nobody2020")), claim="c3", reader=reader)
    assert missing.state is State.NOT_IN_LEDGER and missing.source_link is None

    tree = html_of([checked, withdrawn, missing], pandoc_path)
    assert [r.attributes["class"].split()[1] for r in tree.css("tbody tr")] == [
        "citeledger-checked",
        "citeledger-withdrawn",
        "citeledger-not-in-ledger",
    ]
    assert "Withdrawn on 2026-08-02" in row_node(tree, 2).text()


def test_no_evidence_folder_means_no_evidence_links(pandoc_path: str) -> None:
    tree = html_of(ROWS, pandoc_path, evidence=None)
    texts = [a.text().strip() for a in tree.css("a")]
    assert "evidence" not in texts and "source at the passage" in texts
    assert "no evidence page" not in tree.body.text()


@pytest.mark.parametrize(
    "href",
    [
        "https://cdn.example/ev",
        "javascript:alert(1)",
        "//host/ev",
        # the evidence pages' own rule, now the audit's too (it let these through)
        "/\\host/ev",
        "\\\\host\\ev",
        "ev\x01pages",
    ],
)
def test_evidence_folder_must_be_a_path(href: str) -> None:
    with pytest.raises(ValueError, match="evidence_dir_href"):
        audit_blocks(ROWS, evidence_dir_href=href)


def test_only_web_source_links_are_made(pandoc_path: str) -> None:
    bad = AuditRow(1, "k", State.UNCHECKED, ("x",), source_link="javascript:alert(1)")
    page = convert(audit_blocks([bad], evidence_dir_href=None), pandoc_path)
    assert "javascript" not in page


def test_page_names_are_escaped_in_links(pandoc_path: str) -> None:
    row = AuditRow(1, "k", State.CHECKED, ("ok",), evidence_page="a b#c.html")
    tree = html_of([row], pandoc_path, evidence="../evidence/")
    [a] = tree.css("a.citeledger-evidence-link")
    assert a.attributes["href"] == "../evidence/a%20b%23c.html"


def test_long_claims_are_cut_but_still_lead_to_the_claim(pandoc_path: str) -> None:
    claim = "word " * 200
    tree = html_of([AuditRow(1, "k", State.UNCHECKED, ("x",), claim=claim)], pandoc_path)
    back = tree.css_first("a.citeledger-claim-link")
    assert back.attributes["href"] == "#citeledger-claim-1"
    assert back.text().endswith("…") and len(back.text()) < 320


def test_empty_document_says_so(pandoc_path: str) -> None:
    tree = html_of([], pandoc_path)
    assert tree.css("table") == []
    assert "no citations" in tree.body.text()


def test_resolver_urls() -> None:
    assert resolver_url(Identifier("doi", "10.1000/x(y)")) == "https://doi.org/10.1000/x(y)"
    assert resolver_url(Identifier("arxiv", "2101.00001v2")) == "https://arxiv.org/abs/2101.00001v2"
    assert resolver_url(Identifier("url", "https://a.example/p")) == "https://a.example/p"
    assert resolver_url(Identifier("isbn", "9780306406157")) is None
    assert resolver_url(Identifier("file", "notes.txt")) is None


@pytest.mark.parametrize(
    ("fmt", "needle"),
    [
        ("latex", r"\label{citeledger-audit-1}"),
        ("gfm", 'id="citeledger-audit-1"'),
        ("plain", "2026-08-02"),
    ],
)
def test_other_formats_keep_anchor_and_record(fmt: str, needle: str, pandoc_path: str) -> None:
    rows = [
        AuditRow(
            1,
            "cavalin2020",
            State.WITHDRAWN,
            ("Withdrawn on 2026-08-02: never read",),
            claim="claim",
            withdrawal=Withdrawal("2026-08-02", "never read"),
        )
    ]
    out = convert(audit_blocks(rows, evidence_dir_href=None), pandoc_path, fmt)
    assert needle in out


def test_docx_builds(pandoc_path: str, tmp_path: Path) -> None:
    target = tmp_path / "audit.docx"
    convert(audit_blocks(ROWS, evidence_dir_href=None), pandoc_path, "docx", "-o", str(target))
    assert target.read_bytes()[:2] == b"PK"
