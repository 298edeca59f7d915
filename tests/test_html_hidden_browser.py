"""What the extractor drops as "words a reader cannot see" is what a real browser does not show.

Each inline-style case of tests/test_extract_html.py (the hidden and the shown) is rendered in
Debian's headless Chromium twice: as written, and with the words themselves made
``visibility: hidden`` (which keeps the layout). The two screenshots are the same exactly when
the words paint nothing, so the browser itself says whether a reader sees them; the
extractor's answer must agree.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from browser_util import browser
from citeledger.extract.html import extract_html
from test_extract_html import HIDDEN_NOT, SHOWN_TOO

pytestmark = [pytest.mark.browser, pytest.mark.tool("chromium", path="/usr/bin")]

WORDS = "not "
PAGE = (
    "<!doctype html><html><head><meta charset=utf-8><title>T</title></head>"
    '<body style="margin:40px 300px;font:20px/1.5 sans-serif">'
    "<p>The drug is {}effective.</p><div>{}</div><p>End.</p></body></html>"
)
BLOCKS = [  # block elements by their tag, no display given: width and height apply
    ('<div style="height:0;overflow:hidden">not </div>', False),
    ('<div style="width:0;overflow:hidden">not </div>', False),
    ('<p style="max-height:0;overflow:clip">not </p>', False),
    ('<div style="height:0;overflow:visible">not </div>', True),
    ('<span style="height:0;overflow:hidden">not </span>', True),
    ('<span style="position:absolute;height:0;overflow:hidden">not </span>', False),
]


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    with browser() as session:
        yield session.context.new_page()


def _pixels(page: Any, inline: str, block: str) -> bytes:
    page.set_content(PAGE.format(inline, block))
    return bytes(page.screenshot(full_page=True))


def _shown_in_browser(page: Any, inline: str = "", block: str = "") -> bool:
    unseen = '<span style="visibility:hidden">not </span>'
    as_written = _pixels(page, inline, block)
    return as_written != _pixels(page, inline.replace(WORDS, unseen), block.replace(WORDS, unseen))


def _kept(inline: str = "", block: str = "") -> bool:
    return "not" in extract_html(PAGE.format(inline, block).encode()).text


@pytest.mark.parametrize(
    ("snippet", "shown"), [(h, False) for h in HIDDEN_NOT] + [(s, True) for s in SHOWN_TOO]
)
def test_inline_styles_hide_what_the_browser_hides(page: Any, snippet: str, shown: bool) -> None:
    assert _shown_in_browser(page, inline=snippet) is shown, "the browser disagrees"
    assert _kept(inline=snippet) is shown


@pytest.mark.parametrize(("snippet", "shown"), BLOCKS)
def test_a_clipped_box_hides_only_where_width_and_height_apply(
    page: Any, snippet: str, shown: bool
) -> None:
    assert _shown_in_browser(page, block=snippet) is shown, "the browser disagrees"
    assert _kept(block=snippet) is shown
