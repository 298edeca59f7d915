"""A callout's blocks as WordprocessingML paragraphs, for DOCX builds (``render.docx``).

Why not let pandoc write them: pandoc's DOCX writer gives every block of a list item after the
first its own invisible-bullet numbering, and a list inside a styled Div its list style, so in
Word (and read back by pandoc) a callout inside a list item becomes a bullet of a list of its
own and its reason bullets lose the callout's style. Written here, every paragraph of the
callout carries the "Citeledger Breakdown" paragraph style, reason bullets included (a ``•`` and
a hanging indent instead of Word numbering), and inside a list item each paragraph says
"no numbering" (``numId`` 0) and is indented to the item's text, so it stays part of the item.

Only the few nodes ``render.words`` builds are written (paragraphs, a flat bullet list, strong,
emphasis, code, quotes, superscript, internal ``#links``); anything else returns None and the
caller keeps pandoc's rendering. Builds strings, nothing else: no I/O, never prints.
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape, quoteattr

from citeledger.inert import visible

Node = dict[str, Any]

INDENT = 720  # twips per list level, as pandoc's DOCX writer indents list text
BULLET_HANG = 360
BULLET = "•\u00a0"


class Unsupported(Exception):
    """A node this writer does not know: keep pandoc's rendering instead."""


def paragraphs(blocks: list[Node], style_id: str, depth: int = 0) -> str | None:
    """``blocks`` as ``<w:p>`` elements in style ``style_id``; ``depth``: enclosing list items."""
    try:
        return "".join(_block(block, style_id, depth * INDENT) for block in blocks)
    except Unsupported:
        return None


def _block(block: Node, style_id: str, left: int) -> str:
    t = block.get("t")
    if t in ("Para", "Plain"):
        return _paragraph(block["c"], style_id, left, left > 0)
    if t == "BulletList":
        out = []
        for item in block["c"]:
            for k, sub in enumerate(item):
                if sub.get("t") not in ("Para", "Plain"):
                    raise Unsupported(sub.get("t"))
                lead = [{"t": "Str", "c": BULLET}] if k == 0 else []
                hang = BULLET_HANG if k == 0 else 0
                out.append(
                    _paragraph(lead + sub["c"], style_id, left + BULLET_HANG, True, hanging=hang)
                )
        return "".join(out)
    raise Unsupported(t)


def _paragraph(
    inlines: list[Node], style_id: str, left: int, no_numbering: bool, hanging: int = 0
) -> str:
    props = f'<w:pStyle w:val="{style_id}"/>'
    if no_numbering:  # inside a list item: "not numbered", so it stays part of the item
        props += '<w:numPr><w:ilvl w:val="0"/><w:numId w:val="0"/></w:numPr>'
    if left:
        props += f'<w:ind w:left="{left}"' + (f' w:hanging="{hanging}"' if hanging else "") + "/>"
    return f"<w:p><w:pPr>{props}</w:pPr>{_runs(inlines, ())}</w:p>"


def _runs(inlines: list[Node], marks: tuple[str, ...]) -> str:
    out: list[str] = []
    for el in inlines:
        t = el.get("t")
        c: Any = el.get("c")
        if t == "Str":
            out.append(_run(c, marks))
        elif t in ("Space", "SoftBreak"):
            out.append(_run(" ", marks))
        elif t == "LineBreak":
            out.append(f"<w:r>{_props(marks)}<w:br/></w:r>")
        elif t == "Strong":
            out.append(_runs(c, (*marks, "<w:b/><w:bCs/>")))
        elif t == "Emph":
            out.append(_runs(c, (*marks, "<w:i/><w:iCs/>")))
        elif t == "Superscript":
            out.append(_runs(c, (*marks, '<w:vertAlign w:val="superscript"/>')))
        elif t == "Code":
            out.append(_run(c[1], (*marks, '<w:rStyle w:val="VerbatimChar"/>')))
        elif t == "Quoted":
            single = c[0].get("t") == "SingleQuote"
            open_, close = ("‘", "’") if single else ("“", "”")
            out.append(_run(open_, marks) + _runs(c[1], marks) + _run(close, marks))
        elif t == "Span":
            out.append(_runs(c[1], marks))
        elif t == "Link" and str(c[2][0]).startswith("#"):
            inner = _runs(c[1], (*marks, '<w:rStyle w:val="Hyperlink"/>'))
            out.append(
                f"<w:hyperlink w:anchor={quoteattr(visible(c[2][0][1:]))}>{inner}</w:hyperlink>"
            )
        else:  # an external link needs a relationship only pandoc can make, and so on
            raise Unsupported(t)
    return "".join(out)


def _props(marks: tuple[str, ...]) -> str:
    if not marks:
        return ""
    # w:rPr children must come in the schema's order (Word rejects a file otherwise)
    ordered = sorted(dict.fromkeys(marks), key=_rank)
    return "<w:rPr>" + "".join(ordered) + "</w:rPr>"


def _rank(mark: str) -> int:
    return _ORDER.index(mark[1:].split("/")[0].split()[0])  # "<w:b/><w:bCs/>" -> "w:b"


_ORDER = ("w:rStyle", "w:b", "w:i", "w:vertAlign")


def _run(text: str, marks: tuple[str, ...]) -> str:
    return f'<w:r>{_props(marks)}<w:t xml:space="preserve">{escape(visible(text))}</w:t></w:r>'
