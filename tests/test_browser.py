"""In a real headless Chromium, a reader can follow every promise: flag → audit → claim → evidence.

At scale too (issue 14): a block's breakdowns in one grouped callout, each item held to what a
lone callout is held to (displayed, as large as the text, bold first line with its warning sign,
after its claim's block) plus a rule setting it apart and links both ways with its flag; the
banner at the top of the body, bold and bordered, its audit link landing.

The page under test is built here with the bundled pandoc from a document that follows the ids
contract of ``citeledger.report.audit`` (claim span, flag, callout, audit table) and links to
evidence pages written by ``citeledger.evidence.publish`` from real receipts. Broken variants
of the same page must fail, so the assertion is known to bite. When ``make demo`` has built
``examples/standing-case/out/chapter.html``, the same check runs on it.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from browser_util import (
    REPO,
    Browser,
    ReaderSurfaceError,
    assert_grouped_surface,
    assert_reader_surface,
    browser,
    build_grouped,
    build_sample,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.browser,
    pytest.mark.tool("chromium", path="/usr/bin"),  # the reader surface needs a real browser
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


@pytest.fixture()
def grouped(tmp_path: Path, pandoc_path: str) -> Path:
    return build_grouped(tmp_path / "chapter.html", pandoc_path)


def test_grouped_callout_and_banner_are_loud(grouped: Path, session: Browser) -> None:
    report = assert_grouped_surface(grouped, session=session)
    assert report.callouts == 1 and report.grouped_items == 3
    assert report.banner is not None and report.banner.startswith("Citation check: 1 of 5")
    # and the whole surface still holds: flags → audit → claims, the lone callout too
    report = assert_reader_surface(grouped, session=session, min_evidence=0)
    assert report.callouts == 2 and report.grouped_items == 3
    assert report.flags == 4 and report.rows == 4


def _style(css: str) -> Callable[[Path], None]:
    return _edit("</head>", f"<style>{css}</style></head>")


GROUPED_BROKEN = {
    "hidden item": (_style(".citeledger-breakdown-item { display: none; }"), "is not displayed"),
    "small item": (
        _style(".citeledger-breakdowns > .citeledger-breakdown-item { font-size: 70%; }"),
        "smaller than the",
    ),
    "quiet item": (
        _style(".citeledger-breakdown-item strong { font-weight: normal; }"),
        "its first line is not bold",
    ),
    "no sign": (
        _style(".citeledger-breakdown-item > p:first-child strong::before { content: none; }"),
        "has no warning sign",
    ),
    "items run together": (
        _style(".citeledger-breakdowns > .citeledger-breakdown-item { border: 0; }"),
        "is not set apart",
    ),
    "item not linked back": (
        _edit('<a href="#citeledger-cite-2">', "<a>"),
        "has no link back to its flag #citeledger-cite-2",
    ),
    "hidden banner": (_style(".citeledger-banner { display: none; }"), "the banner"),
    "banner as running text": (
        _style(".citeledger-banner { border: 0; } .citeledger-banner strong { font-weight: 400; }"),
        "is not as loud as a callout",
    ),
}


@pytest.mark.parametrize(
    "name", [*sorted(BROKEN), *(f"grouped: {n}" for n in sorted(GROUPED_BROKEN))]
)
def test_broken_surface_fails(name: str, session: Browser, request: pytest.FixtureRequest) -> None:
    grouped = name.startswith("grouped: ")
    breaker, expected = GROUPED_BROKEN[name[9:]] if grouped else BROKEN[name]
    page: Path = request.getfixturevalue("grouped" if grouped else "sample")
    breaker(page)
    with pytest.raises(ReaderSurfaceError) as info:
        (assert_grouped_surface if grouped else assert_reader_surface)(page, session=session)
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
