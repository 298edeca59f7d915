"""Hidden-text rules v6 (review s21 F-C): the idioms that hid words from a reader but not from
the extractor, the page's own ``<style>`` rules, and the words a reader sees that v5 dropped.

Each case says "The drug is effective." to a reader with a "not " that is hidden (or shown);
every one is checked in headless Chromium by tests/test_html_hidden_browser.py, the screenshot
being the oracle.
"""

from __future__ import annotations

import pytest

from citeledger.extract.css import style_declarations
from citeledger.extract.html import extract_html
from citeledger.locate.locator import locate

PAGE = (
    "<!doctype html><html><head><meta charset=utf-8><title>T</title>{}</head>"
    '<body style="margin:40px 300px;font:20px/1.5 sans-serif">'
    "<p>The drug is {}effective.</p><div>{}</div><p>End.</p></body></html>"
)

# inline: (snippet inside the sentence)
HIDDEN_INLINE = [
    '<span style="font:0/0 a">not </span>',  # the image-replacement idiom: the shorthand's size
    '<span style="font-size:20px;font:bold 0 serif">not </span>',
    '<span style="-webkit-text-fill-color:transparent">not </span>',  # paints over color
    '<span style="color:#000;-webkit-text-fill-color:rgba(0,0,0,0)">not </span>',
    '<span style="color:#fff">not </span>',  # white on the default white page
    '<span style="color:white">not </span>',
    '<span style="color:#fdfdfd">not </span>',
    '<span style="color:rgb(100% 100% 100%)">not </span>',
    '<span style="color:hsl(0 0% 100%)">not </span>',
    '<span style="color:rgba(0,0,0,0.03)">not </span>',
    '<font color="white">not </font>',
    '<font color="#ffffff">not </font>',
    '<span style="background:#000"><span style="color:#000">not </span></span>',
    '<span style="font-size:0.01px">not </span>',
    '<span style="font-size:0.5px">not </span>',
    '<span style="opacity:0.001">not </span>',
    '<span style="opacity:0.04">not </span>',  # paints, but fainter than a reader can tell
    '<span style="opacity:2%">not </span>',
    '<span style="position:fixed;bottom:-9999px">not </span>',
    '<span style="position:fixed;top:9999px">not </span>',
    '<span style="position:absolute;inset:-9999px auto auto -9999px">not </span>',
    '<span style="display:inline-block;translate:-9999px">not </span>',
    '<span style="display:inline-block;translate:0 -9999px">not </span>',
    '<span style="display:inline-block;transform:rotateX(90deg)">not </span>',
    '<span style="display:inline-block;transform:rotateY(-90deg)">not </span>',
    '<span style="display:inline-block;transform:rotate3d(1,0,0,0.25turn)">not </span>',
    '<span style="display:inline-block;rotate:x 90deg">not </span>',
    '<span style="display:inline-block;rotate:0 1 0 270deg">not </span>',
    '<span style="display:inline-block;transform:skewX(45deg) scaleY(0)">not </span>',
    '<span style="display:inline-block;height:0;overflow:auto">not </span>',
    '<span style="display:inline-block;max-width:0;overflow:auto">not </span>',
    '<span style="display:inline-block;height:0;overflow-y:scroll">not </span>',
    '<span style="clip-path:polygon(0 0,0 0,0 0)">not </span>',
    '<span style="clip-path:polygon(0 0,100% 0,50% 0)">not </span>',  # a line has no area
    '<span style="mask-image:linear-gradient(transparent,transparent)">not </span>',
    '<span style="-webkit-mask-image:linear-gradient(to right,rgba(0,0,0,0) 0%,#0000 100%)">'
    "not </span>",
    "<span popover>not </span>",  # closed until a script opens it
    '<span popover="manual">not </span>',
    '<span hidden style="color:red">not </span>',
]

SHOWN_INLINE = [
    '<span aria-hidden="true">not </span>',  # hidden from screen readers, not from the eye
    '<span hidden style="display:inline">not </span>',
    '<span popover style="display:inline">not </span>',
    '<span style="opacity:0.3">not </span>',
    '<span style="font-size:8px">not </span>',
    '<span style="font:bold 20px/1 serif">not </span>',
    '<span style="font:0/0 a"><b style="font:16px serif">not </b></span>',
    '<span style="color:#999">not </span>',
    '<span style="color:#fff;background:#000">not </span>',
    '<span style="background:#000"><span style="color:#fff">not </span></span>',
    '<span style="background-color:rgb(0,0,0)"><font color="white">not </font></span>',
    '<span style="background:var(--x, #000)"><font color="white">not </font></span>',  # unread
    '<span style="color:#fff"><b style="color:#000">not </b></span>',
    '<span style="color:#fff;text-shadow:0 0 2px #000">not </span>',
    '<span style="-webkit-text-fill-color:transparent;-webkit-text-stroke:1px #000">not </span>',
    '<span style="color:transparent;-webkit-text-fill-color:#333">not </span>',
    '<span style="display:inline-block;transform:rotateX(60deg)">not </span>',
    '<span style="display:inline-block;transform:rotateX(90deg) rotateX(90deg)">not </span>',
    '<span style="display:inline-block;rotate:90deg">not </span>',  # about z: turned, not flat
    '<span style="display:inline-block;translate:40px">not </span>',
    '<span style="rotate:x 90deg">not </span>',  # an inline: transforms do not apply
    '<span style="position:absolute;bottom:-9999px">not </span>',  # the page scrolls to it
    '<span style="display:inline-block;overflow:auto">not </span>',
    '<span style="clip-path:polygon(0 0,100% 0,100% 100%)">not </span>',
    '<span style="mask-image:linear-gradient(#000,transparent)">not </span>',
    '<span style="opacity:0.001;opacity:1">not </span>',
]

# the page's own <style> rules: (style sheet, snippet)
HIDDEN_BY_SHEET = [
    (".h{display:none}", '<span class="h">not </span>'),
    (
        ".sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;"
        "overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}",
        '<span class="sr-only">not </span>',
    ),
    (".visually-hidden:not(:focus){}.visually-hidden{clip-path:inset(50%)}", None),
    ("p span.x{visibility:hidden}", '<span class="x">not </span>'),
    ("#w{font-size:0}", '<span id="w">not </span>'),
    ("@media screen{.h{opacity:0}}", '<span class="h">not </span>'),
    ("span[data-x]{display:none}", "<span data-x>not </span>"),
    ("span.h{display:inline} .h.h{display:none}", '<span class="h">not </span>'),
    (".h{display:none!important}", '<span class="h" style="display:inline">not </span>'),
    ('.h{content:"}";color:#fff}', '<span class="h">not </span>'),  # a brace in a string
    ("/* } */ .h{font:0/0 a}", '<span class="h">not </span>'),
    ("b{color:transparent}", "<b>not </b>"),
]
HIDDEN_BY_SHEET = [
    (css, s or '<span class="visually-hidden">not </span>') for css, s in HIDDEN_BY_SHEET
]

SHOWN_DESPITE_SHEET = [
    (".h{display:none} .h.on{display:inline}", '<span class="h on">not </span>'),
    (".h{display:none}", '<span class="h" style="display:inline">not </span>'),
    ("span.h{display:inline} .h{display:none}", '<span class="h">not </span>'),  # specificity
    ("@media print{.h{display:none}}", '<span class="h">not </span>'),
    (".h:hover{display:none}", '<span class="h">not </span>'),  # no reader hovers it
    (".h{display:none}", '<span class="H">not </span>'),  # class names keep their case
    ("body{background:#000} .h{color:#fff}", '<span class="h">not </span>'),
    (".h{color:#fff} .h{color:#000}", '<span class="h">not </span>'),
]

# blocks: (snippet standing in the <div> after the sentence)
HIDDEN_BLOCKS = [
    "<div popover>not </div>",
    '<div style="margin:-9999px 0 0">not </div>',  # the shorthand's top margin
    '<svg width="200" height="40"><text x="500" y="20">not </text></svg>',  # outside the picture
    '<svg width="200" height="40"><text x="0" y="20" fill="none">not </text></svg>',
    '<svg width="200" height="40"><defs><text x="0" y="20">not </text></defs></svg>',
    '<svg width="200" height="40"><text x="0" y="20">not </text>'
    '<rect width="200" height="40" fill="#fff"/></svg>',  # painted over
    '<svg width="0" height="40"><text x="0" y="20">not </text></svg>',
    '<svg width="200" height="40" style="display:none"><text x="0" y="20">not </text></svg>',
]
SHOWN_BLOCKS = [
    '<svg width="200" height="40"><text x="0" y="20">not </text></svg>',
    '<svg viewBox="0 0 100 20" width="200"><g><text x="10" y="15">not </text></g></svg>',
    '<svg width="200" height="40"><rect width="200" height="40" fill="#eef"/>'
    '<text x="0" y="20">not <tspan>ever</tspan></text></svg>',
]


def _text(head: str = "", inline: str = "", block: str = "") -> str:
    return extract_html(PAGE.format(head, inline, block).encode()).text


def _kept(head: str = "", inline: str = "", block: str = "") -> bool:
    return "not" in _text(head, inline, block)


@pytest.mark.parametrize("snippet", HIDDEN_INLINE)
def test_hidden_idioms_leave_their_words_out(snippet: str) -> None:
    text = _text(inline=snippet)
    assert "The drug is effective." in text, snippet
    assert not locate(text, "The drug is not effective.").found


@pytest.mark.parametrize("snippet", SHOWN_INLINE)
def test_words_a_reader_sees_stay(snippet: str) -> None:
    assert "The drug is not effective." in _text(inline=snippet)


@pytest.mark.parametrize(("css", "snippet"), HIDDEN_BY_SHEET)
def test_the_pages_own_style_rules_hide(css: str, snippet: str) -> None:
    assert not _kept(head=f"<style>{css}</style>", inline=snippet), css


@pytest.mark.parametrize(("css", "snippet"), SHOWN_DESPITE_SHEET)
def test_style_rules_that_do_not_apply_keep_the_words(css: str, snippet: str) -> None:
    assert _kept(head=f"<style>{css}</style>", inline=snippet), css


def test_a_sheet_for_print_or_in_a_template_is_not_read() -> None:
    for head in (
        '<style media="print">.h{display:none}</style>',
        "<template><style>.h{display:none}</style></template>",
        "<noscript><style>.h{display:none}</style></noscript>",
    ):
        assert _kept(head=head, inline='<span class="h">not </span>'), head


@pytest.mark.parametrize("snippet", HIDDEN_BLOCKS)
def test_hidden_blocks_leave_their_words_out(snippet: str) -> None:
    assert not _kept(block=snippet), snippet


@pytest.mark.parametrize("snippet", SHOWN_BLOCKS)
def test_svg_labels_a_reader_sees_stay(snippet: str) -> None:
    assert _kept(block=snippet), snippet


def test_an_svg_label_is_a_line_of_its_own() -> None:
    page = '<p>Figure: <svg width="90" height="20"><text x="1" y="15">dose</text></svg> up</p>'
    assert extract_html(page.encode()).text == "Figure:\ndose\nup"


def test_ruby_fallback_parentheses_are_not_shown() -> None:
    page = "<p>The drug is <ruby>漢<rp>(not) </rp><rt>kan</rt><rp>)</rp></ruby> effective.</p>"
    assert "not" not in extract_html(page.encode()).text


def test_the_font_shorthand_sets_the_size_in_declaration_order() -> None:
    assert style_declarations("font-size:20px;font:0/0 a")["font-size"] == "0"
    assert style_declarations("font:0/0 a;font-size:20px")["font-size"] == "20px"
    assert style_declarations("font:italic bold 12px/30px Georgia")["font-size"] == "12px"
    assert style_declarations("font:700 0 serif")["font-size"] == "0"  # 700 is the weight
    assert style_declarations("font:caption")["font-size"] == "medium"
    assert style_declarations("font:0/0 a !important;font:16px serif")["font-size"] == "0"


def test_the_writers_quote_of_the_hidden_sentence_is_refused_end_to_end() -> None:
    """The review's three pages: a reader sees "The drug is effective." only."""
    for page in (
        '<p>The drug is <span style="font:0/0 a">not </span>effective.</p>',
        '<p>The drug is <span style="-webkit-text-fill-color:transparent">not </span>'
        "effective.</p>",
        "<p>The drug is effective.</p><div popover>The drug is not effective.</div>",
    ):
        text = extract_html(page.encode()).text
        assert not locate(text, "The drug is not effective.").found, page
