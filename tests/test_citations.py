"""The one walk (``citations.find_citations``): what counts as a citation, and where it sits.

``citeledger check`` and the filter both rely on it, so these tests pin what a writer sees in
both: every citation in notes, tables, captions, headings and lists is found once, in order;
cross-references, image alt text and metadata are not citations; the claim is the sentence.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from helpers import pandoc_json

from citeledger.citations import (
    find_citations,
    is_crossref,
    parse_locator,
    parse_selector,
    plain_text,
    resolve,
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
    assert [f.ref.occurrence for f in find_citations(constructs)] == list(range(1, 17))


def test_metadata_crossrefs_and_image_alt_are_not_citations(constructs: dict) -> None:
    keys = {f.ref.key for f in find_citations(constructs)}
    assert not keys & {"in-title", "in-nocite", "fig:one", "sec-two", "tbl:x"}
    # the figure's image repeats the caption in its alt text; it is judged once
    assert sum(1 for f in find_citations(constructs) if f.ref.key == "in-figure") == 1


@pytest.mark.parametrize(
    "key",
    ["fig-a", "sec-b", "tbl-c", "eq-d", "lst-e", "fig:a", "sec:b", "tbl:c", "eq:d", "lst:e"],
)
def test_crossref_prefixes(key: str) -> None:
    assert is_crossref(key)


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


def test_processed_cites_are_skipped_but_keep_their_numbers() -> None:
    doc = pandoc_json("One [@a; @b]. Two [@c].")
    first = doc["blocks"][0]["c"]
    index = next(i for i, el in enumerate(first) if el["t"] == "Cite")
    first[index] = {"t": "Span", "c": [["", ["citeledger-cite"], []], [first[index]]]}
    found = find_citations(doc)
    assert [(f.ref.key, f.ref.occurrence) for f in found] == [("c", 3)]


def test_the_walk_never_changes_the_document(constructs: dict) -> None:
    before = copy.deepcopy(constructs)
    find_citations(constructs)
    assert json.dumps(constructs) == json.dumps(before)


def test_a_document_without_blocks_or_citations() -> None:
    assert find_citations({"blocks": []}) == []
    assert find_citations({}) == []
    assert find_citations(pandoc_json("No citations, only an e-mail: me@example.org.")) == []
