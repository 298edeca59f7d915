"""The evidence store: what was retrieved, kept so a build months later can re-validate it offline.

Each retrieval becomes one WARC file (ISO 28500, the web-archiving field's format; written by
``warc_write``, read by warcio) under the store, named by the sha256 of the body it captured:

    <store>/<d[:2]>/<d>.warc.gz                first capture of body digest d:
        warcinfo · request · response (or resource, for files) · conversion · metadata
    <store>/<d[:2]>/<d>~<stamp>.warc.gz        a later retrieval of the same body:
        warcinfo · request · revisit (identical-payload-digest) · conversion · metadata

The ``conversion`` record holds the extracted text the locator searched, and the ``metadata``
record says which extractor produced it and where pages start, so judging needs no extractor.
What we reconstruct rather than capture is said in the record: the stored HTTP payload is the
*decoded* entity body (Content-Encoding removed), and a ``file:`` source has no HTTP exchange at
all, so it is a ``resource`` record.

Reading is the build's hot path: ``EvidenceReader`` reads and hashes each file at most once per
process. This module never touches the network.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import gzip
import hashlib
import io
import json
import os
import secrets
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from citeledger import __version__
from citeledger.atomic import fsync_dir, fsync_file
from citeledger.confine import RealPaths, below
from citeledger.evidence import warc_write
from citeledger.evidence.store_writes import open_in_store, write_in_store
from citeledger.inputs import NotAFile, read_regular
from citeledger.ledger.identifiers import canonical
from citeledger.model import Extracted, Retrieval, page_starts_of

REGISTRY_TYPE = "application/vnd.citationstyles.csl+json"
_DROPPED_HEADERS = {"content-encoding", "transfer-encoding", "content-length"}


def sha256_hex(data: bytes | str) -> str:
    """The digest convention of receipts and evidence: sha256, hex; text as its UTF-8 bytes."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class StoredEvidence:
    """Where one retrieval's evidence went, for the receipt."""

    evidence: str  # path relative to the store
    body_sha256: str
    text_sha256: str | None
    file_sha256: str | None = None  # of the whole file, for the receipt a signature covers
    # (char_start, char_end) of a span → (WARC-Record-ID, sha256) of its snapshot record
    snapshots: dict[tuple[int, int], tuple[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class StoredSnapshot:
    """A snapshot record as read back: its digest recomputed, and what it says it renders."""

    record_id: str
    sha256: str
    renders: str | None  # the WARC-Concurrent-To: the capture record it is an image of
    content_type: str | None
    pages: str | None
    png: bytes = field(repr=False)


@dataclass
class LoadedEvidence:
    """One evidence file as read back: recomputed digests, text, and any problem found."""

    path: str
    body_sha256: str | None = None  # recomputed from the stored payload
    declared_body_sha256: str | None = None  # what the file's own name/headers claim
    text: str | None = None
    text_sha256: str | None = None  # recomputed
    extractor: str | None = None
    kind: str | None = None  # html, pdf or text: what the extractor took the body for
    page_starts: tuple[int, ...] = ()
    title: str | None = None
    last_revised: str | None = None
    target_uri: str | None = None
    warc_date: str | None = None
    identifier: str | None = None  # what was asked for, as the warcinfo record says
    requested_uri: str | None = None  # None: an older file that did not record it
    redirects: tuple[str, ...] | None = None
    status: int | None = None
    content_type: str | None = None
    registry: dict[str, Any] | None = None  # the registry's answer (CSL-JSON), when recorded
    file_sha256: str | None = None  # of the whole file: what a signature covers
    text_extractor: str | None = None  # what the conversion record says made the text
    text_body_sha256: str | None = None  # the body the conversion record says it was made from
    body: bytes | None = field(default=None, repr=False)  # kept only until the text is confirmed
    text_confirmed: str | None = None  # how the text was tied to the body, once it is
    snapshots: dict[str, StoredSnapshot] = field(default_factory=dict)  # by WARC-Record-ID
    problems: list[str] = field(default_factory=list)
    # every file read for this evidence (store path → sha256 of its bytes): what a remembered
    # judgement of it must find unchanged (``evidence.judgements``)
    files: dict[str, str] = field(default_factory=dict)
    # the DOIs the captured body's own metadata names, read while the body is held
    # (``other_work``: is a local copy another work?)
    metadata_identifiers: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems


def utc_now() -> str:
    """Now, as every stored time is written: UTC, whole seconds, ``Z``."""
    return (
        _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    )


class EvidenceStore:
    """Writes evidence files atomically; called only by ``verify``/``recheck``.

    With ``batched_sync`` a file is renamed into place without its fsyncs: ``sync_written``
    fsyncs every file written since its last call, and their folders, side by side, and the
    caller runs it before it writes any receipt naming them (a receipt never names evidence
    that is not durable). One batch's fsyncs let the disk commit them together, where one
    fsync per file in the worker that wrote it made every capture wait for its own commit
    (0.25-2.5 ms each on a shared disk, the workers' largest cost). A power cut before the
    batch's sync can leave such a file short; no receipt names it (and the next run removes
    it as a leftover when its note survived, ``evidence.leftovers``).
    """

    def __init__(self, root: str | os.PathLike[str], *, batched_sync: bool = False) -> None:
        self.root = Path(root)
        self._batched = batched_sync
        self._unsynced: set[Path] = set()  # folders whose renames are not durable yet
        self._unsynced_files: set[Path] = set()  # files whose data is not durable yet
        self._guard = threading.Lock()  # put runs in several threads at once
        self._writing: dict[str, threading.Lock] = {}  # one put at a time per body digest

    def sync_written(self) -> None:
        """Make every file written since the last call durable, with its rename (its folder)."""
        with self._guard:
            folders, self._unsynced = self._unsynced, set()
            files, self._unsynced_files = self._unsynced_files, set()
        leaves = [f for f in folders if f != self.root]
        # Up to a batch's files and 256 digest folders: fsynced side by side (the disk commits
        # them together), then the root, which holds any new folder.
        from concurrent.futures import ThreadPoolExecutor  # a write's: no build pays its import

        with ThreadPoolExecutor(min(8, len(files) + len(leaves) or 1)) as threads:
            list(threads.map(fsync_file, files))  # a failure is the run's error, as a write's
            list(threads.map(fsync_dir, leaves))
        if self.root in folders:
            fsync_dir(self.root)

    def put(
        self, retrieval: Retrieval, extracted: Extracted | None, snapshots: Sequence[Any] = ()
    ) -> StoredEvidence:
        body_sha = sha256_hex(retrieval.body)
        with self.holding(body_sha):
            return self.put_held(retrieval, extracted, snapshots, body_sha)

    def put_held(
        self,
        retrieval: Retrieval,
        extracted: Extracted | None,
        snapshots: Sequence[Any],
        body_sha: str,
    ) -> StoredEvidence:
        """``put`` for a caller already ``holding`` the body's digest."""
        stored = write_evidence(
            self.root, retrieval, extracted, snapshots, body_sha, synced=self.synced
        )
        self.adopt(stored)
        return stored

    @property
    def synced(self) -> bool:
        """Whether each write fsyncs its file and folder itself (else ``sync_written`` does)."""
        return not self._batched

    @contextlib.contextmanager
    def holding(self, body_sha: str) -> Iterator[None]:
        """One write at a time per body digest, in this process or in a worker it waits for.

        Two sources with the same body in one batch: without this both saw no first capture,
        both wrote it, and the later rename left the other's receipt naming a record made for
        another address (judged tampered). The second now waits and writes a revisit.
        """
        with self._guard:
            lock = self._writing.setdefault(body_sha, threading.Lock())
        with lock:
            yield

    def adopt(self, stored: StoredEvidence) -> None:
        """A file written under this store (here or by a worker, ``write_evidence``): it and its
        folder are fsynced by the next ``sync_written``."""
        if self._batched:
            target = self.root / stored.evidence
            with self._guard:
                self._unsynced.update((target.parent, self.root))
                self._unsynced_files.add(target)


def write_evidence(
    root: Path,
    retrieval: Retrieval,
    extracted: Extracted | None,
    snapshots: Sequence[Any],
    body_sha: str,
    *,
    synced: bool,
) -> StoredEvidence:
    """Serialise one retrieval's WARC file and write it atomically (with ``synced``, its data
    and its rename fsynced here).

    Pure of process state, so a verify worker runs it beside extraction, off the event loop's
    process (the caller holds ``EvidenceStore.holding`` for the digest meanwhile). Without
    ``synced`` both are made durable by the store's ``sync_written``, before any receipt.
    """
    first = _first_path(root, body_sha)
    taken = first.exists() or first.is_symlink()  # (its folder, when new, is made later)
    # A revisit only of a first capture that holds this body: a file committed at the
    # digest's name with other bytes once made an honest verify judge "tampered" for good.
    revisit = taken and _holds_body(root, first, body_sha)
    if taken:
        stamp = retrieval.retrieved_at.replace(":", "").replace("-", "")
        target = first.with_name(f"{body_sha}~{stamp}-{secrets.token_hex(3)}.warc.gz")
    else:
        target = first
    parts: list[bytes] = []
    main_id = _write_records(parts, retrieval, extracted, body_sha, revisit, target.name, first)
    shots = _write_snapshots(parts, retrieval, main_id, snapshots) if extracted else {}
    data = b"".join(parts)
    write_in_store(root, target.relative_to(root).as_posix(), data, durable=synced)
    return StoredEvidence(
        evidence=target.relative_to(root).as_posix(),
        body_sha256=body_sha,
        text_sha256=sha256_hex(extracted.text) if extracted is not None else None,
        file_sha256=sha256_hex(data),
        snapshots=shots,
    )


def _first_path(root: Path, digest: str) -> Path:
    return root / digest[:2] / f"{digest}.warc.gz"


def _holds_body(root: Path, first: Path, body_sha: str) -> bool:
    """Whether the store's file ``first``, read through the gate, captures a body of digest
    ``body_sha`` (else a new capture is written beside it; the file is left as it is)."""
    try:
        body = captured_body(read_store_file(root, first.relative_to(root).as_posix()))
    except Exception:  # unreadable, or no WARC (warcio raises kinds of its own): not it
        return False
    return body is not None and sha256_hex(body) == body_sha


def captured_body(data: bytes) -> bytes | None:
    """The body of a WARC file's capture (its response or resource record), or None: how a
    revisit's first capture is read, by the writer checking it and the reader judging it."""
    from warcio.archiveiterator import ArchiveIterator

    for record in ArchiveIterator(io.BytesIO(data), check_digests=False):
        if record.rec_type in ("response", "resource"):
            body: bytes = record.raw_stream.read()
            return body
    return None


def _write_records(
    parts: list[bytes],
    r: Retrieval,
    extracted: Extracted | None,
    body_sha: str,
    revisit: bool,
    filename: str,
    first: Path,
) -> str:
    """Append the retrieval's records (``warc_write``); the WARC-Record-ID of its capture."""
    date = r.retrieved_at
    # A local file is recorded under the name the ledger gives it, not the machine's path.
    uri = r.recorded_uri
    info = [
        ("software", f"citeledger/{__version__}"),
        ("format", "WARC File Format 1.1"),
        ("citeledger-identifier", str(r.identifier)),
        (
            "citeledger-note",
            f"the writer's local copy of {r.identifier} ({r.local_copy}): no HTTP exchange "
            "happened; recorded as a resource"
            if r.local_copy is not None
            else "file source: no HTTP exchange happened; recorded as a resource"
            if r.reconstructed
            else "payload is the decoded entity body; Content-Encoding removed by citeledger",
        ),
    ]
    parts.append(warc_write.warcinfo(filename, info))
    dated = [("WARC-Date", date)]
    common = [
        *dated,
        ("WARC-Citeledger-Body-SHA256", body_sha),
        # The facts a reader is shown, recorded where the judgement reads them back.
        ("WARC-Citeledger-Requested-URI", r.recorded_uri if r.reconstructed else r.requested_url),
        ("WARC-Citeledger-Redirects", json.dumps(list(r.redirects))),
        ("WARC-Citeledger-Status", str(r.status)),
        ("WARC-Citeledger-Content-Type", r.content_type or ""),
    ]
    if r.reconstructed:
        rec, main_id = warc_write.record(
            "resource", uri, common, r.content_type or "application/octet-stream", r.body
        )
    else:
        target = f"{_request_target(r.url)} {r.protocol}"
        req_head = warc_write.http_block(target, "GET", r.request_headers)
        req, _ = warc_write.record(
            "request", r.url, dated, "application/http; msgtype=request", http=req_head
        )
        parts.append(req)
        headers = [(k, v) for k, v in r.response_headers if k.lower() not in _DROPPED_HEADERS]
        headers.append(("Content-Length", str(len(r.body))))
        head = warc_write.http_block(f"{r.status} {_reason(r.status)}", r.protocol, headers)
        if revisit:
            refers = [*common, ("WARC-Citeledger-Refers-To-File", first.name)]
            rec, main_id = warc_write.revisit(r.url, refers, f"sha256:{body_sha}", date, head)
        else:
            rec, main_id = warc_write.record(
                "response", r.url, common, "application/http; msgtype=response", r.body, head
            )
    parts.append(rec)
    refers_to = [*dated, ("WARC-Refers-To", main_id)]
    if r.metadata:
        # The registry's own answer, so the judgement derives a retraction or a different
        # work from what the registry said, not from a receipt line that can be deleted.
        answer = json.dumps(dict(r.metadata), ensure_ascii=False, sort_keys=True).encode()
        parts.append(
            warc_write.record("metadata", str(r.identifier), refers_to, REGISTRY_TYPE, answer)[0]
        )
    if extracted is None:
        return main_id
    text = extracted.text.encode("utf-8")
    made_by = f"{extracted.extractor} {extracted.extractor_version}"
    derived = [
        *refers_to,
        # What the text is derived from and by what: the judgement re-derives it.
        ("WARC-Citeledger-Body-SHA256", body_sha),
        ("WARC-Citeledger-Extractor", made_by),
    ]
    parts.append(
        warc_write.record("conversion", uri, derived, "text/plain; charset=utf-8", text)[0]
    )
    meta = _text_metadata(extracted)
    parts.append(warc_write.record("metadata", uri, refers_to, "application/json", meta)[0])
    return main_id


def _text_metadata(extracted: Extracted) -> bytes:
    """The ``metadata`` record of the text: its extractor, kind, page map, title and digest."""
    return json.dumps(
        {
            "extractor": f"{extracted.extractor} {extracted.extractor_version}",
            "kind": extracted.kind,
            "page_starts": list(extracted.page_starts),
            "title": extracted.title,
            "last_revised": extracted.last_revised,
            "text_sha256": sha256_hex(extracted.text),
        },
        ensure_ascii=False,
    ).encode("utf-8")


SNAPSHOT_OF = "WARC-Citeledger-Snapshot-Of"


def _write_snapshots(
    parts: list[bytes], r: Retrieval, main_id: str, snapshots: Sequence[Any]
) -> dict[tuple[int, int], tuple[str, str]]:
    """Each snapshot as a ``resource`` record bound to the capture it renders (seed 000: the
    snapshot is evidence of *this* retrieval, so it names the record and shares its date)."""
    uri = r.recorded_uri
    made: dict[tuple[int, int], tuple[str, str]] = {}
    for shot in snapshots:
        digest = sha256_hex(shot.png)
        fields = [
            ("WARC-Date", r.retrieved_at),
            ("WARC-Concurrent-To", main_id),
            ("WARC-Refers-To", main_id),
            ("WARC-Refers-To-Target-URI", uri),
            (SNAPSHOT_OF, f"{shot.char_start}-{shot.char_end}"),
            ("WARC-Citeledger-Renderer", shot.renderer),
            ("WARC-Citeledger-Pages", ",".join(str(p) for p in shot.pages)),
        ]
        rec, rec_id = warc_write.record(
            "resource", f"urn:citeledger:snapshot:{digest}", fields, "image/png", shot.png
        )
        parts.append(rec)
        made[(shot.char_start, shot.char_end)] = (rec_id, digest)
    return made


class StoreFileError(OSError):
    """A file of the evidence store that is not read; ``reason`` says why, in words that
    follow its name ("… is a named pipe (FIFO), not a file")."""

    def __init__(self, rel: str, reason: str, *, missing: bool = False) -> None:
        super().__init__(f"{rel} {reason}")
        self.rel, self.reason, self.missing = rel, reason, missing


class StoreFiles:
    """The ONE gate every read of a file in an evidence store goes through: evidence files,
    the history log, the judgement index, verify's pending notes.

    The store is the writer's folder, often committed, so any of its files may be a symbolic
    link git recreated: to ``/dev/zero`` (a read that never ends), out of the store, or a FIFO
    (a read that waits forever). A file is read only when its real path is inside the store and
    it is a regular file (``inputs.read_regular``); each folder is resolved once per instance.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self._real = RealPaths()  # each folder resolved once per build

    @cached_property
    def real_root(self) -> str:
        return os.path.realpath(self.root)

    def resolve(self, rel: str) -> Path | None:
        """The real path of ``rel``, or None when it leaves the store."""
        real = self._real(os.path.join(self.root, rel))
        return Path(real) if below(real, self.real_root) else None

    def read(self, rel: str) -> bytes:
        """The bytes of the store's file ``rel``; ``StoreFileError`` says why not."""
        path = self.resolve(rel)
        if path is None:
            raise StoreFileError(rel, "leaves the evidence store")
        try:
            return read_regular(path)
        except NotAFile as e:
            raise StoreFileError(rel, f"is {e.kind}, not a file") from None
        except (FileNotFoundError, NotADirectoryError):
            raise StoreFileError(rel, self._missing(rel), missing=True) from None
        except OSError as e:
            raise StoreFileError(rel, f"is unreadable ({e.strerror or e})") from None

    def _missing(self, rel: str) -> str:
        """Why a file is not there, in words; naming the quarantine when a verify moved a file
        of that name there as a killed run's leftover (``evidence.leftovers``): one move back."""
        aside = self.root / QUARANTINE / os.path.basename(rel)
        if os.path.isfile(aside) and not os.path.islink(aside):
            return (
                f"is missing from the evidence store (a verify moved a file of that name to "
                f"{QUARANTINE}/ as a killed run's leftover: move it back if it is this one)"
            )
        return "is missing from the evidence store"


def read_store_file(root: str | os.PathLike[str], rel: str) -> bytes:
    """One file of the store at ``root`` through the gate (``StoreFiles.read``)."""
    return StoreFiles(root).read(rel)


HISTORY = "history.jsonl"
QUARANTINE = "leftovers"  # where verify moves a killed run's leftovers (evidence.leftovers)
HISTORY_LOCK = "history.lock"


def history_entries(root: str | os.PathLike[str], key: str, receipts: list[Any]) -> list[str]:
    """Append, chained, one log line per receipt verify/recheck is about to write; the digest
    of each line, for its receipt (``Receipt.history``) and the ledger's ``history_head``.

    The ledger is the writer's file and can be edited by hand; this log lets the judgement
    notice when a later receipt — a recheck that found the passage changed or gone — has been
    deleted from the ledger to bring back an earlier "found". Each line carries the digest of
    the line before it, so deleting lines breaks the chain, and the ledger records the newest
    digest it has seen, so deleting the last lines (or the whole log) is noticed too. Written
    before the ledger: a run killed in between leaves log lines no receipt names, which the
    judgement ignores.
    """
    return history_batch(root, [(key, receipts)])[0]


def history_batch(
    root: str | os.PathLike[str],
    items: Sequence[tuple[str, Sequence[Any]]],
    *,
    ledger: str | None = None,
    occurrences: Sequence[Sequence[int]] | None = None,
) -> list[list[str]]:
    """``history_entries`` for a batch of sources in one read, one append and one fsync (a
    2,000-source run would otherwise re-read a growing log once per source).

    ``ledger`` (its path) and ``occurrences`` (per receipt, how many earlier quotes of its
    source have the same words) tell whose check each row is: two quotes with the same words,
    or two ledgers sharing the store, are not one quote's checks (``History.of_quote``)."""
    if not any(receipts for _, receipts in items):
        return [[] for _ in items]
    tag = {} if ledger is None else {"ledger": ledger_tag(root, ledger)}
    rows = [
        [
            {
                "key": key,
                "identifier": r.identifier,
                "quote_sha256": r.writer_quote_sha256,
                "retrieved_at": r.retrieved_at,
                "outcome": r.outcome,
                **tag,
                **({} if occurrences is None else {"quote": occurrences[n][m]}),
                **_registry_record(r),
            }
            for m, r in enumerate(receipts)
        ]
        for n, (key, receipts) in enumerate(items)
    ]
    return _append_history(root, rows)


def ledger_tag(root: str | os.PathLike[str], ledger: str) -> str:
    """How the log names a ledger: its real path from the store's, so a copied or moved
    project keeps the names."""
    return Path(os.path.relpath(os.path.realpath(ledger), os.path.realpath(root))).as_posix()


def history_record(
    root: str | os.PathLike[str], key: str, identifier: str, record: str, withdrawal: Any
) -> str:
    """Log a ``withdrawn``/``disputed`` record as the tool writes it to the ledger (before the
    ledger, like receipts): deleting it from the ledger is then noticed by the judgement. The
    digest is for the ledger's ``history_head``."""
    row = {
        "key": key,
        "identifier": identifier,
        "quote_sha256": "",  # of no quote: a record is the source's
        "retrieved_at": withdrawal.date,
        "outcome": record,
        "record": {"reason": withdrawal.reason, "source_says": withdrawal.source_says},
    }
    return _append_history(root, [[row]])[0][0]


def _append_history(
    root: str | os.PathLike[str], rows: Sequence[Sequence[dict[str, Any]]]
) -> list[list[str]]:
    """Append ``rows`` to the log, each line chained to the one before it; their digests."""
    from filelock import FileLock

    path = Path(root) / HISTORY
    path.parent.mkdir(parents=True, exist_ok=True)
    # a verify and a `withdraw` may append at once: each chains to the line it read last
    with FileLock(path.parent / HISTORY_LOCK, mode=0o644):
        return _append_chained(root, path, rows)


def _append_chained(
    root: str | os.PathLike[str], path: Path, rows: Sequence[Sequence[dict[str, Any]]]
) -> list[list[str]]:
    try:
        existing = read_store_file(root, HISTORY).decode("utf-8", "replace")
    except StoreFileError as e:
        if not e.missing:  # appending to it would write outside, or wait on a FIFO forever
            raise OSError(errno.EINVAL, f"the history log {e.reason}", str(path)) from None
        existing = ""
    prev: str | None = None
    for earlier in reversed(existing.splitlines()):
        try:
            json.loads(earlier)
        except ValueError:
            continue  # a torn line from a killed run: the chain goes on from the last whole one
        prev = sha256_hex(earlier)
        break
    start = "\n" if existing and not existing.endswith("\n") else ""
    lines: list[str] = []
    digests: list[list[str]] = []
    for group in rows:
        mine = []
        for row in group:
            line = json.dumps({**row, "prev": prev}, ensure_ascii=False, sort_keys=True)
            lines.append(line)
            prev = sha256_hex(line)
            mine.append(prev)
        digests.append(mine)
    try:
        # non-blocking: a FIFO put there since it was read fails (ENXIO) instead of waiting
        fd = open_in_store(root, HISTORY, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        try:
            os.write(fd, (start + "".join(line + "\n" for line in lines)).encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as e:  # a full disk, a read-only store: named, so the error line says where
        raise OSError(e.errno, e.strerror or str(e), str(path)) from None
    return digests


def _registry_record(receipt: Any) -> dict[str, Any]:
    """What the registry answered at this check, logged so that deleting the receipt (or its
    lines) does not forget it: its retraction, and its title (the judgement compares it with
    the ledger's title of the day)."""
    answer = getattr(receipt, "metadata", None)
    if not answer:
        return {}
    title = answer.get("title")
    if isinstance(title, list):
        title = title[0] if title else ""
    return {"registry": {"retracted": receipt.retracted, "title": str(title or "")}}


_RECORDS = ("withdrawn", "disputed")  # the records a source keeps forever (Judge._deleted_record)


@dataclass(frozen=True)
class HistoryEntry:
    digest: str
    key: str
    identifier: str
    quote_sha256: str
    outcome: str
    retrieved_at: str = ""
    registry: tuple[str, str] | None = None  # (retraction or "", title): the registry's answer
    record: tuple[str, str | None] | None = None  # a withdrawal's or dispute's (reason, says)
    ledger: str | None = None  # whose check (``ledger_tag``); None in a log from before
    quote: int | None = None  # which of the source's quotes with these words; None: before


@dataclass(frozen=True)
class History:
    """The store's log as read back: entries in order, and where its chain breaks (if it does)."""

    entries: tuple[HistoryEntry, ...] = ()
    broken_at: int | None = None  # 1-based line whose ``prev`` is not the line before it
    present: bool = False
    refused: str | None = None  # why the log there was not read ("is a character device, …")

    @property
    def lost(self) -> str:
        """What became of log lines the ledger expects and the log does not hold."""
        if self.refused is not None:
            return f"cannot be read (the log {self.refused})"
        return "were deleted" if self.present else "are gone with the whole log"

    def index(self, digest: str | None) -> int | None:
        return self._positions.get(digest) if digest is not None else None

    def entry(self, digest: str | None) -> HistoryEntry | None:
        at = self.index(digest)
        return self.entries[at] if at is not None else None

    def of_quote(
        self,
        key: str,
        identifier: str,
        quote_sha256: str,
        *,
        occurrence: int | None = None,
        foreign: Callable[[str], bool] | None = None,
    ) -> list[HistoryEntry]:
        """The entries logged for one quote of one source, oldest first: without those of
        another ``occurrence`` of the same words in the source, and those whose ledger tag is
        ``foreign`` (another ledger sharing the store). A row from before the tags were logged
        is every quote's. Every spelling of the identifier is the same work
        (``identifiers.canonical``)."""
        group = self._by_quote.get((key, canonical(identifier), quote_sha256), [])
        return [
            e
            for e in group
            if not (occurrence is not None and e.quote is not None and e.quote != occurrence)
            and not (foreign is not None and e.ledger is not None and foreign(e.ledger))
        ]

    def registry_of(self, identifier: str) -> tuple[str | None, str | None]:
        """What the log holds of the registry's answers about this work, under any spelling of
        its identifier: a retraction any of them recorded, and the newest one's title (None: no
        answer logged)."""
        answers = self._answers.get(canonical(identifier), [])
        retracted = next((r for r, _ in answers if r), None)
        return retracted, (answers[-1][1] if answers else None)

    @cached_property
    def _answers(self) -> dict[str, list[tuple[str, str]]]:
        answers: dict[str, list[tuple[str, str]]] = {}
        for e in self.entries:
            if e.registry is not None:
                answers.setdefault(canonical(e.identifier), []).append(e.registry)
        return answers

    def records_of(self, key: str, identifier: str) -> list[HistoryEntry]:
        """The withdrawals and disputes the tool recorded for this source, oldest first: those
        made under its key, and those made for its work under any key or spelling — a record
        is bound to what it is about, so renaming the key or respelling the identifier does
        not shed it."""
        work = canonical(identifier)
        return [e for e in self._records if e.key == key or canonical(e.identifier) == work]

    @cached_property
    def _records(self) -> tuple[HistoryEntry, ...]:
        return tuple(
            e
            for e in self.entries
            if e.record is not None and e.quote_sha256 == "" and e.outcome in _RECORDS
        )

    def logged(self, identifier: str, quote_sha256: str) -> bool:
        """Whether any source's check of these words at this work was logged."""
        return (canonical(identifier), quote_sha256) in self._works

    @cached_property
    def _works(self) -> frozenset[tuple[str, str]]:
        return frozenset((canonical(e.identifier), e.quote_sha256) for e in self.entries)

    @cached_property
    def _positions(self) -> dict[str, int]:
        """Where each digest first stands: a build asks once per citation, so not a scan."""
        positions: dict[str, int] = {}
        for i, e in enumerate(self.entries):
            positions.setdefault(e.digest, i)
        return positions

    @cached_property
    def _by_quote(self) -> dict[tuple[str, str, str], list[HistoryEntry]]:
        groups: dict[tuple[str, str, str], list[HistoryEntry]] = {}
        for e in self.entries:
            groups.setdefault((e.key, canonical(e.identifier), e.quote_sha256), []).append(e)
        return groups


def _logged(value: Any, kind: type[Any]) -> Any:
    return value if type(value) is kind else None


def _logged_answer(value: Any) -> tuple[str, str] | None:
    if not isinstance(value, dict):
        return None
    return str(value.get("retracted") or ""), str(value.get("title") or "")


def _logged_record(value: Any) -> tuple[str, str | None] | None:
    if not isinstance(value, dict):
        return None
    says = value.get("source_says")
    return str(value.get("reason") or ""), None if says is None else str(says)


class EvidenceReader:
    """Reads evidence for judging; each file is read and hashed at most once per instance."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self._cache: dict[str, LoadedEvidence] = {}
        self._digests: dict[str, str | None] = {}
        self._chain: History | None = None
        self.files = StoreFiles(root)
        self._foreign: dict[str, bool] = {}

    def foreign_ledger(self, ledger: str) -> Callable[[str], bool]:
        """Whether a log row's ledger tag names another ledger than ``ledger``: a file that
        stands there now (two ledgers sharing the store), whose checks are not this one's. A
        tag naming no file is this ledger under an old name (renamed, moved): its checks count,
        so renaming the ledger does not hide a later check."""
        mine = ledger_tag(self.root, ledger)

        def foreign(tag: str) -> bool:
            if tag == mine:
                return False
            known = self._foreign.get(tag)
            if known is None:
                known = self._foreign[tag] = os.path.isfile(os.path.join(self.root, tag))
            return known

        return foreign

    def digest(self, rel: str) -> str | None:
        """The sha256 of an evidence file's bytes (None: missing, unreadable, not a regular
        file or outside the store), hashed at most once per reader and without parsing it."""
        if rel not in self._digests:
            loaded = self._cache.get(rel)
            found = loaded.files.get(rel) if loaded is not None else None
            if found is None:
                try:
                    found = sha256_hex(self.files.read(rel))
                except StoreFileError:
                    found = None
            self._digests[rel] = found
        return self._digests[rel]

    def history(self) -> History:
        """The chained log, read once per reader; a torn last line (a killed run) is skipped.
        A byte that is not UTF-8 is an edit: its line no longer chains."""
        if self._chain is None:
            refused: str | None = None
            try:
                lines = self.files.read(HISTORY).decode("utf-8", "replace").splitlines()
                present = True
            except StoreFileError as e:
                lines, present = [], False
                refused = None if e.missing else e.reason
            entries: list[HistoryEntry] = []
            broken: int | None = None
            before: str | None = None
            for n, line in enumerate(lines, 1):
                try:
                    data = json.loads(line)
                    entry = HistoryEntry(
                        sha256_hex(line),
                        str(data["key"]),
                        str(data["identifier"]),
                        str(data["quote_sha256"]),
                        str(data["outcome"]),
                        str(data.get("retrieved_at") or ""),
                        _logged_answer(data.get("registry")),
                        _logged_record(data.get("record")),
                        _logged(data.get("ledger"), str),
                        _logged(data.get("quote"), int),
                    )
                except (ValueError, KeyError, TypeError):
                    continue
                if "prev" in data and data["prev"] != before and broken is None:
                    broken = n
                before = entry.digest
                entries.append(entry)
            self._chain = History(tuple(entries), broken, present, refused)
        return self._chain

    def load(self, rel: str) -> LoadedEvidence:
        cached = self._cache.get(rel)
        if cached is None:
            cached = self._load(rel)
            self._cache[rel] = cached
        return cached

    def _resolve(self, rel: str) -> Path | None:
        return self.files.resolve(rel)

    def _load(self, rel: str) -> LoadedEvidence:
        ev = LoadedEvidence(path=rel)
        try:
            data = self.files.read(rel)
        except StoreFileError as e:
            if self.files.resolve(rel) is None:
                ev.problems.append(f"evidence path {rel!r} {e.reason}")
            else:
                ev.problems.append(f"evidence file {rel} {e.reason}")
            return ev
        path = self.files.resolve(rel)
        assert path is not None  # it was just read through it
        ev.declared_body_sha256 = path.name.split(".")[0].split("~")[0]
        from warcio.exceptions import ArchiveLoadFailed

        try:
            self._read_records(path, data, ev)
        except (
            OSError,
            EOFError,
            ValueError,
            gzip.BadGzipFile,
            UnicodeDecodeError,
            ArchiveLoadFailed,
            RecursionError,  # JSON nested past the parser's depth
        ) as exc:
            ev.problems.append(f"evidence file {rel} is unreadable ({exc.__class__.__name__})")
        return ev

    def _read_records(self, path: Path, data: bytes, ev: LoadedEvidence) -> None:
        from warcio.archiveiterator import ArchiveIterator

        ev.file_sha256 = sha256_hex(data)
        ev.files[ev.path] = ev.file_sha256
        shape: list[str] = []  # the records in order, for the one-retrieval rule
        main_id: str | None = None
        strays: list[str] = []  # records that refer to something other than the capture
        for record in ArchiveIterator(io.BytesIO(data), check_digests=False):
            kind = record.rec_type
            headers = record.rec_headers
            refers = headers.get_header("WARC-Refers-To")
            if kind == "metadata" and headers.get_header("Content-Type") == REGISTRY_TYPE:
                kind = "registry"
            if kind == "resource" and headers.get_header(SNAPSHOT_OF) is not None:
                kind = "snapshot"
            shape.append(kind)
            capture = kind in ("warcinfo", "request", "response", "resource", "revisit")
            if not capture and (main_id is None or refers != main_id):
                strays.append(kind)
            if kind == "warcinfo":
                ev.identifier = _warc_fields(record.raw_stream.read()).get("citeledger-identifier")
            elif kind in ("response", "resource", "revisit"):
                main_id = headers.get_header("WARC-Record-ID")
                ev.target_uri = headers.get_header("WARC-Target-URI")
                ev.warc_date = headers.get_header("WARC-Date")
                _read_facts(record, ev)
                if kind == "revisit":
                    ref = headers.get_header("WARC-Citeledger-Refers-To-File") or ""
                    try:
                        found = self._payload_of(path.parent / Path(ref).name, ev)
                        if found is None:
                            raise StoreFileError(ref, "holds no captured body")
                    except StoreFileError as e:
                        ev.problems.append(
                            f"the earlier capture {ref} that this revisit refers to {e.reason}"
                        )
                    else:
                        ev.body = found
                        ev.body_sha256 = sha256_hex(found)
                else:
                    ev.body = record.raw_stream.read()
                    ev.body_sha256 = sha256_hex(ev.body)
            elif kind == "snapshot":
                png = record.raw_stream.read()
                rid = headers.get_header("WARC-Record-ID") or ""
                ev.snapshots[rid] = StoredSnapshot(
                    rid,
                    sha256_hex(png),
                    headers.get_header("WARC-Concurrent-To"),
                    headers.get_header("Content-Type"),
                    headers.get_header("WARC-Citeledger-Pages"),
                    png,
                )
            elif kind == "registry":
                answer = json.loads(record.raw_stream.read().decode("utf-8"))
                ev.registry = answer if isinstance(answer, dict) else None
            elif kind == "conversion":
                text = record.raw_stream.read().decode("utf-8")
                ev.text = text
                ev.text_sha256 = sha256_hex(text)
                ev.text_extractor = headers.get_header("WARC-Citeledger-Extractor")
                ev.text_body_sha256 = headers.get_header("WARC-Citeledger-Body-SHA256")
            elif kind == "metadata":
                meta = json.loads(record.raw_stream.read().decode("utf-8"))
                wrong = _extractor_record_problem(meta)
                if wrong is not None:
                    ev.problems.append(f"evidence file {ev.path}: its extractor record {wrong}")
                    continue
                ev.extractor, ev.kind = meta["extractor"], meta["kind"]
                ev.page_starts = tuple(meta["page_starts"])
                ev.title, ev.last_revised = meta["title"], meta["last_revised"]
                if meta["text_sha256"] != ev.text_sha256:
                    ev.problems.append(
                        f"evidence file {ev.path}: the text digest its extractor record names is "
                        "not the stored text's"
                    )
        if ev.text is not None and ev.page_starts != page_starts_of(ev.kind, ev.text):
            ev.problems.append(
                f"evidence file {ev.path}: its page map is not where its text's pages start"
            )
        if (ev.target_uri or "").startswith("file:") and not (ev.identifier or "").startswith(
            "file:"
        ):  # a local copy read for a DOI or arXiv id: only then is its own name asked
            from citeledger.evidence.other_work import metadata_identifiers

            ev.metadata_identifiers = metadata_identifiers(ev.body)
        shape_problem = _shape_problem(shape, strays)
        if shape_problem:
            ev.problems.append(f"evidence file {ev.path} {shape_problem}")
        if ev.body_sha256 is None and not ev.problems:
            ev.problems.append(f"evidence file {ev.path} holds no captured body")

    def _payload_of(self, path: Path, ev: LoadedEvidence) -> bytes | None:
        """The body of the first capture at ``path`` (in the store's real folder), read
        through the gate as the file naming it was; ``StoreFileError`` when it is not read."""
        rel = path.relative_to(self.files.real_root).as_posix()
        data = self.files.read(rel)
        ev.files[rel] = sha256_hex(data)
        return captured_body(data)


# The extractor's record, as ``put`` writes it: each field and the types it may hold.
_EXTRACTOR_RECORD: dict[str, tuple[type, ...]] = {
    "extractor": (str,),
    "kind": (str,),
    "page_starts": (list,),
    "title": (str, type(None)),
    "last_revised": (str, type(None)),
    "text_sha256": (str,),
}


def _extractor_record_problem(meta: object) -> str | None:
    """What makes a decoded extractor record other than one ``put`` writes, or None."""
    if not isinstance(meta, dict):
        return f"is not a JSON object (a {type(meta).__name__})"
    if set(meta) != set(_EXTRACTOR_RECORD):
        return f"has other fields ({len(meta)}) than the extractor's ({len(_EXTRACTOR_RECORD)})"
    for name, types in _EXTRACTOR_RECORD.items():
        if not isinstance(meta[name], types):
            return f"holds a {type(meta[name]).__name__} as its {name}"
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in meta["page_starts"]):
        return "holds a page map that is not a list of offsets"
    return None


_ONE_RETRIEVAL = (
    ("warcinfo", 1, 1),
    ("request", 0, 1),
    ("main", 1, 1),
    ("registry", 0, 1),
    ("conversion", 0, 1),
    ("metadata", 0, 1),
    ("snapshot", 0, 1000),
)


def _shape_problem(shape: list[str], strays: list[str]) -> str | None:
    """A file must hold exactly one retrieval, in the order ``put`` writes it: another evidence
    file prepended, a second text record, or a record about another capture is not one."""
    kinds = ["main" if k in ("response", "resource", "revisit") else k for k in shape]
    order = [name for name, _, _ in _ONE_RETRIEVAL]
    for name, least, most in _ONE_RETRIEVAL:
        n = kinds.count(name)
        if not least <= n <= most:
            return (
                f"does not hold exactly one retrieval ({n} {name} records, records: "
                f"{', '.join(shape) or 'none'})"
            )
    unknown = [k for k in kinds if k not in order]
    if unknown:
        return f"holds records no retrieval writes ({', '.join(unknown)})"
    if kinds != sorted(kinds, key=order.index):
        return f"holds its records out of order ({', '.join(shape)})"
    if "metadata" in kinds and "conversion" not in kinds:
        return "holds extractor metadata without the text it describes"
    if strays:
        return f"holds records that do not refer to its capture ({', '.join(strays)})"
    return None


def _read_facts(record: Any, ev: LoadedEvidence) -> None:
    """What the capture record says was asked, answered and where it ended."""
    headers = record.rec_headers
    ev.requested_uri = headers.get_header("WARC-Citeledger-Requested-URI")
    redirects = headers.get_header("WARC-Citeledger-Redirects")
    if redirects is not None:
        listed = json.loads(redirects)
        ev.redirects = tuple(str(u) for u in listed) if isinstance(listed, list) else None
    status = headers.get_header("WARC-Citeledger-Status")
    if status is not None:
        ev.status = int(status)
    elif record.http_headers is not None:
        ev.status = int(record.http_headers.get_statuscode() or 0) or None
    content_type = headers.get_header("WARC-Citeledger-Content-Type")
    if content_type is None and record.http_headers is not None:
        content_type = record.http_headers.get_header("Content-Type")
    if content_type is None and record.rec_type == "resource":
        content_type = headers.get_header("Content-Type")
    ev.content_type = content_type or None


def _warc_fields(data: bytes) -> dict[str, str]:
    fields: dict[str, str] = {}
    for line in data.decode("utf-8", "replace").splitlines():
        name, sep, value = line.partition(":")
        if sep:
            fields[name.strip()] = value.strip()
    return fields


def _request_target(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    target = parts.path or "/"
    if parts.query:
        target += "?" + parts.query
    return target


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"
