"""The walk ``render.previous`` used before it was made cheap (issue 8), kept as the reference
its faster walk must match byte for byte (``tests/test_previous_reference.py``). Do not optimise.
"""

from __future__ import annotations

from typing import Any

from citeledger.build.citations import (
    AUDIT_CLASS,
    BREAKDOWN_CLASS,
    CHECKED_CLASS,
    CLAIM_ANCHOR_CLASS,
    CLAIM_ANCHOR_PREFIX,
    CLAIM_CLASS,
    CROSSREF_PREFIXES,
    EVIDENCE_CLASS,
    FLAG_CLASS,
    PROCESSED_CLASS,
    SELECTORS_ATTRIBUTE,
    SOURCE_CLASS,
    STATES_ATTRIBUTE,
    citation_items,
    is_alert,
    plain_text,
    stored_selectors,
)
from citeledger.build.hidden import revealed
from citeledger.build.names import BANNER_CLASS, VERSION_CLASS

Json = Any

_OUR_INLINES = frozenset(
    {FLAG_CLASS, EVIDENCE_CLASS, SOURCE_CLASS, CLAIM_ANCHOR_CLASS, VERSION_CLASS}
)
# the renderer puts a space before these (before the links only in Markdown: render.base)
_SPACED = frozenset({FLAG_CLASS, SOURCE_CLASS, EVIDENCE_CLASS, VERSION_CLASS})
_OUR_BLOCKS = frozenset({BREAKDOWN_CLASS, AUDIT_CLASS, BANNER_CLASS})
_OURS = _OUR_INLINES | _OUR_BLOCKS | {PROCESSED_CLASS, CHECKED_CLASS}
_BLANKS = ("Space", "SoftBreak")
_WRAPPER_KEYS = frozenset({STATES_ATTRIBUTE, SELECTORS_ATTRIBUTE})


def strip_previous(doc: dict[str, Json], prefixes: tuple[str, ...] = CROSSREF_PREFIXES) -> None:
    """Remove the filter's earlier output from ``doc``, in place (see the module docstring)."""
    _Stripper(prefixes).value(doc.get("meta"))
    _Stripper(prefixes).value(doc.get("blocks"))


class _Stripper:
    def __init__(self, prefixes: tuple[str, ...]) -> None:
        self.prefixes = prefixes

    def value(self, node: Json) -> None:
        """Edit every list of elements under ``node``."""
        if isinstance(node, list):
            if any(isinstance(el, dict) and "t" in el for el in node):
                node[:] = self.elements(node)
            for child in node:
                self.value(child)
        elif isinstance(node, dict):
            for child in node.values():
                if isinstance(child, (list, dict)):
                    self.value(child)

    def elements(self, elements: list[Json]) -> list[Json]:
        out: list[Json] = []
        for el in elements:
            if not isinstance(el, dict):
                out.append(el)
                continue
            t = el.get("t")
            if is_alert(el) and not _has_cite(el):
                continue
            if t == "Div" and _OUR_BLOCKS.intersection(el["c"][0][1]):
                if _has_cite(el):  # not ours: the writer's blocks stay, judged like any other
                    out.extend(_without_ours(el))
                continue
            if t == "Span":
                kept = el  # a Span not undone stays as it was, its attributes hidden or not
                el = revealed(el)  # a Markdown build's Span: its attributes where they go
                classes = el["c"][0][1]
                if PROCESSED_CLASS in classes:
                    out.extend(self.unwrap(el))
                    continue
                if _OUR_INLINES.intersection(classes):
                    if _has_cite(el):
                        out.extend(_without_ours(el))
                    elif _SPACED.intersection(classes) and out and out[-1].get("t") in _BLANKS:
                        out.pop()  # a Markdown writer may have wrapped the line there
                    continue
                if CLAIM_CLASS in classes and el["c"][0][0].startswith(CLAIM_ANCHOR_PREFIX):
                    el["c"][0][0] = ""
                el = kept
            out.append(el)
        return out

    def unwrap(self, span: Json) -> list[Json]:
        """A wrapper's content without the filter's inlines, its stored selectors restored."""
        content = span["c"][1]
        selectors = stored_selectors(span)
        cites = [el for el in content if isinstance(el, dict) and el.get("t") == "Cite"]
        if selectors and cites:
            items = citation_items(cites[0], self.prefixes)
            for index, selector in selectors.items():
                if index < len(items):
                    _restore_selector(items[index], selector)
        span["c"][1] = self.elements(content)
        return _without_ours(span)


def _without_ours(node: Json) -> list[Json]:
    """A Span's inlines or a Div's blocks, in a Span or Div of their own only if the writer
    gave it attributes of theirs (a forged wrapper may carry the writer's classes)."""
    (ident, classes, kvs), content = node["c"]
    ident = "" if ident.startswith("citeledger-") else ident
    kept_classes = [c for c in classes if c not in _OURS]
    kept_kvs = [kv for kv in kvs if kv[0] not in _WRAPPER_KEYS]
    if ident or kept_classes or kept_kvs:
        return [{"t": node["t"], "c": [[ident, kept_classes, kept_kvs], content]}]
    return list(content)


def _restore_selector(item: Json, selector: str) -> None:
    """Put ``quote:ID`` back at the end of a citation's suffix, where the writer may have it."""
    suffix = item.get("citationSuffix") or []
    if "quote:" in plain_text(suffix):
        return
    item["citationSuffix"] = [*suffix, {"t": "Space"}, {"t": "Str", "c": f"quote:{selector}"}]


def _has_cite(node: Json) -> bool:
    if isinstance(node, list):
        return any(_has_cite(child) for child in node)
    if isinstance(node, dict):
        if node.get("t") == "Cite":
            return True
        return any(_has_cite(child) for child in node.values() if isinstance(child, (list, dict)))
    return False
