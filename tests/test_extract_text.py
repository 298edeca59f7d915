"""Plain text: the extracted text is the decoded body, BOM dropped, CRLF/CR → LF, nothing
else — so receipt offsets mean the same thing every time the same bytes are read."""

from __future__ import annotations

import pytest

from citeledger.errors import ExtractError
from citeledger.extract.dispatch import extract, extract_file
from citeledger.extract.text import normalize_charset
from conftest import corpus_file


def test_gutenberg_with_bom_and_crlf() -> None:
    path = corpus_file("text", "project_gutenberg_pride_and_prejudice.txt")
    body = path.read_bytes()
    assert body.startswith(b"\xef\xbb\xbf") and b"\r\n" in body  # the fixture is what we test
    ex = extract_file(path)
    assert ex.kind == "text" and ex.extractor == "citeledger-text"
    assert "charset=utf-8" in ex.extractor_version
    assert ex.text.startswith("Chapter I.\n")  # no BOM at offset 0
    assert "\r" not in ex.text
    assert (
        "It is a truth universally acknowledged, that a single man in possession\n"
        "of a good fortune must be in want of a wife."
    ) in ex.text
    # Offsets are honest: exactly the decoded body, with BOM removed and CRLF → LF.
    assert ex.text == body[3:].decode("utf-8").replace("\r\n", "\n")
    assert len(ex.text) == len(body[3:].decode("utf-8")) - body.count(b"\r\n")


def test_frankenstein_dash_survives_decoding() -> None:
    ex = extract_file(corpus_file("text", "project_gutenberg_frankenstein.txt"))
    assert ex.text.startswith("Letter 1\n\n_To Mrs. Saville, England._")
    assert "St. Petersburgh, Dec. 11th, 17—." in ex.text


def test_rfc_keeps_form_feeds_and_layout() -> None:
    body = corpus_file("text", "rfc3986.txt").read_bytes()
    ex = extract(body, "text/plain")
    assert ex.text == body.decode("utf-8")  # LF-only ASCII: unchanged, form feeds kept
    assert ex.text.count("\f") == 61
    assert "Uniform Resource Identifier (URI): Generic Syntax" in ex.text
    assert ex.page_starts == ()


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("\ufeffa\r\nb".encode("utf-16-le"), "a\nb"),
        ("\ufeffa\r\nb".encode("utf-16-be"), "a\nb"),
        ("\ufeffa\r\nb".encode("utf-32-le"), "a\nb"),
        (b"\xef\xbb\xbfa\rb\r\n\r\nc", "a\nb\n\nc"),
        ("naïve café".encode(), "naïve café"),
    ],
    ids=["utf16le-bom", "utf16be-bom", "utf32le-bom", "utf8-bom-cr", "utf8"],
)
def test_bom_and_newlines(body: bytes, expected: str) -> None:
    assert extract(body, "text/plain").text == expected


def test_utf8_beats_a_stale_latin1_declaration() -> None:
    body = "Grüße aus Köln".encode()
    assert extract(body, "text/plain; charset=iso-8859-1").text == "Grüße aus Köln"


def test_legacy_encodings_are_detected() -> None:
    german = "Grüße aus Köln: schöne Straße, Übermut tut selten gut, sagt die Oma."
    assert extract(german.encode("cp1252"), "text/plain").text == german
    russian = "Привет, мир! Это проверка кодировки простого текста, и она должна работать."
    assert extract(russian.encode("cp1251"), "text/plain").text == russian
    # A declared charset is used when the bytes are not UTF-8.
    assert extract("Привет".encode("koi8-r"), "text/plain; charset=koi8-r").text == "Привет"


def test_binary_and_empty_bodies_are_refused() -> None:
    with pytest.raises(ExtractError, match="binary"):
        extract(b"abc\x00\x01\x02def", "text/plain")
    with pytest.raises(ExtractError, match="empty"):
        extract(b"  \r\n\t ", "text/plain")


@pytest.mark.parametrize(
    ("label", "codec"),
    [  # the WHATWG Encoding standard's table, as browsers read a declared charset
        ("cp819", "cp1252"),
        ("csisolatin1", "cp1252"),
        ("ISO-8859-1", "cp1252"),
        ("us-ascii", "cp1252"),
        ("x-cp1252", "cp1252"),
        ("iso-8859-9", "cp1254"),
        ("euc-kr", "cp949"),
        ("ks_c_5601-1987", "cp949"),
        ("shift_jis", "cp932"),
        ("x-sjis", "cp932"),
        ("gb2312", "gb18030"),
        ("big5", "big5hkscs"),
        ("unicode-1-1-utf-8", "utf-8"),
        (" UTF8 ", "utf-8"),
        ("utf-16", "utf-16-le"),
        ("tis-620", "cp874"),
        ("koi8-r", "koi8-r"),
        ("replacement", None),  # names no text
        ("x-user-defined", None),
        ("base64", None),  # a Python codec, not a charset of the web
        ("rot13", None),
        ("utf-7", None),
    ],
)
def test_charset_labels_mean_what_they_mean_to_a_browser(label: str, codec: str | None) -> None:
    assert normalize_charset(label) == codec


def test_a_euc_kr_page_decodes_the_windows_949_extension() -> None:
    body = "똠방각하".encode("cp949")  # 똠 exists only in the web's EUC-KR (Windows-949)
    assert extract(body, "text/plain; charset=euc-kr").text == "똠방각하"
