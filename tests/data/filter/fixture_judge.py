"""A judge that maps citation keys to states, for rendering tests and goldens only.

``@st-withdrawn`` is judged ``withdrawn``, ``@st-quote-not-found`` ``quote-not-found``, and so
on for every state; any other key is ``not-in-ledger``. Rendering is what these tests check, so
the judgement itself is fixed here; the real judge (``citeledger.judge``) has its own tests.
The restricted source's title and quote are marked SECRET so a test can prove they never leak.
"""

from __future__ import annotations

from citeledger.model import (
    CitationRef,
    Identifier,
    Judgement,
    Quote,
    Receipt,
    Source,
    State,
    Withdrawal,
)

PREFIX = "st-"
SECRET = "SECRET-TITLE-DO-NOT-SHOW"

_REASONS = {
    State.CHECKED: "The quote was found in the retrieved source.",
    State.UNCHECKED: "No receipt yet: run `citeledger verify` for this source.",
    State.NOT_IN_LEDGER: "The key has no source in the ledger.",
    State.QUOTE_NOT_FOUND: "The quoted words are not in the retrieved source.",
    State.UNRETRIEVABLE: "Retrieval failed: HTTP 404 Not Found.",
    State.STALE: "The quote was edited after it was checked.",
    State.TAMPERED: "The stored evidence does not match its digest.",
    State.SOURCE_CHANGED: "A recheck found the passage changed.",
    State.WITHDRAWN: "The writer withdrew this citation.",
    State.DISPUTED: "The source was read and does not support the claim.",
    State.RETRACTED: "The registry records a retraction of this work.",
    State.METADATA_MISMATCH: "The DOI resolves to a different title than the ledger gives.",
    State.RESTRICTED: "This source is limited to another audience.",
}

_RECEIPT = Receipt(
    outcome="found",
    identifier="doi:10.1000/demo",
    retrieved_at="2026-03-04T09:12:44Z",
    tool="citeledger 0.1.0",
    writer_quote_sha256="0" * 64,
    url="https://example.org/paper",
    body_sha256="b1f0" + "0" * 60,
    page=14,
)


def state_of(key: str) -> State:
    if key.startswith(PREFIX):
        try:
            return State(key[len(PREFIX) :])
        except ValueError:
            pass
    return State.NOT_IN_LEDGER


def judgement_for(ref: CitationRef) -> Judgement:
    state = state_of(ref.key)
    if state is State.NOT_IN_LEDGER:
        return Judgement(ref.key, state, (_REASONS[state],))
    title = SECRET if state is State.RESTRICTED else f"A work judged {state.value}"
    quote_text = "Appeals must arrive within 60 days."
    if state is State.RESTRICTED:
        quote_text = f"{SECRET} quoted words"
    quote = Quote(text=quote_text, id="q1", locator="p. 14")
    record = Withdrawal(
        date="2026-08-02",
        reason="The paper is about word-graph embeddings; it does not make this claim.",
        source_says="This paper explores word-graph embeddings for class labels.",
    )
    source = Source(
        key=ref.key,
        identifier=Identifier("doi", "10.1000/demo"),
        csl={"title": title},
        quotes=(quote,),
        withdrawn=record if state is State.WITHDRAWN else None,
        disputed=record if state is State.DISPUTED else None,
        audience=("internal",) if state is State.RESTRICTED else (),
    )
    receipt = _RECEIPT
    if state in (State.QUOTE_NOT_FOUND, State.SOURCE_CHANGED):
        receipt = Receipt(
            outcome="not-found",
            identifier="doi:10.1000/demo",
            retrieved_at="2026-03-04T09:12:44Z",
            tool="citeledger 0.1.0",
            writer_quote_sha256="0" * 64,
            candidate="Appeals must arrive within 90 days.",
            differences=("source says '90', quote says '60'",),
        )
    reasons = (_REASONS[state],)
    return Judgement(ref.key, state, reasons, source=source, quote=quote, receipt=receipt)


class FixtureJudge:
    """Stands in for ``citeledger.judge.Judge``; accepts the filter's options and ignores them."""

    def __init__(self, options: object = None) -> None:
        self.options = options
        self.warnings: list[str] = []
        self.seen: list[CitationRef] = []

    def judge(self, ref: CitationRef) -> Judgement:
        self.seen.append(ref)
        return judgement_for(ref)
