"""Quarto builds: breakdowns also carry Quarto's callout classes, so Quarto draws its callout.

Quarto runs a JSON filter with its parameters in the environment (``QUARTO_FILTER_PARAMS``,
base64 JSON holding ``quarto-version``); a document may also say ``quarto-version`` in its
metadata. In such a build every callout and the banner keep their citeledger classes, id,
words and links, and gain ``callout-important`` (the source or the evidence contradicts the
claim: quote not found, tampered, source changed, metadata mismatch, disputed, retracted) or
``callout-warning`` (not checked: unchecked, not in the ledger, unretrievable, stale,
withdrawn, restricted); a callout of several is important when one of them is. Quarto's
``ast`` stage turns such a Div into its Callout, which is why the extension runs the filter
``at: pre-ast`` (``_extensions/citeledger/_extension.yml``). Markdown builds keep their GitHub
alerts (block quotes, not Divs) and their banner as it was. Nothing else changes: the writer's
own attributes, Quarto's crossref ids and callouts included, pass through untouched. Never
prints.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable, Mapping
from typing import Any

from citeledger.build.render.ast import Node
from citeledger.build.render.base import Renderer
from citeledger.build.render.words import Item
from citeledger.model import State

PARAMS_VARIABLE = "QUARTO_FILTER_PARAMS"
VERSION_KEY = "quarto-version"
IMPORTANT = frozenset(
    {
        State.QUOTE_NOT_FOUND,
        State.TAMPERED,
        State.SOURCE_CHANGED,
        State.METADATA_MISMATCH,
        State.DISPUTED,
        State.RETRACTED,
    }
)


def is_quarto_build(meta: Mapping[str, Any], environ: Mapping[str, str]) -> bool:
    """Is Quarto running this filter (its parameters in the environment, or its version in the
    document's metadata)?"""
    if VERSION_KEY in meta:
        return True
    raw = environ.get(PARAMS_VARIABLE)
    if not raw:
        return False
    try:
        params = json.loads(base64.b64decode(raw, validate=False))
    except (binascii.Error, ValueError):
        return False
    return isinstance(params, dict) and VERSION_KEY in params


def callout_class(states: Iterable[State]) -> str:
    return "callout-important" if any(s in IMPORTANT for s in states) else "callout-warning"


def for_quarto(renderer: Renderer) -> Renderer:
    """``renderer`` with Quarto's callout class on each callout Div and on the banner (not in
    Markdown builds, whose callouts are GitHub alerts)."""
    base = type(renderer)
    if base.family == "markdown":
        return renderer

    class Quarto(base):  # type: ignore[valid-type,misc]
        def callout(self, items: list[Item]) -> Node:
            return _classed(super().callout(items), (item.state for item in items))

        def banner(self, items: list[Item], *, audit: bool) -> Node | None:
            node = super().banner(items, audit=audit)
            if node is None:
                return None
            return _classed(node, (i.state for i in items if i.state.is_breakdown))

    Quarto.__name__ = Quarto.__qualname__ = f"Quarto{base.__name__}"
    quarto = Quarto(renderer.fmt, audit=renderer.audit_rows)
    return quarto


def _classed(node: Node, states: Iterable[State]) -> Node:
    if node.get("t") == "Div":
        node["c"][0][1].append(callout_class(states))
    return node
