"""``citeledger quote``: quotes for sources already in the ledger, without hand-editing YAML."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeledger.cli import main
from citeledger.ledger import load_ledger

LEDGER = """\
# my sources (this comment must survive)
sources:
  smith2020:   # imported from refs.bib
    doi: 10.1234/x
    title: A title
  jones2021:
    url: https://example.org/j
    quotes:
      - text: first words   # kept
        id: one
"""


def _ledger(tmp_path: Path) -> Path:
    path = tmp_path / "citeledger.yaml"
    path.write_text(LEDGER)
    return path


def test_a_quote_is_added_to_an_imported_source_and_comments_survive(tmp_path: Path) -> None:
    path = _ledger(tmp_path)
    args = ["quote", "smith2020", "the quoted words", "--locator", "p. 4", "--id", "intro"]
    assert main([*args, "--ledger", str(path)]) == 0
    assert main(["quote", "jones2021", "second words", "--ledger", str(path)]) == 0
    text = path.read_text()
    assert text.startswith(LEDGER.splitlines()[0]) and "# imported from refs.bib" in text
    assert "# kept" in text
    sources = load_ledger(path).sources
    (q,) = sources["smith2020"].quotes
    assert (q.text, q.locator, q.id, q.latest) == ("the quoted words", "p. 4", "intro", None)
    assert [q.text for q in sources["jones2021"].quotes] == ["first words", "second words"]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["nobody", "words"], "source 'nobody' is not in the ledger"),
        (["jones2021", "more", "--id", "one"], "duplicate quote id 'one'"),
        (["jones2021", "first words"], "already has this quote"),
        (["jones2021", "   "], "is empty"),
    ],
)
def test_a_refused_quote_is_one_line_and_leaves_the_ledger_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    path = _ledger(tmp_path)
    assert main(["quote", *args, "--ledger", str(path)]) == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert path.read_text() == LEDGER
