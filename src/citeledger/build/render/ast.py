"""Constructors for pandoc JSON AST nodes (API 1.23), as plain dicts.

The filter edits ``json.load`` dicts in place, so new nodes are dicts too: building panflute
objects only to serialise them again would cost time on every build for nothing. Nothing here
knows about citations or output formats.
"""

from __future__ import annotations

from typing import Any

from citeledger.inert import visible

Node = dict[str, Any]


def inert(nodes: list[Node]) -> list[Node]:
    """``nodes`` with every Str and Code text made ``inert.visible``, in place (and returned).

    What the filter writes from a ledger or a retrieved source (a quote, a nearest passage, a
    title) may hold control characters and bidi overrides; pandoc's writers pass them on (into
    LaTeX, where pdflatex stops), and the callout XML written for DOCX is ours alone.
    """
    stack: list[Any] = [nodes]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            t = node.get("t")
            if t == "Str":
                node["c"] = visible(node["c"])
            elif t == "Code":
                node["c"][1] = visible(node["c"][1])
            elif "c" in node:
                stack.append(node["c"])
    return nodes


def attr(
    ident: str = "", classes: list[str] | None = None, kv: list[tuple[str, str]] | None = None
) -> list[Any]:
    return [ident, list(classes or []), [list(pair) for pair in kv or []]]


def words(text: str) -> list[Node]:
    """Text as Str/Space inlines (what a reader would have produced for plain prose)."""
    out: list[Node] = []
    for word in text.split():
        if out:
            out.append(space())
        out.append(str_(word))
    return out


def str_(text: str) -> Node:
    return {"t": "Str", "c": text}


def space() -> Node:
    return {"t": "Space"}


def strong(inlines: list[Node]) -> Node:
    return {"t": "Strong", "c": inlines}


def superscript(inlines: list[Node]) -> Node:
    return {"t": "Superscript", "c": inlines}


def code(text: str) -> Node:
    return {"t": "Code", "c": [attr(), text]}


def quoted(inlines: list[Node]) -> Node:
    return {"t": "Quoted", "c": [{"t": "DoubleQuote"}, inlines]}


def link(inlines: list[Node], url: str, title: str = "") -> Node:
    return {"t": "Link", "c": [attr(), inlines, [url, title]]}


def span(a: list[Any], inlines: list[Node]) -> Node:
    return {"t": "Span", "c": [a, inlines]}


def raw_inline(fmt: str, text: str) -> Node:
    return {"t": "RawInline", "c": [fmt, text]}


def para(inlines: list[Node]) -> Node:
    return {"t": "Para", "c": inlines}


def plain(inlines: list[Node]) -> Node:
    return {"t": "Plain", "c": inlines}


def div(a: list[Any], blocks: list[Node]) -> Node:
    return {"t": "Div", "c": [a, blocks]}


def block_quote(blocks: list[Node]) -> Node:
    return {"t": "BlockQuote", "c": blocks}


def bullet_list(items: list[list[Node]]) -> Node:
    return {"t": "BulletList", "c": items}


def header(level: int, a: list[Any], inlines: list[Node]) -> Node:
    return {"t": "Header", "c": [level, a, inlines]}


def raw_block(fmt: str, text: str) -> Node:
    return {"t": "RawBlock", "c": [fmt, text]}
