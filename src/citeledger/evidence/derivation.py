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
import os
from pathlib import Path

from citeledger.evidence.usercache import cache_dir, keep_sealed, seal, unsealed


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
    if _created(_entry(body_sha256), {extractor: text_sha256}):
        return
    known = _read(body_sha256)
    if known.get(extractor) == text_sha256:
        return
    known[extractor] = text_sha256
    keep_sealed(_entry(body_sha256), json.dumps(known, sort_keys=True).encode("utf-8"))


_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def _created(path: Path, known: dict[str, str]) -> bool:
    """A body's first derivation, its entry created where none is (most bodies a verify stores
    are new): no read that finds nothing, no temp file and rename. False when an entry is there
    (or the cache cannot take one): the caller merges into it atomically. A reader meeting the
    entry half written finds its seal broken, as a killed write leaves it: no entry, which
    costs a re-derivation (and the next ``remember`` replaces it), never a wrong text."""
    blob = seal(path, json.dumps(known, sort_keys=True).encode("utf-8"))
    if blob is None:
        return True  # no key: the cache is not believed or not kept, nothing is written
    try:
        try:
            fd = os.open(path, _CREATE, 0o600)
        except FileNotFoundError:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(path, _CREATE, 0o600)
    except OSError:  # there already, or not writable: the ordinary way decides
        return False
    try:
        view = memoryview(blob)
        while view:
            view = view[os.write(fd, view) :]
    except OSError:
        return True  # a full disk: a broken seal is no entry, and costs time only
    finally:
        os.close(fd)
    return True
