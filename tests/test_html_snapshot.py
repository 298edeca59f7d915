"""HTML snapshots: the stored web page drawn by headless Chromium, the quote marked, nothing
fetched again.

What a reader relies on: a checked web citation carries an image of the page as it was
retrieved (not a second request, not a page after navigation), in the same evidence file and
named by digest; a bundle whose image is gone or altered is not checked; and a machine without
a browser says so instead of silently showing no image.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import netserver as ns
from citeledger.evidence.snapshot import MAX_SIDE_PX, NO_RENDERER, png_size
from citeledger.evidence.store import EvidenceReader
from citeledger.extract.dispatch import extract
from citeledger.judge import Judge
from citeledger.ledger import load_ledger
from citeledger.model import CitationRef, State
from conftest import corpus_file
from test_snapshot import _record_ids, _rewrite
from verify_util import found_receipt, verified_one

PAGE = "ebb-org.html"
CHROMIUM = "/usr/bin/chromium"
needs_browser = pytest.mark.tool("chromium", path=str(Path(CHROMIUM).parent))


def _quote(body: bytes) -> str:
    """A sentence from the middle of the page, cut from its extracted text at run time."""
    text = extract(body, "text/html", "http://127.0.0.1/page.html").text
    start = text.index(" ", len(text) // 2) + 1
    return " ".join(text[start : text.index(".", start) + 1].split())


def verified(folder: Path, server: ns.NetServer) -> Path:
    """The corpus page served with an image and a stylesheet on the same loopback server: a
    renderer that loaded anything would show up in the server's log."""
    body = corpus_file("html", PAGE).read_bytes()
    lure = (
        f'<link rel="stylesheet" href="{server.url("/style.css")}">'
        f'<img src="{server.url("/pixel.png")}"><iframe src="{server.url("/frame.html")}">'
        "</iframe>"
    ).encode()
    served = body.replace(b"</body>", lure + b"</body>") if b"</body>" in body else body + lure
    server.static("/page.html", served)
    for path in ("/style.css", "/pixel.png", "/frame.html"):
        server.static(path, b"x", content_type="text/plain")
    return verified_one(folder, "page", server.url("/page.html"), _quote(served))


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list[str]]]:
    """One verify of the page with the browser on (it takes seconds), shared by the tests."""
    mp = pytest.MonkeyPatch()
    mp.setenv("CITELEDGER_CHROMIUM", CHROMIUM)
    try:
        with ns.NetServer() as server:
            ledger = verified(tmp_path_factory.mktemp("html-snapshot"), server)
            yield ledger, [s.path for s in server.requests]
    finally:
        mp.undo()


def _receipt(ledger: Path):  # type: ignore[no-untyped-def]
    return found_receipt(ledger, "page")


@pytest.mark.slow
@needs_browser
def test_html_snapshot_is_drawn_from_the_stored_body_only(
    rendered: tuple[Path, list[str]],
) -> None:
    ledger, requests = rendered
    receipt = _receipt(ledger)
    assert receipt.snapshot and receipt.snapshot_sha256 and receipt.snapshot_note is None
    led = load_ledger(ledger)
    ev = EvidenceReader(led.evidence_dir).load(receipt.evidence)
    assert ev.ok, ev.problems
    shot = ev.snapshots[receipt.snapshot]
    assert shot.sha256 == receipt.snapshot_sha256 and shot.content_type == "image/png"
    assert shot.renders is not None and shot.renders in _record_ids(led.evidence_dir, receipt)
    size = png_size(shot.png)
    assert size is not None and max(size) <= MAX_SIDE_PX and min(size) > 50
    assert Judge(led).judge(CitationRef("page")).state is State.CHECKED
    # the page's stylesheet, image and frame were never asked for: one request, the document
    assert requests == ["/page.html"]


@pytest.mark.slow
@needs_browser
def test_html_snapshot_marks_the_quote(rendered: tuple[Path, list[str]]) -> None:
    """The marker colour (#ffe14d) is in the image: the quote is highlighted, not just shown."""

    ledger, _ = rendered
    receipt = _receipt(ledger)
    png = EvidenceReader(load_ledger(ledger).evidence_dir).load(receipt.evidence)
    data = png.snapshots[receipt.snapshot].png
    pixels = set(_pixels(data))
    assert (0xFF, 0xE1, 0x4D) in pixels  # the <mark>'s background
    assert len(pixels) > 2  # and the page around it, not a blank image


def _pixels(png: bytes) -> Iterator[tuple[int, int, int]]:
    """Every pixel's RGB of an 8-bit RGB/RGBA PNG (enough of the format for Chromium's)."""
    import struct
    import zlib

    pos, idat, width, kind = 8, b"", 0, 2
    while pos < len(png):
        (n,) = struct.unpack(">I", png[pos : pos + 4])
        tag, chunk = png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + n]
        if tag == b"IHDR":
            width, kind = struct.unpack(">I", chunk[:4])[0], chunk[9]
        elif tag == b"IDAT":
            idat += chunk
        pos += 12 + n
    bpp = 4 if kind == 6 else 3
    raw, stride = zlib.decompress(idat), width * bpp
    prev = bytearray(stride)
    for y in range(len(raw) // (stride + 1)):
        f, line = (
            raw[y * (stride + 1)],
            bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)]),
        )
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up, ul = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + left) & 255
            elif f == 2:
                line[i] = (line[i] + up) & 255
            elif f == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif f == 4:
                p = left + up - ul
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - ul)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else ul
                line[i] = (line[i] + pred) & 255
        prev = line
        for x in range(0, stride, bpp):
            yield line[x], line[x + 1], line[x + 2]


@pytest.mark.slow
@needs_browser
@pytest.mark.parametrize(
    "change", [lambda png: None, lambda png: png[:-20] + bytes(20)], ids=["removed", "altered"]
)
def test_removed_or_altered_html_snapshot_is_tampered(
    rendered: tuple[Path, list[str]], tmp_path: Path, change
) -> None:  # type: ignore[no-untyped-def]
    import shutil

    ledger, _ = rendered
    copy = tmp_path / "copy"
    shutil.copytree(ledger.parent, copy)
    receipt = _receipt(copy / ledger.name)
    led = load_ledger(copy / ledger.name)
    _rewrite(Path(led.evidence_dir) / receipt.evidence, change)
    judgement = Judge(load_ledger(copy / ledger.name)).judge(CitationRef("page"))
    assert judgement.state is State.TAMPERED
    assert "snapshot" in " ".join(judgement.reasons)


def test_without_a_browser_the_receipt_says_so_and_the_check_stands(
    tmp_path: Path, netserver: ns.NetServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITELEDGER_CHROMIUM", "")  # no browser on this machine
    ledger = verified(tmp_path, netserver)
    receipt = _receipt(ledger)
    assert receipt.snapshot is None and receipt.snapshot_note == NO_RENDERER
    assert Judge(load_ledger(ledger)).judge(CitationRef("page")).state is State.CHECKED


@pytest.mark.slow
@needs_browser
def test_a_quote_with_a_superscript_is_marked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The extractor writes "10<sup>6</sup>" as "10⁶"; the DOM holds "6": the mark is found."""
    from citeledger.evidence.htmlshot import html_snapshots

    monkeypatch.setenv("CITELEDGER_CHROMIUM", CHROMIUM)
    body = b"<p>The culture reached 10<sup>6</sup> cells in 10<sup>&minus;3</sup> M salt.</p>"
    text = extract(body, "text/html").text
    assert text == "The culture reached 10⁶ cells in 10⁻³ M salt."
    (shot,) = html_snapshots(body, "text/html", text, [(4, len(text) - 1)])
    assert shot is not None
    assert (0xFF, 0xE1, 0x4D) in set(_pixels(shot.png))
