"""The colours of ``templates/citeledger.css`` for the formats that cannot read CSS (DOCX, typst).

A breakdown is red; a decision on record (withdrawn, disputed, retracted) is the same weight in
purple, as the stylesheet has it. A callout of several breakdowns is purple only when every one
is a decision: a gap among them keeps it red. ``tests/test_palette.py`` holds these to the
stylesheet, so the two cannot drift. Pure values, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from citeledger.model import State

DECISIONS = frozenset({State.WITHDRAWN, State.DISPUTED, State.RETRACTED})


@dataclass(frozen=True)
class Look:
    ink: str  # border and title colour, RRGGBB
    fill: str  # background shading, RRGGBB
    text: str  # body text colour, RRGGBB


BREAKDOWN = Look(ink="B00020", fill="FFF4F4", text="1A1A1A")
DECISION = Look(ink="6A1B9A", fill="F8F1FB", text="1A1A1A")


def look_of(states: Iterable[State]) -> Look:
    """Purple when every state is a decision on record, red otherwise (and for the banner)."""
    listed = list(states)
    return DECISION if listed and all(s in DECISIONS for s in listed) else BREAKDOWN
