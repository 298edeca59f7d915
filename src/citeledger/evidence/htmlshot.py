"""The HTML snapshot: the stored response body as headless Chromium draws it, the quote marked.

Why a browser and why this cage: a reader checking a web citation wants to see the page as it
was retrieved, not our extracted text of it. Seed 000 forbids "a screenshot from another
request" or "a page rendered after navigation", so the body is handed to the page with
``set_content`` (no URL is loaded), every request the page makes is aborted by a ``**/*`` route
(images, styles, fonts: nothing is fetched again), JavaScript is disabled, and Chromium runs
with a dead proxy and no name resolution as a second wall. The quote is wrapped in ``<mark>`` in
the browser's copy of the DOM (the located span's words, found among the text nodes by the
same whitespace rule as the extractor), and the picture is the region around the first mark.

Bounded like the PDF snapshot (``evidence.snapshot``): the viewport is ``VIEW_WIDTH`` pixels,
the region is at most ``MAX_SIDE_PX`` high, a PNG over ``MAX_PNG_BYTES`` is not kept, and the
whole rendering is time-bound (``TIMEOUT_MS`` per step, ``DEADLINE_S`` in all).

Optional: without Playwright or a Chromium binary (``$CITELEDGER_CHROMIUM`` names another, or
is empty to turn HTML snapshots off), :func:`renderer_available` is False and the
receipt says ``NO_RENDERER``. Runs in the verify process, never in the memory-limited extraction
worker (Chromium is a process tree of its own that a low address-space limit would kill).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Sequence
from pathlib import Path

from citeledger.evidence.snapshot import MAX_PNG_BYTES, MAX_SIDE_PX, Snapshot, png_size
from citeledger.extract.html import SUBSCRIPTS, SUPERSCRIPTS

HTML_RENDERER = "chromium"
DEFAULT_CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--proxy-server=http://127.0.0.1:9",
    "--host-resolver-rules=MAP * ~NOTFOUND",
)
VIEW_WIDTH = 1000
CONTEXT_PX = 240  # page shown above and below the marked quote
TIMEOUT_MS = 15_000
DEADLINE_S = 60.0

_WS = re.compile(r"\s+")
_FOLD = {m: p.replace("\u2212", "-") for p, m in (*SUPERSCRIPTS.items(), *SUBSCRIPTS.items())}
_FOLD["\u2212"] = "-"
_FOLD_TABLE = str.maketrans(_FOLD)

# Wraps the k-th occurrence of the (whitespace-collapsed) words in <mark>s, text node by text
# node, and answers the marks' bounding box in page coordinates, or null when absent.
_MARK_JS = """
([needle, nth, fold]) => {
  const skip = new Set(["SCRIPT","STYLE","TEMPLATE","NOSCRIPT","HEAD","TITLE","TEXTAREA","OPTION"]);
  // no filter callback: with the page's scripts disabled the walker cannot call one
  const walker = document.createTreeWalker(document.body || document.documentElement,
    NodeFilter.SHOW_TEXT);
  const shown = (n) => {
    for (let p = n.parentElement; p; p = p.parentElement) if (skip.has(p.tagName)) return false;
    return true; };
  let flat = "", map = [], space = true;
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!shown(n)) continue;
    const s = n.data;
    for (let i = 0; i < s.length; i++) {
      const ws = /\\s/.test(s[i]);
      if (ws) { if (!space) { flat += " "; map.push([n, i]); space = true; } }
      else { flat += fold[s[i]] || s[i]; map.push([n, i]); space = false; }
    }
  }
  let at = -1, from = 0;
  for (let k = 0; k <= nth; k++) {
    const found = flat.indexOf(needle, from);
    if (found < 0) break;
    at = found; from = found + 1;
  }
  if (at < 0) return null;
  const pieces = new Map();
  for (let i = at; i < at + needle.length; i++) {
    const [node, off] = map[i];
    const r = pieces.get(node) || [off, off + 1];
    r[0] = Math.min(r[0], off); r[1] = Math.max(r[1], off + 1); pieces.set(node, r);
  }
  const marks = [];
  for (const [node, [a, b]] of [...pieces.entries()].reverse()) {
    let target = node;
    if (b < target.data.length) target.splitText(b);
    if (a > 0) target = target.splitText(a);
    const mark = document.createElement("mark");
    mark.style.cssText = "background:#ffe14d;color:#000;outline:2px solid #c79a00";
    target.parentNode.insertBefore(mark, target);
    mark.appendChild(target);
    marks.push(mark);
  }
  let top = Infinity, bottom = -Infinity;
  for (const m of marks) for (const r of m.getClientRects()) {
    if (r.width <= 0 || r.height <= 0) continue;
    top = Math.min(top, r.top + scrollY); bottom = Math.max(bottom, r.bottom + scrollY);
  }
  if (top === Infinity) return null;
  return {top, bottom};
}
"""


def chromium() -> Path | None:
    """The browser binary: ``$CITELEDGER_CHROMIUM`` (empty: none, so no HTML snapshots) or
    Debian's ``/usr/bin/chromium``; None when it is not there."""
    named = os.environ.get("CITELEDGER_CHROMIUM", DEFAULT_CHROMIUM)
    return Path(named) if named and Path(named).is_file() else None


def renderer_available() -> bool:
    """Playwright importable and a Chromium binary present."""
    if chromium() is None:
        return False
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return False
    return True


def _plain_scripts(s: str) -> str:
    """The extractor writes ``<sup>6</sup>`` as "⁶" (``extract.html._script_text``) where the
    page's DOM holds "6" in a ``<sup>``: needle and DOM text are both compared with raised and
    lowered characters (and U+2212) folded to plain ones (:data:`_FOLD`, one for one)."""
    return s.translate(_FOLD_TABLE)


def _needle(text: str, start: int, end: int) -> tuple[str, int]:
    """The span's words with whitespace collapsed, and which occurrence of them it is."""
    needle = _plain_scripts(_WS.sub(" ", text[start:end]).strip())
    before = _plain_scripts(_WS.sub(" ", text[:start]))
    return needle, before.count(needle) if needle else 0


def html_snapshots(
    body: bytes, content_type: str | None, text: str, spans: Sequence[tuple[int, int]]
) -> list[Snapshot | None]:
    """One image per span of ``text`` (the extracted text of ``body``), None where the span
    could not be marked or the image is over the cap. Raises when the browser cannot run or
    takes longer than ``DEADLINE_S``.

    Playwright's sync API refuses to run inside an asyncio loop (verify runs in one), so the
    browser is driven from a thread of its own; waiting on it is the time bound."""
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(1, thread_name_prefix="citeledger-htmlshot")
    try:
        return pool.submit(_render, body, content_type, text, spans).result(DEADLINE_S + 5)
    finally:
        pool.shutdown(wait=False)


def _render(
    body: bytes, content_type: str | None, text: str, spans: Sequence[tuple[int, int]]
) -> list[Snapshot | None]:
    from playwright.sync_api import sync_playwright

    from citeledger.extract.html import decode_html

    html, _codec = decode_html(body, content_type)
    deadline = time.monotonic() + DEADLINE_S
    out: list[Snapshot | None] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(chromium()), args=list(CHROMIUM_ARGS), timeout=TIMEOUT_MS
        )
        try:
            context = browser.new_context(
                java_script_enabled=False,
                viewport={"width": VIEW_WIDTH, "height": 800},
                device_scale_factor=1,
                offline=True,
                service_workers="block",
            )
            context.route("**/*", lambda route: route.abort())
            context.set_default_timeout(TIMEOUT_MS)
            for start, end in spans:
                if time.monotonic() > deadline:
                    out.append(None)
                    continue
                out.append(_one(context, html, text, start, end))
        finally:
            browser.close()
    return out


def _one(context: object, html: str, text: str, start: int, end: int) -> Snapshot | None:
    needle, nth = _needle(text, start, end)
    if not needle:
        return None
    page = context.new_page()  # type: ignore[attr-defined]
    try:
        page.set_content(html, wait_until="domcontentloaded", timeout=TIMEOUT_MS)
        box = page.evaluate(_MARK_JS, [needle, nth, _FOLD])
        if box is None:
            return None
        top = max(0, int(box["top"]) - CONTEXT_PX)
        bottom = int(box["bottom"]) + CONTEXT_PX
        height = max(1, min(MAX_SIDE_PX, bottom - top))
        png = page.screenshot(
            clip={"x": 0, "y": top, "width": VIEW_WIDTH, "height": height},
            full_page=True,
            animations="disabled",
            timeout=TIMEOUT_MS,
        )
    finally:
        page.close()
    size = png_size(png)
    if size is None or len(png) > MAX_PNG_BYTES:
        return None
    return Snapshot(png, start, end, (), HTML_RENDERER, size[0], size[1])
