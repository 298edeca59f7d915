"""The sources a build parsed, kept for the next build of the same ledger bytes (``parsed``).

A kept source is the parse's own value (lines and all); it is used only while the paths it
names still lie inside the ledger's folder; a kept file that is forged, torn or unreadable is
never believed and never runs code: the source is parsed again.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from citeledger.errors import LedgerError
from citeledger.ledger import load, load_ledger, parsed
from citeledger.model import Source


def _ledger(folder: Path, n: int = 5) -> Path:
    lines = ["sources:"]
    for i in range(n):
        (folder / f"src{i}.txt").write_text(f"Source {i} says its words.\n", "utf-8")
        lines += [f"  s{i}:", f"    file: src{i}.txt", f"    title: Part {i}", "    quotes:"]
        lines += [f"      - text: Source {i} says its words.", "        locator: p. 1"]
    path = folder / "citeledger.yaml"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def _build(path: Path, keys: list[str]) -> dict[str, Source]:
    """A build's use of the ledger: load lazily, look the cited keys up, keep what it parsed."""
    ledger = load_ledger(str(path), lazy=True)
    found = {key: ledger.sources[key] for key in keys}
    load.save_parsed(ledger.sources)
    return found


def _kept_file(path: Path) -> Path:
    ledger = load_ledger(str(path), lazy=True)
    kept = getattr(ledger.sources, "kept", None)
    assert isinstance(kept, parsed.Kept)
    where: Path = kept.where
    return where


def _no_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a source was parsed")

    monkeypatch.setattr(load, "_source", refuse)


def test_a_kept_source_is_the_parse_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _ledger(tmp_path)
    full = load_ledger(str(path))
    _build(path, ["s1", "s3"])  # the first build: a full parse, its outline remembered
    _build(path, ["s1", "s3"])  # from the outline: parsed, then kept
    with monkeypatch.context() as m:
        _no_parse(m)
        again = _build(path, ["s1", "s3"])
    for key, source in again.items():
        assert source == full.sources[key]
        assert dataclass_lines(source) == dataclass_lines(full.sources[key])
    assert _build(path, ["s0"])["s0"] == full.sources["s0"]  # not kept yet: parsed


def dataclass_lines(source: object) -> list[object]:
    """Every ``line`` in a source (compare=False, so equality does not see them)."""
    s = source
    lines: list[object] = [getattr(s, "line", None), getattr(s, "local_copy_line", None)]
    for q in getattr(s, "quotes", ()):
        lines += [q.line, q.asserted_line, *(r.line for r in q.receipts)]
    return lines


def test_an_edit_of_the_ledger_is_parsed_afresh(tmp_path: Path) -> None:
    path = _ledger(tmp_path)
    for _ in range(3):
        _build(path, ["s2"])
    path.write_text(path.read_text().replace("title: Part 2", "title: Part two"), "utf-8")
    assert _build(path, ["s2"])["s2"].csl["title"] == "Part two"


def test_a_file_moved_outside_the_folder_since_is_refused(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    path = _ledger(project)
    for _ in range(3):
        _build(path, ["s4"])
    outside = tmp_path / "secret.txt"
    outside.write_text("not the project's\n", "utf-8")
    (project / "src4.txt").unlink()
    os.symlink(outside, project / "src4.txt")
    with pytest.raises(LedgerError, match="outside the ledger's folder"):
        _build(path, ["s4"])


class _Boom:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, ("touch BOOM",))


def test_a_forged_kept_file_runs_nothing_and_is_not_believed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _ledger(tmp_path)
    for _ in range(3):
        _build(path, ["s0"])
    where = _kept_file(path)
    evil = pickle.dumps(_Boom())
    record = pickle.dumps(("s0", hashlib.sha256(evil).hexdigest(), evil))
    where.write_bytes(record)
    monkeypatch.chdir(tmp_path)
    full = load_ledger(str(path))
    assert _build(path, ["s0"])["s0"] == full.sources["s0"]
    assert not (tmp_path / "BOOM").exists()
    where.write_bytes(pickle.dumps(_Boom()))  # not even a record
    assert _build(path, ["s0"])["s0"] == full.sources["s0"]
    assert not (tmp_path / "BOOM").exists()


def test_a_torn_record_ends_the_reading_and_the_file_is_written_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _ledger(tmp_path)
    _build(path, [])
    _build(path, ["s0", "s1"])
    where = _kept_file(path)
    data = where.read_bytes()
    where.write_bytes(data[: len(data) - 5])  # the second record torn
    full = load_ledger(str(path))
    assert _build(path, ["s0", "s1"]) == {k: full.sources[k] for k in ("s0", "s1")}
    with monkeypatch.context() as m:
        _no_parse(m)
        assert _build(path, ["s0", "s1"]) == {k: full.sources[k] for k in ("s0", "s1")}


def test_a_record_whose_digest_does_not_hold_is_no_entry(tmp_path: Path) -> None:
    path = _ledger(tmp_path)
    for _ in range(3):
        _build(path, ["s3"])
    where = _kept_file(path)
    key, digest, data = pickle.loads(where.read_bytes())
    changed = data.replace(b"Part 3", b"Part 9")
    where.write_bytes(pickle.dumps((key, digest, changed)))
    assert _build(path, ["s3"])["s3"].csl["title"] == "Part 3"


def test_a_page_citing_one_source_keeps_it_and_parses_nothing_next_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _ledger(tmp_path, n=10)
    full = load_ledger(str(path))
    _build(path, ["s7"])  # the first build of these bytes: parsed, and kept
    assert _kept_file(path).exists()
    ledger = load_ledger(str(path), lazy=True)
    with monkeypatch.context() as m:
        _no_parse(m)
        assert ledger.sources["s7"] == full.sources["s7"]


_PROBE = """
import io, json, sys
from citeledger.build.filter import main
out, err = io.BytesIO(), io.StringIO()
code = main(["html"], stdin=io.BytesIO(sys.stdin.buffer.read()), stdout=out, stderr=err)
names = ("yaml", "citeledger.ledger.load", "citeledger.ledger.write")
print(json.dumps([code, sorted(m for m in sys.modules if m.split(".")[0] == "yaml" or m in names)]))
"""


def test_a_build_whose_sources_are_kept_never_imports_pyyaml(tmp_path: Path) -> None:
    """PyYAML's import is a tenth of a one-citation page's filter process: a build that needs
    no parse (its ledger's outline and its sources kept) must not pay for it."""
    path = _ledger(tmp_path, n=10)
    _build(path, ["s1", "s2"])
    doc = {
        "pandoc-api-version": [1, 23, 1],
        "meta": {},
        "blocks": [{"t": "Para", "c": [{"t": "Str", "c": "Words"}, {"t": "Space"}, _cite("s1")]}],
    }
    runs = [
        subprocess.run(
            [sys.executable, "-c", _PROBE],
            input=json.dumps(doc).encode(),
            capture_output=True,
            cwd=tmp_path,
            check=True,
        )
        for _ in range(2)  # the first may judge afresh; the second is a build after the first
    ]
    assert json.loads(runs[-1].stdout.decode().splitlines()[-1]) == [0, []]


def _cite(key: str) -> dict[str, object]:
    item = {
        "citationId": key,
        "citationPrefix": [],
        "citationSuffix": [],
        "citationMode": {"t": "NormalCitation"},
        "citationNoteNum": 1,
        "citationHash": 0,
    }
    return {"t": "Cite", "c": [[item], [{"t": "Str", "c": f"[@{key}]"}]]}
