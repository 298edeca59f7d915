"""Forgery without touching the quote's words (issue 12, findings 1–3): the judgement decides
from the evidence, and a receipt or evidence file made to say something else is not checked.

Every case starts from a real verify against a loopback server, then forges the way the issue's
adversarial pass did: a deleted ledger line, a hand-edited fact, a rewritten text record, a
prepended evidence file — each built with the project's own code, offline.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import netserver as ns
from citeledger.cli import main
from citeledger.evidence.store import EvidenceStore, history_entries
from citeledger.judge import Judge
from citeledger.ledger import append_receipts, load_ledger
from citeledger.locate.locator import prepare
from citeledger.model import CitationRef, Extracted, Ledger, Receipt, Retrieval, State
from citeledger.verify.receipts import Capture, receipts_for_capture
from verify_util import verified_one

netserver = ns.netserver
REPO = Path(__file__).resolve().parent.parent
MANUAL = (REPO / "examples/standing-case/publisher/claims-manual.html").read_bytes()
QUOTE = (
    "An appeal against a declined subsidence claim must be received within 60 days of the date "
    "of the decision letter."
)
INVENTED = "The insurer waives every fee for claims lodged in winter."


def _verified(tmp_path: Path, server: ns.NetServer, body: bytes = MANUAL) -> Path:
    server.static("/manual.html", body)
    return verified_one(tmp_path, "m", server.url("/manual.html"), QUOTE)


def _judge(led: Ledger, key: str = "m") -> tuple[State, str]:
    verdict = Judge(led).judge(CitationRef(key))
    return verdict.state, " ".join(verdict.reasons)


def _with_receipt(led: Ledger, receipt: Receipt, key: str = "m") -> Ledger:
    source = led.sources[key]
    quote = dataclasses.replace(source.quotes[0], receipts=(receipt,))
    sources = {**led.sources, key: dataclasses.replace(source, quotes=(quote,))}
    return dataclasses.replace(led, sources=sources)


def test_retraction_is_read_from_the_registrys_answer_in_the_evidence(
    tmp_path: Path, netserver: ns.NetServer
) -> None:
    """Deleting `retracted:` from the receipt used to turn a retracted work into `checked`."""
    answer = {
        "DOI": "10.5555/appeals",
        "type": "article-journal",
        "title": "Claims manual",
        "updated-by": [
            {"DOI": "10.5555/notice", "type": "retraction", "updated": {"date-parts": [[2025]]}}
        ],
    }

    def resolver(req: ns.Seen) -> ns.Reply:
        if "citationstyles" in (req.header("accept") or ""):
            return ns.Reply(
                body=json.dumps(answer).encode(),
                content_type="application/vnd.citationstyles.csl+json",
            )
        return ns.Reply(302, b"", [("Location", "/article.html")], None)

    netserver.route("/doi/", resolver, prefix=True)
    netserver.static("/article.html", MANUAL)
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text(
        "sources:\n  m:\n    doi: 10.5555/appeals\n    title: Claims manual\n"
        f'    quotes:\n      - text: "{QUOTE}"\n',
        encoding="utf-8",
    )
    settings = tmp_path / "settings.yaml"
    settings.write_text(f"doi_base: {netserver.url('/doi/')}\n", encoding="utf-8")
    argv = ["verify", "--ledger", str(ledger), "--yes", "--allow-private", "--config"]
    assert main([*argv, str(settings)]) == 0
    assert _judge(load_ledger(ledger))[0] is State.RETRACTED
    text = ledger.read_text(encoding="utf-8")
    edited = "\n".join(line for line in text.splitlines() if "retracted:" not in line)
    assert edited != text
    ledger.write_text(edited + "\n", encoding="utf-8")
    led = load_ledger(ledger)
    assert led.sources["m"].quotes[0].latest.retracted is None  # type: ignore[union-attr]
    state, reasons = _judge(led)
    assert state is State.RETRACTED and "retraction" in reasons
    # The registry's answer is in the receipt's own metadata too: editing that changes nothing.
    receipt = led.sources["m"].quotes[0].latest
    assert receipt is not None
    cleaned = dataclasses.replace(receipt, metadata={"title": "Claims manual"})
    assert _judge(_with_receipt(led, cleaned))[0] is State.RETRACTED


def test_hand_edited_receipt_facts_are_tampered(tmp_path: Path, netserver: ns.NetServer) -> None:
    led = load_ledger(_verified(tmp_path, netserver))
    receipt = led.sources["m"].quotes[0].latest
    assert receipt is not None and _judge(led)[0] is State.CHECKED
    edits = {
        "page": {"page": 99},
        "status": {"status": 203},
        "redirects": {"redirects": ("https://example.org/official",)},
        "retrieved_at": {"retrieved_at": "2019-01-01T00:00:00Z"},
        "url removed": {"url": None},
        "url": {"url": "https://example.org/manual.html"},
        "retracted": {"retracted": "retraction recorded by the registry"},
    }
    for what, change in edits.items():
        state, reasons = _judge(_with_receipt(led, dataclasses.replace(receipt, **change)))
        assert state is State.TAMPERED, (what, state, reasons)


def _forge_text(ledger: Path, text: str) -> None:
    """Store the same body again with a text record of the forger's choosing, and write the
    receipt that matches it: the project's own code, run offline."""
    led = load_ledger(ledger)
    old = led.sources["m"].quotes[0].latest
    assert old is not None and old.url is not None
    retrieval = Retrieval(
        led.sources["m"].identifier,
        old.requested_url or old.url,
        old.url,
        200,
        old.content_type,
        MANUAL,
        "2026-01-02T00:00:00Z",
    )
    extracted = Extracted(text, "html", *(old.extractor or "x 1").rsplit(" ", 1))
    stored = EvidenceStore(led.evidence_dir).put(retrieval, extracted)
    cap = Capture(retrieval, stored, extracted, prepare(text), None)
    source = dataclasses.replace(
        led.sources["m"], quotes=(dataclasses.replace(led.sources["m"].quotes[0], text=INVENTED),)
    )
    [(_, receipt)] = receipts_for_capture(source, cap)
    assert receipt.outcome == "found"
    ledger.write_text(ledger.read_text(encoding="utf-8").replace(QUOTE, INVENTED), "utf-8")
    [logged] = history_entries(led.evidence_dir, "m", [receipt])  # as verify logs its receipts
    append_receipts(ledger, [("m", 0, dataclasses.replace(receipt, history=logged))])


def test_a_rewritten_text_record_is_tampered(tmp_path: Path, netserver: ns.NetServer) -> None:
    """A sentence the page never contained, in a text record beside the real body."""
    ledger = _verified(tmp_path, netserver)
    _forge_text(ledger, f"Appeals. {INVENTED} Nothing else.")
    state, reasons = _judge(load_ledger(ledger))
    assert state is State.TAMPERED, reasons
    assert "rewritten" in reasons


def test_a_prepended_evidence_file_is_tampered(tmp_path: Path, netserver: ns.NetServer) -> None:
    other = tmp_path / "other"
    other.mkdir()
    decoy = load_ledger(_verified(other, netserver, MANUAL.replace(b"<p", b"<p data-x", 1)))
    ledger = _verified(tmp_path, netserver)
    led = load_ledger(ledger)
    receipt = led.sources["m"].quotes[0].latest
    assert receipt is not None and receipt.evidence is not None
    decoy_receipt = decoy.sources["m"].quotes[0].latest
    assert decoy_receipt is not None and decoy_receipt.evidence is not None
    target = Path(led.evidence_dir) / receipt.evidence
    prefix = (Path(decoy.evidence_dir) / decoy_receipt.evidence).read_bytes()
    target.write_bytes(prefix + target.read_bytes())
    state, reasons = _judge(load_ledger(ledger))
    assert state is State.TAMPERED, reasons
    assert "exactly one retrieval" in reasons


def test_a_second_text_record_is_tampered(tmp_path: Path, netserver: ns.NetServer) -> None:
    ledger = _verified(tmp_path, netserver)
    led = load_ledger(ledger)
    receipt = led.sources["m"].quotes[0].latest
    assert receipt is not None and receipt.evidence is not None
    target = Path(led.evidence_dir) / receipt.evidence
    import io

    from warcio.archiveiterator import ArchiveIterator
    from warcio.warcwriter import WARCWriter

    out = io.BytesIO()
    writer = WARCWriter(out, gzip=True)
    with target.open("rb") as fh:
        for record in ArchiveIterator(fh):
            writer.write_record(record)
            if record.rec_type == "conversion":
                payload = f"{INVENTED}".encode()
                writer.write_record(
                    writer.create_warc_record(
                        record.rec_headers.get_header("WARC-Target-URI"),
                        "conversion",
                        payload=io.BytesIO(payload),
                        length=len(payload),
                        warc_headers_dict={
                            "WARC-Refers-To": record.rec_headers.get_header("WARC-Refers-To")
                        },
                    )
                )
    target.write_bytes(out.getvalue())
    state, reasons = _judge(load_ledger(ledger))
    assert state is State.TAMPERED, reasons


def _rechecked_to_changed(tmp_path: Path, server: ns.NetServer) -> tuple[Path, str]:
    doc = server.document("/m.html", MANUAL)
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text(
        f"sources:\n  m:\n    url: {server.url('/m.html')}\n    quotes:\n      - text: '{QUOTE}'\n",
        encoding="utf-8",
    )
    argv = ["--ledger", str(ledger), "--yes", "--allow-private"]
    assert main(["verify", *argv]) == 0
    verified = ledger.read_text(encoding="utf-8")
    doc.update(MANUAL.replace(b"60 days", b"45 days"))
    assert main(["recheck", *argv]) == 0
    assert _judge(load_ledger(ledger))[0] is State.SOURCE_CHANGED
    return ledger, verified


def test_deleting_the_changed_receipt_and_its_log_line_is_noticed(
    tmp_path: Path, netserver: ns.NetServer
) -> None:
    """The writer deletes the recheck's receipt and its line in the history log."""
    ledger, verified = _rechecked_to_changed(tmp_path, netserver)
    log = tmp_path / ".citeledger" / "history.jsonl"
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    assert len(lines) == 2
    text = ledger.read_text(encoding="utf-8")
    # Only the receipt removed, the head kept: the log's newest entry is not the receipt's.
    head = next(line for line in text.splitlines() if line.startswith("history_head:"))
    old_head = next(line for line in verified.splitlines() if line.startswith("history_head:"))
    ledger.write_text(verified.replace(old_head, head), "utf-8")
    log.write_text(lines[0], encoding="utf-8")
    state, reasons = _judge(load_ledger(ledger))
    assert state is State.STALE and "history log" in reasons, (state, reasons)
    # The whole ledger rolled back, log line deleted too: the ledger's head is consistent, but
    # rolled back to the verify, the log still must match it — and the line kept is the verify's.
    ledger.write_text(verified, encoding="utf-8")
    log.write_text(lines[0] + lines[1], encoding="utf-8")
    state, reasons = _judge(load_ledger(ledger))
    assert state is State.STALE and "receipt was removed" in reasons, (state, reasons)


def test_deleting_the_whole_history_log_is_noticed(tmp_path: Path, netserver: ns.NetServer) -> None:
    ledger, verified = _rechecked_to_changed(tmp_path, netserver)
    (tmp_path / ".citeledger" / "history.jsonl").unlink()
    ledger.write_text(verified, encoding="utf-8")
    state, reasons = _judge(load_ledger(ledger))
    assert state is State.STALE and "log lines are gone with the whole log" in reasons, reasons


def test_pick_does_not_take_a_rewritten_text_record_as_the_source(
    tmp_path: Path, netserver: ns.NetServer
) -> None:
    """pick selects from stored evidence only when its text is what the stored body makes: a
    forged text record with a matching receipt must not become a new, signed receipt."""
    from citeledger.verify.pick import stored_capture

    ledger = _verified(tmp_path, netserver)
    led = load_ledger(ledger)
    honest = stored_capture(led, led.sources["m"])
    assert honest is not None and honest.extracted is not None
    _forge_text(ledger, f"Appeals. {INVENTED} Nothing else.")
    led = load_ledger(ledger)
    assert stored_capture(led, led.sources["m"]) is None
