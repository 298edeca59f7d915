"""Is an evidence file's text what its extractor makes of its body? Re-derived, or remembered.

The text record of an evidence file is what the locator searched; nothing inside the file can
prove it came from the captured body, because whoever rewrites the text can rewrite its headers
too. So the judgement runs the extractor again on the stored body and compares digests. A PDF
can take a second to extract, and a build runs often: a confirmed derivation (body digest,
extractor, text digest) is remembered in the user's cache, outside the project — a document or a
pull request cannot write there, and a fresh CI runner simply re-derives. ``verify`` records each
derivation it made itself. Losing the cache costs time, never correctness.

Pure but for that cache: no network.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from citeledger.atomic import atomic_write


def cache_dir() -> Path:
    """``$CITELEDGER_CACHE_DIR``, else ``$XDG_CACHE_HOME/citeledger``, else ``~/.cache/…``."""
    explicit = os.environ.get("CITELEDGER_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "citeledger"


def _entry(body_sha256: str) -> Path:
    return cache_dir() / "derivations" / body_sha256[:2] / f"{body_sha256}.json"


def _read(body_sha256: str) -> dict[str, str]:
    try:
        data = json.loads(_entry(body_sha256).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def remembered(body_sha256: str, extractor: str) -> str | None:
    """The text digest this extractor was seen to make of this body, if it was."""
    return _read(body_sha256).get(extractor)


def remember(body_sha256: str, extractor: str, text_sha256: str) -> None:
    """Record a derivation this process made itself; a cache that cannot be written is skipped."""
    known = _read(body_sha256)
    if known.get(extractor) == text_sha256:
        return
    known[extractor] = text_sha256
    keep(_entry(body_sha256), json.dumps(known, sort_keys=True).encode("utf-8"))


def keep(path: Path, data: bytes) -> None:
    """Write a file of the user's cache atomically; a cache that cannot be written is skipped
    (losing it costs time, never correctness)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # not fsynced: a cache entry lost to a power cut is re-derived, never trusted unseen
        atomic_write(path, data, durable=False)
    except OSError:
        pass
