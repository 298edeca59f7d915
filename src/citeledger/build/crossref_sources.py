"""The build's side of ``citations.sourced_crossrefs``: which prefixed keys are sources — of
the ledger, or of the document's bibliography (its ``bibliography`` files and ``references``
entries: citeproc renders those too, and one not in the ledger is then ``not-in-ledger``) — and
what it says of a key that is a source and a label both.

Kept out of the filter's main path: asked only when a document has a key like ``@sec-2020``,
and then files are searched as bytes before any ledger is loaded, so a document full of
``@fig-x`` references costs a file read or two.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from citeledger.build.crossref import label_warning
from citeledger.build.options import Options


def ledger_sources(options: Options, factory: Any) -> Callable[[Collection[str]], Collection[str]]:
    """Which of some keys are sources of the build's ledger. ``factory``: the filter's judge
    factory (``LedgerJudges``), which loads, confines and caches ledgers. No ledger, no
    sources: its warning is the citations' to give."""

    def sources(keys: Collection[str]) -> Collection[str]:
        if not options.ledger_from_document:  # a document's own ledger is confined first
            try:
                data = options.ledger_path(getattr(factory, "cwd", None)).read_bytes()
            except OSError:
                return ()
            if not any(key.encode() in data for key in keys):
                return ()
        ledger = getattr(factory(options), "ledger", None)
        return [key for key in keys if ledger is not None and key in ledger.sources]

    return sources


def bibliography_sources(
    meta: Mapping[str, Any], folders: Sequence[Path]
) -> Callable[[Collection[str]], Collection[str]]:
    """Which of some keys are entries of the document's bibliography: its ``references``
    metadata, or a ``bibliography`` file (BibTeX/BibLaTeX, CSL JSON or YAML) found in one of
    ``folders`` as pandoc finds it (relative to where it runs). Only each key is looked for;
    a file that cannot be read holds none (pandoc reports it)."""

    def sources(keys: Collection[str]) -> Collection[str]:
        found = {key for key in keys if key in _reference_ids(meta.get("references"))}
        for name in meta_strings(meta.get("bibliography")):
            data = _read(name, folders)
            for key in set(keys) - found:
                if key.encode() in data and _entry(key).search(data):
                    found.add(key)
        return found

    return sources


def _entry(key: str) -> re.Pattern[bytes]:
    """``key`` as an entry's key: ``@book{key,``, ``"id": "key"``, ``id: key``."""
    k = re.escape(key.encode())
    return re.compile(
        rb"@\w+\s*[{(]\s*" + k + rb"\s*,|[\"']?\bid[\"']?\s*:\s*[\"']?" + k + rb"(?![\w:.-])"
    )


def _read(name: str, folders: Sequence[Path]) -> bytes:
    path = Path(name).expanduser()
    for candidate in [path] if path.is_absolute() else [f / path for f in folders]:
        try:
            return candidate.read_bytes()
        except OSError:
            continue
    return b""


def meta_strings(value: Any) -> list[str]:
    """A metadata value's non-empty strings (a MetaString, MetaInlines, or a list of them): the
    file names of ``bibliography:``, the ``id`` of a ``references`` entry."""
    from citeledger.build.citations import plain_text

    if not isinstance(value, dict):
        return []
    t, c = value.get("t"), value.get("c")
    if t == "MetaString" and isinstance(c, str):
        return [c] if c else []
    if t == "MetaInlines" and isinstance(c, list):
        return [text] if (text := plain_text(c)) else []
    if t == "MetaList" and isinstance(c, list):
        return [s for item in c for s in meta_strings(item)]
    return []


def _reference_ids(value: Any) -> set[str]:
    """The ``id`` of each entry of a ``references`` metadata list (read as ``references`` reads
    it when it merges the ledger's entries)."""
    from citeledger.build.references import ref_id

    if not isinstance(value, dict) or value.get("t") != "MetaList":
        return set()
    return {i for entry in value.get("c") or [] if isinstance(entry, dict) and (i := ref_id(entry))}


def any_source(
    *lookups: Callable[[Collection[str]], Collection[str]],
) -> Callable[[Collection[str]], Collection[str]]:
    """The keys any of ``lookups`` knows, each asked only for the keys the ones before lacked."""

    def sources(keys: Collection[str]) -> Collection[str]:
        found: set[str] = set()
        for lookup in lookups:
            rest = set(keys) - found
            if not rest:
                break
            found.update(lookup(rest))
        return found

    return sources


def label_notes(labels: Collection[str], options: Options) -> tuple[list[str], list[str]]:
    """The warnings for keys that are ledger sources and labels both, and the strict error."""
    warnings = [label_warning(key, options.ledger) for key in labels]
    errors = []
    if labels and options.strict:
        some = (
            "1 ledger key is a label"
            if len(labels) == 1
            else f"{len(labels)} ledger keys are labels"
        )
        errors.append(
            f"strict: {some} of this document too; failing the build (rename, or set "
            "citeledger.strict: false to build anyway)"
        )
    return warnings, errors
