"""Hostile text in a callout: built documents stay valid, and what was removed stays visible.

A misquote's "nearest passage" comes from a retrieved page and a quote or reason from the
ledger: either may hold control characters (``ESC ] 0;… BEL`` sets a terminal's title), bidi
overrides (U+202E) or NUL. The DOCX callout XML is the filter's own, so ``word/document.xml``
must still parse; pdflatex stops on ``^^[``; typst with the audit must compile at all.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import pytest

from conftest import require

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from fixture_judge import FixtureJudge, judgement_for
from helpers import PANDOC, compile_latex, pandoc_bytes, pdf_text, run_main, venv_env

from citeledger.inert import visible
from citeledger.model import CitationRef, Judgement, Quote, Receipt

TITLE_SET = "\x1b]0;owned\x07"
HOSTILE = f"Appeals {TITLE_SET}must\x00 arrive\x0b with\x01in \u202e90 syad\u202c.\x1b[2K"
GOLDEN = Path(__file__).parent / "golden"
TEX = shutil.which("pdflatex")
AUDIT_TEX = ("-M", "citeledger.audit=true", "-o", "doc.tex")
TYPST = ("-M", "citeledger.audit=true", "--citeproc", "-s", "-t", "typst", "-o")


class HostileJudge(FixtureJudge):
    """A misquote whose nearest passage, quote, locator and reason carry hostile characters."""

    def judge(self, ref: CitationRef) -> Judgement:
        j = judgement_for(ref)
        receipt = Receipt(
            outcome="not-found",
            identifier="doi:10.1000/demo",
            retrieved_at="2026-03-04T09:12:44Z",
            tool="citeledger 0.1.0",
            writer_quote_sha256="0" * 64,
            candidate=HOSTILE,
            differences=(f"source says '\u202e90{TITLE_SET}'",),
        )
        quote = Quote(text="Appeals\x1b[31m within 60\u2066 days.", id="q1", locator="p.\x0c14")
        reasons = ("The quoted words are not in the source\x1b]8;;http://x\x07.",)
        return Judgement(ref.key, j.state, reasons, source=j.source, quote=quote, receipt=receipt)


def _filtered(fmt: str) -> bytes:
    run = run_main(pandoc_bytes("A claim [@st-quote-not-found]."), fmt, judge_factory=HostileJudge)
    assert run.code == 0, run.err
    return run.out


def test_visible_escapes_each_hostile_character_and_keeps_the_rest() -> None:
    assert visible("a\x1b]0;t\x07b") == "a\\x1b]0;t\\x07b"
    assert visible("\u202eabc\u2069") == "\\u202eabc\\u2069"
    assert visible("tab\tnew\nline é “q” 中") == "tab\tnew\nline é “q” 中"
    assert visible("\x9b2J\x7f") == "\\x9b2J\\x7f"
    assert visible("one\ntwo\rthree") == "one\ntwo\\x0dthree"


@pytest.mark.parametrize("fmt", ["html", "plain", "typst", "gfm", "rst", "latex", "markdown"])
def test_every_format_shows_the_hostile_characters_written_out(fmt: str) -> None:
    """``pandoc -t plain`` printed to a terminal obeys ESC too; HTML would reorder at U+202E."""
    proc = subprocess.run(
        [PANDOC, "-f", "json", "-t", fmt], input=_filtered(fmt), capture_output=True, check=True
    )
    shown = proc.stdout.decode("utf-8")
    assert not any(ch in shown for ch in "\x1b\x07\x00\u202e\u202c\u2066"), fmt
    assert "x1b" in shown and "u202e" in shown


def test_docx_callout_xml_stays_well_formed_and_shows_what_was_there(tmp_path: Path) -> None:
    out = tmp_path / "out.docx"
    subprocess.run([PANDOC, "-f", "json", "-o", str(out)], input=_filtered("docx"), check=True)
    with zipfile.ZipFile(out) as z:
        xml = z.read("word/document.xml").decode("utf-8")
    root = ElementTree.fromstring(xml)  # raises on a control character in the XML
    text = "".join(t.text or "" for t in root.iter() if t.tag.endswith("}t"))
    assert "Nearest passage" in text
    assert "\\x1b]0;owned\\x07" in text and "\\u202e90 syad\\u202c" in text
    assert "\\x00" in text and "with\\x01in" in text
    assert not any(ch in xml for ch in "\x1b\x07\x00\x0b\u202e\u202c\u2066")


@pytest.mark.tool("pdflatex")
def test_latex_callout_with_controls_and_bidi_overrides_compiles(tmp_path: Path) -> None:
    tex = tmp_path / "out.tex"
    subprocess.run(
        [PANDOC, "-f", "json", "-s", "-t", "latex", "-o", str(tex)],
        input=_filtered("latex"),
        check=True,
    )
    source = tex.read_text(encoding="utf-8")
    assert not any(ch in source for ch in "\x1b\x07\x00\x0b\u202e\u202c\u2066")
    proc = compile_latex(str(TEX), tex)
    assert proc.returncode == 0, proc.stdout[-3000:]
    # read back with PDFium (a dependency), not an optional pdftotext that let this pass unread
    shown = pdf_text(tmp_path / "out.pdf")
    assert "x1b]0;owned" in shown and "u202e90" in shown


@pytest.mark.parametrize("case", ["states", "claims", "audit"])
def test_typst_with_the_audit_compiles(case: str, tmp_path: Path) -> None:
    """The audit's "back to the claim" links need labels typst has: it refused them before."""
    typst = require("typst")
    folder = GOLDEN / case
    typ = tmp_path / f"{case}.typ"
    subprocess.run(
        [
            PANDOC,
            "--defaults",
            str(folder / "defaults.yaml"),
            str(folder / "input.md"),
            *TYPST,
            str(typ),
        ],
        env=venv_env(),
        check=True,
        capture_output=True,
    )
    assert "Citation audit" in typ.read_text(encoding="utf-8")
    pdf = typst.compile(str(typ), root=str(tmp_path))
    assert pdf[:5] == b"%PDF-"


def test_the_standing_case_with_its_audit_compiles_as_typst(tmp_path: Path) -> None:
    typst = require("typst")
    example = Path(__file__).parents[1] / "examples" / "standing-case"
    typ = tmp_path / "chapter.typ"
    subprocess.run(
        [PANDOC, "chapter.md", "--filter", "pandoc-citeledger", *TYPST, str(typ)],
        cwd=example,
        env=venv_env(),
        check=True,
        capture_output=True,
    )
    assert "Citation audit" in typ.read_text(encoding="utf-8")
    assert typst.compile(str(typ), root=str(tmp_path))[:5] == b"%PDF-"


@pytest.mark.tool("pdflatex")
def test_a_ledger_title_with_controls_reaches_citeproc_and_the_audit_inert(tmp_path: Path) -> None:
    """The ledger's CSL data feeds citeproc (the bibliography) and the audit's title cell."""
    (tmp_path / "citeledger.yaml").write_text(
        'sources:\n  k:\n    file: src.txt\n    title: "A title \\e]0;owned\\a with \\u202e bidi"\n'
        '    quotes:\n      - text: "Words \\e[2K here."\n'
    )
    (tmp_path / "src.txt").write_text("Words here.\n")
    (tmp_path / "doc.md").write_text("A claim [@k].\n")
    subprocess.run(
        [PANDOC, "doc.md", "--filter", "pandoc-citeledger", "--citeproc", "-s", *AUDIT_TEX],
        cwd=tmp_path,
        env=venv_env(),
        check=True,
        capture_output=True,
    )
    source = (tmp_path / "doc.tex").read_text(encoding="utf-8")
    assert "x1b{]}0;owned" in source
    assert not any(ch in source for ch in "\x1b\x07\u202e")
    proc = compile_latex(str(TEX), tmp_path / "doc.tex")
    assert proc.returncode == 0, proc.stdout[-3000:]


def test_a_real_misquote_of_a_hostile_source_builds_a_well_formed_docx(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """End to end: verify reads the source, the judge finds the nearest passage, DOCX holds it."""
    from citeledger.cli import main

    (tmp_path / "src.txt").write_text(
        "Intro.\n\nAn appeal must be received within \x1b]0;owned\x07ninety days of the date.\n"
    )
    (tmp_path / "citeledger.yaml").write_text(
        'sources:\n  k:\n    file: src.txt\n    title: "T\\e[2K"\n    quotes:\n'
        '      - text: "An appeal must be received within sixty days of the date."\n'
    )
    (tmp_path / "doc.md").write_text("A claim [@k].\n")
    monkeypatch.chdir(tmp_path)
    assert main(["verify", "--yes", "--warn-only"]) == 0
    subprocess.run(
        [PANDOC, "doc.md", "--filter", "pandoc-citeledger", "--citeproc", "-o", "doc.docx"],
        env=venv_env(),
        check=True,
        capture_output=True,
    )
    with zipfile.ZipFile(tmp_path / "doc.docx") as z:
        xml = z.read("word/document.xml").decode("utf-8")
    root = ElementTree.fromstring(xml)
    text = "".join(t.text or "" for t in root.iter() if t.tag.endswith("}t"))
    assert "Nearest passage" in text and "\\x1b]0;owned\\x07ninety" in text
    assert not any(ch in xml for ch in "\x1b\x07")
