"""In a real headless Chromium, a reader can follow every promise: flag → audit → claim → evidence.

The page under test is built here with the bundled pandoc from a document that follows the ids
contract of ``citeledger.report.audit`` (claim span, flag, callout, audit table) and links to
evidence pages written by ``citeledger.evidence.publish`` from real receipts. Broken variants
of the same page must fail, so the assertion is known to bite. When ``make demo`` has built
``examples/standing-case/out/chapter.html``, the same check runs on it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from browser_util import (
    REPO,
    Browser,
    ReaderSurfaceError,
    assert_reader_surface,
    browser,
    build_sample,
    chromium_available,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.browser,
    pytest.mark.skipif(
        not chromium_available() and not os.environ.get("CI"),
        reason="/usr/bin/chromium is not installed (apt-get install chromium); the reader "
        "surface cannot be checked without a real browser",
    ),
]

DEMO = REPO / "examples" / "standing-case" / "out" / "chapter.html"


@pytest.fixture(scope="module")
def session() -> Iterator[Browser]:
    with browser() as b:
        yield b


@pytest.fixture()
def sample(tmp_path: Path, pandoc_path: str) -> Path:
    return build_sample(tmp_path, pandoc_path)


def test_reader_can_follow_every_promise(sample: Path, session: Browser, tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    report = assert_reader_surface(sample, session=session, screenshot=shot)
    assert report.callouts == 3  # withdrawn, quote-not-found, unchecked
    assert report.flags == 3 and report.rows == 3
    assert report.evidence_pages == 2  # the checked quote and the misquoted one
    assert report.marks == 1  # only the checked passage is highlighted as found
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _edit(old: str, new: str, count: int = 1) -> Callable[[Path], None]:
    def apply(page: Path) -> None:
        text = page.read_text(encoding="utf-8")
        assert old in text, old
        page.write_text(text.replace(old, new, count), encoding="utf-8")

    return apply


def _move_first_callout(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    start = text.index('<div id="citeledger-breakdown-1"')
    end = text.index("</div>", start) + len("</div>")
    callout = text[start:end]
    text = text[:start] + text[end:]
    text = text.replace('<h1 class="unnumbered"', callout + '\n<h1 class="unnumbered"', 1)
    page.write_text(text, encoding="utf-8")


def _script_in_evidence(page: Path) -> None:
    for ev in (page.parent / "evidence").glob("hchm-*.html"):
        ev.write_text(
            ev.read_text(encoding="utf-8").replace("</body>", "<script>1</script></body>"),
            encoding="utf-8",
        )


def _unhighlight_evidence(page: Path) -> None:
    for ev in (page.parent / "evidence").glob("hchm-*.html"):
        text = ev.read_text(encoding="utf-8")
        ev.write_text(
            text.replace("<mark>", "<span>").replace("</mark>", "</span>"), encoding="utf-8"
        )


def _fail_evidence(page: Path) -> None:
    for ev in (page.parent / "evidence").glob("hchm-*.html"):
        text = ev.read_text(encoding="utf-8")
        ev.write_text(
            text.replace("<body", '<body class="citeledger-evidence-failed-bundle"', 1)
            if "<body class=" not in text
            else text.replace(
                '<body class="', '<body class="citeledger-evidence-failed-bundle ', 1
            ),
            encoding="utf-8",
        )


BROKEN = {
    "hidden callout": (
        _edit("</head>", "<style>.citeledger-breakdown { display: none; }</style></head>"),
        "is not displayed",
    ),
    "small callout": (
        _edit("</head>", "<style>.citeledger-breakdown { font-size: 70%; }</style></head>"),
        "is smaller than the text",
    ),
    "callout away from its claim": (_move_first_callout, "does not sit directly after"),
    "flag links elsewhere": (
        _edit('href="#citeledger-audit-1"', 'href="#citeledger-breakdown-1"'),
        "has no link to #citeledger-audit-1",
    ),
    "audit row without anchor": (
        _edit('id="citeledger-audit-3"', 'id="audit-3"'),
        "#citeledger-audit-3, which does not exist",
    ),
    "script on an evidence page": (_script_in_evidence, "<script> elements"),
    "passage not highlighted": (_unhighlight_evidence, "shows no highlighted <mark>"),
    "checked but its evidence failed": (_fail_evidence, "says the evidence FAILED"),
    "audit table overflows the page": (
        _edit(".citeledger-audit-table", ".not-the-audit-table", count=4),
        "is outside the visible page",
    ),
    "loads from the network": (
        _edit("</head>", '<link rel="stylesheet" href="https://example.invalid/x.css">\n</head>'),
        "tried to load from the network",
    ),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_surface_fails(name: str, sample: Path, session: Browser) -> None:
    breaker, expected = BROKEN[name]
    breaker(sample)
    with pytest.raises(ReaderSurfaceError) as info:
        assert_reader_surface(sample, session=session)
    assert expected in str(info.value)


@pytest.fixture(scope="module")
def demo() -> Path:
    """Build the standing case exactly as ``make demo`` does (verify against the stand-in
    publisher on 127.0.0.1, then pandoc with the filter)."""
    subprocess.run(
        [sys.executable, str(REPO / "examples" / "run_demo.py")],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return DEMO


def test_demo_output(session: Browser, demo: Path, tmp_path: Path) -> None:
    """The standing case as ``make demo`` builds it (ch.39's withdrawn footnote, acceptance 3)."""
    report = assert_reader_surface(demo, session=session, screenshot=tmp_path / "demo.png")
    assert report.callouts >= 3 and report.evidence_pages >= 1
