"""The two worked examples, built by their own Makefiles as a user would build them.

``examples/thesis``: chapters and a BibTeX file → verify → check → PDF through pdflatex with
``strict``; the PDF's text is read back (PDFium) for what a reader sees. ``examples/site``:
pages in subfolders → HTML with evidence pages and the audit in ``public/``; every relative
link and fragment of every page must resolve inside ``public/``. Both are built in a copy in a
temporary folder (the tracked examples are never written), against local files only.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from helpers import copy_example as _copy
from helpers import make as _make
from helpers import pdf_text as _pdf_text

pytestmark = [
    pytest.mark.slow,
    pytest.mark.tool("make"),
]


@pytest.mark.tool("pdflatex")
def test_thesis_builds_strict_and_its_draft_shows_the_breakdowns(tmp_path: Path) -> None:
    work = _copy("thesis", tmp_path)
    built = _make(work)
    assert built.returncode == 0, built.stdout + built.stderr
    thesis = _pdf_text(work / "build" / "thesis.pdf")
    assert "Nest Occupancy on an Exposed Coast" in thesis
    assert "Citation audit" in thesis and "Citation failed" not in thesis
    assert "Survey Methods Handbook" in thesis  # citeproc read refs.bib
    assert "is up to date" in _make(work, "build/thesis.pdf").stdout

    draft = _make(work, "build/draft.pdf")
    assert draft.returncode == 0, draft.stdout + draft.stderr
    text = _pdf_text(work / "build" / "draft.pdf")
    assert "Citation failed: the quoted words are not in the source" in text
    assert "source says '110', quote says '130'" in text
    assert "Unchecked citation" in text
    assert str(tmp_path) not in thesis + text  # no machine path in what a reader gets

    # strict: the draft chapter in the thesis build stops it at check, before any PDF
    chapters = "chapters/01-introduction.md chapters/04-draft.md"
    refused = _make(work, "build/thesis.pdf", f"CHAPTERS={chapters}", "-B")
    assert refused.returncode != 0
    assert "quote-not-found" in refused.stdout + refused.stderr


def _targets(page: Path) -> list[str]:
    html = page.read_text(encoding="utf-8")
    return re.findall(r'(?:href|src)="([^"]*)"', html)


def _ids(page: Path) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', page.read_text(encoding="utf-8")))


def test_site_builds_into_public_and_every_relative_link_resolves(tmp_path: Path) -> None:
    work = _copy("site", tmp_path)
    built = _make(work)
    assert built.returncode == 0, built.stdout + built.stderr
    public = work / "public"
    pages = sorted(public.rglob("*.html"))
    names = {p.relative_to(public).as_posix() for p in pages}
    assert {"index.html", "guide/crossing.html", "reports/may.html"} <= names
    evidence = [n for n in names if n.startswith("evidence/")]
    assert len(evidence) == 4  # one page per quote cited, shared between the site's pages
    checked = 0
    for page in pages:
        for target in _targets(page):
            parts = urlsplit(target)
            if parts.scheme or target.startswith("//"):
                assert parts.scheme in ("https", "http", "data", "file") and "tmp" not in target
                continue
            dest = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            assert dest.is_file(), f"{page.relative_to(public)}: {target} does not resolve"
            assert public.resolve() in dest.parents or dest == page.resolve()
            if parts.fragment:
                assert parts.fragment in _ids(dest), f"{page}: #{parts.fragment} missing"
            checked += 1
    assert checked > 20
    may = (public / "reports" / "may.html").read_text(encoding="utf-8")
    assert "citeledger-quote-not-found" in may and "Citation audit" in may
    assert str(tmp_path) not in may
    assert "is up to date" in _make(work, "public/index.html").stdout
    # one `citeledger build` for the pages out of date: here the one page touched
    os.utime(work / "pages" / "guide" / "crossing.md")
    again = _make(work)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "citeledger build pages/guide/crossing.md --base pages" in again.stdout
