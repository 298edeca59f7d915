"""``check`` in the formats CI reads: GitHub annotations, JUnit, SARIF 2.1.0 (schema-validated).

The project is test_check's (a local file source verified, three breakdowns of three kinds), so
the states are real judgements; every format must place each breakdown at its claim's line.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from citeledger.cli import main
from conftest import require
from test_check import project  # noqa: F401  (the fixture)

SCHEMA = Path(__file__).parent / "data" / "sarif" / "sarif-schema-2.1.0.json"

# The lines of DOC (test_check) where each citation stands.
LINES = {"notes": 5, "never": 6, "gone": 7, "missing": 8}


def test_github_format_annotates_each_breakdown_at_its_line(
    project: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    capsys.readouterr()
    doc = str(project / "chapter.md")
    assert main(["check", doc, "--format", "github"]) == 1
    out = capsys.readouterr().out.splitlines()
    commands = [line for line in out if line.startswith("::")]
    assert len(commands) == 3  # the checked citation is no annotation
    by_key = {c.split("::", 2)[2].split(":", 1)[0]: c for c in commands}
    assert set(by_key) == {"@never", "@gone", "@missing"}
    for key, command in by_key.items():
        head = command.split("::", 2)[1]
        assert head.startswith("error file=")
        assert f"line={LINES[key[1:]]}," in head
    assert "title=citeledger%3A withdrawn" in by_key["@gone"]
    assert "the page does not say this" in by_key["@gone"]
    assert out[-1].startswith("citeledger: ")  # the summary line stays in the log


def test_github_format_warn_only_gives_warnings_and_exit_0(
    project: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    capsys.readouterr()
    assert main(["check", str(project / "chapter.md"), "--format", "github", "--warn-only"]) == 0
    commands = [x for x in capsys.readouterr().out.splitlines() if x.startswith("::")]
    assert commands and all(c.startswith("::warning ") for c in commands)


def test_junit_has_one_case_per_citation_and_fails_breakdowns(project: Path) -> None:  # noqa: F811
    out = project / "reports" / "junit.xml"
    assert main(["check", str(project / "chapter.md"), "--junit", str(out), "--quiet"]) == 1
    root = ET.parse(out).getroot()
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures")) == ("4", "3")
    cases = root.findall("testsuite/testcase")
    assert [c.get("name") for c in cases] == ["#1 @notes", "#2 @never", "#3 @gone", "#4 @missing"]
    failed = {c.get("name"): c.find("failure") for c in cases}
    assert failed["#1 @notes"] is None
    gone = failed["#3 @gone"]
    assert gone is not None and gone.get("type") == "withdrawn"
    assert [c.get("line") for c in cases] == ["5", "6", "7", "8"]


def test_sarif_validates_against_the_2_1_0_schema(project: Path) -> None:  # noqa: F811
    jsonschema = require("jsonschema")
    out = project / "check.sarif"
    assert main(["check", str(project / "chapter.md"), "--sarif", str(out), "--quiet"]) == 1
    log = json.loads(out.read_text(encoding="utf-8"))
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(schema).validate(log)
    (run,) = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    results = run["results"]
    assert sorted(r["ruleId"] for r in results) == ["not-in-ledger", "unchecked", "withdrawn"]
    for r in results:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
        loc = r["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"].endswith("chapter.md")
        key = r["message"]["text"].split(":", 1)[0][1:]
        assert loc["region"]["startLine"] == LINES[key]


def test_sarif_without_breakdowns_is_valid_and_empty(project: Path) -> None:  # noqa: F811
    jsonschema = require("jsonschema")
    doc = project / "ok.md"
    doc.write_text("The threshold rejected 41% of requests [@notes].\n", encoding="utf-8")
    out = project / "ok.sarif"
    assert main(["check", str(doc), "--sarif", str(out), "--quiet"]) == 0
    log = json.loads(out.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text(encoding="utf-8"))).validate(log)
    assert log["runs"][0]["results"] == []


def test_schema_rejects_a_broken_log() -> None:
    """The validation can fail: a result without a message is not SARIF."""
    jsonschema = require("jsonschema")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    bad = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{}]}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(schema).validate(bad)


def test_claim_lines_repeated_keys_and_longer_keys(tmp_path: Path) -> None:
    from citeledger.report.ci import claim_lines

    doc = tmp_path / "d.md"
    doc.write_text("a [@k]\nb [@kk] and @k.\nc [@{k}]\n", encoding="utf-8")
    cites = [
        {"document": str(doc), "key": "k", "occurrence": 0},
        {"document": str(doc), "key": "kk", "occurrence": 1},
        {"document": str(doc), "key": "k", "occurrence": 2},
        {"document": str(doc), "key": "k", "occurrence": 3},
    ]
    lines = claim_lines(cites)
    assert [lines[(str(doc), i)] for i in range(4)] == [1, 2, 2, 3]


def test_pre_commit_hook_runs_check_on_markdown(project: Path) -> None:  # noqa: F811
    """The hook as pre-commit runs it: ``entry`` plus the staged names ``files`` matches."""
    import re
    import shlex
    import subprocess
    import sys

    import yaml

    hooks = yaml.safe_load((Path(__file__).parents[1] / ".pre-commit-hooks.yaml").read_text())
    (hook,) = [h for h in hooks if h["id"] == "citeledger-check"]
    assert hook["language"] == "python"
    assert {"id", "name", "entry", "language"} <= set(hook)
    staged = ["chapter.md", "notes.txt", "citeledger.yaml"]
    matched = [f for f in staged if re.search(hook["files"], f)]
    assert matched == ["chapter.md"]
    argv = shlex.split(hook["entry"])
    assert argv[0] == "citeledger"
    cmd = [sys.executable, "-m", "citeledger.cli", *argv[1:], *matched]
    proc = subprocess.run(cmd, cwd=project, capture_output=True, text=True, check=False)
    assert proc.returncode == 1, proc.stderr  # the breakdowns fail the commit
    assert "1 of 4 citations checked" in proc.stdout


def test_every_format_at_once_reads_each_documents_lines_once(
    project: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """GitHub annotations, JUnit and SARIF in one run place each claim on the same line,
    found by one pass over the documents' text (not one pass per format)."""
    from citeledger.report import ci

    passes: list[int] = []
    real = ci.claim_lines

    def counted(citations: object) -> dict[tuple[str, int], int]:
        passes.append(1)
        return real(citations)  # type: ignore[arg-type]

    monkeypatch.setattr(ci, "claim_lines", counted)
    junit, sarif = project / "junit.xml", project / "check.sarif"
    doc = str(project / "chapter.md")
    capsys.readouterr()
    args = ["check", doc, "--format", "github", "--junit", str(junit), "--sarif", str(sarif)]
    assert main(args) == 1
    assert passes == [1]
    annotated = [c for c in capsys.readouterr().out.splitlines() if c.startswith("::")]
    assert sorted(c.split("line=", 1)[1].split(",", 1)[0] for c in annotated) == ["6", "7", "8"]
    cases = ET.parse(junit).getroot().findall("testsuite/testcase")
    assert [c.get("line") for c in cases] == ["5", "6", "7", "8"]
    (run,) = json.loads(sarif.read_text(encoding="utf-8"))["runs"]
    regions = [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in run["results"]]
    assert sorted(regions) == [6, 7, 8]
