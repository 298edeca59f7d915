"""A closed aside an ellipsis may leave out: one that qualifies nothing the quote keeps.

Chicago 13.50, APA 8.31 and MLA 6.4 let an ellipsis drop a parenthetical, a dash aside or an
appositive set off by commas (", who died in 2008,") when the sentence reads the same without
it. What the aside may not hold is a word that limits or turns the words kept — a negation, a
condition, an exception, a hedge, "only" — nor may it be a count of the kept noun ("— 12 of
the 40 —", "(some of them)"), nor hold a count or share anywhere ("(in 3 of 40 patients)",
"(7%)"). Numbers and descriptive quantifiers of its own pass. An aside that is a clause of its
own — a relative clause, a concession with its own subject — or a vote's tally governs nothing
kept, whatever it holds (docs/editorial-marks.md, "Ellipses").

Must never: pass an aside the source does not close on both sides inside the omission, or one
that opens another clause (", and …", ";").
"""

from __future__ import annotations

import re

from citeledger.locate.wordlists import ASIDE_QUANTIFIERS, first_meaningful, word_class

# the omission, whitespace aside, is one aside the source opens and closes: parentheses, a
# pair of dashes, or a pair of commas with no third inside
_CLOSED = re.compile(
    r"\s*(?:\((?P<paren>[^()]*)\)|(?P<d>[\u2014\u2013]|\s-\s)(?P<dash>[^\u2014\u2013]*?)(?P=d)"
    r"|,(?P<comma>[^,;:.!?()\u2014\u2013]*),)\s*",
    re.DOTALL,
)
_OPENS_CLAUSE = re.compile(r"^\s*(?:and|or|nor|but|yet|so|while|whereas)\b", re.IGNORECASE)
_WORDS = re.compile(r"[^\W_]+(?:['\u2019.,][^\W_]+)*|[^\w\s]")
_MAY_HOLD = frozenset({"number", "symbol", "quantifier"})
_BOUND = re.compile(
    r"\b(?:aged|over|under|above|below|about|around|some|circa|within|beyond|from|between|"
    r"since|until|till|through|during)\s+[$\u20ac\u00a3]?\d"
    r"|\d\S*\s+(?:and|or)\s+(?:over|older|more|above|under|less|below|younger|up|fewer)\b",
    re.IGNORECASE,
)
_SIGNS_THAT_BOUND = frozenset("<>\u2264\u2265=\u2248~\u00b1")
# a count or share of something anywhere in the aside: "(in 3 of 40 patients)", "(one in ten)",
# "(12 out of 40)", "(3/40)", "(7%)", "(a third of them)": the claim kept is scoped by it
_N = r"(?:\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|a|an)"
_SHARE = re.compile(
    rf"\b{_N}\s+(?:of|out\s+of|in)\s+(?:the\s+|every\s+|each\s+|all\s+)?(?:\d|[a-z]+\b)"
    r"|\d\s*/\s*\d|\d\s*(?:%|\u2030|per\s*cent\b|percent\b)"
    r"|\b(?:half|third|thirds|quarter|quarters|fifth|tenth)s?\s+of\b",
    re.IGNORECASE,
)
# An aside that is a clause of its own governs nothing the quote keeps, whatever it holds: a
# relative clause the source sets off describes its noun, never restricts it ("lines — which
# were made of cast iron or unprotected steel —", "Islamists, who held power from 2011 to 2013,");
# a concession with its own subject says what holds besides the claim ("because, although the
# brain does not use all of the information, it uses …"); a tally is a vote's score, not a
# count of the kept noun ("(438 contre 86 et 42 abstentions)"). In every language
# FUNCTION_WORDS covers (not "que" or "che": as often a conjunction).
_DESCRIBES = re.compile(
    r"\s*(?:who|whom|whose|which|qui|dont|lequel|laquelle|lesquels|lesquelles|quien|quienes"
    r"|cuyo|cuya|cuyos|cuyas|quem|cujo|cuja|cui|welche|welcher|welches)\b",
    re.IGNORECASE,
)
_CONCEDES = re.compile(
    r"\s*(?i:although|though|even\s+though|bien\s+que|quoique|obwohl|obgleich|aunque|embora"
    r"|sebbene|benché)\s+(?:(?i:the|a|an|this|that|these|those|it|they|he|she|we|i|you|there"
    r"|its|their|his|her|our|le|la|les|l['\u2019]|il|elle|ils|elles|on|der|die|das|er|sie|es"
    r"|el|los|las|ella|ellos|ellas|o|os|as|ele|ela|eles|lo|gli)\b|[A-Z])"
)
_TALLY = re.compile(
    r"\s*\d[\d,.]*(?:\s+votes?)?\s*(?:to|against|contre|gegen|contra|a|[-\u2013:])\s*\d[\d,.]*"
    r"(?:\s*(?:,|and|et|und|y|e)\s*\d[\d,.]*\s+[^\W\d_]+)*\s*",
    re.IGNORECASE,
)


def closed_aside(omitted: str) -> str | None:
    """The inside of the closed aside ``omitted`` is, or None."""
    m = _CLOSED.fullmatch(omitted)
    if m is None:
        return None
    inner = m.group("paren") or m.group("dash") or m.group("comma")
    if not inner or not inner.strip() or _OPENS_CLAUSE.match(inner):
        return None
    return inner


def harmless_aside(omitted: str) -> bool:
    """Whether ``omitted`` is a closed aside an ellipsis may leave out: nothing in it but
    numbers, symbols and describing quantifiers of its own, and not a count of the kept noun."""
    inner = closed_aside(omitted)
    if inner is None:
        return False
    if _DESCRIBES.match(inner) or _CONCEDES.match(inner) or _TALLY.fullmatch(inner):
        return True  # a clause of its own, or a score: it governs nothing kept
    said = first_meaningful(inner)
    if said is None:
        return True
    if said[1] not in _MAY_HOLD:
        return False
    words = _WORDS.findall(inner)
    if word_class(words[0]) in _MAY_HOLD:
        return False  # "(some of them)", "— 12 of the 40 —": it counts the kept noun
    for w in words:
        cls = word_class(w)
        if cls == "quantifier" and w.lower() not in ASIDE_QUANTIFIERS:
            return False  # "only", "solely", "half": a limit
        if cls is not None and cls not in _MAY_HOLD:
            return False
    # a listed phrase ("at least", "rather than") is first_meaningful's first answer, so none
    # is here; nor a bound on a number ("aged 65 and over", "(over 18)") or a span of time or
    # scope ("who held power from 2011 to 2013"): those restrict what the quote keeps
    return (
        _BOUND.search(inner) is None
        and _SHARE.search(inner) is None
        and not any(w in _SIGNS_THAT_BOUND for w in words)
    )
