"""Text from outside made inert: control characters and bidi overrides as visible escapes.

Retrieved pages, text files and ledgers can hold what a channel obeys instead of showing: an
``ESC ] 0;… BEL`` sets a terminal's title and ``ESC [ 2K`` erases a line; a C0 control is not
allowed in XML 1.0 (``word/document.xml`` stops being well-formed) and stops pdflatex; a bidi
override (U+202A–202E, U+2066–2069) reorders what a reader sees. Everything that shows such
text to a person — every terminal and stderr line, the words of every callout and audit row —
passes through ``visible`` first: each such character is written out as an escape (``\\x1b``,
``\\u202e``), so a reader still sees that it was there and nothing acts on it.

One function for every channel, so that no channel is forgotten: on a terminal a carriage
return (which rewrites the line) is escaped like the rest; only tab and newline pass. Messages
meant as one line are made so by their writers (``CiteledgerError.one_line``). Pure: no I/O.
"""

from __future__ import annotations

import re

# C0 controls but tab and newline; DEL and the C1 controls (0x9b is a one-byte CSI); the bidi
# embeddings, overrides and isolates; lone surrogates and the two noncharacters XML forbids.
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]"
)


def _escape(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every control character and bidi override written out as an escape."""
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_escape, text)
