"""The CSS declarations that apply to each element of a page: its inline ``style`` attribute
and the rules of its own ``<style>`` elements whose selectors are simple.

Why: the HTML extractor must leave out words a reader cannot see, and the commonest way a page
hides words is a class of its own stylesheet (``.sr-only``, ``.visually-hidden``,
``.h{display:none}``). This is no CSS engine: it reads what a page uses to hide words and no
more. A rule is read when its selector is made of type, class, id and attribute selectors and
the descendant, child and sibling combinators, and it stands at the top level, in
``@media`` with no feature test (``screen``, ``all``; not ``print``), ``@supports`` or
``@layer``. Not read: ``<link>``ed sheets (never fetched), ``@import``, pseudo-classes and
pseudo-elements (``:hover``, ``:not()``, ``::before``), media queries with features, a
``<style media=…>`` that is not for the screen, and rules past the first
:data:`MAX_SELECTORS`. Among those read, the cascade is the browser's: a ``!important``
declaration first, then inline over sheet, then the more specific selector, then the later
rule.

Shorthands are read into the longhands the extractor asks about (``font`` gives
``font-size``, ``inset`` the four offsets, ``margin`` the four margins), in declaration order,
so ``font-size:20px;font:0/0 a`` has a zero font size, as in a browser.

Never does I/O; deterministic.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass

from selectolax.lexbor import LexborHTMLParser, LexborNode, SelectolaxError

Declarations = dict[str, str]

_CSS_COMMENT = re.compile(r"/\*.*?(?:\*/|\Z)", re.S)
_CSS_ESCAPE = re.compile(r"\\(?:([0-9A-Fa-f]{1,6})[ \t\n\r\f]?|(.))", re.S)
_IMPORTANT = re.compile(r"\s*!\s*important\s*\Z", re.I)
NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?"
LENGTH = re.compile(rf"({NUMBER})\s*([a-z]+|%)?", re.I)
SIDES = {1: (0, 0, 0, 0), 2: (0, 1, 0, 1), 3: (0, 1, 2, 1), 4: (0, 1, 2, 3)}  # CSS's 1-4 values
MAX_SELECTORS = 10_000
"""Selectors of a page's ``<style>`` rules matched at most: each costs a walk of the tree (the
largest corpus sheet, 1,700 simple selectors, takes ~0.15 s); a sheet past this is read no
further, so its later rules neither hide nor show words."""


def _words(names: str) -> frozenset[str]:
    return frozenset(names.split())


def _css_unescape(m: re.Match[str]) -> str:
    if m.group(1):
        cp = int(m.group(1), 16)
        return chr(cp) if 0 < cp <= 0x10FFFF and not 0xD800 <= cp <= 0xDFFF else "\ufffd"
    return m.group(2)


_FONT_KEYWORDS = _words(
    "normal italic oblique bold bolder lighter small-caps ultra-condensed extra-condensed "
    "condensed semi-condensed semi-expanded expanded extra-expanded ultra-expanded"
)
_SYSTEM_FONTS = _words("caption icon menu message-box small-caption status-bar")


def _font_size(value: str) -> str:
    """The size the ``font`` shorthand sets: the token before the ``/`` of the line height,
    or the first length after the style, variant, weight and stretch keywords."""
    tokens = re.sub(r"\s*/\s*", "/", value).split()
    if len(tokens) == 1 and tokens[0] in _SYSTEM_FONTS:
        return "medium"
    for token in tokens:
        size = token.split("/")[0]
        if "/" in token or size in _FONT_KEYWORDS:
            if "/" in token:
                return size
            continue
        n = LENGTH.fullmatch(size)
        if n is not None and n.group(2) is None and 1 <= float(n.group(1)) <= 1000:
            continue  # a unitless number there is the weight
        return size
    return "medium"


def _longhands(name: str, value: str) -> Iterator[tuple[str, str]]:
    """The declaration and the longhands the extractor reads that it sets."""
    yield name, value
    if name == "font":
        yield "font-size", _font_size(value)
    elif name in ("inset", "margin"):
        parts = value.split()
        if 1 <= len(parts) <= 4:
            prefix = "" if name == "inset" else "margin-"
            for side, i in zip(("top", "right", "bottom", "left"), SIDES[len(parts)], strict=True):
                yield prefix + side, parts[i]


def declaration_list(block: str) -> list[tuple[str, str, bool]]:
    """A declaration block's (property, value, important), in order, longhands expanded:
    comments removed, escapes decoded, names lower-cased, values lower-cased with whitespace
    collapsed."""
    text = _CSS_ESCAPE.sub(_css_unescape, _CSS_COMMENT.sub(" ", block))
    out: list[tuple[str, str, bool]] = []
    for decl in text.split(";"):
        name, colon, value = decl.partition(":")
        name = name.strip().lower()
        if not colon or not name:
            continue
        value = " ".join(value.lower().split())
        important = bool(_IMPORTANT.search(value))
        if important:
            value = _IMPORTANT.sub("", value)
        out.extend((n, v, important) for n, v in _longhands(name, value))
    return out


def style_declarations(style: str) -> Declarations:
    """An inline ``style`` attribute as a browser reads it: the last declaration of a property
    winning unless an earlier one is ``!important``."""
    return _cascade([(0, decls) for decls in (declaration_list(style),)])


def _cascade(layers: list[tuple[int, list[tuple[str, str, bool]]]]) -> Declarations:
    """``layers`` as (rank, declarations) in cascade order (lowest first): a later or
    higher-ranked declaration wins, any ``!important`` one over every normal one."""
    out: Declarations = {}
    weight: dict[str, tuple[bool, int]] = {}
    for rank, decls in layers:
        for name, value, important in decls:
            w = (important, rank)
            if name in weight and weight[name] > w:
                continue
            weight[name] = w
            out[name] = value
    return out


# ----------------------------------------------------------------------------- stylesheets


@dataclass(frozen=True)
class Rule:
    """One selector of a rule and its declaration block, read only when the selector matches
    (most of a site's sheet matches nothing on a given page)."""

    selector: str
    block: str

    @property
    def specificity(self) -> tuple[int, int, int]:
        return _specificity(self.selector)

    @property
    def declarations(self) -> list[tuple[str, str, bool]]:
        return declaration_list(self.block)


_SIMPLE_SELECTOR = re.compile(r"[\w\-.#*\[\]=\"'~^$|\s>+~]+")
_SCREEN_MEDIA = re.compile(r"(?:only\s+)?(?:screen|all)(?:\s*,\s*(?:screen|all|print))*|")


def _specificity(selector: str) -> tuple[int, int, int]:
    bare = re.sub(r"\[[^\]]*\]", " [a] ", re.sub(r"\"[^\"]*\"|'[^']*'", "", selector))
    ids = len(re.findall(r"#[\w\-]+", bare))
    classes = len(re.findall(r"\.[\w\-]+", bare)) + bare.count("[a]")
    types = len(re.findall(r"(?:^|[\s>+~])[a-zA-Z][\w\-]*", bare))
    return ids, classes, types


_BLOCK_TOKEN = re.compile(r"""\\.|"(?:\\.|[^"\\])*"?|'(?:\\.|[^'\\])*'?|[{};]""", re.S)


def _blocks(css: str) -> Iterator[tuple[str, str]]:
    """(prelude, body) of each top-level rule or at-rule of ``css``; braces in strings kept."""
    depth, start, prelude_end = 0, 0, 0
    for m in _BLOCK_TOKEN.finditer(css):
        c = m.group(0)
        if c == "{":
            if depth == 0:
                prelude_end = m.start()
            depth += 1
        elif c == "}" and depth:
            depth -= 1
            if depth == 0:
                yield css[start:prelude_end].strip(), css[prelude_end + 1 : m.start()]
                start = m.end()
        elif c == ";" and depth == 0:
            start = m.end()  # a statement at-rule (@import, @charset): not read


def _screen_media(query: str) -> bool:
    return bool(_SCREEN_MEDIA.fullmatch(" ".join(query.lower().split())))


def sheet_rules(css: str) -> Iterator[Rule]:
    """The rules of one style sheet that apply on a screen and have simple selectors."""
    for prelude, body in _blocks(_CSS_COMMENT.sub(" ", css)):
        if prelude.startswith("@"):
            name, _, query = prelude[1:].partition(" ")
            name = name.lower()
            if (name == "media" and _screen_media(query)) or name in ("supports", "layer"):
                yield from sheet_rules(body)
            continue
        if ":" not in body:
            continue  # no declaration
        for selector in prelude.split(","):
            selector = " ".join(selector.split())
            if selector and _SIMPLE_SELECTOR.fullmatch(selector):
                yield Rule(selector, body)


def _in_template(node: LexborNode) -> bool:
    cur = node.parent
    while cur is not None:
        if cur.tag in ("template", "svg"):
            return cur.tag == "template"
        cur = cur.parent
    return False


def page_rules(tree: LexborHTMLParser) -> list[Rule]:
    """The rules of the page's ``<style>`` elements for the screen, in document order."""
    out: list[Rule] = []
    for style in tree.css("style"):
        media = style.attributes.get("media")
        if media is not None and not _screen_media(media):
            continue
        if _in_template(style):
            continue
        out.extend(sheet_rules(style.text(deep=True) or ""))
        if len(out) >= MAX_SELECTORS:
            return out[:MAX_SELECTORS]
    return out


_COMPOUND_END = re.compile(r"[^\s>+~]*\Z")


def _names(tree: LexborHTMLParser) -> frozenset[str]:
    """Every class (``.x``) and id (``#x``) of the page, case-folded: a rule whose last
    compound names one the page lacks matches nothing, and is not matched."""
    out: set[str] = set()
    for node in tree.css("[class]"):
        out.update("." + c.casefold() for c in (node.attributes.get("class") or "").split())
    for node in tree.css("[id]"):
        out.add("#" + (node.attributes.get("id") or "").casefold())
    return frozenset(out)


def _may_match(selector: str, names: frozenset[str]) -> bool:
    last = _COMPOUND_END.search(re.sub(r"\[[^\]]*\]", "[]", selector))
    wanted = re.findall(r"[.#][\w\-]+", last.group(0) if last else "")
    return all(w.casefold() in names for w in wanted)


def element_styles(tree: LexborHTMLParser) -> dict[int, Declarations]:
    """Each element that has declarations (inline or from a rule read), by ``mem_id``."""
    layers: dict[int, list[tuple[tuple[int, int, int, int], list[tuple[str, str, bool]]]]] = {}
    rules = page_rules(tree)
    names = _names(tree) if rules else frozenset()
    matched: dict[str, list[LexborNode]] = {}
    for rule in rules:
        nodes = matched.get(rule.selector)
        if nodes is None:
            nodes = []
            if _may_match(rule.selector, names):
                # a selector lexbor refuses matches nothing: a browser drops the rule too
                with contextlib.suppress(SelectolaxError):
                    nodes = tree.css(rule.selector)
            matched[rule.selector] = nodes
        if nodes:
            rank, decls = (0, *rule.specificity), rule.declarations
            for node in nodes:
                layers.setdefault(node.mem_id, []).append((rank, decls))
    for node in tree.css("[style]"):
        inline = declaration_list(node.attributes.get("style") or "")
        layers.setdefault(node.mem_id, []).append(((1, 0, 0, 0), inline))
    out: dict[int, Declarations] = {}
    for mem_id, found in layers.items():
        # sorted is stable, so among equal specificity the later rule stays later
        ranked = sorted(found, key=lambda layer: layer[0])
        out[mem_id] = _cascade([(i, decls) for i, (_, decls) in enumerate(ranked)])
    return out
