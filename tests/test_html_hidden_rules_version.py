"""Evidence extracted under older HTML hidden-text rules goes stale, even where a derivation
remembered from those rules is in the user's cache (review s21 N2): otherwise the machine that
verified under rules v5 keeps a quote of hidden words checked while a fresh CI runner, which
re-derives, calls it stale — two verdicts for one commit.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from citeledger import model
from citeledger.evidence.derivation import remember, remembered
from citeledger.evidence.store import EvidenceStore, utc_now
from citeledger.extract.html import HTML_EXTRACTOR, HTML_RULES_VERSION
from citeledger.judge import Judge
from citeledger.locate.locator import prepare
from citeledger.verify.receipts import Capture, receipts_for_capture

URL = "http://127.0.0.1:9/trial.html"
BODY = b'<p>The drug is <span style="font:0/0 a">not </span>effective.</p>'
QUOTE = "The drug is not effective."
OLD_VERSION = "5+selectolax-1.0.2; charset=utf-8"  # what rules v5 called itself


def _ledger(tmp_path: Path, source: model.Source) -> model.Ledger:
    return model.Ledger(
        path=str(tmp_path / "citeledger.yaml"),
        root=str(tmp_path),
        sources={source.key: source},
        evidence_dir=str(tmp_path / ".citeledger"),
    )


def _verified_under_old_rules(tmp_path: Path) -> tuple[model.Source, str, str]:
    """The receipt verify wrote under rules v5, which kept the hidden "not " (its text is what
    v5 made of the body), and the derivation it remembered."""
    source = model.Source("trial", model.Identifier("url", URL), {}, (model.Quote(QUOTE),))
    retrieval = model.Retrieval(source.identifier, URL, URL, 200, "text/html", BODY, utc_now())
    old = model.Extracted(QUOTE, "html", HTML_EXTRACTOR, OLD_VERSION)
    stored = EvidenceStore(tmp_path / ".citeledger").put(retrieval, old)
    assert stored.text_sha256 is not None
    remember(stored.body_sha256, f"{HTML_EXTRACTOR} {OLD_VERSION}", stored.text_sha256)
    [(_, receipt)] = receipts_for_capture(
        source, Capture(retrieval, stored, old, prepare(QUOTE), None)
    )
    assert receipt.outcome == "found", receipt.differences
    checked = dataclasses.replace(source, quotes=(model.Quote(QUOTE, receipts=(receipt,)),))
    return checked, stored.body_sha256, stored.text_sha256


def test_the_rules_version_is_bumped() -> None:
    assert HTML_RULES_VERSION == "6"


def test_a_derivation_remembered_under_older_html_rules_confirms_nothing(tmp_path: Path) -> None:
    source, body_sha256, _ = _verified_under_old_rules(tmp_path)
    assert remembered(body_sha256, f"{HTML_EXTRACTOR} {OLD_VERSION}") is None
    verdict = Judge(_ledger(tmp_path, source)).judge(model.CitationRef("trial"))
    assert verdict.state is model.State.STALE, verdict.reasons
    assert "Run `citeledger verify` again" in verdict.reasons[0]


def test_a_derivation_under_the_current_rules_is_still_remembered(tmp_path: Path) -> None:
    now = f"{HTML_EXTRACTOR} {HTML_RULES_VERSION}+selectolax-1.0.2; charset=utf-8"
    remember("ab" * 32, now, "cd" * 32)
    assert remembered("ab" * 32, now) == "cd" * 32
    assert remembered("ab" * 32, "some-other-extractor 1") is None
