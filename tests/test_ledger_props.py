"""Properties over generated ledgers: adding a receipt adds exactly that receipt.

Ledgers are generated as data (random keys, identifiers, CSL fields, quotes, earlier receipts),
written in several YAML styles a writer or another tool might use (indentation, sequence
offsets, flow collections, long values folded over lines, comments), then loaded, extended by
``append_receipt`` and loaded again.
"""

from __future__ import annotations

import dataclasses
import datetime
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeledger.ledger import (
    CSL_VARIABLES,
    append_receipt,
    load_ledger,
    receipt_from_mapping,
    receipt_to_dict,
)
from test_ledger_write import common_ends

# --- generated data --------------------------------------------------------------------------

LINE = st.characters(categories=("L", "N", "P", "S", "Zs"))
text = st.text(LINE, min_size=1, max_size=30).filter(lambda s: s.strip())
long_text = st.text(st.one_of(LINE, st.just("\n")), min_size=1, max_size=120).filter(
    lambda s: s.strip()
)
word = st.from_regex(r"[a-z][a-z0-9_-]{0,7}", fullmatch=True)
keys = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}(?:[:.+-][A-Za-z0-9]{1,4}){0,2}", fullmatch=True)


def isbn13(body: str) -> str:
    first12 = "978" + body
    total = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(first12))
    return first12 + str((10 - total % 10) % 10)


identifiers = st.one_of(
    st.builds(
        lambda reg, suffix: {"doi": f"10.{reg}/{suffix}"},
        st.integers(1000, 99_999_999),
        st.from_regex(r"[A-Za-z0-9._;()/:-]{1,20}", fullmatch=True),
    ),
    st.builds(
        lambda host, path: {"url": f"https://{host}.org/{path}"},
        st.from_regex(r"[a-z]{1,10}(?:\.[a-z]{1,5})?", fullmatch=True),
        st.from_regex(r"[A-Za-z0-9._~/-]{0,20}", fullmatch=True),
    ),
    st.builds(
        lambda yy, mm, n, v: {"arxiv": f"{yy:02d}{mm:02d}.{n:05d}" + (f"v{v}" if v else "")},
        st.integers(15, 25),
        st.integers(1, 12),
        st.integers(0, 99_999),
        st.integers(0, 9),
    ),
    st.builds(lambda body: {"isbn": isbn13(body)}, st.from_regex(r"[0-9]{9}", fullmatch=True)),
    st.builds(
        lambda parts: {"file": "/".join(parts) + ".pdf"}, st.lists(word, min_size=1, max_size=3)
    ),
)

names = st.lists(
    st.one_of(
        st.fixed_dictionaries({"family": text}, optional={"given": text}),
        st.fixed_dictionaries({"literal": text}),
    ),
    min_size=1,
    max_size=3,
)
dates = st.one_of(
    st.integers(1500, 2100),
    st.dates().map(datetime.date.isoformat),
    st.builds(lambda y, m: {"date-parts": [[y, m]]}, st.integers(1500, 2100), st.integers(1, 12)),
)
csl = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["article-journal", "book", "chapter", "webpage", "report"]),
        "title": text,
        "author": names,
        "editor": names,
        "issued": dates,
        "container-title": text,
        "page": st.one_of(text, st.integers(1, 9999)),
        "volume": st.integers(1, 300),
        "publisher": text,
        "note": long_text,
        "URL": st.just("https://example.org/elsewhere"),
    },
)

hexes = st.from_regex(r"[0-9a-f]{64}", fullmatch=True)
receipts = st.fixed_dictionaries(
    {
        "outcome": st.sampled_from(["found", "not-found", "unretrievable", "changed", "gone"]),
        "identifier": text,
        "retrieved_at": st.datetimes().map(lambda d: d.isoformat() + "Z"),
        "tool": st.just("citeledger 0.1.0"),
        "writer_quote_sha256": hexes,
    },
    optional={
        "reason": long_text,
        "url": st.just("https://example.org/x"),
        "redirects": st.lists(text, max_size=3),
        "status": st.integers(100, 599),
        "body_sha256": hexes,
        "page": st.integers(1, 999),
        "char_start": st.integers(0, 10**7),
        "char_end": st.integers(0, 10**7),
        "quote": long_text,
        "prefix": st.text(LINE, max_size=32),
        "suffix": st.text(LINE, max_size=32),
        "match": st.sampled_from(["exact", "normalized", "fuzzy"]),
        "score": st.floats(0, 1, allow_nan=False),
        "differences": st.lists(text, max_size=3),
        "metadata": st.dictionaries(
            word, st.one_of(text, st.integers(), st.booleans(), st.lists(text, max_size=2))
        ),
    },
)


@st.composite
def quotes(draw: st.DrawFn) -> list[dict[str, Any]]:
    out = []
    for i in range(draw(st.integers(1, 3))):
        quote: dict[str, Any] = {"text": draw(long_text)}
        if draw(st.booleans()):
            quote["id"] = f"q{i}-{draw(word)}"
        if draw(st.booleans()):
            quote["locator"] = f"p. {draw(st.integers(1, 500))}"
        if draw(st.integers(0, 3)) == 0:
            quote["receipts"] = draw(st.lists(receipts, min_size=1, max_size=2))
        out.append(quote)
    return out


@st.composite
def ledgers(draw: st.DrawFn) -> dict[str, Any]:
    sources = {}
    for key in draw(st.lists(keys, min_size=1, max_size=5, unique=True)):
        source: dict[str, Any] = dict(draw(identifiers))
        source.update(draw(csl))
        if draw(st.booleans()):
            source["quotes"] = draw(quotes())
        if draw(st.integers(0, 4)) == 0:
            source["withdrawn"] = {"date": draw(st.dates()), "reason": draw(text)}
        if draw(st.integers(0, 4)) == 0:
            source["audience"] = draw(st.one_of(word, st.lists(word, min_size=1, max_size=2)))
        sources[key] = source
    if not any("quotes" in s for s in sources.values()):
        next(iter(sources.values()))["quotes"] = draw(quotes())
    return {"sources": sources}


class IndentedSequences(yaml.SafeDumper):
    """``key:\\n  - item``, the style of the format's own examples."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


STYLES: dict[str, dict[str, Any]] = {
    "indentless": {},
    "indented": {"Dumper": IndentedSequences},
    "indent4": {"Dumper": IndentedSequences, "indent": 4},
    "folded": {"width": 24},  # long values continue over several lines
    "flow": {"default_flow_style": None},  # innermost collections in flow style
}


def dump(data: dict[str, Any], style: str) -> str:
    options: dict[str, Any] = {
        "Dumper": yaml.SafeDumper,
        "sort_keys": False,
        "allow_unicode": True,
        "default_flow_style": False,
    }
    options.update(STYLES[style])
    body = yaml.dump(data, **options)
    return f"# generated ledger ({style})\n\n{body}\n# the end\n"


def inserted_only(before: str, after: str) -> bool:
    p, s = common_ends(before, after)
    return p + s == len(before)


# --- properties --------------------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ledgers(), st.sampled_from(sorted(STYLES)), receipts, st.data())
def test_append_receipt_adds_exactly_that_receipt(
    data: dict[str, Any], style: str, new: dict[str, Any], choice: st.DataObject
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "citeledger.yaml"
        path.write_text(dump(data, style), "utf-8")
        before_text = path.read_text("utf-8")
        before = load_ledger(path)
        assert list(before.sources) == list(data["sources"])
        key = choice.draw(st.sampled_from([k for k, s in before.sources.items() if s.quotes]))
        index = choice.draw(st.integers(0, len(before.sources[key].quotes) - 1))

        written = append_receipt(path, key, index, new)

        after = load_ledger(path)
        assert dataclasses.replace(written, line=None) == receipt_from_mapping(new)
        old_source = before.sources[key]
        quotes = list(old_source.quotes)
        quotes[index] = dataclasses.replace(
            quotes[index], receipts=(*quotes[index].receipts, written)
        )
        assert after.sources[key] == dataclasses.replace(old_source, quotes=tuple(quotes))
        assert {k: s for k, s in after.sources.items() if k != key} == {
            k: s for k, s in before.sources.items() if k != key
        }
        assert after.sources[key].quotes[index].receipts[-1].line == written.line
        # block and flow style are both spliced: not a byte elsewhere changes
        assert inserted_only(before_text, path.read_text("utf-8"))


@settings(max_examples=200, deadline=None)
@given(receipts)
def test_receipt_dict_round_trip(new: dict[str, Any]) -> None:
    value = receipt_from_mapping(new)
    assert receipt_from_mapping(receipt_to_dict(value)) == value
    assert set(receipt_to_dict(value)) <= set(new)


def test_generated_csl_fields_are_all_csl_variables() -> None:
    """The generator above must only produce what the format allows."""
    assert set(csl.wrapped_strategy.optional) <= CSL_VARIABLES  # type: ignore[attr-defined]
