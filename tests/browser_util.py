"""Checking a built HTML document the way a reader meets it: in a real headless Chromium.

``assert_reader_surface(page)`` opens a built page and asserts the reader's check surface
(seed 000 rules 3, 7, 8 and acceptance 2–3): every breakdown callout is displayed, at least as
large as the claim's text, directly after the claim's block; every flag's link lands on its
audit row, whose evidence and source links are then in sight (not behind a sideways scroll);
every audit row links back to its claim; and every evidence link opens a read-only
evidence page with a title, no script, and the passage highlighted (or, for a breakdown, the
reason in place). The ids are the contract of ``citeledger.report.audit``.

Pages are opened as ``file://`` (relative and absolute evidence links both resolve), and every
request that is not to a file, ``data:`` or loopback is aborted and reported as a failure: the
reader surface must load nothing from the network. The browser is Debian's ``/usr/bin/chromium``
driven by Playwright with a fresh profile; never ``playwright install``.

``build_sample(folder, pandoc)`` makes a small page that follows the contract (claims, flags,
callouts, the audit of ``citeledger.report.audit`` and evidence pages from real receipts), so
the check itself is tested before the filter produces it.

Run on the demo output, also writing the screenshot for the docs:

    .venv/bin/python tests/browser_util.py examples/standing-case/out/chapter.html \
        --screenshot docs/standing-case.png

or one element of a page (``docs/grouped-callout.png``, ``docs/banner.png``, of the page
``build_grouped`` makes):

    .venv/bin/python tests/browser_util.py PAGE --element .citeledger-breakdowns \
        --screenshot docs/grouped-callout.png
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from citeledger.evidence.publish import back_links_for, write_evidence_page
from citeledger.evidence.store import EvidenceReader, EvidenceStore
from citeledger.judge import Judge
from citeledger.model import (
    CitationRef,
    Identifier,
    Ledger,
    Quote,
    Retrieval,
    Source,
    State,
    Withdrawal,
)
from citeledger.report.audit import AuditRow, audit_blocks, flag_link_target, row_for
from citeledger.verify.receipts import receipts_for_retrieval
from conftest import require

REPO = Path(__file__).resolve().parent.parent
CSS = REPO / "templates" / "citeledger.css"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # belt and braces for "no packet leaves the machine": whatever the route guard below misses
    # goes to a dead loopback proxy, and no host name but loopback resolves at all
    "--proxy-server=http://127.0.0.1:9",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
    "--dns-prefetch-disable",
)
VIEWPORT = {"width": 1100, "height": 720}
TIMEOUT_MS = 15_000
ACTION_MS = 3_000  # a click or a landing that takes longer is a failure, not a hang

_NUMBERED = re.compile(r"^citeledger-(?:breakdown|cite|claim|audit)-(\d+)$")


class ReaderSurfaceError(AssertionError):
    """The built page fails the reader's check surface; the message says where and how."""


@dataclass
class Browser:
    """One headless Chromium profile, with the requests it was refused."""

    context: Any
    blocked: list[str] = field(default_factory=list)


def chromium_available() -> bool:
    return CHROMIUM.is_file()


def _allowed(url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme in ("file", "data", "about", "blob"):
        return True
    return parts.scheme in ("http", "https") and parts.hostname in ("127.0.0.1", "::1")


@contextlib.contextmanager
def browser() -> Iterator[Browser]:
    """A fresh headless Chromium (new user-data-dir) whose network is loopback only."""
    sync_playwright = require("playwright.sync_api").sync_playwright  # a test dependency

    with (
        tempfile.TemporaryDirectory(prefix="citeledger-chromium-") as profile,
        sync_playwright() as p,
    ):
        context = p.chromium.launch_persistent_context(
            profile,
            executable_path=str(CHROMIUM),
            args=list(CHROMIUM_ARGS),
            headless=True,
            viewport=VIEWPORT,
            java_script_enabled=True,  # the test's probes; the evidence pages' CSP forbids scripts
            service_workers="block",
        )
        context.set_default_timeout(TIMEOUT_MS)
        session = Browser(context)

        def guard(route: Any) -> None:
            url = route.request.url
            if _allowed(url):
                route.continue_()
            else:
                session.blocked.append(url)
                route.abort()

        context.route("**/*", guard)
        try:
            yield session
        finally:
            context.close()


# --- probes (run in the page) ---------------------------------------------------------------------

_IN_VIEWPORT = """(el) => {
  const r = el.getBoundingClientRect();
  return r.bottom > 0 && r.right > 0 && r.top < window.innerHeight && r.left < window.innerWidth;
}"""

_SEEN = """(el) => {
  const r = el.getBoundingClientRect();
  if (r.width <= 0 || r.height <= 0) return false;
  const x = Math.min(Math.max(r.left + Math.min(r.width / 2, 4), 0), window.innerWidth - 1);
  const y = Math.min(Math.max(r.top + r.height / 2, 0), window.innerHeight - 1);
  const hit = document.elementFromPoint(x, y);
  return !!hit && (el === hit || el.contains(hit));
}"""  # on screen and not clipped or covered: what is drawn at its spot is the element itself

_CALLOUT_FACTS = """(el) => {
  const size = (e) => parseFloat(getComputedStyle(e).fontSize);
  const r = el.getBoundingClientRect();
  let block = el.previousElementSibling;
  while (block && block.classList.contains('citeledger-breakdown')) {
    block = block.previousElementSibling;
  }
  const n = el.id.replace('citeledger-breakdown-', '');
  const claim = document.getElementById('citeledger-claim-' + n);
  const head = el.firstElementChild || el;
  return {
    visible: el.checkVisibility({opacityProperty: true, visibilityProperty: true}),
    width: r.width, height: r.height, left: r.left, right: r.right,
    docWidth: document.documentElement.scrollWidth,
    size: size(el), headSize: size(head),
    bodySize: size(document.body),
    claimSize: claim ? size(claim.closest('p, li, td, th, div, blockquote, dd') || claim) : null,
    claimExists: !!claim,
    blockHoldsClaim: !!(block && claim && (block === claim || block.contains(claim))),
    blockTag: block ? block.tagName.toLowerCase() : null,
    text: (el.innerText || '').trim().slice(0, 80),
  };
}"""

_EVIDENCE_FACTS = """() => {
  const mark = document.querySelector('mark');
  const vis = (e) => !!e && e.checkVisibility({opacityProperty: true, visibilityProperty: true});
  const inPlace = document.querySelector(
    '.citeledger-evidence-unavailable, .citeledger-evidence-failed');
  const hrefs = [...document.querySelectorAll('[href], [src], [action]')].map(
    (e) => e.getAttribute('href') || e.getAttribute('src') || e.getAttribute('action'));
  return {
    title: document.title,
    scripts: document.querySelectorAll('script').length,
    active: document.querySelectorAll('form, iframe, object, embed, img, input').length,
    mark: vis(mark), markText: mark ? mark.textContent : null,
    inPlace: vis(inPlace), inPlaceText: inPlace ? inPlace.innerText.slice(0, 80) : null,
    failedBundle: document.body.classList.contains('citeledger-evidence-failed-bundle'),
    hrefs: hrefs,
  };
}"""


# --- the assertion -------------------------------------------------------------------------------


@dataclass
class SurfaceReport:
    """What was checked, so a caller can assert it was not vacuous."""

    callouts: int = 0
    flags: int = 0
    rows: int = 0
    evidence_pages: int = 0
    marks: int = 0
    grouped_items: int = 0
    banner: str | None = None
    failures: list[str] = field(default_factory=list)


def _number(ident: str) -> int:
    m = _NUMBERED.match(ident)
    if not m:
        raise ReaderSurfaceError(f"id {ident!r} does not follow the citeledger ids contract")
    return int(m.group(1))


def assert_reader_surface(
    page_path: str | Path,
    *,
    session: Browser | None = None,
    screenshot: str | Path | None = None,
    min_callouts: int = 1,
    min_evidence: int = 1,
) -> SurfaceReport:
    """Open ``page_path`` in Chromium and assert the reader's check surface; raise on failure.

    All failures found are collected and raised together as one ``ReaderSurfaceError``. The
    minimums keep a page with no callouts or no evidence links from passing vacuously.
    """
    path = Path(page_path).resolve()
    if not path.is_file():
        raise FileNotFoundError(path)
    with contextlib.ExitStack() as stack:
        if session is None:
            session = stack.enter_context(browser())
        report = _check(session, path, screenshot)
    if report.callouts < min_callouts:
        report.failures.append(f"only {report.callouts} breakdown callouts (< {min_callouts})")
    if report.evidence_pages < min_evidence:
        report.failures.append(
            f"only {report.evidence_pages} evidence links followed (< {min_evidence})"
        )
    _raise_failures(path, report, session)
    return report


def _raise_failures(path: str | Path, report: SurfaceReport, session: Browser) -> None:
    """Every failure found, network loads included, raised together as one error."""
    if session.blocked:
        report.failures.append(
            "the page tried to load from the network: "
            + ", ".join(sorted(set(session.blocked))[:5])
        )
        session.blocked.clear()
    if report.failures:
        raise ReaderSurfaceError(
            f"{path}: {len(report.failures)} reader-surface failures:\n  "
            + "\n  ".join(report.failures)
        )


def _check(session: Browser, path: Path, screenshot: str | Path | None) -> SurfaceReport:
    report = SurfaceReport()
    fail = report.failures.append
    page = session.context.new_page()
    try:
        url = path.as_uri()
        page.goto(url)
        if screenshot is not None:
            Path(screenshot).parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(screenshot), full_page=True)

        # 1. breakdown callouts: displayed, as large as the claim, right after the claim's block
        for el in page.locator(".citeledger-breakdown").all():
            report.callouts += 1
            if "citeledger-breakdowns" in (el.get_attribute("class") or "").split():
                _check_grouped(page, el, report, fail)  # one callout for a block's breakdowns
                continue
            ident = el.get_attribute("id") or ""
            try:
                n = _number(ident)
            except ReaderSurfaceError as exc:
                fail(str(exc))
                continue
            f = el.evaluate(_CALLOUT_FACTS)
            where = f"callout #{ident} ({f['text']!r})"
            if not f["visible"] or f["width"] <= 0 or f["height"] <= 0:
                fail(f"{where} is not displayed (box {f['width']}×{f['height']})")
            elif f["right"] <= 0 or f["left"] >= f["docWidth"]:
                fail(f"{where} is placed outside the page")
            text_size = max(f["bodySize"], f["claimSize"] or 0)
            if f["size"] < text_size or f["headSize"] < text_size:
                fail(
                    f"{where} is smaller than the text it qualifies (callout {f['size']}px, "
                    f"its first line {f['headSize']}px, claim/body {text_size}px)"
                )
            if not f["claimExists"]:
                fail(f"{where} has no claim #citeledger-claim-{n}")
            elif not f["blockHoldsClaim"]:
                fail(
                    f"{where} does not sit directly after its claim's block (the element before "
                    f"it is <{f['blockTag']}>, which does not hold #citeledger-claim-{n})"
                )

        # 2. flags land on their audit rows; 3. rows lead back to their claims
        flags = page.locator(".citeledger-flag").all()
        for el in flags:
            report.flags += 1
            ident = el.get_attribute("id") or ""
            try:
                n = _number(ident)
            except ReaderSurfaceError as exc:
                fail(str(exc))
                continue
            target = f"#citeledger-audit-{n}"
            link = el.locator(f'a[href="{target}"]')
            if el.evaluate("(e) => e.tagName") == "A" and el.get_attribute("href") == target:
                link = el
            elif link.count() == 0:
                hrefs = el.evaluate(
                    "(e) => [...e.querySelectorAll('a')].map((a) => a.getAttribute('href'))"
                )
                fail(f"flag #{ident} has no link to {target} (its links: {hrefs})")
                continue
            if not _click(link.first, f"flag #{ident}'s link", fail):
                continue
            _expect_landing(page, target, f"flag #{ident}", fail, row=True)
            report.rows += 1
            back = (
                page.locator(f"#citeledger-audit-{n}")
                .locator("xpath=ancestor::tr[1]")
                .locator(f'a[href="#citeledger-claim-{n}"]')
            )
            if back.count() == 0:
                fail(f"audit row {n} has no link back to #citeledger-claim-{n}")
            elif _click(back.first, f"audit row {n}'s claim link", fail):
                _expect_landing(page, f"#citeledger-claim-{n}", f"audit row {n}", fail)

        # 4. every row's evidence link opens a read-only evidence page
        rows = page.locator("tr.citeledger-audit-row").all()
        hrefs: list[tuple[str, bool, str]] = []
        for row in rows:
            anchor = row.locator("[id^=citeledger-audit-]")
            ident = anchor.first.get_attribute("id") if anchor.count() else None
            if ident is None:
                fail("an audit row has no citeledger-audit-N anchor")
                continue
            checked = "citeledger-checked" in (row.get_attribute("class") or "").split()
            for a in row.locator("a.citeledger-evidence-link").all():
                hrefs.append((a.get_attribute("href") or "", checked, ident))
        for index, (href, checked, ident) in enumerate(hrefs):
            report.evidence_pages += 1
            if index == 0:  # follow one by clicking, as a reader would; open the rest directly
                link = (
                    page.locator(f"#{ident}")
                    .locator("xpath=ancestor::tr[1]")
                    .locator("a.citeledger-evidence-link")
                    .first
                )
                with page.expect_navigation():
                    link.click(timeout=ACTION_MS)
            else:
                page.goto(url)
                page.goto(_resolve(url, href))
            e = page.evaluate(_EVIDENCE_FACTS)
            where = f"evidence page {href} (row {ident})"
            if not page.url.startswith("file:"):
                fail(f"{where}: landed on {page.url}, not a local evidence page")
            if not e["title"].strip():
                fail(f"{where} has no title")
            if e["scripts"]:
                fail(f"{where} has {e['scripts']} <script> elements")
            if e["active"]:
                fail(f"{where} has {e['active']} forms, frames, images or inputs")
            outward = [h for h in e["hrefs"] if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//", h)]
            if outward:
                fail(f"{where} links out: {outward[:3]}")
            if checked and e["failedBundle"]:
                fail(f"{where} is for a checked citation but says the evidence FAILED")
            if e["mark"]:
                report.marks += 1
            elif checked:
                fail(f"{where} is for a checked citation but shows no highlighted <mark>")
            elif not e["inPlace"]:
                fail(f"{where} shows neither the passage nor why it cannot (a blank pane)")
            page.goto(url)
    finally:
        page.close()
    return report


_GROUPED_FACTS = """(el) => {
  const size = (e) => parseFloat(getComputedStyle(e).fontSize);
  const weight = (e) => parseInt(getComputedStyle(e).fontWeight, 10);
  const vis = (e) => e.checkVisibility({opacityProperty: true, visibilityProperty: true});
  let block = el.previousElementSibling;
  while (block && block.classList.contains('citeledger-breakdown')) {
    block = block.previousElementSibling;
  }
  const r = el.getBoundingClientRect();
  const head = el.querySelector(':scope > p:first-child strong') || el;
  const claimSize = (claim) => size(claim.closest('p, li, td, th, div, blockquote, dd') || claim);
  const items = [...el.querySelectorAll(':scope > .citeledger-breakdown-item')].map((it) => {
    const n = it.id.replace('citeledger-breakdown-', '');
    const claim = document.getElementById('citeledger-claim-' + n);
    const first = it.querySelector(':scope > p:first-child strong');
    const ir = it.getBoundingClientRect();
    const st = getComputedStyle(it);
    return {
      id: it.id, n: n, visible: vis(it), width: ir.width, height: ir.height,
      size: size(it), headSize: first ? size(first) : 0, headWeight: first ? weight(first) : 0,
      headSign: first ? getComputedStyle(first, '::before').content : 'none',
      ruled: parseFloat(st.borderLeftWidth) + parseFloat(st.borderTopWidth),
      claimSize: claim ? claimSize(claim) : null,
      claimInBlock: !!(block && claim && (block === claim || block.contains(claim))),
      back: !!it.querySelector('a[href="#citeledger-cite-' + n + '"]'),
      flagLink: ['#citeledger-breakdown-' + n, '#citeledger-audit-' + n].find((h) =>
        document.querySelector('#citeledger-cite-' + n + ' a[href="' + h + '"]')) || null,
      text: (it.innerText || '').trim().slice(0, 60),
    };
  });
  return {
    visible: vis(el), width: r.width, height: r.height, size: size(el),
    headSize: size(head), headWeight: weight(head), bodySize: size(document.body),
    blockTag: block ? block.tagName.toLowerCase() : null, items: items,
    text: (el.innerText || '').trim().slice(0, 60),
  };
}"""

_LOUD_WEIGHT = 600  # bold: a breakdown's first line is never in the weight of running text


def _check_grouped(page: Any, el: Any, report: SurfaceReport, fail: Any) -> None:
    """A block's breakdowns in one callout: the callout as loud as a lone one, and every item
    in it displayed, as large as the text, bold at its first line with its warning sign, set
    apart by a rule, after the block that holds its claim, and linked both ways with its flag."""
    f = el.evaluate(_GROUPED_FACTS)
    where = f"grouped callout ({f['text']!r})"
    if not f["visible"] or f["width"] <= 0 or f["height"] <= 0:
        fail(f"{where} is not displayed (box {f['width']}×{f['height']})")
        return
    if f["size"] < f["bodySize"] or f["headSize"] < f["bodySize"]:
        fail(f"{where} is smaller than the text ({f['headSize']}px < {f['bodySize']}px)")
    if f["headWeight"] < _LOUD_WEIGHT:
        fail(f"{where}: its first line is not bold (weight {f['headWeight']})")
    if len(f["items"]) < 2:
        fail(f"{where} lists {len(f['items'])} citations; a group holds two or more")
    for it in f["items"]:
        report.grouped_items += 1
        what = f"item #{it['id']} of the {where}"
        text_size = max(f["bodySize"], it["claimSize"] or 0)
        if not it["visible"] or it["width"] <= 0 or it["height"] <= 0:
            fail(f"{what} is not displayed (box {it['width']}×{it['height']})")
            continue
        if it["size"] < text_size or it["headSize"] < text_size:
            fail(
                f"{what} is smaller than the text it qualifies (item {it['size']}px, its first "
                f"line {it['headSize']}px, claim/body {text_size}px)"
            )
        if it["headWeight"] < _LOUD_WEIGHT:
            fail(f"{what}: its first line is not bold (weight {it['headWeight']})")
        if it["headSign"] in ("none", "normal", ""):
            fail(f"{what} has no warning sign before its first line")
        if it["ruled"] < 2:
            fail(f"{what} is not set apart from the item before it (no rule)")
        if it["claimSize"] is None:
            fail(f"{what} has no claim #citeledger-claim-{it['n']}")
        elif not it["claimInBlock"]:
            fail(
                f"{what} does not sit directly after its claim's block (the element before "
                f"the callout is <{f['blockTag']}>)"
            )
        if not it["back"]:
            fail(f"{what} has no link back to its flag #citeledger-cite-{it['n']}")
        elif _click(el.locator(f'a[href="#citeledger-cite-{it["n"]}"]').first, what, fail):
            _expect_landing(page, f"#citeledger-cite-{it['n']}", what, fail)
        flag, target = f"#citeledger-cite-{it['n']}", it["flagLink"]
        if not target:  # to the item itself, or (with an audit) to its audit row
            fail(f"flag {flag} links neither to its item #{it['id']} nor to its audit row")
        elif _click(page.locator(f'{flag} a[href="{target}"]').first, f"flag {flag}", fail):
            _expect_landing(page, target, f"flag {flag}", fail, row="audit" in target)


_BANNER_FACTS = """() => {
  const size = (e) => parseFloat(getComputedStyle(e).fontSize);
  const weight = (e) => parseInt(getComputedStyle(e).fontWeight, 10);
  const el = document.querySelector('.citeledger-banner');
  if (!el) return null;
  const strong = el.querySelector('strong') || el;
  const r = el.getBoundingClientRect();
  const content = [...document.querySelectorAll('body p, body li, body .citeledger-breakdown')]
    .filter((e) => !el.contains(e) && !e.closest('header'));
  const first = content.length ? content[0].getBoundingClientRect().top : Infinity;
  const links = [...el.querySelectorAll('a')].map((a) => a.getAttribute('href'));
  return {
    visible: el.checkVisibility({opacityProperty: true, visibilityProperty: true}),
    width: r.width, height: r.height, top: r.top, firstContentTop: first,
    size: size(strong), weight: weight(strong), bodySize: size(document.body),
    border: parseFloat(getComputedStyle(el).borderLeftWidth), links: links,
    text: (el.innerText || '').trim().slice(0, 100),
  };
}"""


def assert_grouped_surface(
    page_path: str | Path, *, session: Browser, min_groups: int = 1
) -> SurfaceReport:
    """The scale presentation (issue 14) in Chromium: the banner at the top of the body,
    displayed, bold, bordered, as large as the text, its audit link landing; every grouped
    callout and each of its items as ``_check_grouped`` asks; the lone callouts as before."""
    report = SurfaceReport()
    fail = report.failures.append
    page = session.context.new_page()
    try:
        page.goto(Path(page_path).resolve().as_uri())
        b = page.evaluate(_BANNER_FACTS)
        if b is None:
            fail("no .citeledger-banner on a page with breakdowns")
        else:
            where = f"the banner ({b['text'][:50]!r})"
            if not b["visible"] or b["width"] <= 0 or b["height"] <= 0:
                fail(f"{where} is not displayed")
            if b["top"] > b["firstContentTop"]:
                fail(f"{where} is not at the top of the body: text comes before it")
            if b["size"] < b["bodySize"] or b["weight"] < _LOUD_WEIGHT:
                fail(f"{where} is not as loud as a callout (size {b['size']}px, {b['weight']})")
            if b["border"] < 2:
                fail(f"{where} has no border: it reads as running text")
            audit = [h for h in b["links"] if h and h.startswith("#citeledger-audit")]
            link = page.locator(f'.citeledger-banner a[href="{audit[0]}"]') if audit else None
            if link is not None and _click(link, where, fail):
                _expect_landing(page, audit[0], where, fail)
            report.banner = b["text"]
        groups = page.locator(".citeledger-breakdown.citeledger-breakdowns").all()
        for el in groups:
            report.callouts += 1
            _check_grouped(page, el, report, fail)
        if len(groups) < min_groups:
            fail(f"only {len(groups)} grouped callouts (< {min_groups})")
    finally:
        page.close()
    _raise_failures(page_path, report, session)
    return report


def save_element_screenshot(page_path: str | Path, selector: str, png: str | Path) -> Path:
    """A picture of one element of a built page (docs/grouped-callout.png, docs/banner.png)."""
    out = Path(png)
    out.parent.mkdir(parents=True, exist_ok=True)
    with browser() as session:
        page = session.context.new_page()
        page.goto(Path(page_path).resolve().as_uri())
        page.locator(selector).first.screenshot(path=str(out))
        page.close()
        if session.blocked:
            raise ReaderSurfaceError(f"the page tried to load {session.blocked[:3]}")
    return out


def _click(link: Any, what: str, fail: Any) -> bool:
    from playwright.sync_api import Error as PlaywrightError

    try:
        link.click(timeout=ACTION_MS)
    except PlaywrightError as exc:
        fail(f"{what} cannot be followed: {str(exc).splitlines()[0]}")
        return False
    return True


def _expect_landing(page: Any, target: str, what: str, fail: Any, row: bool = False) -> None:
    from playwright.sync_api import Error as PlaywrightError

    with contextlib.suppress(PlaywrightError):
        page.wait_for_function("(h) => location.hash === h", arg=target, timeout=ACTION_MS)
    if page.evaluate("() => location.hash") != target:
        fail(f"following {what} left the hash at {page.evaluate('() => location.hash')!r}")
        return
    el = page.locator(target)
    if el.count() == 0:
        fail(f"following {what} leads to {target}, which does not exist")
        return
    if not el.first.evaluate(_IN_VIEWPORT):
        fail(f"following {what} did not bring {target} into view")
    if row:
        tr = el.first.locator("xpath=ancestor::tr[1]")
        if tr.count() == 0:
            fail(f"{target} is not inside an audit table row")
        elif not tr.first.evaluate(_IN_VIEWPORT):
            fail(f"following {what} did not bring the audit row of {target} into view")
        else:  # the row's links must be there to see, not behind a sideways scroll
            for a in tr.first.locator("a.citeledger-evidence-link, a.citeledger-source-link").all():
                if not a.evaluate(_SEEN):
                    fail(
                        f"the {a.inner_text()!r} link of the audit row {target} is outside the "
                        "visible page (the table overflows: let its cells wrap)"
                    )


def _resolve(base: str, href: str) -> str:
    from urllib.parse import urljoin

    return urljoin(base, href)


def save_screenshot(page_path: str | Path, png: str | Path, *, full_page: bool = True) -> Path:
    """A screenshot of a built page (for ``docs/standing-case.png``)."""
    out = Path(png)
    out.parent.mkdir(parents=True, exist_ok=True)
    with browser() as session:
        page = session.context.new_page()
        page.goto(Path(page_path).resolve().as_uri())
        page.screenshot(path=str(out), full_page=full_page)
        page.close()
        if session.blocked:
            raise ReaderSurfaceError(f"the page tried to load {session.blocked[:3]}")
    return out


# --- a sample page that follows the ids contract ------------------------------------------------

URL = "http://127.0.0.1:9/claims-manual.html"
MANUAL = (
    b"<html><head><title>Household Claims Handling Manual</title></head><body>"
    b"<h1>14 Appeals</h1><p>14.2 An appeal against a declined subsidence claim must be received "
    b"within 60 days of the date of the decision letter. Late appeals are considered only for "
    b"good reason.</p><p>14.3 An appeal must state the claim number, the decision appealed "
    b"against and the grounds of the appeal.</p></body></html>"
)
RIGHT = (
    "An appeal against a declined subsidence claim must be received within 60 days of the date "
    "of the decision letter."
)
WRONG = RIGHT.replace("60", "90")
FILLER = (
    "This paragraph stands between the claims and the audit so that following a link has to "
    "scroll the page to arrive, as it would in a real chapter. "
) * 3

# (occurrence, key, claim sentence)
CLAIMS = (
    (1, "cavalin2020", "An explicit reject class performs worse than the alternatives."),
    (2, "hchm", "A declined subsidence claim can be appealed within 60 days."),
    (3, "hchm-misquoted", "An earlier draft said the appeal may arrive within 90 days."),
    (4, "larson2019", "Classifiers struggle with out-of-scope queries."),
)


def sample_ledger(tmp: Path) -> Ledger:
    """Four sources: checked, misquoted (quote-not-found), withdrawn, never verified."""
    store = EvidenceStore(tmp / ".citeledger")
    ident = Identifier("url", URL)
    sources = {}
    for key, text in (("hchm", RIGHT), ("hchm-misquoted", WRONG)):
        source = Source(key, ident, {"title": "Household Claims Handling Manual"}, (Quote(text),))
        retrieval = Retrieval(
            identifier=ident,
            requested_url=URL,
            url=URL,
            status=200,
            content_type="text/html; charset=utf-8",
            body=MANUAL,
            retrieved_at="2026-08-03T10:00:00Z",
        )
        [(_, receipt)] = receipts_for_retrieval(source, retrieval, store)
        sources[key] = dataclasses.replace(source, quotes=(Quote(text, receipts=(receipt,)),))
    sources["cavalin2020"] = Source(
        "cavalin2020",
        Identifier("doi", "10.18653/v1/2020.emnlp-main.324"),
        {"title": "Improving Out-of-Scope Detection in Intent Classification"},
        (Quote("an explicit reject/OOS class performs worse than the alternatives"),),
        withdrawn=Withdrawal("2026-08-02", "The paper was never read.", "It is about graphs."),
    )
    sources["larson2019"] = Source(
        "larson2019",
        Identifier("doi", "10.18653/v1/D19-1131"),
        {"title": "An Evaluation Dataset for Intent Classification"},
        (Quote("they struggle to identify out-of-scope queries"),),
    )
    return Ledger(str(tmp / "citeledger.yaml"), str(tmp), sources, str(tmp / ".citeledger"))


def _words(text: str) -> list[dict]:
    out: list[dict] = []
    for w in text.split():
        if out:
            out.append({"t": "Space"})
        out.append({"t": "Str", "c": w})
    return out


def _claim_blocks(n: int, claim: str, state: State) -> list[dict]:
    claim_span = {
        "t": "Span",
        "c": [[f"citeledger-claim-{n}", ["citeledger-claim"], []], _words(claim)],
    }
    inlines = [claim_span]
    if state.is_breakdown:
        link = {"t": "Link", "c": [["", [], []], _words(state.value), [flag_link_target(n), ""]]}
        flag = [f"citeledger-cite-{n}", ["citeledger-flag", f"citeledger-{state.value}"], []]
        inlines += [{"t": "Space"}, {"t": "Span", "c": [flag, [link]]}]
    blocks = [{"t": "Para", "c": inlines}]
    if state.is_breakdown:
        callout = [
            f"citeledger-breakdown-{n}",
            ["citeledger-breakdown", f"citeledger-{state.value}"],
            [],
        ]
        body = [{"t": "Para", "c": [{"t": "Strong", "c": _words(state.title)}]}]
        blocks.append({"t": "Div", "c": [callout, body]})
    return blocks


def build_sample(tmp: Path, pandoc: str) -> Path:
    """chapter.html and evidence/ in ``tmp``: the reader surface as the filter must produce it."""
    ledger = sample_ledger(tmp)
    reader = EvidenceReader(ledger.evidence_dir)
    judge = Judge(ledger, reader=reader)
    evidence = tmp / "evidence"
    blocks: list[dict] = [{"t": "Header", "c": [1, ["", [], []], _words("Out-of-scope")]}]
    rows: list[AuditRow] = []
    for n, key, claim in CLAIMS:
        j = judge.judge(CitationRef(key, claim=claim, occurrence=n))
        page = write_evidence_page(
            j, reader, evidence, key=key, back_links=back_links_for(n, "../chapter.html")
        )
        rows.append(row_for(n, j, claim=claim, evidence_page=page, reader=reader))
        blocks += _claim_blocks(n, claim, j.state)
        blocks.append({"t": "Para", "c": _words(FILLER)})
    blocks += audit_blocks(rows, evidence_dir_href="evidence")
    doc = {"pandoc-api-version": [1, 23, 1, 1], "meta": {}, "blocks": blocks}
    out = tmp / "chapter.html"
    subprocess.run(
        [
            pandoc,
            "-f",
            "json",
            "-t",
            "html5",
            "-s",
            "--metadata",
            "title=Chapter 39",
            "-H",
            str(_style(tmp)),
            "-o",
            str(out),
        ],
        input=json.dumps(doc),
        text=True,
        check=True,
    )
    return out


GROUPED = REPO / "tests" / "golden" / "grouped"


def build_grouped(out: Path, pandoc: str) -> Path:
    """The grouped golden (a paragraph with three breakdowns, a lone one) as a standalone page
    built by the filter, with the stylesheet and the audit: the scale presentation of issue 14."""
    import os

    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run(
        [
            *(pandoc, "-d", str(GROUPED / "defaults.yaml"), str(GROUPED / "input.md"), "-s"),
            *("-t", "html5", "--metadata", "title=Chapter 4", "-M", "citeledger.audit=true"),
            *("-o", str(out)),
        ],
        check=True,
        capture_output=True,
        cwd=GROUPED,
        env=env,
    )
    return out


# What templates/citeledger.css must hold for the audit table to fit the page (pandoc's default
# template makes tables display:block with a sideways scroll, hiding the links column).
AUDIT_CSS = """
table.citeledger-audit-table { display: table; table-layout: fixed; width: 100%; }
.citeledger-audit-table th, .citeledger-audit-table td {
  overflow-wrap: break-word; vertical-align: top; padding: 0.3em 0.4em;
}
.citeledger-audit-table code { white-space: normal; overflow-wrap: anywhere; }
"""


def _style(tmp: Path) -> Path:
    css = CSS.read_text(encoding="utf-8")
    if "citeledger-audit-table" not in css:
        css += AUDIT_CSS
    head = tmp / "head.html"
    head.write_text(f"<style>\n{css}\n</style>\n", encoding="utf-8")
    return head


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "page", help="a built HTML document, e.g. examples/standing-case/out/chapter.html"
    )
    ap.add_argument("--screenshot", help="also save a full-page PNG here")
    ap.add_argument("--element", help="with --screenshot: only this CSS selector's element")
    args = ap.parse_args(argv)
    if not chromium_available():
        print(f"{CHROMIUM} is not installed (apt-get install chromium)", file=sys.stderr)
        return 2
    if args.element and args.screenshot:  # a picture for the docs, of one element
        print(save_element_screenshot(args.page, args.element, args.screenshot))
        return 0
    try:
        report = assert_reader_surface(args.page, screenshot=args.screenshot)
    except ReaderSurfaceError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(
        f"reader surface ok: {report.callouts} callouts, {report.flags} flags → audit rows, "
        f"{report.evidence_pages} evidence pages ({report.marks} with the passage highlighted)"
        + (f"; screenshot {args.screenshot}" if args.screenshot else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
