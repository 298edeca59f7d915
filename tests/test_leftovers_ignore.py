"""A store made before the quarantine gets ``leftovers/`` in its ``.gitignore``.

Its ``.gitignore`` was written when a run's own files were the locks, the temps and the
pending notes; ``verify`` now moves a killed run's files to ``leftovers/``, and a writer's
``git add -A`` committed them. The next run that writes the store adds the line, keeping every
line the writer has (a comment, their own pattern, their order) as it was.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from citeledger.cli import main
from citeledger.evidence import leftovers
from citeledger.ledger import load_ledger
from verify_util import text_project

#: What ``verify`` wrote before the quarantine, then a writer's own lines (no final newline).
OLD = (
    "# written by citeledger: locks and temporary files are not evidence\n"
    "*.lock\n.tmp-*\npending.jsonl\n"
    "# mine: drafts stay local\ndrafts/"
)


def test_verify_adds_leftovers_to_an_old_stores_gitignore_and_keeps_the_writers_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text_project(tmp_path, 1, words=20)
    ignore = tmp_path / ".citeledger" / ".gitignore"
    ignore.parent.mkdir()
    ignore.write_text(OLD)
    monkeypatch.chdir(tmp_path)
    assert main(["verify", "--yes"]) == 0
    text = ignore.read_text()
    assert text.startswith(OLD + "\n"), "a line of the writer's changed"
    assert "leftovers/" in text.splitlines()
    assert main(["verify", "--yes"]) == 0
    assert ignore.read_text() == text, "a second run added the line again"


@pytest.mark.parametrize("line", ["leftovers", "/leftovers/", "!leftovers/"])
def test_a_gitignore_that_names_leftovers_in_any_spelling_is_left_as_it_is(
    tmp_path: Path, line: str
) -> None:
    """``!leftovers/`` is the writer committing them on purpose: not overridden."""
    ignore = tmp_path / ".gitignore"
    ignore.write_text(OLD + "\n" + line + "\n")
    assert not leftovers.write_ignore_file(tmp_path)
    assert ignore.read_text() == OLD + "\n" + line + "\n"


def test_moving_a_leftover_into_an_old_store_ignores_the_quarantine_first(
    tmp_path: Path,
) -> None:
    """The quarantine is made by the clean-up, which may run in a verify that then fails:
    the line is there before the first file is moved."""
    store = tmp_path / ".citeledger"
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text("sources: {}\n")
    digest = leftovers.note(store, str(ledger), b"a body whose receipts never came")
    (store / ".gitignore").write_text(OLD)
    path = store / digest[:2] / f"{digest}.warc.gz"
    path.parent.mkdir()
    path.write_bytes(b"evidence")
    assert leftovers.clean_leftovers(store, load_ledger(ledger)) == [path]
    assert "leftovers/" in (store / ".gitignore").read_text().splitlines()


def test_a_gitignore_that_is_a_link_is_not_written_through(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("the writer's notes\n")
    store = tmp_path / ".citeledger"
    store.mkdir()
    (store / ".gitignore").symlink_to(outside)
    assert not leftovers.write_ignore_file(store)
    assert outside.read_text() == "the writer's notes\n"


def test_a_recheck_brings_an_old_stores_gitignore_up_to_date_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not only a verify that ends well: every run that takes the store's run lock."""
    text_project(tmp_path, 1, words=20)
    monkeypatch.chdir(tmp_path)
    assert main(["verify", "--yes"]) == 0
    ignore = tmp_path / ".citeledger" / ".gitignore"
    ignore.write_text(OLD)
    main(["recheck", "--yes"])
    assert ignore.read_text().startswith(OLD + "\n")
    assert "leftovers/" in ignore.read_text().splitlines()
