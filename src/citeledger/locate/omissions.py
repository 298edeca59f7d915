"""What an omission may not take beyond its listed words: a view that frames the words kept,
the end of a clause the quote goes on from.

An ellipsis that leaves out "the impression that" ("which leaves me with … he has persuaded
precisely zero") turns a view into the source's claim, though no word it leaves out is a
negation or a number: a stance noun is read only at a quote's edges (``wordlists.STANCES``),
and here the edge is inside the quote. One that ends at the source's comma before a kept "but"
("a military career … but Ernest never" of "a military career in a distant country, but
Ernest never") takes the end of the first clause, its scope, and joins what is left to the
next (docs/editorial-marks.md, "Ellipses").

Must never: read anything but the text given.
"""

from __future__ import annotations

import re

from citeledger.locate.wordlists import STANCES

# the omission ends with a stance and its "that" (in every language FUNCTION_WORDS covers)
_STANCE_THAT = re.compile(r"\b([^\W\d_]+)\s+(?:that|que|qu['\u2019]|dass|che)\W*$", re.IGNORECASE)


# the source's comma ends the omission, and the quote goes on with the contrast that opens the
# next clause (in every language FUNCTION_WORDS covers): what the contrast is set against is the
# clause the omission cut short ("and", "or" join without setting one against the other)
_ENDS_AT_COMMA = re.compile(r",\s*$")
_JOINS_NEXT = re.compile(r"\s*(?:but|yet|mais|aber|pero|mas|ma)\b", re.IGNORECASE)
_OPENS_WITH_MARK = re.compile(r"^\s*[,;:(\u2014\u2013]")


def omission_problem(omitted: str, text: str, y: int) -> str | None:
    """Why the omission ``omitted`` (which ends at ``text[y]``) is refused for what frames or
    ends the words kept, or None."""
    stance = framing_stance(omitted)
    if stance is not None:
        return f"the words left out at the ellipsis ('{stance}') frame the words kept"
    if (
        _ENDS_AT_COMMA.search(omitted)
        and not _OPENS_WITH_MARK.match(omitted)
        and _JOINS_NEXT.match(text, y)
    ):
        # "a military career … but Ernest never" of "… career in a distant country, but …"
        return (
            "the words left out at the ellipsis end the clause before the quote's "
            f"'{text[y : y + 12].split()[0]}': its last words are that clause's scope"
        )
    return None


def framing_stance(omitted: str) -> str | None:
    """The stance an omission ends with before its "that" ("the impression that", "the belief
    that"), whose view the words after it are, or None."""
    m = _STANCE_THAT.search(omitted)
    if m is None or m.group(1).lower() not in STANCES:
        return None
    return " ".join(m.group().split())
