"""Run the build's work on a pandoc AST however deeply pandoc let the document nest.

Pandoc has no nesting limit: a 340-deep list or 500 block quotes inside each other are valid
documents, and their JSON nests three levels per list level. Python's default recursion limit
(1000) stops ``json.loads``, ``json.dumps`` and every recursive walk of the AST long before
that. Rather than rewrite each walk (they belong to ``citations`` and ``coverage``), the filter
and ``check`` run their whole job here: in a thread with a large stack and a raised recursion
limit. A document deeper than :data:`MAX_DEPTH` levels of JSON is refused in one line by
:func:`loads` before any walk meets it.

The codec is orjson (a tenth of the standard encoder's time on a thesis, two thirds of its
decoder's), with the standard library for what orjson refuses: more than 1,024 levels to read
or 254 to write, a lone surrogate (``"\\ud800"``), a number beyond 64 bits to write. Pandoc
writes none of these, so a build takes the fast path. Both read numbers to the same values
(orjson makes a float of an integer beyond 64 bits, which pandoc reads as neither) and write
the same bytes, but for a float's spelling in exponent form (``1e-7``, not ``1e-07``).
"""

from __future__ import annotations

import json
import math
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import orjson

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
    """JSON text to values, refusing more than :data:`MAX_DEPTH` levels in one line; a
    ``ValueError`` for what is not JSON.

    What orjson refuses is read again by the standard decoder, whose C code spends one unit of
    the recursion limit per array or object: a limit of the current depth plus the bound *is*
    the bound, no separate scan of the text is needed. It is held to what orjson reads (no
    ``NaN``, no number too large for a float), so every document :func:`dumps` meets is one
    orjson could have read, and orjson never writes ``null`` for a number.
    """
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        pass  # deeper than orjson reads, a lone surrogate, or not JSON: the standard decoder says
    here = _frames()
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(here + MAX_DEPTH + 10)
    try:
        return json.loads(raw, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise too_deep(file) from None
    finally:
        sys.setrecursionlimit(old)


def dumps(value: Any) -> bytes:
    """Values to compact UTF-8 JSON, as pandoc reads it (what :func:`loads` read, written back).

    The standard encoder writes what orjson refuses: deeper than orjson writes, an integer
    beyond 64 bits, a lone surrogate (then as ASCII escapes, the only lossless spelling).
    """
    try:
        return orjson.dumps(value)
    except TypeError:  # orjson.JSONEncodeError
        pass
    text = json.dumps(value, ensure_ascii=False, check_circular=False, separators=(",", ":"))
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, check_circular=False, separators=(",", ":")).encode("ascii")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"the number {text[:40]} is too large")
    return value


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
