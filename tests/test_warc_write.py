"""The hand-written WARC serialiser (``evidence.warc_write``) against warcio's own writer.

Every record type the store writes (warcinfo, request, response, revisit, resource for a file
source and for a snapshot, conversion, the registry's and the extractor's metadata) is built
both ways with the same record ids and dates: each gzip member must decompress to the very
bytes warcio's writer makes, one member per record, and warcio must read the file back with
its digests checked. The reference below is the store's writer as it was with warcio.
"""

from __future__ import annotations

import io
import itertools
import json
import uuid
import zlib
from pathlib import Path
from typing import Any

import pytest

from citeledger.evidence import warc_write
from citeledger.evidence.snapshot import Snapshot
from citeledger.evidence.store import (
    REGISTRY_TYPE,
    SNAPSHOT_OF,
    EvidenceReader,
    _reason,
    _request_target,
    _text_metadata,
    sha256_hex,
    write_evidence,
)
from citeledger.model import Extracted, Identifier, Retrieval

DATE = "2026-12-04T21:00:00Z"
INFO_DATE = "2026-12-04T21:00:01.250000Z"
BODY = "Page one. The passage is here — naïve café. Page two.\n".encode()
EXTRACTED = Extracted(BODY.decode(), "text", "citeledger-text", "1", (), "T", None)


def _http(**kw: Any) -> Retrieval:
    fields: dict[str, Any] = {
        "identifier": Identifier("url", "https://example.org/a?b=1"),
        "requested_url": "https://example.org/a?b=1",
        "url": "https://example.org/a?b=1",
        "status": 200,
        "content_type": "text/plain; charset=utf-8",
        "body": BODY,
        "retrieved_at": DATE,
        "request_headers": (("Host", "example.org"), ("Accept", "*/*")),
        "response_headers": (
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Content-Encoding", "gzip"),
            ("ETag", '"x1"'),
        ),
        "redirects": ("https://example.org/old",),
    }
    fields.update(kw)
    return Retrieval(**fields)


def _members(data: bytes) -> list[bytes]:
    """Each gzip member of ``data``, decompressed on its own."""
    out = []
    while data:
        d = zlib.decompressobj(zlib.MAX_WBITS + 16)
        out.append(d.decompress(data) + d.flush())
        assert d.eof, "a gzip member that does not end"
        data = d.unused_data
    return out


def _reference(
    r: Retrieval,
    extracted: Extracted | None,
    body_sha: str,
    revisit: bool,
    filename: str,
    first: str,
    snapshots: tuple[Snapshot, ...],
) -> bytes:
    """The records as warcio's writer made them (uncompressed members, concatenated)."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.utils import Digester
    from warcio.warcwriter import WARCWriter

    class Writer(WARCWriter):  # type: ignore[misc]
        @staticmethod
        def _create_digester() -> Digester:
            return Digester("sha256")

    buf = io.BytesIO()
    w = Writer(buf, gzip=False, warc_version="1.1")
    uri, date = r.recorded_uri, r.retrieved_at
    note = (
        "file source: no HTTP exchange happened; recorded as a resource"
        if r.reconstructed
        else "payload is the decoded entity body; Content-Encoding removed by citeledger"
    )
    info = {
        "software": "citeledger/0",
        "format": "WARC File Format 1.1",
        "citeledger-identifier": str(r.identifier),
        "citeledger-note": note,
    }
    w.write_record(w.create_warcinfo_record(filename, info))
    common = {
        "WARC-Date": date,
        "WARC-Citeledger-Body-SHA256": body_sha,
        "WARC-Citeledger-Requested-URI": r.recorded_uri if r.reconstructed else r.requested_url,
        "WARC-Citeledger-Redirects": json.dumps(list(r.redirects)),
        "WARC-Citeledger-Status": str(r.status),
        "WARC-Citeledger-Content-Type": r.content_type or "",
    }
    if r.reconstructed:
        rec = w.create_warc_record(
            uri,
            "resource",
            payload=io.BytesIO(r.body),
            length=len(r.body),
            warc_content_type=r.content_type or "application/octet-stream",
            warc_headers_dict=common,
        )
    else:
        req = StatusAndHeaders(
            f"GET {_request_target(r.url)} {r.protocol}",
            list(r.request_headers),
            is_http_request=True,
        )
        w.write_record(
            w.create_warc_record(
                r.url, "request", http_headers=req, warc_headers_dict={"WARC-Date": date}
            )
        )
        dropped = ("content-encoding", "transfer-encoding", "content-length")
        headers = [(k, v) for k, v in r.response_headers if k.lower() not in dropped]
        headers.append(("Content-Length", str(len(r.body))))
        status = StatusAndHeaders(f"{r.status} {_reason(r.status)}", headers, r.protocol)
        if revisit:
            rec = w.create_revisit_record(
                r.url,
                digest=f"sha256:{body_sha}",
                refers_to_uri=r.url,
                refers_to_date=date,
                http_headers=status,
                warc_headers_dict={**common, "WARC-Citeledger-Refers-To-File": first},
            )
        else:
            rec = w.create_warc_record(
                r.url,
                "response",
                payload=io.BytesIO(r.body),
                length=len(r.body),
                http_headers=status,
                warc_headers_dict=common,
            )
    w.write_record(rec)
    main_id = rec.rec_headers.get_header("WARC-Record-ID")
    refers = {"WARC-Date": date, "WARC-Refers-To": main_id}

    def plain(u: str, kind: str, payload: bytes, ctype: str, fields: dict[str, str]) -> None:
        w.write_record(
            w.create_warc_record(
                u,
                kind,
                payload=io.BytesIO(payload),
                length=len(payload),
                warc_content_type=ctype,
                warc_headers_dict=fields,
            )
        )

    if r.metadata:
        answer = json.dumps(dict(r.metadata), ensure_ascii=False, sort_keys=True).encode()
        plain(str(r.identifier), "metadata", answer, REGISTRY_TYPE, refers)
    if extracted is None:
        return buf.getvalue()
    made_by = f"{extracted.extractor} {extracted.extractor_version}"
    derived = {**refers, "WARC-Citeledger-Body-SHA256": body_sha}
    derived["WARC-Citeledger-Extractor"] = made_by
    text = extracted.text.encode()
    plain(uri, "conversion", text, "text/plain; charset=utf-8", derived)
    plain(uri, "metadata", _text_metadata(extracted), "application/json", refers)
    for shot in snapshots:
        digest = sha256_hex(shot.png)
        fields = {
            "WARC-Date": date,
            "WARC-Concurrent-To": main_id,
            "WARC-Refers-To": main_id,
            "WARC-Refers-To-Target-URI": uri,
            SNAPSHOT_OF: f"{shot.char_start}-{shot.char_end}",
            "WARC-Citeledger-Renderer": shot.renderer,
            "WARC-Citeledger-Pages": ",".join(str(p) for p in shot.pages),
        }
        plain(f"urn:citeledger:snapshot:{digest}", "resource", shot.png, "image/png", fields)
    return buf.getvalue()


@pytest.fixture
def fixed(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Record ids from one counter (reset per side) and one warcinfo date, for both writers."""
    from warcio.recordbuilder import RecordBuilder

    monkeypatch.setattr("citeledger.evidence.store.__version__", "0")
    monkeypatch.setattr(warc_write, "warc_now", lambda: INFO_DATE)
    monkeypatch.setattr(RecordBuilder, "_make_warc_date", classmethod(lambda cls, **k: INFO_DATE))

    def reset() -> None:
        counter = itertools.count(1)
        monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(int=next(counter)))

    return reset


SHOT = Snapshot(b"\x89PNG\r\n\x1a\nfake", 10, 30, (1, 2), "test-renderer 1", 4, 2)


@pytest.mark.parametrize(
    "case",
    ["response", "revisit", "file", "no-text", "non-ascii-header", "empty-content-type"],
)
def test_each_record_is_what_warcio_writes(tmp_path: Path, fixed: Any, case: str) -> None:
    r = _http(metadata={"title": "Ünïcode", "DOI": "10.1/x"})
    extracted: Extracted | None = EXTRACTED
    shots: tuple[Snapshot, ...] = (SHOT,)
    if case == "file":
        r = _http(identifier=Identifier("file", "copy.txt"), reconstructed=True, metadata=None)
    elif case == "no-text":
        extracted, shots = None, ()
    elif case == "non-ascii-header":
        r = _http(response_headers=(("Content-Disposition", "inline; filename=café.txt"),))
    elif case == "empty-content-type":
        r = _http(content_type=None, protocol="HTTP/1.0", redirects=())
    body_sha = sha256_hex(r.body)
    if case == "revisit":
        write_evidence(tmp_path, r, extracted, shots, body_sha, synced=False)
    fixed()
    stored = write_evidence(tmp_path, r, extracted, shots, body_sha, synced=False)
    data = (tmp_path / stored.evidence).read_bytes()
    fixed()
    first = f"{body_sha}.warc.gz"
    want = _reference(
        r, extracted, body_sha, case == "revisit", Path(stored.evidence).name, first, shots
    )
    got = _members(data)
    assert b"".join(got) == want
    types = [m.split(b"WARC-Type: ", 1)[1].split(b"\r\n", 1)[0].decode() for m in got]
    assert len(got) == want.count(b"WARC/1.1\r\nWARC-") == len(types)  # one member per record
    kinds = {
        "response": ["warcinfo", "request", "response", "metadata", "conversion", "metadata"],
        "revisit": ["warcinfo", "request", "revisit", "metadata", "conversion", "metadata"],
        "file": ["warcinfo", "resource", "conversion", "metadata"],
        "no-text": ["warcinfo", "request", "response", "metadata"],
    }
    expected = kinds.get(case, ["warcinfo", "request", "response", "conversion", "metadata"])
    if shots:
        expected = [*expected, "resource"]
    assert types == expected


def test_warcio_reads_every_record_back_with_its_digests(tmp_path: Path) -> None:
    from warcio.archiveiterator import ArchiveIterator

    r = _http(metadata={"title": "T"})
    body_sha = sha256_hex(r.body)
    for _ in range(2):  # a first capture, then a revisit of the same body
        stored = write_evidence(tmp_path, r, EXTRACTED, (SHOT,), body_sha, synced=False)
        path = tmp_path / stored.evidence
        with path.open("rb") as fh:
            records = list(ArchiveIterator(fh, check_digests="raise"))
        with path.open("rb") as fh:
            kinds = []
            for rec in ArchiveIterator(fh, check_digests="raise"):
                assert rec.rec_headers.protocol == "WARC/1.1"
                kinds.append(rec.rec_type)
                payload = rec.content_stream().read()
                if rec.rec_type == "response":
                    assert payload == BODY
                if rec.rec_type == "conversion":
                    assert payload == EXTRACTED.text.encode()
                if rec.rec_type == "resource":
                    assert payload == SHOT.png
                    assert (
                        rec.rec_headers.get_header("WARC-Record-ID")
                        == next(iter(stored.snapshots.values()))[0]
                    )
        assert len(records) == len(kinds) == 7
        loaded = EvidenceReader(tmp_path).load(stored.evidence)
        assert loaded.ok, loaded.problems
        assert loaded.body_sha256 == body_sha and loaded.text == EXTRACTED.text
    assert kinds[2] == "revisit"


def test_a_line_break_in_a_header_value_never_makes_a_header_of_its_own() -> None:
    """A value holding CR/LF would end its header and start another (a forged Content-Length);
    it is written on one line, percent-encoded, so warcio reads back the headers written."""
    from warcio.archiveiterator import ArchiveIterator

    data = warc_write.member(
        [("WARC-Type", "resource"), ("WARC-Citeledger-Status", "200\r\nContent-Length: 7")],
        b"the body",
        "text/plain",
    )
    read = [
        (dict(rec.rec_headers.headers), rec.raw_stream.read())
        for rec in ArchiveIterator(io.BytesIO(data))
    ]
    assert len(read) == 1
    headers, body = read[0]
    assert headers["WARC-Citeledger-Status"] == "200%0D%0AContent-Length: 7"
    assert headers["Content-Length"] == str(len(b"the body")) and body == b"the body"
