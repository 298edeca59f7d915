"""The evidence reader keeps every file it reads inside the store, symbolic links followed;
a ledger's ``file:`` sources stay inside its folder.

It resolves each folder once per build (a thesis reads 500 files), which must decide exactly
as ``Path.resolve`` does for every path a receipt may name: a link out of the store, a link
inside it, ``..`` through a linked folder, an absolute path, a store reached through a link.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeledger.confine import below
from citeledger.evidence.store import EvidenceReader

NAMES = [
    "ab/f.warc",
    "ab/out",
    "ab/in",
    "linked/g",
    "linked/../store/ab/f.warc",
    "ab/../ab/f.warc",
    "../outside/g",
    "../storex/a",
    "missing/x",
    "/etc/passwd",
    "ab/",
    "",
]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "store" / "ab").mkdir(parents=True)
    (tmp_path / "store" / "ab" / "f.warc").write_text("x")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "g").write_text("y")
    os.symlink(tmp_path / "outside" / "g", tmp_path / "store" / "ab" / "out")
    os.symlink(tmp_path / "store" / "ab" / "f.warc", tmp_path / "store" / "ab" / "in")
    os.symlink(tmp_path / "outside", tmp_path / "store" / "linked")
    os.symlink("store", tmp_path / "alias")
    return tmp_path


def _reference(root: Path, rel: str) -> Path | None:
    p = (root / rel).resolve()
    return p if p.is_relative_to(root.resolve()) else None


@pytest.mark.parametrize("store", ["store", "alias"])
def test_each_path_is_inside_the_store_exactly_when_its_real_path_is(
    tree: Path, store: str
) -> None:
    reader = EvidenceReader(tree / store)
    for _ in range(2):  # the second time from the folders it remembers
        for rel in NAMES:
            assert reader._resolve(rel) == _reference(tree / store, rel), rel


def test_a_link_out_of_the_store_is_refused_and_named(tree: Path) -> None:
    reader = EvidenceReader(tree / "store")
    assert reader.digest("ab/out") is None
    assert reader.digest("linked/g") is None
    assert reader.digest("ab/in") == reader.digest("ab/f.warc") is not None
    assert "leaves the evidence store" in reader.load("ab/out").problems[0]


PART = st.sampled_from(["a", "b", "ab", "a.b", "..a", "x y", "é"])
ABSOLUTE = st.lists(PART, max_size=4).map(lambda ps: os.path.normpath("/" + "/".join(ps)))


@settings(max_examples=500)
@given(ABSOLUTE, ABSOLUTE)
def test_a_ledger_file_is_inside_its_folder_exactly_when_commonpath_says_so(
    path: str, folder: str
) -> None:
    """The ledger's confinement of ``file:`` sources (``confine.below``, a prefix test for
    speed) decides as ``os.path.commonpath`` does: ``/ab`` is not inside ``/a``."""
    assert below(path, folder) == (os.path.commonpath([path, folder]) == folder)
