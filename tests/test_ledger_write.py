"""Writing the ledger: only ever adding, never losing a byte of what the writer wrote."""

from __future__ import annotations

import dataclasses
import fcntl
import os
import re
import stat
from pathlib import Path
from typing import Any

import pytest

from citeledger.errors import LedgerError
from citeledger.ledger import (
    add_quote,
    add_source,
    append_receipt,
    append_receipts,
    edit_ledger,
    load_ledger,
    lock_path,
    receipt_from_mapping,
    receipt_to_dict,
    set_disputed,
    set_withdrawn,
)
from citeledger.model import Receipt

COMMENTED = """\
---
# The writer's ledger for chapter 3.   Odd spacing is deliberate.
citeledger: 1   # format
evidence_dir: ".citeledger"

sources:

  # ── First source ───────────────────────────────
  cavalin2020:
    doi:    10.18653/v1/2020.emnlp-main.324    # aligned comment
    type: 'paper-conference'
    title: "Improving Out-of-Scope Detection in Intent Classification"
    author:
    - {family: Cavalin,   given: Paulo}   # flow, odd spacing
    - family: 'Alves'
      given: "Victor"
    issued: 2020
    quotes:
      - text: "This paper explores how intent classification \\u2026"
        id: abstract
        locator: p. 3952   # page

      - text: a plain scalar that
          runs over two lines
      - text: |
          A literal block,
          two lines.
        locator: 'sec. 2'
      # a comment between quotes and the next source


  hchm:    # the manual
    url: https://example.org/manual?x=1&y=2
    audience: [claims_handler]
    quotes:
        - text: >-
            An appeal must be received
            within 60 days.
          locator: p. 14
          receipts:
              - outcome: found
                identifier: url:https://example.org/manual?x=1&y=2
                retrieved_at: 2026-03-04T09:12:44Z
                tool: citeledger 0.1.0
                writer_quote_sha256: "dd"      # old receipt, never touched
# trailing comment at column 0

#   and another, after a blank line
"""


def receipt(**over: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "outcome": "found",
        "identifier": "doi:10.18653/v1/2020.emnlp-main.324",
        "requested_url": "https://doi.org/10.18653/v1/2020.emnlp-main.324",
        "url": "https://aclanthology.org/2020.emnlp-main.324.pdf",
        "redirects": ["https://doi.org/10.18653/v1/2020.emnlp-main.324"],
        "status": 200,
        "content_type": "application/pdf",
        "retrieved_at": "2026-08-02T09:12:44Z",
        "body_sha256": "a" * 64,
        "evidence": "sha256/aa/" + "a" * 64,
        "extractor": "pdfminer.six 20231228",
        "text_sha256": "b" * 64,
        "page": 1,
        "char_start": 0,
        "char_end": 47,
        "quote": "This paper explores how intent classification …",
        "quote_sha256": "c" * 64,
        "prefix": "",
        "suffix": " can be improved: yes, no, 1:30",
        "match": "exact",
        "score": 1.0,
        "writer_quote_sha256": "d" * 64,
        "tool": "citeledger 0.1.0",
    }
    data.update(over)
    return data


def common_ends(before: str, after: str) -> tuple[int, int]:
    """How many characters ``before`` and ``after`` share at the start, then at the end (the
    two never overlap in ``before``): an insertion and nothing else when they add up to it."""
    p = 0
    while p < min(len(before), len(after)) and before[p] == after[p]:
        p += 1
    s = 0
    while s < len(before) - p and before[-1 - s] == after[-1 - s]:
        s += 1
    return p, s


def inserted(before: str, after: str) -> str:
    """The one contiguous block ``after`` adds to ``before``; fails if anything else changed."""
    p, s = common_ends(before, after)
    assert p + s == len(before), f"bytes outside the insertion changed near offset {p}"
    return after[p : len(after) - s]


def assert_inserted(before: str, after: str, block: str) -> None:
    at = after.index(block)
    assert after[:at] + after[at + len(block) :] == before


def same_but_line(a: Any, b: Any) -> bool:
    return dataclasses.replace(a, line=None) == dataclasses.replace(b, line=None)


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    path = tmp_path / "citeledger.yaml"
    path.write_text(COMMENTED, "utf-8")
    load_ledger(path)  # the fixture itself is valid
    return path


# --- append_receipt: byte-identical outside the new receipt ---------------------------------


def test_append_receipt_creates_receipts_and_changes_nothing_else(ledger: Path) -> None:
    before = ledger.read_text("utf-8")
    old = load_ledger(ledger)
    written = append_receipt(ledger, "cavalin2020", 0, receipt())
    after = ledger.read_text("utf-8")
    block = inserted(before, after)
    assert block.startswith("        receipts:\n          - outcome: found\n")
    assert "# page\n" + block in after  # right after the quote's last line, comment kept
    new = load_ledger(ledger)
    quote = new.sources["cavalin2020"].quotes[0]
    assert quote.receipts == (written,)
    assert same_but_line(written, receipt_from_mapping(receipt()))
    assert after.splitlines()[written.line - 1].strip() == "- outcome: found"
    # everything else is the same model
    for key in old.sources:
        if key != "cavalin2020":
            assert new.sources[key] == old.sources[key]
    assert new.sources["cavalin2020"].quotes[1:] == old.sources["cavalin2020"].quotes[1:]


@pytest.mark.parametrize("quote_index", [0, 1, 2])
def test_append_to_every_kind_of_quote_block(ledger: Path, quote_index: int) -> None:
    before = ledger.read_text("utf-8")
    old_text = load_ledger(ledger).sources["cavalin2020"].quotes[quote_index].text
    append_receipt(ledger, "cavalin2020", quote_index, receipt())
    block = inserted(before, ledger.read_text("utf-8"))
    assert "outcome: found" in block
    quote = load_ledger(ledger).sources["cavalin2020"].quotes[quote_index]
    assert quote.text == old_text  # a block scalar or folded plain scalar is not disturbed
    assert len(quote.receipts) == 1


def test_history_is_appended_never_overwritten(ledger: Path) -> None:
    old = load_ledger(ledger).sources["hchm"].quotes[0].receipts
    before = ledger.read_text("utf-8")
    append_receipt(ledger, "hchm", 0, receipt(outcome="changed", identifier="url:x"))
    middle = ledger.read_text("utf-8")
    block = inserted(before, middle)
    assert block.startswith("              - outcome: changed\n")  # the list's own indentation
    assert middle.endswith(
        "# trailing comment at column 0\n\n#   and another, after a blank line\n"
    )
    append_receipt(ledger, "hchm", 0, receipt(outcome="gone", identifier="url:x"))
    inserted(middle, ledger.read_text("utf-8"))
    receipts = load_ledger(ledger).sources["hchm"].quotes[0].receipts
    assert receipts[:1] == old
    assert [r.outcome for r in receipts] == ["found", "changed", "gone"]


def test_receipt_strings_that_look_like_other_types_survive(ledger: Path) -> None:
    tricky = receipt(
        quote="yes",
        prefix="  leading and trailing  ",
        suffix="2026-08-02",
        candidate="null",
        reason="on",
        extractor="0777",
        etag='"W/abc"',
        last_modified="Tue, 15 Nov 1994 08:12:31 GMT",
        differences=["source says '90', quote says '60'", "- a dash", "# a hash", "key: value"],
        metadata={"title": "No", "issued": {"date-parts": [[2020, 11]]}, "page": "012"},
    )
    written = append_receipt(ledger, "cavalin2020", 1, tricky)
    assert same_but_line(written, receipt_from_mapping(tricky))
    assert written.metadata == {
        "title": "No",
        "issued": {"date-parts": [[2020, 11]]},
        "page": "012",
    }


def test_receipt_can_be_given_as_a_model_value(ledger: Path) -> None:
    value = receipt_from_mapping(receipt(score=0.93, match="fuzzy"))
    written = append_receipt(ledger, "hchm", 0, value)
    assert same_but_line(written, value)


def test_append_receipts_writes_a_batch_in_order(ledger: Path) -> None:
    before = ledger.read_text("utf-8")
    out = append_receipts(
        ledger,
        [
            ("cavalin2020", 2, receipt(tool="one")),
            ("hchm", 0, receipt(tool="two")),
            ("cavalin2020", 2, receipt(tool="three")),
        ],
    )
    assert [r.tool for r in out] == ["one", "two", "three"]
    new = load_ledger(ledger)
    assert [r.tool for r in new.sources["cavalin2020"].quotes[2].receipts] == ["one", "three"]
    assert new.sources["hchm"].quotes[0].receipts[-1].tool == "two"
    after = ledger.read_text("utf-8")
    # two separate insertions: removing both blocks gives the original back
    assert after.count("tool: one") == after.count("tool: three") == 1
    assert len(after.splitlines()) > len(before.splitlines())


def test_a_quote_in_flow_style_still_gets_its_receipt(tmp_path: Path) -> None:
    path = tmp_path / "citeledger.yaml"
    path.write_text(
        "# flow\nsources:\n  a: {doi: 10.1234/x, quotes: [{text: words, id: w}]}\n", "utf-8"
    )
    written = append_receipt(path, "a", 0, receipt())
    new = load_ledger(path)
    assert new.sources["a"].quotes[0].receipts == (written,)
    assert new.sources["a"].quotes[0].id == "w"
    assert path.read_text("utf-8").startswith("# flow\n")


def test_a_comment_between_a_dash_and_its_item_keeps_the_splice(tmp_path: Path) -> None:
    """``-  # note`` with the item on the next line (found by the generated-styles property): the
    receipt is spliced in, so the writer's anchors and comments stay, not re-dumped away."""
    original = (
        "sources: &all\n"
        "  a: &src\n"
        "    doi: 10.1234/x\n"
        "    quotes:\n"
        "    -  # the first\n"
        "\n"
        "      text: words\n"
        "      receipts:\n"
        "        -  # an old one\n"
        "          outcome: found\n"
        "          identifier: 10.1234/x\n"
        "          retrieved_at: '2024-05-01T10:00:00Z'\n"
        "          tool: citeledger 0.1.0\n"
        "          writer_quote_sha256: " + "0" * 64 + "\n"
    )
    path = tmp_path / "citeledger.yaml"
    path.write_text(original, "utf-8")
    append_receipt(path, "a", 0, receipt())
    after = path.read_text("utf-8")
    assert after.startswith(original), after
    assert len(load_ledger(path).sources["a"].quotes[0].receipts) == 2


def test_crlf_ledger_stays_crlf(tmp_path: Path) -> None:
    path = tmp_path / "citeledger.yaml"
    path.write_bytes(b"sources:\r\n  a:\r\n    doi: 10.1234/x\r\n    quotes:\r\n    - text: w\r\n")
    append_receipt(path, "a", 0, receipt())
    data = path.read_bytes()
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert data.startswith(b"sources:\r\n  a:\r\n    doi: 10.1234/x\r\n")
    assert len(load_ledger(path).sources["a"].quotes[0].receipts) == 1


def test_ledger_without_final_newline(tmp_path: Path) -> None:
    path = tmp_path / "citeledger.yaml"
    text = "sources:\n  a:\n    doi: 10.1234/x\n    quotes:\n      - text: w  # end"
    path.write_text(text, "utf-8")
    append_receipt(path, "a", 0, receipt())
    after = path.read_text("utf-8")
    assert after.startswith(text + "\n        receipts:\n")
    assert len(load_ledger(path).sources["a"].quotes[0].receipts) == 1


def test_unknown_key_and_quote_are_refused_and_nothing_is_written(ledger: Path) -> None:
    before = ledger.read_bytes()
    with pytest.raises(LedgerError) as err:
        append_receipt(ledger, "cavalin2021", 0, receipt())
    assert "no source 'cavalin2021'" in str(err.value)
    assert err.value.fix == "did you mean 'cavalin2020'?"
    with pytest.raises(LedgerError) as err:
        append_receipt(ledger, "hchm", 3, receipt())
    assert "has no quote number 4 (it has 1)" in str(err.value)
    assert ledger.read_bytes() == before


def test_an_invalid_receipt_is_refused_before_writing(ledger: Path) -> None:
    before = ledger.read_bytes()
    bad = receipt()
    del bad["writer_quote_sha256"]
    with pytest.raises(LedgerError, match="has no writer_quote_sha256"):
        append_receipt(ledger, "hchm", 0, bad)
    with pytest.raises(LedgerError, match="'status' must be a whole number"):
        append_receipt(ledger, "hchm", 0, receipt(status="200"))
    with pytest.raises(LedgerError, match="unknown receipt field 'verdict'"):
        append_receipt(ledger, "hchm", 0, receipt(verdict="ok"))
    assert ledger.read_bytes() == before


# --- withdrawals, disputes, sources ----------------------------------------------------------


@pytest.mark.parametrize(
    ("setter", "field"), [(set_withdrawn, "withdrawn"), (set_disputed, "disputed")]
)
def test_record_is_added_once_and_never_replaced(ledger: Path, setter: Any, field: str) -> None:
    before = ledger.read_text("utf-8")
    record = setter(ledger, "cavalin2020", "2026-08-02", "It is about word graphs.", "This paper…")
    after = ledger.read_text("utf-8")
    expected = (
        f"    {field}:\n      date: 2026-08-02\n      reason: It is about word graphs.\n"
        "      source_says: This paper…\n"
    )
    # the record is logged too, and the log's newest entry named in the same write
    head = re.search(r"^history_head: ([0-9a-f]{64})\n", after, re.M)
    assert head is not None and load_ledger(ledger).history_head == head.group(1)
    assert_inserted(before, after.replace(head.group(0), "", 1), expected)
    assert after[: after.index(expected)].endswith("locator: 'sec. 2'\n")  # source's last line
    assert record.date == "2026-08-02" and record.source_says == "This paper…"
    assert getattr(load_ledger(ledger).sources["cavalin2020"], field) == record
    with pytest.raises(LedgerError) as err:
        setter(ledger, "cavalin2020", "2026-09-01", "A second thought.")
    assert f"source 'cavalin2020' is already {field} (on 2026-08-02" in str(err.value)
    assert err.value.line == record.line
    assert "kept as it is" in (err.value.fix or "")
    assert ledger.read_text("utf-8") == after


def test_record_needs_an_iso_date_and_a_reason(ledger: Path) -> None:
    import datetime

    before = ledger.read_bytes()
    with pytest.raises(LedgerError, match="not an ISO date"):
        set_withdrawn(ledger, "hchm", "yesterday", "r")
    with pytest.raises(LedgerError, match="needs a reason"):
        set_withdrawn(ledger, "hchm", "2026-08-02", "  ")
    assert ledger.read_bytes() == before
    record = set_disputed(ledger, "hchm", datetime.date(2026, 8, 2), "No.")
    assert record.date == "2026-08-02"


def test_add_source_appends_in_the_writer_style(ledger: Path) -> None:
    before = ledger.read_text("utf-8")
    source = add_source(
        ledger,
        "smith2021",
        {
            "arxiv": "2101.00001v2",
            "title": "Yes",
            "author": [{"family": "Smith", "given": "Jo"}],
            "issued": 2021,
            "quotes": [{"text": "We show that X.", "locator": "p. 2"}],
        },
    )
    block = inserted(before, ledger.read_text("utf-8"))
    assert block.startswith("  smith2021:\n    arxiv: 2101.00001v2\n")
    assert source.identifier.value == "2101.00001v2" and source.csl["title"] == "Yes"
    assert load_ledger(ledger).sources["smith2021"] == source
    assert list(load_ledger(ledger).sources) == ["cavalin2020", "hchm", "smith2021"]


def test_add_source_refuses_an_existing_key_and_invalid_fields(ledger: Path) -> None:
    before = ledger.read_bytes()
    with pytest.raises(LedgerError, match="already in the ledger"):
        add_source(ledger, "hchm", {"url": "https://example.org"})
    with pytest.raises(LedgerError) as err:
        add_source(ledger, "new", {"doi": "https://doi.org/10.1234/x"})
    assert "refused to write the ledger" in err.value.message
    assert "write the bare DOI" in (err.value.fix or "")
    with pytest.raises(LedgerError, match="not a citation key"):
        add_source(ledger, "bad key", {"doi": "10.1234/x"})
    assert ledger.read_bytes() == before


@pytest.mark.parametrize("start", ["sources: {}\n", "sources:\n", "# new\nsources:   # none yet\n"])
def test_add_source_to_an_empty_ledger(tmp_path: Path, start: str) -> None:
    path = tmp_path / "citeledger.yaml"
    path.write_text(start, "utf-8")
    add_source(path, "a", {"doi": "10.1234/x", "quotes": [{"text": "w"}]})
    add_source(path, "b", {"url": "https://example.org"})
    text = path.read_text("utf-8")
    assert "{" not in text  # block style, like a writer would type it
    assert list(load_ledger(path).sources) == ["a", "b"]
    if start.startswith("#"):
        assert text.startswith("# new\n")


def test_add_source_creates_the_ledger_only_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "citeledger.yaml"
    with pytest.raises(LedgerError, match="does not exist"):
        add_source(path, "a", {"doi": "10.1234/x"})
    assert not path.exists()
    add_source(path, "a", {"doi": "10.1234/x"}, create=True)
    assert load_ledger(path).sources["a"].identifier.value == "10.1234/x"


# --- edit_ledger: atomic, validated, round-trip ----------------------------------------------


def test_exception_inside_edit_leaves_the_file_byte_identical(ledger: Path) -> None:
    before = ledger.read_bytes()
    with pytest.raises(RuntimeError), edit_ledger(ledger) as doc:
        doc["sources"]["hchm"]["title"] = "changed"
        del doc["sources"]["cavalin2020"]
        raise RuntimeError("boom")
    assert ledger.read_bytes() == before
    assert sorted(p.name for p in ledger.parent.iterdir()) == [".citeledger", "citeledger.yaml"]


def test_an_edit_that_would_make_the_ledger_invalid_is_refused(ledger: Path) -> None:
    before = ledger.read_bytes()
    with pytest.raises(LedgerError) as err, edit_ledger(ledger) as doc:
        doc["sources"]["hchm"]["doi"] = "10.1234/x"
    assert "refused to write the ledger" in str(err.value)
    assert "two identifiers" in str(err.value)
    assert ledger.read_bytes() == before
    assert not list(ledger.parent.glob(".*tmp"))


def test_an_invalid_ledger_is_not_edited(tmp_path: Path) -> None:
    path = tmp_path / "citeledger.yaml"
    path.write_text("sources:\n  a:\n    titel: x\n", "utf-8")
    with pytest.raises(LedgerError, match="did you mean 'title'"), edit_ledger(path):
        pass  # pragma: no cover


def test_append_only_edit_is_spliced(ledger: Path) -> None:
    before = ledger.read_text("utf-8")
    with edit_ledger(ledger) as doc:
        doc["sources"]["hchm"]["quotes"].append({"text": "New words.", "id": "new"})
    block = inserted(before, ledger.read_text("utf-8"))
    assert block.startswith("        - text: New words.\n          id: new\n")
    assert load_ledger(ledger).sources["hchm"].quotes[-1].id == "new"


def test_other_edits_keep_comments_and_order(ledger: Path) -> None:
    with edit_ledger(ledger) as doc:
        doc["sources"]["hchm"]["quotes"][0]["locator"] = "p. 15"
    text = ledger.read_text("utf-8")
    assert "locator: p. 15" in text
    for comment in (
        "# aligned comment",
        "# the manual",
        "# trailing comment at column 0",
        "# old receipt, never touched",
        "# ── First source",
    ):
        assert comment in text
    assert text.index("cavalin2020:") < text.index("hchm:")
    assert load_ledger(ledger).sources["hchm"].quotes[0].locator == "p. 15"


def test_edit_without_changes_does_not_write(ledger: Path) -> None:
    mtime = ledger.stat().st_mtime_ns
    with edit_ledger(ledger) as doc:
        assert doc["sources"]["hchm"]["url"].startswith("https://")
    assert ledger.stat().st_mtime_ns == mtime


def test_a_concurrent_hand_edit_is_not_overwritten(ledger: Path) -> None:
    with pytest.raises(LedgerError, match="changed on disk"), edit_ledger(ledger) as doc:
        doc["sources"]["hchm"]["quotes"].append({"text": "x"})
        ledger.write_text(COMMENTED + "# the writer saved meanwhile\n", "utf-8")
    assert ledger.read_text("utf-8").endswith("# the writer saved meanwhile\n")


def test_file_mode_and_symlink_survive_a_write(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    target = real / "citeledger.yaml"
    target.write_text(COMMENTED, "utf-8")
    os.chmod(target, 0o640)
    link = tmp_path / "citeledger.yaml"
    link.symlink_to(target)
    append_receipt(link, "hchm", 0, receipt())
    assert link.is_symlink()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert len(load_ledger(link).sources["hchm"].quotes[0].receipts) == 2


def test_a_writer_waits_for_the_lock_then_gives_up(ledger: Path) -> None:
    lock = lock_path(ledger)
    assert lock == ledger.parent / ".citeledger" / "citeledger.yaml.lock"
    append_receipt(ledger, "hchm", 0, receipt())  # creates the lock file
    before = ledger.read_bytes()
    with open(lock, "a+") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(LedgerError) as err:
            append_receipt(ledger, "hchm", 0, receipt(), lock_timeout=0.2)
    assert "another citeledger command is still writing this ledger" in str(err.value)
    assert ledger.read_bytes() == before
    append_receipt(ledger, "hchm", 0, receipt(), lock_timeout=0.2)  # free again


def test_orphaned_temp_files_are_cleaned_by_the_next_writer(ledger: Path) -> None:
    orphan = ledger.parent / ".citeledger.yaml.abc123.citeledger-tmp"
    orphan.write_text("half a ledger", "utf-8")
    append_receipt(ledger, "hchm", 0, receipt())
    assert not orphan.exists()


# --- receipts as data -------------------------------------------------------------------------


def test_receipt_to_dict_omits_empty_fields_and_round_trips() -> None:
    value = receipt_from_mapping(receipt(reason=None, differences=[]))
    data = receipt_to_dict(value)
    assert "reason" not in data and "differences" not in data and "line" not in data
    assert data["prefix"] == ""  # empty context is information: the quote starts the text
    assert data["redirects"] == ["https://doi.org/10.18653/v1/2020.emnlp-main.324"]
    assert list(data)[:3] == ["outcome", "identifier", "retrieved_at"]
    assert receipt_from_mapping(data) == value


def test_receipt_from_mapping_checks_types() -> None:
    with pytest.raises(LedgerError, match="'score' must be a number"):
        receipt_from_mapping(receipt(score="high"))
    with pytest.raises(LedgerError, match="'page' must be a whole number"):
        receipt_from_mapping(receipt(page=True))
    with pytest.raises(LedgerError, match="'redirects' must be a list of text"):
        receipt_from_mapping(receipt(redirects="https://a"))
    with pytest.raises(LedgerError, match="outcome 'ok' is not one of"):
        receipt_from_mapping(receipt(outcome="ok"))
    with pytest.raises(LedgerError, match="match 'close' is not one of"):
        receipt_from_mapping(receipt(match="close"))
    value = receipt_from_mapping(receipt(score=1))
    assert isinstance(value, Receipt) and value.score == 1.0


def test_round_trip_dump_keeps_values_it_did_not_touch(tmp_path: Path) -> None:
    """ruamel would re-render what YAML 1.2 takes for numbers; the writer's text must stay."""
    zeros = "0" * 61 + "e0"
    path = tmp_path / "citeledger.yaml"
    text = (
        "sources:\n  a:\n    doi: 10.1234/x\n    volume: 012\n    issue: +12\n"
        f"    page: 1_000\n    note: 1e3\n    quotes:\n      - text: {zeros}\n"
        "        locator: 1:30\n"
    )
    path.write_text(text, "utf-8")
    before = load_ledger(path).sources["a"]
    with edit_ledger(path) as doc:
        source = doc["sources"]["a"]
        assert source["volume"] == "012"  # the writer's text, not the number 10 or 12
        source["note"] = "on"  # a change, not an addition: written by the round-trip dump
        source["edition"] = 2
        source["quotes"][0]["locator"] = "p. 2"
    after_text = path.read_text("utf-8")
    for kept in ("volume: 012", "issue: +12", "page: 1_000", f"text: {zeros}"):
        assert kept in after_text
    assert "note: 'on'" in after_text and "edition: 2\n" in after_text
    after = load_ledger(path).sources["a"]
    assert after.csl == {**before.csl, "note": "on", "edition": 2}
    assert after.quotes[0].text == zeros and after.quotes[0].locator == "p. 2"


def test_edit_ledger_can_create_a_ledger(tmp_path: Path) -> None:
    path = tmp_path / "citeledger.yaml"
    with pytest.raises(LedgerError, match="does not exist"), edit_ledger(path):
        pass  # pragma: no cover
    with edit_ledger(path, create=True) as doc:
        doc["sources"]["a"] = {"url": "https://example.org/a", "quotes": [{"text": "w"}]}
    assert load_ledger(path).sources["a"].quotes[0].text == "w"
    assert "{" not in path.read_text("utf-8")


def test_two_paths_to_one_ledger_share_one_lock(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "citeledger.yaml"
    target.write_text(COMMENTED, "utf-8")
    link = tmp_path / "link.yaml"
    link.symlink_to(target)
    assert lock_path(link) == lock_path(target)


def test_a_value_yaml_cannot_hold_is_refused(ledger: Path) -> None:
    before = ledger.read_bytes()
    with pytest.raises(LedgerError, match="cannot write a set"), edit_ledger(ledger) as doc:
        doc["sources"]["hchm"]["keyword"] = {"a", "b"}
    assert ledger.read_bytes() == before


@pytest.mark.parametrize("key", ["a", "b"])
@pytest.mark.parametrize(
    "shared",
    [
        "  a:\n    doi: 10.1234/a\n    quotes: &shared\n      - text: shared words\n"
        "  b:\n    doi: 10.1234/b\n    quotes: *shared\n",
        "  a: &src\n    doi: 10.1234/a\n    quotes:\n      - text: shared words\n  b: *src\n",
    ],
)
def test_a_quote_is_not_added_to_quotes_shared_through_an_alias(
    tmp_path: Path, key: str, shared: str
) -> None:
    """The new quote would appear under both sources: refused, one line, nothing written."""
    path = tmp_path / "citeledger.yaml"
    original = "sources:\n" + shared
    path.write_text(original, "utf-8")
    with pytest.raises(LedgerError) as err:
        add_quote(path, key, "new words")
    line = err.value.one_line()
    assert "shared with another source through *" in line and "\n" not in line
    assert f"{path}:" in line and "write this source's quotes out in full" in line
    assert path.read_text("utf-8") == original
    assert all(
        [q.text for q in s.quotes] == ["shared words"] for s in load_ledger(path).sources.values()
    )


def test_a_first_quote_is_not_added_to_a_source_that_is_an_alias(tmp_path: Path) -> None:
    """``b: *a`` with no quotes yet: the quote would land under the anchor, in both sources."""
    path = tmp_path / "citeledger.yaml"
    original = "sources:\n  a: &src\n    doi: 10.1234/a\n  b: *src\n"
    path.write_text(original, "utf-8")
    with pytest.raises(LedgerError) as err:
        add_quote(path, "b", "new words")
    assert "source 'b' is shared with another source through *src" in err.value.one_line()
    assert path.read_text("utf-8") == original


def test_an_anchor_nothing_aliases_takes_a_new_quote(tmp_path: Path) -> None:
    path = tmp_path / "citeledger.yaml"
    path.write_text(
        "sources: &all\n  a: &src\n    doi: 10.1234/a\n    quotes: &q\n      - text: w\n"
    )
    add_quote(path, "a", "new words")
    assert [q.text for q in load_ledger(path).sources["a"].quotes] == ["w", "new words"]
