"""Attributes hidden from a writer that would print them as HTML (GitHub Markdown).

The gfm writer turns every Span with an id, a class or an attribute into raw ``<span …>`` HTML,
which is what a reader of the Markdown source sees. So ``render.markdown`` moves a Span's
attributes into a first ``RawInline`` of a format no writer prints (``names.HIDDEN_FORMAT``), and
every reader of the filter's output — a second run (``render.previous``), the one walk
(``citations``), the sentence splitter — sees the Span with its attributes in place. Pure.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from citeledger.build.names import HIDDEN_FORMAT

Node = dict[str, Any]


def hide(span: Node) -> Node:
    """``span`` with its attributes moved into a first RawInline no writer prints."""
    (ident, classes, kvs), content = span["c"]
    if not (ident or classes or kvs):
        return span
    raw = {"t": "RawInline", "c": [HIDDEN_FORMAT, json.dumps(span["c"][0], ensure_ascii=False)]}
    return {"t": "Span", "c": [["", [], []], [raw, *content]]}


def revealed(span: Node) -> Node:
    """``span`` as the filter made it: hidden attributes back in place (else ``span`` itself)."""
    attr = hidden_attributes(span)
    return span if attr is None else {"t": "Span", "c": [attr, span["c"][1][1:]]}


def span_classes(span: Mapping[str, Any]) -> list[str]:
    """A Span's classes, hidden ones included."""
    classes: list[str] = span["c"][0][1]
    if classes:
        return classes
    attr = hidden_attributes(span)
    return classes if attr is None else list(attr[1])


def hidden_attributes(span: Mapping[str, Any]) -> list[Any] | None:
    """The attributes hidden in an attribute-less Span's first inline, or None."""
    (ident, classes, kvs), content = span["c"]
    if ident or classes or kvs or not content or not isinstance(content[0], dict):
        return None
    first = content[0]
    if first.get("t") != "RawInline" or first["c"][0] != HIDDEN_FORMAT:
        return None
    try:
        attr = json.loads(first["c"][1])
    except ValueError:
        return None
    return attr if _is_attr(attr) else None


def _is_attr(value: Any) -> bool:
    def strings(xs: Any) -> bool:
        return isinstance(xs, list) and all(isinstance(x, str) for x in xs)

    return (
        isinstance(value, list)
        and len(value) == 3
        and isinstance(value[0], str)
        and strings(value[1])
        and isinstance(value[2], list)
        and all(strings(kv) and len(kv) == 2 for kv in value[2])
    )
