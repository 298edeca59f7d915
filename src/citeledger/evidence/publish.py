"""Writing the evidence pages of a build or a ledger: one read-only page per receipt, and an index.

``evidence_page`` renders one page; this module decides which receipt a page shows, reads its
evidence through the build's ``EvidenceReader``, checks that the stored record is the one the
receipt names (rule 16: one retrieval identity — body digest, file name, target address), and
writes the file atomically under a name derived from the receipt, so a rebuild rewrites the
same pages with the same bytes, and removes the pages a re-verify superseded (the older pages of
the same quote), so the folder holds one page per quote, not one per verify run.
``write_evidence_pages`` is the ``citeledger evidence`` command: every quote of every source,
judged, each with its page, and ``index.html`` listing them.

What it must never do: repair a bundle (a missing or mismatched member is passed to the page as a
problem and the page says FAILED; nothing is re-read from another retrieval), write outside the
folder it is given, link anywhere but relatively, leak a restricted source (no page, no key in a
file name, only a count in the index), or change any state — looking is not verifying. It never
touches the network. Only ``write_evidence_pages`` prints (its one summary line, as the command).
"""

from __future__ import annotations

import dataclasses
import html
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote as _quote

from citeledger import __version__
from citeledger.atomic import atomic_write, fsync_dir
from citeledger.build.pinpoints import normalize_locator
from citeledger.evidence.page import (
    CSP,
    bundle_problems,
    evidence_page_name,
    page_identity,
    render_evidence_page,
    stylesheet,
)
from citeledger.evidence.store import EvidenceReader, sha256_hex
from citeledger.inert import visible
from citeledger.judge import Judge, evidence_problem
from citeledger.model import CitationRef, Judgement, Receipt, State

INDEX_NAME = "index.html"
QUOTE_CHARS = 200  # writer's quote shown in the index, at most
_INDEX_CSS = (
    "table.citeledger-evidence-index-table { border-collapse: collapse; width: 100%; }\n"
    ".citeledger-evidence-index-table th, .citeledger-evidence-index-table td "
    "{ border-bottom: 1px solid var(--rule); padding: 0.4rem; text-align: left; "
    "vertical-align: top; }\n"
)


# --- one page ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RenderedPage:
    name: str
    html: str
    failed: bool  # the page says FAILED: a breakdown, or a bundle that does not hold together
    problems: tuple[str, ...]


def page_receipt(judgement: Judgement) -> Receipt | None:
    """The receipt a page shows: the judged one, else the latest of the judged quote.

    Withdrawn and disputed judgements carry no receipt (the record decides them), yet the
    retrieval that was made is part of what a reader should be able to inspect.
    """
    if judgement.state is State.RESTRICTED:
        return None
    if judgement.receipt is not None:
        return judgement.receipt
    return judgement.quote.latest if judgement.quote is not None else None


def evidence_problems(receipt: Receipt, reader: EvidenceReader) -> tuple[str | None, list[str]]:
    """The stored text for ``receipt`` and what does not match between the two.

    ``render_evidence_page`` rechecks the text digest and the span itself; this adds what only
    the evidence file can tell: it is missing or unreadable, or it records another body or
    another address than the receipt does.
    """
    if not receipt.evidence:
        if receipt.outcome == "found":
            return None, ["the receipt says the quote was found but names no evidence record"]
        return None, []
    ev = reader.load(receipt.evidence)
    problem = evidence_problem(receipt, ev)  # the judgement's own rule, not a second one
    problems = [problem[1]] if problem is not None else []
    return ev.text, problems


def snapshot_png(receipt: Receipt, reader: EvidenceReader) -> bytes | None:
    """The image the receipt names, only when its record is there and its digest holds."""
    if not receipt.snapshot or not receipt.evidence:
        return None
    shot = reader.load(receipt.evidence).snapshots.get(receipt.snapshot)
    if shot is None or shot.sha256 != receipt.snapshot_sha256:
        return None
    return shot.png


def render_page(
    judgement: Judgement,
    reader: EvidenceReader,
    *,
    key: str,
    back_links: Sequence[tuple[str, str]] = (),
) -> RenderedPage | None:
    """The page of the judgement's receipt, not yet written; None when there is no receipt.

    No receipt means nothing was retrieved, so there is no evidence identity to name a page by:
    the citation's callout and audit row say why in place instead ("never verified"). A
    restricted judgement never gets a page, whoever the caller is.
    """
    receipt = page_receipt(judgement)
    if receipt is None:
        return None
    if judgement.receipt is not receipt:
        judgement = dataclasses.replace(judgement, receipt=receipt)
    text, problems = evidence_problems(receipt, reader)
    source = judgement.source
    source_url = receipt.url
    if source_url is None and source is not None and source.identifier.kind == "url":
        source_url = source.identifier.value
    page = render_evidence_page(
        judgement,
        text=text,
        problems=problems,
        source_url=source_url,
        back_links=back_links,
        snapshot=snapshot_png(receipt, reader),
    )
    # the same rule the page applies to its banner: a breakdown, or any member out of place
    failed = judgement.is_breakdown or bool(problems) or bool(bundle_problems(receipt, text))
    return RenderedPage(evidence_page_name(receipt, key), page, failed, tuple(problems))


def write_evidence_page(
    judgement: Judgement,
    reader: EvidenceReader,
    out_dir: Path,
    *,
    key: str,
    back_links: Sequence[tuple[str, str]] = (),
    folder_sync: bool = True,
) -> str | None:
    """Write the page of the judgement's receipt into ``out_dir``; return its file name.

    None when there is no receipt (never verified) or the source is restricted. The name is a
    function of the receipt and key only, and an unchanged page is not rewritten, so building
    twice leaves the folder byte-identical.
    """
    page = render_page(judgement, reader, key=key, back_links=back_links)
    if page is None:
        return None
    write_if_changed(Path(out_dir) / page.name, page.html, folder_sync=folder_sync)
    return page.name


def back_links_for(occurrence: int, document_href: str) -> list[tuple[str, str]]:
    """The relative links from an evidence page back to its claim and its audit row."""
    return [
        (f"{document_href}#citeledger-claim-{occurrence}", f"Back to claim {occurrence}"),
        (f"{document_href}#citeledger-audit-{occurrence}", f"Audit row {occurrence}"),
    ]


class EvidencePageSet:
    """The evidence pages of one build, written once each at the end.

    Two citations of one quote share one receipt and so one page; collecting first lets that
    page carry the back links of every citation that opens it, instead of the last one writing
    over the others.
    """

    def __init__(
        self,
        reader: EvidenceReader,
        out_dir: str | os.PathLike[str],
        rendered: RenderedPages | None = None,
    ) -> None:
        self.reader = reader
        self.out_dir = Path(out_dir)
        self.rendered = rendered
        self._pages: dict[str, tuple[Judgement, str, list[tuple[str, str]]]] = {}

    def add(
        self, judgement: Judgement, *, key: str, back_links: Sequence[tuple[str, str]] = ()
    ) -> str | None:
        """The file name the judgement's page will have (None: no page), remembering it."""
        receipt = page_receipt(judgement)
        if receipt is None:
            return None
        name = evidence_page_name(receipt, key)
        entry = self._pages.setdefault(name, (judgement, key, []))
        for link in back_links:
            if link not in entry[2]:
                entry[2].append(link)
        return name

    def write(self) -> list[str]:
        """Write every page collected, removing the pages they supersede; returns their names in
        the order first added."""
        if self.rendered is not None:
            return self.rendered.write(self)
        written: list[str] = []
        for judgement, key, links in self._pages.values():
            name = write_evidence_page(
                judgement, self.reader, self.out_dir, key=key, back_links=links, folder_sync=False
            )
            if name is not None:
                written.append(name)
        if written:  # the folder once for all its new names, before the document links them
            fsync_dir(self.out_dir)
        remove_superseded(self.out_dir, written)
        return written

    def collected(self) -> list[tuple[Judgement, str, list[tuple[str, str]]]]:
        return list(self._pages.values())


@dataclass
class _Folder:
    """An evidence folder as a batch found it and changed it (a batch is one build: nothing
    else writes there meanwhile)."""

    pages: dict[tuple[str, str], set[str]]  # (key slug, quote digest) -> the pages there
    wrote: dict[str, str] = field(default_factory=dict)  # name -> digest of the text written


class RenderedPages:
    """The evidence pages of a batch of builds (``citeledger build``), each rendered once.

    Every page of a site that cites a quote links its evidence page, and each build writes and
    removes what a lone filter run would (the folder ends byte for byte the same); what is not
    repeated is the rendering, the heavy part (the evidence record read, its text checked, the
    snapshot embedded): a build whose page is already in the folder, written by this batch
    from an equal judgement, neither renders nor reads it again. Nor is the folder listed again
    for every build. Only digests are kept (a snapshot makes a page megabytes): a page the batch
    removed as superseded and a later build needs again is rendered again. The batch's
    evidence is taken as first read (``build.batch.HeldEvidence``), so an equal judgement
    renders the same bytes on every page."""

    def __init__(self) -> None:
        # (real store root, name) -> (judgement, key, back links, digest of the page they
        # render): a page is drawn from its store's evidence, so an equal judgement of another
        # store's receipt (a second ledger of the batch) is another page until rendered
        self._made: dict[
            tuple[str, str], list[tuple[Judgement, str, tuple[tuple[str, str], ...], str]]
        ] = {}
        self._folders: dict[str, _Folder] = {}  # by real path: one folder however it is named

    def _digest(
        self,
        made: tuple[str, str],
        judgement: Judgement,
        key: str,
        links: tuple[tuple[str, str], ...],
    ) -> str | None:
        for j, k, ls, digest in self._made.get(made, ()):
            if k == key and ls == links and j == judgement:
                return digest
        return None

    def _folder(self, out_dir: Path) -> _Folder:
        real = os.path.realpath(out_dir)
        folder = self._folders.get(real)
        if folder is None:
            try:
                names = os.listdir(out_dir)
            except OSError:  # not made yet
                names = []
            pages: dict[tuple[str, str], set[str]] = {}
            for name in names:
                identity = page_identity(name)
                if identity is not None:
                    pages.setdefault(identity, set()).add(name)
            folder = self._folders[real] = _Folder(pages)
        return folder

    def write(self, pages: EvidencePageSet) -> list[str]:
        """``EvidencePageSet.write`` for one build of the batch: the same files written, the
        same superseded pages removed (``remove_superseded``), the rendering shared."""
        folder = self._folder(pages.out_dir)
        store = os.path.realpath(pages.reader.root)
        written: list[str] = []
        changed = False
        for judgement, key, links in pages.collected():
            receipt = page_receipt(judgement)
            if receipt is None:
                continue
            name, back = evidence_page_name(receipt, key), tuple(links)
            made = (store, name)
            digest = self._digest(made, judgement, key, back)
            if digest is None or folder.wrote.get(name) != digest:
                page = render_page(judgement, pages.reader, key=key, back_links=back)
                if page is None:  # pragma: no cover - page_receipt answered above
                    continue
                digest = sha256_hex(page.html)
                if self._digest(made, judgement, key, back) is None:
                    self._made.setdefault(made, []).append((judgement, key, back, digest))
                changed |= write_if_changed(pages.out_dir / name, page.html, folder_sync=False)
                folder.wrote[name] = digest
                identity = page_identity(name)
                if identity is not None:
                    folder.pages.setdefault(identity, set()).add(name)
            written.append(name)
        if changed:  # the folder once for all its new names, before the document links them
            fsync_dir(pages.out_dir)
        keep = set(written)
        for identity in {page_identity(name) for name in written}:
            there = folder.pages.get(identity) if identity is not None else None
            if not there:
                continue
            for old in sorted(there - keep):
                with suppress(FileNotFoundError):
                    os.unlink(pages.out_dir / old)
                there.discard(old)
                folder.wrote.pop(old, None)  # rendered and written again if a later build needs it
        return written


# --- replaced, not accumulated -----------------------------------------------------------------


def remove_superseded(out_dir: Path, written: Sequence[str]) -> int:
    """Remove the older pages of the quotes just published; returns how many were removed.

    A re-verify names a new page (its retrieval time is in the name), so without this the
    folder keeps one page per verify run of every quote. A page is superseded when it shows the
    same key's same quote (same quote digest) as a page written now; other files, and pages of
    quotes not written now (another document in the same folder may link them), are left alone.
    """
    current = {page_identity(n) for n in written}
    return _remove(out_dir, set(written), lambda name, identity: identity in current)


# Which pages each ledger wrote into a folder (``citeledger evidence``): a folder may hold the
# pages of several ledgers, and one ledger's run removes only its own. Named by a digest of the
# ledger's path relative to the folder (the same on every machine that holds the project); the
# file holds that relative path and page names, both public (the index links every page).
_MANIFEST = ".citeledger-pages-{}.json"
_MANIFEST_GLOB = ".citeledger-pages-*.json"


def _ledger_relative(ledger_path: str | os.PathLike[str], out_dir: Path) -> str:
    """How a ledger is named in the folder's records: its path relative to the folder."""
    return os.path.relpath(os.path.realpath(ledger_path), os.path.realpath(out_dir))


def remove_unwritten(
    out_dir: Path,
    written: Sequence[str],
    ledger_path: str | os.PathLike[str],
    keys: Iterable[str],
    listing: dict[str, object] | None = None,
) -> int:
    """``citeledger evidence``: remove this ledger's pages not written now, then record the
    pages it wrote (and ``listing``, its part of the folder's index). Its pages are those its
    last run recorded, and (from before any record) the pages named by one of its keys that no
    other ledger's record claims."""
    import json

    from citeledger.evidence.page import page_slug

    relative = _ledger_relative(ledger_path, out_dir)
    mine = out_dir / _MANIFEST.format(sha256_hex(relative)[:16])
    previous: set[str] = set()
    others: set[str] = set()
    for path in out_dir.glob(_MANIFEST_GLOB):
        try:
            names = json.loads(path.read_bytes())["pages"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        (previous if path == mine else others).update(str(n) for n in names)
    slugs = {page_slug(k) for k in keys}

    def is_mine(name: str, identity: tuple[str, str]) -> bool:
        return name in previous or (name not in others and identity[0] in slugs)

    removed = _remove(out_dir, set(written), is_mine)
    record = {"ledger": relative, "pages": sorted(written), **(listing or {})}
    write_if_changed(mine, json.dumps(record, ensure_ascii=False, indent=1) + "\n")
    return removed


def _remove(
    out_dir: Path, keep: set[str], superseded: Callable[[str, tuple[str, str]], bool]
) -> int:
    """Unlink each evidence page of ``out_dir`` not in ``keep`` that ``superseded`` names."""
    removed = 0
    try:
        names = os.listdir(out_dir)
    except OSError:
        return 0
    for name in names:
        identity = page_identity(name)
        if name in keep or identity is None or not superseded(name, identity):
            continue
        try:
            os.unlink(out_dir / name)
            removed += 1
        except FileNotFoundError:
            pass
    return removed


# --- files -------------------------------------------------------------------------------------


def write_if_changed(target: Path, text: str, *, folder_sync: bool = True) -> bool:
    """Atomically replace ``target`` with ``text`` unless it already holds exactly that;
    ``folder_sync=False``: the caller fsyncs the folder once for many files."""
    data = text.encode("utf-8")
    try:
        if target.read_bytes() == data:
            return False
    except OSError:
        pass
    # pages are published beside the document: readable by the web server
    atomic_write(target, data, mode=0o644, folder_sync=folder_sync)
    return True


# --- the command -------------------------------------------------------------------------------


@dataclass(frozen=True)
class IndexEntry:
    key: str
    quote_number: int  # from 1, as the writer counts them in the ledger
    quote_id: str | None
    locator: str | None
    quote: str
    state: State
    page: str | None = None
    failed: bool = True
    retrieved_at: str | None = None
    note: str = ""  # why there is no page, or the page's verdict


@dataclass
class EvidencePages:
    """What ``build_evidence_pages`` did, for the summary line and for tests."""

    out_dir: Path
    entries: list[IndexEntry] = field(default_factory=list)
    restricted_sources: int = 0
    written: int = 0  # files whose bytes changed
    unread: list[str] = field(default_factory=list)  # locators no term reads without a lang

    @property
    def pages(self) -> list[str]:
        return [e.page for e in self.entries if e.page]

    @property
    def failed(self) -> int:
        return sum(1 for e in self.entries if e.page and e.failed)

    @property
    def without_receipt(self) -> int:
        return sum(1 for e in self.entries if e.page is None)


def build_evidence_pages(
    ledger_path: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    audience: str | None = None,
    lang: str | None = None,
) -> EvidencePages:
    """Judge every quote of every source, write its page and the index; print nothing.

    ``lang``: the citing document's language. A quote's ``locator`` is read with its locale's
    terms, as the build reads it (``build.pinpoints``): with English alone a German
    ``locator: S. 3`` is no page, and a quote verify found on page 2 would be shown checked
    here while the document's build says it is not on the page the locator names."""
    from citeledger.ledger import load_ledger

    ledger = load_ledger(ledger_path)
    reader = EvidenceReader(ledger.evidence_dir)
    judge = Judge(ledger, audience=audience, reader=reader)
    result = EvidencePages(Path(out))
    result.out_dir.mkdir(parents=True, exist_ok=True)
    for key, source in ledger.sources.items():
        first = judge.judge(CitationRef(key))
        if first.state is State.RESTRICTED:
            result.restricted_sources += 1
            continue
        if not source.quotes:
            note = "no quote is recorded, so there is nothing to check"
            result.entries.append(IndexEntry(key, 0, None, None, "", first.state, note=note))
            continue
        for number, quote in enumerate(source.quotes, start=1):
            j = judge.judge(CitationRef(key, locator=quote.locator, lang=lang), quote=quote)
            if j.quote is None:
                j = dataclasses.replace(j, quote=quote)
            entry = IndexEntry(key, number, quote.id, quote.locator, quote.text, j.state)
            if lang is None and (normalize_locator(quote.locator) or ("",))[0] == "other":
                result.unread.append(f"@{key} quote {number} ({quote.locator})")
            page = render_page(j, reader, key=key)
            if page is None:
                note = "never verified: no retrieval, so no evidence to show"
                entry = dataclasses.replace(entry, note=note)
            else:
                if write_if_changed(result.out_dir / page.name, page.html):
                    result.written += 1
                receipt = page_receipt(j)
                entry = dataclasses.replace(
                    entry,
                    page=page.name,
                    failed=page.failed,
                    retrieved_at=receipt.retrieved_at if receipt else None,
                    note="FAILED" if page.failed else "checked",
                )
            result.entries.append(entry)
    remove_unwritten(result.out_dir, result.pages, ledger_path, ledger.sources, _listing(result))
    others = _other_listings(result.out_dir, _ledger_relative(ledger_path, result.out_dir))
    if others:  # a folder two ledgers publish into: one index of both, whichever ran last
        mine = (_ledger_relative(ledger_path, result.out_dir), result)
        index = render_index(
            result, ledger_name="", sections=sorted([mine, *others], key=lambda x: x[0])
        )
    else:
        index = render_index(result, ledger_name=os.path.basename(os.fspath(ledger_path)))
    if write_if_changed(result.out_dir / INDEX_NAME, index):
        result.written += 1
    return result


def write_evidence_pages(
    ledger_path: str, out: str, *, audience: str | None = None, lang: str | None = None
) -> int:
    """``citeledger evidence --ledger L --out DIR``: write the pages, print one summary line."""
    result = build_evidence_pages(ledger_path, out, audience=audience, lang=lang)
    if result.unread:
        n = len(result.unread)
        print(
            visible(
                f"citeledger: warning: {n} quote {'locator is' if n == 1 else 'locators are'} "
                f"read by no English term: {', '.join(result.unread)}; if the citing document "
                "has another `lang`, give it (--lang de) so they are read as its build reads them"
            ),
            file=sys.stderr,
        )
    parts = [f"{result.failed} failed"]
    if result.without_receipt:
        parts.append(f"{result.without_receipt} quotes never verified")
    if result.restricted_sources:
        parts.append(f"{result.restricted_sources} restricted sources not shown")
    print(
        visible(
            f"citeledger: {len(result.pages)} evidence pages in {result.out_dir} "
            f"({', '.join(parts)}; {result.written} files changed); open "
            f"{result.out_dir / INDEX_NAME}"
        )
    )
    return 0


def _listing(result: EvidencePages) -> dict[str, object]:
    """A ledger's part of the folder's index, as its record keeps it for the other ledgers'
    runs (public: it is what the index shows)."""
    entries = [{**dataclasses.asdict(e), "state": e.state.value} for e in result.entries]
    return {"entries": entries, "restricted_sources": result.restricted_sources}


def _other_listings(out_dir: Path, relative: str) -> list[tuple[str, EvidencePages]]:
    """The listings the folder's other ledgers recorded (``remove_unwritten``); a record from
    before listings were kept lists its pages alone, until that ledger's next run."""
    import json

    found = []
    for path in sorted(out_dir.glob(_MANIFEST_GLOB)):
        try:
            record = json.loads(path.read_bytes())
            ledger, pages = str(record["ledger"]), [str(n) for n in record["pages"]]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if ledger == relative:
            continue
        listed = EvidencePages(out_dir)
        try:
            listed.entries = [
                IndexEntry(**{**e, "state": State(e["state"])}) for e in record["entries"]
            ]
            listed.restricted_sources = int(record.get("restricted_sources", 0))
        except (KeyError, TypeError, ValueError):
            note = "listed by this ledger's next `citeledger evidence` run"
            listed.entries = [
                IndexEntry("", 0, None, None, "", State.UNCHECKED, page=n, note=note) for n in pages
            ]
        found.append((ledger, listed))
    return found


def render_index(
    result: EvidencePages,
    *,
    ledger_name: str,
    sections: Sequence[tuple[str, EvidencePages]] = (),
) -> str:
    """The read-only index of the pages: relative links only, nothing loaded or run.

    With ``sections`` (ledger, its pages), the index of a folder several ledgers publish into:
    one section each, so no ledger's run hides the other's pages."""
    e = _escape

    title = f"Evidence pages of {ledger_name}" if not sections else "Evidence pages"

    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{e(CSP)}">',
        '<meta name="referrer" content="no-referrer">',
        '<meta name="robots" content="noindex, nofollow">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(title)}</title>",
        f"<style>\n{stylesheet()}{_INDEX_CSS}</style>",
        "</head>",
        '<body class="citeledger-evidence citeledger-evidence-index">',
        "<header>",
        f"<h1>Evidence pages of <code>{e(ledger_name)}</code></h1>"
        if not sections
        else f"<h1>Evidence pages of {len(sections)} ledgers</h1>",
        "</header>",
        "<main>",
    ]
    for name, part in sections or [("", result)]:
        if sections:
            out.append(f"<h2>Ledger <code>{e(name)}</code></h2>")
        out += _index_section(part)
    out += [
        "</main>",
        '<footer><p class="citeledger-evidence-note">',
        f"Written by citeledger {e(__version__)}. Read-only: nothing here navigates out, "
        "submits or loads anything.",
        "</p></footer>",
        "</body>",
        "</html>",
    ]
    return "\n".join(out) + "\n"


def _escape(value: object) -> str:
    return html.escape(str(value), quote=True)


def _index_section(result: EvidencePages) -> list[str]:
    """One ledger's summary line and table of pages."""
    e = _escape

    out: list[str] = []
    n_pages = len(result.pages)
    out.append(
        f"<p>{n_pages} evidence {'page' if n_pages == 1 else 'pages'}, one per retrieval "
        f"receipt; {result.failed} failed. A page shows what was retrieved; opening one does "
        "not check anything.</p>"
    )
    if result.entries:
        out.append('<table class="citeledger-evidence-index-table">')
        out.append(
            "<thead><tr><th>Source</th><th>Quote</th><th>State</th><th>Retrieved (UTC)</th>"
            "<th>Evidence</th></tr></thead>"
        )
        out.append("<tbody>")
        for entry in result.entries:
            quote = " ".join(entry.quote.split())
            if len(quote) > QUOTE_CHARS:
                quote = quote[:QUOTE_CHARS].rsplit(" ", 1)[0] + " …"
            label = []
            if entry.quote_number:
                label.append(f"quote {entry.quote_number}")
            if entry.quote_id:
                label.append(f"id {entry.quote_id}")
            if entry.locator:
                label.append(entry.locator)
            if entry.page:
                verdict = "FAILED: " if entry.failed else ""
                cell = f'{e(verdict)}<a href="{e(_quote(entry.page, safe="._-~"))}">evidence</a>'
            else:
                cell = f'<span class="citeledger-evidence-unavailable">{e(entry.note)}</span>'
            out.append(
                f'<tr class="citeledger-{e(entry.state.value)}">'
                f"<td><code>@{e(entry.key)}</code></td>"
                f"<td>{e(', '.join(label))}<br>{e(quote)}</td>"
                f"<td>{e(entry.state.value)}</td>"
                f"<td>{e(entry.retrieved_at or '')}</td>"
                f"<td>{cell}</td></tr>"
            )
        out.append("</tbody></table>")
    if result.restricted_sources:
        n = result.restricted_sources
        out.append(
            f"<p>{n} {'source is' if n == 1 else 'sources are'} restricted to another audience "
            "and not listed.</p>"
        )
    return out
