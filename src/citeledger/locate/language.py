"""Which language a stretch of a source is in, so that its own frame words are read.

The cut rules (context.py) must know "Falls" opens a condition in German and "selon" an
attribution in French, but "falls" in English is a verb; the language is told from the text
around the quote itself (a page may quote another language), by counting each language's
most frequent little words (``LANGUAGE_MARKERS``): cheap, and enough for a few hundred
characters of running text.

Must never: read anything but the text given; name a language it has no frame table for.
"""

from __future__ import annotations

import re

from citeledger.locate.wordlists import FRAMES, LANGUAGE_MARKERS

_WORD = re.compile(r"[^\W\d_]+")
_AT_LEAST = 2  # marker words another language needs ("y" alone is no Spanish)
# one look-up a word: it runs on the text around every quote found
_LANGUAGES_OF: dict[str, tuple[str, ...]] = {}
for _lang, _markers in LANGUAGE_MARKERS.items():
    for _w in _markers:
        _LANGUAGES_OF[_w] = (*_LANGUAGES_OF.get(_w, ()), _lang)


def language_of(text: str) -> str:
    """The language of ``text`` whose marker words it holds most of; English when none wins
    (a formula, a table, too few words)."""
    counts = dict.fromkeys(LANGUAGE_MARKERS, 0)
    get = _LANGUAGES_OF.get
    for w in _WORD.findall(text.lower()):
        for lang in get(w, ()):
            counts[lang] += 1
    best = max(counts, key=lambda k: (counts[k], k == "en"))
    won = counts[best] > counts["en"] and counts[best] >= _AT_LEAST
    return best if won and best in FRAMES else "en"
