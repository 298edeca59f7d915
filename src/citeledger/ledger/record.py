"""Writer-facing ledger edits: add, import, withdraw, dispute.

Each is an addition to the record, never a deletion: a withdrawal keeps the source, its quotes
and their receipts, so the claim it once supported can still reach it. All writes go through
``ledger.edit_ledger`` (locked, atomic, comment-preserving).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import subprocess
import sys
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
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


def _has_no_entry(text: str) -> bool:
    """Whether a .bib text holds no ``@type{`` at all (pandoc reads anything as zero entries)."""
    return re.search(r"@\s*\w+\s*[{(]", text) is None


def import_bibliography(ledger_path: str, bibliography: str) -> int:
    """BibTeX/BibLaTeX/CSL-JSON → ledger sources, via pandoc's own bibliography reader.

    An entry's attached file (the ``file`` field reference managers write, read from the raw
    .bib because pandoc drops it) becomes the source's ``local_copy:``: verify then checks the
    quotes against the writer's copy, and the DOI stays the source's identifier.
    """
    bib = read_bibliography(bibliography)
    led = ledger_mod.load_ledger(ledger_path) if Path(ledger_path).exists() else None
    existing = set(led.sources) if led is not None else set()
    allow = led.allow_files_outside if led is not None else False
    keys = {str(i.get("id") or "") for i in bib.items} - existing
    copies = local_copies(bib, ledger_path, keys, allow)
    held, refused, notes = plan_import(ledger_path, bib.items, existing, copies)
    for key, why in refused:
        print(visible(f"[WARNING] citeledger: @{key} not imported: {why}"), file=sys.stderr)
    for _key, note in notes:
        print(visible(note), file=sys.stderr)
    write_sources(ledger_path, held)
    added, skipped = len(held), len(refused)
    n_copies = sum(1 for f in held.values() if "local_copy" in f)
    with_copies = f"; {n_copies} with a local copy" if n_copies else ""
    print(
        f"citeledger: imported {added} sources into {ledger_path} ({skipped} not imported"
        f"{with_copies})"
    )
    return 0


@dataclass(frozen=True)
class Bibliography:
    """A bibliography file read once: its entries as CSL-JSON, and its text (a .bib's raw
    ``file`` fields are read from it, since pandoc drops them)."""

    path: str
    items: list[dict[str, Any]]
    text: str


@dataclass(frozen=True)
class LocalCopy:
    """What an entry's attached files offer: its ``local_copy:`` (relative to the ledger), or
    why none can be used; ``where`` is the .bib line a note names."""

    where: str
    path: str | None
    why: str | None = None


def local_copies(
    bib: Bibliography, ledger_path: str, keys: Collection[str], allow_outside: bool = False
) -> dict[str, LocalCopy]:
    """Each of ``keys`` whose .bib ``file`` field attaches files → the local copy they offer
    (the first existing file inside the project), or why none; ``plan_import`` validates it
    with the entry."""
    if Path(bib.path).suffix.lower() == ".json":
        return {}
    from citeledger.ledger.bibfiles import file_fields

    folder = Path(bib.path).parent
    root = Path(os.path.abspath(ledger_path)).parent
    offers: dict[str, LocalCopy] = {}
    for key, found in file_fields(bib.text).items():
        if key in keys and found.attached:
            copy, why = _local_copy(found.attached, folder, root, allow_outside)
            offers[key] = LocalCopy(f"{bib.path}:{found.line}", copy, why)
    return offers


def _local_copy(
    attached: Sequence[Any], bib_dir: Path, root: Path, allow_outside: bool
) -> tuple[str | None, str | None]:
    """The first attached file that exists (PDFs first), relative to the ledger's folder."""
    from citeledger.confine import inside

    ordered = sorted(attached, key=lambda a: not a.is_pdf)
    outside: str | None = None
    for a in ordered:
        given = Path(a.path)
        # Mendeley drops the leading / of an absolute path on Linux and macOS
        tries = [given] if given.is_absolute() else [bib_dir / given, Path("/") / given]
        for path in tries:
            if not path.is_file():
                continue
            if not allow_outside and not inside(path, [root]):
                outside = outside or a.path
                continue
            return os.path.relpath(os.path.realpath(path), os.path.realpath(root)), None
    if outside is not None:
        return None, (
            f"the attached file {outside} is outside the project ({root}); move it inside "
            "to check against it"
        )
    names = ", ".join(a.path for a in attached)
    return None, f"the attached file {names} was not found (relative to the .bib's folder)"


def write_sources(ledger_path: str, held: Mapping[str, Mapping[str, Any]]) -> None:
    """Append the sources ``held`` (key → fields) in one locked, atomic ledger write."""
    if not held:
        return
    with ledger_mod.edit_ledger(ledger_path, create=True) as doc:
        if doc.get("sources") is None:
            doc["sources"] = {}
        for key, fields in held.items():
            doc["sources"][key] = dict(fields)


def read_bibliography(bibliography: str) -> Bibliography:
    """A BibTeX/BibLaTeX/CSL-JSON file read once, its entries as CSL-JSON items, or one line
    saying why it cannot be."""
    path = Path(bibliography)
    fix = "give a BibTeX/BibLaTeX .bib file or a CSL-JSON .json file (a list of items)"
    # binary or not UTF-8: said here, in one line; pandoc reads this text, not the file again
    text = read_text(path, "the bibliography", fix)
    if path.suffix.lower() == ".json":
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

        reader = "biblatex" if path.suffix.lower() == ".bib" else "bibtex"
        proc = subprocess.run(
            [pypandoc.get_pandoc_path(), "-f", reader, "-t", "csljson"],
            input=text,
            capture_output=True,
            text=True,
            encoding="utf-8",
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
        if not items and proc.stdout.strip() in ("", "[]") and _has_no_entry(text):
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
    return Bibliography(bibliography, items, text)


def plan_import(
    ledger_path: str,
    items: Sequence[Mapping[str, Any]],
    existing: set[str],
    copies: Mapping[str, LocalCopy] | None = None,
) -> tuple[dict[str, dict[str, Any]], list[tuple[str, str]], list[tuple[str, str]]]:
    """The entries a ledger can hold (key → fields), each other entry with its reason, and a
    note (key, line) for each held entry imported without the local copy its .bib offered.

    Every entry is validated on its own, once (with its local copy when it has one), so one
    bad entry is skipped and said, never the reason the whole import is refused.
    """
    held: dict[str, dict[str, Any]] = {}
    refused: list[tuple[str, str]] = []
    notes: list[tuple[str, str]] = []
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
        copy = (copies or {}).get(key)
        without = copy.why if copy is not None else None
        if copy is not None and copy.path is not None:
            trial = {**fields, "local_copy": copy.path}
            try:
                check_source(ledger_path, key, trial)
            except LedgerError as e:
                without = e.message  # validated again without it, below
            else:
                held[key] = trial
                continue
        try:
            check_source(ledger_path, key, fields)
        except LedgerError as e:
            refused.append((key, e.message + (f" ({e.fix})" if e.fix else "")))
            continue
        held[key] = fields
        if copy is not None and without is not None:
            notes.append((key, f"{copy.where}: @{key}: {without}; imported without a local copy"))
    return held, refused, notes
