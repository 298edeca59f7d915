"""The Quarto extension: its structure, and the filter run the way Quarto runs a JSON filter.

The Quarto CLI cannot be installed here, so Quarto is stood in for by what it hands a JSON
filter: the document as JSON (knitr's chunks already made fences), the output format as
argv[1], and ``QUARTO_FILTER_PARAMS`` (base64 JSON with ``quarto-version``) in the
environment. The filter is the extension's own script, run as a child process. In a Quarto build
every callout carries ``callout-warning`` or ``callout-important``; outside one nothing
changes; the writer's attributes (Quarto's crossref ids, its callouts) all survive.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from fixture_judge import FixtureJudge
from helpers import PANDOC, pandoc_bytes, run_main, venv_env, walk

from citeledger.build.render.quarto import IMPORTANT, callout_class, is_quarto_build
from citeledger.model import State
from conftest import CORPUS
from test_corpus_documents import ENTRIES, quarto_chunks

EXTENSION = Path(__file__).parents[1] / "_extensions" / "citeledger"
ENTRY_POINTS = {f"{w}-{s}" for w in ("pre", "post") for s in ("ast", "quarto", "render")}
PARAMS = base64.b64encode(json.dumps({"quarto-version": "1.6.40"}).encode()).decode()
QUARTO_ENV = {"QUARTO_FILTER_PARAMS": PARAMS}
CALLOUT = ("callout-warning", "callout-important")
QUARTO_DOCS = [e for e in ENTRIES if e.get("group") == "quarto"]


def _callout_classes(doc: Any) -> list[list[str]]:
    return [
        n["c"][0][1]
        for n in walk(doc)
        if n.get("t") == "Div" and {"citeledger-breakdown", "citeledger-banner"} & set(n["c"][0][1])
    ]


# --- the extension folder -------------------------------------------------------------------


def test_the_extension_contributes_its_json_filter_before_quartos_ast_stage() -> None:
    spec = yaml.safe_load((EXTENSION / "_extension.yml").read_text(encoding="utf-8"))
    assert {"title", "author", "version", "quarto-required", "contributes"} <= set(spec)
    assert set(spec["contributes"]) == {"filters"}
    (entry,) = spec["contributes"]["filters"]
    assert entry["type"] == "json" and entry["at"] in ENTRY_POINTS
    assert entry["at"] == "pre-ast"  # Quarto's ast stage makes callout-* Divs its Callouts
    script = EXTENSION / entry["path"]
    assert script.is_file() and os.access(script, os.X_OK)  # pandoc runs it by its shebang
    assert script.read_text(encoding="utf-8").startswith("#!/usr/bin/env python3\n")


def test_the_extension_script_is_the_filter(tmp_path: Path) -> None:
    """Run as pandoc runs a JSON filter: JSON on stdin, the format as argv[1]."""
    raw = pandoc_bytes("A claim [@nobody].\n")
    proc = subprocess.run(
        [str(EXTENSION / "citeledger.py"), "html"],
        input=raw,
        capture_output=True,
        cwd=tmp_path,
        env=venv_env(**QUARTO_ENV),
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    classes = _callout_classes(json.loads(proc.stdout))
    assert classes and all("callout-warning" in c for c in classes)
    assert b"[WARNING] citeledger: citation 1 (@nobody) not-in-ledger" in proc.stderr


# --- detecting a Quarto build ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("meta", "environ", "quarto"),
    [
        ({}, QUARTO_ENV, True),
        ({"quarto-version": {"t": "MetaString", "c": "1.6"}}, {}, True),
        ({}, {}, False),
        ({}, {"QUARTO_FILTER_PARAMS": "not base64 json!"}, False),
        ({}, {"QUARTO_FILTER_PARAMS": base64.b64encode(b"{}").decode()}, False),
    ],
)
def test_a_quarto_build_is_told_by_quartos_parameters(
    meta: dict[str, Any], environ: dict[str, str], quarto: bool
) -> None:
    assert is_quarto_build(meta, environ) is quarto


# --- what changes in a Quarto build ----------------------------------------------------------


@pytest.mark.parametrize("state", [s for s in State if s.is_breakdown])
def test_each_breakdown_is_a_warning_or_important_callout(state: State) -> None:
    raw = pandoc_bytes(f"A claim [@st-{state.value}].\n")
    doc = run_main(raw, "html", judge_factory=FixtureJudge, environ=QUARTO_ENV).doc
    banner, callout = _callout_classes(doc)
    expected = "callout-important" if state in IMPORTANT else "callout-warning"
    assert expected in callout and f"citeledger-{state.value}" in callout
    assert callout_class([state]) in banner


def test_a_callout_of_several_is_important_when_one_is() -> None:
    raw = pandoc_bytes("Two [@st-stale; @st-tampered].\n")
    doc = run_main(raw, "html", judge_factory=FixtureJudge, environ=QUARTO_ENV).doc
    groups = [c for c in _callout_classes(doc) if "citeledger-breakdowns" in c]
    assert groups and "callout-important" in groups[0] and "callout-warning" not in groups[0]


@pytest.mark.parametrize("fmt", ["html", "latex", "docx", "typst"])
def test_outside_quarto_nothing_changes_and_inside_only_the_classes(fmt: str) -> None:
    raw = pandoc_bytes("A claim [@st-stale].\n\n- In a list [@st-withdrawn].\n")
    plain = run_main(raw, fmt, judge_factory=FixtureJudge, environ={}).doc
    quarto = run_main(raw, fmt, judge_factory=FixtureJudge, environ=QUARTO_ENV).doc
    assert not any(set(CALLOUT) & set(c) for c in _callout_classes(plain))
    for c in _callout_classes(quarto):
        c.remove(next(x for x in c if x in CALLOUT))
    assert quarto == plain


def test_markdown_builds_keep_their_github_alerts() -> None:
    raw = pandoc_bytes("A claim [@st-stale].\n")
    plain = run_main(raw, "gfm", judge_factory=FixtureJudge, environ={}).out
    assert run_main(raw, "gfm", judge_factory=FixtureJudge, environ=QUARTO_ENV).out == plain


# --- the corpus's Quarto documents, as Quarto would run the filter ---------------------------


def _attributes(doc: Any) -> tuple[dict[str, Any], Counter[str]]:
    """Every element id with its classes and attributes, and a count of every class and
    attribute of the writer's (the filter's own, and Quarto's callout classes, left out)."""

    def ours(name: str) -> bool:
        return name.startswith(("citeledger-", "data-citeledger-")) or name in CALLOUT

    ids: dict[str, Any] = {}
    names: Counter[str] = Counter()
    for node in walk(doc):
        attr = _attr_of(node)
        if attr is None:
            continue
        ident, classes, pairs = attr
        if ident and not ours(ident):
            ids[ident] = (sorted(c for c in classes if not ours(c)), sorted(map(tuple, pairs)))
        names.update(f".{c}" for c in classes if not ours(c))
        names.update(f"{k}={v}" for k, v in pairs if not ours(k) and k not in ("role", "data-key"))
    return ids, names


def _attr_of(node: dict[str, Any]) -> Any:
    t, c = node.get("t"), node.get("c")
    if t in ("Div", "Span", "CodeBlock", "Code", "Figure", "Table"):
        return c[0]
    if t == "Header":
        return c[1]
    if t in ("Image", "Link"):
        return c[0]
    return None


@pytest.mark.slow
@pytest.mark.skipif(not QUARTO_DOCS, reason="../shared/corpus is not beside the repository")
@pytest.mark.parametrize("entry", QUARTO_DOCS, ids=lambda e: e["id"])
def test_quarto_documents_through_the_extension(entry: dict[str, Any], tmp_path: Path) -> None:
    folder = CORPUS / "documents" / entry["cwd"]
    text = "\n\n".join((folder / name).read_text(encoding="utf-8") for name in entry["inputs"])
    raw = subprocess.run(
        [PANDOC, "-f", entry["from"], "-t", "json", *entry.get("args", [])],
        input=quarto_chunks(text).encode(),
        cwd=folder,
        capture_output=True,
        check=True,
    ).stdout
    proc = subprocess.run(
        [str(EXTENSION / "citeledger.py"), "html"],
        input=raw,
        capture_output=True,
        cwd=tmp_path,  # no ledger here: every citation is not in the ledger, and said so
        env=venv_env(**QUARTO_ENV),
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    before, after = json.loads(raw), json.loads(proc.stdout)
    callouts = [c for c in _callout_classes(after) if "citeledger-breakdown" in c]
    assert callouts and all("callout-warning" in c for c in callouts)
    assert _attributes(after) == _attributes(before)  # nothing of the writer's lost or added
    html = subprocess.run(
        [PANDOC, "-f", "json", "-t", "html", "-o", str(tmp_path / "out.html")],
        input=proc.stdout,
        capture_output=True,
        check=False,
    )
    assert html.returncode == 0, html.stderr
