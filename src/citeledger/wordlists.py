"""The word lists the locator's editorial-mark rules rest on (docs/editorial-marks.md).

Each list names a class of words whose presence or absence changes what a sentence claims: they
may never come from a bracket, never be left out at an ellipsis, and never be made or unmade by
splitting or joining a word. The lists are deliberately broad: a wrongly refused quote costs the
writer a longer quotation; a wrongly accepted one is a false "checked".

Must never: be copied elsewhere (import them); hold a word that does not carry meaning of its
class (each entry is tested in tests/test_wordlists.py).
"""

from __future__ import annotations

import re


def _wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


NEGATIONS = _wordset(
    """
    not no never without none nor cannot neither nobody nothing nowhere noone non hardly
    scarcely barely rarely seldom
    """
)
MODALS = _wordset("may might must can could should would shall will ought need needs")
HEDGES = _wordset(
    """
    perhaps possibly probably likely unlikely apparently arguably presumably seemingly
    allegedly reportedly supposedly potentially suggest suggests suggested seem seems seemed
    appear appears appeared roughly approximately almost nearly somewhat partly partially
    largely mostly generally usually often sometimes occasionally tend tends
    """
)
QUANTIFIERS = _wordset(
    """
    all every each any some most many much few several both either only always entirely
    wholly fully completely totally none half majority minority
    """
)
COMPARATIVES = _wordset(
    """
    more less most least fewer fewest greater greatest lesser larger largest smaller smallest
    higher highest lower lowest better best worse worst than rather exceed exceeds exceeded
    """
)
# Words that negate without a "not": a meaning-carrying negative an omission may not hide.
NEGATIVE_WORDS = _wordset(
    """
    insufficient inadequate incorrect incomplete inconsistent invalid inaccurate impossible
    improper impractical irrelevant irregular illegal illegitimate unable unlikely unknown
    unclear unsafe unfair unjust disagree disagrees disapprove disapproved dishonest
    disadvantage misleading fail fails failed failure lack lacks lacked lacking absent absence
    instead except excepting unless although though despite however but only neglect neglected
    refuse refused reject rejected deny denied prevent prevents prevented against
    """
)
# Two-word negatives: "instead of", "rather than" (matched as a phrase).
NEGATIVE_PHRASES = ("instead of", "rather than", "other than", "apart from", "far from")
# A prefix that negates the rest of the word ("unable", "nonlinear"). "in-", "im-", "dis-"
# are too common as plain syllables: their negative words are listed one by one above.
NEGATIVE_PREFIXES = ("un", "non")
# ... except in these words, where "un" is not a prefix.
NOT_PREFIXED = _wordset(
    """
    under underlying understand understanding understood undergo undertake uniform union unique
    unit units unity universal universe university unison until unto uncle
    """
)
# What a bracket may stand for: a reference the quoter spells out ("[the committee]" for "it").
REFERENCES = _wordset(
    """
    it its they them their theirs he him his she her hers we us our you your i me my this that
    these those which who whom whose such there here former latter one ones the said above
    """
)
# Brackets that insert nothing of the source and change no word of it.
INSERTIONS = frozenset({"sic", "sic!", "emphasis added", "emphasis mine", "italics added"})
# Symbols are tokens: any of these added, dropped or changed is a difference.
SYMBOLS = "<>≤≥=≠±∈∉⊂⊆⊃⊇∩∪∀∃¬√→↔∞×÷°%‰∓≈≡∝∑∏∫∂∇⇒⇔←⇐$€£¥§#&@+~^"

MEANINGFUL_CLASSES: dict[str, frozenset[str]] = {
    "negation": NEGATIONS,
    "modal": MODALS,
    "hedge": HEDGES,
    "quantifier": QUANTIFIERS,
    "comparative": COMPARATIVES,
    "negative word": NEGATIVE_WORDS,
}

_WORDS = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*|\d")
_DIGIT = re.compile(r"\d")


def word_class(word: str) -> str | None:
    """Which meaning-carrying class ``word`` belongs to ("negation", "number", ...), if any."""
    w = word.lower().replace("’", "'")
    if _DIGIT.search(w):
        return "number"
    if w.endswith("n't"):
        return "negation"
    for name, words in MEANINGFUL_CLASSES.items():
        if w in words:
            return name
    if w.endswith("less") and len(w) > 6:
        return "negative word"  # "useless", "regardless"
    for p in NEGATIVE_PREFIXES:
        if w.startswith(p) and len(w) >= len(p) + 4 and w not in NOT_PREFIXED:
            return "negative word"
    return None


def first_meaningful(text: str) -> tuple[str, str] | None:
    """The first number, symbol or listed word of ``text`` and its class, or None."""
    low = " ".join(text.lower().split())
    for phrase in NEGATIVE_PHRASES:
        if re.search(rf"\b{phrase}\b", low):
            return phrase, "negative word"
    for ch in text:
        if ch in SYMBOLS:
            return ch, "symbol"
    for w in _WORDS.findall(text):
        cls = word_class(w)
        if cls is not None:
            return w, cls
    return None
