"""Coverage (seed 001): the share of prose sentences that declare their provenance.

Documents are parsed by the bundled pandoc, so the tests see the AST a real build sees.
"""

from __future__ import annotations

import json
import re
import subprocess
from functools import cache
from pathlib import Path

import pypandoc
import pytest

from citeledger.report.coverage import Coverage, compute_coverage, is_crossref, prose_sentences
from conftest import CORPUS as SHARED_CORPUS

CORPUS = SHARED_CORPUS / "documents"


@cache
def _json(markdown: str) -> str:
    done = subprocess.run(
        [pypandoc.get_pandoc_path(), "-f", "markdown", "-t", "json"],
        input=markdown.encode("utf-8"),
        capture_output=True,
        check=True,
    )
    return done.stdout.decode("utf-8")


def ast(markdown: str) -> dict:
    return json.loads(_json(markdown))


def sentences(markdown: str) -> list[tuple[str, bool]]:
    return [(s.text, s.has_provenance) for s in prose_sentences(ast(markdown))]


# --- splitting -----------------------------------------------------------------------------------


def test_abbreviations_numbers_and_initials_do_not_end_a_sentence() -> None:
    got = sentences(
        "Smith et al. found the effect in Fig. 2 on p. 14 of the report. "
        "J. R. R. Tolkien wrote 3.5 books about rings, e.g. the One Ring, cf. the Hobbit. "
        "Prices fell (i.e. sharply) in the U.S. market last year."
    )
    assert [text for text, _ in got] == [
        "Smith et al. found the effect in Fig. 2 on p. 14 of the report.",
        "J. R. R. Tolkien wrote 3.5 books about rings, e.g. the One Ring, cf. the Hobbit.",
        "Prices fell (i.e. sharply) in the U.S. market last year.",
    ]


def test_questions_exclamations_and_closing_quotes_end_sentences() -> None:
    got = sentences(
        'Is this really the case here? It certainly is the case! He said "stop this now." '
        "Then everyone left the room quietly."
    )
    assert len(got) == 4


def test_citation_after_the_full_stop_belongs_to_the_sentence_before() -> None:
    got = sentences(
        "The first claim has enough words. [@key] The second claim has no source at all."
    )
    assert got == [
        ("The first claim has enough words. [@key]", True),
        ("The second claim has no source at all.", False),
    ]


def test_footnote_after_the_full_stop_belongs_to_the_sentence_before() -> None:
    got = sentences(
        "A claim supported only by its note.^[See [@key, p. 3].] The next claim has no note at all."
    )
    assert got[0] == ("A claim supported only by its note.", True)
    assert got[1] == ("The next claim has no note at all.", False)


def test_citation_that_opens_a_sentence_belongs_to_that_sentence() -> None:
    got = sentences(
        "Several surveys exist on this topic. [@papers] gives a detailed overview of them."
    )
    assert got == [
        ("Several surveys exist on this topic.", False),
        ("[@papers] gives a detailed overview of them.", True),
    ]


def test_fragments_under_four_words_are_not_prose_sentences() -> None:
    got = sentences("Yes. No way. This one has four words. Three words here.")
    assert [text for text, _ in got] == ["This one has four words."]


def test_citation_text_does_not_count_as_words() -> None:
    # "[@a; @b; @c, p. 5]" is not four words of prose
    assert sentences("Claim [@a; @b; @c, p. 5].") == []


# --- provenance ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key",
    [
        *("fig-plot", "fig:plot", "sec:intro", "sec-intro", "tbl-1", "tbl:x", "eq-1", "eq:a"),
        *("thm-main", "lem-a", "cor-b", "prp-c", "cnj-d", "def-e", "exm-f", "exr-g", "sol-h"),
        *("rem-i", "nte-j", "tip-k", "wrn-l", "imp-m", "cau-n"),  # Quarto's callouts
    ],
)
def test_cross_references_are_not_provenance(key: str) -> None:
    assert is_crossref(key)
    got = sentences(f"As shown in @{key} the curve rises steeply.")
    assert got == [(f"As shown in @{key} the curve rises steeply.", False)]


@pytest.mark.parametrize("key", ["smith2020", "doi:10.1101/2020.01.01", "url:https://x.org", "fig"])
def test_real_keys_are_citations(key: str) -> None:
    assert not is_crossref(key)


def test_the_filter_and_coverage_share_one_crossref_test() -> None:
    from citeledger.build import citations
    from citeledger.report import coverage

    assert coverage.is_crossref is citations.is_crossref


def test_custom_crossref_kinds_of_the_document_are_not_provenance() -> None:
    meta = "---\ncrossref:\n  custom:\n    - kind: float\n      key: vid\n---\n\n"
    got = sentences(meta + "As the clip @vid-intro shows, the curve rises steeply.")
    assert got == [("As the clip @vid-intro shows, the curve rises steeply.", False)]
    got = sentences("As the clip @vid-intro shows, the curve rises steeply.")
    assert got[0][1] is True  # without the custom kind, vid-intro is a citation key


def test_crossref_mixed_with_a_real_key_is_provenance() -> None:
    got = sentences("The planet is small [@smith2020; see also @fig:mass-radius] indeed.")
    assert got[0][1] is True


def test_unverified_span_and_div_are_provenance_and_counted() -> None:
    doc = ast(
        "[The moon is made of cheese]{.unverified} according to old folklore.\n\n"
        "::: unverified\nThis whole paragraph comes from memory. So does this second one.\n:::\n\n"
        "This sentence declares nothing at all."
    )
    cov = compute_coverage(doc)
    assert cov.prose_sentences == 4
    assert cov.with_provenance == 3
    assert cov.unverified == 3
    assert cov.without_provenance == ["This sentence declares nothing at all."]


def test_citation_in_link_text_is_a_handle_not_a_citation() -> None:
    assert sentences("[@jgm](https://github.com/jgm) wrote pandoc in Haskell long ago.") == [
        ("@jgm wrote pandoc in Haskell long ago.", False)
    ]


def test_textual_citation_is_provenance() -> None:
    assert sentences("@smith2020 argues that the effect is real.")[0][1] is True


# --- what is and is not prose --------------------------------------------------------------------


def test_headings_table_rows_and_code_are_dropped() -> None:
    md = (
        "# A heading with many words [@key]\n\n"
        "| column one | column two |\n|---|---|\n| a table row with many words [@t] | y |\n\n"
        "```\nA code block with many words in it.\n```\n\n"
        "```{=latex}\n\\section{Raw block with many words}\n```\n\n"
        "Use `this code has many words` now.\n\n"
        "Only this sentence is real prose."
    )
    assert sentences(md) == [("Only this sentence is real prose.", False)]


def test_captions_footnotes_and_definitions_are_prose_terms_are_not() -> None:
    md = (
        "Body sentence with a note.^[The footnote sentence is prose too.]\n\n"
        ": This table caption makes a claim [@capkey]\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n"
        "![A figure caption with four words](img.png)\n\n"
        "A term with many words here\n:   The definition has four words.\n"
    )
    got = sentences(md)
    assert got == [
        ("Body sentence with a note.", False),
        ("The footnote sentence is prose too.", False),
        ("This table caption makes a claim [@capkey]", True),
        ("A figure caption with four words", False),
        ("The definition has four words.", False),
    ]


def test_line_breaks_and_line_blocks_end_sentences() -> None:
    md = (
        "| The first line of a poem\n| the second line of it\n\n"
        "A hard break here now\\\nthen more words follow it."
    )
    assert [t for t, _ in sentences(md)] == [
        "The first line of a poem",
        "the second line of it",
        "A hard break here now",
        "then more words follow it.",
    ]


def test_the_tools_own_callouts_and_the_bibliography_are_not_prose() -> None:
    md = (
        "The claim in the text is here [@k].\n\n"
        "::: {.citeledger-breakdown .citeledger-unchecked}\nUnchecked citation: nobody has "
        "verified this source.\n:::\n\n"
        "::: {#refs}\nSmith, J. 2020. A book with a long title.\n:::\n"
    )
    assert sentences(md) == [("The claim in the text is here [@k].", True)]


def test_filter_spans_add_no_words_but_keep_their_citations() -> None:
    md = "The claim sits here [[@k]]{.citeledger-cite} [⚠ unchecked citation]{.citeledger-flag}."
    got = list(prose_sentences(ast(md)))
    assert [(s.words, s.has_provenance) for s in got] == [(4, True)]


def test_the_document_is_not_changed() -> None:
    doc = ast("A claim with a source [@a].^[A note with four words.] [x]{.unverified} more words.")
    before = json.dumps(doc, sort_keys=True)
    compute_coverage(doc)
    assert json.dumps(doc, sort_keys=True) == before


def test_inline_math_counts_as_one_word() -> None:
    assert [t for t, _ in sentences("It produces $2^n$ paths.")] == ["It produces 2^n paths."]


# --- the report ----------------------------------------------------------------------------------


def test_ratio_and_json_shape() -> None:
    cov = compute_coverage(
        ast("One claim with a source [@a]. One claim without a source. Another one lacks it too.")
    )
    assert (cov.prose_sentences, cov.with_provenance) == (3, 1)
    assert cov.ratio == pytest.approx(1 / 3)
    out = cov.to_json()
    assert {"prose_sentences", "with_provenance", "ratio"} <= out.keys()
    assert out["ratio"] == 0.3333
    assert out["without_provenance"] == [
        "One claim without a source.",
        "Another one lacks it too.",
    ]
    json.dumps(out)


def test_no_prose_means_no_ratio_not_full_coverage() -> None:
    cov = compute_coverage(ast("# Only a heading here\n\n```\ncode only\n```\n"))
    assert cov == Coverage(prose_sentences=0, with_provenance=0)
    assert cov.ratio is None
    assert cov.to_json()["ratio"] is None


def test_not_a_pandoc_document_is_refused() -> None:
    with pytest.raises(ValueError):
        compute_coverage({"meta": {}})


# --- real documents ------------------------------------------------------------------------------


def _corpus_json(folder: Path, name: str) -> dict:
    if not (folder / name).is_file():
        pytest.skip(f"corpus not present at {folder}")
    done = subprocess.run(
        [pypandoc.get_pandoc_path(), "-f", "markdown", name, "-t", "json"],
        cwd=folder,
        capture_output=True,
        check=True,
    )
    return json.loads(done.stdout)


def _line_estimate(markdown: str) -> tuple[int, int]:
    """An independent, rough count: this author writes one sentence per source line."""
    prose = cited = 0
    fenced = in_yaml = False
    for n, raw in enumerate(markdown.splitlines()):
        line = raw.strip()
        if n == 0 and line == "---":
            in_yaml = True
            continue
        if in_yaml:
            in_yaml = line not in ("---", "...")
            continue
        if line.startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced or not line or line.startswith(("#", "|", "<!--", "\\")):
            continue
        line = line.lstrip(":").strip()
        words = [w for w in re.sub(r"\[@[^\]]*\]", "", line).split() if re.search(r"\w", w)]
        if len(words) < 4:
            continue
        prose += 1
        if re.search(r"@(?!fig|sec|tbl|eq|lst)\w", line):
            cited += 1
    return prose, cited


def test_real_survey_paper_coverage_is_plausible() -> None:
    folder = CORPUS / "papers" / "LinqLover-symbolic-execution-survey" / "report"
    doc = _corpus_json(folder, "report.md")
    cov = compute_coverage(doc)
    est_prose, est_cited = _line_estimate((folder / "report.md").read_text("utf-8"))
    assert est_prose * 0.8 <= cov.prose_sentences <= est_prose * 1.2, (cov, est_prose)
    assert est_cited * 0.85 <= cov.with_provenance <= est_cited * 1.15, (cov, est_cited)
    assert cov.ratio is not None and 0.25 < cov.ratio < 0.75
    assert cov.unverified == 0

    all_sentences = list(prose_sentences(doc))
    # every sentence showing a real bracketed citation has provenance, and vice versa for none
    for s in all_sentences:
        keys = re.findall(r"@([\w:.\-/]+)", s.text)
        if any(not is_crossref(k) for k in keys) and "[@" in s.text:
            assert s.has_provenance, s.text
        assert len(s.text.split()) >= 4
        assert "```" not in s.text
    headings = {
        " ".join(str(i.get("c", " ")) for i in b["c"][2] if i.get("t") == "Str")
        for b in doc["blocks"]
        if b.get("t") == "Header"
    }
    assert not headings & {s.text for s in all_sentences}


def test_github_handles_in_links_and_tables_give_no_provenance() -> None:
    folder = CORPUS / "negatives" / "panflute-portugal" / "tests" / "input" / "portugal"
    doc = _corpus_json(folder, "index.md")
    assert '"Cite"' in json.dumps(doc), "the negative is expected to hold parsed @handles"
    cov = compute_coverage(doc)
    assert cov.with_provenance == 0


def test_coverage_is_the_same_after_the_filter_marks_unverified_claims(tmp_path: Path) -> None:
    """The filter decorates ``.unverified`` with ``citeledger-unverified``: still the writer's."""
    import subprocess
    import sys

    import pypandoc

    doc = tmp_path / "d.md"
    doc.write_text(
        "[The model says this of its own accord, without any source]{.unverified}.\n\n"
        "::: unverified\nA whole paragraph the writer has not sourced at all yet.\n:::\n\n"
        "An ordinary sentence that has no provenance of any kind.\n",
        encoding="utf-8",
    )
    pandoc = pypandoc.get_pandoc_path()
    raw = subprocess.run([pandoc, str(doc), "-t", "json"], capture_output=True, check=True)
    filt = str(Path(sys.executable).parent / "pandoc-citeledger")
    filtered = subprocess.run(
        [pandoc, str(doc), "--filter", filt, "-t", "json"],
        capture_output=True,
        check=True,
        cwd=tmp_path,
    )
    before = compute_coverage(json.loads(raw.stdout))
    after = compute_coverage(json.loads(filtered.stdout))
    assert (before.prose_sentences, before.with_provenance) == (3, 2)
    assert (after.prose_sentences, after.with_provenance) == (3, 2)
