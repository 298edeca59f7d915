"""Measure the PDF text extractors on the corpus, to choose one by evidence (see extract_pdf).

For each candidate library — pypdf, pdfminer.six, pypdfium2 — and for citeledger's own
``extract`` (PDFium plus its clean-up), over the 25 PDFs in ``../shared/corpus/pdf``:

* total seconds and the ratio to the fastest;
* probe sentences found contiguous: real sentences read off the rendered pages, chosen to run
  over several lines of a column, across a column or figure break, next to inline
  mathematics, through ligatures and words hyphenated at line ends. A probe is found when it
  occurs in the library's text after the normalisation a locator applies (NFKC, which folds
  ligatures; hyphen + newline joined; hyphens and quote styles folded; whitespace collapsed).
  A second count ignores whitespace altogether, to tell reading-order faults (missing in both)
  from words run together or split (found only in the second);
* ligature code points (U+FB00–FB06) left in the text, words hyphenated at line ends as they
  come out, and files that failed.

Run: ``.venv/bin/python bench/bench_extract_pdf.py`` (about a minute; nothing is written).
Probe sentences are short quotations for testing only.
"""

from __future__ import annotations

import io
import itertools
import re
import sys
import time
import unicodedata
import warnings
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "pdf"
sys.path.insert(0, str(ROOT / "src"))

# (file stem, page, sentence as printed, with ligatures written as letters)
PROBES: list[tuple[str, int, str]] = [
    # bunescu-acl07 p.2: two-column ACL paper, hyphenated line ends, a table between paragraphs
    (
        "bunescu-acl07",
        2,
        "For each pair, a bag of sentences containing the two arguments can be "
        "extracted from a corpus of text documents.",
    ),
    (
        "bunescu-acl07",
        2,
        "Through the use of kernels, SVMs (Vapnik, 1998; Schölkopf and Smola, "
        "2002) can work efficiently with instances that implicitly belong to a high dimensional "
        "feature space.",
    ),
    (
        "bunescu-acl07",
        2,
        "Using a limited set of entity pairs (e.g. those in Table 1) and their "
        "associated bags as training data, the aim is to induce a relation extraction system that "
        "can reliably decide whether two entities mentioned in the same sentence exhibit the "
        "target relationship or not.",
    ),
    # agarwal11 p.2: ICML two-column, a sentence crossing from column 1 to column 2
    (
        "agarwal11",
        2,
        "In this paper, we study a general class of matrix decomposition problems "
        "that include these models as special cases.",
    ),
    (
        "agarwal11",
        2,
        "rather, we control the interaction with a milder condition involving the "
        "dual norm of the regularizer.",
    ),
    (
        "agarwal11",
        2,
        "Proofs of the main theorem and other technical results can be found in the "
        "full-length version of this paper (Agarwal et al., 2011).",
    ),
    # map-reduce p.2: OSDI paper whose fonts need ligature mapping
    (
        "map-reduce",
        2,
        "The MapReduce library groups together all intermediate values associated "
        "with the same intermediate key I and passes them to the Reduce function.",
    ),
    (
        "map-reduce",
        2,
        "Even though the previous pseudo-code is written in terms of string inputs "
        "and outputs, conceptually the map and reduce functions supplied by the user have "
        "associated types:",
    ),
    (
        "map-reduce",
        2,
        "The user then invokes the MapReduce function, passing it the specification object.",
    ),
    # smith07 p.3: a sentence crossing columns with footnotes between
    (
        "smith07",
        3,
        "The notion of local sensitivity is a discrete analogue of the Laplacian (or "
        "maximum magnitude of the partial derivative in different directions).",
    ),
    (
        "smith07",
        3,
        "The reader might be concerned that when the noise depends on the database, "
        "the client will not know the accuracy of the answer supplied by the database access "
        "mechanism.",
    ),
    (
        "smith07",
        3,
        "There are many other functions for which global sensitivity framework yields "
        "unacceptably high noise levels while the smooth sensitivity framework performs well on "
        "many instances.",
    ),
    # 2a774230… p.2: IEEE two-column, a sentence crossing columns around a table
    (
        "2a774230b5328df3f8125da9b84a82d92b46a240",
        2,
        "By adding this pessimistic seek time to the "
        "worst-case rotation time of 11 ms for a full disk revolution, we obtain the worst case "
        "total seek time estimate",
    ),
    (
        "2a774230b5328df3f8125da9b84a82d92b46a240",
        2,
        "The periodic nature of video service naturally leads to a round-robin scheduling scheme.",
    ),
    (
        "2a774230b5328df3f8125da9b84a82d92b46a240",
        2,
        "The choice of service round length is a "
        "critical issue, as previous work has shown that it greatly affects the maximum number of "
        "users serviced by a disk as well as the amount of buffer memory each user requires [1], "
        "[3], [16].",
    ),
    # c0690a1d… p.3: ACM single column, inline sums and fractions
    (
        "c0690a1d74ab781bd54f9fa7e67267cce656",
        3,
        "It is this distinguishing aspect of our problem "
        "that makes it difficult to apply known techniques for multi-dimensional packing "
        "problems.",
    ),
    (
        "c0690a1d74ab781bd54f9fa7e67267cce656",
        3,
        "After the publication of a preliminary version "
        "of this paper, some of the results presented were extended to the case when the data "
        "objects do not all have unit size",
    ),
    (
        "c0690a1d74ab781bd54f9fa7e67267cce656",
        3,
        "The authors showed that the problem is NP-hard "
        "when each disk has an arbitrary load capacity, and unit storage.",
    ),
    # pedersen04 p.2 (TrustRank): two-column, italic ligatures, matrices between paragraphs
    (
        "pedersen04",
        2,
        "Since the algorithmic identification of spam is very difficult, our "
        "schemes do not operate entirely without human assistance.",
    ),
    (
        "pedersen04",
        2,
        "In practice, a web page p may have multiple HTML hyperlinks to some other page q.",
    ),
    (
        "pedersen04",
        2,
        "Correspondingly, PageRank is based on a mutual reinforcement between "
        "pages: the importance of a certain page influences and is being influenced by the "
        "importance of some other pages.",
    ),
    # compressed.tracemonkey p.2: a sentence crossing columns past two figures
    (
        "compressed.tracemonkey-pldi-09",
        2,
        "In a naïve implementation, inner loops would become "
        "hot first, and the VM would start tracing there.",
    ),
    (
        "compressed.tracemonkey-pldi-09",
        2,
        "In Section 7 we evaluate our dynamic compiler based on a set of industry benchmarks.",
    ),
    (
        "compressed.tracemonkey-pldi-09",
        2,
        "When the interpreter crosses a loop edge, TraceMonkey "
        "invokes the trace monitor, which may decide to record or execute a native trace.",
    ),
    # dmca p.2: US government summary, justified single column
    ("dmca", 2, "That protection must be no less favorable than that accorded to domestic works."),
    (
        "dmca",
        2,
        "Section 102(c) of the DMCA amends section 104A to restore copyright protection "
        "in the same circumstances to works from WCT and WPPT member countries.",
    ),
    # GeoTopo p.10: German lecture notes
    ("GeoTopo-komprimiert", 10, "Die Metrik d induziert die diskrete Topologie."),
    ("GeoTopo-komprimiert", 10, "Dann heißt φ eine Isometrie von X nach Y."),
    # naacl06-shinyama p.2: a sentence crossing columns past two figures
    (
        "naacl06-shinyama",
        2,
        "In Unrestricted Relation Discovery, the discovery process (i.e. "
        "creating new tables) can be formulated as a clustering task.",
    ),
    (
        "naacl06-shinyama",
        2,
        "represent a certain relation that has something in common: a "
        "hurricane name and the place it affected.",
    ),
    (
        "naacl06-shinyama",
        2,
        "Generally, in a clustering task, one groups items by finding similar pairs.",
    ),
    # senellart10 p.2: dense two-column with inline math
    (
        "senellart10",
        2,
        "XML documents (or documents for short) are ordered, unranked, labeled trees.",
    ),
    (
        "senellart10",
        2,
        "It is more expressive than other XML query languages such as "
        "tree-pattern queries with Boolean operators [16] or XPath.",
    ),
    ("senellart10", 2, "We do not distinguish between labels and values here."),
    # glyphs mapped through font encodings: Greek in running text, ligatures without ToUnicode
    (
        "smith07",
        2,
        "each of which is individually ε-indistinguishable, is itself tε-indistinguishable.",
    ),
    ("GeoTopo-komprimiert", 22, "Ein Weg in X ist eine stetige Abbildung γ : [0, 1] → X."),
    (
        "c0690a1d74ab781bd54f9fa7e67267cce656",
        3,
        "The authors gave an elegant algorithm, called "
        "the Sliding-Window algorithm, and showed that this algorithm packs all items whenever",
    ),
    ("map-reduce", 1, "MapReduce: Simplified Data Processing on Large Clusters"),
    # dmca p.1: a footnote mark inside the sentence (a writer quotes without it)
    (
        "dmca",
        1,
        "The Digital Millennium Copyright Act (DMCA) was signed into law by President "
        "Clinton on October 28, 1998.",
    ),
    ("dmca", 1, "The DMCA also addresses a number of other significant copyright-related issues."),
]

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def normalise(text: str) -> str:
    text = text.replace("\ufffe", "-\n").replace("\x02", "-\n")
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    text = re.sub(r"-[ \t]*\r?\n\s*", "", text)  # hyphen at a line end: join
    text = text.replace("-", "")
    return re.sub(r"\s+", " ", text)


def run_pypdf(body: bytes) -> list[str]:
    import pypdf

    return [p.extract_text() or "" for p in pypdf.PdfReader(io.BytesIO(body)).pages]


def run_pdfminer(body: bytes) -> list[str]:
    """pdfminer.six with default layout analysis (measured here, never used in extraction)."""
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LAParams, LTTextContainer

    pages = []
    for layout in extract_pages(io.BytesIO(body), laparams=LAParams()):
        pages.append("".join(el.get_text() for el in layout if isinstance(el, LTTextContainer)))
    return pages


def run_pdfium(body: bytes) -> list[str]:
    from citeledger.extract.pdf import pdfium_pages

    return pdfium_pages(body)


def run_citeledger(body: bytes) -> list[str]:
    from citeledger.extract.dispatch import extract

    ex = extract(body, "application/pdf")
    bounds = [*ex.page_starts, len(ex.text)]
    return [ex.text[a:b] for a, b in itertools.pairwise(bounds)]


LIBRARIES: list[tuple[str, Callable[[bytes], list[str]]]] = [
    ("pypdf", run_pypdf),
    ("pdfminer.six", run_pdfminer),
    ("pypdfium2", run_pdfium),
    ("citeledger.extract", run_citeledger),
]


def main() -> int:
    import logging

    logging.disable(logging.WARNING)  # pypdf/pdfminer warn per font; not what is measured
    warnings.simplefilter("ignore")
    files = sorted(CORPUS.glob("*.pdf"))
    if not files:
        print(f"no corpus at {CORPUS}", file=sys.stderr)
        return 2
    bodies = {f.stem: f.read_bytes() for f in files}
    rows = []
    misses: dict[str, list[str]] = {}
    for name, fn in LIBRARIES:
        seconds = 0.0
        texts: dict[str, list[str]] = {}
        failures = []
        for stem, body in bodies.items():
            start = time.perf_counter()
            try:
                texts[stem] = fn(body)
            except Exception as exc:
                failures.append(f"{stem}: {type(exc).__name__}: {exc}")
            seconds += time.perf_counter() - start
        found = found_nospace = on_page = 0
        for stem, page, sentence in PROBES:
            pages = texts.get(stem, [])
            whole = normalise("\n".join(pages))
            probe = normalise(sentence)
            if probe in whole:
                found += 1
            else:
                misses.setdefault(name, []).append(f"{stem} p.{page}: {sentence[:60]}…")
            if probe.replace(" ", "") in whole.replace(" ", ""):
                found_nospace += 1
            if len(pages) >= page and probe.replace(" ", "") in normalise(pages[page - 1]).replace(
                " ", ""
            ):
                on_page += 1
        joined = "".join("".join(p) for p in texts.values())
        ligatures = sum(joined.count(chr(c)) for c in range(0xFB00, 0xFB07))
        eol_hyphens = len(re.findall(r"\w-[ \t]*\r?\n", joined))
        marks = joined.count("\ufffe") + joined.count("\x02")
        rows.append(
            (name, seconds, found, found_nospace, on_page, ligatures, eol_hyphens, marks, failures)
        )
    fastest = min(r[1] for r in rows)
    n = len(PROBES)
    print(f"{len(files)} PDFs, {sum(len(b) for b in bodies.values()) / 1e6:.1f} MB, {n} probes\n")
    print(
        f"{'library':20} {'seconds':>8} {'ratio':>6} {'found':>7} {'ign.ws':>7} {'on pg':>6} "
        f"{'ligat.':>7} {'-⏎':>6} {'marks':>6} fails"
    )
    for name, secs, found, nows, onp, lig, hyph, marks, failures in rows:
        print(
            f"{name:20} {secs:8.2f} {secs / fastest:6.1f} {found:>3}/{n:<3} {nows:>3}/{n:<3} "
            f"{onp:>6} {lig:>7} {hyph:>6} {marks:>6} {len(failures)}"
        )
    print(
        "\nfound: probe contiguous after locator normalisation; ign.ws: also ignoring "
        "whitespace;\non pg: found on the page it is printed on; ligat.: U+FB00–FB06 left in "
        "the text;\n-⏎: hyphen + line end in the text; marks: U+FFFE/0x02 left raw (PDFium's "
        "line-end hyphen marks;\nin pypdf's text, glyphs mapped to no character)"
    )
    for name, _s, *_rest, failures in rows:
        for failure in failures:
            print(f"FAILED {name}: {failure}")
    for name, missed in misses.items():
        for m in missed:
            print(f"missed by {name}: {m}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
