"""Screenshot of an evidence page with its PDF snapshot, for docs/ (run from the repository).

Serves a corpus PDF on 127.0.0.1, verifies one quote of it into a temporary ledger, renders the
evidence page and photographs it with headless Chromium (loopback-only, as the browser tests):

    .venv/bin/python tools/evidence_screenshot.py docs/evidence-pdf-snapshot.png
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(HERE / "tests")]


def main(out: str) -> None:
    import netserver as ns
    from browser_util import browser
    from citeledger.evidence.publish import render_page
    from citeledger.evidence.store import EvidenceReader
    from citeledger.judge import Judge
    from citeledger.ledger import load_ledger
    from citeledger.model import CitationRef
    from test_snapshot import _verified

    with tempfile.TemporaryDirectory() as tmp, ns.NetServer() as server:
        ledger = load_ledger(_verified(Path(tmp), server))
        reader = EvidenceReader(ledger.evidence_dir)
        page = render_page(
            Judge(ledger, reader=reader).judge(CitationRef("paper")), reader, key="paper"
        )
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
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/evidence-pdf-snapshot.png")
