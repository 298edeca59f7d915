"""Forgery by moving receipts (stop 19, review r1 A2/A3/A5/A6): a receipt copied, re-appended
or moved to another key is not checked, and a registry answer once stored is not forgotten.

Every case starts from a real ``citeledger verify``/``recheck`` (a file source, or a DOI on a
loopback server), then edits the ledger as a writer could, by hand.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

import netserver as ns
from citeledger.cli import main
from citeledger.judge import Judge
from citeledger.ledger import load_ledger
from citeledger.model import CitationRef, State

netserver = ns.netserver
QUOTE = "The appeal must be received within 60 days of the date of the decision letter."
ITEM = "          - outcome: "


def _state(ledger: Path, key: str) -> tuple[State, str]:
    verdict = Judge(load_ledger(ledger)).judge(CitationRef(key))
    return verdict.state, " ".join(verdict.reasons)


def _changed(tmp_path: Path) -> Path:
    """A file source verified (found), then changed and rechecked (changed)."""
    source = tmp_path / "a.txt"
    source.write_text(f"Report A.\n\n{QUOTE} Late appeals are refused.\n", encoding="utf-8")
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text(
        f"sources:\n  a:\n    file: a.txt\n    title: Report A\n"
        f"    quotes:\n      - text: {QUOTE}\n",
        encoding="utf-8",
    )
    assert main(["verify", "--ledger", str(ledger), "--yes"]) == 0
    source.write_text(source.read_text("utf-8").replace("60 days", "90 days"), "utf-8")
    main(["recheck", "--ledger", str(ledger), "--yes"])
    assert _state(ledger, "a")[0] is State.SOURCE_CHANGED
    return ledger


def _items(text: str) -> list[str]:
    """The receipts of the ledger's one quote, as the text items verify wrote."""
    return [ITEM + item.rstrip("\n") + "\n" for item in text.split(ITEM)[1:]]


def test_an_old_found_receipt_appended_again_is_not_checked(tmp_path: Path) -> None:
    """A2: the first `found` receipt copied after the recheck's `changed` one."""
    ledger = _changed(tmp_path)
    text = ledger.read_text("utf-8")
    found, changed = _items(text)
    forgeries = {
        "without its history line": (
            re.sub(r"\n *history: [0-9a-f]+", "", found),
            State.STALE,
            "no entry in the evidence store's history log",
        ),
        "with its own history line": (found, State.STALE, "logged a later check"),
        "with the newest entry's history line": (
            found.replace(
                re.findall(r"history: [0-9a-f]+", found)[0],
                re.findall(r"history: [0-9a-f]+", changed)[0],
            ),
            State.TAMPERED,
            "another check's (@a, changed",
        ),
    }
    for what, (copy, expected, words) in forgeries.items():
        ledger.write_text(text.rstrip("\n") + "\n" + copy, "utf-8")
        state, reasons = _state(ledger, "a")
        assert state is expected and words in reasons, (what, state, reasons)


def test_a_receipt_copied_to_another_key_is_not_checked(tmp_path: Path) -> None:
    """A3: a second key with the same identifier and quote gets the old `found` receipt."""
    ledger = _changed(tmp_path)
    text = ledger.read_text("utf-8")
    block = text.split("sources:\n", 1)[1].split(ITEM + "changed")[0]
    for what, (copy, expected) in {
        "with its history line": (block, State.TAMPERED),
        "without it": (re.sub(r"\n *history: [0-9a-f]+", "", block), State.STALE),
    }.items():
        ledger.write_text(text.rstrip("\n") + "\n" + copy.replace("  a:\n", "  a2:\n", 1), "utf-8")
        assert _state(ledger, "a")[0] is State.SOURCE_CHANGED
        state, reasons = _state(ledger, "a2")
        assert state is expected and "history log" in reasons, (what, state, reasons)


MANUAL = (
    b"<html><head><title>Claims manual</title></head><body><p>An appeal must be received "
    b"within 60 days of the date of the decision letter.</p></body></html>"
)
DOI_QUOTE = "An appeal must be received within 60 days of the date of the decision letter."
RETRACTED = {
    "DOI": "10.5555/appeals",
    "type": "article-journal",
    "title": "Claims manual",
    "updated-by": [
        {"DOI": "10.5555/notice", "type": "retraction", "updated": {"date-parts": [[2025]]}}
    ],
}


class _Registry:
    """A loopback DOI resolver and publisher whose metadata answer a test can take away."""

    def __init__(self, server: ns.NetServer, answer: dict[str, object]) -> None:
        self.answer: dict[str, object] | None = answer
        server.route("/doi/", self._resolve, prefix=True)
        server.static("/article.html", MANUAL, content_type="text/html; charset=utf-8")
        self.base = server.url("/doi/")

    def _resolve(self, req: ns.Seen) -> ns.Reply:
        if "citationstyles" in (req.header("accept") or ""):
            if self.answer is None:
                return ns.Reply(503, b"")
            return ns.Reply(
                body=json.dumps(self.answer).encode(),
                content_type="application/vnd.citationstyles.csl+json",
            )
        return ns.Reply(302, b"", [("Location", "/article.html")], None)


def _doi_project(
    tmp_path: Path, server: ns.NetServer, answer: dict[str, object]
) -> tuple[Path, _Registry, Callable[..., str]]:
    registry = _Registry(server, answer)
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text(
        "sources:\n  m:\n    doi: 10.5555/appeals\n    title: Claims manual\n"
        f"    quotes:\n      - text: {DOI_QUOTE}\n",
        encoding="utf-8",
    )
    settings = tmp_path / "settings.yaml"

    def verify(capsys: pytest.CaptureFixture[str], extra: str = "") -> str:
        settings.write_text(f"doi_base: {registry.base}\n{extra}", encoding="utf-8")
        argv = ["verify", "--ledger", str(ledger), "--yes", "--allow-private"]
        assert main([*argv, "--config", str(settings)]) == 0
        return capsys.readouterr().out

    return ledger, registry, verify


def _without_first_receipt(ledger: Path) -> None:
    text = ledger.read_text("utf-8")
    _, *rest = text.split(ITEM)[1:]
    ledger.write_text(text.split(ITEM)[0] + "".join(ITEM + r for r in rest), "utf-8")


@pytest.mark.parametrize("how", ["registry fails", "fetch_metadata off"])
@pytest.mark.parametrize("finding", ["retracted", "metadata-mismatch"])
def test_a_registry_finding_is_not_forgotten_when_the_registry_is_not_asked(
    tmp_path: Path,
    netserver: ns.NetServer,
    capsys: pytest.CaptureFixture[str],
    how: str,
    finding: str,
) -> None:
    """A5: re-verified while the registry's metadata request fails (or is switched off), a
    retraction or another work recorded before still stands — also with that receipt deleted."""
    answer = RETRACTED if finding == "retracted" else {**RETRACTED, "title": "Tidal physics"}
    if finding == "metadata-mismatch":
        del answer["updated-by"]
    ledger, registry, verify = _doi_project(tmp_path, netserver, answer)
    verify(capsys)
    expected = State(finding)
    assert _state(ledger, "m")[0] is expected
    if how == "registry fails":
        registry.answer = None
        out = verify(capsys)
        assert "registry" in out and "could not" in out, out
    else:
        verify(capsys, "fetch_metadata: false\n")
    receipts = load_ledger(ledger).sources["m"].quotes[0].receipts
    assert [r.outcome for r in receipts] == ["found", "found"]
    state, reasons = _state(ledger, "m")
    assert state is expected and "earlier" in reasons, (state, reasons)
    _without_first_receipt(ledger)
    state, reasons = _state(ledger, "m")
    assert state is not State.CHECKED, (state, reasons)


@pytest.mark.parametrize("deleted", ["its retracted: line", "the whole first receipt"])
def test_a_retraction_is_not_forgotten_when_the_doi_is_respelled(
    tmp_path: Path, netserver: ns.NetServer, capsys: pytest.CaptureFixture[str], deleted: str
) -> None:
    """Review s20 F2: DOIs ignore case, so the retraction stored and logged under
    10.5555/appeals holds for 10.5555/APPEALS re-verified without asking the registry — also
    with the old receipt's `retracted:` line (or the whole receipt) deleted."""
    ledger, _, verify = _doi_project(tmp_path, netserver, RETRACTED)
    verify(capsys)
    assert _state(ledger, "m")[0] is State.RETRACTED
    text = ledger.read_text("utf-8")
    ledger.write_text(text.replace("doi: 10.5555/appeals", "doi: 10.5555/APPEALS", 1), "utf-8")
    verify(capsys, "fetch_metadata: false\n")
    receipts = load_ledger(ledger).sources["m"].quotes[0].receipts
    assert [r.identifier for r in receipts] == ["doi:10.5555/appeals", "doi:10.5555/APPEALS"]
    if deleted == "its retracted: line":
        text = ledger.read_text("utf-8")
        ledger.write_text(re.sub(r"\n *retracted: [^\n]*", "", text), "utf-8")
    else:
        _without_first_receipt(ledger)
    state, reasons = _state(ledger, "m")
    assert state is State.RETRACTED and "10.5555/notice" in reasons, (state, reasons)


def test_a_later_answer_without_the_retraction_does_not_take_it_back(
    tmp_path: Path, netserver: ns.NetServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """Review s20 F2 (the report's "also"): a retraction is permanent. A later verify whose
    registry answer records none (the resolver changed, the settings point at another one)
    leaves the work retracted, from the log, also with the earlier receipt deleted."""
    ledger, registry, verify = _doi_project(tmp_path, netserver, RETRACTED)
    verify(capsys)
    assert _state(ledger, "m")[0] is State.RETRACTED
    registry.answer = {k: v for k, v in RETRACTED.items() if k != "updated-by"}
    verify(capsys)
    receipts = load_ledger(ledger).sources["m"].quotes[0].receipts
    assert [r.retracted is None for r in receipts] == [False, True]
    for _ in range(2):
        state, reasons = _state(ledger, "m")
        assert state is State.RETRACTED and "history log" in reasons, (state, reasons)
        _without_first_receipt(ledger)


def test_a_later_check_under_another_spelling_is_not_forgotten(tmp_path: Path) -> None:
    """Review s20 F2: a check logged under `./a.txt` is a check of `a.txt`: deleting its
    receipt and respelling the path back does not bring the older `found` back."""
    source = tmp_path / "a.txt"
    source.write_text(f"Report A.\n\n{QUOTE}\n", encoding="utf-8")
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text(
        f"sources:\n  a:\n    file: a.txt\n    quotes:\n      - text: {QUOTE}\n",
        encoding="utf-8",
    )
    assert main(["verify", "--ledger", str(ledger), "--yes"]) == 0
    found = ledger.read_text("utf-8")
    source.write_text(f"Report A.\n\n{QUOTE.replace('60', '90')}\n", encoding="utf-8")
    ledger.write_text(found.replace("file: a.txt", "file: ./a.txt"), "utf-8")
    main(["verify", "--ledger", str(ledger), "--yes"])
    assert _state(ledger, "a")[0] is State.QUOTE_NOT_FOUND
    head = re.findall(r"history_head: \w+", ledger.read_text("utf-8"))[0]
    ledger.write_text(re.sub(r"history_head: \w+", head, found), "utf-8")  # the first receipt
    state, reasons = _state(ledger, "a")
    assert state is State.STALE and "logged a later check" in reasons, (state, reasons)


def test_a_local_copy_keeps_the_retraction_its_evidence_recorded(
    tmp_path: Path, netserver: ns.NetServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """A6: with a local copy, an earlier retrieval's retraction is carried from its stored
    registry answer, not from its `retracted:` line; deleting that receipt is noticed too."""
    ledger, _, verify = _doi_project(tmp_path, netserver, RETRACTED)
    verify(capsys)
    (tmp_path / "m.txt").write_text(f"Claims manual\n\n{DOI_QUOTE}\n", encoding="utf-8")
    text = ledger.read_text("utf-8")
    ledger.write_text(text.replace("    title:", "    local_copy: m.txt\n    title:", 1), "utf-8")
    verify(capsys)
    assert _state(ledger, "m")[0] is State.RETRACTED
    text = ledger.read_text("utf-8")
    ledger.write_text(re.sub(r"\n *retracted: [^\n]*", "", text), "utf-8")
    state, reasons = _state(ledger, "m")
    assert state is State.RETRACTED, (state, reasons)
    _without_first_receipt(ledger)
    state, reasons = _state(ledger, "m")
    assert state is not State.CHECKED, (state, reasons)


@pytest.mark.parametrize("command", ["withdraw", "dispute"])
def test_a_deleted_withdrawal_or_dispute_does_not_restore_checked(
    tmp_path: Path, command: str
) -> None:
    """C3: a `withdrawn:`/`disputed:` block deleted by hand is noticed from the history log
    (the record, and the head the same write set), and the breakdown says what was removed."""
    ledger = tmp_path / "citeledger.yaml"
    (tmp_path / "a.txt").write_text(f"Report A.\n\n{QUOTE}\n", encoding="utf-8")
    ledger.write_text(
        f"sources:\n  a:\n    file: a.txt\n    quotes:\n      - text: {QUOTE}\n", encoding="utf-8"
    )
    assert main(["verify", "--ledger", str(ledger), "--yes"]) == 0
    assert _state(ledger, "a")[0] is State.CHECKED
    before = ledger.read_text("utf-8")
    argv = [command, "a", "--reason", "It says 90 days.", "--ledger", str(ledger)]
    assert main([*argv, "--source-says", "within 90 days"]) == 0
    expected = State.WITHDRAWN if command == "withdraw" else State.DISPUTED
    assert _state(ledger, "a")[0] is expected
    text = ledger.read_text("utf-8")
    record = "withdrawn" if command == "withdraw" else "disputed"
    kept = re.sub(rf"\n    {record}:\n(?:      [^\n]*\n)+", "\n", text)
    assert kept != text and f"{record}:" not in kept
    ledger.write_text(kept, "utf-8")
    state, reasons = _state(ledger, "a")
    assert state is expected and "no longer holds" in reasons and "90 days" in reasons, reasons
    # the whole ledger as it was before, and the log's record line cut: the head is gone
    ledger.write_text(
        before.replace(
            re.findall(r"history_head: \w+", before)[0], re.findall(r"history_head: \w+", text)[0]
        ),
        "utf-8",
    )
    log = tmp_path / ".citeledger" / "history.jsonl"
    log.write_text("".join(log.read_text("utf-8").splitlines(keepends=True)[:-1]), "utf-8")
    assert _state(ledger, "a")[0] is not State.CHECKED


def _recorded(tmp_path: Path, command: str, sources: str) -> Path:
    """A file ledger verified, then `command` (withdraw/dispute) run on its source @a."""
    ledger = tmp_path / "citeledger.yaml"
    (tmp_path / "a.txt").write_text(f"Report A.\n\n{QUOTE} Late appeals are refused.\n", "utf-8")
    ledger.write_text(f"sources:\n{sources}", encoding="utf-8")
    assert main(["verify", "--ledger", str(ledger), "--yes"]) == 0
    argv = [command, "a", "--reason", "It says 90 days.", "--ledger", str(ledger)]
    assert main([*argv, "--source-says", "within 90 days"]) == 0
    return ledger


@pytest.mark.parametrize("command", ["withdraw", "dispute"])
@pytest.mark.parametrize("edit", ["key renamed", "path respelled", "both"])
def test_a_record_is_not_shed_by_renaming_the_key_or_respelling_the_identifier(
    tmp_path: Path, command: str, edit: str
) -> None:
    """Review s20 F3: the record's block deleted, the key renamed (`a` → `a2`) or the path
    respelled (`./a.txt`), and the source verified again: the logged record still decides."""
    one = f"  a:\n    file: a.txt\n    quotes:\n      - text: {QUOTE}\n"
    ledger = _recorded(tmp_path, command, one)
    record = "withdrawn" if command == "withdraw" else "disputed"
    text = re.sub(rf"\n    {record}:\n(?:      [^\n]*\n)+", "\n", ledger.read_text("utf-8"))
    key = "a2" if edit != "path respelled" else "a"
    if edit != "path respelled":
        text = text.replace("\n  a:\n", "\n  a2:\n", 1)
    if edit != "key renamed":
        text = text.replace("file: a.txt", "file: ./a.txt", 1)
    ledger.write_text(text, "utf-8")
    assert main(["verify", "--ledger", str(ledger), "--yes"]) == 0
    expected = State.WITHDRAWN if command == "withdraw" else State.DISPUTED
    state, reasons = _state(ledger, key)
    assert state is expected and "no longer holds" in reasons and "90 days" in reasons, reasons


def test_one_sources_record_is_not_anothers_claim_on_the_same_work(tmp_path: Path) -> None:
    """Two sources may cite one work for different words: withdrawing one leaves the other
    checked while the ledger holds the record; a source citing the withdrawn words is not."""
    other = "Late appeals are refused."
    sources = (
        f"  a:\n    file: a.txt\n    quotes:\n      - text: {QUOTE}\n"
        f"  b:\n    file: ./a.txt\n    quotes:\n      - text: {other}\n"
    )
    ledger = _recorded(tmp_path, "withdraw", sources)
    assert _state(ledger, "a")[0] is State.WITHDRAWN
    assert _state(ledger, "b")[0] is State.CHECKED
    # the withdrawn claim moved to another key, its record left on a key no document cites
    text = ledger.read_text("utf-8")
    ledger.write_text(text + f"  c:\n    file: a.txt\n    quotes:\n      - text: {QUOTE}\n")
    assert main(["verify", "--ledger", str(ledger), "--yes"]) == 0
    state, reasons = _state(ledger, "c")
    assert state is State.WITHDRAWN and "same quoted words" in reasons, (state, reasons)
    assert _state(ledger, "b")[0] is State.CHECKED


def test_concurrent_appends_keep_the_log_chained(tmp_path: Path) -> None:
    """A `withdraw` while a verify writes its receipts: both append to the log, and each line
    must chain to the one before it, or every build would call the log edited."""
    import threading

    from citeledger.evidence.store import EvidenceReader, history_record
    from citeledger.model import Withdrawal

    def append(key: str) -> None:
        for i in range(60):
            history_record(
                tmp_path, key, "file:a.txt", "withdrawn", Withdrawal("2026-12-02", str(i))
            )

    threads = [threading.Thread(target=append, args=(k,)) for k in ("a", "b", "c")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    chain = EvidenceReader(tmp_path).history()
    assert len(chain.entries) == 180 and chain.broken_at is None
