"""Reading a valid ledger: the values the rest of citeledger sees, and where they came from."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from citeledger.ledger import is_citation_key, load_ledger, yamlnodes
from citeledger.model import Identifier, Receipt
from conftest import missing

SPEC_EXAMPLE = """\
# Top level: only these keys.
citeledger: 1                 # optional: format version
evidence_dir: .citeledger     # optional
allow_files_outside: false
sources:                      # required mapping: citation key -> source
  cavalin2020:
    doi: 10.18653/v1/2020.emnlp-main.324
    type: paper-conference
    title: Improving Out-of-Scope Detection in Intent Classification
    author:
      - {family: Cavalin, given: Paulo}
      - family: Alves
        given: Victor Henrique
    issued: 2020
    container-title: Proceedings of EMNLP 2020
    page: 3952-3961
    quotes:
      - text: "This paper explores how intent classification …"
        id: abstract
        locator: p. 3952
    withdrawn:
      date: 2026-08-02
      reason: The paper is about word-graph embeddings; it does not make this claim.
      source_says: "This paper explores how …"
    disputed: {date: 2026-08-03, reason: Contradicts the claim.}
    audience: [internal]
  hchm:
    url: https://example.org/manual
    issued: {date-parts: [[2024, 3]]}
    audience: claims_handler
    quotes:
      - text: An appeal must be received within 60 days.
        locator: p. 14
        receipts:
          - outcome: found
            identifier: url:https://example.org/manual
            requested_url: https://example.org/manual
            url: https://example.org/manual/v7
            redirects: [https://example.org/manual]
            status: 200
            content_type: text/html
            retrieved_at: 2026-03-04T09:12:44Z
            body_sha256: aa
            evidence: sha256/aa
            extractor: selectolax 0.3
            text_sha256: bb
            page: 14
            char_start: 18422
            char_end: 18611
            quote: An appeal must be received within 60 days.
            quote_sha256: cc
            prefix: ''
            suffix: ' of the date'
            match: exact
            score: 1
            writer_quote_sha256: dd
            tool: citeledger 0.1.0
            metadata: {title: Manual, issued: {date-parts: [[2024]]}}
          - outcome: not-found
            identifier: url:https://example.org/manual
            retrieved_at: '2026-04-01T00:00:00Z'
            writer_quote_sha256: dd
            tool: citeledger 0.1.0
            reason: quote not in the retrieved text
            candidate: within 90 days
            differences: ["source says '90', quote says '60'"]
"""


def write(tmp_path: Path, text: str, name: str = "citeledger.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    return path


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    return write(tmp_path, SPEC_EXAMPLE)


def test_spec_example_loads_into_the_model(spec: Path) -> None:
    ledger = load_ledger(spec)
    assert list(ledger.sources) == ["cavalin2020", "hchm"]
    cavalin = ledger.sources["cavalin2020"]
    assert cavalin.identifier == Identifier("doi", "10.18653/v1/2020.emnlp-main.324")
    assert str(cavalin.identifier) == "doi:10.18653/v1/2020.emnlp-main.324"
    assert cavalin.csl["type"] == "paper-conference"
    assert cavalin.csl["author"] == [
        {"family": "Cavalin", "given": "Paulo"},
        {"family": "Alves", "given": "Victor Henrique"},
    ]
    assert cavalin.csl["issued"] == 2020
    assert cavalin.csl["page"] == "3952-3961"
    assert cavalin.title.startswith("Improving Out-of-Scope")
    (quote,) = cavalin.quotes
    assert (quote.text, quote.id, quote.locator) == (
        "This paper explores how intent classification …",
        "abstract",
        "p. 3952",
    )
    assert quote.receipts == () and quote.latest is None
    assert cavalin.withdrawn is not None and cavalin.withdrawn.date == "2026-08-02"
    assert cavalin.withdrawn.source_says == "This paper explores how …"
    assert cavalin.disputed is not None and cavalin.disputed.reason == "Contradicts the claim."
    assert cavalin.audience == ("internal",)
    hchm = ledger.sources["hchm"]
    assert hchm.audience == ("claims_handler",)
    assert hchm.csl["issued"] == {"date-parts": [[2024, 3]]}


def test_receipts_load_with_every_field(spec: Path) -> None:
    found, missed = load_ledger(spec).sources["hchm"].quotes[0].receipts
    assert isinstance(found, Receipt)
    assert found.outcome == "found" and found.status == 200 and found.page == 14
    assert (found.char_start, found.char_end) == (18422, 18611)
    assert found.redirects == ("https://example.org/manual",)
    assert found.retrieved_at == "2026-03-04T09:12:44Z"  # a YAML timestamp, kept as written
    assert found.prefix == "" and found.suffix == " of the date"
    assert found.score == 1.0 and isinstance(found.score, float)
    assert found.metadata == {"title": "Manual", "issued": {"date-parts": [[2024]]}}
    assert missed.outcome == "not-found" and missed.candidate == "within 90 days"
    assert missed.differences == ("source says '90', quote says '60'",)
    quote = load_ledger(spec).sources["hchm"].quotes[0]
    assert quote.latest == missed


def test_lines_point_at_the_writer_text(spec: Path) -> None:
    ledger = load_ledger(spec)
    text = spec.read_text("utf-8").splitlines()
    cavalin, hchm = ledger.sources["cavalin2020"], ledger.sources["hchm"]
    assert text[cavalin.line - 1].strip() == "cavalin2020:"
    assert text[cavalin.quotes[0].line - 1].strip().startswith('- text: "This paper')
    assert cavalin.withdrawn is not None
    assert text[cavalin.withdrawn.line - 1].strip() == "withdrawn:"
    receipt = hchm.quotes[0].receipts[1]
    assert text[receipt.line - 1].strip() == "- outcome: not-found"


def test_paths_root_and_evidence_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "book").mkdir()
    write(tmp_path / "book", "sources: {}\n")
    monkeypatch.chdir(tmp_path)
    ledger = load_ledger("book/citeledger.yaml")
    assert ledger.path == "book/citeledger.yaml"
    assert ledger.root == str(tmp_path / "book")
    assert ledger.evidence_dir == str(tmp_path / "book" / ".citeledger")
    write(tmp_path / "book", "evidence_dir: ../store\nsources:\n")
    ledger = load_ledger(Path("book/citeledger.yaml"))
    assert os.path.isabs(ledger.evidence_dir)
    assert ledger.evidence_dir == str(tmp_path / "store")
    assert ledger.sources == {}


def test_values_are_read_as_the_writer_typed_them(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "sources:\n"
        "  a:\n    arxiv: 2101.10000\n    title: No\n    volume: 012\n    issue: 3\n"
        "    quotes:\n      - text: 1984\n        locator: 14\n        id: 7\n"
        "  b:\n    isbn: 9780306406157\n    title: '  spaced  '\n"
        "  c:\n    isbn: 0-8044-2957-x\n    author: [World Health Organization]\n",
    )
    ledger = load_ledger(path)
    a = ledger.sources["a"]
    assert a.identifier == Identifier("arxiv", "2101.10000")  # not the float 2101.1
    assert a.csl == {"title": "No", "volume": "012", "issue": 3}  # not False, not 10
    assert (a.quotes[0].text, a.quotes[0].locator, a.quotes[0].id) == ("1984", "14", "7")
    assert ledger.sources["b"].identifier == Identifier("isbn", "9780306406157")
    assert ledger.sources["b"].csl["title"] == "  spaced  "
    c = ledger.sources["c"]
    assert c.identifier.value == "080442957X"
    assert c.csl["author"] == [{"literal": "World Health Organization"}]


def test_yaml_dates_are_kept_as_iso_text(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "sources:\n  a:\n    doi: 10.1234/x\n    issued: 2020-11-16\n    accessed: 2026-08-02\n"
        "    withdrawn: {date: 2026-08-02T10:00:00Z, reason: r}\n",
    )
    source = load_ledger(path).sources["a"]
    assert source.csl == {"issued": "2020-11-16", "accessed": "2026-08-02"}
    assert source.withdrawn is not None and source.withdrawn.date == "2026-08-02T10:00:00Z"


@pytest.mark.parametrize(
    "flag", ["verified: true", "checked: yes", "status: verified", "verified_at: 2026-08-02"]
)
def test_hand_written_verification_on_a_quote_is_flagged_not_trusted(
    tmp_path: Path, flag: str
) -> None:
    path = write(
        tmp_path,
        "sources:\n  a:\n    doi: 10.1234/x\n    quotes:\n"
        f"      - text: words\n        {flag}\n      - text: other words\n",
    )
    flagged, plain = load_ledger(path).sources["a"].quotes
    assert flagged.asserted_verified and not plain.asserted_verified
    assert flagged.receipts == () and flagged.latest is None  # nothing is made checked


def test_hand_written_verification_on_a_source_flags_all_its_quotes(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "sources:\n  a:\n    doi: 10.1234/x\n    verified: true\n"
        "    quotes:\n      - text: one\n      - text: two\n",
    )
    quotes = load_ledger(path).sources["a"].quotes
    assert [q.asserted_verified for q in quotes] == [True, True]
    assert all(q.receipts == () for q in quotes)


def test_file_identifiers_inside_and_allowed_outside(tmp_path: Path) -> None:
    path = write(
        tmp_path, "sources:\n  a:\n    file: docs/manual.pdf\n  b:\n    file: ./x/../y.txt\n"
    )
    ledger = load_ledger(path)
    assert not ledger.allow_files_outside
    assert ledger.sources["a"].identifier == Identifier("file", "docs/manual.pdf")
    assert ledger.sources["b"].identifier == Identifier("file", "./x/../y.txt")
    path = write(
        tmp_path,
        "allow_files_outside: true\nsources:\n  a:\n    file: ../shared/a.pdf\n"
        "  b:\n    file: /srv/docs/b.pdf\n",
    )
    ledger = load_ledger(path)
    assert ledger.allow_files_outside
    assert ledger.sources["a"].identifier.value == "../shared/a.pdf"
    assert ledger.sources["b"].identifier.value == "/srv/docs/b.pdf"


def test_crlf_and_bom_ledgers_load(tmp_path: Path) -> None:
    path = tmp_path / "citeledger.yaml"
    path.write_bytes(b"\xef\xbb\xbfsources:\r\n  a:\r\n    doi: 10.1234/x\r\n")
    source = load_ledger(path).sources["a"]
    assert source.identifier.value == "10.1234/x" and source.line == 2


def test_anchors_and_aliases_are_read(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "sources:\n  a:\n    doi: 10.1234/x\n    author: &people [{family: Smith}]\n"
        "  b:\n    doi: 10.1234/y\n    author: *people\n",
    )
    ledger = load_ledger(path)
    assert ledger.sources["b"].csl["author"] == [{"family": "Smith"}]


@pytest.mark.parametrize(
    ("key", "ok"),
    [
        ("cavalin2020", True),
        ("_x", True),
        ("smith:2020", True),
        ("doe.j-2020+b", True),
        ("Über2020", True),
        ("https://example.org/x", True),
        ("smith2020.", False),
        ("-smith", False),
        ("smith 2020", False),
        ("smith,2020", False),
        ("", False),
    ],
)
def test_citation_keys_follow_pandoc(key: str, ok: bool) -> None:
    assert is_citation_key(key) is ok


def test_uses_the_c_parser_when_libyaml_is_there() -> None:
    if not getattr(yaml, "__with_libyaml__", False):
        missing("PyYAML built without libyaml")
    assert yamlnodes.Loader is yaml.CSafeLoader


def test_pure_python_parser_gives_the_same_ledger(
    spec: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = load_ledger(spec)
    monkeypatch.setattr(yamlnodes, "_LazyLoader", yamlnodes._lazy_loader(yaml.SafeLoader))
    slow = load_ledger(spec)
    assert slow == fast
    assert [q.line for s in slow.sources.values() for q in s.quotes] == [
        q.line for s in fast.sources.values() for q in s.quotes
    ]


def test_reading_does_not_import_the_writer_machinery(spec: Path) -> None:
    """Every build reads the ledger; it must not pay for ruamel.yaml or the lock."""
    code = (
        "import sys; from citeledger.ledger import load_ledger; "
        f"load_ledger({str(spec)!r}); "
        "print(sorted(m for m in ('ruamel.yaml',) if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_loading_leaves_the_garbage_collector_as_it_was(spec: Path) -> None:
    import gc

    assert gc.isenabled()
    load_ledger(spec)
    assert gc.isenabled()
    gc.disable()
    try:
        load_ledger(spec)
        assert not gc.isenabled()
    finally:
        gc.enable()
