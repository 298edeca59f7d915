"""Where a checked citation stands with the writer's review: reviewed, out of date, or not.

Pure: a judgement, the claim's words and the quote's reviews in, a status out. The filter's audit,
``check`` and ``review`` all ask here, so they cannot disagree. Nothing here changes a state:
a review is a second, human question beside ``checked``, never an input to it.

A review holds for the words it was made on: the claim's (as the document walk states it) and the
writer's quote, each by digest. When the quote has reviews but none for these words, the claim
(or the quote) was edited since — "review out of date", naming the words that were reviewed. A
quote cited by two claims with only one reviewed shows the same for the other: both ask for the
same act (read it, answer), and the reviewed words are shown so the writer sees which is which.
"""

from __future__ import annotations

import unicodedata
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


def status_of(quote: Quote, claim: str) -> ReviewStatus:
    """The review of ``claim`` against ``quote``, if one holds for their present words."""
    digest, quoted = claim_sha256(claim), sha256_hex(quote.text)
    for review in reversed(quote.reviews):
        if review.claim_sha256 == digest and review.quote_sha256 == quoted:
            return ReviewStatus(REVIEWED, review)
    if quote.reviews:
        return ReviewStatus(OUT_OF_DATE, quote.reviews[-1])
    return ReviewStatus(NOT_REVIEWED)


def review_of(judgement: Judgement, claim: str) -> ReviewStatus | None:
    """A checked citation's review status; None for any other state (nothing to review yet:
    a quote that is not there supports nothing)."""
    if judgement.state is not State.CHECKED or judgement.quote is None:
        return None
    return status_of(judgement.quote, claim)


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
