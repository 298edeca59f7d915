"""The data every stage hands to the next, as frozen values.

Data flows one way: retrieve → extract → locate → receipt, and ledger + evidence → judgement →
render. Each arrow carries one of these types, so a stage can be tested with values alone and no
stage can reach back into another's internals. Nothing here does I/O.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class State(str, Enum):
    """The vocabulary of ``check --json``, the filter's classes and the docs (design.md)."""

    CHECKED = "checked"
    UNCHECKED = "unchecked"
    NOT_IN_LEDGER = "not-in-ledger"
    QUOTE_NOT_FOUND = "quote-not-found"
    UNRETRIEVABLE = "unretrievable"
    STALE = "stale"
    TAMPERED = "tampered"
    SOURCE_CHANGED = "source-changed"
    WITHDRAWN = "withdrawn"
    DISPUTED = "disputed"
    RETRACTED = "retracted"
    METADATA_MISMATCH = "metadata-mismatch"
    RESTRICTED = "restricted"

    @property
    def is_breakdown(self) -> bool:
        return self is not State.CHECKED

    @property
    def title(self) -> str:  # type: ignore[override]
        """Words a reader sees at the claim; never a euphemism for 'not checked'."""
        return STATE_TITLES[self]


STATE_TITLES: Mapping[State, str] = {
    State.CHECKED: "Checked",
    State.UNCHECKED: "Unchecked citation: not verified against its source",
    State.NOT_IN_LEDGER: "Unchecked citation: this source is not in the ledger",
    State.QUOTE_NOT_FOUND: "Citation failed: the quoted words are not in the source",
    State.UNRETRIEVABLE: "Unchecked citation: the source could not be retrieved",
    State.STALE: "Unchecked citation: the check no longer applies",
    State.TAMPERED: "Citation failed: the stored evidence does not match its receipt",
    State.SOURCE_CHANGED: "Citation failed: the source has changed since it was checked",
    State.WITHDRAWN: "Withdrawn citation",
    State.DISPUTED: "Disputed citation: the source does not support this claim",
    State.RETRACTED: "Retracted work cited",
    State.METADATA_MISMATCH: "Citation failed: the identifier names a different work",
    State.RESTRICTED: "Restricted citation: not shown to this audience",
}

# a quote verify found, held by the judge's page rule to a page it does not stand on: the state
# stays quote-not-found (a breakdown), but "the quoted words are not in the source" would
# contradict what verify printed, so its own words say what is true (``title_of``)
MISPLACED_TITLE = "Citation failed: the quote was found, but not on the page its locator names"
MISPLACED_LABEL = "quote on another page"


def title_of(state: State, misplaced: bool = False) -> str:
    """The title of a breakdown, the same in callouts, warnings, the audit and ``check``."""
    return MISPLACED_TITLE if misplaced and state is State.QUOTE_NOT_FOUND else state.title


IDENTIFIER_KINDS = ("url", "doi", "arxiv", "isbn", "file")


@dataclass(frozen=True)
class Identifier:
    """The one resolvable identifier of a source: what ``verify`` sends, and nothing more."""

    kind: str  # one of IDENTIFIER_KINDS
    value: str

    def __str__(self) -> str:
        return f"{self.kind}:{self.value}"


@dataclass(frozen=True)
class Receipt:
    """What one retrieval of one quote found. Written only by ``verify``/``recheck``.

    ``outcome`` is ``found``, ``not-found``, ``unretrievable``, ``changed`` or ``gone``. A
    ``found`` receipt proves nothing by itself: ``judge`` re-validates it against the evidence.
    """

    outcome: str
    identifier: str
    retrieved_at: str
    tool: str
    writer_quote_sha256: str
    reason: str | None = None
    requested_url: str | None = None
    url: str | None = None
    redirects: tuple[str, ...] = ()
    status: int | None = None
    content_type: str | None = None
    body_sha256: str | None = None
    evidence: str | None = None
    extractor: str | None = None
    text_sha256: str | None = None
    page: int | None = None
    char_start: int | None = None
    char_end: int | None = None
    quote: str | None = None
    quote_sha256: str | None = None
    prefix: str | None = None
    suffix: str | None = None
    match: str | None = None
    score: float | None = None
    candidate: str | None = None
    differences: tuple[str, ...] = ()
    edits: tuple[Edit, ...] = ()  # every bracket and omission the locator accepted
    last_revised: str | None = None
    etag: str | None = None
    last_modified: str | None = None
    metadata: Mapping[str, Any] | None = None
    retracted: str | None = None
    metadata_mismatch: str | None = None
    fulltext_error: str | None = None  # a DOI whose evidence is its landing page: why
    # the text came from the writer's own copy of the work (the source's ``local_copy``, as the
    # ledger names it), not from the identifier's address: what a reader is told it was checked
    # against
    local_copy: str | None = None
    evidence_sha256: str | None = None  # of the whole evidence file: what a signature covers
    snapshot: str | None = None  # WARC-Record-ID of the span's image in the evidence file
    snapshot_sha256: str | None = None  # of the image's bytes
    snapshot_note: str | None = None  # why a found quote has no snapshot ("no snapshot: …")
    # recheck: the work was re-issued after this check ("checked v1, now v2"); the check
    # itself stands on the version it was made on, and the build shows this as a warning
    version_changed: str | None = None
    history: str | None = None  # digest of this receipt's entry in the store's chained log
    signed_by: str | None = None  # the signing key's public name (ed25519:…)
    signed_at: str | None = None
    signature: str | None = None
    line: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Review:
    """The writer's answer that a quote supports a claim, recorded by ``citeledger review``.

    Kept under the quote in the ledger. The judge never reads it: a review neither makes nor
    unmakes ``checked`` (that is the retrieval's to earn). It holds for the claim's words and
    the quote's words it was made on (their digests); once either is edited it is out of date.
    """

    date: str
    reviewer: str
    claim_sha256: str
    quote_sha256: str
    claim: str = ""  # the claim's words when reviewed, so "out of date" can show what changed
    line: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Quote:
    """What the writer says the source says, and the receipts of every check of it."""

    text: str
    id: str | None = None
    locator: str | None = None
    receipts: tuple[Receipt, ...] = ()
    asserted_verified: bool = False  # a hand-written verified/checked flag: never trusted
    reviews: tuple[Review, ...] = ()  # the writer's reviews of claims against it (never judged)
    line: int | None = field(default=None, compare=False)
    asserted_line: int | None = field(default=None, compare=False)  # where that flag stands

    @property
    def latest(self) -> Receipt | None:
        return self.receipts[-1] if self.receipts else None

    @property
    def last_found(self) -> Receipt | None:
        """The newest receipt that found the quote: where it was last seen, and when."""
        for r in reversed(self.receipts):
            if r.outcome == "found":
                return r
        return None


@dataclass(frozen=True)
class Withdrawal:
    """A recorded withdrawal or dispute: never deleted, only added to."""

    date: str
    reason: str
    source_says: str | None = None
    line: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Source:
    key: str
    identifier: Identifier
    csl: Mapping[str, Any] = field(default_factory=dict)  # bibliographic fields, CSL-JSON names
    quotes: tuple[Quote, ...] = ()
    withdrawn: Withdrawal | None = None
    disputed: Withdrawal | None = None
    audience: tuple[str, ...] = ()  # empty: everyone
    # the writer's copy of the work (a path relative to the ledger), read instead of the
    # network; the identifier stays what the source is cited as
    local_copy: str | None = None
    line: int | None = field(default=None, compare=False)
    local_copy_line: int | None = field(default=None, compare=False)

    @property
    def title(self) -> str:
        return str(self.csl.get("title") or self.key)


@dataclass(frozen=True)
class Ledger:
    path: str  # the ledger file, as given
    root: str  # its folder: file identifiers and the evidence store are relative to it
    sources: Mapping[str, Source]
    evidence_dir: str  # absolute path of the evidence store
    allow_files_outside: bool = False  # `file:` identifiers may leave the ledger's folder
    trusted_keys: tuple[str, ...] = ()  # public keys whose signed receipts this ledger trusts
    require_signature: bool = False  # a receipt not signed by a trusted key is not checked
    history_head: str | None = None  # digest of the newest history entry the ledger has seen


@dataclass(frozen=True)
class CitationRef:
    """One citation as it stands in the document: ``[@key, p. 14]`` → key and locator."""

    key: str
    locator: str | None = None
    selector: str | None = None  # explicit quote id (``quote:ID`` in the suffix)
    mode: str = "NormalCitation"
    claim: str = ""
    occurrence: int = 0  # running number in document order; stable ids derive from it
    # what the document itself shows cannot be checked (a raw TeX citation command, a pinpoint
    # the build cannot read): a breakdown whatever the ledger holds, for this reason
    problem: str | None = None
    # the document's language (its ``lang``): its locator terms are read too (``S. 14``)
    lang: str | None = None


@dataclass(frozen=True)
class Judgement:
    key: str
    state: State
    reasons: tuple[str, ...]
    source: Source | None = None
    quote: Quote | None = None
    receipt: Receipt | None = None
    signer: str | None = None  # "ed25519:… (trusted) on DATE" when a signature holds

    @property
    def is_breakdown(self) -> bool:
        return self.state.is_breakdown

    @property
    def misplaced(self) -> bool:
        """Verify found the quote, and the page rule failed it where it stands: the only way a
        receipt that says ``found`` becomes quote-not-found (``judge``)."""
        r = self.receipt
        return self.state is State.QUOTE_NOT_FOUND and r is not None and r.outcome == "found"

    @property
    def title(self) -> str:
        return title_of(self.state, self.misplaced)


def page_starts_of(kind: str | None, text: str) -> tuple[int, ...]:
    """Where each page of an extracted text starts, read off the text itself: a PDF's pages are
    joined by a form feed, which no page holds (``extract.pdf`` turns control characters into
    U+FFFD); other texts have no pages. So the page map is bound to the text, and evidence is
    held to it: a page a reader is shown cannot be made up beside a text that is the body's."""
    if kind != "pdf":
        return ()
    starts = [0]
    at = text.find("\f")
    while at != -1:
        starts.append(at + 1)
        at = text.find("\f", at + 1)
    return tuple(starts)


@dataclass(frozen=True)
class Extracted:
    """The text of a retrieved body, with where each page starts (code-point offsets)."""

    text: str
    kind: str  # "html" | "pdf" | "text"
    extractor: str  # e.g. "pdfminer.six"
    extractor_version: str
    page_starts: tuple[int, ...] = ()  # page i+1 starts at page_starts[i]; empty: no pages
    title: str | None = None
    last_revised: str | None = None

    def page_of(self, offset: int) -> int | None:
        if not self.page_starts:
            return None
        return bisect.bisect_right(self.page_starts, offset)


@dataclass(frozen=True)
class Edit:
    """One editorial mark the locator accepted, so the reader can see what the writer changed.

    ``kind`` is ``bracket`` (``quote_text`` is the bracket as typed, ``source_text`` the source
    words it stands for, empty for an insertion such as ``[sic]``) or ``omission``
    (``quote_text`` is the ellipsis as typed, ``source_text`` the exact words left out).
    ``char_start``/``char_end``: where ``source_text`` is in the extracted text.
    """

    kind: str
    quote_text: str
    source_text: str
    char_start: int
    char_end: int


@dataclass(frozen=True)
class LocateResult:
    """The locator's answer: a span of the extracted text, or a refusal with the nearest miss."""

    found: bool
    match: str | None = None  # "exact" | "normalized" | "fuzzy"
    char_start: int | None = None
    char_end: int | None = None
    source_quote: str | None = None  # text[char_start:char_end], the source's own words
    score: float | None = None
    candidate: str | None = None  # nearest span when refused
    differences: tuple[str, ...] = ()  # e.g. ("source says '60', quote says '90'",)
    ambiguous: bool = False  # the passage occurs more than once
    reason: str | None = None
    edits: tuple[Edit, ...] = ()  # every bracket and omission accepted, in quote order


@dataclass(frozen=True)
class Retrieval:
    """One completed HTTP (or file) retrieval, everything the evidence record needs."""

    identifier: Identifier
    requested_url: str
    url: str  # final, after redirects
    status: int
    content_type: str | None
    body: bytes
    retrieved_at: str  # ISO 8601 UTC
    request_headers: tuple[tuple[str, str], ...] = ()
    response_headers: tuple[tuple[str, str], ...] = ()
    redirects: tuple[str, ...] = ()
    protocol: str = "HTTP/1.1"
    metadata: Mapping[str, Any] | None = None  # CSL-JSON from the registry, when fetched
    reconstructed: bool = False  # True for file: sources (no HTTP exchange happened)
    local_copy: str | None = None  # read from the writer's local copy (its ledger path)

    @property
    def recorded_uri(self) -> str:
        """The address the evidence and the receipt name: a local file as the ledger names it
        (never the machine's absolute path), else the URL the body came from."""
        if self.local_copy is not None:
            return f"file:{self.local_copy}"
        return str(self.identifier) if self.reconstructed else self.url
