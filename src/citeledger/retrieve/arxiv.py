"""arXiv identifiers: both id forms, versions pinned, the PDF as text, the API as metadata.

A versioned id (``2101.00001v2``) is fetched at exactly that version; an unversioned one gets the
latest, and the API's answer says which version that was. It must never rewrite an id into a
different work (an old-form id stays old-form) and never send anything but the id.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from citeledger.errors import RetrievalError
from citeledger.model import Identifier

from .config import RetrieveConfig
from .http import Fetched
from .providers import METADATA, TEXT, Call, NetworkProvider, bad

NEW_FORM = re.compile(r"^(?P<yymm>\d{4})\.(?P<num>\d{4,5})(?:v(?P<v>[1-9]\d*))?$")
OLD_FORM = re.compile(
    r"^(?P<archive>[a-z]+(?:-[a-z]+)*(?:\.[A-Z]{2})?)/(?P<yymm>\d{4})(?P<num>\d{3})"
    r"(?:v(?P<v>[1-9]\d*))?$"
)
_ATOM = "{http://www.w3.org/2005/Atom}"
_ARXIV = "{http://arxiv.org/schemas/atom}"


@dataclass(frozen=True)
class ArxivId:
    base: str  # without version: 2101.00001, hep-th/9901001
    version: int | None = None

    @property
    def id(self) -> str:
        return f"{self.base}v{self.version}" if self.version else self.base

    def __str__(self) -> str:
        return self.id


def parse_arxiv(value: str) -> ArxivId:
    """Parse ``YYMM.NNNN[N][vN]`` or ``archive[.SC]/YYMMNNN[vN]``; raises ValueError otherwise."""
    text = value.strip()
    if text.lower().startswith("arxiv:"):
        text = text[6:]
    m = NEW_FORM.match(text)
    if m:
        yymm, num = m["yymm"], m["num"]
        if not 1 <= int(yymm[2:]) <= 12:
            raise ValueError(f"month {yymm[2:]} in {value!r} does not exist")
        # Four-digit numbers until 2014, five from 2015 (1501) on.
        if (len(num) == 5) != (int(yymm) >= 1501):
            raise ValueError(f"{value!r}: ids from {yymm} have {4 if len(num) == 5 else 5} digits")
        return ArxivId(f"{yymm}.{num}", int(m["v"]) if m["v"] else None)
    m = OLD_FORM.match(text)
    if m:
        if not 1 <= int(m["yymm"][2:]) <= 12:
            raise ValueError(f"month {m['yymm'][2:]} in {value!r} does not exist")
        return ArxivId(f"{m['archive']}/{m['yymm']}{m['num']}", int(m["v"]) if m["v"] else None)
    raise ValueError(f"{value!r} is neither YYMM.NNNNN[vN] nor archive/YYMMNNN[vN]")


def abs_url(aid: ArxivId, config: RetrieveConfig) -> str:
    return f"{config.arxiv_base}abs/{quote(aid.id, safe='/.')}"


def pdf_url(aid: ArxivId, config: RetrieveConfig) -> str:
    return f"{config.arxiv_base}pdf/{quote(aid.id, safe='/.')}"


def api_url(aid: ArxivId, config: RetrieveConfig) -> str:
    return f"{config.arxiv_api_base}query?id_list={quote(aid.id, safe='/.')}&max_results=1"


class ArxivProvider(NetworkProvider):
    kind = "arxiv"

    def calls(self, identifier: Identifier, config: RetrieveConfig) -> tuple[Call, ...]:
        try:
            aid = parse_arxiv(identifier.value)
        except ValueError as exc:
            raise bad(identifier, str(exc)) from None
        pinned = f"version {aid.version}" if aid.version else "latest version"
        return (
            Call(pdf_url(aid, config), TEXT, "application/pdf", f"the PDF ({pinned})"),
            Call(api_url(aid, config), METADATA, "application/atom+xml", "metadata (arXiv API)"),
        )

    def parse_metadata(self, identifier: Identifier, fetched: Fetched) -> Mapping[str, Any]:
        aid = parse_arxiv(identifier.value)
        return parse_atom(fetched.body, aid, fetched.url)


def _name(full: str) -> dict[str, str]:
    parts = full.split()
    if len(parts) < 2:
        return {"literal": full}
    return {"family": parts[-1], "given": " ".join(parts[:-1])}


def parse_atom(body: bytes, aid: ArxivId, api: str) -> Mapping[str, Any]:
    """The API's Atom entry as CSL-JSON (plus ``version``: the version the record describes)."""
    try:
        root = ET.fromstring(body)
    except ET.ParseError as exc:
        raise RetrievalError(
            f"the arXiv API returned unreadable XML: {exc}", kind="metadata"
        ) from None
    entry = root.find(f"{_ATOM}entry")
    entry_id = (entry.findtext(f"{_ATOM}id") or "").strip() if entry is not None else ""
    if entry is None or not entry_id or "/api/errors" in entry_id:
        raise RetrievalError(f"the arXiv API has no record of {aid.id}", kind="metadata")
    title = " ".join((entry.findtext(f"{_ATOM}title") or "").split())
    authors = [
        _name(" ".join((a.findtext(f"{_ATOM}name") or "").split()))
        for a in entry.findall(f"{_ATOM}author")
    ]
    record: dict[str, Any] = {"type": "article", "title": title, "publisher": "arXiv"}
    if authors:
        record["author"] = authors
    published = (entry.findtext(f"{_ATOM}published") or "")[:10]
    if re.match(r"^\d{4}-\d{2}-\d{2}$", published):
        record["issued"] = {"date-parts": [[int(x) for x in published.split("-")]]}
    summary = " ".join((entry.findtext(f"{_ATOM}summary") or "").split())
    if summary:
        record["abstract"] = summary
    m = re.search(r"v(\d+)$", entry_id)
    version = int(m.group(1)) if m else aid.version
    if version:
        record["version"] = f"v{version}"
    record["number"] = f"arXiv:{aid.base}"
    record["URL"] = entry_id.replace("http://", "https://", 1)
    for tag, key in (("doi", "DOI"), ("journal_ref", "container-title"), ("comment", "note")):
        value = " ".join((entry.findtext(f"{_ARXIV}{tag}") or "").split())
        if value:
            record[key] = value
    return record
