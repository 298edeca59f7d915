"""Is an evidence file's text what its extractor makes of its body? Re-derived, or remembered.

The text record of an evidence file is what the locator searched; nothing inside the file can
prove it came from the captured body, because whoever rewrites the text can rewrite its headers
too. So the judgement runs the extractor again on the stored body and compares digests. A PDF
can take a second to extract, and a build runs often: a confirmed derivation (body digest,
extractor, text digest) is remembered in the user's cache, outside the project, sealed
(``usercache``) — a document or a pull request cannot write there, and a fresh CI runner simply
re-derives. ``verify`` records each derivation it made itself. Losing the cache costs time,
never correctness.

Pure but for that cache: no network.
"""

from __future__ import annotations

import json
from pathlib import Path

from citeledger.evidence.usercache import cache_dir, keep_sealed, unsealed


def _entry(body_sha256: str) -> Path:
    return cache_dir() / "derivations" / body_sha256[:2] / f"{body_sha256}.json"


def _read(body_sha256: str) -> dict[str, str]:
    data = unsealed(_entry(body_sha256))
    try:
        known = json.loads(data) if data is not None else {}
    except ValueError:
        return {}
    return {str(k): str(v) for k, v in known.items()} if isinstance(known, dict) else {}


def remembered(body_sha256: str, extractor: str) -> str | None:
    """The text digest this extractor was seen to make of this body, if it was."""
    return _read(body_sha256).get(extractor)


def remember(body_sha256: str, extractor: str, text_sha256: str) -> None:
    """Record a derivation this process made itself; a cache that cannot be written is skipped."""
    known = _read(body_sha256)
    if known.get(extractor) == text_sha256:
        return
    known[extractor] = text_sha256
    keep_sealed(_entry(body_sha256), json.dumps(known, sort_keys=True).encode("utf-8"))
