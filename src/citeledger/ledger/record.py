"""Writer-facing ledger edits: add, import, withdraw, dispute.

Each is an addition to the record, never a deletion: a withdrawal keeps the source, its quotes
and their receipts, so the claim it once supported can still reach it. All writes go through
``ledger.edit_ledger`` (locked, atomic, comment-preserving).
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from citeledger import ledger as ledger_mod
from citeledger.errors import CiteledgerError, LedgerError
from citeledger.inert import visible
from citeledger.inputs import read_text
from citeledger.ledger.csl import CSL_VARIABLES
from citeledger.ledger.write import check_source


def today() -> str:
    return _dt.datetime.now(_dt.timezone.utc).date().isoformat()


def record_withdrawal(
    ledger_path: str,
    key: str,
    *,
    kind: str,
    reason: str,
    source_says: str | None = None,
    date: str | None = None,
) -> int:
    setter = ledger_mod.set_withdrawn if kind == "withdraw" else ledger_mod.set_disputed
    setter(ledger_path, key, date or today(), reason, source_says)
    word = "withdrawn" if kind == "withdraw" else "disputed"
    print(f"citeledger: @{key} recorded as {word} in {ledger_path}; nothing was removed")
    return 0


def add_source(
    ledger_path: str,
    key: str,
    identifier: tuple[str, str],
    *,
    title: str | None = None,
    quotes: Sequence[str] = (),
    locator: str | None = None,
) -> int:
    fields: dict[str, Any] = {identifier[0]: identifier[1]}
    if title:
        fields["title"] = title
    if quotes:
        qs: list[dict[str, Any]] = [{"text": q} for q in quotes]
        if locator:
            qs[0]["locator"] = locator
        fields["quotes"] = qs
    ledger_mod.add_source(ledger_path, key, fields, create=True)
    print(f"citeledger: added @{key} to {ledger_path}; run `citeledger verify` to check it")
    return 0


def add_quote(
    ledger_path: str, key: str, text: str, *, locator: str | None, quote_id: str | None
) -> int:
    """``citeledger quote``: a quote for a source already in the ledger (after an import)."""
    ledger_mod.add_quote(ledger_path, key, text, locator=locator, quote_id=quote_id)
    print(
        f"citeledger: added a quote to @{key} in {ledger_path}; run `citeledger verify` to check it"
    )
    return 0


def csl_to_source(item: Mapping[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    """One CSL-JSON item → ledger fields, or why it cannot enter (no resolvable identifier)."""
    fields: dict[str, Any] = {}
    doi = item.get("DOI")
    arxiv = _arxiv_of(item)
    isbn = item.get("ISBN")
    url = item.get("URL")
    if doi:
        fields["doi"] = re.sub(
            r"^(https?://(dx\.)?doi\.org/|doi:)", "", str(doi).strip(), flags=re.I
        )
    elif arxiv:
        fields["arxiv"] = arxiv
    elif isbn:
        fields["isbn"] = str(isbn).split()[0]
    elif url:
        fields["url"] = str(url)
    else:
        return None, "no DOI, arXiv id, ISBN or URL (rule 1: a citation needs one)"
    for name, value in item.items():  # every CSL variable the export has, in its order
        if name in CSL_VARIABLES and value not in (None, "", [], {}):
            fields[name] = value
    return fields, None


def _arxiv_of(item: Mapping[str, Any]) -> str | None:
    for name in ("arxiv", "eprint"):
        v = item.get(name)
        if v:
            return str(v)
    url = str(item.get("URL") or "")
    m = re.search(r"arxiv\.org/(?:abs|pdf)/([\w.\-/]+?)(?:\.pdf)?$", url)
    return m.group(1) if m else None


def _has_no_entry(path: Path) -> bool:
    """Whether a .bib file holds no ``@type{`` at all (pandoc reads anything as zero entries)."""
    return re.search(r"@\s*\w+\s*[{(]", path.read_text("utf-8", "replace")) is None


def import_bibliography(ledger_path: str, bibliography: str) -> int:
    """BibTeX/BibLaTeX/CSL-JSON → ledger sources, via pandoc's own bibliography reader."""
    items = read_bibliography(bibliography)
    existing = (
        set(ledger_mod.load_ledger(ledger_path).sources) if Path(ledger_path).exists() else set()
    )
    held, refused = plan_import(ledger_path, items, existing)
    for key, why in refused:
        print(visible(f"[WARNING] citeledger: @{key} not imported: {why}"), file=sys.stderr)
    write_sources(ledger_path, held)
    added, skipped = len(held), len(refused)
    print(f"citeledger: imported {added} sources into {ledger_path} ({skipped} not imported)")
    return 0


def write_sources(ledger_path: str, held: Mapping[str, Mapping[str, Any]]) -> None:
    """Append the sources ``held`` (key → fields) in one locked, atomic ledger write."""
    if not held:
        return
    with ledger_mod.edit_ledger(ledger_path, create=True) as doc:
        if doc.get("sources") is None:
            doc["sources"] = {}
        for key, fields in held.items():
            doc["sources"][key] = dict(fields)


def read_bibliography(bibliography: str) -> list[dict[str, Any]]:
    """A BibTeX/BibLaTeX/CSL-JSON file as CSL-JSON items, or one line saying why it cannot be."""
    path = Path(bibliography)
    fix = "give a BibTeX/BibLaTeX .bib file or a CSL-JSON .json file (a list of items)"
    if path.suffix.lower() == ".json":
        text = read_text(path, "the bibliography", fix)
        try:
            items = json.loads(text)
        except json.JSONDecodeError as e:
            raise CiteledgerError(
                f"the bibliography is not valid JSON: {e.msg}",
                file=bibliography,
                line=e.lineno,
                fix=fix,
            ) from None
    else:
        import pypandoc

        read_text(path, "the bibliography", fix)  # binary or not UTF-8: said here, in one line
        reader = "biblatex" if path.suffix.lower() == ".bib" else "bibtex"
        proc = subprocess.run(
            [pypandoc.get_pandoc_path(), "-f", reader, "-t", "csljson", str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            first = (proc.stderr.strip().splitlines() or ["unreadable"])[0]
            raise CiteledgerError(
                f"pandoc could not read the bibliography: {first}",
                file=bibliography,
                fix="fix the entry it names",
            )
        items = json.loads(proc.stdout or "[]")
        if not items and proc.stdout.strip() in ("", "[]") and _has_no_entry(path):
            raise CiteledgerError(
                "the bibliography has no entries (no @type{key, …} in it)",
                file=bibliography,
                fix=fix,
            )
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise CiteledgerError(
            "not a CSL-JSON bibliography: expected a list of items (objects with an id)",
            file=bibliography,
            fix=fix,
        )
    return items


def plan_import(
    ledger_path: str, items: Sequence[Mapping[str, Any]], existing: set[str]
) -> tuple[dict[str, dict[str, Any]], list[tuple[str, str]]]:
    """The entries a ledger can hold (key → fields) and each other entry with its reason.

    Every entry is validated on its own, so one bad entry is skipped and said, never the
    reason the whole import is refused.
    """
    held: dict[str, dict[str, Any]] = {}
    refused: list[tuple[str, str]] = []
    for number, item in enumerate(items, 1):
        key = str(item.get("id") or "")
        if not key:
            refused.append((f"entry {number}", "it has no citation key"))
            continue
        if key in existing:
            refused.append((key, "it is already in the ledger; left as it is"))
            continue
        if key in held:
            refused.append((key, "a second entry with the same key; the first was kept"))
            continue
        fields, why = csl_to_source(item)
        if fields is None:
            refused.append((key, why or "no identifier"))
            continue
        try:
            check_source(ledger_path, key, fields)
        except LedgerError as e:
            refused.append((key, e.message + (f" ({e.fix})" if e.fix else "")))
            continue
        held[key] = fields
    return held, refused
