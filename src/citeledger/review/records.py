"""Writing the writer's answers into the ledger: a review under its quote, or a dispute.

Reviews live in the ledger, under the quote they were made against (``reviews:``), because the
ledger is what travels with the document and is kept in version control beside it; the evidence
store holds only what retrieval captured. Each write goes through ``ledger.edit_ledger``: locked,
atomic, an addition spliced into the writer's text (comments and layout kept), and re-validated
before it replaces the file. "Does not support" is the ledger's existing ``disputed`` record
(``ledger.set_disputed``): nothing is deleted, and the build shows the citation as disputed.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, MutableMapping
from typing import Any

from citeledger import ledger as ledger_mod
from citeledger.errors import CiteledgerError, LedgerError
from citeledger.evidence.store import sha256_hex
from citeledger.ledger.record import today
from citeledger.model import Review
from citeledger.review.status import claim_sha256


def reviewer_name(given: str | None) -> str:
    """``--as``, else the git author (``git var GIT_AUTHOR_IDENT`` without its timestamp)."""
    if given and given.strip():
        return " ".join(given.split())
    try:
        proc = subprocess.run(
            ["git", "var", "GIT_AUTHOR_IDENT"], capture_output=True, text=True, check=False
        )
    except OSError:
        proc = None
    ident = proc.stdout.strip() if proc is not None and proc.returncode == 0 else ""
    name = ident.rsplit(" ", 2)[0] if ident.count(" ") >= 2 else ident
    if not name:
        raise CiteledgerError(
            "no reviewer: --as was not given and git has no author name",
            fix="pass --as 'Your Name', or set git config user.name and user.email",
        )
    return name


def make_review(claim: str, quote_text: str, reviewer: str, date: str | None = None) -> Review:
    return Review(
        date=date or today(),
        reviewer=reviewer,
        claim_sha256=claim_sha256(claim),
        quote_sha256=sha256_hex(quote_text),
        claim=" ".join(claim.split()),
    )


def record_review(ledger_path: str, key: str, index: int, quote_text: str, review: Review) -> None:
    """Append ``review`` under quote ``index`` of source ``key`` — refused, with nothing
    written, if that quote's words are no longer the ones reviewed."""
    entry: dict[str, Any] = {
        "date": review.date,
        "reviewer": review.reviewer,
        "claim_sha256": review.claim_sha256,
        "quote_sha256": review.quote_sha256,
        "claim": review.claim,
    }
    with ledger_mod.edit_ledger(ledger_path) as doc:
        sources: Any = doc.get("sources") if isinstance(doc, Mapping) else None
        source: Any = sources.get(key) if isinstance(sources, Mapping) else None
        quotes: Any = source.get("quotes") if isinstance(source, Mapping) else None
        quote: Any = quotes[index] if isinstance(quotes, list) and index < len(quotes) else None
        if not isinstance(quote, MutableMapping) or quote.get("text") != quote_text:
            raise LedgerError(
                f"the quote of @{key} changed in the ledger during the review",
                file=ledger_path,
                fix="run `citeledger verify`, then `citeledger review` again; nothing was written",
            )
        if quote.get("reviews") is None:
            quote["reviews"] = [entry]
        else:
            quote["reviews"].append(entry)


def record_dispute(ledger_path: str, key: str, reason: str, source_says: str | None) -> None:
    """ "Does not support": the source is recorded as disputed, with the writer's reason."""
    ledger_mod.set_disputed(ledger_path, key, today(), reason, source_says or None)
