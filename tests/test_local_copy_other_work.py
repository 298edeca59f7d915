"""A ``local_copy:`` that is plainly another work is not a check of the cited source.

Only the copy's own identifier counts (its PDF metadata, its first page's ``doi:`` header, its
arXiv stamp); the DOIs its references cite are normal and raise nothing. Verify says so on its
line and in the receipt; the build decides it again from the stored evidence, not the receipt.
"""

from __future__ import annotations

import dataclasses
import io
import json
import textwrap
from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter

from citeledger.cli import main
from citeledger.evidence.other_work import page_identifiers
from citeledger.judge import Judge
from citeledger.ledger import load_ledger
from citeledger.model import CitationRef, State
from conftest import corpus_file

QUOTE = "The DMCA also addresses a number of other significant copyright-related issues."
OURS = "10.1234/dmca.1998"


def _pdf_with_doi(doi: str | None) -> bytes:
    """The corpus PDF, its Info dictionary naming ``doi`` as the work's own DOI."""
    writer = PdfWriter(clone_from=PdfReader(corpus_file("pdf", "dmca.pdf")))
    if doi is not None:
        writer.add_metadata({"/doi": doi})
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _project(tmp_path: Path, copy: bytes, name: str = "x.pdf") -> Path:
    (tmp_path / "papers").mkdir()
    (tmp_path / "papers" / name).write_bytes(copy)
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text(
        textwrap.dedent(
            f"""\
            sources:
              dmca1998:
                doi: {OURS}
                title: The Digital Millennium Copyright Act of 1998
                local_copy: papers/{name}
                quotes:
                  - text: "{QUOTE}"
            """
        )
    )
    (tmp_path / "doc.md").write_text("The act addresses more [@dmca1998].\n")
    return ledger


def _check(tmp_path: Path) -> dict[str, object]:
    assert main(["check", "doc.md", "--json", "report.json", "--warn-only"]) == 0
    (cited,) = json.loads((tmp_path / "report.json").read_text())["citations"]
    assert isinstance(cited, dict)
    return cited


def test_a_copy_whose_metadata_names_another_doi_is_not_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    ledger = _project(tmp_path, _pdf_with_doi("10.5555/someone.else"))
    assert main(["verify", "--yes"]) == 0
    out = capsys.readouterr().out
    assert "NOT CHECKED" in out and "papers/x.pdf is another work" in out
    assert "doi:10.5555/someone.else" in out and f"not doi:{OURS}" in out
    (quote,) = load_ledger(ledger).sources["dmca1998"].quotes
    assert quote.latest is not None and "another work" in (quote.latest.metadata_mismatch or "")
    cited = _check(tmp_path)
    assert cited["state"] == "metadata-mismatch"
    reason = cited["reasons"][0]  # type: ignore[index]
    assert "doi:10.5555/someone.else" in reason and "put this work's file at papers/x.pdf" in reason


def test_the_build_decides_from_the_evidence_not_the_receipt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    ledger = _project(tmp_path, _pdf_with_doi("10.5555/someone.else"))
    assert main(["verify", "--yes"]) == 0
    led = load_ledger(ledger)
    source = led.sources["dmca1998"]
    receipt = source.quotes[0].latest
    assert receipt is not None
    cleared = dataclasses.replace(receipt, metadata_mismatch=None)  # the line deleted
    quote = dataclasses.replace(source.quotes[0], receipts=(cleared,))
    edited = dataclasses.replace(
        led, sources={"dmca1998": dataclasses.replace(source, quotes=(quote,))}
    )
    verdict = Judge(edited).judge(CitationRef("dmca1998"))
    assert verdict.state is State.METADATA_MISMATCH and "another work" in verdict.reasons[0]


@pytest.mark.parametrize("doi", [OURS, OURS.upper(), None])
def test_a_copy_naming_this_doi_or_none_is_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, doi: str | None
) -> None:
    monkeypatch.chdir(tmp_path)
    _project(tmp_path, _pdf_with_doi(doi))
    assert main(["verify", "--yes"]) == 0
    assert _check(tmp_path)["state"] == "checked"


def test_a_text_copy_headed_by_another_doi_is_not_checked_but_one_citing_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    body = "\n".join(["Intro."] * 8 + [QUOTE] + ["References", "[1] doi:10.5555/cited.work"])
    _project(tmp_path, body.encode(), name="x.txt")
    assert main(["verify", "--yes"]) == 0
    assert _check(tmp_path)["state"] == "checked"  # a reference is not the copy's own DOI

    headed = f"Journal of Other Things, doi: 10.5555/other.work.\n{body}\n"
    (tmp_path / "papers" / "x.txt").write_text(headed)
    assert main(["verify", "--yes"]) == 0
    assert _check(tmp_path)["state"] == "metadata-mismatch"


@pytest.mark.parametrize(
    "header",
    [
        "DOI 10.5555/other.work",  # Springer's page header: a space, no colon
        "Intensive Care Med (2013) 39:165-228 DOI 10.5555/other.work",
        "DOI10.5555/other.work",  # the space lost in a PDF's text
        "Digital Object Identifier 10.5555/other.work",  # IEEE's
        "DOI: https://doi.org/10.5555/other.work",
    ],
)
def test_a_copy_headed_by_another_doi_in_a_publishers_form_is_not_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, header: str
) -> None:
    monkeypatch.chdir(tmp_path)
    body = "\n".join([header, "A Title of Another Work"] + ["Intro."] * 8 + [QUOTE])
    _project(tmp_path, body.encode(), name="x.txt")
    assert main(["verify", "--yes"]) == 0
    cited = _check(tmp_path)
    assert cited["state"] == "metadata-mismatch"
    assert "doi:10.5555/other.work" in cited["reasons"][0]  # type: ignore[index]


def test_a_footer_line_that_is_a_doi_in_a_publishers_form_names_the_copy() -> None:
    body = "Title\n" + "words\n" * 20
    for footer in (
        "DOI 10.5555/own.work",
        "DOI10.5555/own.work",
        "Digital Object Identifier 10.5555/own.work",
    ):
        page1 = body + footer + "\n"
        text = page1 + "\fpage two\n"
        assert page_identifiers(text, (0, len(page1) + 1)) == ("doi:10.5555/own.work",), footer


def test_the_arxiv_stamp_and_the_header_are_the_copys_own_identifiers() -> None:
    page1 = "arXiv:1706.03762v5 [cs.CL] 6 Dec 2017\nAttention Is All You Need\n" + "w\n" * 20
    refs = "[3] arXiv:1409.0473 [cs.CL]\n" + "doi:10.5555/cited\n"
    text = page1 + "\f" + refs
    assert page_identifiers(text, (0, len(page1) + 1)) == ("arxiv:1706.03762",)


def test_a_footer_counts_only_as_a_doi_line_not_a_footnote_citing_one() -> None:
    body = "Title\n" + "words\n" * 20
    cited = body + "1 See doi:10.5555/cited for the method.\n"
    own = body + "doi: 10.5555/own.work\n"
    for page1, named in ((cited, ()), (own, ("doi:10.5555/own.work",))):
        text = page1 + "\fpage two\n"
        assert page_identifiers(text, (0, len(page1) + 1)) == named


def test_a_header_line_pointing_at_data_or_code_is_not_the_copys_own_doi() -> None:
    for line in (
        "The data are available at doi:10.5281/zenodo.1234",
        "Code: see https://doi.org/10.5281/zenodo.99",
        "Replication files deposited at doi: 10.7910/DVN/ABC",
    ):
        text = f"A Study of Things\n{line}\nJane Doe\n" + "w\n" * 20
        assert page_identifiers(text, (0,)) == ()
    own = "PLoS ONE 8(3): e12345. doi:10.1371/journal.pone.0012345\nTitle\n"
    assert page_identifiers(own, (0,)) == ("doi:10.1371/journal.pone.0012345",)
