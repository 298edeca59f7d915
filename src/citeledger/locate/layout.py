"""Lines a PDF's layout sets inside a sentence: a footnote marker, a figure and its caption.

A PDF's text puts a footnote's marker on a line of its own ("signed into law by\\n1\\nPresident
Clinton"), and a figure's axis labels and caption between two lines of one sentence ("two 160GB
IDE\\n20 40 60 80 100\\nSeconds\\n…\\nFigure 2: Data transfer rate over time\\ndisks, and a"). A
reader skips them; a quote that leaves them out is honest (docs/editorial-marks.md, "Lines of
the layout"). Each is recognised by its shape alone, between two lines of running prose, so that
no number of the prose itself can be skipped.

Must never: skip anything but whole lines; skip a line whose neighbours are not prose lines of
one sentence (the line before ends in a word, not a sentence's end).
"""

from __future__ import annotations

import itertools
import re

from citeledger.locate.wordlists import NUMBER_PHRASE_ENDS

PROSE_LINE = 30  # characters: a line of running text, not a table cell or an axis label
LABEL_LINE = 25  # characters: at most, a figure's axis label or tick values

# the line before goes on: it ends with a word or a comma, no sentence end (read on its end
# only: a paragraph extracted from HTML is one line of thousands of characters)
_GOES_ON = re.compile(r"[\w,]$")
# ... and before a marker, with a word of two letters or more: after "R" or "x" the digit is
# a power or an index the extraction set on its own line ("R\n2\nstimmt" is R², not R)
_BEFORE_MARKER = re.compile(r"(?:^|\s)[^\W\d_]{2,}$")
MARKER_TAIL = 40  # characters of the line before a marker read for its last word
_MARKER = re.compile(r"[1-9][0-9]?|[*\u2020\u2021]")
# a figure's label: tick values, or a word with a capital ("Seconds", "Input (MB/s)", "(a)"),
# never a line of prose in lower case ("leader.", "recalled began")
_LABEL = re.compile(r"[\d\s.,\-\u2212%()]+|\(?[A-Z0-9][^\n]*")
_CAPTION = re.compile(r"(?:Figure|Fig\.|Table)\s+\d+[.:]\s+\S[^\n]*")


_WORDS = re.compile(r"[^\W_]+")


def joined_words(text: str, ranges: list[tuple[int, int]]) -> frozenset[tuple[str, str]]:
    """The words, in lower case, that setting each range aside puts side by side (the last of
    the line before, the first of the line after): a quote that holds no such pair in a row
    runs across none of them, and need not be looked for again without them."""
    out = set()
    for a, b in ranges:
        before = _WORDS.findall(text[max(0, a - 40) : a])
        after = _WORDS.findall(text[b : b + 40])
        if before and after:
            out.add((before[-1].lower(), after[0].lower()))
    return frozenset(out)


def bridges(quote: str, joined: frozenset[tuple[str, str]]) -> bool:
    """Whether ``quote`` holds, in a row, two words that a set-aside range put side by side."""
    words = [w.lower() for w in _WORDS.findall(quote)]
    return any(pair in joined for pair in itertools.pairwise(words))


def _caption_ends(caption: str, prose: str) -> bool:
    """Whether a caption ends on its line: shorter than the prose line before (a full line
    may wrap) and not ending with a hyphen or a word that goes on ("and", "of", "the")."""
    words = caption.split()
    return (
        len(caption.strip()) < len(prose.strip())
        and not caption.rstrip().endswith(("-", "\u00ad"))
        and words[-1].lower() not in NUMBER_PHRASE_ENDS
    )


# the lines that may be set aside, found over the whole text at once: a marker alone on its
# line, and a caption's opening (each after a line break: a literal the search skips to)
_MARKER_LINE = re.compile(r"\n(?P<line>[^\S\n]*(?:[1-9][0-9]?|[*\u2020\u2021])[^\S\n]*)(?=\n)")
_CAPTION_LINE = re.compile(r"\n(?P<line>[^\S\n]*(?:Figure|Fig\.|Table)\s+\d+[.:])")
MAX_LABEL_LINES = 40  # a figure's labels, at most, between the prose line and its caption


def _line(text: str, at: int) -> tuple[int, int]:
    """The start and end (its line break excluded) of the line holding ``text[at]``."""
    end = text.find("\n", at)
    return text.rfind("\n", 0, at) + 1, len(text) if end == -1 else end


def _goes_on(line: str) -> bool:
    """Whether ``line`` is a line of running text that its sentence goes on from."""
    return len(line) >= PROSE_LINE and _GOES_ON.search(line[-2:]) is not None


def interruptions(text: str) -> list[tuple[int, int]]:
    """The ranges of ``text`` (whole lines, their line breaks included) that the layout set
    inside a sentence: a footnote marker alone on its line, or a figure's labels and caption.
    Only the lines a marker's or a caption's pattern finds are looked at."""
    out: list[tuple[int, int]] = []
    for m in _MARKER_LINE.finditer(text):
        a, b = m.span("line")
        before = text[_line(text, a - 1)[0] : a - 1]
        after = text[b + 1 : _line(text, b + 1)[1]]
        if (
            _goes_on(before)
            and _BEFORE_MARKER.search(before[-MARKER_TAIL:])
            and len(after) >= PROSE_LINE
            and after[:1].isalpha()  # not "\f" (a page number) nor ", weil"
        ):
            out.append((a, b + 1))  # "by\n1\nPresident Clinton on …"
    for m in _CAPTION_LINE.finditer(text):
        cs, ce = _line(text, m.start("line"))
        caption = text[cs:ce]
        if not _CAPTION.fullmatch(caption.strip()) or ce >= len(text):
            continue
        first, k = cs, cs  # walk back over the figure's label lines
        for _ in range(MAX_LABEL_LINES):
            if k == 0:
                break
            ls, le = _line(text, k - 1)
            label = text[ls:le]
            if len(label) > LABEL_LINE or not _LABEL.fullmatch(label.strip()):
                break
            first, k = ls, ls
        if k == 0:
            continue
        prose = text[_line(text, k - 1)[0] : k - 1]
        nxt = text[ce + 1 : ce + 2]
        if _goes_on(prose) and _caption_ends(caption, prose) and nxt.islower():
            out.append((first, ce + 1))  # the figure, its caption: the sentence goes on
    out.sort()
    kept: list[tuple[int, int]] = []
    for a, b in out:
        if not kept or a >= kept[-1][1]:
            kept.append((a, b))
    return kept
