"""The filter's side of ``citations.sourced_crossrefs``: which prefixed keys are ledger sources,
and what it says of a key that is a source and a label both.

Kept out of the filter's main path: asked only when a document has a key like ``@sec-2020``,
and then the ledger's bytes are searched before any ledger is loaded, so a document full of
``@fig-x`` references costs one file read.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
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
