"""What a batch writes besides the ledger: one history append, one rewrite of the pending notes.

The batch forms must leave exactly what the one-source-at-a-time forms left: the same chained
history (the judgement reads it to notice deleted receipts) and the same pending notes (the
next run's clean-up reads them), so a batched run is never judged differently.
"""

from __future__ import annotations

from pathlib import Path

from citeledger.evidence import leftovers
from citeledger.evidence.store import EvidenceReader, history_batch, history_entries
from citeledger.ledger import load_ledger
from citeledger.model import Receipt


def receipt(n: int) -> Receipt:
    return Receipt(
        outcome="found",
        identifier=f"url:https://example.org/{n}",
        retrieved_at="2026-12-02T01:00:00Z",
        tool="citeledger 0.1.0",
        writer_quote_sha256=f"{n:064x}",
    )


ITEMS = [("a", [receipt(1), receipt(2)]), ("b", []), ("c", [receipt(3)])]


def test_one_history_append_per_batch_chains_as_one_per_source(tmp_path: Path) -> None:
    one, many = tmp_path / "one", tmp_path / "many"
    (one / "history.jsonl").parent.mkdir()
    (one / "history.jsonl").write_text('{"torn line of a killed run', "utf-8")
    many.mkdir()
    (many / "history.jsonl").write_text('{"torn line of a killed run', "utf-8")
    singly = [history_entries(one, key, receipts) for key, receipts in ITEMS]
    batched = history_batch(many, ITEMS)
    assert batched == singly and [len(d) for d in batched] == [2, 0, 1]
    assert (many / "history.jsonl").read_bytes() == (one / "history.jsonl").read_bytes()
    chain = EvidenceReader(many).history()
    assert chain.broken_at is None and [e.key for e in chain.entries] == ["a", "a", "c"]
    assert chain.entries[-1].digest == batched[2][-1]  # what the ledger's history_head names


def test_a_batch_settles_exactly_its_own_pending_notes(tmp_path: Path) -> None:
    ledger = str(tmp_path / "citeledger.yaml")
    digests = [leftovers.note(tmp_path, ledger, f"body {n}".encode()) for n in range(4)]
    leftovers.forget_all(tmp_path, digests[1:3])
    kept = (tmp_path / leftovers.PENDING).read_text("utf-8")
    assert digests[0] in kept and digests[3] in kept
    assert digests[1] not in kept and digests[2] not in kept
    leftovers.forget_all(tmp_path, [digests[0], digests[3]])
    assert not (tmp_path / leftovers.PENDING).exists()  # nothing pending: no file


def test_the_clean_up_moves_its_own_ledgers_leftovers_and_keeps_another_ledgers_notes(
    tmp_path: Path,
) -> None:
    """After a killed run: the run's ledger's unnamed evidence moves to the quarantine, with
    one rewrite of the notes; another ledger's notes stay, files too (its own run cleans up)."""
    store = tmp_path / ".citeledger"
    store.mkdir()
    good = tmp_path / "citeledger.yaml"
    good.write_text("sources: {}\n")
    other = tmp_path / "other.yaml"
    other.write_text("sources: {}\n")
    files = []
    for n, led in enumerate([good, good, good, other]):
        digest = leftovers.note(store, str(led), f"body {n}".encode())
        path = store / digest[:2] / f"{digest}.warc.gz"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(b"x")
        files.append(path)
    moved = leftovers.clean_leftovers(store, load_ledger(good))
    assert sorted(moved) == sorted(files[:3])
    assert not any(p.exists() for p in files[:3]) and files[3].exists()
    kept = sorted(p.name for p in (store / leftovers.QUARANTINE).iterdir())
    assert kept == sorted(p.name for p in files[:3])
    pending = (store / leftovers.PENDING).read_text("utf-8")
    assert str(other.resolve()) in pending and str(good.resolve()) not in pending
