"""Run one source's extraction and locating in a worker process with CPU and memory limits.

Extraction is the part of verify that a source's author controls: a page or PDF can be built
to take minutes or gigabytes (nested markup, decompression bombs, pathological fonts), and the
libraries doing it are C code that no Python timeout can interrupt. So the work runs in a
child process whose kernel limits (``RLIMIT_CPU``, ``RLIMIT_AS``) stop it wherever it is, and a
source over a limit becomes ``unretrievable`` with the limit named ("extraction exceeded 60 s
of CPU"), never a hung or killed run.

Children come from a ``forkserver`` (a clean process that has imported the extractors once):
each fork is cheap, and never a copy of verify's own threads and sockets. A run over many
sources uses a ``WorkerPool``: a few such children, sized to the machine, each serving one
source after another under a fresh CPU allowance, and replaced whenever one goes over a limit.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import queue
import resource
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from citeledger.errors import ExtractError
from citeledger.extract.pdf import MAX_INFLATED_BYTES

T = TypeVar("T")

MB = 1_000_000
DEFAULT_CPU_SECONDS = 60.0
DEFAULT_MEMORY_BYTES = 2000 * MB
_PRELOAD = [
    "citeledger.verify.receipts",
    "citeledger.extract.dispatch",
    "citeledger.locate.locator",
    "citeledger.verify.bounded",
]
TASKS_PER_WORKER = 500  # then a fresh worker: whatever one source's work left behind is gone


@dataclass(frozen=True)
class Limits:
    """What one source's extraction and locating may use (``retrieve.config`` sets them)."""

    cpu_seconds: float = DEFAULT_CPU_SECONDS
    memory_bytes: int = DEFAULT_MEMORY_BYTES
    max_inflated_bytes: int = MAX_INFLATED_BYTES  # a PDF's streams, decompressed

    @property
    def wall_seconds(self) -> float:
        """A stopped clock's backstop (a child blocked without spending CPU)."""
        return 3 * self.cpu_seconds + 30


class LimitExceeded(ExtractError):
    """The worker was stopped by one of its limits; the message names it."""


def _child(conn: Any, fn: Callable[..., Any], args: tuple[Any, ...], limits: Limits) -> None:
    cpu = max(1, int(limits.cpu_seconds + 0.999))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    _lower(resource.RLIMIT_CPU, cpu, cpu + 5)  # soft: SIGXCPU; hard: SIGKILL
    _lower(resource.RLIMIT_AS, limits.memory_bytes, limits.memory_bytes)
    _run_and_send(conn, fn, args)


def _run_and_send(conn: Any, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    """Run one task in a worker and send what ``_answer`` reads: ("ok", result), ("memory",
    None) or ("error", words). Shared by the one-off child and the pool's workers."""
    try:
        result = fn(*args)
    except MemoryError:
        conn.send(("memory", None))
        return
    except Exception as exc:  # the parent frames it as this source's reason
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
        return
    try:
        conn.send(("ok", result))
    except MemoryError:
        conn.send(("memory", None))


def _lower(which: int, soft: int, hard: int) -> None:
    """Set a limit, never above the hard limit the machine already imposes."""
    _, current = resource.getrlimit(which)
    if current != resource.RLIM_INFINITY:
        soft, hard = min(soft, current), min(hard, current)
    resource.setrlimit(which, (soft, hard))


def _context() -> Any:
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(_PRELOAD)
    return ctx


def warm_up() -> None:
    """Start the forkserver now; it imports the extractors (a few tenths of a second) on the
    other core while the caller goes on, where the first source's worker waited for it.

    It starts a process and no thread, so a fork made after it (``verify.writer``) is still
    a fork of one thread."""
    _context()
    from multiprocessing import forkserver

    forkserver.ensure_running()


def run_bounded(fn: Callable[..., T], args: tuple[Any, ...], limits: Limits) -> T:
    """``fn(*args)`` in a limited child; ``LimitExceeded`` naming the limit it went over.

    ``fn`` and its arguments and result must pickle. An exception inside ``fn`` comes back as
    ``ExtractError`` with its type and message (a library's failure on one source is that
    source's reason, not the run's end).
    """
    ctx = _context()
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, fn, args, limits), daemon=True)
    proc.start()
    send.close()
    message = None
    waited_out = False
    try:
        if receive.poll(limits.wall_seconds):
            message = receive.recv()
        else:
            waited_out = True
    except EOFError:  # the child died before it could answer
        pass
    finally:
        receive.close()
        if proc.is_alive() and message is None:
            proc.kill()
        proc.join()
    return _answer(message, waited_out, proc.exitcode or 0, limits)  # type: ignore[no-any-return]


def _answer(message: Any, waited_out: bool, code: int, limits: Limits) -> Any:
    """The worker's result, or the exception naming the limit (or failure) that ended it."""
    if message is not None:
        kind, value = message
        if kind == "ok":
            return value
        if kind == "memory":
            raise _over_memory(limits)
        raise ExtractError(f"extraction failed: {value}")
    if waited_out:
        raise LimitExceeded(f"extraction exceeded {limits.wall_seconds:g} s of wall time")
    if code in (-signal.SIGXCPU, -signal.SIGKILL):
        raise LimitExceeded(
            f"extraction exceeded {limits.cpu_seconds:g} s of CPU",
            fix="raise extract_cpu_seconds in the retrieval settings if the source is genuine",
        )
    # A C library that cannot allocate under RLIMIT_AS aborts rather than raising.
    if code in (-signal.SIGABRT, -signal.SIGSEGV, -signal.SIGBUS):
        raise _over_memory(limits, f" (the extractor stopped with signal {-code})")
    raise ExtractError(f"extraction failed: the worker ended with status {code}")


def _over_memory(limits: Limits, detail: str = "") -> LimitExceeded:
    return LimitExceeded(
        f"extraction exceeded {limits.memory_bytes // MB} MB of memory{detail}",
        fix="raise extract_memory_bytes in the retrieval settings if the source is genuine",
    )


def tasks(conn: Any) -> Iterator[Any]:
    """What a serving child is sent, until ``None`` or its parent's end of the pipe closes."""
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        yield task


def _serve(conn: Any, limits: Limits) -> None:
    """A pool worker: one task after another, each with ``limits.cpu_seconds`` of fresh CPU.

    ``RLIMIT_CPU`` counts the process's whole life, so before each task the soft limit is set
    to what has been used so far plus the allowance; memory (``RLIMIT_AS``) is one limit for
    the process. The parent replaces a worker after any limit or failure.
    """
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    _lower(resource.RLIMIT_AS, limits.memory_bytes, limits.memory_bytes)
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    for fn, args in tasks(conn):
        usage = resource.getrusage(resource.RUSAGE_SELF)
        soft = math.ceil(usage.ru_utime + usage.ru_stime + limits.cpu_seconds)
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
        _run_and_send(conn, fn, args)


class _Worker:
    def __init__(self, ctx: Any, limits: Limits) -> None:
        self.conn, child = ctx.Pipe(duplex=True)
        self.proc = ctx.Process(target=_serve, args=(child, limits), daemon=True)
        self.proc.start()
        child.close()
        self.tasks = 0

    def stop(self, kill: bool) -> None:
        if kill and self.proc.is_alive():
            self.proc.kill()
        else:
            with contextlib.suppress(OSError):
                self.conn.send(None)
        self.conn.close()
        self.proc.join()


class WorkerPool:
    """``run_bounded`` for many sources: a few long-lived limited workers instead of one process
    per source (a fresh process costs its start-up on every source of a 2,000-source run).

    Thread-safe: ``run`` blocks until a worker is free. The limits and their messages are those
    of ``run_bounded``; a worker that goes over one, fails or answers oddly is killed and
    replaced, so the next source starts in a clean process.
    """

    def __init__(self, limits: Limits, size: int | None = None) -> None:
        self.limits = limits
        self.size = max(1, size or os.cpu_count() or 1)
        self._ctx = _context()
        self._idle: queue.LifoQueue[_Worker] = queue.LifoQueue()
        self._free = threading.Semaphore(self.size)
        self._all: set[_Worker] = set()
        self._lock = threading.Lock()

    def run(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        with self._free:
            worker = self._take()
            message, waited_out = None, False
            try:
                worker.conn.send((fn, args))
                if worker.conn.poll(self.limits.wall_seconds):
                    message = worker.conn.recv()
                else:
                    waited_out = True
            except (EOFError, OSError):  # the worker died before it could answer
                pass
            if message is not None and message[0] == "ok":
                worker.tasks += 1
                self._give_back(worker)
            else:
                self._retire(worker, kill=True)
            return _answer(message, waited_out, worker.proc.exitcode or 0, self.limits)  # type: ignore[no-any-return]

    def _take(self) -> _Worker:
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            worker = _Worker(self._ctx, self.limits)
            with self._lock:
                self._all.add(worker)
            return worker

    def _give_back(self, worker: _Worker) -> None:
        if worker.tasks >= TASKS_PER_WORKER:
            self._retire(worker, kill=False)
        else:
            self._idle.put(worker)

    def _retire(self, worker: _Worker, kill: bool) -> None:
        with self._lock:
            self._all.discard(worker)
        worker.stop(kill)

    def close(self) -> None:
        with self._lock:
            workers, self._all = list(self._all), set()
        for worker in workers:
            worker.stop(kill=False)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
