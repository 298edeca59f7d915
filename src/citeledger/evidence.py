"""The evidence store: what was retrieved, kept so a build months later can re-validate it offline.

Each retrieval becomes one WARC file (ISO 28500, the web-archiving field's format, via warcio)
under the store, named by the sha256 of the body it captured:

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

import datetime as _dt
import gzip
import hashlib
import io
import json
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citeledger import __version__
from citeledger.atomic import atomic_write
from citeledger.model import Extracted, Retrieval

_DROPPED_HEADERS = {"content-encoding", "transfer-encoding", "content-length"}


def sha256_hex(data: bytes | str) -> str:
    """The digest convention of receipts and evidence: sha256, hex; text as its UTF-8 bytes."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def _warc_writer(fileobj: io.BytesIO) -> Any:
    """A warcio writer with sha256 digests (warcio's default is sha1), so they agree with
    receipts. warcio is imported here, not at module load: a build that judges no receipt should
    not pay for it."""
    from warcio.utils import Digester
    from warcio.warcwriter import WARCWriter

    class _Sha256WARCWriter(WARCWriter):  # type: ignore[misc]
        @staticmethod
        def _create_digester() -> Digester:
            return Digester("sha256")

    return _Sha256WARCWriter(fileobj, gzip=True, warc_version="1.1")


@dataclass(frozen=True)
class StoredEvidence:
    """Where one retrieval's evidence went, for the receipt."""

    evidence: str  # path relative to the store
    body_sha256: str
    text_sha256: str | None


@dataclass
class LoadedEvidence:
    """One evidence file as read back: recomputed digests, text, and any problem found."""

    path: str
    body_sha256: str | None = None  # recomputed from the stored payload
    declared_body_sha256: str | None = None  # what the file's own name/headers claim
    text: str | None = None
    text_sha256: str | None = None  # recomputed
    extractor: str | None = None
    page_starts: tuple[int, ...] = ()
    title: str | None = None
    last_revised: str | None = None
    target_uri: str | None = None
    warc_date: str | None = None
    identifier: str | None = None  # what was asked for, as the warcinfo record says
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def utc_now() -> str:
    """Now, as every stored time is written: UTC, whole seconds, ``Z``."""
    return (
        _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    )


class EvidenceStore:
    """Writes evidence files atomically; called only by ``verify``/``recheck``."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def _first_path(self, digest: str) -> Path:
        return self.root / digest[:2] / f"{digest}.warc.gz"

    def put(self, retrieval: Retrieval, extracted: Extracted | None) -> StoredEvidence:
        body_sha = sha256_hex(retrieval.body)
        first = self._first_path(body_sha)
        first.parent.mkdir(parents=True, exist_ok=True)
        revisit = first.exists()
        if revisit:
            stamp = retrieval.retrieved_at.replace(":", "").replace("-", "")
            target = first.with_name(f"{body_sha}~{stamp}-{secrets.token_hex(3)}.warc.gz")
        else:
            target = first
        buf = io.BytesIO()
        writer = _warc_writer(buf)
        self._write_records(writer, retrieval, extracted, body_sha, revisit, target.name)
        atomic_write(target, buf.getvalue())
        text_sha = sha256_hex(extracted.text) if extracted is not None else None
        return StoredEvidence(
            evidence=target.relative_to(self.root).as_posix(),
            body_sha256=body_sha,
            text_sha256=text_sha,
        )

    def _write_records(
        self,
        writer: Any,
        r: Retrieval,
        extracted: Extracted | None,
        body_sha: str,
        revisit: bool,
        filename: str,
    ) -> None:
        date = r.retrieved_at
        # A local file is recorded under the name the ledger gives it, not the machine's path.
        uri = str(r.identifier) if r.reconstructed else r.url
        info = {
            "software": f"citeledger/{__version__} (warcio)",
            "format": "WARC File Format 1.1",
            "citeledger-identifier": str(r.identifier),
            "citeledger-note": (
                "file source: no HTTP exchange happened; recorded as a resource"
                if r.reconstructed
                else "payload is the decoded entity body; Content-Encoding removed by citeledger"
            ),
        }
        from warcio.statusandheaders import StatusAndHeaders

        writer.write_record(writer.create_warcinfo_record(filename, info))
        common = {"WARC-Date": date, "WARC-Citeledger-Body-SHA256": body_sha}
        main_id: str
        if r.reconstructed:
            rec = writer.create_warc_record(
                uri,
                "resource",
                payload=io.BytesIO(r.body),
                length=len(r.body),
                warc_content_type=r.content_type or "application/octet-stream",
                warc_headers_dict=common,
            )
        else:
            req_headers = StatusAndHeaders(
                f"GET {_request_target(r.url)} {r.protocol}",
                list(r.request_headers),
                is_http_request=True,
            )
            req = writer.create_warc_record(
                r.url, "request", http_headers=req_headers, warc_headers_dict={"WARC-Date": date}
            )
            writer.write_record(req)
            headers = [(k, v) for k, v in r.response_headers if k.lower() not in _DROPPED_HEADERS]
            headers.append(("Content-Length", str(len(r.body))))
            status = StatusAndHeaders(f"{r.status} {_reason(r.status)}", headers, r.protocol)
            if revisit:
                first = self._first_path(body_sha)
                rec = writer.create_revisit_record(
                    r.url,
                    digest=f"sha256:{body_sha}",
                    refers_to_uri=r.url,
                    refers_to_date=date,
                    http_headers=status,
                    warc_headers_dict={**common, "WARC-Citeledger-Refers-To-File": first.name},
                )
            else:
                rec = writer.create_warc_record(
                    r.url,
                    "response",
                    payload=io.BytesIO(r.body),
                    length=len(r.body),
                    http_headers=status,
                    warc_headers_dict=common,
                )
        writer.write_record(rec)
        main_id = rec.rec_headers.get_header("WARC-Record-ID")
        if extracted is None:
            return
        text = extracted.text.encode("utf-8")
        conv = writer.create_warc_record(
            uri,
            "conversion",
            payload=io.BytesIO(text),
            length=len(text),
            warc_content_type="text/plain; charset=utf-8",
            warc_headers_dict={"WARC-Date": date, "WARC-Refers-To": main_id},
        )
        writer.write_record(conv)
        meta = json.dumps(
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
        mrec = writer.create_warc_record(
            uri,
            "metadata",
            payload=io.BytesIO(meta),
            length=len(meta),
            warc_content_type="application/json",
            warc_headers_dict={"WARC-Date": date, "WARC-Refers-To": main_id},
        )
        writer.write_record(mrec)


HISTORY = "history.jsonl"


def append_history(root: str | os.PathLike[str], key: str, receipts: list[Any]) -> None:
    """Record, append-only, every receipt verify/recheck wrote (one JSON line each).

    The ledger is the writer's file and can be edited by hand; this log lets the judgement
    notice when a later receipt — a recheck that found the passage changed or gone — has been
    deleted from the ledger to bring back an earlier "found". Written after the ledger, so a
    run killed in between leaves the ledger newer than the log, never the other way round.
    """
    lines = "".join(
        json.dumps(
            {
                "key": key,
                "identifier": r.identifier,
                "quote_sha256": r.writer_quote_sha256,
                "retrieved_at": r.retrieved_at,
                "outcome": r.outcome,
            },
            ensure_ascii=False,
        )
        + "\n"
        for r in receipts
    )
    if not lines:
        return
    path = Path(root) / HISTORY
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, lines.encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)


class EvidenceReader:
    """Reads evidence for judging; each file is read and hashed at most once per instance."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self._cache: dict[str, LoadedEvidence] = {}
        self._payload_cache: dict[str, str | None] = {}
        self._history: dict[tuple[str, str, str], tuple[int, str]] | None = None

    def logged_checks(self, key: str, identifier: str, quote_sha256: str) -> tuple[int, str]:
        """How many receipts the store logged for this key, identifier and quote text, and the
        outcome of the newest; the log is read once per reader."""
        if self._history is None:
            self._history = {}
            try:
                lines = (self.root / HISTORY).read_text(encoding="utf-8").splitlines()
            except OSError:
                lines = []
            for line in lines:
                try:
                    entry = json.loads(line)
                    k = (entry["key"], entry["identifier"], entry["quote_sha256"])
                    outcome = str(entry["outcome"])
                except (ValueError, KeyError, TypeError):
                    continue  # a torn last line from a killed run
                count, _ = self._history.get(k, (0, ""))
                self._history[k] = (count + 1, outcome)
        return self._history.get((key, identifier, quote_sha256), (0, ""))

    def load(self, rel: str) -> LoadedEvidence:
        cached = self._cache.get(rel)
        if cached is None:
            cached = self._load(rel)
            self._cache[rel] = cached
        return cached

    def _resolve(self, rel: str) -> Path | None:
        p = (self.root / rel).resolve()
        try:
            p.relative_to(self.root.resolve())
        except ValueError:
            return None
        return p

    def _load(self, rel: str) -> LoadedEvidence:
        ev = LoadedEvidence(path=rel)
        path = self._resolve(rel)
        if path is None:
            ev.problems.append(f"evidence path {rel!r} leaves the evidence store")
            return ev
        if not path.is_file():
            ev.problems.append(f"evidence file {rel} is missing from the evidence store")
            return ev
        ev.declared_body_sha256 = path.name.split(".")[0].split("~")[0]
        from warcio.exceptions import ArchiveLoadFailed

        try:
            self._read_records(path, ev)
        except (
            OSError,
            EOFError,
            ValueError,
            gzip.BadGzipFile,
            UnicodeDecodeError,
            ArchiveLoadFailed,
        ) as exc:
            ev.problems.append(f"evidence file {rel} is unreadable ({exc.__class__.__name__})")
        return ev

    def _read_records(self, path: Path, ev: LoadedEvidence) -> None:
        from warcio.archiveiterator import ArchiveIterator

        with path.open("rb") as fh:
            for record in ArchiveIterator(fh, check_digests=False):
                kind = record.rec_type
                if kind == "warcinfo":
                    ev.identifier = _warc_fields(record.raw_stream.read()).get(
                        "citeledger-identifier"
                    )
                elif kind in ("response", "resource"):
                    ev.target_uri = record.rec_headers.get_header("WARC-Target-URI")
                    ev.warc_date = record.rec_headers.get_header("WARC-Date")
                    ev.body_sha256 = _hash_stream(record.raw_stream)
                elif kind == "revisit":
                    ev.target_uri = record.rec_headers.get_header("WARC-Target-URI")
                    ev.warc_date = record.rec_headers.get_header("WARC-Date")
                    ref = record.rec_headers.get_header("WARC-Citeledger-Refers-To-File") or ""
                    ev.body_sha256 = self._payload_digest_of(path.parent / Path(ref).name)
                    if ev.body_sha256 is None:
                        ev.problems.append(
                            f"the earlier capture {ref} that this revisit refers to is missing"
                        )
                elif kind == "conversion":
                    text = record.raw_stream.read().decode("utf-8")
                    ev.text = text
                    ev.text_sha256 = sha256_hex(text)
                elif kind == "metadata":
                    meta = json.loads(record.raw_stream.read().decode("utf-8"))
                    ev.extractor = meta.get("extractor")
                    ev.page_starts = tuple(int(x) for x in meta.get("page_starts") or ())
                    ev.title = meta.get("title")
                    ev.last_revised = meta.get("last_revised")
        if ev.body_sha256 is None and not ev.problems:
            ev.problems.append(f"evidence file {ev.path} holds no captured body")

    def _payload_digest_of(self, path: Path) -> str | None:
        key = str(path)
        if key not in self._payload_cache:
            from warcio.archiveiterator import ArchiveIterator

            digest: str | None = None
            if path.is_file():
                with path.open("rb") as fh:
                    for record in ArchiveIterator(fh, check_digests=False):
                        if record.rec_type in ("response", "resource"):
                            digest = _hash_stream(record.raw_stream)
                            break
            self._payload_cache[key] = digest
        return self._payload_cache[key]


def _warc_fields(data: bytes) -> dict[str, str]:
    fields: dict[str, str] = {}
    for line in data.decode("utf-8", "replace").splitlines():
        name, sep, value = line.partition(":")
        if sep:
            fields[name.strip()] = value.strip()
    return fields


def _hash_stream(stream: io.RawIOBase) -> str:
    h = hashlib.sha256()
    while True:
        chunk = stream.read(1 << 16)
        if not chunk:
            break
        h.update(chunk)
    return h.hexdigest()


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
