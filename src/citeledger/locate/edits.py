"""The writer's editorial marks in words: one phrasing for the judge, the pages and the report.

A checked quotation may carry accepted brackets and omissions (``model.Edit``, recorded in the
receipt). A reader must be told of them wherever the citation says "checked" — the audit row,
the evidence link, the evidence page, ``check --json`` — in the same words everywhere, so they
are made here and nowhere else. Nothing here reads files or judges.
"""

from __future__ import annotations

from collections.abc import Sequence

from citeledger.model import Edit

# Why a quote whose words are the source's is still refused: it is cut from the sentence's frame
# or limit, or a bracket names what the source does not (locate.context). The judge words its
# verdict by it: "not in the source" would tell a writer looking at those very words nothing.
CUT_REASON = "the quote's words are in the source, but not as its claim"

_NOUNS = {
    "omission": ("omission", "omissions"),
    "bracket": ("bracketed change", "bracketed changes"),
}


def count_phrase(edits: Sequence[Edit]) -> str:
    """``1 omission``, ``2 omissions and 1 bracketed change``; empty when there are none."""
    parts = []
    for kind in ("omission", "bracket"):
        n = sum(1 for e in edits if e.kind == kind)
        if n:
            one, many = _NOUNS[kind]
            parts.append(f"{n} {one if n == 1 else many}")
    return " and ".join(parts)


def checked_phrase(edits: Sequence[Edit]) -> str:
    """``checked, with 1 omission``: what a checked citation says when the writer edited it."""
    counted = count_phrase(edits)
    return f"checked, with {counted}" if counted else "checked"


def describe(edit: Edit) -> str:
    """One edit as a sentence a reader can check against the source."""
    if edit.kind == "omission":
        return f"the ellipsis “{edit.quote_text}” leaves out “{edit.source_text}”"
    if not edit.source_text:
        return f"the bracketed “{edit.quote_text}” is the writer's insertion"
    return f"the bracketed “{edit.quote_text}” stands for the source's “{edit.source_text}”"


def describe_all(edits: Sequence[Edit]) -> str:
    """Every edit, joined; ``none`` when there are none (for a reason that compares two lists)."""
    return "; ".join(describe(e) for e in edits) or "none"
