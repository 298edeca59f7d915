"""Receipt against evidence (review r1 of stop 19: A1, A4, A8, B1): a receipt hand-edited to
claim more than the check found, and an evidence file whose side records say something else, are
not checked — and a malformed record is a reason, never a traceback.

Each case starts from a genuine ``citeledger verify`` of a local file, then tampers the way the
review did (the ledger's lines edited as text, a record of the evidence file rewritten), and
asks the real ``citeledger check``.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import netserver as ns
from citeledger.cli import main
from citeledger.evidence.store import REGISTRY_TYPE as REGISTRY
from citeledger.ledger import load_ledger
from citeledger.model import Receipt

netserver = ns.netserver

SOURCE = (
    "Report A.\n\nUnder the rules the board adopted in 2019 and amended in 2024, an appeal must "
    "be received within 60 days of the date of the decision letter.\n"
)
QUOTE = (
    "Under the rules the board adopted in 2019 and amended in 2024, an appeal must be received "
    "within 60 days of the date of the decision letter."
)


def _sha(s: str) -> str:
    return hashlib.sha256(s.encode("utf-8")).hexdigest()


def _verified(tmp_path: Path, name: str, body: bytes, quote: str, locator: str = "") -> Path:
    """A one-source project, verified by the real command: the ledger."""
    (tmp_path / "sources").mkdir(exist_ok=True)
    (tmp_path / "sources" / name).write_bytes(body)
    where = f"\n        locator: {locator}" if locator else ""
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text(
        f"sources:\n  a:\n    file: sources/{name}\n    title: Report A\n    quotes:\n"
        f"      - text: {json.dumps(quote)}{where}\n",
        encoding="utf-8",
    )
    (tmp_path / "doc.md").write_text("Appeals take 60 days [@a].\n", encoding="utf-8")
    assert main(["verify", "--ledger", str(ledger), "--yes"]) == 0
    return ledger


def _receipt(ledger: Path) -> Receipt:
    receipt = load_ledger(ledger).sources["a"].quotes[0].latest
    assert receipt is not None and receipt.outcome == "found"
    return receipt


def _edit(ledger: Path, **fields: Any) -> None:
    """Rewrite (or, for None, delete) receipt lines as a forger with an editor would."""
    text = ledger.read_text(encoding="utf-8")
    for name, value in fields.items():
        line = re.compile(rf"^( +){name}: .*\n", re.MULTILINE)
        assert line.search(text), name
        if value is None:
            text = line.sub("", text, count=1)
        else:
            shown = json.dumps(value) if isinstance(value, str) else str(value)
            text = line.sub(lambda m, n=name, v=shown: f"{m.group(1)}{n}: {v}\n", text, count=1)
    ledger.write_text(text, encoding="utf-8")


def _check(tmp_path: Path, ledger: Path) -> dict[str, Any]:
    """The real ``citeledger check``: the one citation's entry of its JSON report."""
    out = tmp_path / "report.json"
    code = main(["check", str(tmp_path / "doc.md"), "--ledger", str(ledger), "--json", str(out)])
    [citation] = json.loads(out.read_text(encoding="utf-8"))["citations"]
    assert code == (0 if citation["state"] == "checked" else 1), citation
    return dict(citation)


# --- A1: the build's re-check of a span accepts only what locating the whole text accepts --------


def test_a_span_moved_so_the_window_cuts_a_number_is_not_checked(tmp_path: Path) -> None:
    """The review's case: "…received within 6" is refused in the whole text ("within 60
    days"); a receipt whose span was moved so that the re-check's window ended after the "6"
    made it checked."""
    ledger = _verified(tmp_path, "a.txt", SOURCE.encode(), QUOTE)
    assert _check(tmp_path, ledger)["state"] == "checked"
    cut = QUOTE[: QUOTE.index("within 60") + len("within 6")]
    assert main(["locate", str(tmp_path / "sources" / "a.txt"), cut]) != 0  # refused whole
    start = _receipt(ledger).char_start
    assert start is not None
    end = SOURCE.index("within 60") + len("within 6") - 64  # the old window ends after the 6
    ledger.write_text(
        ledger.read_text(encoding="utf-8").replace(f"text: {json.dumps(QUOTE)}", f"text: {cut!r}"),
        encoding="utf-8",
    )
    _edit(
        ledger,
        writer_quote_sha256=_sha(cut),
        char_end=end,
        quote=SOURCE[start:end],
        quote_sha256=_sha(SOURCE[start:end]),
    )
    got = _check(tmp_path, ledger)
    assert got["state"] == "tampered", got


@pytest.mark.parametrize("where", ["shorter", "longer", "negative start"])
def test_a_receipt_span_other_than_the_one_found_is_not_checked(tmp_path: Path, where: str) -> None:
    """The writer's whole quote is in the source, but the receipt's span (and the words it
    shows readers) is not where it stands: only the exact span the locator finds is checked."""
    ledger = _verified(tmp_path, "a.txt", SOURCE.encode(), QUOTE)
    receipt = _receipt(ledger)
    start, end = receipt.char_start, receipt.char_end
    assert start is not None and end is not None
    if where == "shorter":
        end -= 30
    elif where == "longer":
        start -= 3
    else:  # Python's negative index names the same characters
        start -= len(SOURCE)
    _edit(
        ledger,
        char_start=start,
        char_end=end,
        quote=SOURCE[start:end],
        quote_sha256=_sha(SOURCE[start:end]),
    )
    got = _check(tmp_path, ledger)
    assert got["state"] == "tampered", got


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet="ab6 \n\f.", max_size=900),
    st.integers(min_value=0, max_value=900),
    st.integers(min_value=1, max_value=200),
)
def test_the_recheck_window_never_cuts_a_word(text: str, start: int, length: int) -> None:
    from citeledger.judge import _CONTEXT, _window

    start = min(start, max(0, len(text) - 1))
    end = min(len(text), start + length)
    lo, hi = _window(text, start, end)
    assert lo <= max(0, start - _CONTEXT) and hi >= min(len(text), end + _CONTEXT)
    assert lo == 0 or (text[lo - 1].isspace() and not text[lo].isspace())
    assert hi == len(text) or (text[hi].isspace() and not text[hi - 1].isspace())


# --- A4: a found receipt is tied to its whole evidence file ------------------------------------


def _rewrite_record(path: Path, kind: str, payload: bytes | None) -> None:
    """Replace (None: delete) one record of an evidence file, every other record kept, as the
    review's forger did; ``kind`` "registry" is the registry's answer, "metadata" the
    extractor's record."""
    from warcio.archiveiterator import ArchiveIterator
    from warcio.warcwriter import WARCWriter

    out = io.BytesIO()
    writer = WARCWriter(out, gzip=True)
    with path.open("rb") as fh:
        for record in ArchiveIterator(fh, check_digests=False):
            this = record.rec_type
            if this == "metadata" and record.rec_headers.get_header("Content-Type") == REGISTRY:
                this = "registry"
            if this != kind:
                writer.write_record(record)
                continue
            if payload is None:
                continue
            keep = {
                k: v
                for k, v in record.rec_headers.headers
                if k not in ("Content-Length", "WARC-Block-Digest", "WARC-Payload-Digest")
                and k not in ("WARC-Type", "WARC-Target-URI")
            }
            writer.write_record(
                writer.create_warc_record(
                    record.rec_headers.get_header("WARC-Target-URI"),
                    record.rec_type,
                    payload=io.BytesIO(payload),
                    length=len(payload),
                    warc_headers_dict=keep,
                )
            )
    path.write_bytes(out.getvalue())


def _evidence_file(ledger: Path) -> Path:
    receipt = _receipt(ledger)
    assert receipt.evidence is not None
    return ledger.parent / ".citeledger" / receipt.evidence


def test_a_found_receipt_without_its_evidence_digest_is_not_checked(tmp_path: Path) -> None:
    ledger = _verified(tmp_path, "a.txt", SOURCE.encode(), QUOTE)
    assert _receipt(ledger).evidence_sha256  # verify always writes it
    _edit(ledger, evidence_sha256=None)
    got = _check(tmp_path, ledger)
    assert got["state"] == "stale", got
    assert "evidence_sha256" in got["reasons"][0] and "citeledger verify" in got["reasons"][0]


def test_a_retraction_deleted_from_evidence_and_receipt_is_not_checked(
    tmp_path: Path, netserver: ns.NetServer
) -> None:
    """The review's case: the registry's answer deleted from the WARC (no registry record is a
    valid shape) and `retracted:`, `metadata:` and `evidence_sha256:` from the receipt."""
    notice = {"DOI": "10.5555/notice", "type": "retraction"}
    answer = {"DOI": "10.5555/appeals", "title": "Claims manual", "updated-by": [notice]}

    def resolver(req: ns.Seen) -> ns.Reply:
        if "citationstyles" in (req.header("accept") or ""):
            return ns.Reply(body=json.dumps(answer).encode(), content_type=REGISTRY)
        return ns.Reply(302, b"", [("Location", "/article.html")], None)

    netserver.route("/doi/", resolver, prefix=True)
    netserver.static("/article.html", f"<html><body><p>{QUOTE}</p></body></html>".encode())
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text(
        "sources:\n  a:\n    doi: 10.5555/appeals\n    title: Claims manual\n"
        f'    quotes:\n      - text: "{QUOTE}"\n',
        encoding="utf-8",
    )
    (tmp_path / "doc.md").write_text("Appeals take 60 days [@a].\n", encoding="utf-8")
    settings = tmp_path / "settings.yaml"
    settings.write_text(f"doi_base: {netserver.url('/doi/')}\n", encoding="utf-8")
    argv = ["verify", "--ledger", str(ledger), "--yes", "--allow-private", "--config"]
    assert main([*argv, str(settings)]) == 0
    assert _check(tmp_path, ledger)["state"] == "retracted"
    _rewrite_record(_evidence_file(ledger), "registry", None)
    text = ledger.read_text(encoding="utf-8")
    text = re.sub(r"\n *(retracted|evidence_sha256): [^\n]*", "", text)
    text = re.sub(r"\n( *)metadata:\n(\1 [^\n]*\n)*", "\n", text)
    ledger.write_text(text, encoding="utf-8")
    receipt = _receipt(ledger)
    assert receipt.retracted is None and receipt.evidence_sha256 is None
    got = _check(tmp_path, ledger)
    # the history log kept the registry's answer of that check: still retracted, not checked
    assert got["state"] == "retracted" and "registry" in got["reasons"][0], got


# --- B1: a malformed extractor record is a reason, never a traceback ----------------------------

PDF_QUOTE = "The appeal must be received within 60 days."


def _pdf_project(tmp_path: Path) -> Path:
    from test_extract_pdf import make_pdf

    pages = [[PDF_QUOTE], ["Page two text of the report."], ["Page three text of the report."]]
    return _verified(tmp_path, "r.pdf", make_pdf(pages), PDF_QUOTE)


def _extractor_record(path: Path) -> dict[str, Any]:
    from warcio.archiveiterator import ArchiveIterator

    with path.open("rb") as fh:
        for record in ArchiveIterator(fh, check_digests=False):
            if record.rec_type == "metadata" and record.rec_headers.get_header(
                "Content-Type"
            ) not in (REGISTRY,):
                found: dict[str, Any] = json.loads(record.content_stream().read())
                return found
    raise AssertionError("no extractor record")


def _judged_with(ledger: Path, evidence: Path, payload: bytes) -> tuple[str, str]:
    """The state of @a once its evidence's extractor record is ``payload``, the receipt's
    evidence_sha256 recomputed (a digest is no secret): the judgement itself, offline."""
    import dataclasses

    from citeledger.judge import Judge
    from citeledger.model import CitationRef

    _rewrite_record(evidence, "metadata", payload)
    led = load_ledger(ledger)
    source = led.sources["a"]
    receipt = dataclasses.replace(
        _receipt(ledger), evidence_sha256=hashlib.sha256(evidence.read_bytes()).hexdigest()
    )
    quote = dataclasses.replace(source.quotes[0], receipts=(receipt,))
    led = dataclasses.replace(
        led, sources={**led.sources, "a": dataclasses.replace(source, quotes=(quote,))}
    )
    verdict = Judge(led, index=None).judge(CitationRef("a"))
    return verdict.state.value, " ".join(verdict.reasons)


@pytest.mark.parametrize("payload", ["[]", '"text"', "5", "null", '{"page_starts": 5}'])
def test_a_malformed_extractor_record_is_tampered(tmp_path: Path, payload: str) -> None:
    """The review's case: a JSON list (or string, number…) as the extractor record made check
    and the filter die with AttributeError."""
    ledger = _verified(tmp_path, "a.txt", SOURCE.encode(), QUOTE)
    _rewrite_record(_evidence_file(ledger), "metadata", payload.encode())
    got = _check(tmp_path, ledger)
    assert got["state"] == "tampered" and "extractor record" in got["reasons"][0], got


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


@pytest.fixture(scope="module")
def pdf_project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("pdf")
    ledger = _pdf_project(folder)
    evidence = _evidence_file(ledger)
    return ledger, evidence.read_bytes(), _extractor_record(evidence)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_extractor_record_fuzz(
    pdf_project: tuple[Path, bytes, dict[str, Any]], data: st.DataObject
) -> None:
    """Any shape of the extractor record: a state with a reason, and `tampered` unless the
    record is one the extractor writes. Field by field: kept, dropped, or any JSON value."""
    ledger, original, genuine = pdf_project
    mode = data.draw(st.sampled_from(["any", "pages", "fields"]))
    if mode == "any":
        record: Any = data.draw(_JSON)
    elif mode == "pages":  # well-formed, only the page map another list of offsets
        pages = st.lists(st.integers(min_value=-1, max_value=200), max_size=5)
        record = {**genuine, "page_starts": data.draw(pages)}
    else:
        record = {}
        for name, value in genuine.items():
            how = data.draw(st.sampled_from(["keep", "drop", "other"]))
            if how != "drop":
                record[name] = value if how == "keep" else data.draw(_JSON)
        if data.draw(st.booleans()):
            record[data.draw(st.text(max_size=8))] = data.draw(_JSON)
    evidence = _evidence_file(ledger)
    try:
        state, reasons = _judged_with(ledger, evidence, json.dumps(record).encode())
    finally:
        evidence.write_bytes(original)
    assert reasons

    def text(v: object, maybe: bool = False) -> bool:
        return isinstance(v, str) or (maybe and v is None)

    well_formed = (
        isinstance(record, dict)
        and set(record) == set(genuine)
        and all(text(record[k]) for k in ("extractor", "kind", "text_sha256"))
        and all(text(record[k], maybe=True) for k in ("title", "last_revised"))
        and isinstance(record["page_starts"], list)
        and all(type(x) is int for x in record["page_starts"])
    )
    if record == genuine:
        assert state == "checked", reasons
    elif not well_formed:
        assert state == "tampered", (record, reasons)
    elif any(record[k] != genuine[k] for k in ("page_starts", "text_sha256", "kind")):
        assert state == "tampered", (record, reasons)  # bound to the text (A8), the body (F12)


# --- A8: the page a reader is shown is the evidence text's, and cannot be forged -----------------


@pytest.mark.parametrize("digest", ["recomputed", "deleted"])
def test_a_forged_page_map_is_tampered(tmp_path: Path, digest: str) -> None:
    """The review's case: the extractor record's page_starts rewritten so that page 3 starts
    at 0, the receipt's page set to 3: checked, "found on page 3", for a quote on page 1."""
    ledger = _pdf_project(tmp_path)
    got = _check(tmp_path, ledger)
    assert got["state"] == "checked" and "page 1" in got["reasons"][0], got
    evidence = _evidence_file(ledger)
    record = _extractor_record(evidence)
    assert record["page_starts"][0] == 0 and len(record["page_starts"]) == 3
    record["page_starts"] = [0, 0, 0]
    _rewrite_record(evidence, "metadata", json.dumps(record).encode())
    new = hashlib.sha256(evidence.read_bytes()).hexdigest()
    _edit(ledger, page=3, evidence_sha256=new if digest == "recomputed" else None)
    assert _receipt(ledger).page == 3
    got = _check(tmp_path, ledger)
    assert got["state"] == "tampered" and "page map" in got["reasons"][0], got


@pytest.mark.parametrize("kind", ["text", "html"])
def test_a_pdf_record_rewritten_to_another_kind_is_tampered(tmp_path: Path, kind: str) -> None:
    """Review s20 F12: the extractor record's kind rewritten from `pdf` (the page map emptied
    to match, the receipt's `page` deleted, `evidence_sha256` recomputed) made a page locator
    that names another page than the quote's unchecked by nothing: `checked`. The kind is the
    body's, derived from it as extraction derives it."""
    from test_extract_pdf import make_pdf

    pages = [[PDF_QUOTE], ["Page two text of the report."], ["Page three text of the report."]]
    ledger = _verified(tmp_path, "r.pdf", make_pdf(pages), PDF_QUOTE, locator="p. 3")
    (tmp_path / "doc.md").write_text("Appeals take 60 days [@a, p. 3].\n", encoding="utf-8")
    got = _check(tmp_path, ledger)
    assert got["state"] == "quote-not-found" and "page 1" in got["reasons"][0], got
    evidence = _evidence_file(ledger)
    record = _extractor_record(evidence)
    assert record["kind"] == "pdf"
    record.update(kind=kind, page_starts=[])
    _rewrite_record(evidence, "metadata", json.dumps(record).encode())
    _edit(ledger, page=None, evidence_sha256=hashlib.sha256(evidence.read_bytes()).hexdigest())
    got = _check(tmp_path, ledger)
    assert got["state"] == "tampered" and "stored body is pdf" in got["reasons"][0], got


# --- rev21 F-G: the receipt's ``match:`` is what the reader is told, so it is re-derived -------


@pytest.mark.parametrize("claimed", ["exact", "fuzzy"])
def test_a_receipt_match_field_edited_is_not_checked(tmp_path: Path, claimed: str) -> None:
    """The quote needs a curly apostrophe normalised, so verify records ``normalized``; a
    receipt edited to say ``exact`` was still checked and told the reader "(exact match)"."""
    body = SOURCE.replace("the date", "the board\u2019s date").encode()
    quote = QUOTE.replace("the date", "the board's date")
    ledger = _verified(tmp_path, "a.txt", body, quote)
    assert _receipt(ledger).match == "normalized"
    honest = _check(tmp_path, ledger)
    assert honest["state"] == "checked" and "(normalized match)" in json.dumps(honest)
    _edit(ledger, match=claimed)
    got = _check(tmp_path, ledger)
    assert got["state"] == "stale", got
    assert f"calls the quote's match {claimed}" in json.dumps(got)
    assert "now finds it normalized" in json.dumps(got)
