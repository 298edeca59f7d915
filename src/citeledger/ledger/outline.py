"""Where each source's text stands in a ledger, remembered by the ledger's exact bytes.

Parsing a 2,000-source ledger costs more than a one-page build may spend, and it gives the
same answer until the file changes. So after a full parse (the whole file's syntax, tags, top
level and keys checked), a build remembers an outline of it — the top-level settings and, for
each source, the span of text that holds it — under the sha256 of its bytes and of its folder.
The next build of the same bytes in the same folder parses only the spans of the sources it
cites (``load._SlicedSources``); any other bytes or folder, a missing or unreadable outline, or
a span that does not parse as that one source, is a full parse. The outline is kept in the
user's cache (``CITELEDGER_CACHE_DIR``), sealed, like the derivations: outside the project,
where a document or a pull request cannot write one (``usercache``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from citeledger.evidence.usercache import cache_dir, keep_sealed, unsealed
from citeledger.ledger.parsed import parse_code


def place(data: bytes, root: str) -> Path:
    """Where the outline of exactly these ledger bytes in the folder ``root`` is kept: their
    sha256, taken once per load and handed to both ``recall`` and ``remember`` (a large
    ledger's bytes are hashed once on a cold build, not twice), and the folder's. The folder is
    part of what an outline is for: a parse resolves ``evidence_dir`` (relative or absolute)
    and every path against it, so the same bytes in another folder are another outline."""
    digest = hashlib.sha256(data).hexdigest()
    folder = hashlib.sha256(root.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return cache_dir() / "ledgers" / digest[:2] / f"{digest}.{folder}.json"


def recall(where: Path) -> dict[str, Any] | None:
    """The outline remembered at ``place(data)``, or None."""
    data = unsealed(where)
    try:
        outline = json.loads(data) if data is not None else None
    except ValueError:
        return None
    if not isinstance(outline, dict) or outline.get("format") != parse_code():
        return None
    if not isinstance(outline.get("sources"), dict) or not isinstance(outline.get("top"), dict):
        return None
    return outline


def remember(where: Path, top: dict[str, Any], sources: dict[str, list[int]]) -> None:
    """Keep an outline at ``place(data)``; a cache that cannot be written is skipped (the next
    build parses)."""
    outline = {"format": parse_code(), "top": top, "sources": sources}
    keep_sealed(where, json.dumps(outline, ensure_ascii=False).encode("utf-8"))
