"""ISBNs: a book's metadata (Open Library), never its text.

An ISBN names an edition, not a text anyone can fetch, so the outcome is always "no text
available" — verify turns it into ``unretrievable`` with that reason — carrying the metadata so a
mismatch with the ledger can still be seen. It must never pretend a catalogue record is the book.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from citeledger.ledger.identifiers import IdentifierError, validate_isbn
from citeledger.model import Identifier

from .config import RetrieveConfig
from .doi import parse_json_metadata
from .http import Fetched
from .providers import METADATA, Call, NetworkProvider, bad

NO_TEXT = "no text available (ISBN gives metadata only)"


def normalize_isbn(value: str) -> str:
    """Digits (and a final X) of a valid ISBN: the ledger's grammar (``identifiers``)."""
    return validate_isbn(value)


class IsbnProvider(NetworkProvider):
    kind = "isbn"
    no_text_reason: ClassVar[str | None] = NO_TEXT

    def calls(self, identifier: Identifier, config: RetrieveConfig) -> tuple[Call, ...]:
        try:
            isbn = normalize_isbn(identifier.value)
        except IdentifierError as exc:
            raise bad(identifier, str(exc)) from None
        url = f"{config.isbn_base}isbn/{isbn}.json"
        return (Call(url, METADATA, "application/json", "book metadata (no text exists)"),)

    def parse_metadata(self, identifier: Identifier, fetched: Fetched) -> Mapping[str, Any]:
        data = parse_json_metadata(fetched, "the ISBN catalogue")
        return openlibrary_to_csl(data, normalize_isbn(identifier.value), fetched.url)


def openlibrary_to_csl(data: Mapping[str, Any], isbn: str, url: str) -> Mapping[str, Any]:
    """An Open Library edition record as CSL-JSON (authors are only keys there: left out)."""
    record: dict[str, Any] = {"type": "book", "ISBN": isbn}
    title = data.get("title")
    if isinstance(title, str) and title.strip():
        subtitle = data.get("subtitle")
        record["title"] = (
            f"{title.strip()}: {subtitle.strip()}"
            if isinstance(subtitle, str) and subtitle
            else title.strip()
        )
    publishers = data.get("publishers")
    if isinstance(publishers, list) and publishers and isinstance(publishers[0], str):
        record["publisher"] = publishers[0]
    date = data.get("publish_date")
    if isinstance(date, str):
        year = re.search(r"\b(\d{4})\b", date)
        if year:
            record["issued"] = {"date-parts": [[int(year.group(1))]]}
    pages = data.get("number_of_pages")
    if isinstance(pages, int):
        record["number-of-pages"] = pages
    by = data.get("by_statement")
    if isinstance(by, str) and by.strip():
        record["note"] = by.strip()
    record["URL"] = url
    return record
