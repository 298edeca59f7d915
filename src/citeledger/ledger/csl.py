"""The CSL-JSON vocabulary a ledger source may use, read from the CSL data schema itself.

The ledger feeds citeproc, so its bibliographic fields are CSL-JSON's own names and types. A
hand list refused what reference managers export (``original-author``, ``number-of-pages``…);
the vocabulary is therefore derived from the vendored schema (``csl-data.json``, CSL 1.0.2,
MIT licence in ``csl-data.LICENSE.txt``) and cannot drift from it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SCHEMA_FILE = "csl-data.json"

#: Schema variables a source does not take as fields: the ledger key is the item's ``id``, and
#: a ``locator`` belongs to a citation or a quote, never to the work.
NOT_SOURCE_FIELDS = frozenset({"id", "locator"})


def schema() -> dict[str, Any]:
    """The vendored CSL data schema (JSON Schema draft-07), beside this module: read as a
    file, since ``importlib.resources`` costs every build ~5 ms of imports (zipfile, …)."""
    text = Path(__file__).with_name(SCHEMA_FILE).read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def _kinds(spec: dict[str, Any]) -> frozenset[str]:
    if "$ref" in spec:
        return frozenset({spec["$ref"].rsplit("/", 1)[-1]})
    kind = spec.get("type", ())
    return frozenset([kind] if isinstance(kind, str) else kind)


_SCHEMA = schema()
_PROPS: dict[str, Any] = _SCHEMA["items"]["properties"]
_DEFS: dict[str, Any] = _SCHEMA["definitions"]


def _of(*kinds: str) -> frozenset[str]:
    return frozenset(
        name
        for name, spec in _PROPS.items()
        if name not in NOT_SOURCE_FIELDS
        and (
            _kinds(spec) == frozenset(kinds)
            or (spec.get("type") == "array" and _kinds(spec.get("items", {})) == set(kinds))
        )
    )


CSL_VARIABLES = frozenset(_PROPS) - NOT_SOURCE_FIELDS
NAME_VARIABLES = _of("name-variable")
DATE_VARIABLES = _of("date-variable")
#: ``["string", "number"]`` in the schema: an unquoted 12 stays a number.
NUMBER_VARIABLES = _of("string", "number")
#: Lists of strings (``categories``) and the free ``custom`` object.
LIST_VARIABLES = frozenset(
    n for n, s in _PROPS.items() if s.get("type") == "array" and n not in NAME_VARIABLES
)
OBJECT_VARIABLES = frozenset(n for n, s in _PROPS.items() if s.get("type") == "object")

_NAME_PROPS: dict[str, Any] = _DEFS["name-variable"]["anyOf"][0]["properties"]
NAME_PARTS = frozenset(n for n, s in _NAME_PROPS.items() if s.get("type") == "string")
NAME_FLAGS = frozenset(_NAME_PROPS) - NAME_PARTS
DATE_PARTS = frozenset(_DEFS["date-variable"]["anyOf"][0]["properties"])
CSL_TYPES = frozenset(_PROPS["type"]["enum"])
