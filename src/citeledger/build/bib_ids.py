"""Which of some keys are entries of one bibliography file, read as citeproc reads its ids —
so that a prefixed key (``@sec-2020``) the file holds is judged, not passed over as a
cross-reference (``crossref_sources``).

An id the file holds must never be missed, so each format is read where its ids are decoded:

- BibTeX/BibLaTeX (``.bib``, ``.bibtex``, ``.biblatex``: pandoc's names for them): pandoc
  takes a key as it is written (a ``\\`` or ``{`` in one is an error), so the key's bytes are
  looked for, then ``@type{key,``; an entry commented out counts too (an extra source only
  means a citation is judged);
- CSL JSON (``.json``) and CSL YAML (``.yaml``): without a ``\\`` (``"sec\\u002d2020"``,
  ``"sec\\x2d2020"``) the id's bytes must be there; else the file is decoded (``json``, YAML's
  safe loader) and its ids read as pandoc reads them: as written, no Markdown. An item with
  two ``"id"`` members counts both (pandoc keeps the first, ``json`` the last);
- the rest (``.ris``, EndNote ``.xml``): pandoc itself converts the file to CSL JSON — a
  subprocess, asked only when a prefixed key is passed over.

A file that starts with a UTF-16 or UTF-32 byte-order mark is decoded first (pandoc's YAML
reader reads UTF-16 so); a file with no mark is read as UTF-8, as pandoc reads it.

A file that cannot be read or parsed raises ``Unreadable``: then the keys it might hold are
not known to be cross-references. No network: a URL is the caller's to refuse.
"""

from __future__ import annotations

import codecs
import json
import re
import subprocess
from collections.abc import Collection
from pathlib import Path
from typing import Any

# a bibliography larger than this is refused (a device or a runaway file is never read whole)
BIB_LIMIT = 256 * 2**20

_BIBTEX = (".bib", ".bibtex", ".biblatex")
_CSL = (".json", ".yaml", ".yml")
_PANDOC_FORMATS = {".ris": "ris", ".xml": "endnotexml"}
#: the names the filter reads, for a message
_KNOWN = ", ".join((*_BIBTEX, *_CSL, *_PANDOC_FORMATS))


class Unreadable(Exception):
    """The file's ids cannot be read; the message says why, in a few words."""


def ids_in(name: str, data: bytes, keys: Collection[str]) -> set[str]:
    """Which of ``keys`` are ids of the bibliography ``name`` whose bytes are ``data``."""
    data = _utf8(data)
    suffix = Path(name).suffix.lower()
    if suffix in _BIBTEX:
        return {key for key in spelled(data, keys) if _bib_entry(key).search(data)}
    if suffix in _CSL:
        if b"\\" not in data and not spelled(data, keys):
            return set()
        return set(keys) & _csl_ids(_json(data) if suffix == ".json" else _yaml(data))
    fmt = _PANDOC_FORMATS.get(suffix)
    if fmt is None:
        raise Unreadable(f"the filter reads a bibliography only from a name ending {_KNOWN}")
    return set(keys) & _csl_ids(_json(_pandoc_csljson(data, fmt)))


#: byte-order marks, UTF-32's first: its little-endian mark starts with UTF-16's
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def _utf8(data: bytes) -> bytes:
    """``data`` as UTF-8 when a byte-order mark says it is UTF-16 or UTF-32: else a key's
    bytes are not there to be found, and a key pandoc reads would pass as a cross-reference."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(codec).encode("utf-8")
            except UnicodeDecodeError as e:
                raise Unreadable(f"not {codec.upper()} as its byte-order mark says: {e}") from None
    return data


def spelled(data: bytes, keys: Collection[str]) -> set[str]:
    """Which of ``keys`` ``data`` holds as UTF-8 bytes: each distinct head (a key's first four
    bytes, ``sec-``) searched once, each key tried only where its head stands — one pass over
    a large file however many ``@fig-N`` a book has."""
    heads: dict[bytes, list[tuple[str, bytes]]] = {}
    for key in keys:
        raw = key.encode()
        heads.setdefault(raw[:4], []).append((key, raw))
    found: set[str] = set()
    for head, named in heads.items():
        at = data.find(head)
        while at >= 0 and len(found) < len(keys):
            found.update(key for key, raw in named if data.startswith(raw, at))
            at = data.find(head, at + 1)
    return found


def _bib_entry(key: str) -> re.Pattern[bytes]:
    """``key`` as an entry's key: ``@book{key,`` (spaces and line breaks allowed around it)."""
    return re.compile(rb"@\s*\w+\s*[{(]\s*" + re.escape(key.encode()) + rb"\s*,")


class _Item(dict[str, Any]):
    """A JSON object, and every value of its ``id`` members (``ids``), duplicates included."""

    ids: list[Any]


def _item(pairs: list[tuple[str, Any]]) -> _Item:
    item = _Item(pairs)
    item.ids = [value for name, value in pairs if name == "id"]
    return item


def _json(data: bytes) -> Any:
    try:
        return json.loads(data.decode("utf-8-sig"), object_pairs_hook=_item)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise Unreadable(f"not CSL JSON: {e}") from None


def _yaml(data: bytes) -> Any:
    """A CSL YAML file's items: its ``references`` list (or a list alone)."""
    import yaml

    try:
        loaded = yaml.load(
            data.decode("utf-8-sig"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        )
    except (UnicodeDecodeError, yaml.YAMLError) as e:
        raise Unreadable(f"not CSL YAML: {str(e).splitlines()[0]}") from None
    return loaded.get("references", []) if isinstance(loaded, dict) else loaded


def _csl_ids(items: Any) -> set[str]:
    """The ``id`` of every item of a CSL JSON list (a number id is its digits, as in pandoc;
    every ``id`` of an item that has more than one: either may be the one citeproc reads)."""
    if isinstance(items, dict):
        items = [items]
    if not isinstance(items, list):
        raise Unreadable("not CSL JSON: neither a list of items nor one item")
    ids = set()
    for item in items:
        if not isinstance(item, dict):
            continue
        for value in item.ids if isinstance(item, _Item) else [item.get("id")]:
            if isinstance(value, str):
                ids.add(value)
            elif isinstance(value, int | float) and not isinstance(value, bool):
                ids.add(str(int(value)) if float(value).is_integer() else str(value))
    return ids


def _pandoc_csljson(data: bytes, fmt: str) -> bytes:
    """The file converted by pandoc to CSL JSON: its ids decoded exactly as citeproc's are."""
    import pypandoc

    try:
        done = subprocess.run(
            [str(pypandoc.get_pandoc_path()), "-f", fmt, "-t", "csljson"],
            input=data,
            capture_output=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise Unreadable(f"pandoc could not be run on it: {e}") from None
    if done.returncode != 0:
        first = (done.stderr.decode("utf-8", "replace").strip().splitlines() or ["failed"])[0]
        raise Unreadable(f"pandoc could not read it: {first}")
    return done.stdout
