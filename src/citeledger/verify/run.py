"""The verify act: retrieve → extract → locate → receipt, for every source of the ledger.

The only command (with ``recheck``) that sends anything. Before it sends, it states the plan:
which hosts, how many requests, and that only identifiers travel — never the writer's quote or
document. On a terminal it asks; elsewhere it needs ``--yes``. Receipts are written in batches
as sources finish (``batch``), so an interrupted run keeps every written batch and leaves a valid
ledger; extraction and locating run in a pool of limited workers, off the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

from citeledger import ledger as ledger_mod
from citeledger.atomic import remove_stale_temps
from citeledger.confine import allowed_by, confine
from citeledger.errors import CiteledgerError
from citeledger.evidence import leftovers
from citeledger.evidence.store import EvidenceStore
from citeledger.inert import visible
from citeledger.model import Ledger, Receipt, Source
from citeledger.verify import writer
from citeledger.verify.batch import Finished, ReceiptBatch
from citeledger.verify.bounded import WorkerPool, warm_up
from citeledger.verify.receipts import (
    Capture,
    capture,
    failure_receipts,
    receipts_for_capture,
)


@dataclass
class Tally:
    """The end summary: outcomes overall and per host. A quote verify found is "found", not
    "checked": checked is the build's judgement, and a work the registry reports retracted
    (or as another work) in this very run is found and still a breakdown — the summary says so."""

    outcomes: Counter[str] = field(default_factory=Counter)
    per_host: dict[str, Counter[str]] = field(default_factory=dict)

    def add(self, host: str, receipts: Sequence[Receipt]) -> None:
        bucket = self.per_host.setdefault(host, Counter())
        for r in receipts:
            word = {"not-found": "not found"}.get(r.outcome, r.outcome)
            if r.outcome == "found" and r.retracted:
                word = "found, but retracted"
            elif r.outcome == "found" and r.metadata_mismatch:
                word = "found, but the registry names another work"
            self.outcomes[word] += 1
            bucket[word] += 1

    def render(self, verb: str = "verify") -> str:
        def fmt(c: Counter[str]) -> str:
            return ", ".join(f"{n} {k}" for k, n in sorted(c.items())) or "nothing"

        lines = [f"citeledger: {verb} finished: {fmt(self.outcomes)}"]
        for host in sorted(self.per_host):
            lines.append(f"  {host}: {fmt(self.per_host[host])}")
        return "\n".join(lines)


@dataclass
class Written:
    """What one run wrote, for ``verify``'s exit code (``cli.verify_exit``) without reading the
    ledger again: each selected quote's outcome in the receipt this run wrote for it, or None
    when it got none (a request refused before sending), and the store the run wrote into."""

    evidence_dir: str | None = None
    latest: dict[tuple[str, int], str | None] = field(default_factory=dict)

    def select(self, sources: Sequence[Source]) -> None:
        for s in sources:
            for n in range(len(s.quotes)):
                self.latest[(s.key, n)] = None

    def add(self, key: str, receipts: Sequence[tuple[int, Receipt]]) -> None:
        for n, r in receipts:
            self.latest[(key, n)] = r.outcome


def select_sources(ledger: Ledger, only: Sequence[str]) -> list[Source]:
    unknown = [k for k in only if k not in ledger.sources]
    if unknown:
        raise CiteledgerError(
            f"--only names keys that are not in the ledger: {', '.join(unknown)}",
            file=ledger.path,
            fix="check the spelling, or add them with `citeledger add`",
        )
    chosen = [ledger.sources[k] for k in only] if only else list(ledger.sources.values())
    return [s for s in chosen if s.quotes and s.withdrawn is None]


def load_config(config_path: str | None, allow_private: bool) -> Any:
    from citeledger.retrieve import RetrieveConfig

    return RetrieveConfig.from_file(config_path, allow_private=allow_private or None)


def _confirm(prompt: str, assume_yes: bool, out: TextIO) -> bool:
    if assume_yes:
        return True
    if not sys.stdin.isatty():
        raise CiteledgerError(
            "verify sends requests and needs consent: not on a terminal, so nothing was sent",
            fix="run again with --yes (or --dry-run to see the plan)",
        )
    out.write(prompt)
    out.flush()
    return sys.stdin.readline().strip().lower() in ("y", "yes")


# A handler turns one fetch outcome (and its capture, stored once) into a source's receipts.
Handler = Callable[[Source, Any, "Capture | None"], "tuple[list[tuple[int, Receipt]], str]"]


@dataclass(frozen=True)
class Mode:
    """What distinguishes verify from recheck: which sources, and what an outcome means."""

    verb: str
    handle: Handler
    select: Callable[[Ledger, Sequence[str]], list[Source]]
    conditional: bool = False  # send the previous response's validators (ETag/Last-Modified)


def run_verify(ledger_path: str, **options: Any) -> int:
    return execute(VERIFY, ledger_path, **options)


def load_confined(ledger_path: str, allow_outside: bool) -> Ledger:
    """The ledger, its evidence folder (where verify writes) kept inside the project."""
    led = ledger_mod.load_ledger(ledger_path)
    confine(
        led.evidence_dir,
        [led.root],
        named_by="its evidence_dir",
        what="a folder",
        allow=allow_outside or allowed_by(),
        file=ledger_path,
    )
    return led


def execute(
    mode: Mode,
    ledger_path: str,
    *,
    only: Sequence[str] = (),
    dry_run: bool = False,
    assume_yes: bool = False,
    allow_private: bool = False,
    config_path: str | None = None,
    out: TextIO | None = None,
    allow_outside: bool = False,
    written: Written | None = None,
) -> int:
    """Plan, ask, fetch, and write each source's receipts as soon as its retrieval ends.

    ``written`` (when given) is told the store and every receipt the run writes."""
    out = out or sys.stdout
    from citeledger import retrieve

    verb, handle, conditional = mode.verb, mode.handle, mode.conditional
    led = load_confined(ledger_path, allow_outside)
    written = written if written is not None else Written()
    written.evidence_dir = led.evidence_dir
    sources = mode.select(led, only)
    written.select(sources)
    if not sources:
        out.write(f"citeledger: nothing to {verb} (no source with a quote)\n")
        return 0
    ledger_mod.refuse_shared_quotes(ledger_path, [s.key for s in sources])  # before any request
    if not dry_run:
        warm_up()  # its imports beside the plan and the writer's start; nothing is sent
    config = load_config(config_path, allow_private)
    # One request per identifier: two sources citing the same page share one retrieval.
    groups: dict[str, list[Source]] = {}
    for s in sources:
        groups.setdefault(request_key(s), []).append(s)
    refuse_missing_copies(led, sources)  # before any request: the writer's own input is wrong
    requests = [_request(retrieve.FetchRequest, led, same, conditional) for same in groups.values()]
    out.write(visible(retrieve.plan(requests, config).describe()) + "\n")
    if dry_run:
        out.write("citeledger: --dry-run: nothing was sent\n")
        return 0
    if not _confirm("Send these requests? [y/N] ", assume_yes, out):
        out.write("citeledger: nothing was sent\n")
        return 1
    store = EvidenceStore(led.evidence_dir, batched_sync=True)
    from citeledger.evidence.signing import load_signer

    batch = ReceiptBatch(ledger_path, led.evidence_dir, load_signer(), store)
    tally = Tally()
    with (
        run_lock(led, verb, out),
        _writer(batch) as write,  # forked before any thread of the run, holding the run lock
        Progress(out, len(requests), verb) as progress,
        WorkerPool(config.extraction_limits) as pool,
        ThreadPoolExecutor(4 * pool.size) as threads,  # a capture mostly waits: a worker, fsync
    ):
        writing = asyncio.Lock()
        noted_as = os.path.abspath(ledger_path)  # once: each note would ask the cwd again

        def report(items: Sequence[Finished]) -> None:
            for item in items:
                tally.add(item.host, [r for _, r in item.receipts])
                written.add(item.source.key, item.receipts)
                progress.line(f"  @{item.source.key}: {item.line}")

        async def flush() -> None:
            async with writing:
                items, digests = batch.take()
                if items or digests:
                    report(await asyncio.to_thread(write, items, digests))

        async def on_done(outcome: Any) -> None:
            host = urlsplit(outcome.url or outcome.requested_url or "").hostname or "local files"
            cap, digest = None, None
            same = groups[outcome.request.key]
            if outcome.retrieval is not None:
                # noted, extracted, located and stored off the event loop, which keeps fetching
                loop = asyncio.get_running_loop()
                digest, cap = await loop.run_in_executor(
                    threads, noted_capture, led, noted_as, outcome.retrieval, store, same, pool
                )
            done = []
            for source in same:
                receipts, line = handle(source, outcome, cap)
                done.append(Finished(source, receipts, line + _registry_note(outcome), host))
            batch.add(done, digest)
            progress.advance()
            if batch.due():
                await flush()
            elif not timers:  # a slow source must not hold back the finished ones' receipts
                timer = asyncio.create_task(flush_later())
                timers.add(timer)
                flushes.append(timer)

        timers: set[asyncio.Task[None]] = set()  # the flush waiting for its time
        flushes: list[asyncio.Task[None]] = []  # every timed flush, waited for at the end

        async def flush_later() -> None:
            await asyncio.sleep(batch.seconds)
            timers.clear()
            await flush()

        async def fetch_and_settle() -> None:
            try:
                await retrieve.fetch_all(requests, config, on_done=on_done, keep=False)
            finally:
                # A flush still waiting for its time is not needed (its items go in the last
                # batch); one under way is waited for and reported. Left to asyncio.run, it
                # was cancelled mid-write when the fetching ended first: its receipts were
                # written, but missing from the summary and from ``written`` (the exit code).
                for timer in timers:
                    timer.cancel()
                ended = await asyncio.gather(*flushes, return_exceptions=True)
            for result in ended:
                if isinstance(result, Exception):  # a failed write is the run's error
                    raise result

        finished = False
        try:
            asyncio.run(fetch_and_settle())
            finished = True
        finally:
            items, digests = batch.take()  # the last batch, also when interrupted
            if items or digests:
                try:
                    report(write(items, digests))
                except Exception:
                    if finished:
                        raise
            if batch.head and batch.head != batch.head_written:
                _record_head(ledger_path, batch.head)
    out.write(visible(tally.render(verb)) + "\n")
    return 0


def _registry_note(outcome: Any) -> str:
    """A registry asked and not answering is said: this check learnt nothing new of a
    retraction or of another work (the judgement keeps what earlier checks stored)."""
    error = getattr(outcome, "metadata_error", None)
    if error is None:
        return ""
    return (
        f" — WARNING: the registry could not be asked ({error}): no retraction or other work "
        "is known from this check; earlier answers still count"
    )


def noted_capture(
    led: Ledger,
    ledger_path: str,
    retrieval: Any,
    store: EvidenceStore,
    sources: Sequence[Source],
    pool: WorkerPool,
) -> tuple[str, Capture]:
    """The body's leftovers note, then its capture: noted first (in the worker that stores it),
    so a run killed before the receipts are written has its evidence removed by the next
    (``evidence.leftovers``). The note's digest is the body's."""
    cap = capture(retrieval, store, sources, None, pool, noted_for=ledger_path)
    return cap.stored.body_sha256, cap


@contextlib.contextmanager
def _writer(batch: ReceiptBatch) -> Iterator[Callable[..., list[Finished]]]:
    """How this run writes a batch: in a process of its own where it can die with this one."""
    if not writer.available():
        yield batch.write
        return
    with writer.BatchWriter(batch) as child:
        yield child.write


@contextlib.contextmanager
def run_lock(led: Ledger, verb: str, out: TextIO) -> Iterator[None]:
    """One verify/recheck at a time per evidence store: a second run waits for the first.

    The ledger's own lock keeps each write whole; this one keeps two runs from retrieving the
    same sources at once and interleaving their receipts.
    """
    from filelock import FileLock, Timeout

    folder = Path(led.evidence_dir)
    folder.mkdir(parents=True, exist_ok=True)
    lock = FileLock(folder / "run.lock")
    try:
        lock.acquire(timeout=0)
    except Timeout:
        out.write(f"citeledger: another verify or recheck is running here; {verb} waits\n")
        out.flush()
        lock.acquire()
    try:
        # Holding the run lock, no other verify writes here: a temp file is a killed run's.
        remove_stale_temps(folder, older_than=0)
        moved = leftovers.clean_leftovers(folder, led)
        if moved:
            out.write(
                f"citeledger: moved {len(moved)} evidence file(s) no receipt names (a killed "
                f"run's) to {folder / leftovers.QUARANTINE}\n"
            )
        yield
    finally:
        lock.release()


class Progress:
    """A progress bar on a terminal (rich); plain lines everywhere else (CI logs stay readable)."""

    def __init__(self, out: TextIO, total: int, verb: str) -> None:
        self.out = out
        self.total = total
        self.verb = verb
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> Progress:
        if self.out is sys.stdout and sys.stdout.isatty():
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(transient=True)
            self._bar.start()
            self._task = self._bar.add_task(f"{self.verb}…", total=self.total)
        return self

    def line(self, text: str) -> None:
        text = visible(text)  # a source's words, a server's reason: never a terminal's orders
        if self._bar is not None:
            self._bar.console.print(text, markup=False, highlight=False)
        else:
            self.out.write(text + "\n")
            self.out.flush()

    def advance(self) -> None:
        if self._bar is not None:
            self._bar.advance(self._task)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()


def verify_outcome(
    source: Source, outcome: Any, cap: Capture | None
) -> tuple[list[tuple[int, Receipt]], str]:
    if outcome.error is not None and outcome.kind == "refused-address":
        # Nothing was sent, so nothing was learnt about the source: a receipt would only
        # overwrite a real check with a policy refusal.
        return [], f"NOT SENT ({outcome.error.message}); no receipt written"
    if outcome.error is not None:
        receipts = failure_receipts(
            source, outcome.error.message, outcome.retrieved_at, metadata=outcome.metadata
        )
    elif cap is None:  # 304 Not Modified: the current receipts stand
        return [], "unchanged since the last check (not modified)"
    else:
        receipts = receipts_for_capture(
            source, cap, metadata=outcome.metadata, fulltext_error=outcome.fulltext_error
        )
    return receipts, describe([r for _, r in receipts])


VERIFY = Mode("verify", verify_outcome, select_sources)


def request_key(source: Source) -> str:
    """One retrieval per identifier; a source read from a local copy is its own retrieval."""
    if source.local_copy is not None:
        return f"{source.identifier} <- file:{source.local_copy}"
    return str(source.identifier)


def refuse_missing_copies(led: Ledger, sources: Sequence[Source]) -> None:
    """A ``local_copy`` that is not a file is the writer's to fix: one line, nothing sent.

    Checked here and not when the ledger is read, so a build on a machine without the writer's
    PDFs still reads the ledger.
    """
    for s in sources:
        if s.local_copy is None:
            continue
        path = Path(led.root) / s.local_copy
        if not path.is_file():
            what = "is a folder, not a file" if path.is_dir() else "does not exist"
            raise CiteledgerError(
                f"the local_copy of source '{s.key}' ({s.local_copy}) {what}; nothing was sent",
                file=led.path,
                line=s.local_copy_line or s.line,
                fix="put your copy of the work there (relative to the ledger's folder), or "
                "remove the local_copy: line to retrieve the source through its identifier",
            )


def _request(make: Any, led: Ledger, same: Sequence[Source], conditional: bool) -> Any:
    """What is sent: the identifier and, on a recheck, the previous response's validators.

    Validators are used only when every source sharing the identifier has one from the same
    body; otherwise a 304 could leave one of them without a fresh receipt.
    """
    prevs = [_previous(s) for s in same] if conditional else [None]
    prev = prevs[0] if len({p.body_sha256 if p else None for p in prevs}) == 1 else None
    return make(
        identifier=same[0].identifier,
        key=request_key(same[0]),
        local_copy=same[0].local_copy,
        etag=prev.etag if prev else None,
        last_modified=prev.last_modified if prev else None,
        root=led.root,
        allow_files_outside=led.allow_files_outside,
    )


def _previous(source: Source) -> Receipt | None:
    latest: Receipt | None = None
    for q in source.quotes:
        r = q.latest
        if r is not None and r.outcome == "found":
            latest = r
    return latest


def _record_head(ledger_path: str, head: str) -> None:
    """The newest history entry this ledger has seen (evidence.history_entries): removing log
    lines, or the whole log, is then noticed by the judgement."""
    if ledger_mod.set_history_head(ledger_path, head):  # one line, not a re-dump of the ledger
        return
    with ledger_mod.edit_ledger(ledger_path) as doc:
        if "history_head" in doc or "sources" not in doc:
            doc["history_head"] = head
        else:  # before sources:, so that a writer's new source appended at the end stays there
            doc.insert(list(doc).index("sources"), "history_head", head)


def describe(receipts: Sequence[Receipt]) -> str:
    words = []
    for r in receipts:
        if r.outcome == "found":
            words.append(f"found ({r.match}{', page ' + str(r.page) if r.page else ''})")
        elif r.outcome == "not-found":
            detail = "; ".join(r.differences) if r.differences else "no matching passage"
            words.append(f"NOT FOUND ({detail})")
        else:
            words.append(f"UNRETRIEVABLE ({r.reason})")
        if r.metadata_mismatch:  # loud: a found quote in another work is not a check
            words[-1] += f" — BUT NOT CHECKED: {r.metadata_mismatch}"
    return "; ".join(words)
