"""Paths a document or a ledger names stay inside the project, unless the build allows more.

A document is not the build's to trust: on a CI run over a pull request, a stranger writes it.
Its ``citeledger.ledger`` must not make the build read ``/etc/passwd`` or a ``.env`` (and print
it in an error), and its ``evidence-pages`` must not make the build write outside its tree; a
ledger's ``evidence_dir`` must not make ``verify`` write anywhere either. So each of these must
lie inside the project — the build's working directory (and, for ``check``, the document's own
folder; for ``evidence_dir``, the ledger's folder) — after symbolic links are resolved. What the
command line or the environment names is the build's own choice and is not confined, and
``--allow-outside`` / ``CITELEDGER_ALLOW_OUTSIDE=1`` lets a document or ledger reach out too.

Never reads a file's content and never prints.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from citeledger.errors import CiteledgerError

ALLOW_VAR = "CITELEDGER_ALLOW_OUTSIDE"
_YES = frozenset({"1", "true", "yes", "on"})


def allowed_by(environ: Mapping[str, str] | None = None) -> bool:
    """Does the environment allow paths outside the project (``CITELEDGER_ALLOW_OUTSIDE=1``)?"""
    env = os.environ if environ is None else environ
    return env.get(ALLOW_VAR, "").strip().lower() in _YES


def below(path: str, folder: str) -> bool:
    """Is ``path`` ``folder`` itself or below it? Both absolute and already resolved (or both
    normalised): the ONE prefix rule — ``/a/bc`` is not below ``/a/b`` — for ``inside``, the
    ledger's paths and the evidence store's (``commonpath``'s answer at a tenth of its cost: a
    thesis asks it 1,000 times)."""
    path, folder = os.path.normcase(path), os.path.normcase(folder)
    return path == folder or path.startswith(folder if folder.endswith(os.sep) else folder + os.sep)


def inside(path: str | os.PathLike[str], roots: Sequence[str | os.PathLike[str]]) -> bool:
    """Is ``path`` (symbolic links resolved) one of ``roots`` or below one of them?"""
    real = os.path.realpath(path)
    return any(below(real, os.path.realpath(root)) for root in roots)


def confine(
    path: str | os.PathLike[str],
    roots: Sequence[str | os.PathLike[str]],
    *,
    named_by: str,
    what: str,
    allow: bool = False,
    file: str | None = None,
) -> None:
    """Raise unless ``path`` is inside ``roots`` or ``allow``; the message names no content."""
    if allow or inside(path, roots):
        return
    raise CiteledgerError(
        f"{named_by} names {what} outside the project: {Path(path)} (the project is "
        f"{Path(roots[0])})",
        file=file,
        fix=f"put it inside the project, or allow it: {ALLOW_VAR}=1 or --allow-outside",
    )


class RealPaths:
    """``os.path.realpath`` for many paths in few folders: each folder on the way is resolved
    once (a thesis's 500 sources and evidence files would be thousands of ``lstat`` calls).
    Hold one only as long as the folders cannot change under it: one ledger load, one build."""

    def __init__(self) -> None:
        self._known: dict[str, str] = {}

    def __call__(self, path: str) -> str:
        real = self._known.get(path)
        if real is None:
            folder, name = os.path.split(path)
            if not folder or name in ("", ".", ".."):
                real = os.path.realpath(path)
            else:
                real = os.path.join(self(folder), name)
                if os.path.islink(real):
                    real = os.path.realpath(real)
            self._known[path] = real
        return real
