"""Run one source's extraction and locating in a worker process with CPU and memory limits.

Extraction is the part of verify that a source's author controls: a page or PDF can be built
to take minutes or gigabytes (nested markup, decompression bombs, pathological fonts), and the
libraries doing it are C code that no Python timeout can interrupt. So the work runs in a
child process whose kernel limits (``RLIMIT_CPU``, ``RLIMIT_AS``) stop it wherever it is, and a
source over a limit becomes ``unretrievable`` with the limit named ("extraction exceeded 60 s
of CPU"), never a hung or killed run.

Children come from a ``forkserver`` (a clean process that has imported the extractors once):
each fork is cheap, and never a copy of verify's own threads and sockets.
"""

from __future__ import annotations

import multiprocessing
import resource
import signal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from citeledger.errors import ExtractError
from citeledger.extract.pdf import MAX_INFLATED_BYTES

T = TypeVar("T")

MB = 1_000_000
DEFAULT_CPU_SECONDS = 60.0
DEFAULT_MEMORY_BYTES = 2000 * MB
_PRELOAD = ["citeledger.receipts", "citeledger.extract", "citeledger.locate", "citeledger.bounded"]


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
    if message is not None:
        kind, value = message
        if kind == "ok":
            return value  # type: ignore[no-any-return]
        if kind == "memory":
            raise _over_memory(limits)
        raise ExtractError(f"extraction failed: {value}")
    code = proc.exitcode or 0
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
