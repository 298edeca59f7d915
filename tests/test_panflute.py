"""``citeledger.panflute`` judges exactly as the standalone filter, inside a panflute chain.

Compared on the goldens' inputs in every output family (the two ASTs, each read by panflute);
chained in one ``run_filters`` call with a filter before it (whose citation it must judge) and
one after it (which must see the callout); and loaded by panflute's own ``panflute-filters:``
metadata under ``pandoc --filter panflute``, where its HTML equals ``pandoc-citeledger``'s.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import require

pf = require("panflute")  # an optional extra, and a test dependency

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from fixture_judge import FixtureJudge  # noqa: E402 (after the skip: panflute is optional)
from helpers import PANDOC, pandoc_bytes, run_main, venv_env, walk  # noqa: E402

from citeledger.panflute import Citeledger  # noqa: E402

GOLDEN = Path(__file__).parent / "golden"
SRC = Path(__file__).parents[1] / "src"
CASES = sorted(
    p.name
    for p in GOLDEN.iterdir()
    if (p / "defaults.yaml").is_file() and "fixture_filter" in (p / "defaults.yaml").read_text()
)
FORMATS = ["html", "latex", "docx", "gfm", "plain", "typst"]


def _load(raw: bytes | str, fmt: str) -> Any:
    text = raw.decode() if isinstance(raw, bytes) else raw
    doc = pf.load(io.StringIO(text))
    doc.format = fmt
    return doc


def _ast(doc: Any) -> Any:
    return json.loads(json.dumps(doc, default=lambda e: e.to_json()))


def _via_panflute(raw: bytes, fmt: str, **kw: Any) -> tuple[Any, str]:
    err = io.StringIO()
    doc = _load(raw, fmt)
    Citeledger(judge_factory=FixtureJudge, stderr=err, **kw).run(doc)
    return doc, err.getvalue()


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", CASES)
def test_it_judges_and_renders_as_the_standalone_filter(case: str, fmt: str) -> None:
    folder = GOLDEN / case
    raw = subprocess.run(
        [PANDOC, "-f", "markdown", "-t", "json", str(folder / "input.md")],
        capture_output=True,
        check=True,
        cwd=folder,
    ).stdout
    standalone = run_main(raw, fmt, judge_factory=FixtureJudge)
    doc, err = _via_panflute(raw, fmt)
    assert _ast(doc) == _ast(_load(standalone.out, fmt))
    assert err == standalone.err  # the same warnings, in the same words


def _cite_me(elem: Any, doc: Any) -> Any:
    """Another filter, before citeledger: the word CITE-ME becomes a citation of @st-stale."""
    if isinstance(elem, pf.Str) and elem.text == "CITE-ME":
        return pf.Cite(pf.Str("@st-stale"), citations=[pf.Citation("st-stale")])
    return None


def test_it_chains_with_other_panflute_filters_in_one_process() -> None:
    seen: list[str] = []

    def count_callouts(elem: Any, doc: Any) -> None:  # a filter after it sees its callouts
        if isinstance(elem, pf.Div) and "citeledger-breakdown" in elem.classes:
            seen.append(elem.identifier)

    cl = Citeledger(judge_factory=FixtureJudge, stderr=io.StringIO())
    doc = _load(pandoc_bytes("A claim CITE-ME and [@st-checked].\n"), "html")
    pf.run_filters(
        [_cite_me, cl.action, count_callouts], prepare=cl.prepare, finalize=cl.finalize, doc=doc
    )
    assert seen == ["citeledger-breakdown-1"]
    flags = [e for e in walk(_ast(doc)) if "citeledger-flag" in _classes(e)]
    assert len(flags) == 1 and flags[0]["c"][0][0] == "citeledger-cite-1"


def test_strict_fails_the_run_with_the_filters_line() -> None:
    raw = pandoc_bytes("A claim [@st-stale].\n", "-M", "citeledger.strict=true")
    with pytest.raises(SystemExit) as exit_:
        _via_panflute(raw, "html")
    assert exit_.value.code == 1


def test_a_bad_option_is_one_line_and_exit_2(tmp_path: Path) -> None:
    err = io.StringIO()
    raw = pandoc_bytes("A claim [@k].\n", "-M", f"citeledger.ledger={tmp_path}/missing.yaml")
    with pytest.raises(SystemExit) as exit_:
        Citeledger(stderr=err).run(_load(raw, "html"))
    assert exit_.value.code == 2
    (line,) = err.getvalue().splitlines()
    assert line.startswith("[ERROR] citeledger: ") and "missing.yaml" in line


@pytest.mark.slow
def test_panflute_filters_metadata_loads_it_as_pandoc_citeledger_runs(tmp_path: Path) -> None:
    """``pandoc --filter panflute`` with ``panflute-filters: [upper, citeledger.panflute]`` (a
    repeated ``-M`` is a list): the writer's filter runs first, then ours, and the page is the
    standalone filter's."""
    panflute_bin = shutil.which("panflute", path=str(Path(sys.executable).parent))
    assert panflute_bin is not None
    (tmp_path / "upper.py").write_text(
        "import panflute as pf\n\n"
        "def shout(elem, doc):\n"
        "    if isinstance(elem, pf.Str) and elem.text == 'loud':\n"
        "        return pf.Str('LOUD')\n\n"
        "def main(doc=None):\n"
        "    return pf.run_filter(shout, doc=doc)\n"
    )
    (tmp_path / "doc.md").write_text("A loud claim [@nobody].\n")
    env = venv_env()

    def html(*filter_args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [PANDOC, "doc.md", "-t", "html", *filter_args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )

    # an editable install has no citeledger/ folder on sys.path: name src/ as panflute's path
    chained = html(
        "--filter", panflute_bin, "-M", "panflute-filters=upper",
        "-M", "panflute-filters=citeledger.panflute", "-M", f"panflute-path={SRC}",
    )  # fmt: skip
    standalone = html("--filter", "pandoc-citeledger")
    assert "LOUD" in chained.stdout and "citeledger-breakdown" in chained.stdout
    assert chained.stdout == standalone.stdout.replace("loud", "LOUD")
    assert "[WARNING] citeledger: no ledger at citeledger.yaml" in chained.stderr


def _classes(node: dict[str, Any]) -> list[str]:
    if node.get("t") in ("Span", "Div"):
        return list(node["c"][0][1])
    return []
