"""Is the writer's local copy of a DOI or arXiv id plainly another work?

A quote found in the wrong PDF is not a check of the cited work. Only the copy's OWN
identifier counts: its metadata (``/doi`` in the Info dictionary, XMP ``prism:doi`` and kin),
a DOI in the first page's header or a footer line that is one (``doi:``, ``DOI 10.…``,
a doi.org address: ``identifiers.printed_dois``), and arXiv's margin stamp
(``arXiv:2101.00001v2 [cs.CL] …``) — never the DOIs its references cite. A copy naming no
identifier of the cited kind is fine; a copy naming this one (among others) is fine.

Decided from the evidence alone (the captured bytes and their text), by verify for the receipt
and again by the judgement, which never trusts the receipt's word for it. The identifiers are
recognised by the ONE grammar, ``ledger.identifiers``; this module only says where to look.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from citeledger.ledger.identifiers import (
    IdentifierError,
    bare_doi,
    canonical,
    parse_arxiv,
    printed_dois,
)

if TYPE_CHECKING:
    from citeledger.evidence.store import LoadedEvidence
    from citeledger.model import Extracted, Retrieval

__all__ = ["copy_is_other_work", "evidence_is_other_work", "metadata_identifiers"]

# Metadata fields whose value is the work's DOI (Info dictionary, XMP namespaces in use).
_META_DOI = re.compile(
    rb"(?i)/doi\s*(?:\(((?:\\.|[^\\)]){1,300})\)|<([0-9a-f\s]{1,1200})>)"
    rb"|<(?:prism|pdfx|crossmark):doi>\s*([^<]{1,300}?)\s*<"
    rb"|<dc:identifier>\s*(doi:[^<]{1,300}?)\s*<"
)
_ESCAPE = re.compile(rb"\\([0-7]{1,3}|.)", re.S)  # a PDF literal string's escapes
# words that make a line point at another work ("The data are available at doi:…", "see
# doi:…", "code deposited at https://doi.org/…"): such a line is not the copy naming itself
_POINTER = re.compile(
    r"(?i)\b(?:see|available|data|dataset|code|software|deposited|archived|repository|"
    r"supplement\w*|cite[ds]?|citing|reproduc\w*|replication|from|at)\b"
)
_ARXIV_STAMP = re.compile(r"arXiv:\s*(\S+?)\s*\[[A-Za-z.-]+\]")
_EDGE_LINES = 6  # lines at the top and the bottom of page 1 that count as header and footer


def metadata_identifiers(body: bytes | None) -> tuple[str, ...]:
    """The DOIs a PDF's own metadata names (``doi:…``); () for anything not a PDF.

    A scan of the raw bytes, nothing parsed or inflated: safe on a hostile file, and the same
    bytes give the same answer in verify and in every build.
    """
    if not body or b"%PDF" not in body[:1024]:
        return ()
    found = []
    for m in _META_DOI.finditer(body):
        try:
            text = _decoded(*m.groups())
        except ValueError:  # odd hex digits, broken UTF-16: names nothing
            continue
        value = bare_doi(text)
        if value is not None:
            found.append(f"doi:{value}")
    return tuple(dict.fromkeys(found))


def _decoded(
    literal: bytes | None, hexed: bytes | None, xmp: bytes | None, dc: bytes | None
) -> str:
    """A metadata value as text: a PDF literal or hex string (UTF-16 with its BOM), or XMP."""
    if literal is not None:
        raw = _ESCAPE.sub(_unescape, literal)
    elif hexed is not None:
        raw = bytes.fromhex(re.sub(rb"\s", b"", hexed).decode("ascii"))
    else:
        raw = xmp if xmp is not None else dc or b""
    return raw.decode("utf-16") if raw.startswith(b"\xfe\xff") else raw.decode("latin-1")


def _unescape(m: re.Match[bytes]) -> bytes:
    code = m[1]
    if code.isdigit():
        return bytes([int(code, 8) & 0xFF])
    return {b"n": b"\n", b"r": b"\r", b"t": b"\t"}.get(code, code)


def page_identifiers(text: str, page_starts: Sequence[int]) -> tuple[str, ...]:
    """The DOIs in page 1's header and footer lines, and its arXiv stamp (``arxiv:BASE``).

    A text of one page (or none: a plain-text or HTML copy) has no footer to speak of — its
    last lines are as likely its references — so only its first lines count there.
    """
    paged = len(page_starts) > 1
    first = text[: page_starts[1]] if paged else text
    lines = [line for line in first.splitlines() if line.strip()]
    # a footer counts only as a line that is the DOI ("doi: 10…", "https://doi.org/10…"): a
    # footnote citing another work ("1 See doi:10…") is not the copy naming itself
    footer = [x for x in lines[_EDGE_LINES:][-_EDGE_LINES:] if _own_line(x)] if paged else []
    header = [x for x in lines[:_EDGE_LINES] if _own_line(x) or not _pointing(x)]
    edges = "\n".join(header + footer)
    found = [f"doi:{value}" for _, value in printed_dois(edges)]
    for m in _ARXIV_STAMP.finditer(first if paged else edges):
        try:
            found.append(f"arxiv:{parse_arxiv(m[1]).base}")
        except IdentifierError:
            continue
    return tuple(dict.fromkeys(found))


def _own_line(line: str) -> bool:
    """Whether a line is a DOI: it starts with one, printed as documents print them."""
    found = printed_dois(line.lstrip())
    return bool(found) and found[0][0] == 0


def _pointing(line: str) -> bool:
    """Whether the words before a line's first DOI point at another work (``_POINTER``)."""
    found = printed_dois(line)
    return bool(found) and _POINTER.search(line, 0, found[0][0]) is not None


def other_work(identifier: str, copy: str, named: Iterable[str]) -> str | None:
    """Why the copy at ``copy`` is not the work ``identifier`` names, or None when it may be."""
    kind = identifier.partition(":")[0]
    if kind not in ("doi", "arxiv"):  # an ISBN: a book names several (print, e-book) — no rule
        return None
    theirs = [n for n in named if n.startswith(f"{kind}:")]
    mine = {canonical(identifier)}  # DOIs ignore case, an arXiv id's version is the same work
    own = {canonical(n) for n in theirs}
    if not theirs or own & mine:
        return None
    return (
        f"the local copy {copy} is another work: it names {', '.join(theirs)} as its own "
        f"identifier, not {identifier} — put this work's file at {copy}, or correct the "
        "source's identifier, then run `citeledger verify` again"
    )


def copy_is_other_work(
    identifier: str, retrieval: Retrieval, extracted: Extracted | None
) -> str | None:
    """Verify's question, on what it just read: None unless a local copy names another work."""
    if retrieval.local_copy is None:
        return None
    named = metadata_identifiers(retrieval.body)
    if extracted is not None:
        named += page_identifiers(extracted.text, extracted.page_starts)
    return other_work(identifier, retrieval.local_copy, named)


def evidence_is_other_work(ev: LoadedEvidence) -> str | None:
    """The judgement's question, on the stored capture: is it a local file read for a DOI or
    arXiv id (the evidence says so, not the receipt) that names another work?"""
    where, identifier = ev.target_uri or "", ev.identifier or ""
    if not where.startswith("file:") or identifier.startswith("file:"):
        return None
    named = ev.metadata_identifiers + page_identifiers(ev.text or "", ev.page_starts)
    return other_work(identifier, where.removeprefix("file:"), named)
