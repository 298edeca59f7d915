"""The shape every renderer shares: a wrapped Cite, an inline flag, a block callout.

A processed Cite becomes ``Span.citeledger-cite [Cite, flag…]``: the Cite itself is kept whole
(so ``--citeproc`` still formats it, and a citation group stays one group), the Span carries
``citeledger-checked`` when every item is checked, ``data-citeledger-states`` the items' states
(unless all are checked and no selector is stored), and ``data-citeledger-selectors`` the quote
selectors stripped from their suffixes (``0=q1 2=intro``), so that a second run judges the
same citations: it removes all of this
first (``render.previous``) and renders afresh, so nothing the filter made shields a Cite from
the judge, and an unchanged judgement gives back the same output. Each breakdown
item gets a flag after the Cite — ``Span#citeledger-cite-N.citeledger-flag.citeledger-<state>``
— and a callout ``Div#citeledger-breakdown-N.citeledger-breakdown.citeledger-<state>``; the two
link to each other where the format has internal links and the flag is not inside link text.
A checked item is followed by its quiet links: ``evidence`` (its evidence page, HTML builds with
``evidence-pages``) and ``source`` (the source itself at the passage: a text fragment or
``#page=N``, for http(s) sources), never inside link text.

The claim anchor ``#citeledger-claim-N`` is the wrapper's id (a group's other items get empty
Spans before the Cite, a citation-only note's an empty Span before the note), or — when the
writer marked the claim with ``[…]{.claim}`` — the id of that Span itself (``mark_claim``: the
writer's classes are kept, and no ``citeledger-*`` class is added, so the words stay the
writer's prose).

A writer's ``[…]{.unverified}`` Span or ``::: unverified`` Div (``mark_unverified``) takes the
class ``citeledger-unverified`` and a visible ``[unverified]`` word marker: after a Span's words,
at the start of a Div. It carries no flag, callout, link or state: it is a declaration, not a
failed check, and must never read as either a check or a breakdown.

Subclasses change how these look, never what they say (that is ``words``). Nothing here prints.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from citeledger.build.citations import (
    AUDIT_CLASS,
    BREAKDOWN_CLASS,
    CHECKED_CLASS,
    EVIDENCE_CLASS,
    FLAG_CLASS,
    PROCESSED_CLASS,
    SELECTORS_ATTRIBUTE,
    SOURCE_CLASS,
    STATES_ATTRIBUTE,
    UNVERIFIED_LABEL_CLASS,
)
from citeledger.build.citations import CLAIM_ANCHOR_CLASS as CLAIM_CLASS
from citeledger.build.hidden import hidden_attributes
from citeledger.build.names import BANNER_CLASS, GROUP_CLASS, ITEM_CLASS, VERSION_CLASS, claim_id
from citeledger.build.names import UNVERIFIED_MARKED_CLASS as UNVERIFIED_CLASS
from citeledger.build.render import ast, words
from citeledger.build.render.ast import Node
from citeledger.build.render.words import Item

if TYPE_CHECKING:
    from citeledger.report.audit import AuditRow

# ``citeledger.build.names`` owns the ids (claim, flag, audit row); ``citeledger.report.audit``
# is imported where it is used: it loads the evidence store, which a document without
# citations should not pay for.


def template_text(name: str) -> str:
    """A file of ``templates/`` (the package ``citeledger.templates``), read beside the
    package's ``__init__`` as an installed or editable citeledger has it: importing
    ``importlib.resources`` costs ~42 M instructions (callgrind), a twentieth of a one-page
    build; it is used only where the package is not a folder of files (a zip)."""
    templates = import_module("citeledger.templates")  # its own package-dir: not in src/
    try:
        return Path(templates.__file__ or "").with_name(name).read_text(encoding="utf-8")
    except OSError:
        from importlib import resources

        return resources.files(templates).joinpath(name).read_text(encoding="utf-8")


class Renderer:
    family: ClassVar[str] = "plain"
    links: ClassVar[bool] = False  # internal links (#id) work in this family
    header_format: ClassVar[str | None] = None  # raw format of the header-includes block
    header_template: ClassVar[str | None] = None  # file in templates/ to put there
    header_marker: ClassVar[str] = "citeledger"  # text by which a second run finds it
    top_level_callouts: ClassVar[bool] = False  # callouts only between top-level body blocks

    @property
    def callouts_outside_notes(self) -> bool:
        """The writer drops a footnote of more than one block (AsciiDoc prints "[multiblock
        footnote omitted]"): a note's callout goes after the block holding the note."""
        return self.fmt.startswith("asciidoc")

    spaced_links: ClassVar[bool] = False  # a space between the Cite and its links (Markdown)

    def __init__(self, fmt: str, *, audit: bool = False) -> None:
        self.fmt = fmt
        self.audit_rows = audit  # flags then link to their audit rows (citeledger.audit ids)

    # inline -------------------------------------------------------------------

    def wrap(self, cite: Node, items: list[Item]) -> Node:
        checked = all(not item.state.is_breakdown for item in items)
        classes = [PROCESSED_CLASS, CHECKED_CLASS] if checked else [PROCESSED_CLASS]
        selectors = " ".join(
            f"{i}={sel}" for i, item in enumerate(items) if (sel := item.found.ref.selector)
        )
        inlines = [
            a
            for item in items
            if item.found.claim_at is None and item.found.claim_span is None
            for a in self.claim_anchor(item)
        ]
        # the first claim anchor is the wrapper's own id: one element fewer for every citation
        # (pandoc reads and writes each), and the link lands where the empty anchor stood
        ident = inlines.pop(0)["c"][0][0] if inlines and _is_plain_anchor(inlines[0]) else ""
        inlines.append(cite)
        for item in items:
            if item.state.is_breakdown:
                inlines += [ast.space(), self.flag(item)]
                continue
            inlines += self.version_warning(item)
            if item.found.in_link:
                continue  # no link may nest in link text
            spaced = self.spaced_links
            if item.evidence and self.evidence_links:
                inlines += (
                    [ast.space(), self.evidence_link(item)]
                    if spaced
                    else [self.evidence_link(item)]
                )
                spaced = True
            if item.source and self.source_links:
                inlines += self.source_link(item, after_evidence=spaced)
        # all checked: the class says so, and pandoc need not carry the states of 3,000
        # wrappers; with stored selectors they stay (a re-run counts the items judged by them)
        kv: list[tuple[str, str]] = []
        if not checked or selectors:
            kv.append((STATES_ATTRIBUTE, " ".join(i.state.value for i in items)))
        if selectors:
            kv.append((SELECTORS_ATTRIBUTE, selectors))
        return ast.span(ast.attr(ident, classes, kv), inlines)

    def raw_block_flags(self, items: list[Item]) -> Node:
        """The flags of the citations of a raw block (``\\begin{…}…\\cite{…}``): a block
        cannot be wrapped, so they stand after it, in a Div an earlier run's undoing removes."""
        inlines: list[Node] = []
        for item in items:
            if inlines:
                inlines.append(ast.space())
            inlines += [*self.claim_anchor(item), self.flag(item)]
        return ast.div(ast.attr("", [BREAKDOWN_CLASS]), [ast.plain(inlines)])

    def claim_anchor(self, item: Item) -> list[Node]:
        """``#citeledger-claim-N``: where the audit row and the evidence page lead back to."""
        if not self.links:
            return []
        return [ast.span(ast.attr(claim_id(item.number), [CLAIM_CLASS]), [])]

    def mark_claim(self, span: Node, items: list[Item]) -> list[Node]:
        """Put the claim anchor of ``items`` on the writer's ``[…]{.claim}`` Span.

        The first citation's id becomes the Span's id (unless the writer gave it one); the others
        get empty anchors, returned for the caller to put at the start of the Span's words.
        """
        if not self.links:
            return []
        ids = [claim_id(item.number) for item in sorted(items, key=lambda i: i.number)]
        attr = span["c"][0]
        if not attr[0]:
            attr[0] = ids.pop(0)
        return [ast.span(ast.attr(ident, [CLAIM_CLASS]), []) for ident in ids]

    def flag_target(self, item: Item) -> str:
        """A flag leads to the audit row when there is an audit, else to its callout."""
        if not self.audit_rows:
            return "#" + item.found.breakdown_anchor
        from citeledger.report.audit import flag_link_target

        return flag_link_target(item.number)

    def version_warning(self, item: Item) -> list[Node]:
        """A checked citation whose work was re-issued since (recheck's version branch): said
        beside it in bold, in every format — not a breakdown (the check stands on the version
        checked), never silent."""
        receipt = item.judgement.receipt
        change = receipt.version_changed if receipt is not None else None
        if not change:
            return []
        text = f"[{words.VERSION_WARNING}: {change}]".split(" ")
        inlines = [
            n for i, w in enumerate(text) for n in ([ast.space()] if i else []) + [ast.str_(w)]
        ]
        return [ast.space(), ast.span(ast.attr("", [VERSION_CLASS]), [ast.strong(inlines)])]

    def evidence_link(self, item: Item) -> Node:
        """A checked citation's way to what was retrieved: its evidence page."""
        text = words.evidence_text(item).split(" ")
        inlines = [
            n for i, w in enumerate(text) for n in ([ast.space()] if i else []) + [ast.str_(w)]
        ]
        link = ast.link(inlines, item.evidence or "")
        return ast.span(ast.attr("", [EVIDENCE_CLASS]), [link])

    @property
    def evidence_links(self) -> bool:
        """Does a checked citation link its evidence page? (Where pages can be linked.)"""
        return self.links

    @property
    def source_links(self) -> bool:
        """Does a link to the source show in this format? (``plain`` drops every URL.)"""
        return True

    def source_link(self, item: Item, *, after_evidence: bool = False) -> list[Node]:
        """A checked citation's way to the source itself, opened at the quoted passage.

        Raised like a note mark, after a space when an evidence link stands before it.
        """
        link = ast.link([ast.str_(words.SOURCE_WORD)], item.source or "", words.SOURCE_TITLE)
        out = [ast.space()] if after_evidence else []
        return [*out, ast.span(ast.attr("", [SOURCE_CLASS]), [ast.superscript([link])])]

    def mark_unverified(self, node: Node) -> None:
        """Mark a writer's unverified Span or Div in place: a class and a visible word marker."""
        node["c"][0][1].append(UNVERIFIED_CLASS)
        content = node["c"][1]
        if node["t"] == "Span":
            content += self.unverified_after(spaced=bool(content))
        elif content and content[0].get("t") in ("Para", "Plain"):
            content[0]["c"][0:0] = [self.unverified_label(), ast.space()]
        else:
            content.insert(0, ast.para([self.unverified_label()]))

    def unverified_after(self, *, spaced: bool) -> list[Node]:
        """The marker at the end of a Span's words (``spaced``: after a space).

        The space goes inside the marker, among the filter's words: a second run, which keeps
        the marker, then reads the sentence the first run read (a space of the writer's would
        part ``[@key]{.unverified}0`` into two words, and so change its claim). In HTML the
        badge (an inline-block) drops it, so the Span's underline stops at the words; without
        the stylesheet it still shows.
        """
        label = self.unverified_label()
        if spaced:  # after the hidden attributes of a Markdown build's Span (build.hidden)
            label["c"][1].insert(0 if hidden_attributes(label) is None else 1, ast.space())
        return [label]

    def unverified_label(self) -> Node:
        inner = [ast.strong([ast.str_(words.unverified_text())])]
        return ast.span(ast.attr("", [UNVERIFIED_LABEL_CLASS]), inner)

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

    def before_callout(self, block: Node, items: list[Item]) -> None:
        """Adjust, in place, the block the callout of ``items`` is about to follow (nothing,
        but in pandoc's Markdown)."""

    def callout(self, items: list[Item]) -> Node:
        """The callout of one block's breakdowns: one item as always, several as one group.

        A group is ``Div.citeledger-breakdown.citeledger-breakdowns`` with a state class per
        state present; each item inside is ``Div#citeledger-breakdown-N.citeledger-breakdown-item
        .citeledger-<state>`` (where the format has internal links), so each flag still leads
        to its own item and each item back to its flag.
        """
        if len(items) == 1:
            item = items[0]
            classes = [BREAKDOWN_CLASS, f"citeledger-{item.state.value}"]
            a = ast.attr(item.found.breakdown_anchor, classes, self.callout_attributes(item))
            return ast.div(a, self.callout_content(item))
        states = list(dict.fromkeys(f"citeledger-{item.state.value}" for item in items))
        a = ast.attr("", [BREAKDOWN_CLASS, GROUP_CLASS, *states], self.group_attributes(items))
        head, parts = words.group_blocks(items, link_back=self.links, shout=self.shout)
        blocks = list(head)
        for item, part in zip(items, parts, strict=True):
            if self.links:
                classes = [ITEM_CLASS, f"citeledger-{item.state.value}"]
                ia = ast.attr(item.found.breakdown_anchor, classes, self.item_attributes(item))
                blocks.append(ast.div(ia, part))
            else:
                blocks += part
        return ast.div(a, self.frame(blocks, items))

    @property
    def shout(self) -> bool:
        """Titles in capitals too, where bold cannot show."""
        return False

    def callout_attributes(self, item: Item) -> list[tuple[str, str]]:
        return []

    def group_attributes(self, items: list[Item]) -> list[tuple[str, str]]:
        return []

    def item_attributes(self, item: Item) -> list[tuple[str, str]]:
        return []

    def callout_content(self, item: Item) -> list[Node]:
        return self.frame(
            words.callout_blocks(item, link_back=self.links, shout=self.shout), [item]
        )

    def frame(self, blocks: list[Node], items: list[Item]) -> list[Node]:
        """How a callout's blocks stand in this format (a box, a quote, a style)."""
        return blocks

    def banner(self, items: list[Item], *, audit: bool) -> Node | None:
        """``Div.citeledger-banner`` for the top of the body: the counts by state, the audit.

        Only when a citation is not checked: a fully checked document stays quiet.
        """
        if not any(item.state.is_breakdown for item in items):
            return None
        inlines: list[Node] = [ast.strong(ast.words(words.banner_text(items)))]
        if audit:
            see = ast.words("See the citation audit.")
            if self.links:
                from citeledger.report.audit import AUDIT_ID

                see = [ast.link(see, "#" + AUDIT_ID)]
            inlines += [ast.space(), *see]
        return ast.div(
            ast.attr("", [BANNER_CLASS], self.banner_attributes()),
            self.frame_banner([ast.para(inlines)]),
        )

    def banner_attributes(self) -> list[tuple[str, str]]:
        return []

    def frame_banner(self, blocks: list[Node]) -> list[Node]:
        return self.frame(blocks, [])

    def audit(self, rows: list[AuditRow], evidence_href: str | None) -> Node:
        """The "Citation audit" section of ``citeledger.report.audit``, in a Div of its own."""
        from citeledger.report.audit import audit_blocks

        href = evidence_href if self.evidence_links else None
        blocks = audit_blocks(rows, evidence_dir_href=href)
        ast.inert(blocks)
        if not self.links:  # typst refuses a link to a label that does not exist
            _unlink_internal(blocks)
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


def _is_plain_anchor(node: Node) -> bool:
    """An empty ``#citeledger-claim-N`` Span (not LaTeX's label in a moving argument)."""
    (ident, classes, _), content = node["c"]
    return bool(ident) and classes == [CLAIM_CLASS] and not content


def _unlink_internal(node: Any) -> None:
    """Each ``#id`` link in ``node`` becomes a Span of its words, in place.

    A family without internal links (``links`` False) has no claim anchors for the audit's
    "back to the claim" links to reach: typst stops on them (``label <…> does not exist``), and
    elsewhere they lead nowhere. The number and words stay; only the dead link goes.
    """
    stack: list[Any] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, list):
            stack.extend(current)
        elif isinstance(current, dict):
            c: Any = current.get("c")
            if current.get("t") == "Link" and str(c[2][0]).startswith("#"):
                current["t"], current["c"] = "Span", [c[0], c[1]]
            if c is not None:
                stack.append(current["c"])


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
