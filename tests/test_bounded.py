"""Extraction is bounded: deep HTML costs time linear in its size, a PDF's streams are inflated
under a cap, and each source's extraction and locating run in a worker with CPU and memory
limits (issue 12, findings 6 and 7, "What to build" item 3).

The hostile inputs are built here (``hostile_inputs``), never copied from the corpus.
"""

from __future__ import annotations

import time
import zlib
from pathlib import Path

import pytest

from citeledger.errors import ExtractError
from citeledger.extract import extract
from citeledger.extract_html import MAX_DOM_DEPTH, cap_depth, decode_html, extract_html
from citeledger.extract_pdf import MB, check_inflated_size, extract_pdf
from hostile_inputs import flate_bomb_pdf, nested_divs, pdf, zlib_bomb

# ------------------------------------------------------------------------------ nested HTML


def test_nested_divs_extract_in_time_linear_in_the_page() -> None:
    """100,000 nested divs took 96 s; now a few seconds, and 4x the page about 4x the time."""
    times = {}
    for n in (25_000, 100_000):
        body = nested_divs(n)
        start = time.process_time()
        got = extract_html(body, "text/html")
        times[n] = time.process_time() - start
        assert got.text == "deep words here"
    assert times[100_000] < 20
    assert times[100_000] < 4 * times[25_000] * 2.5 + 0.5  # near-linear, with room for noise


def test_capped_nesting_keeps_every_word_and_line() -> None:
    n = 2 * MAX_DOM_DEPTH
    body = "<body>" + "".join(f"<div>w{i}" for i in range(n)) + "</div>" * n + "<p>after</p>"
    lines = extract_html(body.encode(), "text/html").text.split("\n")
    assert [x for x in lines if x] == [f"w{i}" for i in range(n)] + ["after"]


def test_hidden_text_stays_hidden_under_the_cap() -> None:
    body = "<body><div hidden>" + "<span>" * 100 + "secret</div><p>shown words</p></body>"
    assert extract_html(body.encode(), "text/html").text == "shown words"


def test_no_corpus_page_is_changed_by_the_cap(corpus: Path) -> None:
    pages = sorted((corpus / "html").glob("*.htm*"))
    assert pages
    for page in pages:
        text, _ = decode_html(page.read_bytes(), None)
        assert cap_depth(text) is text, page.name


def test_raw_text_and_comments_do_not_count_as_nesting() -> None:
    script = "<script>" + "<div>" * 1000 + "</script>"
    comment = "<!--" + "<div>" * 1000 + "-->"
    page = f"<body>{script}{comment}<p>words</p></body>"
    assert cap_depth(page) is page


# ------------------------------------------------------------------------------- PDF bombs


def test_flate_bomb_pdf_is_refused_without_inflating_it_into_memory() -> None:
    """A 1 MB file holding a 1 GiB stream: refused naming the cap (it took 2.15 GB)."""
    import resource

    body = flate_bomb_pdf(1 << 30)
    assert len(body) < 1_100_000
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(ExtractError, match=r"too large when decompressed \(> 250 MB\)"):
        extract_pdf(body)
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kb < 100_000  # far below the 1 GiB the stream holds


def test_pdf_cap_is_a_setting_and_a_stream_under_it_extracts() -> None:
    body = flate_bomb_pdf(32 << 20)
    assert "A page of words" in extract_pdf(body).text
    with pytest.raises(ExtractError, match=r"> 10 MB"):
        extract_pdf(body, max_inflated=10 * MB)


def test_a_double_flate_bomb_is_counted_through_both_layers() -> None:
    inner = zlib_bomb(64 << 20)
    entries = b"/Type /XObject /Subtype /Form /BBox [0 0 1 1] /Filter [/FlateDecode /FlateDecode]"
    body = pdf([(entries, zlib.compress(inner))])
    with pytest.raises(ExtractError, match="too large when decompressed"):
        check_inflated_size(body, 32 * MB)


def test_images_are_not_counted() -> None:
    image = b"/Type /XObject /Subtype /Image /Width 8 /Height 8 /BitsPerComponent 8 "
    image += b"/ColorSpace /DeviceGray /Filter /FlateDecode"
    body = pdf([(image, zlib_bomb(32 << 20))])
    check_inflated_size(body, 16 * MB)  # no error: text extraction never decodes an image


def test_corpus_pdfs_are_under_the_cap(corpus: Path) -> None:
    for path in sorted((corpus / "pdf").glob("*.pdf")):
        check_inflated_size(path.read_bytes())


def test_extract_dispatch_passes_the_bomb_to_the_cap() -> None:
    with pytest.raises(ExtractError, match="too large when decompressed"):
        extract(flate_bomb_pdf(512 << 20), "application/pdf")
