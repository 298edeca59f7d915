"""GitHub-style Markdown (gfm, commonmark, commonmark_x, markdown_strict…): plain text, alerts.

What a reader of the Markdown source sees is what GitHub shows, so nothing here becomes raw
HTML: no Span or Div with attributes, no superscript.

- A citation is the plain citation as the writer wrote it, ``[@key, p. 3]`` (the Cite's text
  is written raw, so the brackets are not escaped — as raw "html", which holds no tag but is
  also passed on where the writer falls back to HTML, as in a figure's caption; a ``quote:ID``
  selector stays),
  followed after a space by its plain links: ``[evidence](…)`` where an evidence page exists
  and ``[source](…)`` for a checked web source. ``--citeproc`` after the filter still formats
  the Cite. A key raw text could not carry safely (``<``, ``>``, ``&``) stays escaped.
- A breakdown's flag is bold words, ``**[citation 4: stale]**``; its callout a GitHub alert,
  ``> [!CAUTION]``; the banner a ``> [!WARNING]`` alert. GitHub renders an alert only at the top
  level of a document (inside a list item, a quote or a footnote it shows a literal
  ``[!CAUTION]``), so every callout goes after the top-level block holding its claim
  (``top_level_callouts``), in citation order. GitHub's sanitiser drops ids, so there are no
  internal links; the flag and the callout carry the same citation number instead.
- The audit is a Div (``<div class="citeledger-audit">``, the one tag left: a second run finds
  the audit by it) holding a pipe table: its cells' lines joined by ``·``.

So that a second run (a later filter, a Quarto project) still knows what it made, the Spans keep
their attributes hidden in a first RawInline no writer prints (``build.hidden``).

Read back: GitHub Markdown has no citation syntax, but pandoc's Markdown reader — the one
``citeledger check`` uses for ``.md`` — reads ``[@key, p. 3]`` as the same citation, so the
citations and their states read back; the flags, callouts and links are then ordinary text, and
a rebuild from the GitHub Markdown file would show them twice (build from the source, or go
through ``-t markdown``, which carries everything: ``render.pandoc_markdown``). Never prints.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, ClassVar

from citeledger.build.citations import citation_items
from citeledger.build.hidden import hide
from citeledger.build.names import ALERT_MARK, BANNER_ALERT_MARK, SOURCE_CLASS
from citeledger.build.render import ast, words
from citeledger.build.render.ast import Node
from citeledger.build.render.base import Renderer
from citeledger.build.render.words import Item

if TYPE_CHECKING:
    from citeledger.report.audit import AuditRow

ALERT = ALERT_MARK  # how a second run (render.previous) knows the callout is ours
_SAFE_KEY = re.compile(r"[\w][\w:.#$%\-+?~/]*")  # a key raw text carries as it is


class MarkdownRenderer(Renderer):
    family: ClassVar[str] = "markdown"
    links: ClassVar[bool] = False
    top_level_callouts: ClassVar[bool] = True
    spaced_links: ClassVar[bool] = True

    def wrap(self, cite: Node, items: list[Item]) -> Node:
        if cite.get("t") == "Cite":  # not a raw citation command: it stays as written
            _as_written(cite, items)
        return hide(super().wrap(cite, items))

    def evidence_link(self, item: Item) -> Node:
        return hide(super().evidence_link(item))

    def source_link(self, item: Item, *, after_evidence: bool = False) -> list[Node]:
        link = ast.link([ast.str_(words.SOURCE_WORD)], item.source or "", words.SOURCE_TITLE)
        out = [ast.space()] if after_evidence else []
        return [*out, hide(ast.span(ast.attr("", [SOURCE_CLASS]), [link]))]

    def version_warning(self, item: Item) -> list[Node]:
        return [hide(n) if n["t"] == "Span" else n for n in super().version_warning(item)]

    def flag(self, item: Item) -> Node:
        return hide(super().flag(item))

    def unverified_label(self) -> Node:
        return hide(super().unverified_label())

    def callout(self, items: list[Item]) -> Node:
        return _alert(super().callout(items)["c"][1], ALERT)

    def banner(self, items: list[Item], *, audit: bool) -> Node | None:
        div = super().banner(items, audit=audit)
        return None if div is None else _alert(div["c"][1], BANNER_ALERT_MARK)

    def audit(self, rows: list[AuditRow], evidence_href: str | None) -> Node:
        node = super().audit(rows, evidence_href)
        node["c"][1] = [_plainer(b) for b in node["c"][1]]
        return node

    @property
    def evidence_links(self) -> bool:
        return True  # a relative link to a page beside the output, not an internal one


def _plainer(node: Any) -> Any:
    """The audit's table as a pipe table: no widths, classes or line breaks in its cells, Spans'
    attributes hidden, Links' dropped (else the writer falls back to an HTML table, whose cells
    pandoc's Markdown reader parses again: an ``@key`` in one would read as a citation)."""
    if isinstance(node, list):
        out: list[Any] = []
        for child in node:
            if isinstance(child, dict) and child.get("t") == "LineBreak":
                out += [ast.space(), ast.str_("·"), ast.space()]
            else:
                out.append(_plainer(child))
        return out
    if not isinstance(node, dict):
        return node
    t: Any = node.get("t")
    c: Any = node.get("c")
    if t == "Str" and "@" in c:  # a claim's words: no citation when read back
        parts = c.split("@")
        pieces = [ast.str_(parts[0])] if parts[0] else []
        for part in parts[1:]:
            pieces += [ast.raw_inline("markdown", "\\@")] + ([ast.str_(part)] if part else [])
        return ast.span(ast.attr(), pieces)
    if t == "Table":
        colspecs = [[spec[0], {"t": "ColWidthDefault"}] for spec in c[2]]
        return {"t": t, "c": [ast.attr(), _plainer(c[1]), colspecs, *_plainer(c[3:])]}
    if t == "Span":
        return hide({"t": t, "c": [c[0], _plainer(c[1])]})
    if t == "Link":
        return {"t": t, "c": [ast.attr(), _plainer(c[1]), c[2]]}
    if isinstance(c, list):
        return {"t": t, "c": _plainer(c)}
    return node


def _alert(blocks: list[Node], mark: str) -> Node:
    """A GitHub alert: a block quote whose first line is ``mark`` (``[!CAUTION]``…)."""
    if not blocks or blocks[0].get("t") not in ("Para", "Plain"):
        blocks.insert(0, ast.para([]))
    blocks[0]["c"].insert(0, ast.raw_inline("markdown", mark))
    return ast.block_quote(blocks)


def _as_written(cite: Node, items: list[Item]) -> None:
    """The Cite's text (what a writer prints without citeproc) as the writer's citation syntax.

    The brackets, ``-`` and ``@key`` are raw text, so they are not escaped; prefixes and
    suffixes stay inlines for the writer to escape. The quote selector goes back at the end of
    its citation's suffix. A key raw text could not carry as it is, or a text that no longer
    names every key (citeproc ran before the filter), is left alone.
    """
    citations = cite["c"][0]
    if not all(_SAFE_KEY.fullmatch(c.get("citationId", "")) for c in citations):
        return
    text = "".join(n["c"] if n["t"] == "Str" else n["c"][1] for n in _texts(cite["c"][1]))
    if not all(f"@{c['citationId']}" in text for c in citations):
        return  # already formatted (a citeproc before the filter): leave it so
    selectors: dict[int, str] = {}
    judged = iter(items)  # the judged items, in walk order: every item but cross-references
    item = next(judged, None)
    for c in citation_items(cite, ()):  # all items: a prefixed key may be a citation here
        if item is not None and c.get("citationId") == item.found.ref.key:
            if item.found.ref.selector:
                selectors[id(c)] = item.found.ref.selector
            item = next(judged, None)
    for c in citations:  # a nested citation's Cite sits in a suffix: it is written the same way
        for part in ("citationPrefix", "citationSuffix"):
            for node in c.get(part) or []:
                if isinstance(node, dict) and node.get("t") == "Cite":
                    _as_written(node, [])
    cite["c"][1] = _syntax(citations, selectors)


def _texts(node: Any) -> list[Node]:
    """The Str and raw inlines under ``node``, in order."""
    if isinstance(node, list):
        return [t for child in node for t in _texts(child)]
    if not isinstance(node, dict):
        return []
    if node.get("t") in ("Str", "RawInline"):
        return [node]
    return _texts(node.get("c"))


def _syntax(citations: list[Node], selectors: dict[int, str]) -> list[Node]:
    def raw(text: str) -> Node:  # "html": passed on as is, also where a writer falls back to
        return ast.raw_inline("html", text)  # HTML (a figure's caption); it holds no markup

    def one(c: Node, *, textual: bool) -> list[Node]:
        out: list[Node] = []
        prefix = list(c.get("citationPrefix") or [])
        if prefix and not textual:
            out += [*prefix, ast.space()]
        mode = "-" if _mode(c) == "SuppressAuthor" else ""
        out.append(raw(f"{mode}@{c['citationId']}"))
        suffix = list(c.get("citationSuffix") or [])
        selector = selectors.get(id(c))
        if selector:
            suffix += [ast.space(), ast.str_(f"quote:{selector}")]
        if suffix and not textual and not _starts_with_punctuation(suffix):
            out.append(ast.space())
        return out + ([] if textual else suffix)

    first = citations[0]
    if _mode(first) == "AuthorInText":
        out = one(first, textual=True)
        suffix = list(first.get("citationSuffix") or [])
        selector = selectors.get(id(first))
        if selector:
            suffix += [ast.space(), ast.str_(f"quote:{selector}")]
        rest = [one(c, textual=False) for c in citations[1:]]
        inner = _lstrip(suffix)
        for part in rest:
            inner += ([raw("; ")] if inner else []) + part
        if inner:
            out += [ast.space(), raw("["), *inner, raw("]")]
        return out
    body: list[Node] = []
    for c in citations:
        body += ([raw("; ")] if body else []) + one(c, textual=False)
    return [raw("["), *body, raw("]")]


def _mode(citation: Node) -> str | None:
    mode = citation.get("citationMode")
    return mode.get("t") if isinstance(mode, dict) else None


def _starts_with_punctuation(inlines: list[Node]) -> bool:
    first = inlines[0]
    return first.get("t") == "Str" and first["c"][:1] in (",", ";", ":", ".")


def _lstrip(inlines: list[Node]) -> list[Node]:
    while inlines and inlines[0].get("t") in ("Space", "SoftBreak"):
        inlines = inlines[1:]
    return inlines
