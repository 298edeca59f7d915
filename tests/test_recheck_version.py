"""Recheck's version branch: the work was re-issued after it was checked.

What a reader relies on: when arXiv publishes a newer version, or the registry records a
correction or new version, recheck says "version changed" naming both versions; the citation
stays checked on the version that was checked (its evidence is still that one), and the build
shows a warning beside it — not a breakdown, not a silent pass.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import netserver as ns
from citeledger.cli import main
from citeledger.judge import Judge
from citeledger.ledger import load_ledger
from citeledger.model import CitationRef, Receipt, State
from citeledger.verify.recheck import version_change
from conftest import corpus_file
from test_snapshot import _pdf_quote

AID = "2101.00001"


def _atom(version: int) -> bytes:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">
  <entry>
    <id>http://arxiv.org/abs/{AID}v{version}</id>
    <published>2021-01-01T00:00:00Z</published>
    <title>A paper</title>
    <author><name>Jane Doe</name></author>
  </entry>
</feed>""".encode()


def _arxiv(server: ns.NetServer, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """arxiv.org and its API on loopback; ``state["version"]`` is the version the API lists."""
    state = {"version": 1}
    server.static(
        f"/arxiv/pdf/{AID}",
        corpus_file("pdf", "agarwal11.pdf").read_bytes(),
        content_type="application/pdf",
    )
    server.route(
        "/api/query",
        lambda req: ns.Reply(200, _atom(state["version"]), [], "application/atom+xml"),
        prefix=True,
    )
    monkeypatch.setenv("CITELEDGER_ARXIV_BASE", server.url("/arxiv/"))
    monkeypatch.setenv("CITELEDGER_ARXIV_API_BASE", server.url("/api/"))
    return state


def _run(verb: str, ledger: Path) -> None:
    assert main([verb, "--ledger", str(ledger), "--yes", "--allow-private"]) == 0


def _verified(folder: Path, arxiv_id: str) -> Path:
    """A ledger citing ``arxiv_id`` with a quote of the served PDF, verified once (at v1)."""
    body = corpus_file("pdf", "agarwal11.pdf").read_bytes()
    ledger = folder / "citeledger.yaml"
    ledger.write_text(
        f'sources:\n  p:\n    arxiv: "{arxiv_id}"\n    quotes:\n'
        f'      - text: "{_pdf_quote(body)}"\n',
        encoding="utf-8",
    )
    _run("verify", ledger)
    first = load_ledger(ledger).sources["p"].quotes[0].latest
    assert first is not None and first.outcome == "found"
    assert (first.metadata or {}).get("version") == "v1"
    return ledger


def test_a_newer_arxiv_version_is_reported_and_the_check_stands(
    tmp_path: Path,
    netserver: ns.NetServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    state = _arxiv(netserver, monkeypatch)
    ledger = _verified(tmp_path, AID)
    first = load_ledger(ledger).sources["p"].quotes[0].latest
    assert first is not None

    _run("recheck", ledger)  # nothing new: no version branch
    assert "VERSION CHANGED" not in capsys.readouterr().out

    state["version"] = 2  # arXiv publishes v2 between the runs
    _run("recheck", ledger)
    out = capsys.readouterr().out
    assert "VERSION CHANGED" in out and "checked v1, now v2" in out
    latest = load_ledger(ledger).sources["p"].quotes[0].latest
    assert latest is not None and latest.version_changed is not None
    assert "checked v1, now v2" in latest.version_changed
    # the checked version stays the evidence
    before = load_ledger(ledger).sources["p"].quotes[0].receipts[-2]
    assert latest.evidence == before.evidence and latest.body_sha256 == first.body_sha256
    assert (latest.metadata or {}).get("version") == "v1"
    judgement = Judge(load_ledger(ledger)).judge(CitationRef("p"))
    assert judgement.state is State.CHECKED

    _run("recheck", ledger)  # said once: the same change is not appended again
    receipts = load_ledger(ledger).sources["p"].quotes[0].receipts
    assert sum(1 for r in receipts if r.version_changed) == 1

    # the build: a warning beside the checked citation, not a breakdown
    doc = tmp_path / "chapter.md"
    doc.write_text("The claim stands here [@p].\n", encoding="utf-8")
    html = _build(doc, ledger, tmp_path)
    assert "citeledger-version-changed" in html and "checked v1, now v2" in html
    assert "citeledger-breakdown" not in html.split("<body", 1)[1].split("citeledger-audit")[0]


def _build(doc: Path, ledger: Path, folder: Path) -> str:
    import pypandoc

    out = folder / "chapter.html"
    pandoc = pypandoc.get_pandoc_path()
    filt = Path(sys.executable).parent / "pandoc-citeledger"  # the installed filter
    subprocess.run(
        [
            pandoc,
            str(doc),
            "--filter",
            str(filt),
            "-M",
            f"citeledger.ledger={ledger}",
            "-s",
            "-o",
            str(out),
        ],
        check=True,
        cwd=folder,
    )
    return out.read_text(encoding="utf-8")


def _receipt(metadata: dict[str, object]) -> Receipt:
    return Receipt(
        outcome="found",
        identifier="doi:10.5555/abc.123",
        retrieved_at="2026-01-01T00:00:00Z",
        tool="t",
        writer_quote_sha256="0" * 64,
        metadata=metadata,
    )


CSL = {"DOI": "10.5555/abc.123", "title": "A study of things"}


def test_a_registry_update_notice_after_the_check_is_a_version_change() -> None:
    correction = {
        "DOI": "10.5555/abc.123.corr",
        "type": "correction",
        "updated": {"date-parts": [[2026, 3, 1]]},
    }
    before = _receipt(CSL)
    said = version_change(before, {**CSL, "updated-by": [correction]})
    assert said is not None and "correction 10.5555/abc.123.corr (2026-03-01)" in said
    assert "2026-01-01" in said  # the checked version named: the one of the check's date
    # a notice that was already there when it was checked is not news
    assert (
        version_change(
            _receipt({**CSL, "updated-by": [correction]}),
            json.loads(json.dumps({**CSL, "updated-by": [correction]})),
        )
        is None
    )
    # a new version notice on the other side of the link counts too
    new_version = {"DOI": "10.5555/abc.124", "type": "new_version"}
    assert "new version 10.5555/abc.124" in (
        version_change(before, {**CSL, "update-to": [new_version]}) or ""
    )
    # a retraction is the judge's (retracted), not a version
    assert version_change(before, {**CSL, "updated-by": [{"type": "retraction"}]}) is None
    assert version_change(before, CSL) is None


def test_a_pinned_arxiv_version_learns_of_a_newer_one_and_the_warning_is_signed(
    tmp_path: Path,
    netserver: ns.NetServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A ledger that pins v1 still hears of v2 (its PDF never changes, so only the API can
    tell), and the version warning is signed: deleting it from the ledger breaks the receipt."""
    state = _arxiv(netserver, monkeypatch)
    body = corpus_file("pdf", "agarwal11.pdf").read_bytes()
    netserver.static(f"/arxiv/pdf/{AID}v1", body, content_type="application/pdf")
    key = tmp_path / "keys" / "ci.pem"
    assert main(["key", "init", "--path", str(key)]) == 0
    public = capsys.readouterr().out.strip().splitlines()[-1]
    monkeypatch.setenv("CITELEDGER_SIGNING_KEY", str(key))
    ledger = _verified(tmp_path, f"{AID}v1")
    assert all("v1" not in r.path for r in netserver.requests_to("/api/query"))  # the work

    state["version"] = 2
    _run("recheck", ledger)
    out = capsys.readouterr().out
    assert "VERSION CHANGED" in out and "checked v1, now v2" in out
    latest = load_ledger(ledger).sources["p"].quotes[0].latest
    assert latest is not None and latest.version_changed is not None
    assert (latest.metadata or {}).get("version") == "v1"  # the evidence is still v1
    assert latest.signed_by == public and latest.signature
    strict = Judge(load_ledger(ledger), trusted_keys=[public], require_signature=True)
    judged = strict.judge(CitationRef("p"))
    assert judged.state is State.CHECKED and judged.receipt == latest

    # the warning is a signed fact: silencing it by hand breaks the signature
    text = ledger.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    silenced = "".join(line for line in lines if "version_changed:" not in line)
    assert silenced != text
    ledger.write_text(silenced, encoding="utf-8")
    verdict = Judge(load_ledger(ledger), trusted_keys=[public]).judge(CitationRef("p"))
    assert verdict.state is State.TAMPERED
    assert "signature does not hold" in verdict.reasons[0]


def test_a_registry_correction_published_between_runs_is_a_version_change(
    tmp_path: Path,
    netserver: ns.NetServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """doi.org on loopback: the registry adds a correction notice between two rechecks."""
    said = "Claims lodged in winter are free of every fee."
    record: dict[str, object] = {**CSL, "type": "article-journal"}

    def resolver(req: ns.Seen) -> ns.Reply:
        suffix = req.path[len("/doi/") :]
        if "citationstyles" in (req.header("accept") or ""):
            return ns.Reply(303, b"", [("Location", f"/registry/{suffix}")], None)
        return ns.Reply(302, b"", [("Location", f"/landing/{suffix}")], None)

    netserver.route("/doi/", resolver, prefix=True)
    netserver.route(
        "/registry/",
        lambda req: ns.Reply(
            200, json.dumps(record).encode(), [], "application/vnd.citationstyles.csl+json"
        ),
        prefix=True,
    )
    page = f"<html><body><p>Fees.</p><p>{said}</p></body></html>".encode()
    netserver.route("/landing/", ns.Reply(body=page, content_type="text/html"), prefix=True)
    monkeypatch.setenv("CITELEDGER_DOI_BASE", netserver.url("/doi/"))
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text(
        "sources:\n  s:\n    doi: 10.5555/abc.123\n    title: A study of things\n"
        f'    quotes:\n      - text: "{said}"\n',
        encoding="utf-8",
    )
    _run("verify", ledger)
    _run("recheck", ledger)
    assert "VERSION CHANGED" not in capsys.readouterr().out
    checked_at = load_ledger(ledger).sources["s"].quotes[0].receipts[-1].retrieved_at  # last seen

    record["updated-by"] = [  # the registry publishes a correction
        {
            "DOI": "10.5555/abc.123.corr",
            "type": "correction",
            "updated": {"date-parts": [[2026, 3, 1]]},
        }
    ]
    _run("recheck", ledger)
    out = capsys.readouterr().out
    assert "VERSION CHANGED" in out and "correction 10.5555/abc.123.corr (2026-03-01)" in out
    latest = load_ledger(ledger).sources["s"].quotes[0].latest
    assert latest is not None and latest.version_changed is not None
    assert f"checked the version of {checked_at}" in latest.version_changed
    judged = Judge(load_ledger(ledger)).judge(CitationRef("s"))
    assert judged.state is State.CHECKED  # a warning beside it, not a breakdown
    doc = tmp_path / "chapter.md"
    doc.write_text("The claim stands here [@s].\n", encoding="utf-8")
    html = _build(doc, ledger, tmp_path)
    assert "citeledger-version-changed" in html and "10.5555/abc.123.corr" in html
