"""Citations in the title, subtitle, thanks and abstract are judged like any other.

A claim in the abstract is the first claim a reader meets. It is found by the one walk (so
``check`` lists it), flagged where it stands in the metadata, counted by ``strict`` and listed in
the audit; its callout goes at the top of the body, which every template and format shows
(a title cannot hold a block, and an HTML fragment or a GFM page prints no abstract at all).
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from fixture_judge import FixtureJudge
from helpers import PANDOC, body, pandoc_bytes, run_main, venv_env, walk, with_class

from citeledger.build.citations import find_citations, plain_text
from conftest import CORPUS as SHARED_CORPUS

DOC = """\
---
title: A title claim [@st-stale]
subtitle: Checked subtitle [@st-checked]
thanks: Funded as [@st-withdrawn] says.
abstract: |
  First abstract sentence. As @st-tampered showed, the effect holds.

  A second paragraph.
---

The body claim [@st-unchecked].
"""
CORPUS = SHARED_CORPUS / "documents"
JSS = CORPUS / "quarto" / "quarto-journals-jss" / "template.qmd"


def fixture(raw: bytes, fmt: str = "html", **kw):  # type: ignore[no-untyped-def]
    return run_main(raw, fmt, judge_factory=FixtureJudge, **kw)


def _flag_ids(node: object) -> list[str]:
    """The flags' anchors: their ids, or in LaTeX metadata the label written inside them."""
    out = []
    for flag in with_class(node, "Span", "citeledger-flag"):
        raw = [n["c"][1] for n in walk(flag) if n.get("t") == "RawInline" and "label{" in n["c"][1]]
        out.append(flag["c"][0][0] or raw[0].split("label{")[1].rstrip("}"))
    return out


def test_latex_writes_anchors_that_survive_maketitle() -> None:
    """``\\title{…}`` is a moving argument: pandoc's ``\\label`` for an id breaks the build."""
    doc = fixture(pandoc_bytes(DOC, "-M", "citeledger.audit=true"), "latex").doc
    meta_spans = [n for n in walk(doc["meta"]) if n.get("t") == "Span"]
    assert [s["c"][0][0] for s in meta_spans if s["c"][0][0]] == []
    labels = {
        n["c"][1] for n in walk(doc["meta"]) if n.get("t") == "RawInline" and "label" in n["c"][1]
    }
    assert "\\protect\\phantomsection\\protect\\label{citeledger-cite-1}" in labels
    assert "\\protect\\phantomsection\\protect\\label{citeledger-claim-1}" in labels
    assert (
        fixture(fixture(pandoc_bytes(DOC), "latex").out, "latex").out
        == fixture(pandoc_bytes(DOC), "latex").out
    )


@pytest.mark.parametrize("fmt", ["html", "latex", "docx", "gfm", "plain"])
def test_metadata_citations_are_flagged_in_place_and_explained_at_the_top(fmt: str) -> None:
    run = fixture(pandoc_bytes(DOC), fmt)
    meta, blocks = run.doc["meta"], body(run.doc)
    # the flag stands at the citation, inside the metadata field
    assert _flag_ids(meta["title"]) == ["citeledger-cite-1"]
    assert _flag_ids(meta["subtitle"]) == []  # checked: wrapped, quiet
    assert with_class(meta["subtitle"], "Span", "citeledger-checked")
    assert _flag_ids(meta["thanks"]) == ["citeledger-cite-3"]
    assert _flag_ids(meta["abstract"]) == ["citeledger-cite-4"]
    assert _flag_ids(blocks) == ["citeledger-cite-5"]
    # the metadata claims' breakdowns open the body as one grouped callout, in order, before
    # the body's own
    if fmt == "gfm":
        quotes = [b for b in blocks if b["t"] == "BlockQuote"]
        assert blocks[0]["t"] == "BlockQuote" and len(quotes) == 2
        strs = [n["c"] for n in walk(quotes[0]) if n.get("t") == "Str"]
        numbers = [b for a, b in itertools.pairwise(strs) if a == "Citation" and b.isdigit()]
        assert numbers == ["1", "3", "4"]
    else:
        assert blocks[0]["t"] == "Div"
        assert with_class(blocks[0], "Div", "citeledger-breakdowns") == [blocks[0]]
        divs = with_class(blocks, "Div", "citeledger-breakdown")
        divs += with_class(blocks, "Div", "citeledger-breakdown-item")
        ids = sorted(d["c"][0][0] for d in divs if d["c"][0][0])
        if fmt in ("html", "latex", "docx"):
            assert ids == [f"citeledger-breakdown-{n}" for n in (1, 3, 4, 5)]
    assert len(run.warnings) == 4
    assert "citation 4 (@st-tampered) tampered" in run.err
    assert "in “As @st-tampered showed, the effect holds.”" in run.err


def test_strict_counts_metadata_breakdowns_and_check_sees_them() -> None:
    run = fixture(pandoc_bytes(DOC, "-M", "citeledger.strict=true"))
    assert run.code == 1 and "strict: 4 of 5 citations are breakdowns" in run.err
    only_abstract = "---\nabstract: As [@st-stale] says.\n---\n\nNo citation here.\n"
    assert fixture(pandoc_bytes(only_abstract, "-M", "citeledger.strict=true")).code == 1
    keys = [f.ref.key for f in find_citations(run.doc)]
    assert keys == ["st-stale", "st-checked", "st-withdrawn", "st-tampered", "st-unchecked"]


def test_the_audit_lists_metadata_claims_and_links_to_them() -> None:
    run = fixture(pandoc_bytes(DOC, "-M", "citeledger.audit=true"))
    audit = body(run.doc)[-1]
    summary = next(n for n in walk(audit) if n.get("t") == "Para")
    assert "5 citations: 1 checked, 4 not." in plain_text(summary["c"])
    back = {n["c"][2][0] for n in walk(audit) if n.get("t") == "Link"}
    assert {"#citeledger-claim-1", "#citeledger-claim-4"} <= back
    anchors = [  # an empty anchor, or the wrapper's own id
        n["c"][0][0]
        for n in walk(run.doc["meta"])
        if n.get("t") == "Span" and n["c"][0][0].startswith("citeledger-claim-")
    ]
    assert sorted(anchors) == [f"citeledger-claim-{n}" for n in range(1, 5)]


@pytest.mark.parametrize("fmt", ["html", "latex", "gfm", "docx"])
def test_a_second_run_changes_nothing(fmt: str) -> None:
    first = fixture(pandoc_bytes(DOC, "-M", "citeledger.audit=true"), fmt)
    assert fixture(first.out, fmt).out == first.out


def test_a_standalone_html_build_shows_the_abstract_flag(tmp_path: Path) -> None:
    """Through pandoc itself: the flag is printed in the abstract, the callout atop the body."""
    (tmp_path / "doc.md").write_text(DOC)
    filt = Path(__file__).parent / "data" / "filter" / "fixture_filter.py"
    html = subprocess.run(
        [PANDOC, "-s", "--filter", str(filt), "doc.md", "-t", "html", "--wrap=none"],
        cwd=tmp_path,
        env=venv_env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    abstract = html[html.index('class="abstract"') : html.index("</header>")]
    assert "citation 4: tampered" in abstract
    body = html[html.index("</header>") :]
    assert body.index('id="citeledger-breakdown-1"') < body.index("The body claim")


@pytest.mark.skipif(not JSS.is_file(), reason="../shared/corpus is not beside the repository")
def test_the_jss_templates_abstract_citation_is_judged(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real case: Quarto's JSS template cites in its abstract. Run where Quarto runs the
    filter, the document's folder, where its bibliography is (its ``@fig-quine`` is then known
    to be no source)."""
    import re

    monkeypatch.chdir(JSS.parent)

    text = re.sub(r"^(\s*)```\{([A-Za-z]\w*)[^}]*\}", r"\1```{.\2}", JSS.read_text(), flags=re.M)
    raw = subprocess.run(
        [PANDOC, "-f", "markdown", "-t", "json"],
        input=text.encode(),
        capture_output=True,
        check=True,
        cwd=JSS.parent,
    ).stdout
    run = run_main(raw, "html", judge_factory=FixtureJudge)
    (flag,) = with_class(run.doc["meta"]["abstract"], "Span", "citeledger-flag")
    assert flag["c"][0][0] == "citeledger-cite-1"
    first = body(run.doc)[0]
    assert first["t"] == "Div" and first["c"][0][0] == "citeledger-breakdown-1"
    assert "ZeileisKleiberJackman2008" in run.warnings[0]
