"""Word callouts and flags are loud in any reference document, read back from the file itself.

pandoc's default reference.docx defines our styles as plain Body Text, so the look must travel
as direct formatting: every callout paragraph carries the stylesheet's border and shading, its
title the border's colour, each flag a bordered, shaded, bold, coloured run. Read back from
``word/document.xml``; rendered by LibreOffice (headless, when installed) and the page's pixels
checked; ``templates/reference.docx`` defines the same look for documents built from it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from fixture_judge import FixtureJudge
from helpers import PANDOC, pandoc_bytes, run_main

from citeledger.build.render.palette import BREAKDOWN, DECISION
from citeledger.model import STATE_TITLES
from page_image import colours

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
REFERENCE = Path(__file__).parents[1] / "templates" / "reference.docx"
SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")
DOC = (
    "A claim [@st-stale].\n\n- In a list [@st-tampered].\n\n"
    "Withdrawn [@st-withdrawn].\n\nChecked [@st-checked].\n"
)
# w:pPr children in the schema's order (CT_PPrBase): Word refuses a file that breaks it
P_ORDER = ["pStyle", "keepNext", "keepLines", "numPr", "pBdr", "shd", "spacing", "ind"]


def _docx(markdown: str, out: Path, *args: str) -> Path:
    filtered = run_main(pandoc_bytes(markdown), "docx", judge_factory=FixtureJudge).out
    subprocess.run([PANDOC, "-f", "json", "-o", str(out), *args], input=filtered, check=True)
    return out


def _xml(docx: Path, member: str) -> ET.Element:
    with zipfile.ZipFile(docx) as z:
        return ET.fromstring(z.read(member))


def _val(el: ET.Element | None, attr: str) -> str | None:
    return None if el is None else el.get(W + attr)


def _callout_paragraphs(root: ET.Element) -> list[ET.Element]:
    return [
        p
        for p in root.iter(W + "p")
        if _val(p.find(f"{W}pPr/{W}pStyle"), "val") == "CiteledgerBreakdown"
    ]


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> ET.Element:
    return _xml(_docx(DOC, tmp_path_factory.mktemp("docx") / "out.docx"), "word/document.xml")


def test_every_callout_paragraph_is_bordered_and_shaded(document: ET.Element) -> None:
    paragraphs = _callout_paragraphs(document)
    assert len(paragraphs) >= 8  # the banner and three callouts, several paragraphs each
    for p in paragraphs:
        ppr = p.find(W + "pPr")
        assert ppr is not None
        left = ppr.find(f"{W}pBdr/{W}left")
        fill = _val(ppr.find(W + "shd"), "fill")
        assert _val(left, "val") == "single" and int(_val(left, "sz") or 0) >= 24
        looks = {(BREAKDOWN.ink, BREAKDOWN.fill), (DECISION.ink, DECISION.fill)}
        assert (_val(left, "color"), fill) in looks
        tags = [child.tag.removeprefix(W) for child in ppr]
        assert tags == sorted(tags, key=P_ORDER.index)


def test_a_decision_is_purple_and_a_breakdown_red(document: ET.Element) -> None:
    inks = {}
    for p in _callout_paragraphs(document):
        text = "".join(t.text or "" for t in p.iter(W + "t"))
        inks[text] = _val(p.find(f"{W}pPr/{W}pBdr/{W}left"), "color")
    assert inks["Withdrawn citation"] == DECISION.ink
    assert inks["Citation failed: the stored evidence does not match its receipt"] == BREAKDOWN.ink


def test_the_title_is_bold_in_the_borders_colour(document: ET.Element) -> None:
    titles = [p for p in _callout_paragraphs(document) if _text(p) in STATE_TITLES.values()]
    assert len(titles) == 3
    for p in titles:
        run = p.find(W + "r")
        assert run is not None and run.find(f"{W}rPr/{W}b") is not None
        assert _val(run.find(f"{W}rPr/{W}color"), "val") in (BREAKDOWN.ink, DECISION.ink)


def test_each_flag_is_a_bordered_shaded_bold_coloured_run(document: ET.Element) -> None:
    flags = [
        r
        for r in document.iter(W + "r")
        if _val(r.find(f"{W}rPr/{W}rStyle"), "val") == "CiteledgerFlag"
    ]
    assert [_text(r) for r in flags] == [
        "[citation 1: stale]",
        "[citation 2: tampered]",
        "[citation 3: withdrawn]",
    ]
    for run, look in zip(flags, (BREAKDOWN, BREAKDOWN, DECISION), strict=True):
        props = run.find(W + "rPr")
        assert props is not None and props.find(W + "b") is not None
        assert _val(props.find(W + "color"), "val") == look.ink
        assert _val(props.find(W + "bdr"), "color") == look.ink
        assert _val(props.find(W + "shd"), "fill") == look.fill


def test_a_checked_document_has_no_border_or_shading(tmp_path: Path) -> None:
    root = _xml(_docx("Checked [@st-checked].\n", tmp_path / "ok.docx"), "word/document.xml")
    assert root.find(f".//{W}pBdr") is None and root.find(f".//{W}shd") is None


def test_the_shipped_reference_docx_defines_the_three_styles() -> None:
    styles = {
        _val(s.find(W + "name"), "val"): s
        for s in _xml(REFERENCE, "word/styles.xml").iter(W + "style")
    }
    breakdown = styles["Citeledger Breakdown"]
    assert _val(breakdown.find(f"{W}pPr/{W}pBdr/{W}left"), "color") == BREAKDOWN.ink
    assert _val(breakdown.find(f"{W}pPr/{W}shd"), "fill") == BREAKDOWN.fill
    flag = styles["Citeledger Flag"]
    assert _val(flag.find(f"{W}rPr/{W}color"), "val") == BREAKDOWN.ink
    assert flag.find(f"{W}rPr/{W}bdr") is not None
    assert "Citeledger Unverified" in styles


def test_a_build_from_the_reference_docx_keeps_its_styles(tmp_path: Path) -> None:
    out = _docx(DOC, tmp_path / "ref.docx", "--reference-doc", str(REFERENCE))
    styles = [
        s
        for s in _xml(out, "word/styles.xml").iter(W + "style")
        if _val(s.find(W + "name"), "val") == "Citeledger Breakdown"
    ]
    assert len(styles) == 1 and styles[0].find(f"{W}pPr/{W}pBdr") is not None
    back = subprocess.run(
        [PANDOC, "-f", "docx+styles", "-t", "markdown", str(out)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert 'custom-style="Citeledger Breakdown"' in back
    assert 'custom-style="Citeledger Flag"' in back


@pytest.mark.slow
@pytest.mark.tool("soffice", "libreoffice")  # apt-get install libreoffice-writer
@pytest.mark.parametrize("reference", [False, True])
def test_libreoffice_shows_the_callouts_framed(reference: bool, tmp_path: Path) -> None:
    args = ["--reference-doc", str(REFERENCE)] if reference else []
    _docx(DOC, tmp_path / "out.docx", *args)
    _docx("Checked [@st-checked].\n", tmp_path / "ok.docx", *args)
    profile = f"-env:UserInstallation=file://{tmp_path}/lo"  # its own, not the user's
    convert = ["--headless", "--convert-to", "pdf", "--outdir", str(tmp_path)]
    subprocess.run(
        [str(SOFFICE), profile, *convert, "out.docx", "ok.docx"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        timeout=300,
    )
    shown = colours((tmp_path / "out.pdf").read_bytes())
    quiet = colours((tmp_path / "ok.pdf").read_bytes())
    for look in (BREAKDOWN, DECISION):
        assert shown[look.fill] > 500 and shown[look.ink] > 50, look
        assert quiet[look.fill] == 0 and quiet[look.ink] < 5, look


def _text(el: ET.Element) -> str:
    return "".join(t.text or "" for t in el.iter(W + "t"))
