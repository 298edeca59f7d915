"""The reader is shown every edit: a checked quotation's brackets and omissions, recorded by the
check, re-derived by the build, and said wherever the citation says "checked" (issue 7).

Receipts here are made by the real check (``receipts_for_retrieval``: extract → locate →
evidence) of the ``edits`` golden's page; the judge, the ledger, the pages and pandoc are real.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from citeledger.errors import LedgerError
from citeledger.evidence.page import render_evidence_page
from citeledger.evidence.publish import EvidencePageSet
from citeledger.evidence.store import EvidenceReader
from citeledger.judge import Judge
from citeledger.ledger import (
    append_receipt,
    load_ledger,
    receipt_from_mapping,
    receipt_to_dict,
)
from citeledger.model import CitationRef, Edit, Judgement, Ledger, Quote, Receipt, State
from citeledger.report.audit import audit_blocks, row_for
from citeledger.report.summary import Entry, entry_json

GOLDEN = Path(__file__).parent / "golden" / "edits"
sys.path.insert(0, str(GOLDEN))

from edits_judge import QUOTES, URL, checked_ledger  # noqa: E402

UPDATE = os.environ.get("CITELEDGER_UPDATE_GOLDEN") == "1"
OMITTED = "in the old library on Tuesday"


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    return checked_ledger(tmp_path)


def receipt_of(ledger: Ledger, key: str) -> Receipt:
    receipt = ledger.sources[key].quotes[0].latest
    assert receipt is not None
    return receipt


def with_receipt(ledger: Ledger, key: str, receipt: Receipt) -> Ledger:
    source = ledger.sources[key]
    quote = Quote(source.quotes[0].text, receipts=(receipt,))
    sources = {**ledger.sources, key: dataclasses.replace(source, quotes=(quote,))}
    return dataclasses.replace(ledger, sources=sources)


def judged(ledger: Ledger, key: str) -> Judgement:
    return Judge(ledger).judge(CitationRef(key))


def text_of(ledger: Ledger, receipt: Receipt) -> str:
    assert receipt.evidence is not None
    text = EvidenceReader(ledger.evidence_dir).load(receipt.evidence).text
    assert text is not None
    return text


# --- the receipt ---------------------------------------------------------------------------------


def test_the_check_records_the_omitted_words_and_the_bracket_with_offsets(ledger: Ledger) -> None:
    omitted, bracketed = receipt_of(ledger, "omitted"), receipt_of(ledger, "bracketed")
    [omission] = omitted.edits
    assert (omission.kind, omission.quote_text, omission.source_text) == ("omission", "…", OMITTED)
    [bracket] = bracketed.edits
    assert (bracket.kind, bracket.quote_text, bracket.source_text) == (
        "bracket",
        "[The budget]",
        "It",
    )
    for receipt, edit in ((omitted, omission), (bracketed, bracket)):
        text = text_of(ledger, receipt)
        assert text[edit.char_start : edit.char_end] == edit.source_text
        assert receipt.char_start is not None and receipt.char_end is not None
        assert receipt.char_start <= edit.char_start <= edit.char_end <= receipt.char_end


def test_a_quote_without_marks_records_no_edits(tmp_path: Path) -> None:
    plain = checked_ledger(tmp_path, {"plain": "The treasurer presented the accounts."})
    receipt = receipt_of(plain, "plain")
    assert receipt.outcome == "found" and receipt.edits == ()
    assert judged(plain, "plain").state is State.CHECKED
    assert "with" not in judged(plain, "plain").reasons[0]


def test_edits_survive_the_ledger_file(tmp_path: Path, ledger: Ledger) -> None:
    path = tmp_path / "citeledger.yaml"
    path.write_text(
        "# the writer's ledger\nsources:\n  omitted:\n    url: " + URL + "\n    quotes:\n"
        "      - text: " + QUOTES["omitted"] + "  # keep this\n",
        encoding="utf-8",
    )
    receipt = receipt_of(ledger, "omitted")
    append_receipt(path, "omitted", 0, receipt)
    assert "# keep this" in path.read_text("utf-8")
    loaded = load_ledger(str(path)).sources["omitted"].quotes[0].latest
    assert loaded is not None and loaded.edits == receipt.edits
    assert receipt_from_mapping(receipt_to_dict(receipt)) == receipt


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (
            {"kind": "omission", "quote_text": "…", "source_text": "x", "char_start": "4"},
            "char_start",
        ),
        (
            {"kind": "cut", "quote_text": "…", "source_text": "x", "char_start": 1, "char_end": 2},
            "cut",
        ),
        ({"kind": "omission", "quote_text": "…", "source_text": "x", "char_start": 1}, "char_end"),
        ("…", "str"),
    ],
)
def test_an_ill_typed_edit_given_as_data_is_one_clear_error(edit: object, says: str) -> None:
    data = {
        "outcome": "found",
        "identifier": "url:" + URL,
        "retrieved_at": "2026-03-04T09:12:44Z",
        "tool": "citeledger 0.1.0",
        "writer_quote_sha256": "0" * 64,
        "edits": [edit],
    }
    with pytest.raises(LedgerError) as info:
        receipt_from_mapping(data, file="citeledger.yaml", line=7)
    assert says in str(info.value) and "citeledger.yaml:7" in str(info.value)
    assert "\n" not in str(info.value)


# --- the judgement -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "words"), [("omitted", "with 1 omission"), ("bracketed", "with 1 bracketed change")]
)
def test_a_checked_edited_quote_says_so(ledger: Ledger, key: str, words: str) -> None:
    j = judged(ledger, key)
    assert j.state is State.CHECKED, j.reasons
    assert words in j.reasons[0]


def test_a_receipt_that_hides_an_omission_is_not_checked(ledger: Ledger) -> None:
    receipt = dataclasses.replace(receipt_of(ledger, "omitted"), edits=())
    j = judged(with_receipt(ledger, "omitted", receipt), "omitted")
    assert j.state is State.STALE
    assert OMITTED in j.reasons[0] and "citeledger verify" in j.reasons[0]


def test_a_receipt_that_claims_an_edit_the_locator_does_not_find_is_not_checked(
    ledger: Ledger,
) -> None:
    real = receipt_of(ledger, "bracketed")
    text = text_of(ledger, real)
    start = text.index("by post")
    invented = Edit("omission", "…", "by post", start, start + len("by post"))
    j = judged(
        with_receipt(ledger, "bracketed", dataclasses.replace(real, edits=(*real.edits, invented))),
        "bracketed",
    )
    assert j.state is State.STALE
    assert "by post" in j.reasons[0]


def test_a_receipt_naming_other_source_words_for_a_bracket_is_tampered(ledger: Ledger) -> None:
    real = receipt_of(ledger, "bracketed")
    [bracket] = real.edits
    forged = dataclasses.replace(bracket, source_text="The budget")
    receipt = dataclasses.replace(real, edits=(forged,))
    j = judged(with_receipt(ledger, "bracketed", receipt), "bracketed")
    assert j.state is State.TAMPERED
    assert "The budget" in j.reasons[0]


def test_check_json_lists_the_edits(ledger: Ledger) -> None:
    j = judged(ledger, "omitted")
    out = entry_json(Entry("chapter.md", CitationRef("omitted"), j))
    [edit] = out["edits"]
    assert edit["kind"] == "omission" and edit["source_text"] == OMITTED
    assert isinstance(edit["char_start"], int) and isinstance(edit["char_end"], int)
    json.dumps(out)


# --- what a reader sees --------------------------------------------------------------------------


def test_the_evidence_page_strikes_the_omitted_words_inside_the_highlight(ledger: Ledger) -> None:
    j = judged(ledger, "omitted")
    assert j.receipt is not None
    page = render_evidence_page(j, text=text_of(ledger, j.receipt))
    mark = re.search(r"<mark>(.*?)</mark>", page, re.S)
    assert mark is not None
    assert re.search(rf'<del class="citeledger-evidence-omitted"[^>]*>{OMITTED}</del>', mark[1])
    assert "with 1 omission" in page
    assert f"leaves out “{OMITTED}”" in page


def test_the_evidence_page_shows_a_bracket_with_the_source_words_it_stands_for(
    ledger: Ledger,
) -> None:
    j = judged(ledger, "bracketed")
    assert j.receipt is not None
    page = render_evidence_page(j, text=text_of(ledger, j.receipt))
    mark = re.search(r"<mark>(.*?)</mark>", page, re.S)
    assert mark is not None
    assert re.search(
        r'<del class="citeledger-evidence-replaced"[^>]*>It</del>'
        r'<ins class="citeledger-evidence-bracket"[^>]*>\[The budget\]</ins>',
        mark[1],
    )
    assert "stands for the source" in page


def test_an_edit_outside_the_stored_text_is_not_drawn(ledger: Ledger) -> None:
    j = judged(ledger, "omitted")
    assert j.receipt is not None
    [edit] = j.receipt.edits
    moved = dataclasses.replace(edit, source_text="never said")
    j = dataclasses.replace(j, receipt=dataclasses.replace(j.receipt, edits=(moved,)))
    page = render_evidence_page(j, text=text_of(ledger, j.receipt))
    assert "never said</del>" not in page


@pytest.mark.parametrize("fmt", ["html", "latex", "gfm", "plain", "docx"])
def test_the_audit_row_says_checked_with_the_edits_in_every_format(
    ledger: Ledger, pandoc_path: str, tmp_path: Path, fmt: str
) -> None:
    rows = [row_for(1, judged(ledger, "omitted")), row_for(2, judged(ledger, "bracketed"))]
    doc = {
        "pandoc-api-version": [1, 23, 1, 1],
        "meta": {},
        "blocks": audit_blocks(rows, evidence_dir_href=None),
    }
    cmd = [pandoc_path, "-f", "json", "--wrap=none"]
    if fmt == "docx":
        out = tmp_path / "audit.docx"
        subprocess.run(
            [*cmd, "-t", "docx", "-o", str(out)], input=json.dumps(doc), text=True, check=True
        )
        done = subprocess.run(
            [pandoc_path, str(out), "-t", "plain", "--wrap=none"],
            capture_output=True,
            text=True,
            check=True,
        )
    else:
        done = subprocess.run(
            [*cmd, "-t", fmt], input=json.dumps(doc), capture_output=True, text=True, check=True
        )
    flat = " ".join(re.sub(r"<[^>]+>|\\textbf\{|\}|\*\*", " ", done.stdout).split())
    flat = flat.replace(" ,", ",")
    assert "checked, with 1 omission" in flat
    assert "checked, with 1 bracketed change" in flat


# --- golden evidence pages -----------------------------------------------------------------------


def test_golden_evidence_pages(ledger: Ledger, tmp_path: Path) -> None:
    """The pages the ``edits`` golden's evidence links name, as a reader opens them."""
    pages = EvidencePageSet(EvidenceReader(ledger.evidence_dir), tmp_path / "evidence")
    judge = Judge(ledger)
    names = [pages.add(judge.judge(CitationRef(key)), key=key) for key in QUOTES]
    pages.write()
    html = (GOLDEN / "expected.html").read_text("utf-8")
    for name in names:
        assert name is not None and f"evidence/{name}" in html
        actual = (tmp_path / "evidence" / name).read_text("utf-8")
        expected = GOLDEN / "evidence" / name
        if UPDATE:
            expected.parent.mkdir(exist_ok=True)
            expected.write_text(actual, encoding="utf-8")
            continue
        assert expected.is_file(), f"no golden {expected}: run `make update-golden`"
        assert actual == expected.read_text("utf-8")


@pytest.mark.parametrize("name", ["html", "latex", "gfm", "plain", "docx.md"])
def test_the_golden_says_checked_with_each_edit(name: str) -> None:
    text = (GOLDEN / f"expected.{name}").read_text("utf-8")
    flat = " ".join(re.sub(r"<[^>]+>|\\textbf\{|[{}*\\]", " ", text).split()).replace(" ,", ",")
    assert "checked, with 1 omission" in flat or name in ("plain", "docx.md")
    assert "with 1 omission" in flat and "with 1 bracketed change" in flat
    if name == "html":  # the checked citation's own evidence link says it at the claim
        assert "evidence (checked, with 1 omission)" in flat
        assert "evidence (checked, with 1 bracketed change)" in flat
