"""The filter's JSON codec (``build.deep.loads``/``dumps``): orjson where it can, the standard
library where orjson refuses, and the same document either way.

Pandoc reads back what the filter writes, so the bytes are the contract: for every document
without floats they are the standard encoder's compact UTF-8 (non-ASCII as itself, control
characters escaped), and every value reads back as what was written. What orjson refuses — a
document deeper than it reads (1,024 levels) or writes (254), a lone surrogate, an integer
beyond 64 bits — goes through the standard library instead, deep documents inside the filter's
deep-stack thread, and is the same document afterwards.
"""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeledger.build import filter as filter_mod
from citeledger.build.deep import MAX_DEPTH, dumps, loads, run_deep
from citeledger.errors import CiteledgerError


def stdlib(value: Any) -> bytes:
    """What the filter wrote before orjson: the reference bytes."""
    text = json.dumps(value, ensure_ascii=False, check_circular=False, separators=(",", ":"))
    return text.encode("utf-8")


# JSON values as pandoc's AST holds them: text (any code point but lone surrogates), 64-bit
# integers, booleans, null, lists and string-keyed objects in their order.
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)
SCALARS = st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | TEXT
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(TEXT, inner, max_size=5),
    max_leaves=40,
)


@settings(max_examples=300)
@given(VALUES)
def test_a_document_without_floats_is_written_as_the_standard_encoder_writes_it(
    value: Any,
) -> None:
    assert dumps(value) == stdlib(value)
    assert loads(dumps(value)) == value
    assert loads(stdlib(value).decode("utf-8")) == value  # text or bytes, the same values


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_float_reads_back_as_the_same_number(number: float) -> None:
    assert loads(dumps([number])) == [number]
    assert json.loads(dumps([number])) == [number]  # any JSON reader, not only orjson


def _nested(depth: int) -> Any:
    value: Any = ["Str", "déjà vu"]
    for _ in range(depth):
        value = {"t": "BlockQuote", "c": [value]}
    return value


@pytest.mark.parametrize("depth", [300, 1_500, MAX_DEPTH // 2 - 10])
def test_documents_deeper_than_orjson_goes_are_read_and_written_by_the_standard_library(
    depth: int,
) -> None:
    value = run_deep(lambda: _nested(depth))  # building it is a walk of its own
    raw = run_deep(lambda: stdlib(value))
    # an object and its list are two levels of JSON: 600 to ~5,000, past both orjson limits
    assert run_deep(lambda: loads(raw) == value)
    assert run_deep(lambda: dumps(value)) == raw


def test_a_document_beyond_the_bound_is_refused_in_one_line() -> None:
    raw = b"[" * (2 * MAX_DEPTH) + b"]" * (2 * MAX_DEPTH)
    with pytest.raises(CiteledgerError, match="nests more than"):
        run_deep(lambda: loads(raw))


def test_a_lone_surrogate_survives_as_its_escape() -> None:
    raw = b'["a\\ud800b"]'
    value = loads(raw)
    assert value == ["a\ud800b"]
    assert dumps(value) == raw  # ASCII escapes: the one spelling that loses nothing


def test_integers_beyond_64_bits_are_written_exactly() -> None:
    assert dumps([2**70, -(2**63) - 1]) == b"[1180591620717411303424,-9223372036854775809]"


@pytest.mark.parametrize("raw", [b"[NaN]", b"[Infinity]", b"[-Infinity]", b"[1e400]", b"[1,"])
def test_what_is_not_json_is_a_value_error(raw: bytes) -> None:
    """The standard decoder reads NaN and turns 1e400 into infinity; orjson would then write
    null for them. Neither is JSON, and pandoc never writes them: both decoders refuse."""
    with pytest.raises(ValueError):
        loads(raw)


def test_the_filter_writes_a_deep_non_ascii_document_pandoc_reads(
    tmp_path: Path, pandoc_path: str
) -> None:
    """Through the real pandoc: a 400-deep quote (past orjson's writing limit) holding
    non-ASCII words and a citation, judged and written back by the filter, read by pandoc."""
    (tmp_path / "citeledger.yaml").write_text("sources: {}\n", "utf-8")
    md = "> " * 400 + "Ça dépend — naïve [@clé].\n"
    ast = subprocess.run(
        [pandoc_path, "-f", "markdown", "-t", "json"],
        input=md.encode(),
        capture_output=True,
        check=True,
    ).stdout
    out, err = io.BytesIO(), io.StringIO()
    environ = {"CITELEDGER_LEDGER": str(tmp_path / "citeledger.yaml")}
    code = filter_mod.main(["html"], stdin=io.BytesIO(ast), stdout=out, stderr=err, environ=environ)
    assert code == 0, err.getvalue()
    written = out.getvalue()
    doc = run_deep(lambda: json.loads(written))
    assert written == run_deep(lambda: stdlib(doc))
    html = subprocess.run(
        [pandoc_path, "-f", "json", "-t", "html"], input=written, capture_output=True, check=True
    ).stdout.decode("utf-8")
    assert "Ça dépend — naïve" in html
    assert "citeledger-not-in-ledger" in html
