"""Every citation a reader sees is judged: raw commands, other metadata, image alt text, notes
in headings, pinpoints the build cannot read.

Each case runs the real filter, through pandoc, on a project whose ledger holds two checked
sources (``a``, ``b``: ``verify`` read their local files) and one never verified (``c``);
``check`` must agree. A citation the reader sees that no check covers must never pass as
checked: it is a breakdown, flagged and counted by ``strict``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from helpers import PANDOC, compile_latex, pdf_text, venv_env, walk

from citeledger.cli import main

LEDGER = """sources:
  a:
    file: a.txt
    title: River Notes
    author: [{family: Smith, given: Ann}]
    issued: 2020
    quotes:
      - {id: q1, text: The river floods every spring when the snow melts in the northern hills.}
  b:
    file: b.txt
    title: Tides
    author: [{family: Jones, given: Bob}]
    issued: 2019
    quotes:
      - text: The moon pulls the sea twice a day.
  c:
    file: b.txt
    title: Unverified thing
    author: [{family: Nobody, given: Ned}]
    issued: 2018
    quotes:
      - text: The sun pulls nothing.
  d:
    file: b.txt
    title: Tides, the set
    quotes:
      - {text: The moon pulls the sea twice a day., locator: vol. 2}
"""
BIB = """@book{a, author={Smith, Ann}, title={River Notes}, year={2020}, publisher={X}}
@book{b, author={Jones, Bob}, title={Tides}, year={2019}, publisher={X}}
@book{c, author={Nobody, Ned}, title={Unverified thing}, year={2018}, publisher={X}}
"""
FILTER = str(Path(sys.executable).parent / "pandoc-citeledger")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("seen")
    (root / "a.txt").write_text(
        "Chapter one.\n\nThe river floods every spring when the snow melts in the northern hills.\n"
    )
    (root / "b.txt").write_text("A short note on tides. The moon pulls the sea twice a day.\n")
    (root / "citeledger.yaml").write_text(LEDGER)
    (root / "refs.bib").write_text(BIB)
    assert (
        main(
            ["verify", "--ledger", str(root / "citeledger.yaml"), "--yes", "--only", "a", "b", "d"]
        )
        == 0
    )
    return root


def _doc(project: Path, name: str, text: str) -> Path:
    path = project / name
    path.write_text(text, encoding="utf-8")
    return path


def states(doc: Path) -> list[tuple[str, str, Any]]:
    """``check``'s verdict on ``doc``: (key, state, locator) per citation."""
    report = doc.with_suffix(".json")
    main(["check", str(doc), "--json", str(report), "--warn-only"])
    data = json.loads(report.read_text())
    return [(c["key"], c["state"], c.get("locator")) for c in data["citations"]]


def build(doc: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PANDOC, doc.name, "--filter", FILTER, *args],
        cwd=doc.parent,
        capture_output=True,
        text=True,
        env=venv_env(),
        check=False,
    )


def json_build(doc: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    proc = build(doc, "-t", "json", *args)
    return proc.returncode, json.loads(proc.stdout) if proc.stdout else {}, proc.stderr


def flags(node: Any) -> list[str]:
    """The flags' classes' state, in document order."""
    out = []
    for n in walk(node):
        if n.get("t") == "Span" and "citeledger-flag" in n["c"][0][1]:
            out.append(next(c for c in n["c"][0][1] if c != "citeledger-flag"))
    return out


# --------------------------------------------------------------------------- 1: raw commands

RAW_TEX = """---
bibliography: refs.bib
citeledger: {strict: true}
---

Rivers flood in spring [@a quote:q1]. The sun pulls nothing at all \\citep[p.~4]{c}.

\\begin{quote}
As \\textcite{b} and \\parencites[7]{a}[9]{b} say.
\\end{quote}
"""


def test_raw_tex_citations_are_breakdowns_in_check_strict_and_pdf(project: Path) -> None:
    doc = _doc(project, "raw.md", RAW_TEX)
    assert states(doc) == [
        ("a", "checked", None),
        ("c", "unchecked", None),
        ("b", "unchecked", None),
        ("a", "unchecked", None),
        ("b", "unchecked", None),
    ]
    code, _, err = json_build(doc)
    assert code != 0 and "strict: 4 of 5" in err
    assert "\\citep[p.~4]{c}" in err and "write it as [@c]" in err
    lax = _doc(project, "raw-lax.md", RAW_TEX.replace("strict: true", "strict: false"))
    code, out, err = json_build(lax)
    assert code == 0, err
    assert flags(out["blocks"]) == ["citeledger-unchecked"] * 4
    # a second run (the filter's own output as input) judges the same and adds nothing
    again = subprocess.run(
        [PANDOC, "-f", "json", "-t", "json", "--filter", FILTER, "-M", "citeledger.strict=false"],
        input=json.dumps(out),
        capture_output=True,
        text=True,
        env=venv_env(),
        cwd=project,
        check=True,
    )
    assert json.loads(again.stdout)["blocks"] == out["blocks"]


@pytest.mark.tool("pdflatex")
def test_raw_tex_citation_is_flagged_in_the_pdf(project: Path) -> None:
    natbib = RAW_TEX.replace("strict: true", "strict: false").replace(
        "\\textcite{b} and \\parencites[7]{a}[9]{b}", "\\citet{b} and \\citep{a,b}"
    )
    doc = _doc(project, "rawpdf.md", natbib)
    tex = project / "rawpdf.tex"
    proc = build(doc, "-s", "--natbib", "-o", tex.name)
    assert proc.returncode == 0, proc.stderr
    result = compile_latex(shutil.which("pdflatex") or "pdflatex", tex)
    assert result.returncode == 0, result.stdout[-3000:]
    text = pdf_text(tex.with_suffix(".pdf"))
    assert text.count("raw TeX") >= 3, text


def test_raw_citations_in_a_markdown_build_and_in_coverage(project: Path) -> None:
    """A GitHub Markdown build wraps a raw command like a Cite (it is no Cite to write back as
    ``[@key]``); coverage counts its sentence as declaring provenance, like any citation."""
    doc = _doc(project, "rawgfm.md", RAW_TEX.replace("strict: true", "strict: false"))
    proc = build(doc, "-t", "gfm")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("citation 2: unchecked") == 1
    report = doc.with_suffix(".json")
    main(["check", str(doc), "--json", str(report), "--warn-only"])
    assert "The sun pulls nothing" not in json.dumps(json.loads(report.read_text())["coverage"])


def test_raw_typst_citations_are_breakdowns(project: Path) -> None:
    from conftest import require

    doc = _doc(
        project,
        "rawtyp.md",
        "Rivers flood [@a quote:q1]. The sun pulls nothing `#cite(<c>)`{=typst}.\n\n"
        "```{=typst}\nAs @b says, and @fig-one shows.\n```\n",
    )
    assert states(doc) == [
        ("a", "checked", None),
        ("c", "unchecked", None),
        ("b", "unchecked", None),
    ]
    # typst itself formats the raw citations: it needs a bibliography (and the label's target)
    doc.write_text(
        doc.read_text().replace(
            "```\n", '\n#figure([x], caption: [One]) <fig-one>\n#bibliography("refs.bib")\n```\n'
        ),
    )
    typ = project / "rawtyp.typ"
    proc = build(doc, "-s", "--citeproc", "-o", typ.name)
    assert proc.returncode == 0, proc.stderr
    pdf = require("typst").compile(str(typ), root=str(project))
    assert pdf[:5] == b"%PDF-"
    assert typ.read_text().count("raw typst") >= 2


# --------------------------------------------------------------------------- 2: metadata

META = """---
title: Test
bibliography: refs.bib
author:
  - name: "Ann Writer, after [@c]"
    affiliation: "River Lab [@c]"
date: "2024, as dated by [@c]"
include-before: |
  The sun pulls nothing, as shown by [@c].
include-after: |
  Also the sun pulls nothing [@c].
nocite: "[@b]"
---

Rivers flood in spring [@a quote:q1].
"""


def test_every_printed_metadata_field_is_judged(project: Path) -> None:
    doc = _doc(project, "meta.md", META)
    assert states(doc) == [("c", "unchecked", None)] * 5 + [("a", "checked", None)]
    proc = build(doc, "-s", "--citeproc", "-t", "html", "-M", "citeledger.strict=true")
    assert proc.returncode != 0 and "strict: 5 of 6" in proc.stderr
    code, out, err = json_build(doc, "--citeproc")
    assert code == 0, err
    assert flags(out["meta"]) == ["citeledger-unchecked"] * 5
    # the callouts: at the top of the body, every one shown
    html = build(doc, "-s", "--citeproc", "-t", "html").stdout
    body = html.split("<body>")[1]
    assert all(f'id="citeledger-breakdown-{n}"' in body for n in range(1, 6))


# --------------------------------------------------------------------------- 8: image alt

ALT = (
    "Rivers flood [@a quote:q1] and see ![the sun pulls nothing [@c]](x.png) here.\n\n"
    "![A figure of tides [@b]](y.png)\n"
)


def test_inline_image_alt_is_judged_a_figure_once(project: Path) -> None:
    doc = _doc(project, "alt.md", ALT)
    assert states(doc) == [("a", "checked", None), ("c", "unchecked", None), ("b", "checked", None)]
    report = json.loads(doc.with_suffix(".json").read_text())
    assert report["citations"][1]["claim"] == "the sun pulls nothing"
    code, out, err = json_build(doc, "--citeproc")
    assert code == 0, err
    assert flags(out["blocks"]) == ["citeledger-unchecked"]


# --------------------------------------------------------------------------- 11: heading notes

HEADING_NOTE = "# Heading with a note^[The sun pulls nothing [@c].]\n\nBody text.\n"


def test_a_heading_notes_callout_follows_the_heading(project: Path) -> None:
    doc = _doc(project, "heading.md", HEADING_NOTE)
    code, out, err = json_build(doc, "--citeproc")
    assert code == 0, err
    blocks = [b for b in out["blocks"] if "citeledger-banner" not in json.dumps(b)[:300]]
    assert blocks[0]["t"] == "Header"
    assert "citeledger-breakdown" not in json.dumps(blocks[0])  # no block inside the heading
    assert "citeledger-breakdown" in json.dumps(blocks[1])


@pytest.mark.tool("pdflatex")
def test_a_heading_notes_breakdown_builds_a_pdf(project: Path) -> None:
    doc = _doc(project, "headingpdf.md", HEADING_NOTE)
    tex = project / "headingpdf.tex"
    proc = build(doc, "-s", "--citeproc", "-o", tex.name)
    assert proc.returncode == 0, proc.stderr
    result = compile_latex(shutil.which("pdflatex") or "pdflatex", tex)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "not verified against its source" in pdf_text(tex.with_suffix(".pdf")).lower()


def test_a_heading_notes_breakdown_builds_with_typst(project: Path) -> None:
    from conftest import require

    doc = _doc(project, "headingtyp.md", HEADING_NOTE)
    typ = project / "headingtyp.typ"
    assert build(doc, "-s", "--citeproc", "-o", typ.name).returncode == 0
    assert require("typst").compile(str(typ), root=str(project))[:5] == b"%PDF-"


# --------------------------------------------------------------------------- 10: asciidoc notes

NOTES = (
    "The river floods[^1] and tides turn.[^2]\n\n"
    "[^1]: The sun pulls nothing [@c].\n\n[^2]: See also [@c].\n"
)


def test_asciidoc_keeps_a_note_whose_citation_breaks_down(project: Path) -> None:
    doc = _doc(project, "notes.md", NOTES)
    proc = build(doc, "--citeproc", "-t", "asciidoc")
    assert proc.returncode == 0, proc.stderr
    assert "multiblock footnote omitted" not in proc.stdout
    assert "footnote:[The sun pulls nothing" in proc.stdout
    assert proc.stdout.count("citation 1: unchecked") == 1
    assert proc.stdout.count("Citation 1") >= 1 and proc.stdout.count("Citation 2") >= 1


# --------------------------------------------------------------------------- 3, 3b: pinpoints

PINPOINTS = """\
Tides [@b]. Tides [@b, emphasis added]. Tides [@b, see p. 99]. Tides [@b, at p. 99].
Tides [@b, fn. 12]. Tides [@b, pg 99]. Tides [@b, para 12]. Tides [@b, loc. 99].
Tides [see p. 99 of @b]. Tides [@d, vol. 2]. Tides [@d, vol. 2, p. 99].
Tides [@d, vol. 2 and vol. 7]. Tides [@b, as in @a].
"""


def test_a_pinpoint_the_build_does_not_read_is_never_checked(project: Path) -> None:
    doc = _doc(project, "pinpoints.md", PINPOINTS)
    found = states(doc)
    assert [s for _, s, _ in found] == [
        *("checked", "checked"),
        *("unchecked",) * 7,
        *("checked", "unchecked", "unchecked"),
        *("checked", "checked"),  # [@b, as in @a]: a nested citation is no pinpoint
    ]
    assert found[10] == ("d", "unchecked", "vol. 2")
    report = json.loads(doc.with_suffix(".json").read_text())
    assert "“p. 99”" in report["citations"][10]["reasons"][0]
    code, out, err = json_build(doc, "--citeproc")
    assert code == 0, err
    assert flags(out["blocks"]) == ["citeledger-unchecked"] * 9
