"""The raw .bib reader of attached files: each reference manager's ``file`` field, as written."""

from __future__ import annotations

import pytest

from citeledger.ledger.bibfiles import Attached, file_fields, parse_file_field


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        # JabRef / BibTeX
        (":papers/a.pdf:PDF", [Attached("papers/a.pdf", "", "PDF")]),
        (
            "Description:papers/a.pdf:application/pdf",
            [Attached("papers/a.pdf", "Description", "application/pdf")],
        ),
        (
            ":papers/a.pdf:PDF;Supplement:papers/a-supp.zip:ZIP",
            [
                Attached("papers/a.pdf", "", "PDF"),
                Attached("papers/a-supp.zip", "Supplement", "ZIP"),
            ],
        ),
        (r"Snap\;shot:dir\:x/a.pdf:PDF", [Attached("dir:x/a.pdf", "Snap;shot", "PDF")]),
        # Zotero / Better BibTeX
        ("/home/ada/Zotero/storage/AB12/a.pdf", [Attached("/home/ada/Zotero/storage/AB12/a.pdf")]),
        (
            "/abs/a.pdf;/abs/a.html",
            [Attached("/abs/a.pdf"), Attached("/abs/a.html")],
        ),
        (
            "Full Text PDF:files/12/a.pdf:application/pdf",
            [Attached("files/12/a.pdf", "Full Text PDF", "application/pdf")],
        ),
        (
            "Full Text:C:/Users/ada/a.pdf:application/pdf",
            [Attached("C:/Users/ada/a.pdf", "Full Text", "application/pdf")],
        ),
        # Better BibTeX on Windows, as in ../shared/corpus (escaped drive colons, ; between)
        (
            r"D\:\\ZotMoov\\Abbate - 2020.pdf;C\:\\Users\\isaia\\Zotero\\storage\\C4\\r.html",
            [
                Attached("D:\\ZotMoov\\Abbate - 2020.pdf"),
                Attached("C:\\Users\\isaia\\Zotero\\storage\\C4\\r.html"),
            ],
        ),
        # Mendeley (LaTeX-escaped; no leading / on Linux and macOS)
        (
            r":C$\backslash$:/Users/ada/Documents/Mendeley Desktop/a.pdf:pdf",
            [Attached("C:/Users/ada/Documents/Mendeley Desktop/a.pdf", "", "pdf")],
        ),
        (
            r":home/ada/Mendeley Desktop/Smith{\_}2020.pdf:pdf",
            [Attached("home/ada/Mendeley Desktop/Smith_2020.pdf", "", "pdf")],
        ),
        ("", []),
        (" ; ", []),
    ],
)
def test_each_managers_form(value: str, expected: list[Attached]) -> None:
    assert list(parse_file_field(value)) == expected


def test_pdf_is_known_by_type_or_name() -> None:
    assert Attached("a.pdf").is_pdf and Attached("a", type="application/pdf").is_pdf
    assert not Attached("a.html", type="text/html").is_pdf


BIB = r"""% a library
@comment{jabref-meta: fileDirectory:papers;}
@string{jcl = "Journal of Cited Lines"}
@preamble{"\newcommand{\x}{y}"}

@article{smith2020,
  title = {A {Braced} Title, with = and , inside},
  author = "Smith, Ada and {Jones}, B.",
  journal = jcl # " (new series)",
  year = 2020,
  doi = {10.1234/smith.2020},
  file = {:papers/smith2020.pdf:PDF}
}

@Book( jones2021 ,
  FILE = "/abs/jones.pdf" )

@misc{nofile, title = {No file here}}

@misc{broken, title = {an unclosed brace
@inproceedings{after2022, file={Full Text PDF:files/9/after.pdf:application/pdf}}
@misc{smith2020, file = {:second.pdf:PDF}}
"""


def test_file_fields_of_a_bib_text() -> None:
    fields = file_fields(BIB)
    assert set(fields) == {"smith2020", "jones2021", "after2022"}
    smith = fields["smith2020"]
    assert (smith.value, smith.line) == (":papers/smith2020.pdf:PDF", 12)
    assert smith.attached == (Attached("papers/smith2020.pdf", "", "PDF"),)
    assert fields["jones2021"].attached == (Attached("/abs/jones.pdf"),)
    assert fields["after2022"].attached[0].path == "files/9/after.pdf"  # after a broken entry


@pytest.mark.parametrize(
    "text",
    ["", "no entries at all", "@", "@article", "@article{", "@article{k,", "@article{k, file = {x"],
)
def test_malformed_text_gives_no_fields_and_never_raises(text: str) -> None:
    assert file_fields(text) == {}


def test_an_entry_commented_out_is_not_read() -> None:
    """pandoc reads the live entry, not one inside @comment{…}: nor may the local copy."""
    text = (
        "@comment{ old one: @article{k, title={Wrong}, file={wrong.pdf}} }\n"
        "@string(journal = {J})\n"
        "@article{k, title={Right}, file={right.pdf}}\n"
    )
    (field,) = file_fields(text).values()
    assert (field.key, field.value, field.line) == ("k", "right.pdf", 3)
