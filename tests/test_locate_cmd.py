"""``citeledger locate``: one quote, a batch of cases, and the scoring of a labelled batch."""

from __future__ import annotations

import io
import json
from argparse import Namespace
from pathlib import Path

import pytest

from citeledger.cli.locate import main, read_cases, run_batch, run_single, score_cases
from citeledger.errors import CiteledgerError

SOURCE = (
    "Appeals\n\nAn appeal against a declined claim must be received within 60 days of the date "
    "of the decision letter.\nThe handler may extend the period by 14 days where the \ufb01le "
    "shows a good reason.\n"
)
BATCH_KEYS = {"id", "found", "match", "char_start", "char_end", "page", "source_quote", "score"}


@pytest.fixture()
def src(tmp_path: Path) -> Path:
    p = tmp_path / "manual.txt"
    p.write_text(SOURCE, encoding="utf-8")
    return p


def test_run_single_found_and_refused(src: Path) -> None:
    rec = run_single(src, "must be received within 60 days of the date of the decision letter")
    assert rec["found"] and rec["match"] == "exact"
    assert rec["source_quote"] == SOURCE[rec["char_start"] : rec["char_end"]]
    assert set(rec) >= BATCH_KEYS
    rec = run_single(src, "must be received within 90 days of the date of the decision letter")
    assert not rec["found"]
    assert rec["candidate"] and any("'60'" in d for d in rec["differences"])


def test_run_single_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CiteledgerError, match="no such source file"):
        run_single(tmp_path / "nope.txt", "a quote")


def _write_cases(tmp_path: Path, cases: list[dict]) -> Path:
    p = tmp_path / "cases.jsonl"
    p.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    return p


def test_run_batch_writes_one_line_per_case_and_extracts_once(
    tmp_path: Path, src: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import citeledger.cli.locate as lc

    calls: list[Path] = []
    real = lc.extract_path

    def counting(path: Path):  # type: ignore[no-untyped-def]
        calls.append(path)
        return real(path)

    monkeypatch.setattr(lc, "extract_path", counting)
    cases = _write_cases(
        tmp_path,
        [
            {
                "id": "a",
                "source": "manual.txt",
                "quote": "the handler may extend the period by 14 days",
                "expect_found": True,
                "kind": "first_letter_case",
            },
            {
                "id": "b",
                "source": "manual.txt",
                "quote": "The handler may extend the period by 41 days",
                "expect_found": False,
                "kind": "number_changed",
            },
            {
                "id": "c",
                "source": "manual.txt",
                "quote": "where the file shows a good reason",
                "expect_found": True,
                "kind": "ligatures",
            },
            {
                "id": "d",
                "source": "missing.txt",
                "quote": "anything",
                "expect_found": True,
                "kind": "exact",
            },
        ],
    )
    out = io.StringIO()
    results = run_batch(cases, out, base=tmp_path)
    lines = [json.loads(x) for x in out.getvalue().splitlines()]
    assert [x["id"] for x in lines] == ["a", "b", "c", "d"]
    assert lines == results
    assert all(set(x) >= BATCH_KEYS for x in lines)
    assert [x["found"] for x in lines] == [True, False, True, False]
    assert lines[2]["source_quote"] == "where the \ufb01le shows a good reason"
    assert "error" in lines[3]
    assert len(calls) == 1  # manual.txt extracted once for three cases

    scores = score_cases(results, read_cases(cases))
    assert scores.false_accepts == ()
    assert scores.unresolved == ("d",)
    assert scores.honest == 2 and scores.recall == 1.0
    assert any("number_changed" in line for line in scores.lines())


def test_score_cases_counts_false_accepts_and_misses() -> None:
    cases = [
        {"id": 1, "expect_found": False, "kind": "splice"},
        {"id": 2, "expect_found": True, "kind": "exact"},
        {"id": 3, "expect_found": True, "kind": "exact"},
    ]
    results = [{"id": 1, "found": True}, {"id": 2, "found": False}, {"id": 3, "found": True}]
    s = score_cases(results, cases)
    assert s.false_accepts == ("1",)
    assert s.misses == ("2",)
    assert s.recall == 0.5


def test_bad_cases_file(tmp_path: Path) -> None:
    p = tmp_path / "bad.jsonl"
    p.write_text('{"id": 1, "source": "x.txt", "quote": "q"}\nnot json\n', encoding="utf-8")
    with pytest.raises(CiteledgerError) as info:
        read_cases(p)
    assert info.value.line == 2
    p.write_text('{"id": 1, "quote": "q"}\n', encoding="utf-8")
    with pytest.raises(CiteledgerError, match="source"):
        read_cases(p)


def test_main_single_and_batch(
    tmp_path: Path, src: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(Namespace(source=str(src), quote="within 60 days of the date", batch=None)) == 0
    assert json.loads(capsys.readouterr().out)["found"] is True
    assert main(Namespace(source=str(src), quote="within 61 days of the date", batch=None)) == 1
    capsys.readouterr()
    cases = _write_cases(
        tmp_path,
        [
            {
                "id": "x",
                "source": str(src),
                "quote": "by 14 days",
                "expect_found": True,
                "kind": "k",
            },
            {
                "id": "y",
                "source": str(src),
                "quote": "by 15 days",
                "expect_found": False,
                "kind": "k",
            },
        ],
    )
    out = tmp_path / "out.jsonl"
    assert main(Namespace(batch=str(cases), out=str(out), score=True, source=None, quote=None)) == 0
    assert len(out.read_text().splitlines()) == 2
    assert "false accepts 0" in capsys.readouterr().err
    with pytest.raises(CiteledgerError):
        main(Namespace(source=None, quote=None, batch=None))
