"""Documents pandoc reads, however deep, are judged by the filter and ``check`` — never a
traceback (issue 12, finding 5); beyond a generous bound they are refused in one line.

The inputs are Markdown that the real pandoc turns into its JSON (a 340-deep list is 1,000+
levels of JSON, past Python's default recursion limit that ``json.loads`` used to hit).
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from citeledger.build import filter as filter_mod
from citeledger.build.deep import MAX_DEPTH
from citeledger.cli import main

LEDGER = """sources:
  k:
    url: https://example.org/page.html
    quotes:
      - text: deep words
"""


def deep_markdown(kind: str, n: int) -> str:
    if kind == "list":
        return "\n".join("    " * i + f"- item {i} [@k]" for i in range(n)) + "\n"
    if kind == "quote":
        return "> " * n + "deep words [@k].\n"
    if kind == "div":
        opens = "\n".join(":" * (3 + n - i) + " {.d}" for i in range(n))
        closes = "\n".join(":" * (4 + i) for i in range(n))
        return f"{opens}\n\ndeep words [@k].\n\n{closes}\n"
    if kind == "prefix":  # citations nested in each other's prefixes
        cite = "[@k]"
        for i in range(n):
            cite = f"[see {cite} @k{i}]"
        return f"deep words {cite}.\n"
    raise AssertionError(kind)


DEEP = [("list", 340), ("quote", 500), ("div", 500), ("prefix", 200)]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "citeledger.yaml").write_text(LEDGER, encoding="utf-8")
    return tmp_path


def _filter_bin() -> str:
    return str(Path(sys.executable).parent / "pandoc-citeledger")


@pytest.mark.parametrize(("kind", "n"), DEEP)
def test_pandoc_build_judges_every_citation_of_a_deep_document(
    project: Path, pandoc_path: str, kind: str, n: int
) -> None:
    (project / "doc.md").write_text(deep_markdown(kind, n), encoding="utf-8")
    proc = subprocess.run(
        [pandoc_path, "doc.md", "--filter", _filter_bin(), "-t", "html"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    # every citation of the document was judged: @k is unchecked, the k0… keys not in the ledger
    expected = n if kind == "list" else 1
    assert proc.stdout.count("citeledger-unchecked") >= expected
    if kind == "prefix":
        assert proc.stdout.count("citeledger-not-in-ledger") >= n


@pytest.mark.parametrize(("kind", "n"), DEEP)
def test_check_reports_every_citation_of_a_deep_document(project: Path, kind: str, n: int) -> None:
    doc = project / "doc.md"
    doc.write_text(deep_markdown(kind, n), encoding="utf-8")
    report = project / "r.json"
    assert main(["check", str(doc), "--json", str(report), "--warn-only"]) == 0
    states = [c["state"] for c in json.loads(report.read_text())["citations"]]
    if kind == "list":
        assert states == ["unchecked"] * n
    elif kind == "prefix":
        assert states.count("not-in-ledger") == n and "unchecked" in states
    else:
        assert states == ["unchecked"]


def test_filter_reads_deep_pandoc_json_in_process(project: Path, pandoc_path: str) -> None:
    """The JSON form of the same input, fed straight to the filter's entry."""
    (project / "doc.md").write_text(deep_markdown("quote", 500), encoding="utf-8")
    raw = subprocess.run(
        [pandoc_path, "doc.md", "-t", "json"], cwd=project, capture_output=True, check=True
    ).stdout
    out, err = io.BytesIO(), io.StringIO()
    code = filter_mod.main(
        ["html"],
        stdin=io.BytesIO(raw),
        stdout=out,
        stderr=err,
        environ={"CITELEDGER_LEDGER": str(project / "citeledger.yaml")},
    )
    assert code == 0, err.getvalue()
    assert "citeledger-unchecked" in out.getvalue().decode()


def _beyond_bound_json() -> bytes:
    """Block quotes nested past the bound, written as pandoc JSON (pandoc itself reads it)."""
    n = MAX_DEPTH  # two JSON levels per block quote: twice the bound
    cite = {
        "t": "Cite",
        "c": [
            [
                {
                    "citationId": "k",
                    "citationPrefix": [],
                    "citationSuffix": [],
                    "citationMode": {"t": "NormalCitation"},
                    "citationNoteNum": 1,
                    "citationHash": 0,
                }
            ],
            [{"t": "Str", "c": "[@k]"}],
        ],
    }
    inner = json.dumps({"t": "Para", "c": [cite]})
    blocks = '{"t":"BlockQuote","c":[' * n + inner + "]}" * n
    return ('{"pandoc-api-version":[1,23,1],"meta":{},"blocks":[' + blocks + "]}").encode()


def test_filter_refuses_a_document_beyond_the_bound_in_one_line(
    project: Path, pandoc_path: str
) -> None:
    raw = _beyond_bound_json()
    # pandoc reads it: the refusal is ours, a bound, not a document pandoc rejects
    back = subprocess.run(
        [pandoc_path, "-f", "json", "-t", "plain"], input=raw, capture_output=True
    )
    assert back.returncode == 0
    proc = subprocess.run(
        [_filter_bin(), "html"],
        input=raw,
        cwd=project,
        capture_output=True,
        timeout=120,
    )
    err = proc.stderr.decode()
    assert proc.returncode == 2
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and f"more than {MAX_DEPTH} levels deep" in lines[0]


def test_check_refuses_a_document_beyond_the_bound_in_one_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = project / "doc.md"
    doc.write_text(deep_markdown("quote", MAX_DEPTH), encoding="utf-8")
    assert main(["check", str(doc)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(doc) in err[0] and "levels deep" in err[0]
