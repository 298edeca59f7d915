"""Where the "Citation audit" goes: before the bibliography, whatever the document's ending.

Pandoc's citeproc puts the bibliography into the ``{#refs}`` Div or, without one, at the end of
the body — under the last heading when the document ends with one (``# References``, the usual
idiom). The audit belongs before the references, never under their heading:

1. into the writer's own ``::: {#citeledger-audit}`` Div, wherever it stands (the Div keeps
   its id for the links to the audit, so the audit's heading drops the same id);
2. else before the ``{#refs}`` Div, and before a heading standing right above it;
3. else before the last block of the body when that is a heading (the bibliography's to be);
4. else at the end of the body (a citeproc run after the filter appends the bibliography).

The places come from the one document walk (``citations.scan_document``), resolved before the
filter inserts anything and then held by reference, so callouts put in since cannot shift them.
A second run strips the audit first (``render.previous``) and finds the same place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from citeledger.build.citations import Scan, resolve
from citeledger.build.names import AUDIT_ID

Node = dict[str, Any]


@dataclass(frozen=True)
class AuditPlace:
    into: list[Node]  # the block list the audit joins
    before: Node | None  # the block it goes before (by identity); None: at the end
    slot: bool = False  # ``into`` is the writer's ``{#citeledger-audit}`` Div's content


def audit_place(doc: dict[str, Any], scan: Scan) -> AuditPlace:
    """The place of the audit in ``doc``, as the document stands before the filter edits it."""
    if scan.audit_slot is not None:
        return AuditPlace(resolve(doc, scan.audit_slot)["c"][1], None, slot=True)
    if scan.refs is not None:
        parent, at = resolve(doc, scan.refs[:-1]), int(scan.refs[-1])
        if at > 0 and isinstance(parent[at - 1], dict) and parent[at - 1].get("t") == "Header":
            at -= 1
        return AuditPlace(parent, parent[at])
    blocks: list[Node] = doc["blocks"]
    if blocks and isinstance(blocks[-1], dict) and blocks[-1].get("t") == "Header":
        return AuditPlace(blocks, blocks[-1])
    return AuditPlace(blocks, None)


def put_audit(place: AuditPlace, audit: Node) -> None:
    """Insert the audit Div at ``place``."""
    if place.slot:
        for block in audit["c"][1]:
            if block.get("t") == "Header" and block["c"][1][0] == AUDIT_ID:
                block["c"][1][0] = ""  # the writer's Div holds the id: one target for the links
    at = next((i for i, b in enumerate(place.into) if b is place.before), len(place.into))
    place.into.insert(at, audit)
