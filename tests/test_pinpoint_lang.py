"""Locators in the document's language: pandoc's citeproc reads ``[@key, S. 99]`` of a German
document (``lang: de``) as page 99, so the build does too, with the CSL locale's terms
(``locator-terms.json``), and holds that page to the evidence like an English ``p. 99``.
Real pandoc (the citeproc reading, the filter), a real PDF and a real verify."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from helpers import PANDOC, venv_env

from citeledger.build.pinpoints import (
    PageSpan,
    locale_of,
    normalize_locator,
    page_spans,
    parse_locator,
)
from citeledger.cli import main
from test_extract_pdf import make_pdf

QUOTE = "Die Frist beträgt sechzig Tage."


def test_the_document_language_adds_its_locale_terms() -> None:
    assert parse_locator(", S. 99", "de")[0] is not None
    assert parse_locator(", S. 99", "de")[0].label == "page"  # type: ignore[union-attr]
    assert parse_locator(", S. 99")[0] is None  # English alone: "S." is no label
    assert normalize_locator("Kap. 3", "de-DE") == ("chapter", "3")
    assert normalize_locator("Bd 2", "de") == ("volume", "2")  # lenient: no full stop
    assert normalize_locator("chap. 3", "fr") == ("chapter", "3")
    assert normalize_locator("S. 99", "fr") == ("other", "s. 99")  # not a French term
    assert page_spans("S. 14–16", "de") == (PageSpan(14, 16),)


def test_english_stays_accepted_and_a_locale_term_wins_where_they_differ() -> None:
    assert normalize_locator("p. 99", "de") == ("page", "99")
    assert normalize_locator("§ 3") == ("section", "3")
    assert normalize_locator("§ 3", "fr") == ("paragraph", "3")  # French: § is a paragraph
    # pt-BR gives ``p.`` to page and verse: pandoc's order puts page first
    assert normalize_locator("p. 3", "pt-BR") == ("page", "3")


@pytest.mark.parametrize(
    ("lang", "locale"),
    [
        ("de", "de-DE"),
        ("de-AT", "de-AT"),
        ("pt_BR", "pt-BR"),
        ("PT", "pt-PT"),
        ("en-GB", None),
        ("", None),
        (None, None),
        ("tlh", None),
    ],
)
def test_locale_of(lang: str | None, locale: str | None) -> None:
    assert locale_of(lang) == locale


def _citeproc(doc: str) -> str:
    """How pandoc's citeproc prints the document (chicago author-date: a page shows bare)."""
    return subprocess.run(
        [PANDOC, "--citeproc", "-f", "markdown", "-t", "plain", "--wrap=none"],
        input=doc,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.replace("\xa0", " ")


REFERENCES = """references:
- id: r
  type: book
  title: Bericht
  author: [{family: Muster, given: Max}]
  issued: 2020
"""


def test_what_citeproc_reads_is_what_the_build_reads() -> None:
    """The facts the reading follows, asked of the real pandoc: in German ``S. 99`` is a page
    (printed bare), ``Kap. 3`` a chapter; ``p. 99`` and ``chap. 3`` are left in the suffix
    (the reader still sees them, and the build reads them as English)."""
    text = _citeproc(
        f"---\nlang: de-DE\n{REFERENCES}---\n"
        "A [@r, S. 99]. B [@r, Kap. 3]. C [@r, p. 99]. D [@r, Seite 4].\n"
    )
    assert "A (Muster 2020, 99). B (Muster 2020, Kap. 3)." in text
    assert "C (Muster 2020, p. 99). D (Muster 2020, 4)." in text
    for written in ("S. 99", "Kap. 3", "p. 99", "Seite 4"):
        assert parse_locator(f", {written}", "de-DE")[0] is not None, written


def _project(tmp_path: Path, locator: str, cited: str, lang: str = "de") -> Path:
    (tmp_path / "sources").mkdir()
    pages = [["Einleitung."], ["Zweite Seite.", QUOTE], ["Dritte Seite."]]
    (tmp_path / "sources" / "r.pdf").write_bytes(make_pdf(pages))
    (tmp_path / "citeledger.yaml").write_text(
        "sources:\n  r:\n    file: sources/r.pdf\n    title: Bericht\n    quotes:\n"
        f"      - text: {QUOTE}\n        locator: {locator}\n",
        encoding="utf-8",
    )
    head = f"---\nlang: {lang}\n---\n\n" if lang else ""
    (tmp_path / "doc.md").write_text(f"{head}Die Frist ist kurz [@r, {cited}].\n", "utf-8")
    assert main(["verify", "--ledger", str(tmp_path / "citeledger.yaml"), "--yes"]) == 0
    return tmp_path


def _check(project: Path) -> dict[str, object]:
    report = project / "report.json"
    args = ["check", str(project / "doc.md"), "--ledger", str(project / "citeledger.yaml")]
    main([*args, "--quiet", "--json", str(report)])
    [c] = json.loads(report.read_text(encoding="utf-8"))["citations"]
    assert isinstance(c, dict)
    return c


def _build(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PANDOC, "doc.md", "--filter", "pandoc-citeledger", "-t", "plain", *args],
        cwd=project,
        capture_output=True,
        text=True,
        env=venv_env(CITELEDGER_CACHE_DIR=str(project.parent / f"{project.name}-cache")),
        check=False,
    )


@pytest.mark.parametrize(("locator", "cited"), [("S. 2", "S. 2"), ("p. 2", "S. 2")])
def test_a_german_page_locator_is_checked_on_its_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, locator: str, cited: str
) -> None:
    monkeypatch.setenv("CITELEDGER_CACHE_DIR", str(tmp_path.parent / f"{tmp_path.name}-cache"))
    project = _project(tmp_path, locator, cited)
    c = _check(project)
    assert c["state"] == "checked", c["reasons"]
    build = _build(project)
    assert build.returncode == 0, build.stderr
    assert "[citation" not in build.stdout and "citeledger" not in build.stderr


def test_a_german_page_locator_is_held_to_the_evidence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``S. 3`` is a page in German: the quote stands on page 2, so it is not checked there —
    the page rule applies as to ``p. 3``."""
    monkeypatch.setenv("CITELEDGER_CACHE_DIR", str(tmp_path.parent / f"{tmp_path.name}-cache"))
    c = _check(_project(tmp_path, "S. 3", "S. 3"))
    assert c["state"] == "quote-not-found"
    assert "S. 3" in str(c["reasons"]) and "page 2" in str(c["reasons"])


def test_the_language_given_on_the_command_line_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``-M lang=de`` is the document's language for citeproc, and so for the build; without
    any, ``S. 2`` is a pinpoint the build cannot read, a breakdown that says so."""
    monkeypatch.setenv("CITELEDGER_CACHE_DIR", str(tmp_path.parent / f"{tmp_path.name}-cache"))
    project = _project(tmp_path, "p. 2", "S. 2", lang="")
    english = _build(project)
    assert "[citation 1: unchecked]" in english.stdout
    assert "which citeledger does not read" in english.stderr
    german = _build(project, "-M", "lang=de")
    assert german.returncode == 0 and "[citation" not in german.stdout, german.stderr


def test_the_evidence_pages_read_a_locator_in_the_documents_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``citeledger evidence --lang de`` reads ``locator: S. 3`` as the German build does: the
    quote stands on page 2, so its page fails and says where it was found, as ``check`` does;
    ``S. 2`` is that page, so its page is checked. Without a language, English terms alone."""
    monkeypatch.setenv("CITELEDGER_CACHE_DIR", str(tmp_path.parent / f"{tmp_path.name}-cache"))
    project = _project(tmp_path, "S. 3", "S. 3")
    ledger, out = str(project / "citeledger.yaml"), project / "evidence"
    assert main(["evidence", "--ledger", ledger, "--out", str(out), "--lang", "de"]) == 0
    [page] = [p.read_text("utf-8") for p in out.glob("r-*.html")]
    assert "FAILED" in page and "found the quote on page 2" in page and "S. 3" in page
    assert _check(project)["state"] == "quote-not-found"  # what the build says, the same
    right = tmp_path / "right"
    right.mkdir()
    project = _project(right, "S. 2", "S. 2")
    ledger, out = str(project / "citeledger.yaml"), project / "evidence"
    assert main(["evidence", "--ledger", ledger, "--out", str(out), "--lang", "de-DE"]) == 0
    [page] = [p.read_text("utf-8") for p in out.glob("r-*.html")]
    assert "FAILED" not in page and "Checked: the quoted words were found" in page


def test_the_evidence_pages_without_a_language_name_the_locators_english_cannot_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CITELEDGER_CACHE_DIR", str(tmp_path.parent / f"{tmp_path.name}-cache"))
    project = _project(tmp_path, "S. 3", "S. 3")
    capsys.readouterr()
    ledger, out = str(project / "citeledger.yaml"), str(project / "evidence")
    assert main(["evidence", "--ledger", ledger, "--out", out]) == 0
    err = capsys.readouterr().err
    assert "1 quote locator is read by no English term: @r quote 1 (S. 3)" in err
    assert "--lang de" in err
