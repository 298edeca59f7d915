"""Fuzzing the two inputs a stranger controls: the ledger's text and the document's AST.

A ledger, however mangled, loads or is refused with one :class:`LedgerError` that names a line
of the file — never another exception. A pandoc AST of generated blocks and inlines (citations
anywhere: in notes, quotes, lists, spans, divs, headers, in each other's prefixes) goes through
the filter's own entry (``filter.main``) and comes out as pandoc JSON with exit 0 or 1, and a
second run over the output gives the same bytes.

``make test`` runs a few dozen examples; ``make fuzz`` runs thousands
(``CITELEDGER_FUZZ_EXAMPLES``).
"""

from __future__ import annotations

import io
import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pypandoc
import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeledger.build.filter import main as filter_main
from citeledger.errors import LedgerError
from citeledger.ledger import load_ledger
from fuzzing import FUZZ

BASE = """\
# the writer's ledger
citeledger: 1
sources:
  hchm:
    url: https://example.org/manual.html
    title: "Appeals: a manual"
    author: [{family: Doe, given: Jane}]
    quotes:
      - text: An appeal must be received within 60 days.
        locator: sec. 14.2
      - {text: "the date of the decision letter", id: date}
  other: {doi: 10.1234/abc, quotes: [{text: words}]}
"""

#: What a mangled ledger is made of: YAML's indicators, and what its readers trip over.
PIECES = st.sampled_from(
    [
        *":-?,[]{}#&*!|>'\"%@`\t\n \\",
        *("---", "...", "<<: *a", "&a ", "!!binary ", "\x00", "\ufeff", "\x85", "\u2028"),
        *("\ud7ff", "é", "0x1F", "~", "null", "yes", "1e3", "receipts:"),
    ]
)


@st.composite
def mangled(draw: st.DrawFn) -> str:
    text = BASE
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["insert", "delete", "duplicate-line", "swap-lines"]))
        if action == "insert":
            piece = draw(st.lists(PIECES, min_size=1, max_size=3).map("".join))
            text = text[:at] + piece + text[at:]
        elif action == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 12)) :]
        else:
            lines = text.splitlines(keepends=True)
            i = draw(st.integers(0, len(lines) - 1))
            j = draw(st.integers(0, len(lines) - 1))
            if action == "duplicate-line":
                lines.insert(j, lines[i])
            else:
                lines[i], lines[j] = lines[j], lines[i]
            text = "".join(lines)
    return text


@FUZZ
@given(mangled())
def test_a_mangled_ledger_loads_or_is_refused_in_one_line(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "citeledger.yaml"
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        try:
            load_ledger(path)
        except LedgerError as e:
            message = e.one_line()
            assert "\n" not in message
            assert message.startswith(str(path))
            if e.line is not None:
                assert 1 <= e.line <= text.count("\n") + 2, (e.line, message)


# --- ASTs through the filter -----------------------------------------------------------------

KEYS = st.sampled_from(["hchm", "other", "missing", "fig-1", "sec:intro"])


def cite(key: str, prefix: list[Any], mode: str) -> dict[str, Any]:
    citation = {
        "citationId": key,
        "citationPrefix": prefix,
        "citationSuffix": [{"t": "Str", "c": ", sec. 14.2"}] if key == "hchm" else [],
        "citationMode": {"t": mode},
        "citationNoteNum": 1,
        "citationHash": 0,
    }
    return {"t": "Cite", "c": [[citation], [{"t": "Str", "c": f"[@{key}]"}]]}


def inlines(depth: int) -> st.SearchStrategy[list[Any]]:
    leaf = st.one_of(
        st.text(st.characters(categories=("L", "N", "P")), min_size=1, max_size=8).map(
            lambda s: {"t": "Str", "c": s}
        ),
        st.just({"t": "Space"}),
        st.builds(
            lambda k, m: cite(k, [], m),
            KEYS,
            st.sampled_from(["NormalCitation", "AuthorInText", "SuppressAuthor"]),
        ),
    )
    if depth <= 0:
        return st.lists(leaf, min_size=1, max_size=5)
    inner = st.deferred(lambda: inlines(depth - 1))
    nested = st.one_of(
        leaf,
        inner.map(lambda c: {"t": "Emph", "c": c}),
        st.builds(
            lambda cls, c: {"t": "Span", "c": [["", [cls], []], c]},
            st.sampled_from(["claim", "unverified", "other"]),
            inner,
        ),
        st.builds(lambda k, p: cite(k, p, "NormalCitation"), KEYS, inner),  # cites in prefixes
        st.deferred(lambda: blocks(depth - 1)).map(lambda b: {"t": "Note", "c": b}),
    )
    return st.lists(nested, min_size=1, max_size=5)


def blocks(depth: int) -> st.SearchStrategy[list[Any]]:
    para = inlines(depth).map(lambda c: {"t": "Para", "c": c})
    if depth <= 0:
        return st.lists(para, min_size=1, max_size=3)
    inner = st.deferred(lambda: blocks(depth - 1))
    block = st.one_of(
        para,
        inlines(depth - 1).map(lambda c: {"t": "Header", "c": [2, ["", [], []], c]}),
        inner.map(lambda b: {"t": "BlockQuote", "c": b}),
        st.lists(inner, min_size=1, max_size=3).map(lambda items: {"t": "BulletList", "c": items}),
        inner.map(lambda b: {"t": "Div", "c": [["", ["note"], []], b]}),
    )
    return st.lists(block, min_size=1, max_size=4)


@pytest.fixture(scope="module")
def api_version() -> list[int]:
    out = subprocess.run(
        [pypandoc.get_pandoc_path(), "-f", "markdown", "-t", "json"],
        input=b"x",
        capture_output=True,
        check=True,
    ).stdout
    version: list[int] = json.loads(out)["pandoc-api-version"]
    return version


def run_filter(doc: bytes, ledger: Path, fmt: str) -> tuple[int, bytes, str]:
    out, err = io.BytesIO(), io.StringIO()
    code = filter_main(
        [fmt],
        stdin=io.BytesIO(doc),
        stdout=out,
        stderr=err,
        environ={"CITELEDGER_LEDGER": str(ledger)},
    )
    return code, out.getvalue(), err.getvalue()


@FUZZ
@given(blocks(3), st.sampled_from(["html", "latex", "docx", "gfm", "markdown", "typst", "plain"]))
def test_any_ast_goes_through_the_filter_and_a_rerun_changes_nothing(
    api_version: list[int], body: list[Any], fmt: str
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        ledger = Path(folder) / "citeledger.yaml"
        ledger.write_text(BASE, "utf-8")
        doc = {"pandoc-api-version": api_version, "meta": {}, "blocks": body}
        code, out, err = run_filter(json.dumps(doc).encode(), ledger, fmt)
        assert code in (0, 1), err
        assert "Traceback" not in err
        result = json.loads(out)
        assert result["pandoc-api-version"] == api_version
        again, out2, _ = run_filter(out, ledger, fmt)
        assert again == code
        assert json.loads(out2) == result
