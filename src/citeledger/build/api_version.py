"""The pandoc AST versions the filter understands, and the one-line refusal of any other.

The walkers index node contents by position (``c[0]`` is a Cite's citations, a Table's cells
sit at fixed places), so an AST from a pandoc whose ``pandoc-api-version`` was never tested
could be misread silently, and a misread citation could be reported wrongly. Tested: pandoc
2.17 (Debian's package, API 1.22.1), 2.19 (API 1.22.2) and 3.x up to 3.9 (API 1.23.x). Pure.
"""

from __future__ import annotations

from typing import Any

from citeledger.errors import CiteledgerError

OLDEST = (1, 22)  # pandoc 2.17 (Debian bookworm's package)
NEWEST = (1, 23)  # pandoc 3.0 to 3.9
TESTED = "pandoc 2.17 to 3.9 (pandoc-api-version 1.22 to 1.23)"


def check_api_version(doc: Any, file: str | None = None) -> None:
    """Refuse, in one line, an AST whose version is outside :data:`OLDEST`–:data:`NEWEST`."""
    version = doc.get("pandoc-api-version") if isinstance(doc, dict) else None
    if not (
        isinstance(version, list)
        and len(version) >= 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in version)
    ):
        raise CiteledgerError(
            "the input is not pandoc JSON: it has no pandoc-api-version",
            file=file,
            fix="run the filter from pandoc (--filter pandoc-citeledger) or pipe `pandoc -t json`",
        )
    if not OLDEST <= tuple(version[:2]) <= NEWEST:
        shown = ".".join(str(v) for v in version)
        raise CiteledgerError(
            f"pandoc-api-version {shown} is outside the tested range ({TESTED})",
            file=file,
            fix="build with a pandoc in that range (pypandoc_binary ships one), or upgrade "
            "citeledger",
        )
