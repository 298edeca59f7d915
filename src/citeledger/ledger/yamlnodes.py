"""YAML text with positions: node trees with line numbers, and appends spliced into the text.

Reading: PyYAML composes the text (with the C parser when it is available: the filter reads the
ledger on every build) into nodes that carry their line and column, so every complaint can name
its line; mappings are read pair by pair so that duplicate keys, which YAML would silently
collapse, are refused.

Writing: the tool only ever *adds* to the ledger (a receipt, a withdrawal, a source). An addition
is spliced into the original text at the end of the block it extends, rendered in the file's own
indentation, so every byte outside it survives: comments, quoting, blank lines, spacing.
:func:`splice` refuses (:class:`NotSpliceable`) whatever it cannot do exactly; the caller then
falls back to a full round-trip dump.

When a change is not a pure addition, ruamel.yaml's round-trip dump writes it, set up so that
it cannot alter what it did not touch: every existing scalar is read as the text the writer
typed (ruamel's YAML 1.2 numbers would otherwise come back re-rendered, ``0…0e0`` as
``0…0e-60``), and new values get the quoting a YAML 1.1 reader (PyYAML, the build's reader)
needs.

This module knows YAML, not the ledger's schema; it never reads or writes files.
"""

from __future__ import annotations

import datetime as _dt
import io
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from citeledger.errors import LedgerError

__all__ = [
    "Append",
    "NotSpliceable",
    "Shared",
    "Style",
    "apply_appends",
    "compose",
    "convert_new",
    "for_round_trip",
    "guess_style",
    "is_null",
    "is_plain",
    "line_of",
    "pairs",
    "plain",
    "plan_appends",
    "render_block",
    "round_trip",
    "rt_dump",
    "rt_load",
    "scalar_ids",
    "scalar_text",
    "scalar_value",
    "shared_on_path",
    "splice",
    "tag_of",
    "to_python",
]

Loader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
Dumper: type = yaml.SafeDumper  # the pure dumper: we override its indentation (writes are rare)

TAG_STR = "tag:yaml.org,2002:str"
TAG_INT = "tag:yaml.org,2002:int"
TAG_FLOAT = "tag:yaml.org,2002:float"
TAG_BOOL = "tag:yaml.org,2002:bool"
TAG_NULL = "tag:yaml.org,2002:null"
TAG_TIMESTAMP = "tag:yaml.org,2002:timestamp"
TAG_MERGE = "tag:yaml.org,2002:merge"
#: A plain scalar whose type is not resolved yet: most ledger values are read as the text the
#: writer typed, so resolving every scalar at compose time (a third of the cost) is wasted.
TAG_PLAIN = "tag:citeledger,2026:plain"
_NULL_FORMS = frozenset({"", "~", "null", "Null", "NULL"})
_RESOLVER = yaml.resolver.Resolver()


def _lazy_loader(base: type) -> type:
    """``base`` (the C or the pure-Python safe loader) leaving plain scalars unresolved."""

    class LazyLoader(base):  # type: ignore[misc]
        def resolve(self, kind: type, value: Any, implicit: tuple[bool, bool]) -> str:
            if kind is ScalarNode:
                return TAG_PLAIN if implicit[0] else TAG_STR
            return super().resolve(kind, value, implicit)  # type: ignore[no-any-return]

    return LazyLoader


_LazyLoader = _lazy_loader(Loader)

_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_MAX_NODES = 1_000_000  # aliases can make a small file expand exponentially
_MAX_DEPTH = 64


# --- reading -------------------------------------------------------------------------------


def compose(text: str, file: str, *, tags_checked: bool = False) -> Node | None:
    """Parse ``text`` into a node tree; malformed YAML is a one-line :class:`LedgerError`.

    ``tags_checked``: ``text`` is a part of a file whose tags were already refused as a whole."""
    try:
        node: Node | None = yaml.compose(text, Loader=_LazyLoader)
    except yaml.MarkedYAMLError as e:
        raise _yaml_error(e, text, file) from None
    except yaml.reader.ReaderError as e:
        line = text.count("\n", 0, e.position) + 1
        raise LedgerError(
            f"the file contains a character YAML does not allow (#x{e.character:04x})"
            if isinstance(e.character, int)
            else "the file contains a character YAML does not allow",
            file=file,
            line=line,
            fix="delete it or replace it with a visible character",
        ) from None
    except yaml.YAMLError as e:  # pragma: no cover - every PyYAML error is one of the above
        raise LedgerError(f"malformed YAML: {e}", file=file) from None
    if node is not None and not tags_checked:
        _refuse_tags(node, file)
    return node


_ALLOWED_TAGS = frozenset(
    {
        TAG_PLAIN,
        TAG_STR,
        TAG_INT,
        TAG_FLOAT,
        TAG_BOOL,
        TAG_NULL,
        TAG_TIMESTAMP,
        TAG_MERGE,
        "tag:yaml.org,2002:map",
        "tag:yaml.org,2002:seq",
    }
)


def _refuse_tags(root: Node, file: str) -> None:
    """``!!binary``, ``!!python/…`` or local ``!tags`` have no place in a ledger: a value is
    what the writer typed, never something a loader constructs."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.tag not in _ALLOWED_TAGS:
            raise _tag_error(node, file, " in a ledger")
        if isinstance(node.value, list):
            for item in node.value:
                stack.extend(item if isinstance(item, tuple) else (item,))


def _yaml_error(e: yaml.MarkedYAMLError, text: str, file: str) -> LedgerError:
    problem = e.problem or "malformed YAML"
    context = e.context or ""
    mark = e.problem_mark
    if context.startswith(("while scanning a simple key", "while scanning a quoted scalar")):
        mark = e.context_mark or mark
    if mark is None:
        mark = e.context_mark
    line = mark.line + 1 if mark is not None else None
    at = text[mark.index] if mark is not None and 0 <= mark.index < len(text) else ""
    if "cannot start any token" in problem and at:
        problem = f"found {at!r}, which cannot start a value"
    fix = _yaml_fix(problem, context, at)
    where = f" ({context})" if context and "single document" not in context else ""
    return LedgerError(f"malformed YAML: {problem}{where}", file=file, line=line, fix=fix)


def _yaml_fix(problem: str, context: str, at: str) -> str:
    if at == "\t" or "\\t" in problem:
        return "indent with spaces, not tabs"
    if "mapping values are not allowed" in problem:
        return "put the value in quotes: it contains ': ', which YAML reads as a new key"
    if "single document" in context or "another document" in problem:
        return "the ledger is one YAML document: remove the second '---' and what follows it"
    if "undefined alias" in problem:
        return "define the anchor (&name) before using it as *name, or write the value out"
    if "quoted scalar" in context:
        return "close the quote that starts on this line"
    if "simple key" in context:
        return "write this line as 'key: value', indented like its neighbours"
    if at in ("`", "@", "%"):
        return f"put the value in quotes: YAML cannot start a plain value with {at}"
    if "flow" in context:
        return "close the [ or { on this line, or quote a value that contains , [ ] { or }"
    return "check the indentation and quoting on this line and the line above"


def has_alias(root: Node) -> bool:
    """Whether any node is reached twice (a YAML alias): then a source's lines are not its own,
    and neither splicing nor keying on its text may treat them as independent."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            return True
        seen.add(id(node))
        if isinstance(node.value, list):
            for item in node.value:
                stack.extend(item if isinstance(item, tuple) else (item,))
    return False


def line_of(node: Node) -> int:
    """The 1-based line a node starts on."""
    return int(node.start_mark.line) + 1


def is_plain(node: ScalarNode) -> bool:
    return node.style in (None, "")


def scalar_text(node: ScalarNode) -> str:
    """The scalar as the writer typed it (after unquoting): ``2101.00001`` stays text."""
    return str(node.value)


def tag_of(node: Node) -> str:
    """The node's tag, resolving a plain scalar's (YAML 1.1, as PyYAML) on first use."""
    tag: str = node.tag
    if tag == TAG_PLAIN:
        tag = node.tag = _RESOLVER.resolve(  # type: ignore[no-untyped-call]
            ScalarNode, node.value, (True, False)
        )
    return tag


def is_null(node: Node | None) -> bool:
    """Whether the node is YAML's null (``key:`` with nothing, ``~``, ``null``)."""
    if not isinstance(node, ScalarNode):
        return False
    if node.tag == TAG_PLAIN:
        return node.value in _NULL_FORMS
    return bool(node.tag == TAG_NULL)


def scalar_value(node: ScalarNode, file: str, where: str = "") -> Any:
    """The scalar's YAML 1.1 value, except that timestamps stay the ISO text as written."""
    tag = tag_of(node)
    if tag in (TAG_STR, TAG_TIMESTAMP):
        return node.value
    if tag == TAG_INT:
        return _CONSTRUCTOR.construct_yaml_int(node)
    if tag == TAG_NULL:
        return None
    if tag == TAG_BOOL:
        return _CONSTRUCTOR.construct_yaml_bool(node)
    if tag == TAG_FLOAT:
        return _CONSTRUCTOR.construct_yaml_float(node)
    raise _tag_error(node, file, where)


def _tag_error(node: Node, file: str, where: str) -> LedgerError:
    shown = node.tag.replace("tag:yaml.org,2002:", "!!")
    return LedgerError(
        f"the YAML tag {shown} is not allowed{where}",
        file=file,
        line=line_of(node),
        fix="remove the tag and write the value as plain text, numbers, lists and mappings",
    )


def pairs(node: MappingNode, file: str, where: str = "") -> Iterator[tuple[str, Node, Node]]:
    """The mapping's ``(key text, key node, value node)`` in order, refusing duplicate keys."""
    seen: dict[str, Node] = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, ScalarNode):
            raise LedgerError(
                f"a mapping key must be plain text{where}",
                file=file,
                line=line_of(key_node),
                fix="write 'name: value'; lists and mappings cannot be keys",
            )
        if key_node.value == "<<" and tag_of(key_node) == TAG_MERGE:
            raise LedgerError(
                f"merge keys (<<) are not supported{where}",
                file=file,
                line=line_of(key_node),
                fix="write the fields out in full",
            )
        key = key_node.value
        first = seen.get(key)
        if first is not None:
            raise LedgerError(
                f"duplicate key '{key}'{where} (first at line {line_of(first)})",
                file=file,
                line=line_of(key_node),
                fix="YAML would silently keep only the last one; remove or rename one of them",
            )
        seen[key] = key_node
        yield key, key_node, value_node


def to_python(node: Node, file: str, where: str = "") -> Any:
    """Any node as plain Python (mapping keys as text), refusing duplicates and odd tags."""
    budget = [_MAX_NODES]
    return _to_python(node, file, where, budget, 0)


def _to_python(node: Node, file: str, where: str, budget: list[int], depth: int) -> Any:
    budget[0] -= 1
    if budget[0] < 0 or depth > _MAX_DEPTH:
        raise LedgerError(
            f"the value is nested too deeply or expands too far through aliases{where}",
            file=file,
            line=line_of(node),
            fix="write the value out without anchors and aliases",
        )
    if isinstance(node, ScalarNode):
        return scalar_value(node, file, where)
    if isinstance(node, SequenceNode):
        if node.tag != "tag:yaml.org,2002:seq":
            raise _tag_error(node, file, where)
        return [_to_python(item, file, where, budget, depth + 1) for item in node.value]
    if isinstance(node, MappingNode):
        if node.tag != "tag:yaml.org,2002:map":
            raise _tag_error(node, file, where)
        return {
            key: _to_python(value, file, where, budget, depth + 1)
            for key, _, value in pairs(node, file, where)
        }
    raise _tag_error(node, file, where)  # pragma: no cover


@dataclass(frozen=True)
class Shared:
    """A node reached through an alias: ``&name`` at one line, ``*name`` at another."""

    name: str
    anchor_line: int
    alias_line: int


def shared_on_path(text: str, root: Node, path: Sequence[int]) -> Shared | None:
    """Whether the node at ``path`` (or a container on the way) is also reached elsewhere.

    An addition to such a node would appear at every place that aliases it. PyYAML's nodes do
    not keep anchor names, so the text is scanned for them (only when a node is shared).
    """
    refs: Counter[int] = Counter()
    stack, seen = [root], {id(root)}
    while stack:
        node = stack.pop()
        if isinstance(node.value, list):
            for item in node.value:
                for child in item if isinstance(item, tuple) else (item,):
                    refs[id(child)] += 1
                    if id(child) not in seen:
                        seen.add(id(child))
                        stack.append(child)
    node, parent = root, root
    for index in path:
        parent = node
        if isinstance(node, MappingNode):
            node = node.value[index][1]
        elif isinstance(node, SequenceNode):
            node = node.value[index]
        else:
            return None
        if refs[id(node)] > 1:
            return _alias_of(text, node, parent)
    return None


def _alias_of(text: str, node: Node, parent: Node) -> Shared:
    name, anchor_line, alias_line = "", line_of(node), line_of(parent)
    try:
        tokens = list(yaml.scan(text, Loader=Loader))
    except yaml.YAMLError:  # pragma: no cover - the text was composed already
        tokens = []
    for token in tokens:
        if isinstance(token, yaml.AnchorToken) and token.start_mark.index == node.start_mark.index:
            name, anchor_line = str(token.value), token.start_mark.line + 1
    lo, hi = parent.start_mark.index, parent.end_mark.index
    aliases = [t for t in tokens if isinstance(t, yaml.AliasToken) and t.value == name]
    inside = [t for t in aliases if lo <= t.start_mark.index < hi]
    if inside or aliases:
        alias_line = (inside or aliases)[0].start_mark.line + 1
    return Shared(name, anchor_line, alias_line)


# --- writing: appends spliced into the text -------------------------------------------------


class NotSpliceable(Exception):
    """The addition cannot be spliced exactly (flow style, empty block, …): dump instead."""


@dataclass(frozen=True)
class Append:
    """New entries at the end of the container reached by ``path``.

    ``path`` indexes the node tree: in a mapping, the position of a pair; in a sequence, the
    position of an item. ``pairs`` extend a mapping, ``items`` extend a sequence.
    """

    path: tuple[int, ...]
    pairs: tuple[tuple[Any, Any], ...] = ()
    items: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Style:
    """The file's block indentation, so that what we add looks like what the writer wrote."""

    map_indent: int = 2  # a nested mapping's keys, relative to its parent key
    seq_offset: int = 2  # a sequence's '-', relative to the key that holds it
    dash_width: int = 2  # from '-' to the item's content


def guess_style(root: Node | None) -> Style:
    """The most common block indentation in the file (the spec's own style when in doubt)."""
    maps: Counter[int] = Counter()
    offsets: Counter[int] = Counter()
    dashes: Counter[int] = Counter()
    stack = [root] if root is not None else []
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, MappingNode):
            for key, value in node.value:
                stack.append(value)
                if node.flow_style:
                    continue
                if isinstance(value, MappingNode) and value.value and not value.flow_style:
                    child = value.value[0][0]
                    if child.start_mark.line > key.start_mark.line:
                        maps[child.start_mark.column - key.start_mark.column] += 1
                elif (
                    isinstance(value, SequenceNode)
                    and value.value
                    and not value.flow_style
                    and value.start_mark.line > key.start_mark.line
                ):
                    offsets[value.start_mark.column - key.start_mark.column] += 1
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)
            if node.value and not node.flow_style:
                first = node.value[0]
                if first.start_mark.line == node.start_mark.line:
                    dashes[first.start_mark.column - node.start_mark.column] += 1
    return Style(
        map_indent=_most_common(maps, 2, range(2, 10)),
        seq_offset=_most_common(offsets, 2, range(0, 10)),
        dash_width=_most_common(dashes, 2, range(2, 10)),
    )


def _most_common(counts: Counter[int], default: int, allowed: range) -> int:
    for value, _ in counts.most_common():
        if value in allowed:
            return value
    return default


def splice(text: str, root: Node | None, appends: Sequence[Append], style: Style) -> str:
    """``text`` with each append's entries inserted where its container ends.

    A block container grows by lines after its last line, in the file's indentation; a flow
    container (``{…}``, ``[…]``) grows by entries after its last entry, in flow style, so a
    comment inside it stays where it is; a key with nothing after it, or with an empty ``{}`` /
    ``[]`` in block context, grows into a block under the key. Nothing else changes by a byte.
    """
    if root is None:
        raise NotSpliceable("empty document")
    newline = "\r\n" if "\r\n" in text else "\n"
    edits: list[tuple[int, int, int, str]] = []  # (start, end, depth, replacement)
    done: set[int] = set()
    for append in appends:
        key, node = _resolve(root, append.path)
        if id(node) in done:  # one node reached twice through an alias: it changed once
            continue
        done.add(id(node))
        depth = len(append.path)
        if isinstance(node, (MappingNode, SequenceNode)) and node.value and node.flow_style:
            pos = _last_entry_end(text, node)
            edits.append((pos, pos, depth, ", " + _render_flow(append)))
            continue
        if isinstance(node, (MappingNode, SequenceNode)) and not node.value:
            close = int(node.end_mark.index) - 1
            if key is None or not _block_key_value(text, key, node):
                if text[close : close + 1] not in ("}", "]"):
                    raise NotSpliceable("an empty collection without its bracket")
                edits.append((close, close, depth, _render_flow(append)))
                continue
            # `key: {}` or `key: []` in block context: the empty value becomes a block
            edits.append((close - 1, close + 1, depth, ""))
            node = _EMPTY
        if node is _EMPTY or (isinstance(node, ScalarNode) and node.value == "" and is_plain(node)):
            if key is None:
                raise NotSpliceable("an empty value outside a mapping")
            pos = _line_after(text, _content_end(text, key))
            block = _render_under(key.start_mark.column, append, style)
        else:
            pos = _line_after(text, _content_end(text, node))
            block = _render_append(text, node, append, style)
        if pos == len(text) and text and not text.endswith("\n"):
            block = "\n" + block
        edits.append((pos, pos, depth, block.replace("\n", newline)))
    # Deeper blocks first at the same position: a quote's receipt precedes its source's next key.
    for start, stop, _, block in sorted(edits, key=lambda e: (-e[0], e[2])):
        text = text[:start] + block + text[stop:]
    return text


_EMPTY = ScalarNode(TAG_NULL, "")  # marks an empty collection that grows into a block


def _resolve(root: Node, path: Sequence[int]) -> tuple[ScalarNode | None, Node]:
    """The node at ``path``, with its key when it is the value of a mapping pair."""
    node, key = root, None
    for index in path:
        if isinstance(node, MappingNode):
            key, node = node.value[index]
        elif isinstance(node, SequenceNode):
            key, node = None, node.value[index]
        else:
            raise NotSpliceable("path runs through a scalar")
    return key if isinstance(key, ScalarNode) else None, node


def _block_key_value(text: str, key: ScalarNode, value: Node) -> bool:
    """Whether ``value`` is the whole value of a block ``key:`` line (only a comment after)."""
    if key.start_mark.line != value.end_mark.line:
        return False
    line_start = text.rfind("\n", 0, key.start_mark.index) + 1
    before = text[line_start : key.start_mark.index]
    if before.strip(" -"):  # the key is inside a flow collection
        return False
    if text[value.start_mark.index : value.end_mark.index] not in ("{}", "[]"):
        return False  # spaces or comments inside the brackets, an anchor or a tag: keep them
    rest = text[value.end_mark.index : _line_after(text, value.end_mark.index)]
    return not rest.strip() or rest.strip().startswith("#")


def _content_end(text: str, node: Node, after: int = -1) -> int:
    """Index just after the last character that belongs to the node (not comments after it).

    ``after`` is where this occurrence of the node can start at the earliest: a node that
    starts before it is an alias (``*name``), whose marks are those of its anchor.
    """
    if node.start_mark.index < after:
        return _alias_end(text, after)
    if isinstance(node, (MappingNode, SequenceNode)) and node.value and not node.flow_style:
        return _last_entry_end(text, node)
    end = int(node.end_mark.index)
    if isinstance(node, ScalarNode) and node.style in ("|", ">"):
        # a block scalar owns its trailing line breaks (kept by `|+`): end on its last line
        return end - 1 if end > 0 and text[end - 1] == "\n" else end
    while end > 0 and text[end - 1] in " \t\r\n":
        end -= 1
    return end


def _last_entry_end(text: str, node: Node) -> int:
    """The content end of a collection's last entry (its key and value, or its item)."""
    last = node.value[-1]
    if isinstance(last, tuple):
        key, value = last
        key_end = _content_end(text, key)
        return max(key_end, _content_end(text, value, key_end))
    previous = node.start_mark.index
    if len(node.value) > 1 and last.start_mark.index < node.value[-2].start_mark.index:
        previous = _content_end(text, node.value[-2])  # the last item is an alias
    return max(node.start_mark.index + 1, _content_end(text, last, previous))


def _alias_end(text: str, at: int) -> int:
    """The end of the ``*name`` that is the next token from ``at`` (after ``:``, ``,``, ``-``)."""
    i = at
    while i < len(text):
        ch = text[i]
        if ch == "#":
            i = _line_after(text, i)
        elif ch in " \t\r\n,:-?[{":
            i += 1
        elif ch == "*":
            j = i + 1
            while j < len(text) and text[j] not in " \t\r\n,[]{}":
                j += 1
            return j
        else:
            break
    raise NotSpliceable("an alias whose place in the text was not found")


def _line_after(text: str, index: int) -> int:
    newline = text.find("\n", index)
    return len(text) if newline < 0 else newline + 1


def _render_flow(append: Append) -> str:
    """The append's entries in flow style on one line, without the brackets around them."""
    data: Any = dict(append.pairs) if append.pairs else list(append.items)
    if not data:
        raise NotSpliceable("nothing to append")
    text: str = yaml.dump(
        data,
        Dumper=_FlowDumper,
        default_flow_style=True,
        sort_keys=False,
        allow_unicode=True,
        width=1 << 30,
    )
    text = text.strip()
    if "\n" in text or text[:1] not in ("{", "[") or text[-1:] not in ("}", "]"):
        raise NotSpliceable("a value that does not fit on one flow line")
    return text[1:-1]


class _FlowDumper(yaml.SafeDumper):
    """Flow style on one line: a string with line breaks is double-quoted (``\\n`` escapes)."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = '"' if any(c in value for c in "\n\r\x85\u2028\u2029") else None
    return dumper.represent_scalar(TAG_STR, value, style=style)


_FlowDumper.add_representer(str, _represent_str)


def _render_under(column: int, append: Append, style: Style) -> str:
    """The append as a block nested under a key at ``column`` that has no value yet."""
    if append.pairs:
        indent = column + style.map_indent
        return _indent(render_block(dict(append.pairs), style), indent, indent)
    dash = column + style.seq_offset
    return _render_items(append.items, dash, dash + style.dash_width, style)


def _render_append(text: str, node: Node, append: Append, style: Style) -> str:
    if append.pairs:
        if not isinstance(node, MappingNode) or node.flow_style or not node.value:
            raise NotSpliceable("mapping is empty or in flow style")
        column = node.value[0][0].start_mark.column
        body = render_block(dict(append.pairs), style)
        return _indent(body, column, column)
    if append.items:
        if not isinstance(node, SequenceNode) or node.flow_style or not node.value:
            raise NotSpliceable("sequence is empty or in flow style")
        first = node.value[0]
        at = _dash_before(text, first)  # not the sequence's mark: that is its &anchor's
        dash = at - (text.rfind("\n", 0, at) + 1)
        if "\n" not in text[at : first.start_mark.index]:
            content = first.start_mark.column
        else:
            content = dash + style.dash_width
        return _render_items(append.items, dash, content, style)
    raise NotSpliceable("nothing to append")


_COMMENT = re.compile(r"(?:^|[ \t])#")


def _dash_before(text: str, item: Node) -> int:
    """The index of the ``-`` that introduces a block sequence's item.

    Between the dash and its item there can be only blanks and comments (``-  # note`` with the
    item on a later line): each line is read back without its comment until one holds the dash.
    """
    end = int(item.start_mark.index)  # the part of the item's own line before it, first
    while end > 0:
        start = text.rfind("\n", 0, end) + 1
        line = text[start:end]
        comment = _COMMENT.search(line)
        before = (line[: comment.start()] if comment else line).rstrip(" \t\r")
        if before:
            if not before.endswith("-"):
                break
            return start + len(before) - 1
        end = start - 1  # the line above, without its line break
    raise NotSpliceable("a block sequence item without its dash")


def _render_items(items: Sequence[Any], dash: int, content: int, style: Style) -> str:
    lead = " " * dash + "-" + " " * max(1, content - dash - 1)
    out = []
    for item in items:
        if isinstance(item, Mapping) and item:
            body = render_block(dict(item), style)
        else:  # render as a one-item list and drop its own '- '
            body = "".join(
                line[2:] for line in render_block([item], style).splitlines(keepends=True)
            )
        first_line, _, rest = body.partition("\n")
        out.append(lead + first_line + "\n" + _indent(rest, content, content))
    return "".join(out)


def _indent(body: str, first: int, rest: int) -> str:
    lines = body.splitlines(keepends=True)
    return "".join(
        (" " * (first if i == 0 else rest) + line) if line.strip() else line
        for i, line in enumerate(lines)
    )


def render_block(data: Any, style: Style) -> str:
    """``data`` as block YAML at column 0, in the file's indentation, one scalar per line."""
    if _flat(data):  # no nesting, so no indentation to choose: libyaml's emitter, 10x faster
        return _dump(data, Dumper=_FastDumper, indent=style.map_indent)
    if _list_of_flat(data):  # `receipts:` and its items, each flat, in the file's indentation
        ((key, items),) = data.items()
        head = _dump({key: None}, Dumper=_FastDumper)
        if not head.endswith(": null\n") or "\n" in head[:-1]:
            raise NotSpliceable("a key that does not fit on one line")
        head = head[: -len(" null\n")] + "\n"
        dash = style.seq_offset
        return head + _render_items(items, dash, dash + style.dash_width, style)
    dumper = _OffsetDumper if style.seq_offset > 0 else Dumper
    text: str = yaml.dump(
        data,
        Dumper=dumper,
        default_flow_style=False,
        sort_keys=False,
        allow_unicode=True,
        width=1 << 20,
        indent=style.map_indent,
    )
    return text


#: The C emitter, where PyYAML has it; it emits a flat mapping as the pure one does (tested).
_FastDumper: type = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_SCALARS = (str, int, float, bool, type(None), _dt.date)


def _flat(data: Any) -> bool:
    """A mapping of scalars (a receipt without lists, most of them) in which libyaml and the
    pure emitter agree: printable characters of the Basic Multilingual Plane (libyaml escapes
    the others, where the pure emitter writes them as they are)."""
    return isinstance(data, dict) and all(
        isinstance(v, _SCALARS) and _plain_text(k) and (not isinstance(v, str) or _plain_text(v))
        for k, v in data.items()
    )


def _plain_text(text: Any) -> bool:
    # max() compares in C: a character-by-character generator cost seconds a 2,000-source run
    return isinstance(text, str) and text.isprintable() and (not text or max(text) < "\uffff")


def _list_of_flat(data: Any) -> bool:
    """One key holding a list of flat mappings (a quote's first receipts)."""
    if not (isinstance(data, dict) and len(data) == 1):
        return False
    ((_, items),) = data.items()
    return isinstance(items, list) and bool(items) and all(_flat(i) and i for i in items)


def _dump(data: Any, **options: Any) -> str:
    text: str = yaml.dump(
        data,
        default_flow_style=False,
        sort_keys=False,
        allow_unicode=True,
        width=1 << 20,
        **options,
    )
    return text


class _OffsetDumper(yaml.SafeDumper):
    """Sequences indented under their key (``key:\\n  - item``), like the format's examples."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


# --- plain data, for comparing and for applying appends to a loaded document ----------------


def plain(value: Any) -> Any:
    """A loaded document (PyYAML or ruamel round-trip types) as plain dicts, lists, scalars."""
    if isinstance(value, Mapping):
        return {plain(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return bool(value) if type(value).__name__ == "ScalarBoolean" else int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, _dt.datetime):
        return value.isoformat()
    if isinstance(value, _dt.date):
        return value.isoformat()
    return value


def apply_appends(
    doc: Any,
    appends: Sequence[Append],
    convert: Callable[[Any], Any] | None = None,
    prepare: Callable[[Any], None] | None = None,
) -> None:
    """Apply ``appends`` to a loaded document in place (same paths as :func:`splice`).

    ``convert`` turns each new value into the document's own types; ``prepare`` sees each
    target container before it grows (a round-trip dump uses it to keep new blocks in block
    style).
    """
    done: set[int] = set()
    for append in appends:
        target = doc
        for index in append.path:
            target = target[list(target)[index]] if isinstance(target, Mapping) else target[index]
        if id(target) in done:
            continue
        done.add(id(target))
        if prepare is not None:
            prepare(target)
        for key, value in append.pairs:
            if key in target:
                raise NotSpliceable(f"key {key!r} already present")
            target[key] = convert(value) if convert else value
        for item in append.items:
            target.append(convert(item) if convert else item)


def plan_appends(old: Any, new: Any, path: tuple[int, ...] = ()) -> list[Append]:
    """The appends that turn ``old`` into ``new`` (plain data), or NotSpliceable if other edits."""
    if isinstance(old, dict):
        if not isinstance(new, dict):
            raise NotSpliceable("a mapping was replaced")
        old_keys, new_keys = list(old), list(new)
        if new_keys[: len(old_keys)] != old_keys:
            raise NotSpliceable("keys were removed or reordered")
        out: list[Append] = []
        for i, key in enumerate(old_keys):
            out += plan_appends(old[key], new[key], (*path, i))
        if len(new_keys) > len(old_keys):
            added = tuple((k, new[k]) for k in new_keys[len(old_keys) :])
            out.append(Append(path, pairs=added))
        return out
    if isinstance(old, list):
        if not isinstance(new, list) or len(new) < len(old):
            raise NotSpliceable("a list was replaced or shortened")
        out = []
        for i, item in enumerate(old):
            out += plan_appends(item, new[i], (*path, i))
        if len(new) > len(old):
            out.append(Append(path, items=tuple(new[len(old) :])))
        return out
    if type(old) is not type(new) or old != new:
        raise NotSpliceable("a value was changed")
    return []


# --- writing: a round-trip document that cannot change what it did not touch ----------------


def round_trip(style: Style) -> Any:
    """ruamel.yaml in round-trip mode that reads every existing scalar as its text.

    ruamel resolves plain scalars by YAML 1.2 and re-renders what it took for a number from
    the number (``0…0e0`` comes back as ``0…0e-60``); citeledger reads the ledger by YAML 1.1.
    Reading every scalar but null as text means what the writer typed is written back as typed.
    New values are given their YAML 1.1 form by :func:`for_round_trip`.
    """
    from ruamel.yaml import YAML  # only writers pay for importing it

    rt = YAML(typ="rt")
    rt.Resolver = _text_resolver()
    rt.preserve_quotes = True
    rt.width = 1 << 20
    rt.indent(
        mapping=style.map_indent,
        sequence=style.seq_offset + style.dash_width,
        offset=style.seq_offset,
    )
    return rt


_TEXT_RESOLVER: Any = None


def _text_resolver() -> Any:
    """A ruamel resolver that reads every plain scalar as text, except null."""
    global _TEXT_RESOLVER
    if _TEXT_RESOLVER is None:
        from ruamel.yaml.nodes import ScalarNode as RuamelScalar
        from ruamel.yaml.resolver import VersionedResolver
        from ruamel.yaml.tag import Tag

        null = Tag(suffix="tag:yaml.org,2002:null")

        class TextResolver(VersionedResolver):
            def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
                if kind is RuamelScalar and implicit[0]:
                    return null if value in _NULL_FORMS else self.DEFAULT_SCALAR_TAG
                return super().resolve(kind, value, implicit)

        _TEXT_RESOLVER = TextResolver
    return _TEXT_RESOLVER


def for_round_trip(value: Any) -> Any:
    """A new plain value as ruamel objects that a YAML 1.1 reader reads back as ``value``."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.scalarstring import PlainScalarString, ScalarString, SingleQuotedScalarString

    if isinstance(value, Mapping):
        out = CommentedMap()
        for key, item in value.items():
            out[for_round_trip(key)] = for_round_trip(item)
        return out
    if isinstance(value, (list, tuple)):
        return CommentedSeq(for_round_trip(item) for item in value)
    if value is None or isinstance(value, ScalarString):
        return value
    if isinstance(value, str):
        return SingleQuotedScalarString(value) if _needs_quotes(value) else value
    if isinstance(value, (bool, int, float, _dt.date)):
        text = yaml.safe_dump(value, default_flow_style=True).strip()
        return PlainScalarString(text.removesuffix("...").strip())
    raise LedgerError(f"cannot write a {type(value).__name__} into the ledger")


def _needs_quotes(value: str) -> bool:
    """Whether a YAML 1.1 reader needs ``value`` quoted (ruamel judges plain by YAML 1.2)."""
    if _RESOLVER.resolve(ScalarNode, value, (True, False)) != TAG_STR:  # type: ignore[no-untyped-call]
        return True  # it would read as a number, a date, a boolean, null…
    emitted = yaml.safe_dump([value], default_flow_style=True, allow_unicode=True, width=1 << 20)
    return bool(emitted != f"[{value}]\n")  # PyYAML would not write it plain, even in a list


def rt_load(rt: Any, text: str, name: str) -> Any:
    """Load ``text`` as a round-trip document; a parse failure is a :class:`LedgerError`."""
    from ruamel.yaml.error import YAMLError

    try:
        return rt.load(text)
    except YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise LedgerError(
            f"cannot edit the ledger: {getattr(e, 'problem', None) or e}",
            file=name,
            line=mark.line + 1 if mark is not None else None,
            fix="simplify the YAML on this line",
        ) from None


def rt_dump(rt: Any, doc: Any) -> str:
    """The round-trip document as text."""
    out = io.StringIO()
    rt.dump(doc, out)
    return out.getvalue()


def scalar_ids(doc: Any) -> set[int]:
    """Identities of the scalars as loaded, to tell the writer's values from new ones."""
    ids: set[int] = set()
    stack = [doc]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            for key, value in item.items():
                ids.add(id(key))
                stack.append(value)
        elif isinstance(item, list):
            stack.extend(item)
        else:
            ids.add(id(item))
    return ids


def convert_new(doc: Any, old: set[int]) -> Any:
    """Give every value an edit put into ``doc`` its round-trip form (in place where possible).

    ``old`` holds the identities of the scalars as loaded (:func:`scalar_ids`): those are the
    writer's text and stay as they are.
    """
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(doc, CommentedMap):
        for key in list(doc):
            doc[key] = convert_new(doc[key], old)
        return doc
    if isinstance(doc, CommentedSeq):
        for i, item in enumerate(doc):
            doc[i] = convert_new(item, old)
        return doc
    if id(doc) in old and not isinstance(doc, (Mapping, list)):
        return doc
    return for_round_trip(doc)
