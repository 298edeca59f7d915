"""Citations written as raw TeX or typst commands: printed to the reader, yet no ``Cite``.

``\\citep[p.~4]{key}`` in Markdown, a raw LaTeX figure whose caption says ``\\cite{key}``, or
typst's ``#cite(<key>)`` is formatted by natbib, biblatex or typst, so a reader sees a citation
that no check can cover: the walk (``citations``) records each as a breakdown, and the sentence
splitter (``sentences``) counts it as declared provenance. One grammar for both, here.

This module is pure: no I/O, nothing about pandoc's AST beyond a raw element's format and text.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from citeledger.build.crossref import is_crossref

# the raw formats whose citation commands a reader sees printed (pandoc passes them through)
_TEX_FORMATS = frozenset({"tex", "latex", "beamer", "context"})
_TYPST_FORMATS = frozenset({"typst"})
# \cite, \citep, \citet*, \citeauthor, \parencite, \textcite, \autocite, \footcite, \Cite…;
# not the filter's own ``\citeledger…`` macros, nor ``\nocite`` (it prints nothing at the claim)
_TEX_COMMAND = re.compile(r"\\(?!citeledger|nocite\b)([A-Za-z]*cite[A-Za-z]*)\*?")
_TEX_OPTION = re.compile(r"\s*(?:\[[^\]]*\]|\([^)]*\))")  # [pre] [post], biblatex's (…)
_TEX_KEYS = re.compile(r"\s*\{([^{}]*)\}")
# typst: #cite(<key>), #cite(label("key")), and a reference @key in typst markup
_TYPST_CITE = re.compile(r'#cite\(\s*(?:<([^<>\s]+)>|label\(\s*"([^"]+)"\s*\))')
_TYPST_REF = re.compile(r"(?<![\w@#<])@([\w][\w:.\-/]*\w|\w)")
_RAW_KEY = re.compile(r"[^\s{}\\,]+")


class RawCitation(NamedTuple):
    key: str
    command: str  # the command as written, to show the writer what to replace


def raw_element_citations(content: object, prefixes: tuple[str, ...] = ()) -> list[RawCitation]:
    """``raw_citations`` of a RawInline's or RawBlock's content (``[format, text]`` in pandoc's
    JSON); none for any other shape: the one reading of a raw element, for the walk, the
    splitter and the re-run's undo."""
    if not (isinstance(content, list) and len(content) == 2):
        return []
    fmt, text = content
    if not (isinstance(fmt, str) and isinstance(text, str)):
        return []
    return raw_citations(fmt, text, prefixes)


def raw_citations(fmt: str, text: str, prefixes: tuple[str, ...] = ()) -> list[RawCitation]:
    """The citations written as raw TeX or typst commands (``\\citep[p.~4]{key}``,
    ``#cite(<key>)``): printed to the reader, yet no ``Cite`` — so nothing can check them."""
    fmt = fmt.lower()
    found: list[RawCitation] = []
    if fmt in _TEX_FORMATS:
        if "cite" not in text:
            return found
        for m in _TEX_COMMAND.finditer(text):
            at, keys = m.end(), []
            while True:  # \cites[…]{a}[…]{b}: each group its keys
                while (option := _TEX_OPTION.match(text, at)) is not None:
                    at = option.end()
                group = _TEX_KEYS.match(text, at)
                if group is None:
                    break
                at = group.end()
                keys += [k.strip() for k in group.group(1).split(",")]
                if not m.group(1).endswith("cites"):
                    break
            command = text[m.start() : at]
            found += [RawCitation(k, command) for k in keys if _RAW_KEY.fullmatch(k)]
    elif fmt in _TYPST_FORMATS:
        if "#cite" in text:
            for m in _TYPST_CITE.finditer(text):
                key = m.group(1) or m.group(2)
                found.append(RawCitation(key, f"#cite(<{key}>)"))
        if "@" in text:
            for m in _TYPST_REF.finditer(text):
                if not is_crossref(m.group(1), prefixes):  # a cross-reference (@fig-x)
                    found.append(RawCitation(m.group(1), m.group(0)))
    return found


def raw_problem(fmt: str, raw: RawCitation) -> str:
    """Why a raw citation is a breakdown, and what to write instead."""
    kind = "typst" if fmt.lower() in _TYPST_FORMATS else "TeX"
    return (
        f"This citation is raw {kind} ({raw.command}), which citeledger cannot read, so nothing "
        f"checks it: write it as [@{raw.key}] (citeproc, natbib or biblatex still format it)."
    )
