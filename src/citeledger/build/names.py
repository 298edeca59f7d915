"""The class names, attributes and ids the filter puts into a document: the one place they live.

A later run of the filter, ``check``, coverage, the audit, the evidence pages and the renderers
all read or write these; a name spelled twice would drift. Pure constants and string functions.
"""

from __future__ import annotations

PREFIX = "citeledger-"

# what the filter adds; a later walk must see through them
PROCESSED_CLASS = "citeledger-cite"  # the Span the filter wraps around a Cite it has handled
CHECKED_CLASS = "citeledger-checked"  # on that Span, when every item is checked
STATES_ATTRIBUTE = "data-citeledger-states"  # on that Span: each item's state, in order
SELECTORS_ATTRIBUTE = "data-citeledger-selectors"  # on that Span: "0=q1 2=intro" (item=quote id)
FLAG_CLASS = "citeledger-flag"
EVIDENCE_CLASS = "citeledger-evidence"
SOURCE_CLASS = "citeledger-source"
VERSION_CLASS = "citeledger-version-changed"  # a checked citation's "newer version" warning
CLAIM_ANCHOR_CLASS = "citeledger-claim"  # the empty Span #citeledger-claim-N
CLAIM_ANCHOR_PREFIX = "citeledger-claim-"
BREAKDOWN_CLASS = "citeledger-breakdown"
AUDIT_CLASS = "citeledger-audit"
AUDIT_ID = "citeledger-audit"  # the audit's heading; on a writer's empty Div: put the audit here
BANNER_CLASS = "citeledger-banner"  # the per-document counts at the top of the body
GROUP_CLASS = "citeledger-breakdowns"  # a callout listing the breakdowns of one block
ITEM_CLASS = "citeledger-breakdown-item"  # one citation of such a callout
UNVERIFIED_LABEL_CLASS = "citeledger-unverified-label"
UNVERIFIED_MARKED_CLASS = "citeledger-unverified"  # added by the filter: marked already
ALERT_MARK = "[!CAUTION]\n"  # the raw markdown opening a GitHub-alert callout (render.markdown)
BANNER_ALERT_MARK = "[!WARNING]\n"  # and the one opening the banner there
ALERT_MARKS = (ALERT_MARK, BANNER_ALERT_MARK)
# the raw format of a RawInline that opens a Span whose attributes the filter hid from a writer
# that would print them as HTML (GitHub Markdown): pandoc has a txt2tags reader but no writer,
# so no writer prints it; a second run reads it (and panflute accepts it: its formats are a list)
HIDDEN_FORMAT = "t2t"

# inline additions whose words are the filter's, never the writer's claim
FILTER_WORDS = frozenset(
    {FLAG_CLASS, EVIDENCE_CLASS, SOURCE_CLASS, CLAIM_ANCHOR_CLASS, UNVERIFIED_LABEL_CLASS}
    | {VERSION_CLASS}
)
# anything whose presence means the filter ran on this document before
FILTER_MADE = frozenset(
    {PROCESSED_CLASS, FLAG_CLASS, EVIDENCE_CLASS, SOURCE_CLASS, CLAIM_ANCHOR_CLASS}
    | {BREAKDOWN_CLASS, AUDIT_CLASS, BANNER_CLASS, VERSION_CLASS}
)
# the writer's own classes
CLAIM_CLASS = "claim"  # the writer's explicit claim Span: ``[words]{.claim}``
UNVERIFIED_CLASS = "unverified"  # the writer's declared, unscored claim (Span or Div)
ATTRIBUTE_PREFIX = PREFIX  # element attributes that override options (see options.py)


def is_tool_output(classes: list[str] | tuple[str, ...]) -> bool:
    """A Div or Span the filter made (callouts, audit, flags): not the writer's prose.

    An unverified marker the filter decorated (``citeledger-unverified``) is still the writer's.
    """
    return any(c.startswith(PREFIX) and c != UNVERIFIED_MARKED_CLASS for c in classes)


# --- the ids contract: the N-th citation's claim, flag, callout and audit row ---------------


def claim_id(n: int) -> str:
    return f"{CLAIM_ANCHOR_PREFIX}{n}"


def flag_id(n: int) -> str:
    return f"citeledger-cite-{n}"


def breakdown_id(n: int) -> str:
    return f"citeledger-breakdown-{n}"


def audit_row_id(n: int) -> str:
    return f"citeledger-audit-{n}"
