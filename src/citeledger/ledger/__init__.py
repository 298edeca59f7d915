"""The writer's ledger: sources, quotes, withdrawals and the tool's receipts, in one YAML file.

``load`` reads and validates it (every build), ``write`` adds to it under a lock (only the tool's
acts and the writer's commands), ``csl`` is the bibliographic vocabulary, ``yamlnodes`` the YAML
text with positions both rely on, ``identifiers`` the one grammar of DOIs, arXiv ids, ISBNs and
URLs, ``record`` the writer-facing edits (add, import, withdraw, dispute), ``outlined`` a
build's ledger from its remembered outline.

The names below are imported on first use: a build reaches this package through any of its
modules, and one whose ledger needs no parse must not import ``load``, ``write`` and so PyYAML
(``outlined``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from citeledger.ledger.csl import CSL_VARIABLES
    from citeledger.ledger.load import (
        ASSERTION_FIELDS,
        DEFAULT_EVIDENCE_DIR,
        LOCK_TIMEOUT,
        RECEIPT_FIELDS,
        is_citation_key,
        load_ledger,
        receipt_from_mapping,
        receipt_to_dict,
    )
    from citeledger.ledger.write import (
        add_quote,
        add_source,
        append_receipt,
        append_receipts,
        edit_ledger,
        lock_path,
        refuse_shared_quotes,
        set_disputed,
        set_history_head,
        set_withdrawn,
    )

_LOAD = (
    "ASSERTION_FIELDS",
    "DEFAULT_EVIDENCE_DIR",
    "LOCK_TIMEOUT",
    "RECEIPT_FIELDS",
    "is_citation_key",
    "load_ledger",
    "receipt_from_mapping",
    "receipt_to_dict",
)
_WRITE = (
    "add_quote",
    "add_source",
    "append_receipt",
    "append_receipts",
    "edit_ledger",
    "lock_path",
    "refuse_shared_quotes",
    "set_disputed",
    "set_history_head",
    "set_withdrawn",
)
_HOMES = {"CSL_VARIABLES": "csl", **dict.fromkeys(_LOAD, "load"), **dict.fromkeys(_WRITE, "write")}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


__all__ = [
    "ASSERTION_FIELDS",
    "CSL_VARIABLES",
    "DEFAULT_EVIDENCE_DIR",
    "LOCK_TIMEOUT",
    "RECEIPT_FIELDS",
    "add_quote",
    "add_source",
    "append_receipt",
    "append_receipts",
    "edit_ledger",
    "is_citation_key",
    "load_ledger",
    "lock_path",
    "receipt_from_mapping",
    "receipt_to_dict",
    "refuse_shared_quotes",
    "set_disputed",
    "set_history_head",
    "set_withdrawn",
]
