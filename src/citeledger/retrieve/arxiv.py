"""arXiv: both id forms, versions pinned, the PDF as text, the API as metadata.

Ids are parsed by ``identifiers``, the ledger's own grammar.

A versioned id (``2101.00001v2``) is fetched at exactly that version; an unversioned one gets the
latest, and the API's answer says which version that was. The API is always asked about the work
(the id without its version), so its answer names the newest version even for a pinned id:
``version`` is the version the PDF is, ``latest_version`` the newest one arXiv lists — how
recheck learns that a pinned v1 was superseded (a pinned id's PDF never changes). It must never
rewrite an id into a different work (an old-form id stays old-form) and never send anything but
the id.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from citeledger.errors import RetrievalError
from citeledger.ledger.identifiers import ArxivId, IdentifierError, parse_arxiv
from citeledger.model import Identifier

from .config import RetrieveConfig
from .http import Fetched
from .providers import METADATA, TEXT, Call, NetworkProvider, bad

_ATOM = "{http://www.w3.org/2005/Atom}"
_ARXIV = "{http://arxiv.org/schemas/atom}"


def abs_url(aid: ArxivId, config: RetrieveConfig) -> str:
    return f"{config.arxiv_base}abs/{quote(aid.id, safe='/.')}"


def pdf_url(aid: ArxivId, config: RetrieveConfig) -> str:
    return f"{config.arxiv_base}pdf/{quote(aid.id, safe='/.')}"


def api_url(aid: ArxivId, config: RetrieveConfig) -> str:
    """The API asked about the work, not a version: its entry is the newest version."""
    return f"{config.arxiv_api_base}query?id_list={quote(aid.base, safe='/.')}&max_results=1"


class ArxivProvider(NetworkProvider):
    kind = "arxiv"

    def calls(self, identifier: Identifier, config: RetrieveConfig) -> tuple[Call, ...]:
        try:
            aid = parse_arxiv(identifier.value)
        except IdentifierError as exc:
            raise bad(identifier, str(exc)) from None
        pinned = f"version {aid.version}" if aid.version else "latest version"
        return (
            Call(pdf_url(aid, config), TEXT, "application/pdf", f"the PDF ({pinned})"),
            Call(api_url(aid, config), METADATA, "application/atom+xml", "metadata (arXiv API)"),
        )

    def parse_metadata(self, identifier: Identifier, fetched: Fetched) -> Mapping[str, Any]:
        aid = parse_arxiv(identifier.value)
        return parse_atom(fetched.body, aid)


def _name(full: str) -> dict[str, str]:
    parts = full.split()
    if len(parts) < 2:
        return {"literal": full}
    return {"family": parts[-1], "given": " ".join(parts[:-1])}


def parse_atom(body: bytes, aid: ArxivId) -> Mapping[str, Any]:
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
    latest = int(m.group(1)) if m else None
    version = aid.version or latest  # a pinned id is that version, whatever is newest
    if version:
        record["version"] = f"v{version}"
    if latest:
        record["latest_version"] = f"v{latest}"
    record["number"] = f"arXiv:{aid.base}"
    url = entry_id.replace("http://", "https://", 1)
    record["URL"] = re.sub(r"v\d+$", f"v{version}", url) if aid.version else url
    for tag, key in (("doi", "DOI"), ("journal_ref", "container-title"), ("comment", "note")):
        value = " ".join((entry.findtext(f"{_ARXIV}{tag}") or "").split())
        if value:
            record[key] = value
    return record
