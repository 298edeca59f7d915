"""Errors that carry where the problem is and how to fix it.

Only the command-line edge (``cli``, ``filter.main``) turns these into one-line messages and exit
codes; library code raises them and never prints. A message must name the file, the line when
there is one, what is wrong and what to do, so that a writer never meets a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class CiteledgerError(Exception):
    """Bad input or a refused operation, reported as ``file:line: message (fix)``."""

    message: str
    file: str | None = None
    line: int | None = None
    fix: str | None = None

    def __post_init__(self) -> None:
        super().__init__(self.one_line())

    def one_line(self) -> str:
        where = ""
        if self.file:
            where = f"{self.file}:{self.line}: " if self.line else f"{self.file}: "
        text = f"{where}{self.message}"
        if self.fix:
            text += f" — {self.fix}"
        return " ".join(text.split())

    def __str__(self) -> str:
        return self.one_line()


class LedgerError(CiteledgerError):
    """The ledger is malformed or invalid."""


class ExtractError(CiteledgerError):
    """Bytes could not be turned into the text of the work (scan, login page, empty, …)."""


class RetrievalError(CiteledgerError):
    """A retrieval failed; ``message`` is the precise reason shown to the writer."""

    def __init__(self, message: str, kind: str = "failed", **kw: object) -> None:
        self.kind = kind
        super().__init__(message, **kw)  # type: ignore[arg-type]


class RefusedAddress(RetrievalError):
    """The destination is private, loopback or link-local and ``--allow-private`` was not given."""

    def __init__(self, message: str, **kw: object) -> None:
        super().__init__(message, kind="refused-address", **kw)
