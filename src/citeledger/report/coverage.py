"""Provenance coverage: what share of a document's prose sentences declare where they come from.

The metric of seed 001, computed on the pandoc JSON AST: prose sentences are sentence fragments
of four or more words in prose blocks, once headings, table rows and code are dropped; a sentence
has provenance when it carries a citation (a ``Cite`` that is not a cross-reference) or an
explicit unverified marker (``[claim]{.unverified}``, or a ``::: unverified`` Div around it). The
number judges declaration, never source quality or whether a citation was checked: that is
``judge``'s job. It must never read the ledger, never touch the network and never alter the
document it is given.

Choices the seed leaves open, decided here (user documentation should repeat them):

* footnote text is prose: a note's sentences count on their own; a sentence whose footnote
  holds a citation has provenance (notes made only of ``^[@key]`` are how Chicago-style
  documents cite);
* figure and table captions are prose (only table *rows* are dropped): a caption can make a
  claim, and the corpus puts citations there; image alt text is not prose (in a figure it
  repeats the caption);
* definition-list terms are labels, like headings, and are dropped; their definitions are prose;
* code is dropped: ``CodeBlock``, ``RawBlock``, ``Code`` and ``RawInline`` contribute no words,
  so a raw TeX ``\\cite{}`` is not provenance (citeledger cannot check it); an inline formula
  counts as one word;
* a ``Cite`` inside link text is a handle that pandoc parsed as a citation (``[@user](url)``),
  not declared provenance (the filter still reports it, so the writer sees it); a ``Cite``
  whose keys are all cross-references (``@fig-…``, ``@sec:…``, ``@thm-…``, a ``crossref: custom:``
  kind: exactly ``citations.is_crossref``, the filter's own test) is not provenance, one mixing
  a real key in is;
* ``citeledger-*`` Divs (the tool's own callouts and audit section) and the bibliography Div
  ``#refs`` are not the writer's prose; ``citeledger-*`` Spans add no words but keep the
  provenance of the citations inside them;
* metadata (title, abstract in YAML) is not counted: only the body;
* with no prose sentences at all the ratio is ``None`` (reported as ``null``), not 1.0: an empty
  document is not fully grounded.

Sentences are cut by ``sentences``, the splitter that also gives a citation its claim, over the
walk ``citations`` makes for the filter and ``check``: a claim and the coverage sentence that
carries it are the same span.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

# the filter's walk and its cross-reference rule: a key the filter judges as a citation must
# count as declared provenance here, and the other way round
from citeledger.build.citations import is_crossref as is_crossref
from citeledger.build.citations import scan_document, squash
from citeledger.build.sentences import BREAK, MATH, NOTE, TEXT, Flat, claim_text, split

MIN_WORDS = 4


@dataclass(frozen=True)
class Sentence:
    text: str
    words: int
    has_provenance: bool
    unverified: bool
    claim: str = field(default="", compare=False)  # its words as a citation's claim reads them


@dataclass(frozen=True)
class Coverage:
    prose_sentences: int
    with_provenance: int
    unverified: int = 0
    without_provenance: list[str] = field(default_factory=list)

    @property
    def ratio(self) -> float | None:
        """Share of prose sentences with provenance; None when there are no prose sentences."""
        if self.prose_sentences == 0:
            return None
        return self.with_provenance / self.prose_sentences

    def to_json(self) -> dict[str, Any]:
        ratio = self.ratio
        return {
            "prose_sentences": self.prose_sentences,
            "with_provenance": self.with_provenance,
            "ratio": None if ratio is None else round(ratio, 4),
            "unverified": self.unverified,
            "without_provenance": list(self.without_provenance),
        }


def compute_coverage(doc_json: Mapping[str, Any], cited: Collection[str] = ()) -> Coverage:
    """Coverage of a whole document (the dict ``pandoc -t json`` prints). ``cited``: keys
    with a cross-reference prefix that are citations of it (``citations.sourced_crossrefs``)."""
    sentences = [s for s in prose_sentences(doc_json, cited)]
    return Coverage(
        prose_sentences=len(sentences),
        with_provenance=sum(1 for s in sentences if s.has_provenance),
        unverified=sum(1 for s in sentences if s.unverified),
        without_provenance=[s.text for s in sentences if not s.has_provenance],
    )


def prose_sentences(doc_json: Mapping[str, Any], cited: Collection[str] = ()) -> Iterator[Sentence]:
    """Every prose sentence of the body in document order; a note's follow its host block."""
    if not isinstance(doc_json.get("blocks"), list):
        raise ValueError("not a pandoc JSON document: no 'blocks' list")
    found: list[Sentence] = []

    def on_prose(flat: Flat) -> None:
        for lo, hi in split(flat):
            sentence = _sentence(flat, lo, hi)
            if sentence is not None:
                found.append(sentence)

    scan_document(dict(doc_json), on_prose, cited=cited)
    yield from found


def _sentence(flat: Flat, lo: int, hi: int) -> Sentence | None:
    shown: list[str] = []
    counted: list[str] = []
    prev_math = False
    for k in range(lo, hi):
        ch, kind = flat.chars[k], flat.kinds[k]
        if kind == NOTE:
            continue
        shown.append(" " if kind == BREAK else ch)
        if kind == TEXT:
            counted.append(ch)
        elif kind == MATH:
            if not prev_math:
                counted.append(" x ")
        else:
            counted.append(" ")
        prev_math = kind == MATH
    words = sum(1 for tok in "".join(counted).split() if any(ch.isalnum() for ch in tok))
    if words < MIN_WORDS:
        return None
    return Sentence(
        text=" ".join("".join(shown).split()),
        words=words,
        has_provenance=any(flat.prov[lo:hi]),
        unverified=any(flat.unv[lo:hi]),
        claim=squash(claim_text(flat, lo, hi)),
    )
