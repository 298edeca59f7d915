"""``citeledger adopt DOC… [--bib FILE]``: an existing manuscript's citations into the ledger.

A writer starts from a document and a bibliography, not from a ledger. ``adopt`` reads the
citations with the filter's own walk (``build.citations``) and the bibliography with
``import``'s reader, creates a source for every cited key that has an identifier, and says what
it could not take and what is left to do. It adds sources only, never a quote or a receipt, so
nothing is checked by it; run again, it adds only what is new.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citeledger.errors import CiteledgerError
from citeledger.inert import visible


def add_parser(sub: Any) -> None:
    a = sub.add_parser(
        "adopt",
        help="create a ledger source for every cited key of a document that has an identifier",
        description="Read a document's citations and its bibliography (the document's "
        "`bibliography:` or --bib), add a source for each cited key with a DOI, arXiv id, ISBN "
        "or URL, list the keys without one and the cross-references skipped, and print what is "
        "left to do. Nothing is marked checked; running it again adds only what is new.",
    )
    a.add_argument("docs", nargs="+", metavar="DOC", help="the document (or its files, in order)")
    a.add_argument(
        "--bib",
        action="append",
        default=[],
        metavar="FILE",
        help="a BibTeX/BibLaTeX/CSL-JSON file (repeatable; default: the document's bibliography)",
    )
    a.add_argument("--ledger", help="default: the document's citeledger.ledger, else beside it")
    a.add_argument("--from", dest="from_format", metavar="FORMAT", help="pandoc reader")


@dataclass
class Adoption:
    """What one adopt run found and did: the figures it reports."""

    ledger: str
    keys: list[str] = field(default_factory=list)  # cited keys, first citation first
    citations: int = 0
    crossrefs: Counter[str] = field(default_factory=Counter)  # key → times skipped
    created: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)  # in the ledger before this run
    no_identifier: list[tuple[str, str]] = field(default_factory=list)  # key, why
    not_in_bibliography: list[str] = field(default_factory=list)
    need_quote: list[str] = field(default_factory=list)  # sources without a quote
    to_verify: list[str] = field(default_factory=list)  # quotes with no receipt found yet
    local_copies: list[str] = field(default_factory=list)  # created with the .bib's attached file
    no_local_copy: list[tuple[str, str]] = field(default_factory=list)  # key, why not
    labels: list[str] = field(default_factory=list)  # sources a document also defines as labels


def main(args: argparse.Namespace) -> int:
    result = adopt(args.docs, bibs=args.bib, ledger=args.ledger, from_format=args.from_format)
    print(visible(describe(result)))
    return 0


def adopt(
    docs: Sequence[str],
    *,
    bibs: Sequence[str] = (),
    ledger: str | None = None,
    from_format: str | None = None,
) -> Adoption:
    from citeledger.build.crossref import label_warning
    from citeledger.build.crossref_sources import meta_strings
    from citeledger.build.options import read_options
    from citeledger.ledger import load_ledger
    from citeledger.ledger.record import (
        LocalCopy,
        local_copies,
        plan_import,
        read_bibliography,
        write_sources,
    )
    from citeledger.report.check import ledger_for, pandoc_json

    keys: dict[str, None] = {}
    crossrefs: Counter[str] = Counter()
    named: list[str] = list(bibs)
    citations = 0
    ledger_path = ledger
    parsed: list[tuple[str, dict[str, Any]]] = []
    for doc in docs:
        doc_json = pandoc_json(doc, from_format)
        meta = doc_json.get("meta", {})
        if ledger_path is None:
            ledger_path = ledger_for(doc, read_options(meta), None)
        parsed.append((doc, doc_json))
        if not bibs:
            named += [_resolve(b, doc) for b in meta_strings(meta.get("bibliography"))]
    assert ledger_path is not None  # docs is never empty (argparse: nargs="+")
    if not named:
        raise CiteledgerError(
            "no bibliography: the document names none in `bibliography:`",
            file=docs[0],
            fix="give one with --bib refs.bib (BibTeX, BibLaTeX or CSL-JSON)",
        )
    led = load_ledger(ledger_path) if Path(ledger_path).exists() else None
    existing = set(led.sources) if led is not None else set()
    allow = led.allow_files_outside if led is not None else False
    read = [read_bibliography(name) for name in dict.fromkeys(named)]
    known = existing | {str(item.get("id") or "") for bib in read for item in bib.items}
    labels: list[str] = []
    for doc, doc_json in parsed:
        scan, both = _scan(doc, doc_json, known)
        citations += len(scan.citations)
        keys.update(dict.fromkeys(f.ref.key for f in scan.citations))
        crossrefs.update(scan.crossrefs)
        labels += [f"{doc}: {label_warning(key, ledger_path)}" for key in both]
    wanted_keys = {k for k in keys if k not in existing}
    items: dict[str, dict[str, Any]] = {}
    copies: dict[str, LocalCopy] = {}  # offered by the bibliography each entry was taken from
    for bib in read:
        offered = local_copies(bib, ledger_path, wanted_keys, allow)
        for item in bib.items:
            key = str(item.get("id") or "")
            if key not in items:
                items[key] = item
                if key in offered:
                    copies[key] = offered[key]
    result = Adoption(ledger_path, list(keys), citations, crossrefs)
    result.labels = labels
    result.already = [k for k in keys if k in existing]
    wanted = [items[k] for k in keys if k not in existing and k in items]
    result.not_in_bibliography = [k for k in keys if k not in existing and k not in items]
    held, refused, result.no_local_copy = plan_import(ledger_path, wanted, existing, copies)
    result.no_identifier = refused
    result.local_copies = [k for k, f in held.items() if "local_copy" in f]
    write_sources(ledger_path, held)
    result.created = list(held)
    _plan(result, load_ledger(ledger_path).sources if Path(ledger_path).exists() else {})
    return result


def _scan(doc: str, doc_json: dict[str, Any], known: Collection[str]) -> tuple[Any, list[str]]:
    """The document's citations as the build reads them (``citations.sourced_crossrefs``): a
    prefixed key (``@sec-2020``) that is a source — of the ledger, of a bibliography adopt
    reads, of the document's ``references`` — and no label of the document is a citation, not
    a skipped cross-reference. Also the keys that are sources and labels both."""
    from citeledger.build.citations import scan_document, sourced_crossrefs
    from citeledger.build.crossref_sources import any_source, bibliography_sources

    sources = any_source(
        lambda keys: [k for k in keys if k in known],
        bibliography_sources(doc_json.get("meta") or {}, [Path.cwd(), Path(doc).parent]),
    )
    return sourced_crossrefs(doc_json, scan_document(doc_json), sources)


def _plan(result: Adoption, sources: Mapping[str, Any]) -> None:
    """What is left for each cited source: a quote to select, or quotes to verify."""
    for key in result.keys:
        source = sources.get(key)
        if source is None or source.withdrawn is not None:
            continue
        if not source.quotes:
            result.need_quote.append(key)
        elif any(q.latest is None for q in source.quotes):
            result.to_verify.append(key)


def _resolve(name: str, doc: str) -> str:
    """A bibliography named by a document: as pandoc reads it (from the current folder), else
    beside the document."""
    path = Path(name).expanduser()
    if path.is_absolute() or path.exists():
        return str(path)
    beside = Path(doc).parent / path
    return str(beside) if beside.exists() else str(path)


def _keys(keys: Iterable[str]) -> str:
    return ", ".join(f"@{k}" for k in keys)


def describe(r: Adoption) -> str:
    """The report: the figures first, then each list, then the next steps."""
    refs = sum(r.crossrefs.values())
    lines = [
        f"citeledger: adopt: {r.citations} citations of {len(r.keys)} keys; "
        f"{refs} cross-references skipped ({len(r.crossrefs)} distinct)",
        f"citeledger: created {len(r.created)} sources in {r.ledger} "
        f"({len(r.already)} already there); nothing is checked until it is verified",
    ]
    if r.no_identifier:
        lines.append(f"citeledger: {len(r.no_identifier)} keys have no identifier (not added):")
        lines += [f"  @{key}: {why}" for key, why in r.no_identifier]
        lines.append(
            "  fix: give each a DOI, arXiv id, ISBN or URL in the bibliography, "
            "or `citeledger add KEY --url …`"
        )
    if r.local_copies:
        lines.append(
            f"citeledger: {len(r.local_copies)} sources will be checked against your local copy "
            "(the file attached in the bibliography; the identifier is kept)"
        )
    if r.no_local_copy:
        first = r.no_local_copy[0][1]
        lines.append(
            f"citeledger: {len(r.no_local_copy)} attached files could not be used (added without "
            f"a local copy): {_keys(k for k, _ in r.no_local_copy)}; first: {first}"
        )
    if r.not_in_bibliography:
        lines.append(
            f"citeledger: {len(r.not_in_bibliography)} keys are not in the bibliography: "
            f"{_keys(r.not_in_bibliography)}"
        )
    if r.crossrefs:
        lines.append(f"citeledger: cross-references skipped: {_keys(sorted(r.crossrefs))}")
    lines += [f"citeledger: warning: {warning}" for warning in r.labels]
    lines.append(
        f"citeledger: plan: {len(r.need_quote)} sources need a quote, "
        f"{len(r.to_verify)} sources to verify"
    )
    if r.need_quote:
        lines.append(f"  need a quote: {_keys(r.need_quote)}")
        lines.append(
            "  next: `citeledger pick KEY` selects each quote from the source itself "
            '(or `citeledger quote KEY "…"`)'
        )
    if r.to_verify:
        lines.append(f"  to verify: {_keys(r.to_verify)}")
        lines.append(f"  next: `citeledger verify --ledger {r.ledger}`")
    return "\n".join(lines)
