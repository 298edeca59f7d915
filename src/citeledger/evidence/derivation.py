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


# Each extractor's rules version, where its ``extractor_version`` starts ("6+selectolax-…")
_RULES = {
    "citeledger-html/selectolax": ("citeledger.extract.html", "HTML_RULES_VERSION"),
    "citeledger-pdf/pypdfium2": ("citeledger.extract.pdf", "PDF_RULES_VERSION"),
    "citeledger-pdf/pypdf": ("citeledger.extract.pdf", "PDF_RULES_VERSION"),
    "citeledger-text": ("citeledger.extract.text", "TEXT_RULES_VERSION"),
}


def _current_rules(extractor: str) -> bool:
    """Was ``extractor`` ("name version") this build's rules of that extractor? A derivation
    made under older rules (text a hidden-text rule now leaves out) must not confirm evidence
    on the machine that remembers it, when a fresh runner, re-deriving, finds it stale: the
    same commit would give two verdicts (review s21 N2)."""
    import importlib

    name, _, version = extractor.partition(" ")
    if name not in _RULES:
        return True  # not one of ours: confirmed or not by its full name alone
    module, constant = _RULES[name]
    now = str(getattr(importlib.import_module(module), constant))
    return version.split(";")[0].split("+")[0].strip() == now


def remembered(body_sha256: str, extractor: str) -> str | None:
    """The text digest this extractor was seen to make of this body, if it was, under this
    build's rules for that extractor."""
    if not _current_rules(extractor):
        return None
    return _read(body_sha256).get(extractor)


def remember(body_sha256: str, extractor: str, text_sha256: str) -> None:
    """Record a derivation this process made itself; a cache that cannot be written is skipped."""
    known = _read(body_sha256)
    if known.get(extractor) == text_sha256:
        return
    known[extractor] = text_sha256
    keep_sealed(_entry(body_sha256), json.dumps(known, sort_keys=True).encode("utf-8"))
