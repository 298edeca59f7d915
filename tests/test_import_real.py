"""Importing real reference-manager exports: every entry a source or a said reason, never none.

Run with ``-s`` to see the figures: entries → sources, and why the rest did not enter.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from citeledger.cli import main
from citeledger.ledger import load_ledger
from conftest import DOCUMENTS

BIBS = sorted(
    p.relative_to(DOCUMENTS)
    for folder in ("theses", "papers")
    for p in (DOCUMENTS / folder).rglob("*.bib")
    if (DOCUMENTS / folder).is_dir()
)
REASON = re.compile(r"\[WARNING\] citeledger: @(\S+) not imported: (.*)")


def _entries(pandoc: str, bib: Path) -> list[dict[str, object]]:
    out = subprocess.run(
        [pandoc, "-f", "biblatex", "-t", "csljson", str(bib)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    items: list[dict[str, object]] = json.loads(out)
    return items


@pytest.mark.skipif(not BIBS, reason="../shared/corpus/documents is not beside the repository")
@pytest.mark.parametrize("bib", BIBS, ids=str)
def test_a_real_bibliography_imports_entry_by_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pandoc_path: str, bib: Path
) -> None:
    items = _entries(pandoc_path, DOCUMENTS / bib)
    ledger = tmp_path / "citeledger.yaml"
    assert main(["import", str(DOCUMENTS / bib), "--ledger", str(ledger)]) == 0
    err = capsys.readouterr().err
    reasons = [m.group(2) for m in REASON.finditer(err)]
    sources = load_ledger(ledger).sources if ledger.exists() else {}
    assert len(sources) + len(reasons) == len(items)  # each entry: a source, or its reason
    for key, source in sources.items():  # every CSL field of the export is kept
        item = next(i for i in items if i["id"] == key)
        kept = {k for k, v in item.items() if v not in ("", [], {}, None)} - {"id"}
        assert kept <= set(source.csl), key
    why = Counter(r.split(" (")[0].split(":")[0] for r in reasons)
    with capsys.disabled():
        print(f"\n{bib}: {len(items)} entries → {len(sources)} sources; not: {dict(why)}")


def test_one_entry_the_ledger_cannot_hold_is_skipped_with_its_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@book{good, title={T}, author={Doe, Jane}, doi={10.1234/x}, pagetotal={12},\n"
        "  origdate={1900}, version={2}, pubstate={forthcoming}, editora={Roe, R.},\n"
        "  editoratype={collection}}\n"
        "@misc{spaced, title={U}, url={http://example.org/a b}}\n"
    )
    ledger = tmp_path / "citeledger.yaml"
    assert main(["import", str(bib), "--ledger", str(ledger)]) == 0
    err = capsys.readouterr().err
    assert "@spaced not imported" in err and "URL" in err
    good = load_ledger(ledger).sources["good"]
    assert good.csl["number-of-pages"] == "12" and good.csl["status"] == "forthcoming"
    assert good.csl["version"] == "2" and good.csl["original-date"] == {"date-parts": [[1900]]}
    assert not any(q.asserted_verified for q in good.quotes)
