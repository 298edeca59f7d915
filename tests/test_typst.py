"""typst callouts are framed and coloured like the HTML ones, and build in every setup.

What a typst reader sees is the compiled page, so the tests compile with the typst wheel (a
test dependency) and read the page's pixels: the breakdown's red border and pink fill, a
decision's purple. Without the header (``pandoc -H``, a fragment) the labels are harmless and
the document still builds, the callout a quote with its bold title.
"""

from __future__ import annotations

import base64
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import require

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from fixture_judge import FixtureJudge
from helpers import PANDOC, build_golden, pandoc_bytes, run_main

from citeledger.build.render.palette import BREAKDOWN, DECISION
from page_image import colours

typst = require("typst")

CSS = Path(__file__).parents[1] / "templates" / "citeledger.css"
TYP = Path(__file__).parents[1] / "templates" / "citeledger.typ"


def _typst(markdown: str, tmp_path: Path, *args: str) -> Path:
    """``markdown`` through the fixture judge's filter, written as typst by pandoc."""
    filtered = run_main(pandoc_bytes(markdown), "typst", judge_factory=FixtureJudge).out
    out = tmp_path / "out.typ"
    subprocess.run(
        [PANDOC, "-f", "json", "-t", "typst", "--citeproc", "-o", str(out), *args],
        input=filtered,
        check=True,
        capture_output=True,
    )
    return out


def _page_colours(typ: Path) -> dict[str, int]:
    return dict(colours(typst.compile(str(typ), root=str(typ.parent))))


def _seen(counts: dict[str, int], rgb: str) -> bool:
    return counts.get(rgb, 0) > 50  # more than anti-aliasing: a border or a fill


def test_a_breakdown_is_framed_red_and_a_decision_purple(tmp_path: Path) -> None:
    typ = _typst("Claim [@st-stale].\n\nWithdrawn [@st-withdrawn].\n", tmp_path, "-s")
    shown = _page_colours(typ)
    for look in (BREAKDOWN, DECISION):
        assert _seen(shown, look.ink) and _seen(shown, look.fill), look


def test_a_checked_citation_stays_quiet(tmp_path: Path) -> None:
    shown = _page_colours(_typst("Claim [@st-checked].\n", tmp_path, "-s"))
    assert not any(_seen(shown, c) for look in (BREAKDOWN, DECISION) for c in (look.ink, look.fill))


def test_the_flag_is_boxed_in_the_claims_line(tmp_path: Path) -> None:
    text = _typst("Claim [@st-stale].\n", tmp_path, "-s").read_text(encoding="utf-8")
    flag = r"#box\[#strong\[\\\[citation 1: stale\\\]\]\]<citeledger-flag>"
    assert re.search(flag + r"#\[\]<citeledger-cite-1>\.", text)  # the id's label on #[]


@pytest.mark.parametrize("how", ["fragment", "-H"])
def test_without_the_header_it_builds_and_still_reads_as_a_breakdown(
    how: str, tmp_path: Path
) -> None:
    header = tmp_path / "mine.typ"
    header.write_text("// the writer's own header\n")
    args = ["-s", "-H", str(header)] if how == "-H" else []
    typ = _typst("Claim [@st-stale] in a paragraph.\n", tmp_path, *args)
    text = typ.read_text(encoding="utf-8")
    assert "citeledger-header" not in text
    assert "Unchecked citation: the check no longer applies" in text
    shown = _page_colours(typ)
    assert not _seen(shown, BREAKDOWN.fill)  # no frame, but it compiled and says it


def test_passing_the_template_with_H_brings_the_frames_back(tmp_path: Path) -> None:
    """The README's advice for a writer with a header of their own: ``-H`` both files."""
    header = tmp_path / "mine.typ"
    header.write_text("// the writer's own header\n")
    typ = _typst("Claim [@st-stale].\n", tmp_path, "-s", "-H", str(header), "-H", str(TYP))
    assert _seen(_page_colours(typ), BREAKDOWN.fill)


@pytest.mark.slow
@pytest.mark.parametrize("case", ["states", "grouped", "metadata", "constructs", "unverified"])
def test_goldens_compile_to_framed_callouts(case: str, tmp_path: Path) -> None:
    (tmp_path / "figure.png").write_bytes(_PNG)
    typ = tmp_path / f"{case}.typ"
    build_golden(case, "-s", "--citeproc", "-t", "typst", "-o", str(typ))
    shown = _page_colours(typ)
    assert _seen(shown, BREAKDOWN.fill) is (case != "unverified")


def test_the_colours_are_the_stylesheets() -> None:
    """One look in every format: the palette (DOCX, typst) and the typst header hold the
    stylesheet's colours."""
    css = CSS.read_text(encoding="utf-8").upper()
    typ = TYP.read_text(encoding="utf-8").upper()
    for look in (BREAKDOWN, DECISION):
        for rgb in (look.ink, look.fill):
            assert f"#{rgb}" in css and f'"#{rgb}"' in typ, rgb


_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
