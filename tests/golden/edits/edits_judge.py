"""The judge of the ``edits`` golden: the real judge, over receipts made by the real check.

Two quotes of one page — one with an omission, one with a bracketed change — are located in the
extracted page by ``receipts.capture`` and ``receipts_for_capture`` (extract → locate →
evidence, the code ``verify`` runs), into an evidence store in a fresh temporary folder, and
judged by ``citeledger.judge.Judge``. Nothing is fetched: the retrieval is built here, with a
fixed time, so the receipts and every rendering of them are the same on each run.

The filter gets the judge without its evidence reader: evidence-page links are named (the
golden shows them) but no page is written into the checkout; ``tests/test_edits.py`` renders
the pages themselves against their goldens in ``evidence/``.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from citeledger.evidence.store import EvidenceStore
from citeledger.judge import Judge
from citeledger.model import CitationRef, Identifier, Judgement, Ledger, Quote, Retrieval, Source
from citeledger.verify.receipts import capture, receipts_for_capture

URL = "https://example.org/minutes.html"
PAGE = (
    b"<html><head><title>Minutes of the society</title></head><body><h1>Minutes</h1>"
    b"<p>The committee met in the old library on Tuesday and reviewed the annual budget of the "
    b"society. The treasurer presented the accounts. It was then sent to the members by post."
    b"</p></body></html>"
)
QUOTES = {
    "omitted": "The committee met … and reviewed the annual budget of the society.",
    "bracketed": "[The budget] was then sent to the members by post.",
}
RETRIEVED_AT = "2026-03-04T09:12:44Z"


def checked_ledger(folder: Path, quotes: dict[str, str] = QUOTES) -> Ledger:
    """A ledger of one source per quote, each with the receipt the real check writes.

    The page is retrieved and stored once and every quote located in that one capture, as
    ``verify`` does for sources that share an identifier (a second capture of the same body
    would get a record name of its own, different on every run).
    """
    retrieval = Retrieval(
        identifier=Identifier("url", URL),
        requested_url=URL,
        url=URL,
        status=200,
        content_type="text/html; charset=utf-8",
        body=PAGE,
        retrieved_at=RETRIEVED_AT,
    )
    cap = capture(retrieval, EvidenceStore(folder / ".citeledger"))
    sources = {}
    for key, text in quotes.items():
        source = Source(
            key, retrieval.identifier, {"title": "Minutes of the society"}, (Quote(text),)
        )
        [(_, receipt)] = receipts_for_capture(source, cap)
        sources[key] = replace(source, quotes=(Quote(text, receipts=(receipt,)),))
    return Ledger(
        str(folder / "citeledger.yaml"), str(folder), sources, str(folder / ".citeledger")
    )


class EditsJudge:
    """The filter's judge factory: the real ``Judge`` over ``checked_ledger``, reader hidden."""

    reader = None

    def __init__(self, options: Any = None) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="citeledger-golden-")
        self.judge_ = Judge(checked_ledger(Path(self._folder.name)))
        self.warnings = self.judge_.warnings

    def judge(self, ref: CitationRef) -> Judgement:
        return self.judge_.judge(ref)
