"""Where a checked citation stands with the writer's review: reviewed, out of date, or not.

Pure: a judgement, the claim's words and the quote's reviews in, a status out. The filter's audit,
``check`` and ``review`` all ask here, so they cannot disagree. Nothing here changes a state:
a review is a second, human question beside ``checked``, never an input to it.

A review holds for the words it was made on: the claim's (as the document walk states it) and the
writer's quote, each by digest. When the quote has reviews but none for these words, the claim
(or the quote) was edited since — "review out of date", naming the words that were reviewed —
unless the review is of another claim that cites the same quote and still stands in the
documents judged together (``present_claims``): that one is reviewed, this one simply is not.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from citeledger.evidence.store import sha256_hex
from citeledger.model import Judgement, Quote, Review, State

REVIEWED = "reviewed"
OUT_OF_DATE = "out-of-date"
NOT_REVIEWED = "not-reviewed"


def claim_sha256(claim: str) -> str:
    """The claim's digest: its words, spaces folded and NFC (a re-wrap is not an edit)."""
    return sha256_hex(unicodedata.normalize("NFC", " ".join(claim.split())))


@dataclass(frozen=True)
class ReviewStatus:
    state: str  # REVIEWED, OUT_OF_DATE or NOT_REVIEWED
    review: Review | None = None  # the matching review, or the newest one when out of date

    @property
    def words(self) -> str:
        """What a reader sees in the audit and the writer in ``check`` / ``review --list``."""
        r = self.review
        if self.state == REVIEWED and r is not None:
            return f"Reviewed by {r.reviewer} on {r.date}: the quote supports the claim"
        if self.state == OUT_OF_DATE and r is not None:
            was = f" (reviewed: “{r.claim}”)" if r.claim else ""
            return (
                f"Review out of date: the claim or the quote changed after {r.reviewer} "
                f"reviewed it on {r.date}{was}"
            )
        return "Not reviewed: nobody has yet read this quote against this claim"


#: Every claim citing a quote now, by (source key, quote text): the claims' digests.
Present = Mapping[tuple[str, str], frozenset[str]]


def present_claims(cited: Iterable[tuple[Judgement, str]]) -> Present:
    """The claims of the checked citations judged together, grouped by the quote they cite."""
    out: dict[tuple[str, str], set[str]] = {}
    for judgement, claim in cited:
        if judgement.state is State.CHECKED and judgement.quote is not None:
            out.setdefault((judgement.key, judgement.quote.text), set()).add(claim_sha256(claim))
    return {k: frozenset(v) for k, v in out.items()}


def status_of(quote: Quote, claim: str, others: frozenset[str] = frozenset()) -> ReviewStatus:
    """The review of ``claim`` against ``quote``, if one holds for their present words;
    ``others``: the digests of the other claims citing the quote now (their reviews are theirs)."""
    digest, quoted = claim_sha256(claim), sha256_hex(quote.text)
    for review in reversed(quote.reviews):
        if review.claim_sha256 == digest and review.quote_sha256 == quoted:
            return ReviewStatus(REVIEWED, review)
    stale = [r for r in quote.reviews if r.claim_sha256 not in others]
    if stale:
        return ReviewStatus(OUT_OF_DATE, stale[-1])
    return ReviewStatus(NOT_REVIEWED)


def review_of(
    judgement: Judgement, claim: str, present: Present | None = None
) -> ReviewStatus | None:
    """A checked citation's review status; None for any other state (nothing to review yet:
    a quote that is not there supports nothing)."""
    quote = judgement.quote
    if judgement.state is not State.CHECKED or quote is None:
        return None
    others = (present or {}).get((judgement.key, quote.text), frozenset())
    return status_of(quote, claim, others - {claim_sha256(claim)})


def tally(statuses: list[ReviewStatus | None]) -> dict[str, object]:
    """Counts for ``check``: of the checked citations, how many have a review that holds."""
    counted = [s for s in statuses if s is not None]
    reviewed = sum(1 for s in counted if s.state == REVIEWED)
    stale = sum(1 for s in counted if s.state == OUT_OF_DATE)
    return {
        "checked": len(counted),
        "reviewed": reviewed,
        "out_of_date": stale,
        "not_reviewed": len(counted) - reviewed - stale,
        "ratio": reviewed / len(counted) if counted else None,
    }


def tally_line(counts: dict[str, object]) -> str:
    return (
        f"citeledger: reviews: {counts['reviewed']} of {counts['checked']} checked citations "
        f"reviewed ({counts['not_reviewed']} not reviewed, {counts['out_of_date']} review out "
        "of date)"
    )
