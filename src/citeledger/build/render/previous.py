"""Undo what an earlier run of the filter added, so that every citation is judged afresh.

Pandoc documents get filtered twice: a Quarto project runs filters again on its own output, a
writer keeps ``-t json`` output and builds from it, a Markdown build is fed back in. Skipping
what looks processed would let a stale or hand-written ``[[@key]]{.citeledger-cite}`` bypass
the judge (no flag, no callout, ``strict`` passes). So the filter never skips: it removes its
own earlier output here, then judges and renders the document as if it were new. A run whose
judgements have not changed therefore writes back exactly what it read (idempotence by
comparison, not by trust), and one whose judgements changed replaces the old flags and callouts.

What is removed, wherever it stands (body, notes, tables, metadata):

- ``Span.citeledger-cite`` wrappers (and the claim id they carry): replaced by their content,
  minus the filter's inlines (flags, evidence and source links, claim anchors, and the space
  before a flag or link); the quote selectors the wrapper stored go back into each citation's
  suffix. A wrapper's other attributes (a forged one may carry the writer's classes) stay on a
  plain Span;
- empty ``#citeledger-claim-N`` anchors, and such an id on the writer's ``.claim`` Span;
- callouts (``Div.citeledger-breakdown``, and the GitHub-alert block quotes of Markdown builds,
  the banner's too) and the audit section (``Div.citeledger-audit``).

A Markdown build's Spans carry their attributes hidden (``build.hidden``): they are read as if
the attributes stood in place, and a Span that stays keeps them hidden.

Nothing that holds a ``Cite`` is ever dropped: a flag, callout or audit that contains one was not
made by the filter, and its content stays (the Cite is judged like any other). Unverified
markers are not undone (a marked marker is skipped by the walk), header-includes and
``references`` are not duplicated (their writers check). Never judges, reads files or prints.

The filter undoes within its one scan of the document (``Undo``, handed to ``scan_document``):
each element list is undone, from its first such element on, before the walk reads it, and what
the walk does not read is undone whole; ``strip_previous`` undoes a whole document at once.
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
from citeledger.build.raw import raw_element_citations

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


# Elements whose content holds no element a run edits (text, code, maths, raw output): the walk
# does not enter them. Only a list holding one of _EDITED can change; any other is kept as is.
_LEAVES = frozenset(
    {"Str", "Space", "SoftBreak", "LineBreak", "Code", "Math", "RawInline", "RawBlock"}
    | {"CodeBlock", "HorizontalRule"}
)
_EDITED = frozenset({"Span", "Div", "BlockQuote"})


class _Stripper:
    def __init__(self, prefixes: tuple[str, ...]) -> None:
        self.prefixes = prefixes

    def value(self, node: Json) -> None:
        """Edit every list of elements under ``node``.

        Cheap on a large document: one pass over each list finds the Spans, Divs and block
        quotes (the only elements ``_edit`` may change) and the elements to enter; text, code
        and raw elements are not entered (nothing in them is an element list), and the runs of
        elements between the edited ones are copied as they are."""
        if isinstance(node, list):
            if not node:
                return
            at = _entered(node)
            if at is None:  # not a list of elements: looked at one by one
                edited, inner = self._look(node)
            else:  # a list of elements: only the positions of its non-leaves are looked at
                if not at:
                    return
                edited = [i for i in at if node[i]["t"] in _EDITED]
                inner = [node[i] for i in at if node[i]["t"] not in _EDITED]
            if len(edited) == 1 and (cite := _lone_cite(node[edited[0]])) is not None:
                node[edited[0]] = cite  # a paragraph's usual wrapper: nothing moves
                inner.append(cite)
            elif edited:
                node[:], made, _ = self._edit(node, edited)
                inner += made
            for child in inner:
                if isinstance(child, dict) and len(child) == 2 and "t" in child:
                    if child["t"] == "Cite":
                        self.cite(child["c"])
                        continue
                    child = child.get("c")  # an element: only its content can hold lists
                    if type(child) is list and len(child) == 1 and _is_str(child[0]):
                        continue  # *a word*: one Str, nothing to edit
                self.value(child)
        elif isinstance(node, dict):
            for child in node.values():
                if isinstance(child, (list, dict)):
                    self.value(child)

    def cite(self, c: Json) -> None:
        """A Cite's content: only its items' prefixes and suffixes and its inlines hold
        elements (its ids, modes and numbers do not), and most of those lists are empty."""
        if not (isinstance(c, list) and len(c) == 2 and isinstance(c[0], list)):
            self.value(c)  # not the Cite pandoc writes: looked at whole
            return
        for item in c[0]:
            if not isinstance(item, dict):
                self.value(item)
                continue
            prefix, suffix = item.get("citationPrefix"), item.get("citationSuffix")
            if prefix:
                self.value(prefix)
            if suffix:
                self.value(suffix)
        inlines = c[1]
        if isinstance(inlines, list) and len(inlines) == 1 and _is_str(inlines[0]):
            return  # pandoc's usual content, "[@key]": one Str, nothing to edit
        self.value(inlines)

    @staticmethod
    def _look(node: list[Json]) -> tuple[list[int], list[Json]]:
        """The positions of the elements to edit in ``node``, and the children to enter."""
        edited: list[int] = []
        inner: list[Json] = []
        for i, el in enumerate(node):
            if isinstance(el, dict):
                t = el.get("t")
                if t in _LEAVES:
                    continue
                if t in _EDITED:
                    edited.append(i)
                    continue
                inner.append(el)
            elif isinstance(el, list):
                inner.append(el)
        return edited, inner

    def elements(self, elements: list[Json]) -> list[Json]:
        """``elements`` without the filter's earlier output (this level only)."""
        edited = [
            i for i, el in enumerate(elements) if isinstance(el, dict) and el.get("t") in _EDITED
        ]
        return self._edit(elements, edited)[0] if edited else list(elements)

    def _edit(self, elements: list[Json], edited: list[int]) -> tuple[list[Json], list[Json], int]:
        """``elements`` with the Spans, Divs and block quotes at ``edited`` undone, what was
        put in their place (to be walked into), and how many leading elements are kept as they
        were (a blank before the first edited one may go); every other element is kept."""
        out: list[Json] = []
        made: list[Json] = []
        kept_before = edited[0] if edited else len(elements)
        prev = 0
        for i in edited:
            out += elements[prev:i]
            prev = i + 1
            el = elements[i]
            t = el["t"]
            if t == "BlockQuote":
                if is_alert(el) and not _has_cite(el, self.prefixes):
                    continue
            elif t == "Div":
                if not _OUR_BLOCKS.isdisjoint(el["c"][0][1]):
                    # not ours: the writer's blocks stay, judged
                    if _has_cite(el["c"][1], self.prefixes):
                        kept_blocks = _without_ours(el)
                        out += kept_blocks
                        made += kept_blocks
                    continue
            else:  # a Span
                kept = el  # a Span not undone stays as it was, its attributes hidden or not
                attr = el["c"][0]
                if not (attr[0] or attr[1] or attr[2]):  # only such a Span hides attributes
                    el = revealed(el)  # a Markdown build's Span: its attributes where they go
                classes = el["c"][0][1]
                if PROCESSED_CLASS in classes:
                    unwrapped = self.unwrap(el)
                    out += unwrapped
                    made += unwrapped
                    continue
                if not _OUR_INLINES.isdisjoint(classes):
                    # attributes hold no element
                    if el["c"][1] and _has_cite(el["c"][1], self.prefixes):
                        kept_inlines = _without_ours(el)
                        out += kept_inlines
                        made += kept_inlines
                    elif not _SPACED.isdisjoint(classes) and out and out[-1].get("t") in _BLANKS:
                        out.pop()  # a Markdown writer may have wrapped the line there
                        kept_before = min(kept_before, len(out))
                    continue
                if CLAIM_CLASS in classes and el["c"][0][0].startswith(CLAIM_ANCHOR_PREFIX):
                    el["c"][0][0] = ""
                el = kept
            out.append(el)
            made.append(el)
        out += elements[prev:]
        return out, made, kept_before

    def unwrap(self, span: Json) -> list[Json]:
        """A wrapper's content without the filter's inlines, its stored selectors restored."""
        content = span["c"][1]
        selectors = stored_selectors(span)
        cites = [el for el in content if _is_cite(el)] if selectors else []
        if cites:
            items = citation_items(cites[0], self.prefixes)
            every = citation_items(cites[0], ())
            if len(items) != len(every) == _judged_count(span):
                items = every  # prefixed keys the run judged: ledger sources (``crossref``)
            for index, selector in selectors.items():
                if index < len(items):
                    _restore_selector(items[index], selector)
        if len(content) == 1 and _is_cite(content[0]):
            pass  # the usual wrapper (its claim anchor is its id): nothing in it is ours
        elif len(content) == 2 and _is_anchor(content[0]) and _is_cite(content[1]):
            span["c"][1] = [content[1]]  # a wrapper of an older run: what elements() makes of it
        else:
            span["c"][1] = self.elements(content)
        return _without_ours(span)


class Undo:
    """The same undo, one element list at a time, for the scan's walk
    (``scan_document(undo=…)``): a re-run then walks its document once, undoing each list as
    the walk meets the first of the filter's elements in it, instead of walking it twice.

    ``tail`` undoes a list from a position on (what stands before it was walked already and
    holds nothing to undo); ``value`` and ``cite`` undo, whole, what the walk does not read
    (a Cite's prefixes and suffixes, a figure's image, metadata no reader sees)."""

    def __init__(self, prefixes: tuple[str, ...] = CROSSREF_PREFIXES) -> None:
        self._stripper = _Stripper(prefixes)

    def tail(self, elements: list[Json], at: int) -> int:
        """Undo ``elements[at:]`` in place; the position from which the list is new."""
        edited = [
            i
            for i in range(at, len(elements))
            if isinstance(el := elements[i], dict) and el.get("t") in _EDITED
        ]
        if not edited:
            return len(elements)
        elements[:], _, kept = self._stripper._edit(elements, edited)
        return kept

    @staticmethod
    def lone_cite(span: Json) -> Json | None:
        """The Cite that stands for ``span`` when the undo replaces it by that Cite alone."""
        return _lone_cite(span)

    @staticmethod
    def undoes_block(block: Json) -> bool:
        """Is ``block`` a Div or block quote the undo removes or unwraps?"""
        if block["t"] == "Div":
            return not _OUR_BLOCKS.isdisjoint(block["c"][0][1])
        return is_alert(block)

    def value(self, node: Json) -> None:
        self._stripper.value(node)

    def cite(self, c: Json) -> None:
        self._stripper.cite(c)


def _judged_count(span: Json) -> int:
    """How many citation items the run that made a wrapper judged (its stored states)."""
    states = next((v for k, v in span["c"][0][2] if k == STATES_ATTRIBUTE), "")
    return len(states.split())


def _entered(node: list[Json]) -> list[int] | None:
    """The positions of the elements of ``node`` that are not leaves, or None when ``node`` is
    not a list of elements.

    The cheapest pass found (callgrind, a thesis's 291,000 inlines: a third fewer
    instructions than a comprehension testing the set alone): a word or a space, nine
    elements in ten, is told by two string comparisons, which need no hash of the type name
    (every name is a string of its own, which ``in _LEAVES`` would hash first)."""
    if not isinstance(node[0], dict) or "t" not in node[0]:
        return None
    at: list[int] = []
    i = 0
    try:
        for el in node:
            t = el["t"]
            if t != "Str" and t != "Space" and t not in _LEAVES:
                at.append(i)
            i += 1
    except (TypeError, KeyError):
        return None
    return at


_WRAPPER_CLASSES = frozenset({PROCESSED_CLASS, CHECKED_CLASS})


def _lone_cite(el: Json) -> Json | None:
    """The Cite of a wrapper that ``_edit`` would replace by that Cite alone: the filter's
    classes only, no attributes, no id but a ``citeledger-`` one, the Cite its only content
    (a re-run meets one in every paragraph: undone here without rebuilding the list)."""
    if el["t"] != "Span":
        return None
    (ident, classes, kvs), content = el["c"]
    if (
        kvs
        or len(content) != 1
        or PROCESSED_CLASS not in classes
        or not _WRAPPER_CLASSES.issuperset(classes)
        or (ident and not ident.startswith("citeledger-"))
    ):
        return None
    cite: Json = content[0]
    return cite if _is_cite(cite) else None


def _is_str(el: Json) -> bool:
    return isinstance(el, dict) and el.get("t") == "Str"


def _is_cite(el: Json) -> bool:
    return isinstance(el, dict) and el.get("t") == "Cite"


def _is_anchor(el: Json) -> bool:
    """A claim anchor as ``_edit`` drops it at the start of a list: a Span of the filter's
    inline classes (not a wrapper, so none of its hidden ones either) and no content."""
    if not (isinstance(el, dict) and el.get("t") == "Span"):
        return False
    (_, classes, _), content = el["c"]
    return (
        not content
        and bool(classes)
        and PROCESSED_CLASS not in classes
        and not _OUR_INLINES.isdisjoint(classes)
    )


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


def _has_cite(node: Json, prefixes: tuple[str, ...]) -> bool:
    """Does ``node`` hold a citation the scan judges: a ``Cite``, or a raw TeX or typst command
    (``raw.raw_element_citations``), so that the undo keeps it with the writer's words?"""
    if isinstance(node, list):
        return any(_has_cite(child, prefixes) for child in node)
    if isinstance(node, dict):
        t = node.get("t")
        if t == "Cite":
            return True
        if t in ("RawInline", "RawBlock"):
            return bool(raw_element_citations(node.get("c"), prefixes))
        return any(
            _has_cite(child, prefixes) for child in node.values() if isinstance(child, (list, dict))
        )
    return False
