"""The derivation cache's entries (``evidence.derivation``): a body's first derivation is
created in place, a second extractor's is merged in, and a half-written entry is no entry."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from citeledger.evidence import derivation


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("CITELEDGER_CACHE_DIR", str(folder))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)  # the cache is not inside the working directory
    return folder


BODY = "ab" + "0" * 62


def test_a_first_derivation_is_kept_sealed_and_the_users_alone(cache: Path) -> None:
    derivation.remember(BODY, "x 1", "t1")
    assert derivation.remembered(BODY, "x 1") == "t1"
    entry = derivation._entry(BODY)
    assert not stat.S_IMODE(entry.stat().st_mode) & (stat.S_IRWXG | stat.S_IRWXO)
    assert not [p for p in entry.parent.iterdir() if p.name.startswith(".tmp-")]


def test_a_second_extractor_is_merged_into_the_entry(cache: Path) -> None:
    derivation.remember(BODY, "x 1", "t1")
    derivation.remember(BODY, "y 2", "t2")
    derivation.remember(BODY, "x 1", "t1")  # known: unchanged
    assert derivation.remembered(BODY, "x 1") == "t1"
    assert derivation.remembered(BODY, "y 2") == "t2"


def test_a_half_written_entry_is_no_entry_and_is_replaced(cache: Path) -> None:
    derivation.remember(BODY, "x 1", "t1")
    entry = derivation._entry(BODY)
    entry.write_bytes(entry.read_bytes()[:-3])  # a write cut short
    assert derivation.remembered(BODY, "x 1") is None
    derivation.remember(BODY, "x 1", "t1")
    assert derivation.remembered(BODY, "x 1") == "t1"


def test_an_entry_that_is_a_link_is_not_written_through(cache: Path, tmp_path: Path) -> None:
    derivation.remember("cd" + "0" * 62, "x 1", "t0")  # the cache and its key exist
    outside = tmp_path / "outside"
    outside.write_bytes(b"keep")
    entry = derivation._entry(BODY)
    entry.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(outside, entry)
    derivation.remember(BODY, "x 1", "t1")
    assert outside.read_bytes() == b"keep"
    assert not entry.is_symlink()
    assert derivation.remembered(BODY, "x 1") == "t1"
