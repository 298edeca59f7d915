"""The one judgement: a citation, the ledger and the stored evidence → a state and its reasons.

The filter and ``citeledger check`` both call ``Judge.judge``; nothing else decides whether a
citation is checked. "Checked" is earned here, never read off the ledger: a receipt counts only
if its evidence file is present, the body and text digests recompute, the span still holds the
source's words, those words still locate the writer's quote, and the writer has not edited the
quote or the identifier since. Anything less is a breakdown with a reason a writer can act on.

This module never touches the network and never imports ``retrieve``: a build is offline by
construction. It reads evidence through one ``EvidenceReader`` so each file is read and hashed at
most once per build.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from citeledger.build.pinpoints import locale_of, normalize_locator, page_spans
from citeledger.evidence import usercache
from citeledger.evidence.judgements import JudgementIndex
from citeledger.evidence.other_work import evidence_is_other_work
from citeledger.evidence.registry import metadata_mismatch, retraction_of
from citeledger.evidence.store import EvidenceReader, HistoryEntry, LoadedEvidence, sha256_hex
from citeledger.ledger.identifiers import canonical
from citeledger.locate.edits import CUT_REASON, count_phrase, describe, describe_all
from citeledger.model import CitationRef, Edit, Judgement, Ledger, Quote, Receipt, Source, State

_CONTEXT = 64  # characters either side of a receipt's span re-searched at build time
_REGISTRY = ("doi", "arxiv", "isbn")  # identifiers whose check also asks a registry


def _pinpoint_mismatch(ref: CitationRef, quote: Quote) -> str:
    """The pinpoint is part of the promise: a reader goes to the place the citation names."""
    if not quote.locator:
        return (
            f"The citation points to {ref.locator}, but the ledger does not say where the quote "
            f"of @{ref.key} stands: add `locator: {ref.locator}` to it if that is where it is."
        )
    return (
        f"The citation points to {ref.locator}, but the quote it selects stands at "
        f"{quote.locator}: correct the citation or the ledger."
    )


# The code a remembered verdict rests on, besides the extractors (their versions are in the
# evidence): a change to any of these files — a locator rule, an evidence check, how a source's
# text is read — re-judges. A folder name stands for every module in it (``code_files``).
_JUDGING_CODE = (
    # Whole packages, each module added later included: a hand-kept list once missed the
    # extractors (re-derivation), the read gate and signing, so a change to one of them was
    # judged from verdicts remembered before it.
    "judge.py",
    "model.py",
    "confine.py",  # what is inside the store or the project
    "inputs.py",  # the read gate
    "errors.py",
    "sniff.py",
    "sentence_end.py",  # where the locator reads a sentence to end
    "ledger/",
    "ledger/csl-data.json",
    "build/pinpoints.py",
    "build/locator-terms.json",  # the locale terms a page locator is read with
    "evidence/",
    "extract/",
    "locate/",
)


@functools.cache
def code_version() -> str:
    """citeledger's version and the digest of the judging code's files, of the interpreter and
    of the libraries a verdict rests on, once per process: rapidfuzz scores the locator's fuzzy
    stage and the metadata check, PyYAML reads the source a verdict is judged from."""
    from citeledger import __version__, code_digest

    return code_digest(__version__, _JUDGING_CODE, ("rapidfuzz", "yaml"))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


class Judge:
    """Judges citations against one ledger for one build (audience), caching evidence reads."""

    def __init__(
        self,
        ledger: Ledger,
        audience: str | None = None,
        reader: EvidenceReader | None = None,
        *,
        trusted_keys: Iterable[str] = (),
        require_signature: bool = False,
        index: JudgementIndex | None = None,
    ) -> None:
        self.ledger = ledger
        # Trust comes from the ledger, the environment or the command line (the callers pass
        # the last two): never from the document alone. Keys given from outside replace the
        # ledger's own list: whoever can edit the ledger must not be able to add a key to a CI
        # run that names the keys it trusts (``check --require-signature --trusted-key K``).
        given = frozenset(trusted_keys)
        self.trusted_keys = given or frozenset(ledger.trusted_keys)
        self.require_signature = require_signature or ledger.require_signature
        # A build may be for several audiences at once (options.py): a source is shown only if
        # it is open to every one of them.
        self.audiences = tuple(a for a in (audience or "public").split(",") if a) or ("public",)
        self.audience = ", ".join(self.audiences)
        self.reader = reader or EvidenceReader(ledger.evidence_dir)
        self.warnings: list[str] = []
        self._warned: set[str] = set()
        distrusted = usercache.problem()  # the accelerators' cache: not used, and said so
        if distrusted is not None:
            self._warn(f"built without the user's cache: {distrusted}")
        self._prepared: dict[str, Any] = {}  # evidence path -> locate.Prepared, when needed
        # the accelerator: remembered verdicts, each re-validated by its files' digests
        self.index = index if index is not None else JudgementIndex.open(ledger.evidence_dir)
        self._index_keys: dict[tuple[str, int, bool, str], tuple[Quote, str]] = {}
        self._verdicts: dict[str, tuple[State, tuple[str, ...]]] = {}
        # (key, locator, selector, problem, lang) → its judgement in this build
        self._judged: dict[tuple[str | None, ...], Judgement] = {}
        # evidence whose verdict rests on this machine's extractors, not on its bytes alone
        self._unrepeatable: set[str] = set()
        # the evidence files of earlier receipts the verdict being judged read (path → sha256)
        self._also_read: dict[str, str] = {}

    def finish(self) -> None:
        """The end of a build: keep the verdicts judged afresh, and the sources parsed, for the
        next one."""
        if self.index is not None:
            self.index.save()
        from citeledger.ledger.outlined import save_parsed

        save_parsed(self.ledger.sources)

    def _warn(self, message: str) -> None:
        if message not in self._warned:
            self._warned.add(message)
            self.warnings.append(message)

    def judge(self, ref: CitationRef, quote: Quote | None = None) -> Judgement:
        """Judge one citation; ``quote`` bypasses selection (evidence pages judge each quote).

        A thesis cites each source several times: within one build (one ledger, one reader)
        the same key, locator and selector are judged once."""
        if quote is not None:
            return self._judge(ref, quote)
        asked = (ref.key, ref.locator, ref.selector, ref.problem, ref.lang)
        made = self._judged.get(asked)
        if made is None:
            made = self._judged[asked] = self._judge(ref, None)
        return made

    def _judge(self, ref: CitationRef, quote: Quote | None) -> Judgement:
        source = self.ledger.sources.get(ref.key)
        if source is None:
            return Judgement(
                ref.key,
                State.NOT_IN_LEDGER,
                (
                    f"@{ref.key} has no source in the ledger {self.ledger.path}; nothing may be "
                    f"cited without one (add it with `citeledger add {ref.key} …`).",
                ),
            )
        if (
            source.audience
            and "everyone" not in source.audience
            and not all(a in source.audience for a in self.audiences)
        ):
            return Judgement(
                ref.key,
                State.RESTRICTED,
                (
                    f"This source is limited to {', '.join(source.audience)}; this build is for "
                    f"{self.audience}, so its details are not shown.",
                ),
                source=source,
            )
        deleted = self._deleted_record(source)
        if deleted is not None:
            return deleted
        if source.withdrawn is not None:
            w = source.withdrawn
            reasons = [f"Withdrawn on {w.date}: {w.reason}"]
            if w.source_says:
                reasons.append(f"What the source actually says: “{w.source_says}”")
            return Judgement(ref.key, State.WITHDRAWN, tuple(reasons), source=source)
        if source.disputed is not None:
            d = source.disputed
            reasons = [f"Disputed on {d.date}: {d.reason}"]
            if d.source_says:
                reasons.append(f"What the source says: “{d.source_says}”")
            reasons.append(
                "The writer must resolve this: revise the claim or withdraw the citation."
            )
            return Judgement(ref.key, State.DISPUTED, tuple(reasons), source=source)
        if ref.problem:  # the document shows what no check can cover (CitationRef.problem)
            return Judgement(ref.key, State.UNCHECKED, (ref.problem,), source=source)

        why = ""
        if quote is None:
            quote, why = self._select_quote(source, ref)
        if quote is None:
            return Judgement(ref.key, State.UNCHECKED, (why,), source=source)
        return self._judge_quote(ref, source, quote)

    def _deleted_record(self, source: Source) -> Judgement | None:
        """A withdrawal or dispute the tool recorded (its history log keeps each) that the
        ledger no longer holds: both are never deleted, so taking one out is a breakdown that
        says what was removed, never a way back to `checked`. A record is about a claim on a
        work: it is found by the key it was made under and by the work's identifier in any
        spelling, so a renamed key or a respelled identifier does not shed it."""
        for entry in self.reader.history().records_of(source.key, str(source.identifier)):
            if getattr(source, entry.outcome) is not None:
                continue
            if entry.key != source.key and not self._record_reaches(entry, source):
                continue
            assert entry.record is not None
            reason, says = entry.record
            state = State.WITHDRAWN if entry.outcome == "withdrawn" else State.DISPUTED
            reasons = [self._record_words(entry, source, reason)]
            if says:
                reasons.append(f"What the source says: “{says}”")
            return Judgement(source.key, state, tuple(reasons), source=source)
        return None

    def _record_words(self, entry: HistoryEntry, source: Source, reason: str) -> str:
        made = f"`{entry.outcome}:` record of @{entry.key} made on {entry.retrieved_at} ({reason})"
        if entry.key == source.key:
            where = ","
        elif self._held(entry):
            return (
                f"The {made} is about the same work and the same quoted words as @{source.key}: "
                f"it holds here too. Record it on @{source.key} as well, or cite other words."
            )
        else:
            where = f" for the same work ({entry.identifier}),"
        return (
            f"The ledger no longer holds the {made}{where} which the evidence store's history "
            f"log keeps: it is never deleted. Restore it on @{source.key} in {self.ledger.path}."
        )

    def _held(self, entry: HistoryEntry) -> bool:
        """Does the ledger still hold this record where it was made, for the same work?"""
        made_under = self.ledger.sources.get(entry.key)
        return (
            made_under is not None
            and getattr(made_under, entry.outcome) is not None
            and canonical(str(made_under.identifier)) == canonical(entry.identifier)
        )

    def _record_reaches(self, entry: HistoryEntry, source: Source) -> bool:
        """Does another key's record of this work hold for ``source``? Always when the ledger
        no longer holds it where it was made (the key renamed, or its record or work taken
        away); while it does, only for a source that cites words logged under that key — two
        sources may cite one work for different claims, and one's withdrawal is not the
        other's."""
        if not self._held(entry):
            return True
        chain = self.reader.history()
        return any(
            chain.of_quote(entry.key, entry.identifier, sha256_hex(q.text)) for q in source.quotes
        )

    def _select_quote(self, source: Source, ref: CitationRef) -> tuple[Quote | None, str]:
        quotes = source.quotes
        wanted = normalize_locator(ref.locator, ref.lang)
        if ref.selector:
            for q in quotes:
                if q.id == ref.selector:
                    if wanted is not None and normalize_locator(q.locator, ref.lang) != wanted:
                        return None, _pinpoint_mismatch(ref, q)
                    return q, ""
            ids = ", ".join(q.id for q in quotes if q.id) or "none"
            return None, (
                f"The citation selects quote:{ref.selector}, but @{ref.key} has no quote with "
                f"that id (ids: {ids})."
            )
        if not quotes:
            return None, (
                f"The ledger has no quote for @{ref.key}: record the passage the claim rests on, "
                "then run `citeledger verify`."
            )
        if wanted is not None:
            hits = [q for q in quotes if normalize_locator(q.locator, ref.lang) == wanted]
            if len(hits) == 1:
                return hits[0], ""
            if len(hits) > 1:
                return None, (
                    f"{_plural(len(hits), 'quote')} of @{ref.key} have the locator "
                    f"{ref.locator}; select one with quote:ID."
                )
            if len(quotes) == 1:
                return None, _pinpoint_mismatch(ref, quotes[0])
            return None, (
                f"The citation points to {ref.locator}, but no quote of @{ref.key} has that "
                "locator: add the passage found there, or correct the locator."
            )
        if len(quotes) == 1:
            return quotes[0], ""
        return None, (
            f"@{ref.key} has {_plural(len(quotes), 'quote')} and this citation selects none: add "
            f"a locator ([@{ref.key}, p. 14]) or a selector ([@{ref.key} quote:ID])."
        )

    def _judge_quote(self, ref: CitationRef, source: Source, quote: Quote) -> Judgement:
        signer: str | None = None

        def verdict(state: State, *reasons: str, receipt: Receipt | None = None) -> Judgement:
            return Judgement(
                ref.key,
                state,
                tuple(reasons),
                source=source,
                quote=quote,
                receipt=receipt,
                signer=signer,
            )

        if quote.asserted_verified:
            self._warn(
                f"@{ref.key}: a hand-written verified/checked flag in {self.ledger.path} "
                f"(line {quote.asserted_line or quote.line}) is ignored; a check is an act: "
                "run `citeledger verify`."
            )
        receipt = quote.latest
        if receipt is None:
            reasons = ["Never verified: nobody has retrieved this source and found the quote."]
            if quote.asserted_verified:
                reasons.append("The ledger says it is verified, but saying so is not a check.")
            reasons.append("Run `citeledger verify` to perform the check.")
            return verdict(State.UNCHECKED, *reasons)
        if not self._checked_as_cited(receipt, source):
            return verdict(
                State.STALE,
                f"The identifier changed after the check (checked {receipt.identifier}, now "
                f"{source.identifier}); run `citeledger verify` again.",
                receipt=receipt,
            )
        if receipt.writer_quote_sha256 != sha256_hex(quote.text):
            return verdict(
                State.STALE,
                f"The quote was edited after it was checked on {receipt.retrieved_at}; the "
                "receipt is for other words. Run `citeledger verify` again.",
                receipt=receipt,
            )
        removed = self._history_problem(ref.key, quote, receipt)
        if removed is not None:
            return verdict(removed[0], removed[1], receipt=receipt)
        signed, trusted, bad_signature = self._signature(receipt)
        if bad_signature is not None:
            return verdict(State.TAMPERED, bad_signature, receipt=receipt)
        signer = signed
        if not receipt.evidence or self.index is None:
            state, found = self._judge_evidence(source, quote, receipt, trusted, ref.lang)
            return verdict(state, *found, receipt=receipt)
        key = self._index_key(ref.key, source, quote, trusted, ref.lang)
        known = self._verdicts.get(key)  # the same quote cited again in this build
        if known is None:
            known = self._remembered(key)
        if known is None:
            self._also_read = {}
            known = self._judge_evidence(source, quote, receipt, trusted, ref.lang)
            ev = self.reader.load(receipt.evidence)
            if ev.ok and receipt.evidence not in self._unrepeatable:
                self.index.put(key, known[0].value, known[1], {**self._also_read, **ev.files})
        self._verdicts[key] = known
        return verdict(known[0], *known[1], receipt=receipt)

    def _index_key(
        self, key: str, source: Source, quote: Quote, trusted: bool, lang: str | None = None
    ) -> str:
        """Everything but the evidence a verdict is judged from (``evidence.judgements``).

        The source is its exact text in the ledger (its receipts and quotes are inside it) and
        the quote its place among the source's quotes, so an edit elsewhere in the ledger — a
        line inserted above, another source — keeps the entry, while any byte of the source's
        own changes it. A source without its own text (an eager load, an alias) is keyed by
        its value, line numbers and all. The document's locale is part of it: it decides how
        the quote's page locator reads (``S. 14`` is a page in German)."""
        locale = locale_of(lang) or ""
        memo = self._index_keys.get((key, id(quote), trusted, locale))
        if memo is not None and memo[0] is quote:
            return memo[1]
        from citeledger.ledger.outlined import source_text

        text = source_text(self.ledger.sources, key)
        at = next((i for i, q in enumerate(source.quotes) if q is quote), None)
        made_of: tuple[object, ...] = (
            ("text", text, at)
            if text is not None and at is not None
            else (repr(source), repr(quote))
        )
        made = JudgementIndex.key(
            code_version(),
            key,
            *made_of,
            self.ledger.root,
            self.ledger.allow_files_outside,
            trusted,
            self.require_signature,
            str(self.reader.root),
            self._logged_answers(source),
            *((locale,) if locale else ()),
        )
        self._index_keys[(key, id(quote), trusted, locale)] = (quote, made)  # holds quote: ids stay
        return made

    def _logged_answers(self, source: Source) -> tuple[str | None, str | None] | None:
        """What the history log holds of the registry's answers about the source's work (a
        retraction, the newest title), which a check holding no answer is judged by
        (``_earlier_answer``): part of what a verdict is remembered for, since another source,
        another ledger or a later run may log an answer for the same identifier."""
        if source.identifier.kind not in _REGISTRY:
            return None
        return self.reader.history().registry_of(str(source.identifier))

    def _remembered(self, key: str) -> tuple[State, tuple[str, ...]] | None:
        """An index entry whose every evidence file still hashes as it did (one recorded as
        absent, "", is still absent); else None."""
        assert self.index is not None
        entry = self.index.get(key)
        if entry is None or any((self.reader.digest(p) or "") != d for p, d in entry.files):
            return None
        try:
            return State(entry.state), entry.reasons
        except ValueError:
            return None

    def _judge_evidence(
        self,
        source: Source,
        quote: Quote,
        receipt: Receipt,
        trusted: bool,
        lang: str | None = None,
    ) -> tuple[State, tuple[str, ...]]:
        """What the receipt's evidence says of it: the expensive part of a judgement."""

        def verdict(state: State, *reasons: str) -> tuple[State, tuple[str, ...]]:
            return state, reasons

        ev = self.reader.load(receipt.evidence) if receipt.evidence else None
        registry = ev.registry if ev is not None and ev.ok else None
        # The registry's answer as the evidence holds it decides; a receipt line that can be
        # deleted does not. Receipts without evidence (a refused retrieval) have only their own.
        retracted = retraction_of(registry) if ev is not None and ev.ok else receipt.retracted
        if receipt.retracted and not retracted:
            return verdict(
                State.TAMPERED,
                f"The receipt says the work was retracted ({receipt.retracted}), but the "
                "registry's answer stored in its evidence records no retraction.",
            )
        carried = ""
        if ev is not None and ev.ok and registry is None and source.identifier.kind in _REGISTRY:
            # the registry was not asked this time (it failed, fetch_metadata is off, a local
            # copy asks it nothing): what it answered before still stands
            registry, retracted, carried = self._earlier_answer(source, receipt)
            if carried:
                self._unrepeatable.add(ev.path)  # rests on other checks, not on this file
        elif ev is not None and ev.ok and not retracted and source.identifier.kind in _REGISTRY:
            logged = self._logged_retraction(receipt)  # an answer without it takes none back
            if logged is not None:
                retracted, carried = logged
                self._unrepeatable.add(ev.path)  # rests on the log, not on this file
        if retracted:  # a retraction outranks everything a check could find
            return verdict(
                State.RETRACTED, f"The registry records a retraction: {retracted}{carried}"
            )
        outcome = receipt.outcome
        if outcome == "unretrievable":
            return verdict(
                State.UNRETRIEVABLE,
                f"Retrieval failed on {receipt.retrieved_at}: "
                f"{receipt.reason or 'unknown reason'}.",
            )
        if outcome == "not-found":
            reasons = [
                f"The quoted words are in the source retrieved on {receipt.retrieved_at}, but "
                "cut so that they say what it does not."
                if receipt.reason == CUT_REASON
                else f"The quoted words are not in the source retrieved on {receipt.retrieved_at}."
            ]
            reasons.extend(receipt.differences)
            if receipt.candidate:
                reasons.append(f"Nearest passage in the source: “{receipt.candidate}”")
            return verdict(State.QUOTE_NOT_FOUND, *reasons)
        if outcome in ("changed", "gone"):
            what = (
                "the document is gone: the identifier no longer resolves"
                if outcome == "gone"
                else "the quoted passage is no longer in the current version"
            )
            found = quote.last_found
            last_seen = found.retrieved_at if found else None
            reasons = [f"Rechecked on {receipt.retrieved_at}: {what}."]
            if receipt.reason:
                reasons.append(receipt.reason)
            if last_seen:
                reasons.append(f"Last seen in the source on {last_seen}.")
            return verdict(State.SOURCE_CHANGED, *reasons)
        if outcome != "found":
            return verdict(State.STALE, f"The receipt has an unknown outcome {outcome!r}.")
        problem = self._validate_found(receipt, quote, lang)
        if problem is not None:
            state, reason = problem
            return verdict(state, reason)
        if ev is not None and (other := evidence_is_other_work(ev)):  # evidence/other_work.py
            return verdict(State.METADATA_MISMATCH, f"Not checked: {other}.")
        mismatch = (
            metadata_mismatch(str(source.csl.get("title") or ""), registry)
            if ev is not None
            else receipt.metadata_mismatch
        )
        if mismatch:
            return verdict(
                State.METADATA_MISMATCH,
                f"The identifier resolves to a different work: {mismatch}{carried}",
            )
        if self.require_signature and not trusted:
            return verdict(State.UNCHECKED, self._unsigned_reason(receipt))
        return verdict(State.CHECKED, self._checked_reason(receipt))

    def _logged_retraction(self, receipt: Receipt) -> tuple[str, str] | None:
        """A retraction the history log holds for this work although the latest answer records
        none: a retraction is permanent, so a registry (or a resolver the settings point
        elsewhere) that stops saying so does not take it back."""
        logged, _ = self.reader.history().registry_of(receipt.identifier)
        if logged is None:
            return None
        return logged, (
            " (as the history log records an earlier answer of the registry; the latest "
            f"check, {receipt.retrieved_at}, holds an answer that records none)"
        )

    def _earlier_answer(
        self, source: Source, receipt: Receipt
    ) -> tuple[dict[str, Any] | None, str | None, str]:
        """The registry's answer for a check that holds none: the newest one stored with an
        earlier check of this source, and a retraction any stored or logged answer about the
        work recorded (the log keeps them when receipts are deleted). Decided by evidence and
        the log: a receipt line can add a retraction, and deleting one takes none away. The
        words say where the answer comes from ("" when there is none).
        """
        logged = self._logged_answers(source)
        logged_retraction, logged_title = logged if logged is not None else (None, None)
        work = canonical(receipt.identifier)  # the same work under any spelling of it
        earlier = sorted(
            (
                r
                for q in source.quotes
                for r in q.receipts
                if r is not receipt and canonical(r.identifier) == work and r.evidence
            ),
            key=lambda r: r.retrieved_at,
            reverse=True,
        )
        answer: dict[str, Any] | None = None
        when = ""
        retracted: str | None = None
        for r in earlier:
            assert r.evidence is not None
            old = self.reader.load(r.evidence)
            # a remembered verdict rests on these files too: "" for one that is not there
            self._also_read.update(old.files or {r.evidence: self.reader.digest(r.evidence) or ""})
            if not old.ok or old.registry is None or canonical(old.identifier or "") != work:
                continue
            if answer is None:
                answer, when = old.registry, r.retrieved_at
            retracted = retracted or retraction_of(old.registry)
        retracted = (
            retracted
            or logged_retraction
            or next((r.retracted for q in source.quotes for r in q.receipts if r.retracted), None)
        )
        if answer is None and logged_title is not None:
            answer, when = {"title": logged_title}, "as the history log records it"
        if answer is None and retracted is None:
            return None, None, ""
        return (
            answer,
            retracted,
            (
                f" (as the registry answered at an earlier check, {when or 'as its records show'}; "
                f"the latest check, {receipt.retrieved_at}, holds no answer from it)"
            ),
        )

    def _history_problem(
        self, key: str, quote: Quote, receipt: Receipt
    ) -> tuple[State, str] | None:
        """Was a later receipt of this quote removed, with or without its log lines?"""
        chain = self.reader.history()
        again = " Run `citeledger recheck`."
        head = self.ledger.history_head
        if head is not None and chain.index(head) is None:
            return State.STALE, (
                "The evidence store's history log no longer holds the entry the ledger records "
                f"as its newest ({head[:12]}…): log lines "
                f"{chain.lost}, so a "
                "later check may have been removed." + again
            )
        if chain.broken_at is not None:
            return State.STALE, (
                f"The evidence store's history log was edited (its chain breaks at line "
                f"{chain.broken_at}): entries were removed or changed." + again
            )
        if receipt.history is not None and chain.index(receipt.history) is None:
            return State.STALE, (
                "This receipt's entry is gone from the evidence store's history log: the log "
                "was cut, so a later check may have been removed." + again
            )
        entry = chain.entry(receipt.history)
        mine = chain.of_quote(  # this quote's checks: not those of its twin, or another ledger's
            key,
            receipt.identifier,
            receipt.writer_quote_sha256,
            occurrence=entry.quote if entry is not None else None,
            foreign=self.reader.foreign_ledger(self.ledger.path),
        )
        if receipt.history is not None:
            # the entry must be this receipt's own: a receipt copied onto another key, or an
            # old one given the newest entry's digest, names an entry logged for another check
            if entry is not None and (
                (entry.key, entry.identifier, entry.quote_sha256, entry.outcome)
                != (key, receipt.identifier, receipt.writer_quote_sha256, receipt.outcome)
                or entry.retrieved_at not in ("", receipt.retrieved_at)
            ):
                return State.TAMPERED, (
                    f"This receipt's entry in the evidence store's history log is another "
                    f"check's (@{entry.key}, {entry.outcome}, {entry.retrieved_at or 'undated'}):"
                    " the receipt was copied or moved by hand, not written by a check." + again
                )
            if mine and mine[-1].digest != receipt.history:
                return State.STALE, (
                    f"The evidence store logged a later check of this quote "
                    f"({mine[-1].outcome}) than the ledger's newest receipt: a receipt was "
                    "removed from the ledger (or a run was killed before writing it)." + again
                )
            return None
        # Every receipt a check writes is logged: one without an entry is from before the log,
        # and cannot be newer than a logged check of these words (of this source or another
        # with the same identifier) or follow a logged receipt.
        if chain.logged(receipt.identifier, receipt.writer_quote_sha256) or any(
            r.history for r in quote.receipts
        ):
            newest = f" (the newest logged for @{key}: {mine[-1].outcome})" if mine else ""
            return State.STALE, (
                "This receipt has no entry in the evidence store's history log, which logs "
                f"checks of this quote{newest}: a receipt was copied or written by hand, or a "
                "later one removed." + again
            )
        return None

    def _checked_as_cited(self, receipt: Receipt, source: Source) -> bool:
        """Whether the receipt checked what the ledger's identifier names now: a respelling
        (``10.1/X`` as ``10.1/x``, an ISBN-10 as its ISBN-13) keeps the check, which is then
        judged from its evidence as before; another work, or another arXiv version, does not
        (``identifiers.same_text``). An arXiv version is read from the evidence's own record,
        never the receipt's, and only when one side pins a version the other does not."""
        from citeledger.ledger.identifiers import same_text

        cited = str(source.identifier)
        if receipt.identifier == cited:
            return True
        record: dict[str, Any] = {}
        if source.identifier.kind == "arxiv" and canonical(receipt.identifier) == canonical(cited):
            ev = self.reader.load(receipt.evidence) if receipt.evidence else None
            record = (ev.registry or {}) if ev is not None and ev.ok else {}
        version, latest = record.get("version"), record.get("latest_version")
        return same_text(
            receipt.identifier,
            cited,
            version=version if isinstance(version, str) else None,
            latest=latest if isinstance(latest, str) else None,
        )

    def _signature(self, receipt: Receipt) -> tuple[str | None, bool, str | None]:
        """Who signed the receipt (words for readers), whether this build trusts that key, and
        the problem when a signature is there but does not hold."""
        if not receipt.signature:
            return None, False, None
        from citeledger.evidence.signing import payload, short, signature_holds

        if not receipt.signed_by or not signature_holds(
            receipt.signed_by, payload(receipt), receipt.signature
        ):
            return (
                None,
                False,
                (
                    "The receipt's signature does not hold: its facts were changed after "
                    f"{short(receipt.signed_by or 'ed25519:?')} signed them. Run "
                    "`citeledger verify`."
                ),
            )
        trusted = receipt.signed_by in self.trusted_keys
        words = f"{short(receipt.signed_by)} ({'trusted' if trusted else 'not a trusted key'})"
        return f"{words} on {receipt.signed_at or 'an unrecorded date'}", trusted, None

    def _unsigned_reason(self, receipt: Receipt) -> str:
        from citeledger.evidence.signing import short

        if not receipt.signature or not receipt.signed_by:
            who = "the receipt is not signed"
        else:
            who = f"it is signed by {short(receipt.signed_by)}, which is not a trusted key"
        return (
            f"This build requires receipts signed by a trusted key, and {who}: digests alone "
            "cannot tell a retrieval that happened from one that was written. Verify with a "
            "trusted key (`citeledger key init`), or add the signer to trusted-keys (ledger, "
            "CITELEDGER_TRUSTED_KEYS or `check --trusted-key`)."
        )

    def _span_supports(
        self,
        ev: LoadedEvidence,
        start: int,
        end: int,
        writer_quote: str,
        recorded: tuple[Edit, ...],
        recorded_match: str | None = None,
    ) -> tuple[tuple[Edit, ...], str | None] | None:
        """Run the locator again: the receipt is not trusted to say the words match; the same
        rules that made it must still agree. Returns the edits the locator accepts now (offsets
        in the whole text) and the kind of match it finds (``exact``, ``normalized``, ``fuzzy``:
        what the reader is told), or None when it no longer finds the quote at the span.

        A window of the span and a little context is enough when the locator finds the quote
        there at exactly the receipt's span, and the window's edges cut no word or number (so
        the locator's boundary rules see the source as it is: "within 6" is not a quote of
        "within 60") and finds the receipt's edits and match. Otherwise — a quote that runs
        across a page break, which the locator finds by setting the pages' running headers
        aside, one whose edits or match the window sees otherwise than the receipt, or one the
        window finds elsewhere — the whole text and its
        page map decide (prepared once per evidence file, and only then), and again only at
        exactly the receipt's span.
        """
        from citeledger.locate.locator import locate, locate_prepared, prepare

        assert ev.text is not None
        windowed: tuple[tuple[Edit, ...], str | None] | None = None
        lo, hi = _window(ev.text, start, end)
        result = locate(ev.text[lo:hi], writer_quote, hint=start - lo)
        if result.found and (result.char_start, result.char_end) == (start - lo, end - lo):
            edits = tuple(
                Edit(e.kind, e.quote_text, e.source_text, lo + e.char_start, lo + e.char_end)
                for e in result.edits
            )
            windowed = edits, result.match
            if windowed == (recorded, recorded_match):
                return windowed
        elif not result.found and not any(start < p < end for p in ev.page_starts):
            return None
        prepared = self._prepared.get(ev.path)
        if prepared is None:
            prepared = self._prepared[ev.path] = prepare(ev.text)
        result = locate_prepared(prepared, writer_quote, page_starts=ev.page_starts, hint=start)
        if result.found and result.char_start == start and result.char_end == end:
            return tuple(result.edits), result.match
        return windowed

    @staticmethod
    def _checked_reason(receipt: Receipt) -> str:
        where = f" on page {receipt.page}" if receipt.page else ""
        edited = f", with {count_phrase(receipt.edits)}" if receipt.edits else ""
        if receipt.local_copy is not None:
            return (
                f"Checked against the writer's local copy of {receipt.identifier} "
                f"({receipt.local_copy}), read on {receipt.retrieved_at}, not retrieved from the "
                f"identifier; the quote was found{where} ({receipt.match} match{edited})."
            )
        return (
            f"Retrieved {receipt.url or receipt.identifier} on {receipt.retrieved_at}; the quote "
            f"was found{where} ({receipt.match} match{edited})."
        )

    def _validate_found(
        self, receipt: Receipt, quote: Quote, lang: str | None = None
    ) -> tuple[State, str] | None:
        """Re-derive the receipt's claim from the evidence; ``None`` when it holds."""
        missing = [
            name
            for name in ("evidence", "body_sha256", "text_sha256", "quote", "quote_sha256")
            if getattr(receipt, name) in (None, "")
        ]
        if missing or receipt.char_start is None or receipt.char_end is None:
            return State.STALE, (
                "The receipt is incomplete (no " + ", ".join(missing or ["span"]) + "): receipts "
                "are written by `citeledger verify`, never by hand. Run it to perform the check."
            )
        assert receipt.evidence is not None
        ev = self.reader.load(receipt.evidence)
        problem = evidence_problem(receipt, ev)
        if problem is not None:
            return problem
        if ev.text is None or ev.text_sha256 != receipt.text_sha256:
            return State.TAMPERED, "The stored extracted text no longer matches its digest."
        bound = self._text_bound(receipt, ev)
        if bound is not None:
            return bound
        start, end = receipt.char_start, receipt.char_end
        if not 0 <= start < end <= len(ev.text):
            return State.TAMPERED, (
                f"The receipt's span ({start}–{end}) is not a span of the stored text "
                f"({len(ev.text)} characters)."
            )
        if receipt.page != _page_of(ev.page_starts, start):
            return State.TAMPERED, (
                f"The receipt says page {receipt.page}, but in the stored text the quote stands "
                f"on page {_page_of(ev.page_starts, start)}."
            )
        span = ev.text[start:end]
        if span != receipt.quote or sha256_hex(span) != receipt.quote_sha256:
            return State.TAMPERED, (
                f"The receipt's span ({start}–{end}) no longer holds the source's words it records."
            )
        for edit in receipt.edits:
            if ev.text[edit.char_start : edit.char_end] != edit.source_text:
                return State.TAMPERED, (
                    f"The receipt says {describe(edit)}, but the stored text at "
                    f"{edit.char_start}–{edit.char_end} does not hold those words."
                )
        supported = self._span_supports(ev, start, end, quote.text, receipt.edits, receipt.match)
        if supported is None:
            return State.TAMPERED, (
                "The source's words at the receipt's span do not match the writer's quote."
            )
        edits, match = supported
        if edits != receipt.edits:
            # Not tampered: the evidence holds, only the receipt's account of the writer's
            # changes differs from what the rules find now (a receipt from before edits were
            # recorded, or from other rules). The fix is a fresh check, as for any stale one.
            return State.STALE, (
                f"The quote's editorial marks are not the ones its receipt records: the locator "
                f"now finds {count_phrase(edits) or 'no edits'} ({describe_all(edits)}), the "
                f"receipt records {count_phrase(receipt.edits) or 'none'} "
                f"({describe_all(receipt.edits)}). Run `citeledger verify` again."
            )
        if match != receipt.match:
            # what a reader is told ("exact match") is re-derived like the edits: a receipt
            # whose word differs from the rules' is from other rules, or edited by hand
            return State.STALE, (
                f"The receipt calls the quote's match {receipt.match or 'nothing'}; at its span "
                f"the locator now finds it {match}. Run `citeledger verify` again."
            )
        return _printed_page_problem(quote.locator, ev.text, ev.page_starts, start, end, lang)

    def _text_bound(self, receipt: Receipt, ev: LoadedEvidence) -> tuple[State, str] | None:
        """Is the stored text what its extractor makes of the stored body? A signature by a
        trusted key vouches for it (it covers the whole file); otherwise the derivation is
        remembered from an earlier confirmation, or re-derived once per build."""
        made_by = ev.text_extractor or ev.extractor
        if ev.text_body_sha256 is not None and ev.text_body_sha256 != ev.body_sha256:
            return State.TAMPERED, "The stored text names another body than the one captured."
        if receipt.extractor and made_by != receipt.extractor:
            return State.TAMPERED, (
                f"The receipt names the extractor {receipt.extractor}, the evidence {made_by}."
            )
        if ev.text_confirmed is not None:
            return None if ev.text_confirmed else _REWRITTEN
        wrong_kind = _kind_problem(ev)
        if wrong_kind is not None:
            return State.TAMPERED, wrong_kind
        _, trusted, _ = self._signature(receipt)
        if trusted and receipt.evidence_sha256 == ev.file_sha256:
            return None  # not cached: another receipt on the same file may not be signed
        from citeledger.evidence.derivation import remember, remembered

        assert ev.body_sha256 is not None and ev.text_sha256 is not None
        known = remembered(ev.body_sha256, made_by or "")
        if known is not None:
            ev.text_confirmed = "remembered" if known == ev.text_sha256 else ""
            ev.body = None
            return None if ev.text_confirmed else _REWRITTEN
        from citeledger.errors import ExtractError
        from citeledger.extract.dispatch import extract

        try:
            x = extract(ev.body or b"", ev.content_type, ev.target_uri)
        except ExtractError:
            ev.text_confirmed = ""
            return _REWRITTEN
        now = f"{x.extractor} {x.extractor_version}"
        if now != made_by:
            self._unrepeatable.add(ev.path)
            return State.STALE, (
                f"The stored text was made by {made_by}; this build has {now} and cannot confirm "
                "that text from the stored body. Run `citeledger verify` again (or sign receipts "
                "with a trusted key)."
            )
        ok = sha256_hex(x.text) == ev.text_sha256
        ev.text_confirmed = "re-derived" if ok else ""
        ev.body = None
        if ok:
            remember(ev.body_sha256, now, ev.text_sha256)
        return None if ok else _REWRITTEN


def _kind_problem(ev: LoadedEvidence) -> str | None:
    """Is the extractor record's kind what the stored body is? Derived from the body, its
    content type and its address, as extraction decides it (``extract.dispatch``), never read
    off the record: the kind decides whether the text has pages (``model.page_starts_of``), so
    a PDF's record rewritten to ``text`` would empty its page map and pass any page locator."""
    from citeledger.errors import ExtractError
    from citeledger.extract.dispatch import detect_kind

    try:
        kind = detect_kind(ev.body or b"", ev.content_type, ev.target_uri)
    except ExtractError as e:
        kind = f"not a text ({e.message})"
    if kind == ev.kind:
        return None
    return (
        f"The evidence's extractor record says its body is {ev.kind or 'of no kind'}, but the "
        f"stored body is {kind}: the record was rewritten (a PDF's page map taken away, say)."
    )


_REWRITTEN = (
    State.TAMPERED,
    "The stored text is not what its extractor makes of the stored body: the text record was "
    "rewritten, so the quote may be in words the source never had.",
)


def _printed_page_problem(
    locator: str | None,
    text: str,
    page_starts: tuple[int, ...],
    start: int,
    end: int,
    lang: str | None = None,
) -> tuple[State, str] | None:
    """A reader goes to the page the locator names: in a PDF, the quote must stand on a page
    one of its comma parts names — the physical page of that number, or one that prints the
    number (a journal's p. 170 on the file's sixth page; front matter's ``p. xii`` only on the
    page printing xii). A wide range is a span like any other: the quote must lie in it.

    Where a page prints its number is read narrowly (``_printed_numbers``: a number at the edge
    of one of its first or last two lines, preferring those its neighbours confirm), and whose
    number it is strictly: the quote's own words never count ("within 60 days" is not p. 60),
    nor a number in the middle of a line or of the page (a table cell).

    Failing, it stays a breakdown (quote-not-found, ``Judgement.misplaced``) whose words say
    what is true — verify found the quote, on another page — never that the words are missing.
    """
    spans = page_spans(locator, lang) if page_starts else None
    if spans is None or locator is None:
        return None
    first, last = _page_of(page_starts, start) or 1, _page_of(page_starts, max(start, end - 1)) or 1
    pages = range(first, last + 1)
    if any(not s.roman and s.lo <= p <= s.hi for s in spans for p in pages):
        return None
    for p in pages:
        printed = _printed_numbers(text, page_starts, p, start, end)
        if any(s.roman == roman and s.lo <= n <= s.hi for s in spans for n, roman in printed):
            return None
    return State.QUOTE_NOT_FOUND, misplaced_reason(
        locator, first, last, _printed_number(text, page_starts, first)
    )


def misplaced_reason(locator: str, first: int, last: int, printed: int | None) -> str:
    """The page rule's words: where verify found the quote, what the locator says, the fix."""
    pages = f"page {first}" if first == last else f"pages {first}–{last}"
    shown = f" (printed page {printed})" if printed is not None else ""
    return (
        f"`citeledger verify` found the quote on {pages} of the PDF{shown}, but its locator "
        f"says {locator}, which is not that page and is not printed on it: a reader who goes "
        f"to {locator} will not find it. Fix the locator (the citation's and the quote's "
        "`locator:` in the ledger) or the quote."
    )


def _page_text(text: str, page_starts: tuple[int, ...], p: int) -> str:
    return text[page_starts[p - 1] : page_starts[p] if p < len(page_starts) else len(text)]


def _printed_numbers(
    text: str, page_starts: tuple[int, ...], p: int, start: int = 0, end: int = 0
) -> set[tuple[int, bool]]:
    """The numbers page ``p`` prints as its page number, as (value, roman): one at the edge of
    its first or last two lines (a running head or foot, a line that is only the number) that
    fits an offset the file confirms (``_page_offsets``), the quote's span ``[start, end)``
    blanked first so the quote never names its own page. A number that fits no confirmed
    sequence is a heading's ``3.``, a year or a table cell, never the page's number."""
    offsets = _page_offsets(text, page_starts, start, end)
    here = _edge_numbers(_blanked(text, page_starts, p, start, end))
    return {(n, roman) for n, roman in here if (n - p, roman) in offsets}


def _page_offsets(
    text: str, page_starts: tuple[int, ...], start: int = 0, end: int = 0
) -> set[tuple[int, bool]]:
    """The offsets (printed number minus physical page, and whether in roman numerals) the
    file confirms: ones that at least two pairs of neighbouring pages agree on (one prints n,
    the next n + 1), so that two section headings in a row are not a sequence. Offset 0 always
    counts: it is the physical page, whether printed as 4 or as front matter's iv."""
    edges = list(_file_edges(text, page_starts))
    if start < end:  # the quote's own pages read again, the quote blanked
        for q in range(
            _page_of(page_starts, start) or 1, (_page_of(page_starts, end - 1) or 1) + 1
        ):
            edges[q - 1] = frozenset(_edge_numbers(_blanked(text, page_starts, q, start, end)))
    pairs: Counter[tuple[int, bool]] = Counter()
    for q, (here, after) in enumerate(itertools.pairwise(edges), start=1):
        pairs.update((n - q, roman) for n, roman in here if (n + 1, roman) in after)
    return {k for k, c in pairs.items() if c >= 2} | {(0, False), (0, True)}


@functools.lru_cache(maxsize=8)
def _file_edges(text: str, page_starts: tuple[int, ...]) -> tuple[frozenset[tuple[int, bool]], ...]:
    """Each page's ``_edge_numbers``, once per file: every page locator judged against it
    reads the whole file's sequence (a book's thousand pages, for each of its citations)."""
    pages = range(1, len(page_starts) + 1)
    return tuple(frozenset(_edge_numbers(_page_text(text, page_starts, q))) for q in pages)


def _blanked(text: str, page_starts: tuple[int, ...], p: int, start: int, end: int) -> str:
    """Page ``p``'s text with the quote's span ``[start, end)`` blanked."""
    lo = page_starts[p - 1]
    page = _page_text(text, page_starts, p)
    a, b = max(start - lo, 0), min(end - lo, len(page))
    return page[:a] + " " * (b - a) + page[b:] if a < b else page


_EDGE_TOKENS = re.compile(r"^\W*(\w+)|(\w+)\W*$")
_OF_TOTAL = re.compile(r"(\d{1,5})\s*(?:/|of|von|sur|de)\s*\d{1,5}\W*$", re.IGNORECASE)


def _edge_numbers(page: str) -> set[tuple[int, bool]]:
    """Numbers standing at the start or end of a page's first or last two lines, as (value,
    roman): where a page number is printed (``95``, ``- 3 -``, ``Page 3``, ``3 of 10``, a
    lower-case ``xii``, or ``XII`` alone on its line)."""
    from citeledger.build.pinpoints import roman_numeral, roman_value

    lines = [line.strip() for line in page.splitlines() if line.strip()]
    out: set[tuple[int, bool]] = set()
    for line in {*lines[:2], *lines[-2:]}:
        total = _OF_TOTAL.search(line)
        if total is not None:
            out.add((int(total.group(1)), False))
        alone = len(line.split()) == 1
        for m in _EDGE_TOKENS.finditer(line):
            token = m.group(1) or m.group(2)
            if token.isdigit() and len(token) <= 5:
                out.add((int(token), False))
            elif roman_numeral(token) and (token.islower() or alone):
                out.add((roman_value(token), True))
    return out


def _printed_number(text: str, page_starts: tuple[int, ...], p: int) -> int | None:
    """The page number page ``p`` prints, when it fits a sequence the file confirms (the rule
    of ``_printed_numbers``), the physical number only when it is the one printed; None when
    unsure — then none is named."""
    printed = {n for n, roman in _printed_numbers(text, page_starts, p) if not roman}
    other = printed - {p} or printed
    return other.pop() if len(other) == 1 else None


_EDGE_REACH = 256  # characters a window's edge moves outward to a word's edge, at most


def _window(text: str, start: int, end: int) -> tuple[int, int]:
    """The span and ``_CONTEXT`` characters either side, widened so that neither edge cuts a
    word or number: the window starts where a word starts and ends where one ends, or at the
    text's own edges (taken when no space is near enough)."""
    from citeledger.locate.context import LOOK_AFTER, LOOK_BEFORE

    n = len(text)
    # at least what the locator reads of a quote's sentence (its frame, a bracket's referent)
    lo, hi = max(0, start - max(_CONTEXT, LOOK_BEFORE)), min(n, end + max(_CONTEXT, LOOK_AFTER))
    floor, ceiling = max(0, lo - _EDGE_REACH), min(n, hi + _EDGE_REACH)
    while lo and not (text[lo - 1].isspace() and not text[lo].isspace()):
        lo = lo - 1 if lo > floor else 0
    while hi < n and not (text[hi].isspace() and not text[hi - 1].isspace()):
        hi = hi + 1 if hi < ceiling else n
    return lo, hi


def _page_of(page_starts: tuple[int, ...], offset: int) -> int | None:
    import bisect

    return bisect.bisect_right(page_starts, offset) if page_starts else None


def evidence_problem(receipt: Receipt, ev: LoadedEvidence) -> tuple[State, str] | None:
    """What only the evidence file can tell against a receipt: it is gone or unreadable, or it
    captured another body, another identifier or another address than the receipt says.

    One rule for every reader of evidence (the judgement, the evidence pages): a receipt copied
    onto another source, or evidence swapped under a receipt, fails here.
    """
    if ev.problems:
        text = "; ".join(ev.problems)
        if any("missing" in p for p in ev.problems):
            return State.STALE, f"The evidence for this receipt is gone: {text}. Re-verify."
        return State.TAMPERED, f"The stored evidence cannot be trusted: {text}."
    if ev.declared_body_sha256 != receipt.body_sha256 or ev.body_sha256 != receipt.body_sha256:
        return State.TAMPERED, (
            "The stored body no longer matches the digest in its receipt "
            f"(receipt sha256 {(receipt.body_sha256 or '?')[:12]}…, stored "
            f"{(ev.body_sha256 or '?')[:12]}…)."
        )
    if ev.identifier != receipt.identifier:
        return State.TAMPERED, (
            f"The evidence was retrieved for {ev.identifier or 'an unnamed identifier'}, not for "
            f"{receipt.identifier}: a receipt cannot be moved from one source to another."
        )
    if receipt.local_copy is not None and receipt.url != f"file:{receipt.local_copy}":
        return State.TAMPERED, (
            f"The receipt says it was checked against the local copy {receipt.local_copy}, "
            f"but it names {receipt.url or 'no address'}."
        )
    if (
        receipt.local_copy is None
        and (ev.target_uri or "").startswith("file:")
        and not receipt.identifier.startswith("file:")
    ):
        # the writer's own file read for a DOI or URL: the receipt must say so, or its reader
        # would be told the source was retrieved from its identifier
        return State.TAMPERED, (
            f"The evidence was read from the local file {ev.target_uri}, but the receipt does "
            "not say it was checked against a local copy."
        )
    if ev.target_uri != receipt.url:
        return State.TAMPERED, (
            f"The evidence records {ev.target_uri}, but the receipt claims "
            f"{receipt.url or 'no address'}."
        )
    snapshot = snapshot_problem(receipt, ev)
    if snapshot is not None:
        return State.TAMPERED, snapshot
    if receipt.evidence_sha256 and receipt.evidence_sha256 != ev.file_sha256:
        return State.TAMPERED, "The evidence file is not the one its receipt was written for."
    if not receipt.evidence_sha256 and receipt.outcome == "found":
        # verify always writes it: without it, records deleted from the evidence file (the
        # registry's answer, say) would go unseen. An older receipt is not grandfathered.
        return State.STALE, (
            "The receipt does not record the digest of its evidence file (evidence_sha256), so "
            "nothing ties it to the evidence as it was written: a line deleted from the receipt, "
            "or a receipt from an older version. Run `citeledger verify` again."
        )
    # Every fact a reader is shown must be the evidence's; older files that did not record a
    # fact are held to what they do record.
    facts = (
        ("retrieved", receipt.retrieved_at, ev.warc_date, True),
        ("requested address", receipt.requested_url, ev.requested_uri, ev.requested_uri),
        ("redirects", receipt.redirects, ev.redirects, ev.redirects is not None),
        ("HTTP status", receipt.status, ev.status, ev.status is not None),
        ("content type", receipt.content_type, ev.content_type, ev.requested_uri),
    )
    for what, claimed, recorded, known in facts:
        if known and claimed != recorded:
            return State.TAMPERED, (
                f"The receipt's {what} ({_fact(claimed)}) is not what its evidence records "
                f"({_fact(recorded)}): receipts are written by `citeledger verify`, not by hand."
            )
    return None


def snapshot_problem(receipt: Receipt, ev: LoadedEvidence) -> str | None:
    """The bundle is atomic: a receipt that names a snapshot is checked only with that image,
    present in its evidence, bound to the capture and unaltered."""
    if not receipt.snapshot and not receipt.snapshot_sha256:
        return None
    shot = ev.snapshots.get(receipt.snapshot or "")
    if shot is None:
        return (
            "The receipt names a snapshot of the page that its evidence file no longer holds: "
            "the evidence bundle is incomplete."
        )
    if shot.sha256 != receipt.snapshot_sha256:
        return (
            f"The stored snapshot no longer matches the digest in its receipt (receipt sha256 "
            f"{(receipt.snapshot_sha256 or '?')[:12]}…, stored {shot.sha256[:12]}…)."
        )
    return None


def _fact(value: object) -> str:
    if isinstance(value, tuple):
        return " → ".join(value) if value else "none"
    return "none" if value in (None, "") else str(value)
