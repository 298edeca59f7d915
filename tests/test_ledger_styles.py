"""Nothing the writer typed is lost: every tool write keeps every byte of a ledger in any style.

Ledgers are generated as data and written by a small emitter that chooses, node by node, block
or flow style (one-line or spread over lines with comments inside), unused ``&anchors``, aliases
of scalars and name lists, comments after values, blank lines, a ``%YAML`` directive, ``---``
with a comment after it and a ``...`` end marker. Each tool write (a receipt, a withdrawal, a
dispute, a new source, a batch of receipts) must then leave the original text as a subsequence
of the new one — every original byte kept, in order — and load back as the old data plus exactly
the addition.
"""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from citeledger.errors import LedgerError
from citeledger.ledger import (
    add_source,
    append_receipts,
    load_ledger,
    receipt_from_mapping,
    set_disputed,
    set_withdrawn,
)
from citeledger.model import Withdrawal
from fuzzing import FUZZ

STYLES = FUZZ  # tests/fuzzing.py: the one setting of every fuzzer

CHARS = st.characters(categories=("L", "N", "P", "S", "Zs"), exclude_characters="\x85")
text = st.text(CHARS, min_size=1, max_size=24).filter(lambda s: s.strip())
multiline = st.lists(text, min_size=1, max_size=3).map("\n".join)
keys = st.from_regex(r"[a-z][a-z0-9_]{0,6}(?:[:.-][a-z0-9]{1,3})?", fullmatch=True)
hexes = st.from_regex(r"[0-9a-f]{64}", fullmatch=True)

receipt = st.fixed_dictionaries(
    {
        "outcome": st.sampled_from(["found", "not-found", "unretrievable"]),
        "identifier": text,
        "retrieved_at": st.just("2024-05-01T10:00:00Z"),
        "tool": st.just("citeledger 0.1.0"),
        "writer_quote_sha256": hexes,
    },
    optional={"reason": multiline, "status": st.integers(100, 599), "quote": multiline},
)


@st.composite
def ledger_data(draw: st.DrawFn) -> dict[str, Any]:
    sources: dict[str, Any] = {}
    for n, key in enumerate(draw(st.lists(keys, min_size=1, max_size=4, unique=True))):
        source: dict[str, Any] = {"url": f"https://example.org/{n}/{draw(keys)}"}
        if draw(st.booleans()):
            source["title"] = draw(text)
        if draw(st.booleans()):
            source["author"] = [{"family": draw(text)} for _ in range(draw(st.integers(1, 2)))]
        quotes = []
        for _ in range(draw(st.integers(0, 3))):
            quote: dict[str, Any] = {"text": draw(st.one_of(text, multiline))}
            if draw(st.booleans()):
                quote["locator"] = f"p. {draw(st.integers(1, 99))}"
            if draw(st.integers(0, 2)) == 0:
                quote["receipts"] = draw(st.lists(receipt, min_size=1, max_size=2))
            quotes.append(quote)
        if quotes:
            source["quotes"] = quotes
        sources[key] = source
    first = next(iter(sources.values()))
    first.setdefault("quotes", [{"text": draw(text)}])
    return {"citeledger": 1, "sources": sources}


# --- the emitter: one YAML text per (data, choices) -------------------------------------------


def scalar(value: Any) -> str:
    """A scalar as PyYAML writes it in a flow list: valid in block and in flow context."""
    out = yaml.safe_dump([value], default_flow_style=True, allow_unicode=True, width=1 << 30)
    return out.strip()[1:-1]


class Emitter:
    """Writes data as YAML, drawing every style decision from hypothesis."""

    def __init__(self, draw: st.DrawFn, indent: int) -> None:
        self.draw = draw
        self.indent = indent
        self.anchors = 0
        self.shared: dict[str, str] = {}  # a scalar's text → the anchor it was first given

    def comment(self) -> str:
        return f"  # {self.draw(st.sampled_from(['note', 'à vérifier', 'x: y, [z]', '']))}"

    def anchor(self) -> str:
        if self.draw(st.integers(0, 5)) != 0:
            return ""
        self.anchors += 1
        return f"&a{self.anchors} "

    def value_scalar(self, value: Any) -> str:
        text = scalar(value)
        if isinstance(value, str) and len(value) > 3 and self.draw(st.integers(0, 3)) == 0:
            if value in self.shared:
                return f"*{self.shared[value]}"
            self.anchors += 1
            self.shared[value] = f"s{self.anchors}"
            return f"&s{self.anchors} {text}"
        return self.anchor() + text

    def flow(self, value: Any, column: int) -> str:
        """A flow collection; sometimes over several lines with a comment after a comma."""
        if not isinstance(value, (dict, list)):
            return self.value_scalar(value)
        entries = (
            [f"{scalar(k)}: {self.flow(v, column + 2)}" for k, v in value.items()]
            if isinstance(value, dict)
            else [self.flow(v, column + 2) for v in value]
        )
        open_, close = ("{", "}") if isinstance(value, dict) else ("[", "]")
        out = self.anchor() + open_
        for i, entry in enumerate(entries):
            last = i == len(entries) - 1
            out += entry + ("" if last else ",")
            if not last and self.draw(st.integers(0, 3)) == 0:
                out += self.comment() + "\n" + " " * (column + 2)
            elif not last:
                out += " "
        return out + close

    def block(self, value: Any, column: int) -> list[str]:
        """Lines of a block mapping or sequence at ``column`` (children may be flow)."""
        pad = " " * column
        lines: list[str] = []
        items = value.items() if isinstance(value, dict) else ((None, v) for v in value)
        for key, child in items:
            if self.draw(st.integers(0, 6)) == 0:
                lines.append("")
            if self.draw(st.integers(0, 6)) == 0:
                lines.append(pad + self.comment().strip())
            head = pad + (f"{scalar(key)}:" if key is not None else "-")
            if isinstance(child, (dict, list)) and child and self.draw(st.integers(0, 2)):
                anchor = self.anchor().strip()
                tail = (" " + anchor if anchor else "") + (
                    self.comment() if self.draw(st.integers(0, 3)) == 0 else ""
                )
                if key is None and isinstance(child, dict) and not anchor and not tail:
                    inner = self.block(child, column + 2)  # `- key: value` on the dash's line
                    lines.append(pad + "- " + inner[0].lstrip())
                    lines.extend(inner[1:])
                    continue
                lines.append(head + tail)
                nested = column + (self.indent if key is not None else 2)
                if isinstance(child, list) and key is not None and self.draw(st.booleans()):
                    nested = column  # indentless sequence under its key
                lines.extend(self.block(child, nested))
            else:
                tail = self.comment() if self.draw(st.integers(0, 3)) == 0 else ""
                lines.append(f"{head} {self.flow(child, column + 2)}{tail}")
        return lines


@st.composite
def styled(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    data = draw(ledger_data())
    emitter = Emitter(draw, draw(st.sampled_from([2, 3, 4])))
    head = ""
    if draw(st.booleans()):
        head += "%YAML 1.1\n" if draw(st.booleans()) else ""
        head += "---" + (" # the writer's ledger" if draw(st.booleans()) else "") + "\n"
    if draw(st.booleans()):
        head = "# sources for chapter 3\n\n" + head
    if draw(st.integers(0, 4)) == 0:
        body = emitter.flow(data, 0) + "\n"  # the whole ledger as one flow mapping
    else:
        body = "\n".join(emitter.block(data, 0)) + "\n"
    tail = ""
    if draw(st.booleans()):
        tail = "...\n" + ("# after the end marker\n" if draw(st.booleans()) else "")
    elif draw(st.booleans()):
        tail = "\n# the end\n"
    return data, head + body + tail


def is_subsequence(before: str, after: str) -> bool:
    """Every character of ``before`` appears in ``after``, in order."""
    it = iter(after)
    return all(ch in it for ch in before)


# --- properties ----------------------------------------------------------------------------


def test_the_emitter_writes_what_it_was_given() -> None:
    """The generator itself: every style it draws reads back as its data."""

    @STYLES
    @given(styled())
    def check(case: tuple[dict[str, Any], str]) -> None:
        data, text = case
        assert yaml.safe_load(text) == data, text

    check()


OPERATIONS = ["receipt", "receipts", "withdraw", "dispute", "add"]


@STYLES
@given(styled(), st.sampled_from(OPERATIONS), receipt, st.data())
def test_every_write_keeps_every_byte_and_adds_exactly_its_entry(
    case: tuple[dict[str, Any], str], operation: str, new: dict[str, Any], choice: st.DataObject
) -> None:
    _, original = case
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "citeledger.yaml"
        path.write_text(original, "utf-8")
        before = load_ledger(path)
        expected = dict(before.sources)
        with_quotes = [k for k, s in before.sources.items() if s.quotes]
        key = choice.draw(st.sampled_from(with_quotes))
        source = before.sources[key]
        if operation in ("receipt", "receipts"):
            count = 1 if operation == "receipt" else len(source.quotes)
            entries = [(key, i, new) for i in range(count)]
            append_receipts(path, entries)
            quotes = [
                dataclasses.replace(q, receipts=(*q.receipts, receipt_from_mapping(new)))
                if i < count
                else q
                for i, q in enumerate(source.quotes)
            ]
            expected[key] = dataclasses.replace(source, quotes=tuple(quotes))
        elif operation in ("withdraw", "dispute"):
            setter = set_withdrawn if operation == "withdraw" else set_disputed
            setter(path, key, "2024-06-01", "the page was rewritten", "it says 90 days")
            record = Withdrawal("2024-06-01", "the page was rewritten", "it says 90 days")
            field = "withdrawn" if operation == "withdraw" else "disputed"
            expected[key] = dataclasses.replace(source, **{field: record})
        else:
            fields = {"doi": "10.1234/new", "title": "A new, source: [x]", "quotes": [new_quote]}
            added = add_source(path, "zz-new", fields)
            expected["zz-new"] = added
        after_text = path.read_text("utf-8")
        assert is_subsequence(original, after_text), after_text
        after = load_ledger(path)
        assert list(after.sources) == list(expected)
        for k, value in expected.items():
            assert strip_lines(after.sources[k]) == strip_lines(value), k


new_quote = {"text": "An appeal must be received within 60 days."}


def strip_lines(value: Any) -> Any:
    """A model value without the line numbers (an insertion above moves them)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: strip_lines(getattr(value, f.name)) for f in dataclasses.fields(value)}
        if "line" in changes:
            changes["line"] = None
        return dataclasses.replace(value, **changes)
    if isinstance(value, tuple):
        return tuple(strip_lines(v) for v in value)
    return value


@pytest.mark.parametrize(
    "ledger",
    [
        # finding 15: a comment inside a flow source, an unused anchor, `--- # …`, `...`
        '--- # the writer\'s ledger\nsources:\n  a: {url: "https://example.org/a", # why\n'
        '      quotes: [{text: "hello world"}]}\n  b:\n    url: https://example.org/b\n'
        "    author: &me [{family: Doe}]\n    quotes:\n      - text: words\n...\n",
        "sources: {a: {url: 'https://example.org/a', quotes: [{text: hi, receipts: []}]}}\n",
        "sources:\n  a:\n    url: https://example.org/a\n    quotes:\n"
        "      - text: |+\n          kept\n\n\n      - text: two\n",
        # an anchored, indentless receipts list: its mark is the anchor's, not the dash's
        "sources:\n  a:\n    url: https://example.org/a\n    quotes:\n      - text: one\n"
        "        receipts: &r\n        - {outcome: found, identifier: x, tool: t,\n"
        "           retrieved_at: '2024-05-01T10:00:00Z', writer_quote_sha256: '"
        + "0" * 64
        + "'}\n",
    ],
)
def test_the_styles_of_finding_15_survive_a_receipt(tmp_path: Path, ledger: str) -> None:
    path = tmp_path / "citeledger.yaml"
    path.write_text(ledger, "utf-8")
    before = load_ledger(path)
    key = next(iter(before.sources))
    r = {
        "outcome": "unretrievable",
        "identifier": "https://example.org/a",
        "retrieved_at": "2024-05-01T10:00:00Z",
        "tool": "citeledger 0.1.0",
        "writer_quote_sha256": "0" * 64,
        "reason": "HTTP 404",
    }
    append_receipts(path, [(key, 0, r)])
    after = path.read_text("utf-8")
    assert is_subsequence(ledger, after)
    assert load_ledger(path).sources[key].quotes[0].receipts[-1].reason == "HTTP 404"
    assert strip_lines(load_ledger(path).sources[key].quotes[0].text) == strip_lines(
        before.sources[key].quotes[0].text
    )


def test_a_quote_shared_through_an_alias_is_refused_with_its_line(tmp_path: Path) -> None:
    """Finding 16: one receipt list cannot belong to two sources; say so, where, and how."""
    path = tmp_path / "citeledger.yaml"
    ledger = (
        "sources:\n  b:\n    url: https://example.org/b\n    quotes:\n      - &qa\n"
        "        text: shared words\n  c:\n    url: https://example.org/c\n    quotes: [*qa]\n"
    )
    path.write_text(ledger, "utf-8")
    r = {
        "outcome": "unretrievable",
        "identifier": "https://example.org/c",
        "retrieved_at": "2024-05-01T10:00:00Z",
        "tool": "citeledger 0.1.0",
        "writer_quote_sha256": "0" * 64,
        "reason": "HTTP 404",
    }
    with pytest.raises(LedgerError) as err:
        append_receipts(path, [("c", 0, r)])
    assert err.value.line == 9
    assert "*qa" in err.value.message and "line 5 (&qa)" in err.value.message
    assert "write the quote out" in (err.value.fix or "")
    assert path.read_text("utf-8") == ledger
