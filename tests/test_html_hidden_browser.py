"""What the extractor drops as "words a reader cannot see" is what a real browser does not show.

Each case of tests/test_extract_html.py and tests/test_html_hidden.py (the hidden and the
shown) is rendered in Debian's headless Chromium twice: as written, and with the words
themselves made ``visibility: hidden`` (which keeps the layout). The browser itself then says
whether a reader sees them: the words are shown when some pixel of the two screenshots differs
by more than ``hidden.FAINT`` of 255 in a channel (the screenshots are compared by the
browser's own PNG decoder, on a canvas); the extractor's answer must agree. Most hidden cases
paint nothing at all; text at opacity 0.04 or in ``#fdfdfd`` paints a few levels of grey that
no reader can tell from the page.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import pytest

from browser_util import browser
from citeledger.extract.hidden import FAINT
from citeledger.extract.html import extract_html
from test_extract_html import HIDDEN_NOT, SHOWN_TOO
from test_html_hidden import (
    HIDDEN_BLOCKS,
    HIDDEN_BY_SHEET,
    HIDDEN_INLINE,
    SHOWN_BLOCKS,
    SHOWN_DESPITE_SHEET,
    SHOWN_INLINE,
)

pytestmark = [pytest.mark.browser, pytest.mark.tool("chromium", path="/usr/bin")]

WORDS = "not "
PAGE = (
    "<!doctype html><html><head><meta charset=utf-8><title>T</title>{}</head>"
    '<body style="margin:40px 300px;font:20px/1.5 sans-serif">'
    "<p>The drug is {}effective.</p><div>{}</div><p>End.</p></body></html>"
)
# The largest difference in a channel between two screenshots, decoded by the browser
_DIFFERENCE = """async ([a, b]) => {
  const load = (src) => new Promise((ok, fail) => {
    const img = new Image(); img.onload = () => ok(img); img.onerror = fail; img.src = src;
  });
  const pixels = (img) => {
    const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
    const g = c.getContext('2d'); g.drawImage(img, 0, 0);
    return g.getImageData(0, 0, c.width, c.height).data;
  };
  const [x, y] = await Promise.all([load(a), load(b)]);
  if (x.width !== y.width || x.height !== y.height) return 255;
  const p = pixels(x), q = pixels(y);
  let most = 0;
  for (let i = 0; i < p.length; i++) most = Math.max(most, Math.abs(p[i] - q[i]));
  return most;
}"""
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


def _pixels(page: Any, head: str, inline: str, block: str) -> str:
    page.set_content(PAGE.format(head, inline, block))
    return "data:image/png;base64," + base64.b64encode(page.screenshot(full_page=True)).decode()


def _shown_in_browser(page: Any, inline: str = "", block: str = "", head: str = "") -> bool:
    unseen = '<span style="visibility:hidden">not </span>'
    if "<svg" in block:  # a <span> would leave the SVG
        unseen = '<tspan visibility="hidden">not </tspan>'
    as_written = _pixels(page, head, inline, block)
    without = _pixels(page, head, inline.replace(WORDS, unseen), block.replace(WORDS, unseen))
    if as_written == without:
        return False
    page.set_content("<!doctype html><title>compare</title>")
    return int(page.evaluate(_DIFFERENCE, [as_written, without])) > FAINT


def _kept(inline: str = "", block: str = "", head: str = "") -> bool:
    return "not" in extract_html(PAGE.format(head, inline, block).encode()).text


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


@pytest.mark.parametrize(
    ("snippet", "shown"), [(h, False) for h in HIDDEN_INLINE] + [(s, True) for s in SHOWN_INLINE]
)
def test_v6_idioms_hide_what_the_browser_hides(page: Any, snippet: str, shown: bool) -> None:
    assert _shown_in_browser(page, inline=snippet) is shown, "the browser disagrees"
    assert _kept(inline=snippet) is shown


@pytest.mark.parametrize(
    ("css", "snippet", "shown"),
    [(c, s, False) for c, s in HIDDEN_BY_SHEET] + [(c, s, True) for c, s in SHOWN_DESPITE_SHEET],
)
def test_style_rules_hide_what_the_browser_hides(
    page: Any, css: str, snippet: str, shown: bool
) -> None:
    head = f"<style>{css}</style>"
    assert _shown_in_browser(page, inline=snippet, head=head) is shown, "the browser disagrees"
    assert _kept(inline=snippet, head=head) is shown


@pytest.mark.parametrize(
    ("snippet", "shown"), [(h, False) for h in HIDDEN_BLOCKS] + [(s, True) for s in SHOWN_BLOCKS]
)
def test_blocks_and_svg_labels_as_the_browser_shows_them(
    page: Any, snippet: str, shown: bool
) -> None:
    assert _shown_in_browser(page, block=snippet) is shown, "the browser disagrees"
    assert _kept(block=snippet) is shown
