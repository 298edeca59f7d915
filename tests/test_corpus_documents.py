"""The filter on 50 real pandoc documents (``../shared/corpus/documents``), none written by us.

Footnotes made of citations, cites in table cells and captions, crossrefs mixed into citation
groups, ``@handles`` in link text, raw TeX, Quarto chunks: the filter must exit 0 (non-strict),
write valid JSON, flag exactly the non-crossref citation items the walk finds, put one callout
per flag, and change nothing on a second run. Pandoc runs once per document (a thread pool);
the filter runs in-process with the real judge and a small ledger, so most keys are
``not-in-ledger``. Nothing from the corpus is copied into the project.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from helpers import PANDOC, run_main

from citeledger.build.citations import find_citations
from citeledger.build.filter import LedgerJudges
from citeledger.build.hidden import revealed
from citeledger.report.coverage import MIN_WORDS, prose_sentences
from conftest import CORPUS

DOCUMENTS = CORPUS / "documents"
MANIFEST = DOCUMENTS / "manifest.json"
ENTRIES = json.loads(MANIFEST.read_text())["documents"] if MANIFEST.is_file() else []
_CHUNK = re.compile(r"^(\s*)```\{([A-Za-z]\w*)[^}]*\}", re.MULTILINE)
# a few keys of pandoc's own test suite, so some citations are unchecked, not all not-in-ledger
LEDGER = """\
sources:
  item1:
    url: https://example.org/item1
    quotes:
      - text: A quote nobody has verified yet.
  item2:
    url: https://example.org/item2
"""

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not ENTRIES, reason="../shared/corpus is not beside the repository"),
]


def quarto_chunks(text: str) -> str:
    """```` ```{r label} ```` → ```` ```{.r} ````: roughly what knitr hands to pandoc (README)."""
    return _CHUNK.sub(r"\1```{.\2}", text)


def _pandoc(entry: dict) -> bytes:
    cwd = DOCUMENTS / entry["cwd"]
    cmd = [PANDOC, "-f", entry["from"], "-t", "json", *entry.get("args", [])]
    if entry.get("preprocess") == "quarto-chunks":
        text = "\n\n".join((cwd / name).read_text(encoding="utf-8") for name in entry["inputs"])
        proc = subprocess.run(cmd, input=quarto_chunks(text).encode(), cwd=cwd, capture_output=True)
    else:
        proc = subprocess.run([*cmd, *entry["inputs"]], cwd=cwd, capture_output=True)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return proc.stdout


@cache
def corpus_json() -> dict[str, bytes]:
    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(zip((e["id"] for e in ENTRIES), pool.map(_pandoc, ENTRIES), strict=True))


@pytest.fixture(scope="module")
def judges(tmp_path_factory: pytest.TempPathFactory) -> LedgerJudges:
    folder = tmp_path_factory.mktemp("ledger")
    (folder / "citeledger.yaml").write_text(LEDGER)
    return LedgerJudges(cwd=folder)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["id"] for e in ENTRIES])
@pytest.mark.parametrize("fmt", ["html", "gfm"])
def test_filter_on_corpus_document(
    entry: dict, fmt: str, judges: LedgerJudges, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(DOCUMENTS / entry["cwd"])  # where pandoc runs: its bibliography is there
    raw = corpus_json()[entry["id"]]
    found = find_citations(json.loads(raw))
    run = run_main(raw, fmt, judge_factory=judges, environ={})
    assert run.code == 0, run.err
    if not found:
        assert run.out == raw  # nothing to do: byte for byte what pandoc wrote
        return
    after = _census([run.doc["blocks"], list(run.doc["meta"].values())])
    assert after["flags"] == len(found)
    assert len(run.warnings) >= len(found)
    if fmt == "html":
        # every breakdown listed once, under its own number, in one callout per block
        assert sorted(after["callout-numbers"]) == sorted(after["flag-numbers"])
        assert after["callouts"] <= len(found)
    else:
        # one GitHub alert per block with breakdowns (issue 14), never more than citations
        assert 1 <= after["alerts"] <= len(found)
    # every Cite is still a Cite (citeproc formats it), and a second run changes nothing
    before = json.loads(raw)
    assert after["cites"] == _census([before["blocks"], list(before["meta"].values())])["cites"]
    assert run_main(run.out, fmt, judge_factory=judges, environ={}).out == run.out


ALERT = {"t": "RawInline", "c": ["markdown", "[!CAUTION]\n"]}


def _census(blocks: list) -> dict:
    """One pass over the AST: Cites, flags (and their numbers), callouts, GitHub alerts."""
    counts: dict = {
        "cites": 0,
        "flags": 0,
        "alerts": 0,
        "callouts": 0,
        "flag-numbers": [],
        "callout-numbers": [],
    }
    stack: list = [blocks]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        t = node.get("t")
        if t == "Cite":
            counts["cites"] += 1
        elif t in ("Span", "Div"):
            # a GitHub Markdown build's Spans hide their attributes (build.hidden)
            attr = (revealed(node) if t == "Span" else node)["c"][0]
            ident, classes = attr[0], attr[1]
            if "citeledger-flag" in classes:
                counts["flags"] += 1
                counts["flag-numbers"].append(ident.rsplit("-", 1)[1])
            elif "citeledger-breakdown" in classes or "citeledger-breakdown-item" in classes:
                counts["callouts"] += "citeledger-breakdown" in classes  # a block's callout
                if ident:  # a grouped callout has none: its items carry the numbers
                    counts["callout-numbers"].append(ident.rsplit("-", 1)[1])
        elif t == "BlockQuote" and node["c"] and node["c"][0].get("c", [None])[:1] == [ALERT]:
            counts["alerts"] += 1
        c = node.get("c")
        if isinstance(c, (list, dict)):
            stack.append(c)
        for key in ("citationPrefix", "citationSuffix"):
            if key in node:
                stack.append(node[key])
    return counts


def test_corpus_expectations_hold() -> None:
    """The manifest's ``expect_cites`` agrees with the walk: crossref-only documents aside."""
    found = {e["id"]: find_citations(json.loads(corpus_json()[e["id"]])) for e in ENTRIES}
    counts = {doc_id: sum(not f.raw for f in cites) for doc_id, cites in found.items()}
    # raw TeX citation commands are found too (s19), each a breakdown: pandoc's testsuite
    # prints one, the theses and a paper write them in raw figures, listings and margin notes
    raw = {doc_id: len([f for f in cites if f.raw]) for doc_id, cites in found.items()}
    assert {doc_id: n for doc_id, n in raw.items() if n} == {
        "pandoc/testsuite": 1,  # \cite[22-23]{smith.1899}
        "theses/LaurentRDC": 7,  # \begin{figure}…\caption[…]{… \cite{Siwick2002}}
        "theses/swt30": 1,  # \marginnote{… \citep{Burrows2010}}
        "papers/symbolic-execution-survey": 1,  # \begin{lstfloat}…\cite{tillmann2008pex}
    }
    for entry in ENTRIES:
        if not entry.get("expect_cites"):
            assert counts[entry["id"]] == 0, entry["id"]
    assert counts["crossref/refsInObjects"] == 0 and counts["crossref/refsInListOf"] == 0
    assert counts["negatives/portugal-github-users"] == 4  # @handles do parse as citations
    assert counts["papers/deep-review"] > 1000


def test_claims_and_coverage_sentences_are_the_same_spans() -> None:
    """A citation's claim is the very coverage sentence that carries it (one walk, one splitter).

    Every claim that is a sentence (not an explicit ``[…]{.claim}`` Span, not a citation-only
    note, not in a heading, cell, term or the metadata, and long enough to count) must equal the
    claim words of a coverage sentence with provenance. Before the splitters were one, 94 of the
    ~2,500 such claims did not even lie inside a single coverage sentence.
    """
    checked = 0
    missing: list[str] = []
    for doc_id, raw in corpus_json().items():
        doc = json.loads(raw)
        sentences = {s.claim: s for s in prose_sentences(doc)}
        for found in find_citations(doc):
            if found.claim_span is not None or found.claim_at is not None or found.in_metadata:
                continue
            # a raw block's claim is its raw text, an image's its alt (s19): no prose block
            if {"heading", "cell", "term", "raw", "image"} & set(
                found.where
            ) or not found.ref.claim:
                continue
            sentence = sentences.get(found.ref.claim)
            if sentence is None:
                words = [
                    w for w in found.ref.claim.split() if w[0] != "@" and any(map(str.isalnum, w))
                ]
                if len(words) >= MIN_WORDS:  # shorter ones are no prose sentence
                    missing.append(f"{doc_id}: {found.ref.claim[:120]}")
                continue
            # a Cite in link text is a handle (``[@user](url)``), not declared provenance
            assert sentence.has_provenance or found.in_link, (doc_id, found.ref.claim)
            checked += 1
    assert checked > 2000  # the corpus is what is tested
    assert missing == []
