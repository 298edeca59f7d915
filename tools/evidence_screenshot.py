"""Screenshot of an evidence page with its PDF or HTML snapshot, for docs/ (run from the
repository).

Serves a corpus PDF (or web page) on 127.0.0.1, verifies one quote of it into a temporary
ledger, renders the evidence page and photographs it with headless Chromium (loopback-only, as
the browser tests):

    .venv/bin/python tools/evidence_screenshot.py docs/evidence-pdf-snapshot.png
    .venv/bin/python tools/evidence_screenshot.py docs/evidence-html-snapshot.png --html
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(HERE / "tests")]


def main(out: str, web: bool = False) -> None:
    import os

    import netserver as ns
    from browser_util import browser
    from citeledger.evidence.publish import render_page
    from citeledger.evidence.store import EvidenceReader
    from citeledger.judge import Judge
    from citeledger.ledger import load_ledger
    from citeledger.model import CitationRef
    from test_html_snapshot import verified as html_verified
    from test_snapshot import _verified

    key = "page" if web else "paper"
    os.environ.setdefault("CITELEDGER_CHROMIUM", "/usr/bin/chromium")
    with tempfile.TemporaryDirectory() as tmp, ns.NetServer() as server:
        ledger = load_ledger((html_verified if web else _verified)(Path(tmp), server))
        reader = EvidenceReader(ledger.evidence_dir)
        page = render_page(Judge(ledger, reader=reader).judge(CitationRef(key)), reader, key=key)
        assert page is not None
        html = Path(tmp) / "evidence.html"
        html.write_text(page.html, encoding="utf-8")
        with browser() as b:
            tab = b.context.new_page()
            tab.set_viewport_size({"width": 1000, "height": 1400})
            tab.goto(html.as_uri())
            tab.locator("#snapshot").scroll_into_view_if_needed()
            tab.screenshot(path=out, full_page=False)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--html"]
    web = "--html" in sys.argv[1:]
    default = "docs/evidence-html-snapshot.png" if web else "docs/evidence-pdf-snapshot.png"
    main(args[0] if args else default, web)
