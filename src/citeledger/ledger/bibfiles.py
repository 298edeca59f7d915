"""The files a reference manager attached to a BibTeX entry: its ``file`` field, read raw.

pandoc's BibTeX reader drops ``file``, so ``import`` reads it here from the .bib text itself:
just each entry's key and its ``file`` field, nothing else. The forms written in the wild:

- JabRef / BibTeX: ``file = {:papers/a.pdf:PDF}``, ``{Description:papers/a.pdf:application/pdf}``,
  several separated by ``;``, with ``\\:`` and ``\\;`` for a colon or semicolon in a name;
- Zotero / Better BibTeX: ``file = {/abs/path/a.pdf}`` (several separated by ``;``) or
  ``{Full Text PDF:files/12/a.pdf:application/pdf}``;
- Mendeley: ``file = {:C$\\backslash$:/Users/a/a.pdf:pdf}`` (LaTeX-escaped, and on Linux and
  macOS without the leading ``/``: ``{:home/a/a.pdf:pdf}``).

Pure: text in, values out; it never reads a file, never raises on a malformed entry (the entry is
skipped; pandoc's reader is the one that judges the bibliography).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ENTRY = re.compile(r"@\s*([A-Za-z]+)\s*([{(])")
_NOT_ENTRIES = frozenset({"comment", "string", "preamble"})
_NAME = re.compile(r"[^\s=,{}()\"#]+")
_BARE = re.compile(r"[^\s,}#)]+")


@dataclass(frozen=True)
class Attached:
    """One file attached to an entry: the path as the manager wrote it, its description and
    its type (``PDF``, ``application/pdf``, ``pdf``; empty when the manager wrote none)."""

    path: str
    description: str = ""
    type: str = ""

    @property
    def is_pdf(self) -> bool:
        return "pdf" in self.type.lower() or self.path.lower().endswith(".pdf")


@dataclass(frozen=True)
class FileField:
    """An entry's raw ``file`` field and the line it starts on (1-based)."""

    key: str
    value: str
    line: int

    @property
    def attached(self) -> tuple[Attached, ...]:
        return parse_file_field(self.value)


def file_fields(text: str) -> dict[str, FileField]:
    """Citation key → its ``file`` field, for every entry of a .bib text that has one.

    The first entry of a key wins (as the import keeps the first of two entries).
    """
    found: dict[str, FileField] = {}
    pos = 0
    while True:
        m = _ENTRY.search(text, pos)
        if m is None:
            return found
        kind, opener = m.group(1).lower(), m.group(2)
        closer = "}" if opener == "{" else ")"
        pos = m.end()
        if kind in _NOT_ENTRIES:
            # its whole body, balanced: an entry commented out inside it is not read (pandoc
            # does not read it either, and a key's first entry wins here)
            pos = _past_balanced(text, m.end() - 1, opener, closer) or pos
            continue
        parsed = _entry(text, pos, closer)
        if parsed is None:
            continue  # malformed: resume after its '@' (pandoc says what is wrong with it)
        key, fields, end = parsed
        pos = end
        value = fields.get("file")
        if key and value is not None and key not in found:
            found[key] = FileField(key, value[0], text.count("\n", 0, value[1]) + 1)


def _past_balanced(text: str, at: int, opener: str, closer: str) -> int | None:
    """Just past the ``closer`` matching the ``opener`` at ``at``, or None if it never closes."""
    depth = 0
    for i in range(at, len(text)):
        c = text[i]
        if c == opener:
            depth += 1
        elif c == closer:
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def _entry(text: str, pos: int, closer: str) -> tuple[str, dict[str, tuple[str, int]], int] | None:
    """The key and fields (name → value, offset) of the entry whose body starts at ``pos``."""
    comma = text.find(",", pos)
    end_now = text.find(closer, pos)
    if comma < 0 or (0 <= end_now < comma):
        return None
    key = text[pos:comma].strip()
    if not key or any(c.isspace() for c in key):
        return None
    fields: dict[str, tuple[str, int]] = {}
    i = comma + 1
    n = len(text)
    while True:
        while i < n and (text[i].isspace() or text[i] == ","):
            i += 1
        if i >= n:
            return None
        if text[i] == closer:
            return key, fields, i + 1
        name = _NAME.match(text, i)
        if name is None:
            return None
        i = name.end()
        while i < n and text[i].isspace():
            i += 1
        if i >= n or text[i] != "=":
            return None
        i += 1
        parts: list[str] = []
        start = i
        while True:
            while i < n and text[i].isspace():
                i += 1
            start = start if parts else i
            got = _value(text, i)
            if got is None:
                return None
            part, i = got
            parts.append(part)
            j = i
            while j < n and text[j].isspace():
                j += 1
            if j < n and text[j] == "#":
                i = j + 1
                continue
            break
        fields.setdefault(name.group(0).lower(), ("".join(parts), start))


def _value(text: str, i: int) -> tuple[str, int] | None:
    """One value at ``i``: ``{…}`` (balanced), ``"…"`` (braces inside balanced) or a bare word."""
    n = len(text)
    if i >= n:
        return None
    if text[i] in '{"':
        close = "}" if text[i] == "{" else '"'
        depth = 0
        j = i + 1
        while j < n:
            c = text[j]
            if c == "\\" and j + 1 < n:
                j += 2
                continue
            if c == "{":
                depth += 1
            elif c == "}":
                if depth == 0 and close == "}":
                    return text[i + 1 : j], j + 1
                depth -= 1
                if depth < 0:
                    return None
            elif c == '"' and close == '"' and depth == 0:
                return text[i + 1 : j], j + 1
            j += 1
        return None
    bare = _BARE.match(text, i)
    if bare is None:
        return None
    return "", bare.end()  # a number or a @string name: never a file's path


_LATEX = (
    ("$\\backslash$", "\\"),
    ("{\\textbackslash}", "\\"),
    ("\\textbackslash{}", "\\"),
    ("{\\_}", "_"),
    ("\\_", "_"),
    ("{\\&}", "&"),
    ("\\&", "&"),
    ("{\\%}", "%"),
    ("\\%", "%"),
    ("{\\#}", "#"),
    ("\\#", "#"),
    ("{\\$}", "$"),
    ("\\$", "$"),
    ("{\\~}", "~"),
    ("\\~{}", "~"),
)


def _unlatex(value: str) -> str:
    for escaped, plain in _LATEX:
        value = value.replace(escaped, plain)
    return value


def _split(value: str, sep: str) -> list[str]:
    """Split on ``sep`` not escaped by a backslash; ``\\:``, ``\\;`` and ``\\\\`` unescaped."""
    parts: list[str] = []
    cur: list[str] = []
    i = 0
    while i < len(value):
        c = value[i]
        if c == "\\" and i + 1 < len(value) and value[i + 1] in ":;\\":
            cur.append(c + value[i + 1])  # kept escaped for the inner split
            i += 2
            continue
        if c == sep:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    parts.append("".join(cur))
    return parts


def _unescape(value: str) -> str:
    return re.sub(r"\\([:;\\])", r"\1", value)


def _is_drive(part: str, rest: str) -> bool:
    return len(part) == 1 and part.isalpha() and rest[:1] in ("/", "\\")


def parse_file_field(value: str) -> tuple[Attached, ...]:
    """Every file of a ``file`` field, in the order written (empty paths left out)."""
    out: list[Attached] = []
    for item in _split(_unlatex(value), ";"):
        item = item.strip()
        if not item:
            continue
        parts = _split(item, ":")
        # a Windows drive written without escaping (``Full Text:C:/a.pdf:application/pdf``)
        merged: list[str] = []
        for part in parts:
            if merged and _is_drive(merged[-1].strip(), part):
                merged[-1] = merged[-1].strip() + ":" + part
            else:
                merged.append(part)
        if len(merged) == 1:
            desc, path, kind = "", merged[0], ""
        elif len(merged) == 2:
            desc, path, kind = merged[0], merged[1], ""
        else:
            desc, path, kind = merged[0], ":".join(merged[1:-1]), merged[-1]
        path = _unescape(path).strip()
        if path:
            out.append(Attached(path, _unescape(desc).strip(), _unescape(kind).strip()))
    return tuple(out)
