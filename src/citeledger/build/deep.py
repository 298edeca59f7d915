"""Run the build's work on a pandoc AST however deeply pandoc let the document nest.

Pandoc has no nesting limit: a 340-deep list or 500 block quotes inside each other are valid
documents, and their JSON nests three levels per list level. Python's default recursion limit
(1000) stops ``json.loads``, ``json.dumps`` and every recursive walk of the AST long before
that. Rather than rewrite each walk (they belong to ``citations`` and ``coverage``), the filter
and ``check`` run their whole job here: in a thread with a large stack and a raised recursion
limit. A document deeper than :data:`MAX_DEPTH` levels of JSON is refused in one line by
:func:`loads` before any walk meets it.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from citeledger.errors import CiteledgerError

T = TypeVar("T")

MAX_DEPTH = 5_000
"""JSON nesting levels accepted: ~1,600 nested lists or 2,500 block quotes or divs, far beyond
any document a person writes. The bound is low because the AST walks' memory grows with the
square of the depth (2,000 nested quotes: 115 MB; 4,000: 375 MB; 30,000: killed at 24 GB)."""

# Python frames per JSON level, over every walk of the filter (a level costs a frame or two in
# json and each walk; nested generators cost several), with room for the walks' own depth.
_FRAMES_PER_LEVEL = 8
_STACK_BYTES = 1024 * 1024 * 1024  # reserved address space, not memory: pages come on use


def too_deep(file: str | None = None) -> CiteledgerError:
    return CiteledgerError(
        f"the document nests more than {MAX_DEPTH} levels deep (lists, quotes, divs, notes or"
        " citations inside each other, counted in pandoc's JSON)",
        file=file,
        fix="flatten the deepest lists, quotes or divs",
    )


def loads(raw: bytes | str, file: str | None = None) -> Any:
    """``json.loads`` that refuses more than :data:`MAX_DEPTH` levels, in one line.

    The C decoder spends one unit of the recursion limit per array or object, so a limit of
    the current depth plus the bound *is* the bound: no separate scan of the text is needed.
    """
    here = _frames()
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(here + MAX_DEPTH + 10)
    try:
        return json.loads(raw)
    except RecursionError:
        raise too_deep(file) from None
    finally:
        sys.setrecursionlimit(old)


def _frames() -> int:
    n, frame = 0, sys._getframe()
    while frame is not None:
        n += 1
        frame = frame.f_back  # type: ignore[assignment]
    return n


def run_deep(fn: Callable[[], T], file: str | None = None) -> T:
    """``fn()`` in a thread whose stack and recursion limit fit :data:`MAX_DEPTH` levels.

    A ``RecursionError`` that still escapes (a walk deeper than its budget) becomes the same
    one-line refusal as a document over the bound; any other exception is re-raised as is.
    """
    box: dict[str, object] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except RecursionError:
            box["error"] = too_deep(file)
        except BaseException as exc:  # handed back to the caller's thread
            box["error"] = exc

    old_limit = sys.getrecursionlimit()
    old_stack = threading.stack_size()
    sys.setrecursionlimit(max(old_limit, MAX_DEPTH * _FRAMES_PER_LEVEL))
    try:
        threading.stack_size(_STACK_BYTES)
        worker = threading.Thread(target=target, name="citeledger-deep", daemon=True)
        worker.start()
    finally:
        threading.stack_size(old_stack)
    try:
        worker.join()
    finally:
        sys.setrecursionlimit(old_limit)
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]
