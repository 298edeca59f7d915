"""``check --progress`` / ``--since report.json``: the checked share, and what changed since.

A writer adopting a manuscript works through hundreds of citations; the count that matters is
how many are checked now, which became checked, and — loudest — which were checked and are not
any more. A citation is the same one across runs when its document, key, locator and claim are
the same (its running number moves whenever a citation is added above it); repeats of the same
citation pair up in document order. Reads only two reports: never the ledger, never the network.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from citeledger.errors import CiteledgerError
from citeledger.inputs import read_text

CHECKED = "checked"
_FIX = "give a report written by `citeledger check --json FILE`"

Identity = tuple[str, str, str, str]


@dataclass(frozen=True)
class Progress:
    checked: int
    total: int
    before: tuple[int, int] | None  # (checked, total) of the previous report
    newly_checked: tuple[Mapping[str, Any], ...] = ()
    newly_broken: tuple[Mapping[str, Any], ...] = ()  # checked before, a breakdown now


def read_report(path: str) -> list[Mapping[str, Any]]:
    """The citations of a previous ``check --json`` report, or one line saying why not."""
    text = read_text(path, "the previous report", _FIX)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise CiteledgerError(
            f"the previous report is not JSON: {e.msg}", file=path, line=e.lineno, fix=_FIX
        ) from None
    cites = data.get("citations") if isinstance(data, dict) else None
    if not isinstance(cites, list) or not all(
        isinstance(c, dict) and isinstance(c.get("state"), str) for c in cites
    ):
        raise CiteledgerError(
            "not a citeledger check report (no citations list)", file=path, fix=_FIX
        )
    return cites


def _identity(c: Mapping[str, Any]) -> Identity:
    return (
        str(c.get("document") or ""),
        str(c.get("key") or ""),
        str(c.get("locator") or ""),
        str(c.get("claim") or ""),
    )


def _paired(
    now: Sequence[Mapping[str, Any]], before: Iterable[Mapping[str, Any]]
) -> list[tuple[Mapping[str, Any], Mapping[str, Any] | None]]:
    """Each citation of ``now`` with the same citation of ``before`` (None: a new one)."""
    queues: dict[Identity, list[Mapping[str, Any]]] = {}
    for c in before:
        queues.setdefault(_identity(c), []).append(c)
    out: list[tuple[Mapping[str, Any], Mapping[str, Any] | None]] = []
    for c in now:
        queue = queues.get(_identity(c))
        out.append((c, queue.pop(0) if queue else None))
    return out


def progress(report: Mapping[str, Any], since: Sequence[Mapping[str, Any]] | None) -> Progress:
    now: list[Mapping[str, Any]] = list(report["citations"])
    checked = sum(c["state"] == CHECKED for c in now)
    if since is None:
        return Progress(checked, len(now), None)
    pairs = _paired(now, since)
    newly_checked = tuple(
        c for c, old in pairs if c["state"] == CHECKED and (old is None or old["state"] != CHECKED)
    )
    newly_broken = tuple(
        c
        for c, old in pairs
        if c["state"] != CHECKED and old is not None and old["state"] == CHECKED
    )
    before = (sum(c["state"] == CHECKED for c in since), len(since))
    return Progress(checked, len(now), before, newly_checked, newly_broken)


def _share(checked: int, total: int) -> str:
    return f"{checked / total:.0%}" if total else "n/a"


def progress_text(p: Progress) -> str:
    share = _share(p.checked, p.total)
    line = f"citeledger: progress: {p.checked} of {p.total} citations checked ({share})"
    if p.before is None:
        return line
    line += f"; before: {p.before[0]} of {p.before[1]} ({_share(*p.before)})"
    lines = [
        line,
        f"citeledger: since the previous report: {len(p.newly_checked)} newly checked, "
        f"{len(p.newly_broken)} newly broken",
    ]
    for c in p.newly_broken:
        lines.append(
            f"  BROKEN {c.get('document')} #{c.get('occurrence')}: @{c.get('key')}: {c['state']}"
        )
    for c in p.newly_checked:
        lines.append(f"  checked {c.get('document')} #{c.get('occurrence')}: @{c.get('key')}")
    return "\n".join(lines)
