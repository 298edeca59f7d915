"""Forgery by moving receipts (stop 19, review r1 A2/A3/A5/A6): a receipt copied, re-appended
or moved to another key is not checked, and a registry answer once stored is not forgotten.

Every case starts from a real ``citeledger verify``/``recheck`` (a file source, or a DOI on a
loopback server), then edits the ledger as a writer could, by hand.
"""

from __future__ import annotations

import re
from pathlib import Path

from citeledger.cli import main
from citeledger.judge import Judge
from citeledger.ledger import load_ledger
from citeledger.model import CitationRef, State

QUOTE = "The appeal must be received within 60 days of the date of the decision letter."
ITEM = "          - outcome: "


def _state(ledger: Path, key: str) -> tuple[State, str]:
    verdict = Judge(load_ledger(ledger)).judge(CitationRef(key))
    return verdict.state, " ".join(verdict.reasons)


def _changed(tmp_path: Path) -> Path:
    """A file source verified (found), then changed and rechecked (changed)."""
    source = tmp_path / "a.txt"
    source.write_text(f"Report A.\n\n{QUOTE} Late appeals are refused.\n", encoding="utf-8")
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text(
        f"sources:\n  a:\n    file: a.txt\n    title: Report A\n"
        f"    quotes:\n      - text: {QUOTE}\n",
        encoding="utf-8",
    )
    assert main(["verify", "--ledger", str(ledger), "--yes"]) == 0
    source.write_text(source.read_text("utf-8").replace("60 days", "90 days"), "utf-8")
    main(["recheck", "--ledger", str(ledger), "--yes"])
    assert _state(ledger, "a")[0] is State.SOURCE_CHANGED
    return ledger


def _items(text: str) -> list[str]:
    """The receipts of the ledger's one quote, as the text items verify wrote."""
    return [ITEM + item.rstrip("\n") + "\n" for item in text.split(ITEM)[1:]]


def test_an_old_found_receipt_appended_again_is_not_checked(tmp_path: Path) -> None:
    """A2: the first `found` receipt copied after the recheck's `changed` one."""
    ledger = _changed(tmp_path)
    text = ledger.read_text("utf-8")
    found, changed = _items(text)
    forgeries = {
        "without its history line": (
            re.sub(r"\n *history: [0-9a-f]+", "", found),
            State.STALE,
            "no entry in the evidence store's history log",
        ),
        "with its own history line": (found, State.STALE, "logged a later check"),
        "with the newest entry's history line": (
            found.replace(
                re.findall(r"history: [0-9a-f]+", found)[0],
                re.findall(r"history: [0-9a-f]+", changed)[0],
            ),
            State.TAMPERED,
            "another check's (@a, changed",
        ),
    }
    for what, (copy, expected, words) in forgeries.items():
        ledger.write_text(text.rstrip("\n") + "\n" + copy, "utf-8")
        state, reasons = _state(ledger, "a")
        assert state is expected and words in reasons, (what, state, reasons)


def test_a_receipt_copied_to_another_key_is_not_checked(tmp_path: Path) -> None:
    """A3: a second key with the same identifier and quote gets the old `found` receipt."""
    ledger = _changed(tmp_path)
    text = ledger.read_text("utf-8")
    block = text.split("sources:\n", 1)[1].split(ITEM + "changed")[0]
    for what, (copy, expected) in {
        "with its history line": (block, State.TAMPERED),
        "without it": (re.sub(r"\n *history: [0-9a-f]+", "", block), State.STALE),
    }.items():
        ledger.write_text(text.rstrip("\n") + "\n" + copy.replace("  a:\n", "  a2:\n", 1), "utf-8")
        assert _state(ledger, "a")[0] is State.SOURCE_CHANGED
        state, reasons = _state(ledger, "a2")
        assert state is expected and "history log" in reasons, (what, state, reasons)
