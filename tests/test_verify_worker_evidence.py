"""The evidence file written by the extraction worker (not verify's own process): whole, named
by its body's digest, its bytes the digest the receipt holds, and fsynced (its data and its
folder, by the batch) before the receipts that name it.

verify over a loopback HTTP server (real CLI) and the capture step with a real worker pool.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import pytest

import netserver as ns
from citeledger.cli import main
from citeledger.evidence import store as store_mod
from citeledger.evidence.store import EvidenceReader, EvidenceStore
from citeledger.judge import Judge
from citeledger.ledger import load_ledger
from citeledger.model import CitationRef, Identifier, Quote, Retrieval, Source, State
from citeledger.verify.bounded import Limits, WorkerPool
from citeledger.verify.receipts import capture

pytestmark = pytest.mark.usefixtures("loopback_only")

TEXT = "Page one. The passage that is quoted stands here. " + " ".join(
    f"filler{i}" for i in range(400)
)
QUOTE = "The passage that is quoted stands here."


def test_url_sources_verified_by_the_worker_are_checked_from_their_own_evidence(
    tmp_path: Path, netserver: ns.NetServer
) -> None:
    lines = ["sources:"]
    for i in range(6):
        netserver.static(f"/p{i}.txt", f"{TEXT} {i}".encode(), content_type="text/plain")
        lines += [f"  s{i}:", f"    url: {netserver.url(f'/p{i}.txt')}", "    quotes:"]
        lines += [f"      - text: {QUOTE}"]
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text("\n".join(lines) + "\n", "utf-8")
    assert main(["verify", "--ledger", str(ledger), "--yes", "--allow-private"]) == 0
    led = load_ledger(ledger)
    judge = Judge(led)
    for key, source in led.sources.items():
        assert judge.judge(CitationRef(key)).state is State.CHECKED
        receipt = source.quotes[0].latest
        assert receipt is not None and receipt.evidence is not None
        data = (Path(led.evidence_dir) / receipt.evidence).read_bytes()
        assert hashlib.sha256(data).hexdigest() == receipt.evidence_sha256
        assert receipt.evidence.endswith(f"{receipt.body_sha256}.warc.gz")


def _retrieval(url: str, body: bytes) -> Retrieval:
    return Retrieval(
        identifier=Identifier("url", url),
        requested_url=url,
        url=url,
        status=200,
        content_type="text/plain; charset=utf-8",
        body=body,
        retrieved_at="2026-12-02T04:00:00Z",
    )


def test_a_worker_written_file_is_fsynced_with_its_folder_by_the_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[Path] = []
    monkeypatch.setattr(store_mod, "fsync_dir", lambda folder: synced.append(Path(folder)))
    data_synced: list[Path] = []
    monkeypatch.setattr(store_mod, "fsync_file", lambda path: data_synced.append(Path(path)))

    def parent_writes(*args: object, **kwargs: object) -> None:
        raise AssertionError("the parent wrote the evidence: the worker did not")

    # the parent's own writes (the fallback) would pass every check below: refuse them
    monkeypatch.setattr(EvidenceStore, "put_held", parent_writes)
    monkeypatch.setattr(EvidenceStore, "put", parent_writes)
    store = EvidenceStore(tmp_path / "ev", batched_sync=True)
    source = Source(
        key="s", identifier=Identifier("url", "http://127.0.0.1/p"), quotes=(Quote(QUOTE),)
    )
    with WorkerPool(Limits(), size=1) as pool:
        cap = capture(_retrieval("http://127.0.0.1/p", TEXT.encode()), store, [source], None, pool)
    written = store.root / cap.stored.evidence
    assert written.is_file()
    # not yet: the batch's sync_written does it, before any receipt (the worker fsyncs nothing)
    assert synced == [] and data_synced == [] and not store.synced
    store.sync_written()
    assert set(synced) == {written.parent, store.root}
    assert data_synced == [written]
    loaded = EvidenceReader(store.root).load(cap.stored.evidence)
    assert loaded.ok and loaded.text is not None and QUOTE in loaded.text
    assert loaded.file_sha256 == cap.stored.file_sha256


def test_one_body_captured_twice_at_once_gives_a_capture_and_a_revisit(tmp_path: Path) -> None:
    """Two sources with one body, in two threads and two workers: one writes the capture,
    the other waits for it and writes a revisit (never two captures, one renamed over the
    other)."""
    store = EvidenceStore(tmp_path / "ev", batched_sync=True)
    caps = {}
    with WorkerPool(Limits(), size=2) as pool:

        def one(name: str) -> None:
            url = f"http://127.0.0.1/{name}"
            src = Source(key=name, identifier=Identifier("url", url), quotes=(Quote(QUOTE),))
            caps[name] = capture(_retrieval(url, TEXT.encode()), store, [src], None, pool)

        threads = [threading.Thread(target=one, args=(n,)) for n in ("a", "b")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    names = sorted(Path(c.stored.evidence).name for c in caps.values())
    assert len(set(names)) == 2 and sum("~" in n for n in names) == 1
    reader = EvidenceReader(store.root)
    for c in caps.values():
        loaded = reader.load(c.stored.evidence)
        assert loaded.ok and loaded.target_uri == c.retrieval.url


def test_an_evidence_write_the_worker_cannot_make_is_one_line_naming_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The worker's write fails (a file stands where the digest's folder goes): verify writes
    it itself and stops with its one-line error, never a receipt blaming the source."""
    monkeypatch.chdir(tmp_path)
    body = TEXT.encode()
    (tmp_path / "page.txt").write_bytes(body)
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text(f"sources:\n  s:\n    file: page.txt\n    quotes:\n      - text: {QUOTE}\n")
    before = ledger.read_bytes()
    digest = hashlib.sha256(body).hexdigest()
    (tmp_path / ".citeledger").mkdir()
    (tmp_path / ".citeledger" / digest[:2]).write_text("not a folder")
    assert main(["verify", "--yes"]) == 2
    err = capsys.readouterr().err
    lines = [line for line in err.strip().splitlines() if line.startswith("citeledger: error")]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert f".citeledger/{digest[:2]}" in lines[0]
    assert ledger.read_bytes() == before  # no receipt says the source could not be extracted


def test_the_worker_notes_the_body_before_it_writes_its_evidence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The leftovers note is taken in the worker, before its write: a run killed after the
    write has the file noted, and verify's own process spends nothing on the note."""
    import json

    from citeledger.evidence import leftovers

    def parent_notes(*args: object) -> str:
        raise AssertionError("the parent took the note: the worker did not")

    monkeypatch.setattr(leftovers, "note", parent_notes)
    store = EvidenceStore(tmp_path / "ev", batched_sync=True)
    ledger = str(tmp_path / "citeledger.yaml")
    source = Source(
        key="s", identifier=Identifier("url", "http://127.0.0.1/p"), quotes=(Quote(QUOTE),)
    )
    with WorkerPool(Limits(), size=1) as pool:
        retrieval = _retrieval("http://127.0.0.1/p", TEXT.encode())
        cap = capture(retrieval, store, [source], None, pool, noted_for=ledger)
    (entry,) = [
        json.loads(line) for line in (store.root / leftovers.PENDING).open() if line.strip()
    ]
    assert (
        entry["body_sha256"] == cap.stored.body_sha256 == hashlib.sha256(TEXT.encode()).hexdigest()
    )
    assert entry["ledger"] == ledger
    assert entry["since"] <= (store.root / cap.stored.evidence).stat().st_mtime


def test_a_file_planted_at_the_bodys_digest_name_never_makes_an_honest_verify_tampered(
    tmp_path: Path, netserver: ns.NetServer
) -> None:
    """The digest of a public page's body is known to anyone: a file committed at
    ``<sha[:2]>/<sha>.warc.gz`` holding other bytes once made verify write a revisit of it, and
    the honest citation was judged tampered — for good, since re-verifying wrote another
    revisit. A revisit now only refers to a first capture that holds the body; the planted file
    is left where it is."""
    import io

    from warcio.warcwriter import WARCWriter

    body = TEXT.encode()
    netserver.static("/p.txt", body, content_type="text/plain")
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text(
        f"sources:\n  s0:\n    url: {netserver.url('/p.txt')}\n    quotes:\n"
        f"      - text: {QUOTE}\n",
        "utf-8",
    )
    sha = hashlib.sha256(body).hexdigest()
    planted = tmp_path / ".citeledger" / sha[:2] / f"{sha}.warc.gz"
    planted.parent.mkdir(parents=True)
    buf = io.BytesIO()
    w = WARCWriter(buf, gzip=True)
    w.write_record(
        w.create_warc_record("http://x/", "resource", payload=io.BytesIO(b"other"), length=5)
    )
    planted.write_bytes(buf.getvalue())
    for verb in ("verify", "recheck"):
        assert main([verb, "--ledger", str(ledger), "--yes", "--allow-private"]) == 0
        led = load_ledger(ledger)
        assert Judge(led).judge(CitationRef("s0")).state is State.CHECKED, verb
    assert planted.read_bytes() == buf.getvalue()
