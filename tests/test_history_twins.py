"""Two quotes with the same words, or two ledgers sharing a store, are not one quote's checks.

The history log grouped its rows by (key, identifier, quote digest): the second of two quotes
with the same words, or the same quote verified from a second ledger, was "a later check" of
the first, which was ``stale`` right after ``verify`` and stayed so. Each row now says which
ledger and which occurrence of the words it checked. Deleting a later receipt of the same
quote is still caught, after a rename of the ledger too. Real ``verify``/``recheck`` runs on a
file source, then the ledger edited by hand as a writer could.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from citeledger.cli import main
from citeledger.judge import Judge
from citeledger.ledger import load_ledger
from citeledger.model import CitationRef, State

QUOTE = "The appeal must be received within 60 days of the date of the decision letter."


def _states(ledger: Path, *selectors: str | None) -> list[tuple[State, str]]:
    judge = Judge(load_ledger(ledger))
    verdicts = [judge.judge(CitationRef("a", selector=s)) for s in selectors]
    return [(v.state, " ".join(v.reasons)) for v in verdicts]


def _project(folder: Path, quotes: str) -> Path:
    (folder / "a.txt").write_text(f"Report A.\n\n{QUOTE} Late appeals are refused.\n", "utf-8")
    ledger = folder / "citeledger.yaml"
    ledger.write_text(f"sources:\n  a:\n    file: a.txt\n    quotes:\n{quotes}", "utf-8")
    return ledger


def test_two_quotes_with_the_same_words_are_both_checked(tmp_path: Path) -> None:
    twins = f"      - id: one\n        text: {QUOTE}\n      - id: two\n        text: {QUOTE}\n"
    ledger = _project(tmp_path, twins)
    assert main(["verify", "--ledger", str(ledger), "--yes"]) == 0
    assert [s for s, _ in _states(ledger, "one", "two")] == [State.CHECKED] * 2
    assert main(["verify", "--ledger", str(ledger), "--yes"]) == 0  # and again
    assert [s for s, _ in _states(ledger, "one", "two")] == [State.CHECKED] * 2


def test_two_ledgers_sharing_a_store_are_both_checked(tmp_path: Path) -> None:
    ledger = _project(tmp_path, f"      - text: {QUOTE}\n")
    second = tmp_path / "b.yaml"
    shutil.copy(ledger, second)
    assert main(["verify", "--ledger", str(ledger), "--yes"]) == 0
    assert main(["verify", "--ledger", str(second), "--yes"]) == 0
    for led in (ledger, second):
        assert [s for s, _ in _states(led, None)] == [State.CHECKED], led


def _without_last_receipt(ledger: Path) -> None:
    text = ledger.read_text("utf-8")
    cut = text.rindex("          - outcome: ")
    ledger.write_text(text[:cut], "utf-8")


def test_a_deleted_later_receipt_is_still_caught_after_a_rename(tmp_path: Path) -> None:
    """The recheck's ``changed`` deleted, leaving the first ``found``: for one of two twins,
    and for a ledger renamed between the checks (its old name stands nowhere now)."""
    twins = f"      - id: one\n        text: {QUOTE}\n      - id: two\n        text: {QUOTE}\n"
    ledger = _project(tmp_path, twins)
    assert main(["verify", "--ledger", str(ledger), "--yes"]) == 0
    renamed = ledger.rename(tmp_path / "renamed.yaml")
    source = tmp_path / "a.txt"
    source.write_text(source.read_text("utf-8").replace("60 days", "90 days"), "utf-8")
    main(["recheck", "--ledger", str(renamed), "--yes"])
    _without_last_receipt(renamed)  # quote two's `changed`
    (one, _), (two, why) = _states(renamed, "one", "two")
    assert one is State.SOURCE_CHANGED
    assert two is State.STALE and "logged a later check" in why, (two, why)
    assert re.search(r"outcome: changed", renamed.read_text("utf-8"))
