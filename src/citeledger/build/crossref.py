"""What is a cross-reference, not a citation: the one test every reader of ``@key`` shares.

pandoc-crossref (``@fig:x``) and Quarto (``@fig-x``, ``@thm-x``, ``@nte-x``…, and the kinds of
a document's ``crossref: custom:``) write references to labels exactly as citations are
written, so a key with such a prefix is passed over. Passing over a *source* would be a
silent skip — citeproc renders ``[@sec-2020]`` of a writer whose ledger (or .bib) has that
key, and nothing would judge it — so a prefixed key is a cross-reference only when the filter
knows it is no source (``crossref_sources``). A key that is a source and a label the document
defines (``defined_labels``) both is a citation shown as a breakdown, never checked, and warned
about: pandoc-crossref or Quarto may read it as the label, citeproc as the source. A key the
document defines no label for and that is no source stays a cross-reference: a Quarto book's
chapter refers to labels of other chapters.

``Crossrefs`` carries the keys that are citations despite their prefix through every reader
of the prefixes (the walk, the sentence splitter, raw typst references, the undoing of an
earlier run), so none can disagree. No I/O, no judging.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

# pandoc-crossref (``fig:x``) and Quarto (``fig-x``) reference kinds, Quarto's theorem-like and
# callout kinds included; a document's ``crossref: custom:`` kinds add theirs
_FLOAT_KINDS = ("fig", "sec", "tbl", "eq", "lst")
_THEOREM_KINDS = ("thm", "lem", "cor", "prp", "cnj", "def", "exm", "exr", "sol", "rem")
_CALLOUT_KINDS = ("nte", "tip", "wrn", "imp", "cau")
_LOWER_PREFIXES = (
    *(f"{kind}-" for kind in _FLOAT_KINDS),
    *(f"{kind}:" for kind in _FLOAT_KINDS),
    *(f"{kind}-" for kind in _THEOREM_KINDS + _CALLOUT_KINDS),
)
# both tools capitalise a reference that starts a sentence: ``@Fig:x``, ``@Fig-x``
CROSSREF_PREFIXES = (*_LOWER_PREFIXES, *(p.capitalize() for p in _LOWER_PREFIXES))


class Crossrefs(tuple[str, ...]):
    """A document's cross-reference prefixes, and ``cited``: the keys with such a prefix that
    are citations all the same (a source the document defines no label for)."""

    cited: frozenset[str]

    def __new__(cls, prefixes: Iterable[str], cited: Iterable[str] = ()) -> Crossrefs:
        made = super().__new__(cls, tuple(prefixes))
        made.cited = frozenset(cited)
        return made


def is_crossref(key: str, prefixes: tuple[str, ...] = CROSSREF_PREFIXES) -> bool:
    """Quarto (``fig-x``) and pandoc-crossref (``fig:x``) references are not citations.

    ``prefixes``: ``citations.crossref_prefixes(meta)`` for a document that defines custom
    kinds; a ``Crossrefs`` whose ``cited`` holds the key makes it a citation.
    """
    if not key.startswith(prefixes):
        return False
    return not (isinstance(prefixes, Crossrefs) and key in prefixes.cited)


# the elements whose Attr (``["id", [classes], [attributes]]``) is where their content starts
# (``c[0]``), and Header's after its level; never Code, raw or math: their text defines nothing
_ID_AT = {"Div": 0, "Span": 0, "Figure": 0, "Table": 0, "CodeBlock": 0, "Image": 0, "Header": 1}
_OPAQUE = frozenset({"RawBlock", "RawInline", "Code", "CodeBlock", "Math"})


def defined_labels(doc_json: Any, keys: Collection[str]) -> set[str]:
    """Which of ``keys`` the document defines as a label: an element's id (a header, div,
    span, image, figure, table or code block), or the ``{#eq-x}`` / ``{#tbl:x}`` text that
    pandoc-crossref and Quarto read right after display math or in a table caption (text until
    their filter runs). Only what a reader of labels reads: a ``{#key}`` in an HTML comment, a
    code span or plain prose defines nothing. One walk of the body, asked only when a prefixed
    key is (or may be) a source, which is rare."""
    wanted = set(keys)
    found: set[str] = set()
    stack: list[tuple[Any, bool]] = [
        (doc_json.get("blocks") if isinstance(doc_json, dict) else doc_json, False)
    ]
    while stack and found != wanted:
        node, caption = stack.pop()
        if isinstance(node, list):
            stack.extend((child, caption) for child in node)
            if any(_display_math(a) for a in node):
                found |= wanted & _texts_after_math(node)
            continue
        if not isinstance(node, dict):
            continue
        t, c = node.get("t"), node.get("c")
        at = _ID_AT.get(t) if isinstance(t, str) else None
        if at is not None and isinstance(c, list) and len(c) > at:
            attr = c[at]
            if isinstance(attr, list) and attr and isinstance(attr[0], str) and attr[0] in wanted:
                found.add(attr[0])
        if t == "Str" and caption and isinstance(c, str):
            found |= wanted & {_braced(c)}
        if t in _OPAQUE:
            continue
        if t == "Table" and isinstance(c, list) and len(c) > 1:
            stack.append((c[1], True))  # the caption
            stack.extend((child, caption) for child in c[2:])
            continue
        stack.append((c, caption))
    return found


def _display_math(node: Any) -> bool:
    return (
        isinstance(node, dict)
        and node.get("t") == "Math"
        and isinstance(node.get("c"), list)
        and bool(node["c"])
        and isinstance(node["c"][0], dict)
        and node["c"][0].get("t") == "DisplayMath"
    )


def _texts_after_math(inlines: list[Any]) -> set[str]:
    """The ``{#label}`` that follows a display math in a list of inlines (a space between)."""
    labels = set()
    for i, node in enumerate(inlines):
        if not _display_math(node):
            continue
        rest = inlines[i + 1 : i + 3]
        if rest and isinstance(rest[0], dict) and rest[0].get("t") in ("Space", "SoftBreak"):
            rest = rest[1:]
        if rest and isinstance(rest[0], dict) and rest[0].get("t") == "Str":
            labels.add(_braced(rest[0].get("c")))
    return labels


def _braced(text: Any) -> str:
    """``{#key}`` → ``key``; anything else → "" (no key)."""
    if isinstance(text, str) and text.startswith("{#") and text.endswith("}"):
        return text[2:-1]
    return ""


def label_warning(key: str, ledger: str) -> str:
    """A key that is both a source and a label: how it is shown, and what to rename."""
    return (
        f"@{key} is a source (a key of the ledger {ledger} or of the document's bibliography) "
        f"and also a label this document defines ({{#{key}}}): a cross-reference filter may "
        "read it as the label, so it is shown as a breakdown, never checked. "
        f"Rename the label (e.g. {{#{key}-x}}, and its references) or the ledger key (and "
        "its citations)."
    )
