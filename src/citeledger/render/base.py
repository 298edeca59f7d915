"""The shape every renderer shares: a wrapped Cite, an inline flag, a block callout.

A processed Cite becomes ``Span.citeledger-cite [Cite, flag…]``: the Cite itself is kept whole
(so ``--citeproc`` still formats it, and a citation group stays one group), the Span marks it as
processed (the walk skips it on a second run: idempotence), carries ``citeledger-checked`` when
every item is checked, and ``data-citeledger-states`` lists the items' states. Each breakdown
item gets a flag after the Cite — ``Span#citeledger-cite-N.citeledger-flag.citeledger-<state>``
— and a callout ``Div#citeledger-breakdown-N.citeledger-breakdown.citeledger-<state>``; the two
link to each other where the format has internal links and the flag is not inside link text.

Subclasses change how these look, never what they say (that is ``words``). Nothing here prints.
"""

from __future__ import annotations

from importlib import resources
from typing import TYPE_CHECKING, Any, ClassVar

from citeledger.citations import PROCESSED_CLASS
from citeledger.render import ast, words
from citeledger.render.ast import Node
from citeledger.render.words import Item

if TYPE_CHECKING:
    from citeledger.audit import AuditRow

# ``citeledger.audit`` owns the ids (claim, flag, audit row). It is imported where it is used:
# it loads the evidence store, which a document without citations should not pay for.

CHECKED_CLASS = "citeledger-checked"
FLAG_CLASS = "citeledger-flag"
BREAKDOWN_CLASS = "citeledger-breakdown"
AUDIT_CLASS = "citeledger-audit"
EVIDENCE_CLASS = "citeledger-evidence"
CLAIM_CLASS = "citeledger-claim"


def template_text(name: str) -> str:
    """A file of ``templates/`` (the package ``citeledger.templates``)."""
    return resources.files("citeledger.templates").joinpath(name).read_text(encoding="utf-8")


class Renderer:
    family: ClassVar[str] = "plain"
    links: ClassVar[bool] = False  # internal links (#id) work in this family
    header_format: ClassVar[str | None] = None  # raw format of the header-includes block
    header_template: ClassVar[str | None] = None  # file in templates/ to put there
    header_marker: ClassVar[str] = "citeledger"  # text by which a second run finds it

    def __init__(self, fmt: str, *, audit: bool = False) -> None:
        self.fmt = fmt
        self.audit_rows = audit  # flags then link to their audit rows (citeledger.audit ids)

    # inline -------------------------------------------------------------------

    def wrap(self, cite: Node, items: list[Item]) -> Node:
        checked = all(not item.state.is_breakdown for item in items)
        classes = [PROCESSED_CLASS, CHECKED_CLASS] if checked else [PROCESSED_CLASS]
        states = " ".join(item.state.value for item in items)
        inlines = [
            a for item in items if item.found.claim_at is None for a in self.claim_anchor(item)
        ]
        inlines.append(cite)
        for item in items:
            if item.state.is_breakdown:
                inlines += [ast.space(), self.flag(item)]
            elif item.evidence and self.links and not item.found.in_link:
                inlines.append(self.evidence_link(item))
        a = ast.attr("", classes, [("data-citeledger-states", states)])
        return ast.span(a, inlines)

    def claim_anchor(self, item: Item) -> list[Node]:
        """``#citeledger-claim-N``: where the audit row and the evidence page lead back to."""
        if not self.links:
            return []
        from citeledger.audit import claim_id

        return [ast.span(ast.attr(claim_id(item.number), [CLAIM_CLASS]), [])]

    def flag_target(self, item: Item) -> str:
        """A flag leads to the audit row when there is an audit, else to its callout."""
        if not self.audit_rows:
            return "#" + item.found.breakdown_anchor
        from citeledger.audit import flag_link_target

        return flag_link_target(item.number)

    def evidence_link(self, item: Item) -> Node:
        """A checked citation's way to what was retrieved: its evidence page."""
        link = ast.link([ast.str_("evidence")], item.evidence or "")
        return ast.span(ast.attr("", [EVIDENCE_CLASS]), [link])

    def flag(self, item: Item) -> Node:
        classes = [FLAG_CLASS, f"citeledger-{item.state.value}"]
        a = ast.attr(item.found.anchor, classes, self.flag_attributes(item))
        return ast.span(a, self.flag_inlines(item))

    def flag_attributes(self, item: Item) -> list[tuple[str, str]]:
        return []

    def flag_inlines(self, item: Item) -> list[Node]:
        inner = [ast.strong([ast.str_(words.flag_text(item))])]
        if self.links and not item.found.in_link:
            return [ast.link(inner, self.flag_target(item))]
        return inner

    # blocks -------------------------------------------------------------------

    def callout(self, item: Item) -> Node:
        classes = [BREAKDOWN_CLASS, f"citeledger-{item.state.value}"]
        a = ast.attr(item.found.breakdown_anchor, classes, self.callout_attributes(item))
        return ast.div(a, self.callout_content(item))

    def callout_attributes(self, item: Item) -> list[tuple[str, str]]:
        return []

    def callout_content(self, item: Item) -> list[Node]:
        return words.callout_blocks(item, link_back=self.links)

    def audit(self, rows: list[AuditRow], evidence_href: str | None) -> Node:
        """The "Citation audit" section of ``citeledger.audit``, in a Div of its own."""
        from citeledger.audit import audit_blocks

        blocks = audit_blocks(rows, evidence_dir_href=evidence_href if self.links else None)
        return ast.div(ast.attr("", [AUDIT_CLASS]), blocks)

    # document -----------------------------------------------------------------

    def header_blocks(self) -> list[Node]:
        if self.header_format is None or self.header_template is None:
            return []
        text = self.header_text(template_text(self.header_template))
        return [ast.raw_block(self.header_format, text)]

    def header_text(self, template: str) -> str:
        return template

    def add_header(self, meta: dict[str, Any]) -> None:
        """Append our header to ``header-includes``, keeping whatever the writer put there.

        ``pandoc -H file`` replaces metadata header-includes wholesale, and a filter cannot see
        it; the LaTeX renderer therefore guards every use of its definitions (see latex.py).
        """
        blocks = self.header_blocks()
        if not blocks:
            return
        existing = meta.get("header-includes")
        if existing is not None and _mentions(existing, self.header_marker):
            return
        entry = {"t": "MetaBlocks", "c": blocks}
        if existing is None:
            meta["header-includes"] = {"t": "MetaList", "c": [entry]}
        elif existing.get("t") == "MetaList":
            existing["c"].append(entry)
        else:
            meta["header-includes"] = {"t": "MetaList", "c": [existing, entry]}


def _mentions(node: Any, marker: str) -> bool:
    """Does a metadata value hold a raw block or inline whose text contains ``marker``?"""
    if isinstance(node, list):
        return any(_mentions(x, marker) for x in node)
    if isinstance(node, dict):
        t: Any = node.get("t")
        c: Any = node.get("c")
        if t in ("RawBlock", "RawInline"):
            return marker in c[1]
        return _mentions(c, marker)
    return False
