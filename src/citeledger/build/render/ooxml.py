"""A callout's blocks as WordprocessingML paragraphs, for DOCX builds (``render.docx``).

Why not let pandoc write them: pandoc's DOCX writer gives every block of a list item after the
first its own invisible-bullet numbering, and a list inside a styled Div its list style, so in
Word (and read back by pandoc) a callout inside a list item becomes a bullet of a list of its
own and its reason bullets lose the callout's style. Written here, every paragraph of the
callout carries the "Citeledger Breakdown" paragraph style, reason bullets included (a ``•`` and
a hanging indent instead of Word numbering), and inside a list item each paragraph says
"no numbering" (``numId`` 0) and is indented to the item's text, so it stays part of the item.

Loud in any reference document: a style can be empty (pandoc's default reference.docx defines
ours as Body Text), so each paragraph also carries direct formatting — a border (thick on the
left, as the stylesheet's), the stylesheet's shading, and the title's words bold in the border's
colour (``render.palette``). Adjacent paragraphs with the same border form one box in Word and
LibreOffice. A flag is a run with the same direct formatting (``flag_run``).

Only the few nodes ``render.words`` builds are written (paragraphs, a flat bullet list, strong,
emphasis, code, quotes, superscript, internal ``#links``); anything else returns None and the
caller keeps pandoc's rendering. Builds strings, nothing else: no I/O, never prints.
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape, quoteattr

from citeledger.build.render.palette import BREAKDOWN, Look
from citeledger.inert import visible

Node = dict[str, Any]

INDENT = 720  # twips per list level, as pandoc's DOCX writer indents list text
BULLET_HANG = 360
BULLET = "•\u00a0"


class Unsupported(Exception):
    """A node this writer does not know: keep pandoc's rendering instead."""


def paragraphs(
    blocks: list[Node], style_id: str, depth: int = 0, look: Look = BREAKDOWN
) -> str | None:
    """``blocks`` as ``<w:p>`` elements in style ``style_id`` and ``look``'s border and
    shading, the first one's words in its ink (the title); ``depth``: enclosing list items."""
    try:
        return "".join(
            _block(block, _Frame(style_id, look, title=k == 0), depth * INDENT)
            for k, block in enumerate(blocks)
        )
    except Unsupported:
        return None


def flag_run(text: str, style_id: str, look: Look = BREAKDOWN) -> str:
    """A flag's words as one run: its character style, bold, in ink, bordered and shaded."""
    return _run(text, (f'<w:rStyle w:val="{style_id}"/>', *flag_marks(look)))


def flag_marks(look: Look) -> tuple[str, ...]:
    """A flag's run properties (also the "Citeledger Flag" style of templates/reference.docx)."""
    return (
        "<w:b/><w:bCs/>",
        f'<w:color w:val="{look.ink}"/>',
        f'<w:bdr w:val="single" w:sz="6" w:space="0" w:color="{look.ink}"/>',
        f'<w:shd w:val="clear" w:color="auto" w:fill="{look.fill}"/>',
    )


def box(look: Look) -> str:
    """A callout paragraph's border and shading (``w:pBdr``, ``w:shd``), thick on the left as
    the stylesheet's; also the "Citeledger Breakdown" style of templates/reference.docx."""
    sides = {"top": 12, "left": 48, "bottom": 12, "right": 12}  # eighths of a point
    edges = "".join(
        f'<w:{side} w:val="single" w:sz="{size}" w:space="4" w:color="{look.ink}"/>'
        for side, size in sides.items()
    )
    return f'<w:pBdr>{edges}</w:pBdr><w:shd w:val="clear" w:color="auto" w:fill="{look.fill}"/>'


class _Frame:
    """What every paragraph of one callout shares: its style and its look."""

    def __init__(self, style_id: str, look: Look, *, title: bool) -> None:
        self.style_id = style_id
        self.look = look
        self.title = title

    @property
    def marks(self) -> tuple[str, ...]:
        return (f'<w:color w:val="{self.look.ink}"/>',) if self.title else ()


def _block(block: Node, frame: _Frame, left: int) -> str:
    t = block.get("t")
    if t in ("Para", "Plain"):
        return _paragraph(block["c"], frame, left, left > 0)
    if t == "BulletList":
        out = []
        for item in block["c"]:
            for k, sub in enumerate(item):
                if sub.get("t") not in ("Para", "Plain"):
                    raise Unsupported(sub.get("t"))
                lead = [{"t": "Str", "c": BULLET}] if k == 0 else []
                hang = BULLET_HANG if k == 0 else 0
                out.append(
                    _paragraph(lead + sub["c"], frame, left + BULLET_HANG, True, hanging=hang)
                )
        return "".join(out)
    raise Unsupported(t)


def _paragraph(
    inlines: list[Node], frame: _Frame, left: int, no_numbering: bool, hanging: int = 0
) -> str:
    # w:pPr children in the schema's order: pStyle, numPr, pBdr, shd, ind
    props = f'<w:pStyle w:val="{frame.style_id}"/>'
    if no_numbering:  # inside a list item: "not numbered", so it stays part of the item
        props += '<w:numPr><w:ilvl w:val="0"/><w:numId w:val="0"/></w:numPr>'
    props += box(frame.look)
    if left:
        props += f'<w:ind w:left="{left}"' + (f' w:hanging="{hanging}"' if hanging else "") + "/>"
    return f"<w:p><w:pPr>{props}</w:pPr>{_runs(inlines, frame.marks)}</w:p>"


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


_ORDER = ("w:rStyle", "w:b", "w:i", "w:color", "w:bdr", "w:shd", "w:vertAlign")


def _run(text: str, marks: tuple[str, ...]) -> str:
    return f'<w:r>{_props(marks)}<w:t xml:space="preserve">{escape(visible(text))}</w:t></w:r>'
