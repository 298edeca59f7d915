"""The ledger held parsed for a verify run writes exactly what the ordinary writer would.

``HeldLedger`` parses the ledger once and splices each batch into the pieces of the sources it
touches; the proof that this shortcut is safe is that every write is byte for byte the text
``append_receipts`` + ``set_history_head`` make of the same ledger (on every style the ledger
fuzzer draws), that a writer's edit between two batches survives, and that a layout it cannot
cut (aliases, flow style, document markers) still gets its receipts by the ordinary path.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from citeledger.errors import LedgerError
from citeledger.ledger import add_source, append_receipts, load_ledger, set_history_head
from citeledger.ledger.held import HeldLedger
from citeledger.ledger.yamlnodes import Style, render_block
from fuzzing import FUZZ
from test_ledger_styles import CHARS, styled
from test_ledger_styles import receipt as receipt_strategy

HEAD = "ab" * 32

LEDGER = """\
# The writer's ledger.   Comments and odd spacing are kept.
citeledger: 1
sources:
  # the first source
  one:
    url: https://example.org/one?x=1&y=2   # an ampersand, not an anchor
    quotes:
      - text: The first passage.   # a note
      - text: "The second passage."
        receipts:
          - outcome: unretrievable
            identifier: url:https://example.org/one?x=1&y=2
            retrieved_at: 2024-05-01T10:00:00Z
            tool: citeledger 0.1.0
            writer_quote_sha256: "dd"      # old receipt, never touched

  two:
    url: https://example.org/two
    quotes:
    - text: Another passage.
# a comment at column 0 after the last source
evidence_dir: .citeledger   # after sources:
"""


def receipt(n: int = 0) -> dict[str, Any]:
    return {
        "outcome": "not-found",
        "identifier": "url:https://example.org/one?x=1&y=2",
        "retrieved_at": "2024-05-02T10:00:00Z",
        "tool": "citeledger 0.1.0",
        "writer_quote_sha256": f"{n:064x}",
        "reason": "no passage: like this one, with a colon",
        "differences": ["a: b", "- c"],
    }


def ordinary(path: Path, entries: list[tuple[str, int, Any]], head: str | None) -> str:
    append_receipts(path, entries)
    if head is not None:
        assert set_history_head(path, head)
    return path.read_text("utf-8")


def twin(folder: Path, text: str) -> tuple[Path, Path]:
    a, b = folder / "a" / "citeledger.yaml", folder / "b" / "citeledger.yaml"
    for p in (a, b):
        p.parent.mkdir()
        p.write_text(text, "utf-8")
    return a, b


def test_batches_are_byte_identical_to_the_ordinary_writer(tmp_path: Path) -> None:
    held_path, plain_path = twin(tmp_path, LEDGER)
    held = HeldLedger(held_path)
    batches = [
        [("one", 0, receipt(1)), ("two", 0, receipt(2))],
        [("one", 1, receipt(3)), ("one", 0, receipt(4))],
        [("two", 0, receipt(5))],
    ]
    for n, entries in enumerate(batches):
        head = f"{n:064x}"
        assert held.append(entries, head)  # the head went in the same write
        assert held_path.read_text("utf-8") == ordinary(plain_path, entries, head)
    assert held.fast_writes == len(batches)
    text = held_path.read_text("utf-8")
    assert "# an ampersand, not an anchor" in text and "# old receipt, never touched" in text
    led = load_ledger(held_path)
    assert [len(q.receipts) for q in led.sources["one"].quotes] == [2, 2]
    assert led.history_head == f"{len(batches) - 1:064x}"


def test_a_writers_edit_between_batches_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "citeledger.yaml"
    path.write_text(LEDGER, "utf-8")
    held = HeldLedger(path)
    held.append([("one", 0, receipt(1))])
    add_source(path, "three", {"url": "https://example.org/3", "quotes": [{"text": "Three."}]})
    held.append([("two", 0, receipt(2)), ("three", 0, receipt(3))], HEAD)
    led = load_ledger(path)
    assert list(led.sources) == ["one", "two", "three"]
    assert [len(s.quotes[0].receipts) for s in led.sources.values()] == [1, 1, 1]
    assert held.fast_writes == 2  # the changed file was parsed afresh, then cut again


def test_an_alias_takes_the_ordinary_path(tmp_path: Path) -> None:
    text = LEDGER.replace(
        "    url: https://example.org/one?",
        "    title: &t The title\n    url: https://example.org/one?",
    )
    text = text.replace(
        "    url: https://example.org/two\n", "    url: https://example.org/two\n    title: *t\n"
    )
    path = tmp_path / "citeledger.yaml"
    path.write_text(text, "utf-8")
    held = HeldLedger(path)
    assert not held.append([("two", 0, receipt(1))], HEAD)  # the caller records the head
    assert held.uncuttable and held.fast_writes == 0
    led = load_ledger(path)
    assert led.sources["two"].quotes[0].receipts and led.sources["two"].csl["title"] == "The title"


def test_a_mistake_is_named_as_the_ordinary_writer_names_it(tmp_path: Path) -> None:
    path = tmp_path / "citeledger.yaml"
    path.write_text(LEDGER, "utf-8")
    held = HeldLedger(path)
    with pytest.raises(LedgerError, match=r"no source 'onw'.*did you mean 'one'"):
        held.append([("onw", 0, receipt(1))])
    with pytest.raises(LedgerError, match="has no quote number 3"):
        held.append([("one", 2, receipt(1))])
    assert path.read_text("utf-8") == LEDGER


@FUZZ
@given(styled(), receipt_strategy, st.data())
def test_every_style_gets_the_ordinary_writers_bytes(
    case: tuple[dict[str, Any], str], new: dict[str, Any], choice: st.DataObject
) -> None:
    _, original = case
    with tempfile.TemporaryDirectory() as folder:
        held_path, plain_path = twin(Path(folder), original)
        before = load_ledger(held_path)
        keys = [k for k, s in before.sources.items() if s.quotes]
        chosen = choice.draw(st.lists(st.sampled_from(keys), min_size=1, max_size=3))
        held = HeldLedger(held_path)
        for n, key in enumerate(chosen):
            entries = [(key, i, new) for i in range(len(before.sources[key].quotes))]
            head = f"{n:064x}"
            if held.append(entries, head):
                want = ordinary(plain_path, entries, head)
            else:
                want = ordinary(plain_path, entries, None)
                assert set_history_head(held_path, head) == set_history_head(plain_path, head)
                want = plain_path.read_text("utf-8")
            assert held_path.read_text("utf-8") == want
        shutil.rmtree(Path(folder) / "a" / ".citeledger", ignore_errors=True)


SCALARS = st.one_of(
    st.text(CHARS, max_size=30),
    st.text(max_size=12),  # any character, line breaks and controls too
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False),
    st.booleans(),
    st.none(),
)


@FUZZ
@given(st.dictionaries(st.text(CHARS, min_size=1, max_size=12), SCALARS, min_size=1, max_size=8))
def test_libyaml_writes_a_flat_mapping_as_the_pure_emitter_does(data: dict[str, Any]) -> None:
    """Receipts are rendered by libyaml's emitter (10x faster) when they hold no list; the
    ledger's bytes must not depend on which emitter wrote them."""
    options: dict[str, Any] = {
        "default_flow_style": False,
        "sort_keys": False,
        "allow_unicode": True,
        "width": 1 << 20,
    }
    pure = yaml.dump(data, Dumper=yaml.SafeDumper, **options)
    assert render_block(data, Style()) == pure
