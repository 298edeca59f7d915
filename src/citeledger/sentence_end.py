"""The one rule of where a sentence ends, and the one list of abbreviations.

Three readers cut text into sentences: the build (a citation's claim and the coverage measure,
``build.sentences``), the locator reading the source's sentence around a quote
(``locate.context``) and the locator asking whether an omission runs across a sentence end
(``locate.locator``). Two rules drift: a source sentence the locator reads whole and the build
cuts in two, or an abbreviation one of them knows and the other not. So all ask here.

A sentence ends at a terminal mark (``.``, ``!``, ``?``, ``…``, ``‽``), with any further marks
and closing quotes or brackets, followed by space (or the end of the text) and a word that does
not start in lower case (an opening bracket or quote starts one: "(ii) We", "“The"). Not after
an abbreviation's full stop (a listed word, an initial "J.", a dotted one "U.S.", "ph.d."; a
numbering word before a number, "No. 5"); never inside a token ("3.5", "example.com"). A
non-breaking space is a space: pandoc glues a full stop to the next word with one only after
the abbreviations listed here, and a web page puts one after a full stop for the wider gap. A
``HARD_BREAK`` always ends a sentence. A caller may stand ``ATTACHED`` for a character that is
shown but is not prose (a citation, a note mark, code): after a full stop it belongs to the
sentence before, unless the next word is in lower case (then it opens the next one).

Pure: text in, positions out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

TERMINALS = ".!?…‽"
CLOSERS = "\"'”’»)]}"
OPENERS = "\"'([{“‘«"
ATTACHED = "\ufffc"  # a character shown but not prose: a citation, a note mark, code
HARD_BREAK = "\u2029"  # a hard line break: always ends a sentence

# Abbreviations after which a full stop ends no sentence, in lower case without the final dot:
# Latin and citation shorthands, parts of a work, titles, company forms, pandoc's own list (the
# words it glues to the next one with a non-breaking space when it reads Markdown), and the
# German ones of the sources the locator reads ("bzw.", "vgl."). Single letters (initials) and
# dotted short forms ("U.S.", "e.g.", "q.v.") are abbreviations without being listed. Not
# "etc." or "usw.": before a capital they end their sentence far more often than not.
_ABBREVIATION_WORDS = """
    e.g i.e eg ie al cf vs viz ibid cit approx ca resp esp incl ff nn ll aet aetat saec
    fig figs eq eqs sec secs ch chs p pp vol vols ed eds tbl thm def appx mss repr cp trans
    fasc fol fols bk pt
    dr mr mrs ms prof st jr sr capt col gen gov hon pres rep rev sen sgt fr
    inc ltd co corp bros dept univ
    bzw bzgl vgl ggf sog evtl
    """
ABBREVIATIONS = frozenset(_ABBREVIATION_WORDS.split())
# Words that are an abbreviation before a number ("No. 5", "Art. 12", "App. 3", "Jan. 5") and
# a word of their own before anything else: "she said no. The", "the state of the art. We",
# "a mobile app. We", "he was ill. The" end their sentence.
_NUMBERING_WORDS = """
    no nos art app ref refs tab sect chap para paras ex est ill fl
    jan feb mar apr jun jul aug sep sept oct nov dec
    """
NUMBERING = frozenset(_NUMBERING_WORDS.split())
# The abbreviations a full stop after which ends no sentence in any text: each stands before
# what it shortens (a name, a number, an example). The rest of the list are also words, names
# or acronyms ("is trans. The", "auf einem Gen. Es", "with PT. The", "Smith et al. The",
# "in the U.S. The"), so a reader who must not miss a sentence end — the locator asking whether
# an omission runs across one (``cautious``) — counts a full stop after them as one.
_NEVER_ENDING_WORDS = """
    e.g i.e eg ie cf vs viz approx resp fig figs eq eqs pp vol vols tbl thm appx
    dr mr mrs prof capt sgt bzw bzgl vgl ggf evtl
    """
NEVER_ENDING = frozenset(_NEVER_ENDING_WORDS.split())
# a number after a numbering word: digits, or a Roman numeral of two letters or more
_NUMBER = re.compile(r"\s*[\"'(\[\u201c\u2018]*(?:\d|[IVXLC]{2,}\b)")

_WORD_OPENERS = OPENERS + "-_*"  # what may stand before a word: "(e.g", "_Mr"
_WORD_STOPS = ATTACHED + "\u2014\u2013"  # what ends a word before it: a citation, a dash
_DOTTED = re.compile(r"[.-]")
_FOLLOWING = frozenset(ATTACHED + ".,;:")  # what a sentence end may take along after its marks
_CANDIDATE = re.compile("[" + re.escape(TERMINALS + HARD_BREAK) + "]")


def is_abbreviation(word: str, numbered: bool = False, cautious: bool = False) -> bool:
    """Whether a full stop right after ``word`` ends no sentence: a listed abbreviation, an
    initial ("J. R. R. Tolkien"), dotted short parts ("U.S", "e.g", "ph.d"), or a numbering
    word when a number follows (``numbered``: "No. 5"). ``cautious``: only an abbreviation that
    is no word of its own (``NEVER_ENDING``), an initial or a numbering word before a number."""
    if not word:
        return False
    w = word.lower()
    if numbered and (w in NUMBERING or (cautious and w in ABBREVIATIONS)):
        return True  # "No. 5"; cautious, any listed one before a number: "ca. 1500", "Sec. 3"
    if cautious:
        return w in NEVER_ENDING or (len(word) == 1 and word.isalpha())
    if w in ABBREVIATIONS:
        return True
    if len(word) == 1:
        return word.isalpha()
    if "." not in w:
        return False
    parts = [p for p in _DOTTED.split(w) if p]
    return len(parts) > 1 and all(p.isalpha() and len(p) <= 2 for p in parts)


def word_before(text: str, i: int) -> str:
    """The word that ``text[i]`` (a full stop) follows: back to a space, a dash or a non-prose
    character ("e.g" of "data—e.g"), without the opening or emphasis marks before it ("(e.g",
    "_Mr"). Anything else stays part of it: "MB/s", "~v" and "Si,l" are no initials, and "no"
    in quotes (``"no".``) is no abbreviation."""
    j = i
    while j > 0 and not text[j - 1].isspace() and text[j - 1] not in _WORD_STOPS:
        j -= 1
    return text[j:i].lstrip(_WORD_OPENERS)


def sentence_end(text: str, i: int, cautious: bool = False) -> int | None:
    """Where the sentence ends if the terminal mark at ``text[i]`` ends one (after its closing
    marks and the ``ATTACHED`` characters that belong to it), else None. ``cautious``: where a
    sentence may end (``is_abbreviation``'s cautious reading), for a check that must not miss
    one."""
    n = len(text)
    j = i + 1
    while j < n and (text[j] in TERMINALS or text[j] in CLOSERS):
        j += 1
    if j < n:
        c = text[j]
        if not (c.isspace() or c == ATTACHED):
            return None  # inside a token: 3.5, e.g.x, example.com
    if text[i] == "." and is_abbreviation(
        word_before(text, i), _NUMBER.match(text, j) is not None, cautious
    ):
        return None
    # what follows: spaces, the characters attached to this sentence, stray punctuation
    k = j
    attached = False
    while k < n and text[k] != HARD_BREAK and (text[k].isspace() or text[k] in _FOLLOWING):
        attached = attached or text[k] == ATTACHED
        k += 1
    if k < n and text[k].islower():
        return j if attached else None  # "… et al. found"; "… topic. [@papers] gives …"
    while k > j and text[k - 1].isspace():
        k -= 1  # the space goes to the next sentence; only attached characters stay
    return k


def sentence_ends(
    text: str, lo: int = 0, hi: int | None = None, cautious: bool = False
) -> Iterator[tuple[int, int]]:
    """Each sentence end whose mark stands in ``text[lo:hi]``, in order: (where the sentence
    ends, where the next one's text starts, past the space); ``cautious`` as ``sentence_end``."""
    n = len(text)
    at = lo
    for m in _CANDIDATE.finditer(text, lo, n if hi is None else min(n, hi)):
        i = m.start()
        if i < at:
            continue  # inside the marks and attached characters an earlier end took along
        if text[i] == HARD_BREAK:
            end, nxt = i, i + 1
        else:
            found = sentence_end(text, i, cautious)
            if found is None:
                continue
            end = nxt = found
        while nxt < n and text[nxt].isspace() and text[nxt] != HARD_BREAK:
            nxt += 1
        yield end, nxt
        at = max(end, i + 1)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """The sentences of a plain string as (start, end), without the space between them."""
    spans = []
    start = 0
    for end, nxt in sentence_ends(text):
        while start < end and text[start].isspace():
            start += 1
        if start < end:
            spans.append((start, end))
        start = max(start, nxt)
    while start < len(text) and text[start].isspace():
        start += 1
    if start < len(text):
        spans.append((start, len(text)))
    return spans or [(0, len(text))]
