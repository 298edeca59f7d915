"""``citeledger evidence`` and the build's evidence pages: one per receipt, never repaired.

Receipts are made by the real receipt path (extract → locate → evidence store) and written into a
ledger file with the ledger's own writer, so the pages are of what ``verify`` would leave behind.
"""

from __future__ import annotations

import gzip
import os
import re
from pathlib import Path

import pytest

from browser_util import MANUAL, URL  # the sample claims manual the browser test reads too
from citeledger.evidence.publish import (
    INDEX_NAME,
    EvidencePageSet,
    RenderedPages,
    back_links_for,
    build_evidence_pages,
    write_evidence_page,
    write_evidence_pages,
)
from citeledger.evidence.store import EvidenceReader, EvidenceStore
from citeledger.judge import Judge
from citeledger.ledger import append_receipts, load_ledger
from citeledger.model import CitationRef, Receipt, Retrieval, Source, State
from citeledger.verify.receipts import receipts_for_retrieval

OTHER_URL = "http://127.0.0.1:9/other.html"
OTHER = (
    b"<html><body><p>A different page about something else entirely, at length.</p></body></html>"
)

LEDGER = f"""\
# a ledger as a writer keeps it
sources:
  hchm:
    url: {URL}
    title: Household Claims Handling Manual
    quotes:
      - text: >-
          An appeal against a declined subsidence claim must be received within 60 days of the
          date of the decision letter.
        locator: sec. 14.2
      - id: contents
        text: An appeal must state the claim number, the decision appealed against and the grounds
        locator: sec. 14.3
  hchm-misquoted:
    url: {URL}
    title: Household Claims Handling Manual
    quotes:
      - text: >-
          An appeal against a declined subsidence claim must be received within 90 days of the
          date of the decision letter.
  withdrawn-manual:
    url: {URL}
    title: Household Claims Handling Manual
    quotes:
      - text: Late appeals are considered only for good reason.
    withdrawn:
      date: 2026-08-02
      reason: The claim it supported was rewritten.
  larson2019:
    doi: 10.18653/v1/D19-1131
    title: An Evaluation Dataset for Intent Classification
    quotes:
      - text: they struggle to identify out-of-scope queries
  boardminutes:
    url: {OTHER_URL}
    title: Confidential board minutes
    audience: staff
    quotes:
      - text: A different page about something else entirely
"""

VERIFIED = {
    "hchm": MANUAL,
    "hchm-misquoted": MANUAL,
    "withdrawn-manual": MANUAL,
    "boardminutes": OTHER,
}


def make_ledger(tmp_path: Path, prefix: str = "") -> Path:
    """The ledger, verified; ``prefix`` before every key gives another ledger's sources."""
    path = tmp_path / "citeledger.yaml"
    text = LEDGER
    for key in ("hchm", "hchm-misquoted", "withdrawn-manual", "larson2019", "boardminutes"):
        text = text.replace(f"\n  {key}:\n", f"\n  {prefix}{key}:\n")
    path.write_text(text, encoding="utf-8")
    ledger = load_ledger(path)
    store = EvidenceStore(ledger.evidence_dir)
    entries = []
    for key, body in VERIFIED.items():
        key = prefix + key
        entries += verified(ledger.sources[key], key, body, store)
    append_receipts(path, entries)
    return path


def verified(
    source: Source, key: str, body: bytes, store: EvidenceStore, at: str = "2026-08-03T10:00:00Z"
) -> list[tuple[str, int, Receipt]]:
    """The receipts a retrieval of ``body`` at ``at`` gives ``source``'s quotes."""
    retrieval = Retrieval(
        identifier=source.identifier,
        requested_url=source.identifier.value,
        url=source.identifier.value,
        status=200,
        content_type="text/html; charset=utf-8",
        body=body,
        retrieved_at=at,
    )
    return [(key, i, r) for i, r in receipts_for_retrieval(source, retrieval, store)]


@pytest.fixture()
def ledger_path(tmp_path: Path) -> Path:
    return make_ledger(tmp_path)


def pages(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.html"))}


def page_of(folder: Path, key: str) -> list[str]:
    return [text for name, text in pages(folder).items() if name.startswith(key + "-2026")]


def test_command_writes_one_page_per_receipt_and_an_index(
    ledger_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site" / "evidence"
    assert write_evidence_pages(str(ledger_path), str(out)) == 0
    line = capsys.readouterr().out.strip()
    assert "\n" not in line
    assert line.startswith("citeledger: 4 evidence pages in")  # 2 hchm, misquoted, withdrawn
    assert "2 failed" in line and "1 quotes never verified" in line and "1 restricted" in line

    written = pages(out)
    assert INDEX_NAME in written and len(written) == 5
    [checked_a, checked_b] = page_of(out, "hchm")
    for page in (checked_a, checked_b):
        assert "<mark>" in page and "FAILED" not in page.split("<main>")[1].split("</div>")[0]

    index = written[INDEX_NAME]
    links = re.findall(r'href="([^"]*)"', index)
    assert sorted(links) == sorted(n for n in written if n != INDEX_NAME)  # relative, all pages
    assert "<script" not in index
    assert 'content="default-src &#x27;none&#x27;' in index  # CSP: nothing may load or run
    assert "never verified" in index and "@larson2019" in index


def test_rebuilding_changes_nothing(ledger_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "evidence"
    first = build_evidence_pages(ledger_path, out)
    assert first.written == 5
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in out.iterdir()}
    again = build_evidence_pages(ledger_path, out)
    assert again.written == 0 and again.pages == first.pages
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in out.iterdir()} == before
    assert not [p for p in out.iterdir() if p.name.startswith(".tmp-")]


def test_misquote_page_fails_and_says_why(ledger_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "evidence"
    build_evidence_pages(ledger_path, out)
    [page] = page_of(out, "hchm-misquoted")
    assert "FAILED" in page and "citeledger-evidence-failed" in page
    assert "<mark>" not in page  # no passage is presented as the quote
    assert "90 days" in page and "60 days" in page  # the writer's words and the nearest passage


def test_withdrawn_citation_keeps_its_retrieval_and_record(
    ledger_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "evidence"
    build_evidence_pages(ledger_path, out)
    [page] = page_of(out, "withdrawn-manual")
    assert "FAILED: Withdrawn citation" in page
    assert "2026-08-02" in page and "The claim it supported was rewritten." in page
    assert "<mark>Late appeals are considered only for good reason.</mark>" in page
    assert "not evidence" in page  # shown for inspection, not as support


def test_restricted_source_gets_no_page_and_no_name(ledger_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "public"
    result = build_evidence_pages(ledger_path, out, audience="public")
    assert result.restricted_sources == 1
    for name, text in pages(out).items():
        assert "boardminutes" not in name
        assert "boardminutes" not in text and "Confidential board minutes" not in text
    staff = build_evidence_pages(ledger_path, tmp_path / "staff", audience="staff")
    assert staff.restricted_sources == 0
    assert page_of(tmp_path / "staff", "boardminutes")


def test_missing_evidence_fails_the_page_not_repairs_it(ledger_path: Path, tmp_path: Path) -> None:
    ledger = load_ledger(ledger_path)
    receipt = ledger.sources["hchm"].quotes[0].latest
    assert receipt is not None and receipt.evidence
    os.unlink(Path(ledger.evidence_dir) / receipt.evidence)
    out = tmp_path / "evidence"
    build_evidence_pages(ledger_path, out)
    [first, second] = page_of(out, "hchm")
    for page in (first, second):
        assert "FAILED" in page and "missing from the evidence store" in page
        assert "<mark>" not in page


def test_swapped_evidence_is_named_and_fails(ledger_path: Path, tmp_path: Path) -> None:
    """Another retrieval's record under this receipt's name: rule 16, never passed off as it."""
    ledger = load_ledger(ledger_path)
    mine = ledger.sources["hchm"].quotes[0].latest
    other = ledger.sources["boardminutes"].quotes[0].latest
    assert mine and other and mine.evidence and other.evidence
    store = Path(ledger.evidence_dir)
    (store / mine.evidence).write_bytes((store / other.evidence).read_bytes())
    reader = EvidenceReader(ledger.evidence_dir)
    j = Judge(ledger, reader=reader).judge(CitationRef("hchm", locator="sec. 14.2"))
    assert j.state is State.TAMPERED
    name = write_evidence_page(j, reader, tmp_path / "ev", key="hchm")
    assert name is not None
    page = (tmp_path / "ev" / name).read_text(encoding="utf-8")
    assert "FAILED" in page
    assert "no longer matches the digest in its receipt" in page
    assert "<mark>" not in page or "not evidence" in page


def test_corrupt_evidence_fails(ledger_path: Path, tmp_path: Path) -> None:
    ledger = load_ledger(ledger_path)
    receipt = ledger.sources["hchm"].quotes[0].latest
    assert receipt and receipt.evidence
    (Path(ledger.evidence_dir) / receipt.evidence).write_bytes(gzip.compress(b"not a warc"))
    out = tmp_path / "evidence"
    build_evidence_pages(ledger_path, out)
    for page in page_of(out, "hchm"):
        assert "FAILED" in page


def test_never_verified_has_no_page(ledger_path: Path, tmp_path: Path) -> None:
    ledger = load_ledger(ledger_path)
    reader = EvidenceReader(ledger.evidence_dir)
    j = Judge(ledger, reader=reader).judge(CitationRef("larson2019"))
    assert j.state is State.UNCHECKED
    assert write_evidence_page(j, reader, tmp_path / "ev", key="larson2019") is None
    assert not (tmp_path / "ev").exists() or not list((tmp_path / "ev").iterdir())


def test_page_name_is_stable_and_page_identical(ledger_path: Path, tmp_path: Path) -> None:
    ledger = load_ledger(ledger_path)
    reader = EvidenceReader(ledger.evidence_dir)
    j = Judge(ledger, reader=reader).judge(CitationRef("hchm", locator="sec. 14.2"))
    assert j.state is State.CHECKED
    out = tmp_path / "ev"
    links = back_links_for(2, "../c.html")
    a = write_evidence_page(j, reader, out, key="hchm", back_links=links)
    data = (out / str(a)).read_bytes()
    fresh = EvidenceReader(ledger.evidence_dir)
    again = Judge(ledger, reader=fresh).judge(CitationRef("hchm", locator="sec. 14.2"))
    b = write_evidence_page(
        again, fresh, out, key="hchm", back_links=back_links_for(2, "../c.html")
    )
    assert a == b and (out / str(b)).read_bytes() == data
    assert 'href="../c.html#citeledger-claim-2"' in data.decode()


def test_back_links_must_stay_relative(ledger_path: Path, tmp_path: Path) -> None:
    ledger = load_ledger(ledger_path)
    reader = EvidenceReader(ledger.evidence_dir)
    j = Judge(ledger, reader=reader).judge(CitationRef("hchm", locator="sec. 14.2"))
    with pytest.raises(ValueError, match="relative"):
        write_evidence_page(j, reader, tmp_path, key="hchm", back_links=[("https://x/", "x")])


def test_page_set_gives_a_shared_page_every_citations_back_links(
    ledger_path: Path, tmp_path: Path
) -> None:
    ledger = load_ledger(ledger_path)
    reader = EvidenceReader(ledger.evidence_dir)
    judge = Judge(ledger, reader=reader)
    pages_ = EvidencePageSet(reader, tmp_path / "ev")
    names = []
    for n in (1, 4):  # the same quote cited twice
        j = judge.judge(CitationRef("hchm", locator="sec. 14.2", occurrence=n))
        names.append(pages_.add(j, key="hchm", back_links=back_links_for(n, "../c.html")))
    unchecked = judge.judge(CitationRef("larson2019", occurrence=2))
    assert pages_.add(unchecked, key="larson2019") is None
    assert names[0] == names[1] and names[0] is not None
    assert pages_.write() == [names[0]]
    page = (tmp_path / "ev" / names[0]).read_text(encoding="utf-8")
    for n in (1, 4):
        assert f'href="../c.html#citeledger-claim-{n}"' in page
        assert f'href="../c.html#citeledger-audit-{n}"' in page


def test_bad_ledger_is_an_error_with_its_file(tmp_path: Path) -> None:
    from citeledger.errors import LedgerError

    with pytest.raises(LedgerError, match="does not exist"):
        write_evidence_pages(str(tmp_path / "nope.yaml"), str(tmp_path / "ev"))


def test_two_ledgers_share_one_pages_folder_and_each_removes_only_its_own(
    tmp_path: Path,
) -> None:
    """Two ledgers publish into one folder: neither run removes the other's pages; each
    still removes its own old pages (one its earlier run recorded, one from before any
    record), and never an old-looking page named by the other's key."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a, b = make_ledger(tmp_path / "a"), make_ledger(tmp_path / "b", prefix="b-")
    out = tmp_path / "site" / "evidence"
    first_a = build_evidence_pages(a, out)
    first_b = build_evidence_pages(b, out)
    assert len(first_a.pages) == len(first_b.pages) == 4
    assert not set(first_a.pages) & set(first_b.pages)
    for name in (*first_a.pages, *first_b.pages):
        assert (out / name).is_file(), name
    old_a = out / "hchm-20200101T000000Z-0123456789ab-deadbeef.html"  # before any record
    old_b = out / "b-hchm-20200101T000000Z-0123456789ab-deadbeef.html"
    for old in (old_a, old_b):
        old.write_text("an old page", encoding="utf-8")
    again_a = build_evidence_pages(a, out)
    assert again_a.pages == first_a.pages
    assert not old_a.exists() and old_b.exists()
    for name in (*first_a.pages, *first_b.pages):
        assert (out / name).is_file(), name
    # a source removed from a: its page, recorded by a's last run, goes; b's pages stay
    text = a.read_text(encoding="utf-8")
    cut = text[text.index("  hchm-misquoted:") : text.index("  withdrawn-manual:")]
    a.write_text(text.replace(cut, ""), encoding="utf-8")
    edited = build_evidence_pages(a, out)
    gone = set(first_a.pages) - set(edited.pages)
    assert len(gone) == 1 and next(iter(gone)).startswith("hchm-misquoted-")
    assert not any((out / name).exists() for name in gone)
    build_evidence_pages(b, out)
    assert not old_b.exists()
    for name in (*edited.pages, *first_b.pages):
        assert (out / name).is_file(), name


def test_a_batch_draws_each_page_from_its_own_store(ledger_path: Path, tmp_path: Path) -> None:
    """Two builds of one batch, two evidence stores, one pages folder: an equal judgement does
    not make store B's page a copy of the one drawn from store A's evidence."""
    ledger = load_ledger(ledger_path)
    reader = EvidenceReader(ledger.evidence_dir)
    j = Judge(ledger, reader=reader).judge(CitationRef("hchm", locator="sec. 14.2"))
    assert j.state is State.CHECKED
    rendered, out = RenderedPages(), tmp_path / "ev"
    a = EvidencePageSet(reader, out, rendered)
    (name,) = [a.add(j, key="hchm")]
    assert a.write() == [name] and name is not None
    assert "FAILED" not in (out / name).read_text(encoding="utf-8").split("<main>")[1][:400]
    (tmp_path / "empty-store").mkdir()
    b = EvidencePageSet(EvidenceReader(tmp_path / "empty-store"), out, rendered)
    b.add(j, key="hchm")
    assert b.write() == [name]
    assert "FAILED" in (out / name).read_text(encoding="utf-8")  # B holds no evidence for it


def test_two_ledgers_in_one_folder_share_an_index_that_lists_both(tmp_path: Path) -> None:
    """The folder's index.html is not the last ledger's alone: it lists every ledger's pages,
    the same whichever ran last; a folder of one ledger keeps its one-ledger index."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a, b = make_ledger(tmp_path / "a"), make_ledger(tmp_path / "b", prefix="b-")
    out = tmp_path / "site" / "evidence"
    first_a = build_evidence_pages(a, out)
    alone = (out / INDEX_NAME).read_text(encoding="utf-8")
    assert "Evidence pages of <code>citeledger.yaml</code>" in alone
    first_b = build_evidence_pages(b, out)
    index = (out / INDEX_NAME).read_text(encoding="utf-8")
    links = set(re.findall(r'href="([^"]*)"', index))
    assert links == set(first_a.pages) | set(first_b.pages)
    assert "@hchm-misquoted" in index and "@b-hchm-misquoted" in index
    assert "@larson2019" in index and "@b-larson2019" in index  # never verified, both
    assert "Ledger <code>../../a/citeledger.yaml</code>" in index
    assert "Ledger <code>../../b/citeledger.yaml</code>" in index
    build_evidence_pages(a, out)
    assert (out / INDEX_NAME).read_text(encoding="utf-8") == index  # whichever ran last
