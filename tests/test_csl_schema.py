"""The ledger takes every variable of the CSL data schema, with the schema's types."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from citeledger.errors import LedgerError
from citeledger.ledger import csl, load_ledger

SCHEMA = Path(csl.__file__).with_name(csl.SCHEMA_FILE)


def _example(name: str, spec: dict[str, Any]) -> Any:
    """A value of the schema's own type for ``name`` (the first type it allows)."""
    ref = spec.get("$ref") or spec.get("items", {}).get("$ref", "")
    if ref.endswith("name-variable"):
        return [{"family": "Doe", "given": "Jane"}]
    if ref.endswith("date-variable"):
        return {"date-parts": [[2020, 11]]}
    kind = spec.get("type")
    kind = kind[0] if isinstance(kind, list) else kind
    if name == "type":
        return "book"
    return {"string": f"{name} text", "number": 3, "array": ["a", "b"], "object": {"k": "v"}}[kind]


def test_the_vocabulary_is_the_vendored_schema_and_its_licence_is_beside_it() -> None:
    raw = json.loads(SCHEMA.read_text("utf-8"))
    props = raw["items"]["properties"]
    assert set(props) - {"id", "locator"} == csl.CSL_VARIABLES
    assert {"original-author", "collection-editor", "number-of-pages", "version", "section"} <= (
        csl.CSL_VARIABLES
    )
    assert "number-of-pages" in csl.NUMBER_VARIABLES and "submitted" in csl.DATE_VARIABLES
    assert "MIT License" in SCHEMA.with_name("csl-data.LICENSE.txt").read_text("utf-8")


def test_a_source_with_every_csl_variable_loads_with_its_values(tmp_path: Path) -> None:
    props = json.loads(SCHEMA.read_text("utf-8"))["items"]["properties"]
    fields = {n: _example(n, s) for n, s in props.items() if n in csl.CSL_VARIABLES}
    path = tmp_path / "citeledger.yaml"
    path.write_text(yaml.safe_dump({"sources": {"a": {"doi": "10.1234/x", **fields}}}))
    source = load_ledger(str(path)).sources["a"]
    assert source.csl == fields
    assert not any(q.asserted_verified for q in source.quotes)


def test_csl_status_is_kept_and_a_verified_status_is_still_a_hand_written_flag(
    tmp_path: Path,
) -> None:
    path = tmp_path / "citeledger.yaml"
    path.write_text(
        "sources:\n"
        "  a:\n    doi: 10.1234/x\n    status: forthcoming\n    quotes:\n      - text: one\n"
        "  b:\n    doi: 10.1234/y\n    status: verified\n    quotes:\n      - text: two\n"
    )
    sources = load_ledger(str(path)).sources
    assert sources["a"].csl["status"] == "forthcoming"
    assert not sources["a"].quotes[0].asserted_verified
    assert sources["b"].quotes[0].asserted_verified and sources["b"].quotes[0].latest is None


@pytest.mark.parametrize(
    ("field", "value"),
    [("categories", "one"), ("custom", "[a]"), ("original-author", "Doe"), ("type", "novel")],
)
def test_a_value_of_the_wrong_csl_type_is_one_line_naming_the_field(
    tmp_path: Path, field: str, value: str
) -> None:
    path = tmp_path / "citeledger.yaml"
    path.write_text(f"sources:\n  a:\n    doi: 10.1234/x\n    {field}: {value}\n")
    with pytest.raises(LedgerError) as e:
        load_ledger(str(path))
    assert f"'{field}'" in e.value.message and e.value.line == 4
