"""The pandoc versions people have: an untested AST version is refused in one line; the oldest
and newest supported pandocs judge the goldens alike.

Oldest: Debian's packaged pandoc (2.17) when installed (``.ci/run`` installs it) and pandoc
2.19 from the ``pypandoc_binary==1.10`` wheel, fetched with pip when the registry is reachable;
newest: the venv's pandoc. Each runs the goldens' inputs through the checkout's filter with the
fixture judge, reads the result back, and must find the same citations, in the same order,
and give each the same flag and callout (a citation one reader misses fails the case).
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from citeledger.build.citations import find_citations
from conftest import missing, require_tool

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from fixture_judge import FixtureJudge, state_of
from helpers import FIXTURE_FILTER, PANDOC, pandoc_bytes, run_main, venv_env, walk

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(p.name for p in GOLDEN.iterdir() if (p / "input.md").is_file())


@pytest.mark.parametrize("version", [[1, 21, 1], [1, 24], [2, 0, 0], [0, 9]])
def test_an_untested_api_version_is_refused_in_one_line(version: list[int]) -> None:
    doc = json.loads(pandoc_bytes("A claim [@st-stale]."))
    doc["pandoc-api-version"] = version
    run = run_main(json.dumps(doc).encode(), "html", judge_factory=FixtureJudge)
    assert run.code == 2
    lines = run.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("[ERROR] citeledger: pandoc-api-version")
    assert "outside the tested range" in lines[0] and "Traceback" not in run.err


def test_json_without_an_api_version_is_refused() -> None:
    raw = json.dumps({"meta": {}, "blocks": [{"t": "Para", "c": [{"t": "Cite", "c": [[], []]}]}]})
    run = run_main(raw.encode(), "html", judge_factory=FixtureJudge)
    assert run.code == 2 and "no pandoc-api-version" in run.err


def test_the_range_holds_the_venv_pandoc() -> None:
    from citeledger.build.api_version import NEWEST, OLDEST

    version = json.loads(pandoc_bytes("x"))["pandoc-api-version"]
    assert OLDEST <= tuple(version[:2]) <= NEWEST


def _judged(pandoc: str, case: str) -> tuple[list[str], list[tuple[str, str]]]:
    """The citation keys ``pandoc`` reads in ``case`` and the filter's marks (id, classes).

    The flags' states must be the fixture judge's states of the citations the walk finds in
    that same AST: the filter reads this pandoc's AST right.
    """
    folder = GOLDEN / case
    env = venv_env()
    ast = subprocess.run(
        [pandoc, "-f", "markdown", "-t", "json", str(folder / "input.md")],
        capture_output=True,
        check=True,
        cwd=folder,
    ).stdout
    filtered = subprocess.run(
        [sys.executable, str(FIXTURE_FILTER), "html"],
        input=ast,
        capture_output=True,
        check=False,
        env=env,
        cwd=folder,
    )
    assert filtered.returncode == 0, filtered.stderr.decode()
    # the pandoc that made the AST must read the filter's output back
    html = subprocess.run(
        [pandoc, "-f", "json", "-t", "html"],
        input=filtered.stdout,
        capture_output=True,
        check=False,
    )
    assert html.returncode == 0, html.stderr.decode()
    assert b"citeledger-" in html.stdout
    refs = [f.ref for f in find_citations(json.loads(ast))]
    out = json.loads(filtered.stdout)
    marks = []
    for node in walk(out):
        if node.get("t") in ("Span", "Div"):
            ident, classes = node["c"][0][0], node["c"][0][1]
            ours = [c for c in classes if c.startswith("citeledger-")]
            if ours:
                marks.append((ident, " ".join(ours)))
    flagged = [c.split()[1][len("citeledger-") :] for i, c in marks if "citeledger-flag" in c]
    expected = [s.value for r in refs if (s := state_of(r.key)).is_breakdown]
    assert sorted(flagged) == sorted(expected)  # metadata flags walk in key order
    return [r.key for r in refs], marks


WHEEL = "pypandoc_binary==1.10"


@pytest.fixture(scope="session")
def pandoc_2_19(tmp_path_factory: pytest.TempPathFactory) -> str:
    """pandoc 2.19.2 from the ``pypandoc_binary==1.10`` wheel, if pip can fetch it."""
    folder = tmp_path_factory.mktemp("pandoc-2.19")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(folder), WHEEL],
        capture_output=True,
        check=False,
        timeout=300,
    )
    wheels = list(folder.glob("pypandoc_binary-1.10-*.whl"))
    if proc.returncode != 0 or not wheels:
        missing("pypandoc_binary 1.10 (pandoc 2.19) could not be fetched from the registry")
    with zipfile.ZipFile(wheels[0]) as z:
        z.extract("pypandoc/files/pandoc", folder)
    binary = folder / "pypandoc" / "files" / "pandoc"
    binary.chmod(0o755)
    return str(binary)


# pandoc 2.x has no Figure block: an implicit figure is ``Para [Image]`` whose caption is the
# image's alt text (title ``fig:``) — the ``constructs`` case has a citation there.
OLD_CASES = CASES


@pytest.mark.slow
@pytest.mark.parametrize("case", OLD_CASES)
def test_pandoc_2_19_judges_the_goldens_as_the_newest_does(pandoc_2_19: str, case: str) -> None:
    version = subprocess.run([pandoc_2_19, "--version"], capture_output=True, text=True).stdout
    assert version.startswith("pandoc 2.19")
    _same_judgements(_judged(pandoc_2_19, case), _judged(PANDOC, case))


@pytest.mark.slow
@pytest.mark.parametrize("case", OLD_CASES)
def test_debian_pandoc_judges_the_goldens_as_the_newest_does(case: str) -> None:
    system = require_tool("pandoc", path="/usr/bin")  # Debian's pandoc: .ci/run installs it
    _same_judgements(_judged(system, case), _judged(PANDOC, case))


def _same_judgements(
    old: tuple[list[str], list[tuple[str, str]]], new: tuple[list[str], list[tuple[str, str]]]
) -> None:
    """Both pandocs yield the same citations, in order, and the filter marks each alike.

    A citation one reader finds and the other does not fails the test: comparing only where
    the readers agreed compared nothing exactly where the old pandoc loses a citation.
    """
    assert old[0] == new[0], f"the citations differ: old pandoc {old[0]}, newest {new[0]}"
    kept = ("citeledger-flag", "citeledger-breakdown")  # claim anchors follow the reader
    assert [m for m in old[1] if m[1].startswith(kept)] == [
        m for m in new[1] if m[1].startswith(kept)
    ]
