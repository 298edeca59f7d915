"""Signed receipts (issue 12, finding 4): digests cannot tell a retrieval that happened from one
that was written offline with this project's own code; a signature by a trusted key can."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import netserver as ns
from citeledger.cli import main
from citeledger.evidence.store import EvidenceStore, utc_now
from citeledger.extract.dispatch import extract
from citeledger.judge import Judge
from citeledger.ledger import append_receipts, load_ledger
from citeledger.locate.locator import prepare
from citeledger.model import CitationRef, Identifier, Retrieval, State
from citeledger.verify.receipts import Capture, receipts_for_capture

netserver = ns.netserver
QUOTE = "Claims lodged in winter are free of every fee."
PAGE = f"<html><body><p>Fees.</p><p>{QUOTE}</p></body></html>".encode()


def _key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, str]:
    path = tmp_path / "keys" / "ci.pem"
    assert main(["key", "init", "--path", str(path)]) == 0
    public = capsys.readouterr().out.strip().splitlines()[-1]
    assert public.startswith("ed25519:") and path.stat().st_mode & 0o077 == 0
    return path, public


def _ledger(folder: Path, url: str, extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    ledger = folder / "citeledger.yaml"
    ledger.write_text(
        f'{extra}sources:\n  m:\n    url: {url}\n    quotes:\n      - text: "{QUOTE}"\n',
        encoding="utf-8",
    )
    return ledger


def test_key_init_refuses_a_path_inside_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["key", "init", "--path", str(tmp_path / "key.pem")]) == 2
    assert "inside the project" in capsys.readouterr().err
    assert not (tmp_path / "key.pem").exists()


def test_signed_receipts_are_trusted_and_edits_break_the_signature(
    tmp_path: Path,
    netserver: ns.NetServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    key, public = _key(tmp_path, capsys)
    monkeypatch.setenv("CITELEDGER_SIGNING_KEY", str(key))
    netserver.static("/fees.html", PAGE, content_type="text/html")
    ledger = _ledger(tmp_path / "project", netserver.url("/fees.html"))
    assert main(["verify", "--ledger", str(ledger), "--yes", "--allow-private"]) == 0
    led = load_ledger(ledger)
    receipt = led.sources["m"].quotes[0].latest
    assert receipt is not None and receipt.signed_by == public and receipt.signature
    trusted = Judge(led, trusted_keys=[public], require_signature=True).judge(CitationRef("m"))
    assert trusted.state is State.CHECKED, trusted.reasons
    assert trusted.signer is not None and "trusted" in trusted.signer
    # Readers see who signed and when: the evidence page and the audit row.
    from citeledger.evidence.page import render_evidence_page
    from citeledger.report.audit import row_for

    page = render_evidence_page(trusted, text=None)
    assert "Signed by" in page and public[:20] in page and receipt.signed_at in page
    assert row_for(1, trusted).signer == trusted.signer
    # Not among the trusted keys: with require-signature, unchecked, and said in words.
    other = Judge(led, require_signature=True).judge(CitationRef("m"))
    assert other.state is State.UNCHECKED
    assert "not a trusted key" in other.reasons[0]
    # A fact edited after signing: the signature no longer holds.
    edited = dataclasses.replace(receipt, match="fuzzy")
    quote = dataclasses.replace(led.sources["m"].quotes[0], receipts=(edited,))
    forged = dataclasses.replace(
        led, sources={"m": dataclasses.replace(led.sources["m"], quotes=(quote,))}
    )
    verdict = Judge(forged, trusted_keys=[public]).judge(CitationRef("m"))
    assert verdict.state is State.TAMPERED and "signature does not hold" in verdict.reasons[0]
    # check: --trusted-key, the environment, or the ledger; never the document.
    doc = tmp_path / "project" / "doc.md"
    doc.write_text("A claim [@m].\n", encoding="utf-8")
    args = ["check", str(doc), "--quiet", "--require-signature"]
    assert main(args) == 1
    assert main([*args, "--trusted-key", public]) == 0
    monkeypatch.setenv("CITELEDGER_TRUSTED_KEYS", public)
    assert main(args) == 0
    monkeypatch.delenv("CITELEDGER_TRUSTED_KEYS")
    doc.write_text(
        f"---\nciteledger:\n  trusted-keys: {public}\n---\nA claim [@m].\n", encoding="utf-8"
    )
    assert main(args) == 1  # a document cannot vouch for its own evidence
    text = ledger.read_text(encoding="utf-8")
    ledger.write_text(f"trusted_keys:\n  - {public}\nrequire_signature: true\n{text}", "utf-8")
    assert main(["check", str(doc), "--quiet"]) == 0


def test_a_forged_unsigned_evidence_file_is_not_checked_when_signatures_are_required(
    tmp_path: Path,
) -> None:
    """Built offline by the project's own code for a page that was never fetched: every digest
    recomputes and the text is what the extractor makes of the body — only a signature tells."""
    url = "https://publisher.example/fees.html"
    ledger = _ledger(tmp_path, url)
    led = load_ledger(ledger)
    retrieval = Retrieval(
        Identifier("url", url), url, url, 200, "text/html", PAGE, utc_now(), redirects=()
    )
    extracted = extract(PAGE, "text/html", url)
    stored = EvidenceStore(led.evidence_dir).put(retrieval, extracted)
    cap = Capture(retrieval, stored, extracted, prepare(extracted.text), None)
    [(_, receipt)] = receipts_for_capture(led.sources["m"], cap)
    append_receipts(ledger, [("m", 0, receipt)])
    led = load_ledger(ledger)
    assert Judge(led).judge(CitationRef("m")).state is State.CHECKED  # what digests cannot see
    verdict = Judge(led, require_signature=True).judge(CitationRef("m"))
    assert verdict.state is State.UNCHECKED
    assert "not signed" in verdict.reasons[0]


def test_a_key_added_to_the_ledger_does_not_widen_the_keys_a_build_names(
    tmp_path: Path,
    netserver: ns.NetServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A forger who can edit the ledger signs with their own key and lists it under
    ``trusted_keys:``; a CI run that names its own key (``--trusted-key``, the environment)
    trusts that key alone, so the forged receipt stays unchecked."""
    _, ci_public = _key(tmp_path / "ci", capsys)
    forger_key, forger_public = _key(tmp_path / "forger", capsys)
    monkeypatch.setenv("CITELEDGER_SIGNING_KEY", str(forger_key))
    netserver.static("/fees.html", PAGE, content_type="text/html")
    ledger = _ledger(tmp_path / "project", netserver.url("/fees.html"))
    assert main(["verify", "--ledger", str(ledger), "--yes", "--allow-private"]) == 0
    text = ledger.read_text(encoding="utf-8")
    ledger.write_text(f"trusted_keys:\n  - {forger_public}\n{text}", "utf-8")
    doc = tmp_path / "project" / "doc.md"
    doc.write_text("A claim [@m].\n", encoding="utf-8")
    args = ["check", str(doc), "--quiet", "--require-signature"]
    assert main(args) == 0  # the ledger's own keys, when the run names none
    assert main([*args, "--trusted-key", ci_public]) == 1
    monkeypatch.setenv("CITELEDGER_TRUSTED_KEYS", ci_public)
    assert main(args) == 1
