"""A build validates only the sources it cites (issue 8 item 4), with the same error contract.

A 2,000-source ledger with one broken source: a page citing other keys builds; a page citing
the broken one fails with exactly the one line (file, line, fix) a full load gives, exit 2; a
YAML syntax error anywhere fails every build; ``check --all`` validates every source.
"""

from __future__ import annotations

import dataclasses
import io
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeledger.build.filter import main as filter_main
from citeledger.cli import main
from citeledger.errors import LedgerError
from citeledger.ledger import load_ledger
from fuzzing import FUZZ
from test_ledger_props import STYLES, dump, ledgers

REPO = Path(__file__).resolve().parent.parent
BROKEN = 1500


def _ledger(folder: Path, broken: str, n: int = 2000) -> Path:
    lines = ["sources:"]
    for i in range(n):
        lines += [f"  s{i}:", f"    url: https://example.org/{i}", "    quotes:"]
        lines += [f"      - text: Words of source {i}."]
        if i == BROKEN:
            lines.append(broken.rstrip("\n"))
    path = folder / "citeledger.yaml"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def _page(keys: list[int]) -> bytes:
    """The pandoc JSON of one paragraph citing ``keys`` (as ``pandoc -t json`` writes it)."""
    cites = [
        {
            "t": "Cite",
            "c": [
                [
                    {
                        "citationId": f"s{k}",
                        "citationPrefix": [],
                        "citationSuffix": [],
                        "citationMode": {"t": "NormalCitation"},
                        "citationNoteNum": 1,
                        "citationHash": 0,
                    }
                ],
                [{"t": "Str", "c": f"[@s{k}]"}],
            ],
        }
        for k in keys
    ]
    inlines: list[object] = [{"t": "Str", "c": "A"}, {"t": "Space"}, {"t": "Str", "c": "claim"}]
    for cite in cites:
        inlines += [{"t": "Space"}, cite]
    inlines.append({"t": "Str", "c": "."})
    doc = {"pandoc-api-version": [1, 23, 1], "meta": {}, "blocks": [{"t": "Para", "c": inlines}]}
    return json.dumps(doc).encode()


def _filter(ledger: Path, keys: list[int]) -> tuple[int, str]:
    err = io.StringIO()
    code = filter_main(
        ["html"],
        stdin=io.BytesIO(_page(keys)),
        stdout=io.BytesIO(),
        stderr=err,
        environ={"CITELEDGER_LEDGER": str(ledger)},
    )
    return code, err.getvalue()


BAD_FIELDS = {
    "a bad CSL value": "    issued: [1, 2]\n",
    "an unknown field": "    colour: blue\n",
    "a second identifier": "    doi: 10.1/x\n",
    "a field given twice": "    url: https://example.org/again\n",
}


@pytest.mark.parametrize("what", list(BAD_FIELDS))
def test_a_build_validates_the_sources_it_cites_and_only_those(tmp_path: Path, what: str) -> None:
    ledger = _ledger(tmp_path, broken=BAD_FIELDS[what])
    with pytest.raises(LedgerError) as full:
        load_ledger(ledger)
    code, err = _filter(ledger, [1, 2, 3, 1999, 7])
    assert code == 0 and "[ERROR]" not in err
    code, err = _filter(ledger, [1, BROKEN])
    assert code == 2
    assert err == f"[ERROR] citeledger: {full.value.one_line()}\n"
    assert f":{full.value.line}:" in err and full.value.line and full.value.line > 6000


def test_a_yaml_syntax_error_anywhere_fails_every_build(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path, broken='    title: "never closed\n')
    code, err = _filter(ledger, [1])
    assert code == 2 and err.count("\n") == 1 and "citeledger.yaml:" in err


def test_check_all_validates_every_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ledger = _ledger(tmp_path, n=BROKEN + 5, broken="    colour: blue\n")
    (tmp_path / "doc.md").write_text("A claim [@s1].\n", "utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "doc.md", "--ledger", str(ledger), "--warn-only", "--quiet"]) == 0
    assert main(["check", "doc.md", "--ledger", str(ledger), "--all"]) == 2


@pytest.mark.parametrize(
    "path",
    sorted(str(p.relative_to(REPO)) for p in REPO.glob("examples/**/citeledger.yaml")),
)
def test_a_lazy_ledger_holds_the_same_sources(path: str) -> None:
    eager = load_ledger(REPO / path)
    lazy = load_ledger(REPO / path, lazy=True)
    assert list(lazy.sources) == list(eager.sources)
    for key, source in eager.sources.items():
        assert lazy.sources[key] == source and lazy.sources[key].line == source.line
    assert {**lazy.sources} == {**eager.sources}


@FUZZ
@given(ledgers(), st.sampled_from(sorted(STYLES)), st.booleans())
def test_a_remembered_outline_gives_the_full_loads_sources(
    data: dict[str, Any], style: str, crlf: bool
) -> None:
    """The second lazy load of the same bytes parses each source from its span alone: it must
    hold exactly what a full load holds, lines included."""
    text = dump(data, style)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "citeledger.yaml"
        path.write_bytes((text.replace("\n", "\r\n") if crlf else text).encode("utf-8"))
        try:
            eager = load_ledger(path)
        except LedgerError:
            return  # a generated ledger the loader refuses: nothing to compare
        load_ledger(path, lazy=True)  # the full parse, which remembers the outline
        again = load_ledger(path, lazy=True)
        assert list(again.sources) == list(eager.sources)
        for key, source in eager.sources.items():
            assert again.sources[key] == source
            assert _lines(again.sources[key]) == _lines(source)
        assert (again.evidence_dir, again.trusted_keys, again.history_head) == (
            eager.evidence_dir,
            eager.trusted_keys,
            eager.history_head,
        )


def _lines(value: object) -> list[object]:
    """Every ``line`` of a value and of every value it holds, in order (compare=False hides
    them from ==)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: list[object] = []
        for f in dataclasses.fields(value):
            held = getattr(value, f.name)
            out += [held] if f.name == "line" else _lines(held)
        return out
    if isinstance(value, (tuple, list)):
        return [line for v in value for line in _lines(v)]
    return []


def test_an_aliased_or_flow_style_ledger_is_parsed_whole(tmp_path: Path) -> None:
    path = tmp_path / "citeledger.yaml"
    for text in (
        "sources: {a: {url: 'https://example.org/a'}, b: {url: 'https://example.org/b'}}\n",
        "sources:\n  a:\n    url: https://example.org/a\n    title: &t Shared\n"
        "  b:\n    url: https://example.org/b\n    title: *t\n",
    ):
        path.write_text(text, "utf-8")
        eager = load_ledger(path)
        for _ in range(2):
            lazy = load_ledger(path, lazy=True)
            assert {**lazy.sources} == {**eager.sources}


def test_an_outlined_source_keeps_its_review_lines(tmp_path: Path) -> None:
    path = tmp_path / "citeledger.yaml"
    filler = "".join(f"  f{i}:\n    url: https://example.org/{i}\n" for i in range(30))
    path.write_text(
        "sources:\n" + filler + "  r:\n    url: https://example.org/r\n    quotes:\n"
        "      - text: Reviewed words.\n        reviews:\n          - date: '2026-01-01'\n"
        "            reviewer: me\n            claim_sha256: abc\n            quote_sha256: def\n",
        "utf-8",
    )
    eager = load_ledger(path)
    load_ledger(path, lazy=True)
    again = load_ledger(path, lazy=True)
    (mine,), (theirs,) = again.sources["r"].quotes[0].reviews, eager.sources["r"].quotes[0].reviews
    assert mine == theirs and mine.line == theirs.line == 67
    assert _lines(again.sources["r"]) == _lines(eager.sources["r"])


def test_an_outlined_verified_ledger_keeps_every_receipts_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from verify_util import text_project

    ledger = text_project(tmp_path, 4, words=20)
    monkeypatch.chdir(tmp_path)
    assert main(["verify", "--ledger", str(ledger), "--yes"]) == 0
    assert main(["verify", "--ledger", str(ledger), "--yes"]) in (0, 1)  # a second receipt each
    eager = load_ledger(ledger)
    load_ledger(ledger, lazy=True)
    again = load_ledger(ledger, lazy=True)
    assert sum(len(q.receipts) for s in eager.sources.values() for q in s.quotes) >= 4
    for key, source in eager.sources.items():
        assert again.sources[key] == source and _lines(again.sources[key]) == _lines(source)


def test_a_lazy_source_keeps_the_flag_and_local_copy_lines_of_the_whole_file(
    tmp_path: Path,
) -> None:
    """The hand-written-flag warning and the local-copy error name a line of the whole file,
    also when the source was parsed from its remembered span alone."""
    (tmp_path / "a.txt").write_text("The passage is here.\n", "utf-8")
    text = "sources:\n" + "".join(
        f"  s{i}:\n    doi: 10.1000/x{i}\n    local_copy: a.txt\n    quotes:\n"
        f"      - text: The passage is here.\n        verified: true\n"
        for i in range(3)
    )
    path = tmp_path / "citeledger.yaml"
    path.write_text(text, "utf-8")
    eager = load_ledger(path)
    for _ in range(2):  # the first lazy load remembers the outline, the second reads the span
        lazy = load_ledger(path, lazy=True)
        got, want = lazy.sources["s2"], eager.sources["s2"]
        assert got.local_copy_line == want.local_copy_line and want.local_copy_line
        assert got.quotes[0].asserted_line == want.quotes[0].asserted_line
        assert want.quotes[0].asserted_line


def test_a_cold_lazy_load_hashes_the_ledgers_bytes_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold build of a large ledger looks its outline up and then keeps one: the sha256 of
    its bytes names both, so it is taken once; the next load finds the outline it kept."""
    import hashlib
    import types

    from citeledger.ledger import outline

    path = _ledger(tmp_path, "", n=200)
    data = path.read_bytes()
    hashed: list[int] = []

    def sha256(b: bytes = b"") -> Any:
        if b == data:
            hashed.append(len(b))
        return hashlib.sha256(b)

    monkeypatch.setattr(outline, "hashlib", types.SimpleNamespace(sha256=sha256))
    load_ledger(path, lazy=True)  # cold: no outline yet, one is kept
    assert hashed == [len(data)]
    monkeypatch.undo()
    kept = outline.place(data, str(tmp_path))
    assert outline.recall(kept) is not None  # kept under the bytes' and the folder's digest
    again = load_ledger(path, lazy=True)  # warm: read from the kept outline
    assert again.sources["s7"].quotes[0].text == "Words of source 7."


@pytest.mark.parametrize("evidence", ["absolute", "relative", "default"])
def test_the_same_bytes_in_another_folder_name_the_store_a_full_parse_names(
    tmp_path: Path, evidence: str
) -> None:
    """Review F5: the outline is the parse of these bytes *in this folder*. The same ledger
    copied deeper (a second checkout, a project template) must name the evidence store a full
    parse there names — the absolute one it writes, or the one beside it — never the first
    folder's store moved along with a relative path."""
    store = tmp_path / "shared-store"
    line = {
        "absolute": f"evidence_dir: {store}\n",
        "relative": "evidence_dir: ../store\n",
        "default": "",
    }[evidence]
    first, second = tmp_path / "x" / "proj", tmp_path / "deeper" / "a" / "b" / "proj"
    for folder in (first, second):
        folder.mkdir(parents=True)
        (folder / "citeledger.yaml").write_text(
            line + "sources:\n  s:\n    url: https://example.org/\n", "utf-8"
        )
    for folder in (first, second, first):  # the first and second again from an outline
        lazy = load_ledger(folder / "citeledger.yaml", lazy=True)
        assert lazy.evidence_dir == load_ledger(folder / "citeledger.yaml").evidence_dir
    assert load_ledger(second / "citeledger.yaml", lazy=True).evidence_dir == (
        str(store)
        if evidence == "absolute"
        else str(second.parent / "store")
        if evidence == "relative"
        else str(second / ".citeledger")
    )


def test_a_build_of_a_copied_ledger_judges_by_the_store_it_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review F5, end to end: verified with an absolute ``evidence_dir``, then the same ledger
    checked from a deeper copy of the project; the warm outline must not send that build to
    another store (the verdict did depend on the cache: `stale`, evidence "gone")."""
    first = tmp_path / "x" / "proj"
    first.mkdir(parents=True)
    (first / "s.txt").write_text("The gauge shows the mean spring range is 4.2 metres.\n")
    (first / "citeledger.yaml").write_text(
        f"evidence_dir: {first / 'store'}\nsources:\n  s:\n    file: s.txt\n    quotes:\n"
        "      - text: the mean spring range is 4.2 metres\n",
        "utf-8",
    )
    (first / "doc.md").write_text("The range is 4.2 metres [@s].\n", "utf-8")
    monkeypatch.delenv("CITELEDGER_LEDGER", raising=False)
    assert main(["verify", "--ledger", str(first / "citeledger.yaml"), "--yes"]) == 0

    def state(folder: Path) -> str:
        monkeypatch.chdir(folder)
        assert main(["check", "doc.md", "--json", "r.json", "--warn-only", "--quiet"]) == 0
        return str(json.loads((folder / "r.json").read_text("utf-8"))["citations"][0]["state"])

    assert state(first) == "checked"  # the outline is kept
    second = tmp_path / "deeper" / "a" / "b" / "proj"
    second.mkdir(parents=True)
    for name in ("s.txt", "citeledger.yaml", "doc.md"):
        (second / name).write_bytes((first / name).read_bytes())
    assert state(second) == "checked"
