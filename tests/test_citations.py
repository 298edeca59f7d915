"""The one walk (``citations.find_citations``): what counts as a citation, and where it sits.

``citeledger check`` and the filter both rely on it, so these tests pin what a writer sees in
both: every citation in the title and abstract, notes, tables, captions, headings and lists is
found once, in order; cross-references (Quarto's theorem and callout kinds and a document's
custom kinds too), image alt text and ``nocite`` are not citations; the claim is the sentence;
nothing the filter added hides a citation or changes a claim.
"""

from __future__ import annotations

import copy
import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from helpers import pandoc_json

from citeledger.build.citations import (
    crossref_prefixes,
    find_citations,
    is_crossref,
    parse_locator,
    parse_selector,
    plain_text,
    resolve,
    scan_document,
    sentence_spans,
    strip_selector,
)

CONSTRUCTS = """\
---
title: A title citing [@in-title]
nocite: "@in-nocite"
---

# Heading [@in-heading]

Body one.^[@note-only] Body two.^[A note with its own claim [@note-claim].]

| Head [@in-head] |
|-----------------|
| Cell [@in-cell] |

: Caption [@in-table-caption]

![Figure caption [@in-figure]](x.png)

- Item claim [@in-item].
- Other.

Term [@in-term]
:   Definition claim [@in-definition].

> Quoted claim [@in-quote].

::: {citeledger-strict=false}
Div claim [@in-div].
:::

A [link with @in-link](http://example.org) and [@fig:one; @sec-two; @in-group; @tbl:x].

Nested [@outer, see @inner] end.
"""


@pytest.fixture(scope="module")
def constructs() -> dict:
    return pandoc_json(CONSTRUCTS)


def test_every_place_is_found_once_in_document_order(constructs: dict) -> None:
    keys = [f.ref.key for f in find_citations(constructs)]
    assert keys == [
        "in-title",
        "in-heading",
        "note-only",
        "note-claim",
        "in-table-caption",
        "in-head",
        "in-cell",
        "in-figure",
        "in-item",
        "in-term",
        "in-definition",
        "in-quote",
        "in-div",
        "in-link",
        "in-group",
        "outer",
        "inner",
    ]
    assert [f.ref.occurrence for f in find_citations(constructs)] == list(range(1, 18))


def test_nocite_crossrefs_and_image_alt_are_not_citations(constructs: dict) -> None:
    keys = {f.ref.key for f in find_citations(constructs)}
    assert not keys & {"in-nocite", "fig:one", "sec-two", "tbl:x"}
    # the figure's image repeats the caption in its alt text; it is judged once
    assert sum(1 for f in find_citations(constructs) if f.ref.key == "in-figure") == 1


@pytest.mark.parametrize(
    "key",
    [
        *("fig-a", "sec-b", "tbl-c", "eq-d", "lst-e", "fig:a", "sec:b", "tbl:c", "eq:d", "lst:e"),
        # Quarto's theorem-like kinds and its callouts
        *("thm-a", "lem-a", "cor-a", "prp-a", "cnj-a", "def-a", "exm-a", "exr-a", "sol-a"),
        *("rem-a", "nte-a", "tip-a", "wrn-a", "imp-a", "cau-a"),
    ],
)
def test_crossref_prefixes(key: str) -> None:
    assert is_crossref(key)


def test_quarto_kinds_and_custom_crossref_keys_are_not_citations() -> None:
    markdown = (
        "---\ncrossref:\n  custom:\n    - kind: float\n      key: vid\n"
        "      reference-prefix: Video\n    - kind: float\n      key: sup\n---\n\n"
        "By @thm-main, @lem-a and @def-x [see @nte-warn; @cau-y], as @vid-intro and "
        "[@sup-table; @real2020] show. Without the metadata @vidal2021 is a citation.\n"
    )
    doc = pandoc_json(markdown)
    assert crossref_prefixes(doc["meta"])[-2:] == ("vid-", "sup-")
    assert [f.ref.key for f in find_citations(doc)] == ["real2020", "vidal2021"]
    assert not is_crossref("vid-intro")  # the custom kind belongs to that document only
    assert is_crossref("vid-intro", crossref_prefixes(doc["meta"]))


def test_capitalised_crossrefs_are_passed_over_and_named() -> None:
    # a reference opening a sentence is capitalised (pandoc-crossref @Fig:x, Quarto @Fig-x)
    doc = pandoc_json("@Fig:mass shows it [@Eq:two; @real2020]. @Tbl-x agrees [@sec:a].\n")
    scan = scan_document(doc)
    assert [f.ref.key for f in scan.citations] == ["real2020"]
    assert scan.crossrefs == ("Fig:mass", "Eq:two", "Tbl-x", "sec:a")


@pytest.mark.parametrize("key", ["figueroa2020", "section", "doi:10.1/x", "eqbal", "secret"])
def test_keys_that_only_look_like_crossrefs_are_citations(key: str) -> None:
    assert not is_crossref(key)


def _by_key(doc: dict) -> dict:
    return {f.ref.key: f for f in find_citations(doc)}


def test_callout_hosts(constructs: dict) -> None:
    found = _by_key(constructs)
    blocks = constructs["blocks"]

    def host_block(key: str) -> dict:
        f = found[key]
        return resolve(constructs, f.host_path)[f.host_after]

    # heading, table (any cell or caption), figure: after the block, in the body
    assert found["in-heading"].host_path == ("blocks",)
    assert host_block("in-heading")["t"] == "Header"
    for key in ("in-table-caption", "in-head", "in-cell"):
        assert found[key].host_path == ("blocks",) and host_block(key)["t"] == "Table"
    assert host_block("in-figure")["t"] == "Figure"
    # a note made only of a citation supports the body sentence: callout after the body block
    assert found["note-only"].host_path == ("blocks",)
    assert blocks[found["note-only"].host_after]["t"] == "Para"
    # a note with its own claim keeps the callout inside the note, after its paragraph
    note_claim = found["note-claim"]
    assert "note" in note_claim.where
    assert note_claim.host_path[-1] == "c" and note_claim.host_path != ("blocks",)
    assert host_block("note-claim")["t"] == "Para"
    # list item and definition: inside, after the paragraph; a term: start of its definition
    assert host_block("in-item")["t"] == "Plain" and "bullet-list" in found["in-item"].where
    assert found["in-term"].host_after == -1
    assert resolve(constructs, found["in-term"].host_path) is resolve(
        constructs, found["in-definition"].host_path
    )
    # block quote and div: inside, after the paragraph
    assert "block-quote" in found["in-quote"].where and host_block("in-quote")["t"] == "Para"
    assert found["in-quote"].host_path != ("blocks",)


def test_link_text_and_attributes_are_recorded(constructs: dict) -> None:
    found = _by_key(constructs)
    assert found["in-link"].in_link and not found["in-group"].in_link
    assert found["in-div"].attribute("strict") == "false"
    assert found["in-quote"].attribute("strict") is None


def test_nested_cite_belongs_to_the_outer_one(constructs: dict) -> None:
    found = _by_key(constructs)
    assert found["inner"].cite_path == found["outer"].cite_path
    assert resolve(constructs, found["inner"].citation_path)["citationId"] == "inner"


def test_claims_are_sentences_in_plain_text(constructs: dict) -> None:
    found = _by_key(constructs)
    assert found["in-heading"].ref.claim == "Heading"
    assert found["note-only"].ref.claim == "Body one."
    assert found["note-claim"].ref.claim == "A note with its own claim."
    assert found["in-item"].ref.claim == "Item claim."
    assert found["in-cell"].ref.claim == "Cell"
    assert found["in-link"].ref.claim.startswith("A link with @in-link and")


@pytest.mark.parametrize(
    ("markdown", "claim"),
    [
        ("First one. Second [@k] here. Third.", "Second here."),
        ("First one [@k]. Second.", "First one."),
        ("First one. [@k] Second.", "First one."),
        ("As e.g. Smith showed [@k], it holds. Next.", "As e.g. Smith showed, it holds."),
        ("See Fig. 3 and J. Doe [@k]. Next one.", "See Fig. 3 and J. Doe."),
        ("@k says so. Others disagree.", "@k says so."),
        ("Is it? Yes [@k]! Done.", "Yes!"),
        ("A “quoted” claim [@k].", "A “quoted” claim."),
        ("Notes^[See also @k.] go here. Next.", "Notes go here."),
    ],
)
def test_claim_sentence(markdown: str, claim: str) -> None:
    (found,) = find_citations(pandoc_json(markdown))
    assert found.ref.claim == claim


def test_sentence_spans_keep_abbreviations_and_initials() -> None:
    text = "Per cf. Doe et al. 2020 it holds. Then p. 4 says more. End"
    assert [text[a:b] for a, b in sentence_spans(text)] == [
        "Per cf. Doe et al. 2020 it holds.",
        "Then p. 4 says more.",
        "End",
    ]


def test_modes_locators_and_selectors() -> None:
    doc = pandoc_json("A [@a, p. 14 quote:intro]; B @b [sec. 2]; C [-@c, pp. 3–5]; D [@d quote:x].")
    refs = {f.ref.key: f.ref for f in find_citations(doc)}
    assert (refs["a"].locator, refs["a"].selector, refs["a"].mode) == (
        "p. 14",
        "intro",
        "NormalCitation",
    )
    assert (refs["b"].locator, refs["b"].mode) == ("sec. 2", "AuthorInText")
    assert (refs["c"].locator, refs["c"].mode) == ("pp. 3–5", "SuppressAuthor")
    assert (refs["d"].locator, refs["d"].selector) == (None, "x")


@pytest.mark.parametrize(
    ("suffix", "raw", "label", "rest"),
    [
        (", p. 14", "p. 14", "page", ""),
        (", p.\xa014", "p. 14", "page", ""),
        (", pp. 3–5", "pp. 3–5", "page", ""),
        ("sec. 2", "sec. 2", "section", ""),
        (", ch. 3", "ch. 3", "chapter", ""),
        (", chap. 3", "chap. 3", "chapter", ""),
        (", § 4", "§ 4", "section", ""),
        (", §4", "§ 4", "section", ""),
        (", ¶ 7", "¶ 7", "paragraph", ""),
        (", vol. 2", "vol. 2", "volume", ""),
        (", p.3, and suffix", "p. 3", "page", ", and suffix"),
        (", 89, and suffix", "89", "page", ", and suffix"),
        (", 123-79, and suffix", "123-79", "page", ", and suffix"),
        (
            ", p. VI, VII, VIII-IX, explicit romans",
            "p. VI, VII, VIII-IX",
            "page",
            ", explicit romans",
        ),
        (
            ", 3(a), 4.4.8, [7.6], 7A(2)(a)(i)-(iv)",
            "3(a), 4.4.8, [7.6], 7A(2)(a)(i)-(iv)",
            "page",
            "",
        ),
        (" {35-89, 102}", "35-89, 102", "page", ""),
        (", {p. VI}", "p. VI", "page", ""),
        (
            " {123-35} numbers not, but text is suffix",
            "123-35",
            "page",
            "numbers not, but text is suffix",
        ),
        (", Section 14.2", "Section 14.2", "section", ""),
    ],
)
def test_locators_as_citeproc_reads_them(suffix: str, raw: str, label: str, rest: str) -> None:
    locator, remainder = parse_locator(suffix)
    assert locator is not None
    assert (locator.raw, locator.label, remainder) == (raw, label, rest)


@pytest.mark.parametrize(
    "suffix",
    [
        ", xi, will be entirely suffix",
        ", p.a entirely suffix",
        ", (13 entirely suffix",
        " and nothing else",
        ", suffix",
        " {} 123-35 numbers are suffix",
        "",
    ],
)
def test_no_locator(suffix: str) -> None:
    assert parse_locator(suffix)[0] is None


def test_selector_is_parsed_and_stripped_from_suffix_and_content() -> None:
    assert parse_selector(", p. 14 quote:intro") == ("intro", ", p. 14")
    assert parse_selector(" quote:a.b-2, p. 3") == ("a.b-2", ", p. 3")
    assert parse_selector(", p. 14") == (None, ", p. 14")
    doc = pandoc_json("X [@a, p. 14 quote:intro] and [@b quote:x-1; @c].")
    cites = [el for el in doc["blocks"][0]["c"] if el["t"] == "Cite"]
    a_suffix = strip_selector(cites[0]["c"][0][0]["citationSuffix"])
    assert plain_text(a_suffix) == ", p. 14"
    assert plain_text(strip_selector(cites[0]["c"][1])) == "[@a, p. 14]"
    assert strip_selector(cites[1]["c"][0][0]["citationSuffix"]) == []
    assert plain_text(strip_selector(cites[1]["c"][1])) == "[@b; @c]"


def test_plain_text_reads_like_pandoc_stringify() -> None:
    doc = pandoc_json('*Some* "quoted" `code`^[a note] and [@k, p. 2] $x^2$.')
    assert plain_text(doc["blocks"][0]["c"]) == "Some “quoted” code and [@k, p. 2] x^2."


@pytest.mark.parametrize(
    "markdown",
    [
        "One [[@a; @b]]{.citeledger-cite}. Two [@c].",  # a hand-written "processed" marker
        "One [[@a; @b]]{.citeledger-cite .citeledger-checked"
        ' data-citeledger-states="checked checked"}. Two [@c].',  # a forged "checked" one
    ],
)
def test_a_processed_marker_hides_no_citation(markdown: str) -> None:
    found = find_citations(pandoc_json(markdown))
    assert [(f.ref.key, f.ref.occurrence, f.ref.claim) for f in found] == [
        ("a", 1, "One."),
        ("b", 2, "One."),
        ("c", 3, "Two."),
    ]


def test_filtered_json_has_the_same_citations_and_claims_as_its_source() -> None:
    """What the filter added (wrappers, flags, links, anchors, callouts) changes no citation."""
    from fixture_judge import FixtureJudge

    from citeledger.build.filter import run_filter

    markdown = (
        CONSTRUCTS
        + "\n[A marked claim]{.claim} [@st-stale, p. 4 quote:q1] and more [@st-checked].\n\n"
        "Body text.^[@st-withdrawn] [Remembered words]{.unverified} then [@st-disputed].\n"
    )
    before = find_citations(pandoc_json(markdown))
    for fmt in ("html", "latex", "docx", "gfm"):
        doc = pandoc_json(markdown, "-M", "citeledger.audit=true")
        run_filter(doc, fmt, judge_factory=FixtureJudge)
        after = find_citations(doc)
        assert [f.ref for f in after] == [f.ref for f in before], fmt
    assert [f.ref.selector for f in before if f.ref.key == "st-stale"] == ["q1"]


def test_metadata_citations_come_first_in_reading_order() -> None:
    markdown = (
        "---\ntitle: A title [@t]\nsubtitle: Sub [@s]\nthanks: Funded by [@f].\n"
        "abstract: |\n  First sentence. As @a showed, it holds.\n\n  Second [@b].\n"
        "keywords: [k, '[@kw]']\nauthor: '[@au]'\nnocite: '@nc'\n---\n\nBody [@body].\n"
    )
    found = find_citations(pandoc_json(markdown))
    # the printed fields in print order, then every other one but nocite (s19: author, keywords)
    assert [f.ref.key for f in found] == ["t", "s", "au", "f", "a", "b", "kw", "body"]
    by_key = {f.ref.key: f for f in found}
    assert by_key["a"].ref.claim == "As @a showed, it holds."
    assert by_key["t"].ref.claim == "A title"
    for key in ("t", "s", "f", "a", "b", "au", "kw"):
        f = by_key[key]
        assert f.in_metadata and f.where[1] in (
            *("title", "subtitle", "thanks", "abstract", "author", "keywords"),
        )
        assert (f.host_path, f.host_after, f.block_index) == (("blocks",), -1, -1)
        assert f.cite_path[0] == "meta"
    assert by_key["a"].cite_path[:3] == ("meta", "abstract", "c")
    assert not by_key["body"].in_metadata and by_key["body"].host_path == ("blocks",)


def test_the_walk_never_changes_the_document(constructs: dict) -> None:
    before = copy.deepcopy(constructs)
    find_citations(constructs)
    assert json.dumps(constructs) == json.dumps(before)


def test_a_document_without_blocks_or_citations() -> None:
    assert find_citations({"blocks": []}) == []
    assert find_citations({}) == []
    assert find_citations(pandoc_json("No citations, only an e-mail: me@example.org.")) == []


# --- one locator vocabulary (citeledger.locators) ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the cases judge relies on to match a citation's locator to a quote's
        ("p. 14", ("page", "14")),
        ("pp. 3–5", ("page", "3-5")),
        ("14", ("page", "14")),
        ("sec. 14.2", ("section", "14.2")),
        ("§14.2", ("section", "14.2")),
        ("chapter 3", ("chapter", "3")),
        # where judge and the suffix parser used to disagree
        ("pt. 3", ("part", "3")),
        ("part 3", ("part", "3")),
        ("fig 3", ("figure", "3")),
        ("Fig. 3", ("figure", "3")),
        ("art. 5", ("article", "5")),
        ("article 5", ("article", "5")),
        # lenient forms of a ledger's hand-typed locator
        ("page 14", ("page", "14")),
        ("pp.14", ("page", "14")),
        ("p14", ("page", "14")),
        ("§§ 3 - 4", ("section", "3-4")),
        ("s.v. entry", ("sub verbo", "entry")),
        ("vi", ("page", "vi")),  # a roman numeral is a page, not verse "i"
        ("tbl 2", ("table", "2")),
        ("somewhere else", ("other", "somewhere else")),
    ],
)
def test_normalize_locator(text: str, expected: tuple[str, str]) -> None:
    from citeledger.build.pinpoints import normalize_locator

    assert normalize_locator(text) == expected


def test_no_locator_normalizes_to_none() -> None:
    from citeledger.build.pinpoints import normalize_locator

    assert normalize_locator(None) is None and normalize_locator("") is None
    assert normalize_locator(" , ") is None


def test_every_form_reads_the_same_in_a_citation_and_in_the_ledger() -> None:
    """What a citation carries and what a ledger quote says meet under one label."""
    from citeledger.build.pinpoints import TERMS, normalize_locator

    for label, forms in TERMS.items():
        for form in forms:
            locator, rest = parse_locator(f", {form} 12")
            assert locator is not None and rest == "", form
            assert locator.label == label, form
            assert normalize_locator(locator.raw) == (label, "12"), form
            assert normalize_locator(f"{form.capitalize()} 12") == (label, "12"), form


def test_a_citation_selects_its_quote_by_a_locator_written_differently() -> None:
    """``[@k, pt. 3]`` meets a ledger quote at ``part 3`` (they used to disagree)."""
    from citeledger.build.pinpoints import normalize_locator

    for cited, ledger in [("pt. 3", "part 3"), ("art. 5", "Article 5"), ("tbl. 2", "table 2")]:
        (found,) = find_citations(pandoc_json(f"Claim [@k, {cited}]."))
        assert found.ref.locator == cited
        assert normalize_locator(found.ref.locator) == normalize_locator(ledger)


CSL_SHOWING_LOCATORS = """<?xml version="1.0" encoding="utf-8"?>
<style xmlns="http://purl.org/net/xbiblio/csl" class="in-text" version="1.0">
  <info><title>t</title><id>t</id><updated>2020-01-01T00:00:00+00:00</updated></info>
  <citation><layout delimiter="; "><text value="&lt;"/><text variable="locator"/>
    <text value="&gt;"/></layout></citation>
</style>
"""


def test_citeproc_terms_are_the_ones_pandoc_reads(tmp_path: Path) -> None:
    """Pandoc's citeproc reads CITEPROC_TERMS as locators and leaves our extra labels (ch.,
    art., tbl., …) in the suffix: asked of pandoc itself, with a style that prints locators."""
    import subprocess

    from helpers import PANDOC

    from citeledger.build.pinpoints import CITEPROC_TERMS, TERMS

    forms = [(label, form) for label, fs in TERMS.items() for form in fs]
    body = " ".join(f"X [@k, {form} 12]." for _, form in forms)
    (tmp_path / "s.csl").write_text(CSL_SHOWING_LOCATORS)
    markdown = f"---\nreferences:\n- id: k\n  type: book\n  title: T\n---\n\n{body}\n"
    out = subprocess.run(
        [PANDOC, "--citeproc", "--csl", str(tmp_path / "s.csl"), "-t", "plain", "--wrap=none"],
        input=markdown.encode(),
        capture_output=True,
        check=True,
    ).stdout.decode()
    shown = re.findall(r"X <([^>]*)>", out)
    assert len(shown) == len(forms)
    read = {form for (_, form), loc in zip(forms, shown, strict=True) if loc == "12"}
    wanted = {form for fs in CITEPROC_TERMS.values() for form in fs}
    assert read == wanted


def test_each_definition_term_and_metadata_field_has_its_own_claim() -> None:
    """Terms and metadata inlines are read through a stand-in block; each keeps its own text."""
    terms = "".join(f"Term {n} [@k{n}]\n:   Definition {n}.\n\n" for n in range(1, 9))
    found = find_citations(pandoc_json(terms))
    assert [f.ref.claim for f in found] == [f"Term {n}" for n in range(1, 9)]
    fields = "---\ntitle: Title words [@t]\nsubtitle: Sub words [@s]\nthanks: Thanks [@f].\n---\n"
    found = find_citations(pandoc_json(fields + "\nBody.\n"))
    assert [f.ref.claim for f in found] == ["Title words", "Sub words", "Thanks."]


def test_a_pandoc_2_figure_caption_is_read_and_so_is_other_alt_text() -> None:
    """pandoc 2.x has no Figure block: an implicit figure is ``Para [Image]`` whose alt text,
    title ``fig:``, is the caption the reader sees. Its citation is judged, with its claim; so
    is one in any other image's alt text (an HTML page prints it where the image is not shown),
    its claim the alt's own sentence (s19, r3 item 8: it was never judged)."""
    cite = {
        "t": "Cite",
        "c": [
            [
                {
                    "citationId": "old2019",
                    "citationPrefix": [],
                    "citationSuffix": [],
                    "citationMode": {"t": "NormalCitation"},
                    "citationNoteNum": 1,
                    "citationHash": 0,
                }
            ],
            [{"t": "Str", "c": "[@old2019]"}],
        ],
    }
    alt = [{"t": "Str", "c": "Masses"}, {"t": "Space"}, {"t": "Str", "c": "rose"}, {"t": "Space"}]
    figure = {"t": "Image", "c": [["", [], []], [*alt, cite], ["mass.png", "fig:"]]}
    plain = {"t": "Image", "c": [["", [], []], [*alt, cite], ["mass.png", ""]]}
    doc = {"pandoc-api-version": [1, 22, 2], "meta": {}, "blocks": [{"t": "Para", "c": [figure]}]}
    found = find_citations(doc)
    assert [f.ref.key for f in found] == ["old2019"]
    assert found[0].ref.claim == "Masses rose"
    doc["blocks"] = [{"t": "Para", "c": [plain]}]
    assert [(f.ref.key, f.ref.claim) for f in find_citations(doc)] == [("old2019", "Masses rose")]
    # a "fig:" title on an image inside a sentence makes no figure: its alt is read as alt text
    words = [{"t": "Str", "c": "Text"}, {"t": "Space"}]
    doc["blocks"] = [
        {"t": "Para", "c": [*words, figure, {"t": "Space"}, {"t": "Str", "c": "here."}]}
    ]
    assert [(f.ref.key, f.ref.claim) for f in find_citations(doc)] == [("old2019", "Masses rose")]
