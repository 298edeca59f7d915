"""Identifier syntax: what verify may send, and the advice a writer gets for a malformed one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeledger.errors import LedgerError
from citeledger.ledger import load_ledger
from citeledger.ledger.identifiers import (
    IdentifierError,
    arxiv_version,
    canonical,
    same_text,
    validate_arxiv,
    validate_doi,
    validate_identifier,
    validate_isbn,
    validate_url,
)
from citeledger.model import Identifier
from citeledger.retrieve import plan

# --- DOI -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "doi",
    [
        "10.18653/v1/2020.emnlp-main.324",
        "10.1000/182",
        "10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-O",
        "10.1000.10/123456",
        "10.123456789/x",
    ],
)
def test_valid_dois_are_returned_as_written(doi: str) -> None:
    assert validate_doi(doi) == doi
    assert validate_doi(f"  {doi} ") == doi


@pytest.mark.parametrize(
    ("written", "bare"),
    [
        ("https://doi.org/10.1234/abc", "10.1234/abc"),
        ("http://dx.doi.org/10.1234/abc", "10.1234/abc"),
        ("doi.org/10.1234/abc", "10.1234/abc"),
    ],
)
def test_doi_url_form_is_refused_with_the_bare_doi_as_fix(written: str, bare: str) -> None:
    with pytest.raises(IdentifierError) as err:
        validate_doi(written)
    assert "write the bare DOI, without https://doi.org/" in err.value.fix
    assert f"doi: {bare}" in err.value.fix


def test_doi_prefix_is_refused() -> None:
    with pytest.raises(IdentifierError) as err:
        validate_doi("doi:10.1234/abc")
    assert "write the bare DOI, without 'doi:'" in err.value.fix
    assert "doi: 10.1234/abc" in err.value.fix


@pytest.mark.parametrize("bad", ["10.12/abc", "11.1234/abc", "10.1234", "10.1234/", "", "   "])
def test_malformed_dois_are_refused(bad: str) -> None:
    with pytest.raises(IdentifierError):
        validate_doi(bad)


def test_doi_with_a_space_says_so() -> None:
    with pytest.raises(IdentifierError, match="contains a space"):
        validate_doi("10.1234/ab c")


def test_identifier_error_is_a_value_error_with_problem_and_fix() -> None:
    with pytest.raises(ValueError) as err:
        validate_doi("nonsense")
    assert isinstance(err.value, IdentifierError)
    assert str(err.value) == f"{err.value.problem} — {err.value.fix}"


# --- arXiv ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arxiv", "version"),
    [
        ("2101.00001", None),
        ("2101.00001v2", 2),
        ("0704.0001", None),
        ("1412.9999v12", 12),
        ("hep-th/9901001", None),
        ("hep-th/9901001v3", 3),
        ("math.GT/0309136", None),
        ("cond-mat/0703999v1", 1),
        ("astro-ph/9108001", None),
    ],
)
def test_valid_arxiv_ids_and_their_versions(arxiv: str, version: int | None) -> None:
    assert validate_arxiv(arxiv) == arxiv
    assert arxiv_version(arxiv) == version


@pytest.mark.parametrize(
    ("bad", "hint"),
    [
        ("2113.00001", "month 13"),
        ("2101.0001", "5 digits"),  # 2015 on: five digits
        ("1201.00001", "4 digits"),  # before 2015: four digits
        ("0612.0001", "start at 0704"),
        ("hep-th/0801001", "ran from 9108 to 0703"),
        ("2101.00001v0", "not an arXiv id"),
        ("HEP-TH/9901001", "not an arXiv id"),
        ("2101-00001", "not an arXiv id"),
    ],
)
def test_malformed_arxiv_ids_say_what_is_wrong(bad: str, hint: str) -> None:
    with pytest.raises(IdentifierError) as err:
        validate_arxiv(bad)
    assert hint in str(err.value)
    assert "2101.00001v2" in err.value.fix  # an example of the right form


@pytest.mark.parametrize(
    "written",
    ["arXiv:2101.00001v2", "https://arxiv.org/abs/2101.00001v2", "arxiv.org/pdf/2101.00001v2.pdf"],
)
def test_arxiv_prefixes_and_urls_are_refused_with_the_bare_id(written: str) -> None:
    with pytest.raises(IdentifierError) as err:
        validate_arxiv(written)
    assert err.value.fix == "write the bare id: arxiv: 2101.00001v2"


def test_arxiv_version_refuses_a_malformed_id() -> None:
    with pytest.raises(IdentifierError):
        arxiv_version("not-an-id")


# --- ISBN ----------------------------------------------------------------------------------


def isbn10_check(first9: str) -> str:
    """Independent oracle: the weighted sum of all ten digits is divisible by 11."""
    for candidate in "0123456789X":
        digits = [int(d) for d in first9] + [10 if candidate == "X" else int(candidate)]
        if sum(w * d for w, d in zip(range(10, 0, -1), digits, strict=True)) % 11 == 0:
            return candidate
    raise AssertionError("no check digit")  # pragma: no cover


def isbn13_check(first12: str) -> str:
    for candidate in "0123456789":
        digits = [int(d) for d in first12 + candidate]
        if sum(d * (1, 3)[i % 2] for i, d in enumerate(digits)) % 10 == 0:
            return candidate
    raise AssertionError("no check digit")  # pragma: no cover


@pytest.mark.parametrize(
    ("written", "digits"),
    [
        ("978-0-306-40615-7", "9780306406157"),
        ("978 0 306 40615 7", "9780306406157"),
        ("0-306-40615-2", "0306406152"),
        ("0-8044-2957-x", "080442957X"),
        ("979-10-90636-07-1", "9791090636071"),
    ],
)
def test_valid_isbns_return_their_digits(written: str, digits: str) -> None:
    assert validate_isbn(written) == digits


@given(st.text(alphabet="0123456789", min_size=9, max_size=9))
def test_generated_isbn10_with_right_check_digit_passes(first9: str) -> None:
    isbn = first9 + isbn10_check(first9)
    assert validate_isbn(isbn) == isbn
    assert validate_isbn(f"{isbn[:1]}-{isbn[1:4]}-{isbn[4:9]}-{isbn[9]}") == isbn


@given(st.text(alphabet="0123456789", min_size=9, max_size=9), st.sampled_from("0123456789X"))
def test_generated_isbn10_with_wrong_check_digit_fails(first9: str, check: str) -> None:
    if check == isbn10_check(first9):
        check = "0" if check != "0" else "1"
    with pytest.raises(IdentifierError, match="wrong check digit"):
        validate_isbn(first9 + check)


@given(
    st.sampled_from(["978", "979"]),
    st.text(alphabet="0123456789", min_size=9, max_size=9),
    st.integers(min_value=0, max_value=12),
    st.integers(min_value=1, max_value=9),
)
def test_generated_isbn13_passes_and_any_single_digit_error_fails(
    prefix: str, body: str, position: int, shift: int
) -> None:
    first12 = prefix + body
    isbn = first12 + isbn13_check(first12)
    assert validate_isbn(isbn) == isbn
    typo = isbn[:position] + str((int(isbn[position]) + shift) % 10) + isbn[position + 1 :]
    with pytest.raises(IdentifierError):
        validate_isbn(typo)


def test_isbn_check_digit_error_names_the_expected_digit() -> None:
    with pytest.raises(IdentifierError) as err:
        validate_isbn("978-0-306-40615-8")
    assert "would be 7" in err.value.problem
    assert "copy the ISBN again" in err.value.fix


@pytest.mark.parametrize("bad", ["12345", "978030640615X", "977-0-306-40615-7", "abcdefghij"])
def test_malformed_isbns_are_refused(bad: str) -> None:
    with pytest.raises(IdentifierError):
        validate_isbn(bad)


def test_isbn_prefix_is_refused_with_the_number_as_fix() -> None:
    with pytest.raises(IdentifierError) as err:
        validate_isbn("ISBN 978-0-306-40615-7")
    assert err.value.fix == "write the number only: isbn: 978-0-306-40615-7"


# --- URL -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "https://example.org/page",
        "http://example.org",
        "https://example.org:8443/a?b=c#frag",
        "https://[2001:db8::1]/x",
        "HTTPS://EXAMPLE.ORG/",
    ],
)
def test_valid_urls(url: str) -> None:
    assert validate_url(url) == url


@pytest.mark.parametrize(
    ("bad", "fix_part"),
    [
        ("example.org/paper", "url: https://example.org/paper"),
        ("www.example.org", "url: https://www.example.org"),
        ("ftp://example.org/file", "http:// or https://"),
        ("mailto:someone@example.org", "http:// or https://"),
        ("https:///path", "https://host/path"),
        ("https://example.org/a b", "%20"),
        ("https://user:secret@example.org/", "remove the credentials"),
        ("https://example.org:99999/", "host[:port]"),
    ],
)
def test_malformed_urls_say_how_to_fix(bad: str, fix_part: str) -> None:
    with pytest.raises(IdentifierError) as err:
        validate_url(bad)
    assert fix_part in err.value.fix


def test_validate_identifier_dispatches_and_leaves_files_to_the_ledger() -> None:
    assert validate_identifier("isbn", "0-306-40615-2") == "0306406152"
    assert validate_identifier("doi", "10.1234/x") == "10.1234/x"
    with pytest.raises(ValueError, match="no syntax check"):
        validate_identifier("file", "doc.pdf")


def test_non_text_is_refused() -> None:
    with pytest.raises(IdentifierError, match="must be text"):
        validate_doi(10.1234)  # type: ignore[arg-type]


# --- one grammar: the ledger and the providers agree ---------------------------------------

# Each of these was accepted by one side and refused by the other before the providers parsed
# through ``identifiers``; the list also holds forms both always agreed on, so it can fail both
# ways.
AGREEMENT_CASES = [
    ("arxiv", "hep-th/0801001"),  # old form after 0703: never issued
    ("arxiv", "0703.1234"),  # new form before 0704: never issued
    ("arxiv", "arXiv:2101.00001"),  # a prefix
    ("arxiv", "solv-int/9901001v2"),
    ("arxiv", "math.GT/0309136"),
    ("arxiv", "1412.6980v9"),
    ("arxiv", "1501.0001"),  # 4 digits after 1412
    ("isbn", "123-4-567-89012-8"),  # 13 digits, right check digit, not 978/979
    ("isbn", "ISBN 978-0-306-40615-7"),  # a prefix
    ("isbn", "isbn:0-306-40615-2"),
    ("isbn", "978 0 306 40615 7"),
    ("isbn", "0-8044-2957-x"),
    ("doi", "doi:10.1000/182"),
    ("doi", "10.1000/182"),
    ("doi", "10.123/abc"),  # a 3-digit registrant
    ("doi", "https://doi.org/10.1000/182"),
]


def _ledger_accepts(tmp_path: Path, kind: str, value: str) -> bool:
    path = tmp_path / "citeledger.yaml"
    path.write_text(f"sources:\n  k:\n    {kind}: {json.dumps(value)}\n", encoding="utf-8")
    try:
        load_ledger(path)
    except LedgerError:
        return False
    return True


def _provider_accepts(kind: str, value: str) -> bool:
    p = plan([Identifier(kind, value)])
    return bool(p.calls) and not p.invalid


@pytest.mark.parametrize(("kind", "value"), AGREEMENT_CASES)
def test_the_ledger_refuses_exactly_what_a_provider_refuses(
    tmp_path: Path, kind: str, value: str
) -> None:
    assert _ledger_accepts(tmp_path, kind, value) == _provider_accepts(kind, value)


def test_the_agreement_cases_hold_both_answers() -> None:
    # the list tests agreement, not one answer: it holds accepted and refused forms of each kind
    for kind in ("arxiv", "isbn", "doi"):
        answers = {_provider_accepts(k, v) for k, v in AGREEMENT_CASES if k == kind}
        assert answers == {True, False}, kind


def test_a_printed_doi_is_read_bare_with_any_prefix_it_was_printed_with() -> None:
    from citeledger.ledger.identifiers import bare_doi

    for printed in (
        "10.1371/x.1",
        "doi:10.1371/x.1",
        "DOI: 10.1371/x.1",
        "https://doi.org/10.1371/x.1",
        "dx.doi.org/10.1371/x.1",
        "DOI 10.1371/x.1",
        "DOI10.1371/x.1",
        "Digital Object Identifier 10.1371/x.1",
        "DOI: https://doi.org/10.1371/x.1",
    ):
        assert bare_doi(printed) == "10.1371/x.1"
    assert bare_doi("doi:not-a-doi") is None and bare_doi("see 10.1371/x.1") is None
    assert bare_doi("DOIs 10.1371/x.1") is None


def test_printed_dois_are_found_where_their_prefix_starts() -> None:
    from citeledger.ledger.identifiers import printed_dois

    line = "Med (2013) 39:165 DOI 10.1007/s00134-012-2769-8. See doi:10.1/x and 10.1371/bare"
    assert printed_dois(line) == [(18, "10.1007/s00134-012-2769-8")]
    assert printed_dois("(https://doi.org/10.1371/x.1), DOI:10.1038/nature123;") == [
        (1, "10.1371/x.1"),
        (31, "10.1038/nature123"),
    ]


# --- the canonical form: one work, any spelling ------------------------------------------


@pytest.mark.parametrize(
    ("spellings", "form"),
    [
        (
            ["doi:10.5555/appeals", "doi:10.5555/APPEALS", "doi:https://doi.org/10.5555/Appeals"],
            "doi:10.5555/appeals",
        ),
        (
            ["arxiv:2101.00001", "arxiv:2101.00001v2", "arxiv:arXiv:2101.00001v1"],
            "arxiv:2101.00001",
        ),
        (["arxiv:hep-th/9901001v3", "arxiv:hep-th/9901001"], "arxiv:hep-th/9901001"),
        (  # an old id's subject class is no part of it: numbered within the archive
            ["arxiv:math.GT/0309136", "arxiv:math/0309136v1", "arxiv:math.GT/0309136v2"],
            "arxiv:math/0309136",
        ),
        (["isbn:0306406152", "isbn:9780306406157", "isbn:978-0-306-40615-7"], "isbn:9780306406157"),
        (
            ["url:https://example.org/a", "url:HTTPS://Example.ORG:443/a"],
            "url:https://example.org/a",
        ),
        (
            ["file:sources/s1.txt", "file:./sources/s1.txt", "file:sources//s1.txt"],
            "file:sources/s1.txt",
        ),
    ],
)
def test_every_spelling_of_one_work_has_one_canonical_form(spellings: list[str], form: str) -> None:
    assert {canonical(s) for s in spellings} == {form}


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("doi:10.5555/appeals", "doi:10.5555/appeal"),
        ("arxiv:2101.00001", "arxiv:2101.00002"),
        ("arxiv:math/0309136", "arxiv:math-ph/0309136"),
        ("url:https://example.org/A", "url:https://example.org/a"),  # a path keeps its case
        ("url:http://example.org:8080/a", "url:http://example.org/a"),
        ("isbn:9790306406156", "isbn:9780306406157"),
        ("doi:10.5555/a", "url:https://doi.org/10.5555/a"),  # the kind stays part of it
    ],
)
def test_other_works_keep_other_canonical_forms(one: str, other: str) -> None:
    assert canonical(one) != canonical(other)


@given(st.text(alphabet="0123456789", min_size=9, max_size=9))
def test_an_isbn10_and_its_isbn13_are_one_work(first9: str) -> None:
    isbn10 = first9 + isbn10_check(first9)
    isbn13 = "978" + first9 + isbn13_check("978" + first9)
    assert canonical(f"isbn:{isbn10}") == canonical(f"isbn:{isbn13}") == f"isbn:{isbn13}"


# --- the same text: a check counts for a respelled identifier, never for another text -------


@pytest.mark.parametrize(
    ("checked", "cited"),
    [
        ("doi:10.5555/APPEALS", "doi:10.5555/appeals"),
        ("doi:https://doi.org/10.5555/Appeals", "doi:10.5555/appeals"),
        ("isbn:0306406152", "isbn:9780306406157"),
        ("isbn:978-0-306-40615-7", "isbn:9780306406157"),
        ("url:HTTPS://Example.ORG:443/a", "url:https://example.org/a"),
        ("file:./sources/s1.txt", "file:sources/s1.txt"),
        ("arxiv:2101.00001v2", "arxiv:2101.00001v2"),
        ("arxiv:arXiv:2101.00001v2", "arxiv:2101.00001v2"),
    ],
)
def test_a_respelling_is_the_same_text(checked: str, cited: str) -> None:
    assert same_text(checked, cited)


@pytest.mark.parametrize(
    ("checked", "cited"),
    [
        ("doi:10.5555/appeals", "doi:10.5555/appeal"),
        ("url:https://example.org/A", "url:https://example.org/a"),
        ("url:http://example.org/a", "url:https://example.org/a"),  # another retrieval
        ("doi:10.5555/a", "url:https://doi.org/10.5555/a"),
        ("isbn:9790306406156", "isbn:9780306406157"),
        ("arxiv:2101.00001v1", "arxiv:2101.00001v2"),  # two versions are two texts
        ("arxiv:2101.00001v2", "arxiv:2101.00001v1"),
        ("file:linked/../s1.txt", "file:s1.txt"),  # through a link, another file
    ],
)
def test_another_work_or_version_is_not_the_same_text(checked: str, cited: str) -> None:
    assert not same_text(checked, cited, version="v2", latest="v2")


def test_an_arxiv_version_is_settled_by_what_the_evidence_records() -> None:
    """Without a version the ledger means the latest: a check of the latest counts for ``vN``
    only when it retrieved ``vN``; a check of ``vK`` counts for the latest only when ``vK``
    was the newest then. Nothing recorded: not the same text."""
    assert same_text("arxiv:2101.00001", "arxiv:2101.00001v2", version="v2", latest="v2")
    assert not same_text("arxiv:2101.00001", "arxiv:2101.00001v2", version="v1", latest="v1")
    assert not same_text("arxiv:2101.00001", "arxiv:2101.00001v2")
    assert same_text("arxiv:2101.00001v2", "arxiv:2101.00001", version="v2", latest="v2")
    assert not same_text("arxiv:2101.00001v1", "arxiv:2101.00001", version="v1", latest="v2")
    assert not same_text("arxiv:2101.00001v2", "arxiv:2101.00001", version="v2")
