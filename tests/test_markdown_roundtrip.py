"""Markdown as an intermediate: what the filter writes reads back to the same judgement.

A pipeline that goes through pandoc's Markdown (a preprocessing step, a site generator storing
Markdown) or the JSON AST builds once with the filter and again later. Read back, every citation
must be the same citation (key, locator, quote selector) in the same state, and a second filter
run must not add a second callout, flag or audit. The project is real: a loopback web source and
a local file verified by ``citeledger verify``, judged by ``check`` and by the filter.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import netserver as ns
from citeledger.cli import main
from test_verify import MANUAL, QUOTE  # the standing case's manual and its real quote

NOTES = "Triage notes\n\nThe threshold rejected 41% of out-of-scope requests.\n"
FILTER = str(Path(sys.executable).parent / "pandoc-citeledger")

DOC = """---
title: A chapter
citeledger:
  audit: true
---

# Introduction

Appeals have a deadline [@manual, p. 1]. The manual says so twice [see @manual; @notes].
The threshold rejected many requests [@notes, quote:n1].

- A list claim on a source nobody checked [@never].
- A plain item.

Term
:   A definition claim that was withdrawn [@gone].

A claim in a note.^[A note that cites a key nobody has [@missing].]

[The model says this of its own knowledge]{.unverified}.

# References
"""


@pytest.fixture
def project(tmp_path: Path, netserver: ns.NetServer) -> Path:
    netserver.static("/manual.html", MANUAL)
    (tmp_path / "notes.txt").write_text(NOTES, encoding="utf-8")
    (tmp_path / "citeledger.yaml").write_text(
        f"""# the chapter's sources
sources:
  manual:
    url: {netserver.url("/manual.html")}
    quotes:
      - text: "{QUOTE}"
        locator: p. 1
  notes:
    file: notes.txt  # a local file: checked, but no link out
    quotes:
      - id: n1
        text: The threshold rejected 41% of out-of-scope requests.
  never:
    url: https://example.org/never.html
    quotes:
      - text: words nobody checked
  gone:
    url: https://example.org/gone.html
    withdrawn:
      date: 2026-08-02
      reason: the page does not say this
""",
        encoding="utf-8",
    )
    (tmp_path / "chapter.md").write_text(DOC, encoding="utf-8")
    ledger = str(tmp_path / "citeledger.yaml")
    args = ["verify", "--ledger", ledger, "--yes", "--allow-private", "--only"]
    assert main([*args, "manual"]) == 0
    assert main([*args, "notes"]) == 0
    return tmp_path


def _pandoc(pandoc: str, folder: Path, src: str, *args: str) -> str:
    proc = subprocess.run(
        [pandoc, src, "-s", "--filter", FILTER, *args],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _check(folder: Path, doc: str, *extra: str) -> list[dict[str, Any]]:
    report = folder / "report.json"
    main(["check", str(folder / doc), "--json", str(report), "--warn-only", *extra])
    citations: list[dict[str, Any]] = json.loads(report.read_text("utf-8"))["citations"]
    return [{k: c[k] for k in ("key", "state", "reasons", "quote", "claim")} for c in citations]


def _html_counts(html: str) -> tuple[int, int, int, int]:
    """Callouts, flags, audits and banners of an HTML build."""
    callouts = len(re.findall(r'id="citeledger-breakdown-\d+"', html))
    flags = len(re.findall(r'id="citeledger-cite-\d+"', html))
    audits = html.count('id="citeledger-audit"')
    return callouts, flags, audits, len(re.findall(r"class=\"citeledger-banner\"", html))


@pytest.mark.parametrize("fmt", ["markdown", "json"])
def test_an_intermediate_reads_back_to_the_same_judgement(
    project: Path, pandoc_path: str, fmt: str
) -> None:
    expected = _check(project, "chapter.md")
    assert [c["state"] for c in expected] == [
        "checked",
        "checked",
        "checked",
        "checked",
        "unchecked",
        "withdrawn",
        "not-in-ledger",
    ]
    once = _pandoc(pandoc_path, project, "chapter.md", "-t", fmt)
    (project / f"once.{fmt}").write_text(once, encoding="utf-8")
    assert _check(project, f"once.{fmt}", "--from", fmt) == expected

    # a second build through the filter renders what one build renders, nothing twice
    direct = _pandoc(pandoc_path, project, "chapter.md", "-t", "html")
    again = _pandoc(pandoc_path, project, f"once.{fmt}", "-f", fmt, "-t", "html")
    assert _html_counts(again) == _html_counts(direct) == (3, 3, 1, 1)
    # and written back in the same format, the intermediate is a fixed point
    twice = _pandoc(pandoc_path, project, f"once.{fmt}", "-f", fmt, "-t", fmt)
    assert twice == once


def test_markdown_keeps_the_locator_and_the_source_link_apart(
    project: Path, pandoc_path: str
) -> None:
    """``[@key, p. 1]`` followed by its link must not read back as a reference link."""
    once = _pandoc(pandoc_path, project, "chapter.md", "-t", "markdown")
    assert "[@manual, p. 1] [" in " ".join(once.split())
    assert "][^[source]" not in once


def test_github_markdown_reads_back_to_the_same_citations_and_states(
    project: Path, pandoc_path: str
) -> None:
    """GitHub Markdown has no citation syntax: a checked citation is written as the writer's
    plain ``[@key, p. 1]``, which pandoc's Markdown reader (``check``'s, for ``.md``) reads as
    the same citation. The flags and links are ordinary words there, so claims may differ."""
    expected = _check(project, "chapter.md")
    gfm = _pandoc(pandoc_path, project, "chapter.md", "-t", "gfm")
    assert "<span" not in gfm.split("citeledger-audit")[0].replace('<span class="unverified', "")
    assert "[@manual, p. 1] [source](" in " ".join(gfm.split())
    (project / "once.md").write_text(gfm, encoding="utf-8")
    again = _check(project, "once.md")
    fields = ("key", "state", "reasons", "quote")
    assert [{k: c[k] for k in fields} for c in again] == [
        {k: c[k] for k in fields} for c in expected
    ]
