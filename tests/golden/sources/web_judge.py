"""A judge for the ``sources`` golden and the filter's source-link tests: checked web sources.

Extends the fixture judge (``tests/data/filter``): ``@web-checked`` is a checked HTML page whose
receipt spans the quote in the stored text, ``@pdf-checked`` a checked PDF (page 3),
``@file-checked`` a checked local file, ``@web-restricted`` a web source for another audience;
every other key is judged as the fixture judge does. ``WebJudge.reader`` stands in for the
evidence store: it hands back the extracted text the text fragment is built from.
"""

from __future__ import annotations

from dataclasses import dataclass

from fixture_judge import FixtureJudge, judgement_for

from citeledger.model import CitationRef, Identifier, Judgement, Quote, Receipt, Source, State

PAGE_URL = "https://example.org/manual.html"
PDF_URL = "https://example.org/paper.pdf"
EVIDENCE = "sha256/ab/abcdef"
TEXT = (
    "14 Appeals\n14.2 An appeal against a declined claim must be received within 60 days of "
    "the decision. Late appeals are considered only for good reason."
)
QUOTE = "An appeal against a declined claim must be received within 60 days of the decision."
RESTRICTED_TITLE = "SECRET-TITLE-DO-NOT-SHOW"


@dataclass(frozen=True)
class Loaded:
    text: str | None
    problems: tuple[str, ...] = ()


class FakeReader:
    """What ``report.anchor_for`` asks of an evidence reader: ``load(rel)``."""

    def load(self, rel: str) -> Loaded:
        return Loaded(TEXT if rel == EVIDENCE else None)


def _receipt(url: str | None, identifier: str, **kw: object) -> Receipt:
    return Receipt(
        outcome="found",
        identifier=identifier,
        retrieved_at="2026-03-04T09:12:44Z",
        tool="citeledger 0.1.0",
        writer_quote_sha256="0" * 64,
        url=url,
        quote=QUOTE,
        **kw,  # type: ignore[arg-type]
    )


def web_judgement(ref: CitationRef) -> Judgement:
    start = TEXT.index(QUOTE)
    span = {"char_start": start, "char_end": start + len(QUOTE)}
    receipts = {
        "web-checked": (
            Identifier("url", PAGE_URL),
            _receipt(PAGE_URL, f"url:{PAGE_URL}", evidence=EVIDENCE, **span),
        ),
        "pdf-checked": (
            Identifier("url", PDF_URL),
            _receipt(PDF_URL, f"url:{PDF_URL}", page=3, char_start=0, char_end=10),
        ),
        "file-checked": (
            Identifier("file", "notes.txt"),
            _receipt(None, "file:notes.txt", evidence=EVIDENCE, **span),
        ),
        "web-restricted": (
            Identifier("url", PAGE_URL),
            _receipt(PAGE_URL, f"url:{PAGE_URL}", evidence=EVIDENCE, **span),
        ),
    }
    if ref.key not in receipts:
        return judgement_for(ref)
    identifier, receipt = receipts[ref.key]
    restricted = ref.key == "web-restricted"
    title = RESTRICTED_TITLE if restricted else f"The source of {ref.key}"
    quote = Quote(QUOTE, receipts=(receipt,))
    source = Source(ref.key, identifier, {"title": title}, (quote,))
    if restricted:
        reasons = ("This source is limited to another audience.",)
        return Judgement(ref.key, State.RESTRICTED, reasons, source, quote, receipt)
    reasons = ("The quote was found in the retrieved source.",)
    return Judgement(ref.key, State.CHECKED, reasons, source, quote, receipt)


class WebJudge(FixtureJudge):
    reader = FakeReader()

    def judge(self, ref: CitationRef) -> Judgement:
        self.seen.append(ref)
        return web_judgement(ref)
