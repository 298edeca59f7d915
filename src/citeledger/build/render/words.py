"""What a breakdown says, in words, the same in every output format.

The renderers decide how a callout looks (a framed box, a GitHub alert, a Word style); this
module decides what it says: the state's title, the key and locator, the reasons, the writer's
quote, and for a withdrawal or dispute its date, reason and what the source says. A reader must
understand the breakdown from the words alone — no colour, icon or stylesheet is needed.

A ``restricted`` citation says only its title, key and reasons: the source's title, quote and
what it says are not for this audience. The words of the two quiet marks live here too: the
``[unverified]`` marker after a claim the writer declared unverified (seed 001: honest, neither
a check nor a breakdown) and the ``source`` link of a checked citation. Nothing here depends on
the output format or prints.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citeledger.build.citations import FoundCitation
from citeledger.build.render import ast
from citeledger.build.render.ast import Node
from citeledger.locate.edits import checked_phrase
from citeledger.model import MISPLACED_LABEL, Judgement, State


@dataclass(frozen=True)
class Item:
    """One judged citation: where it sits and what the judge said about it."""

    found: FoundCitation
    judgement: Judgement
    evidence: str | None = None  # relative href of the receipt's evidence page (HTML builds)
    source: str | None = None  # the source itself at the passage (checked, http(s) only)

    @property
    def state(self) -> State:
        return self.judgement.state

    @property
    def number(self) -> int:
        return self.found.ref.occurrence


_MARKUP = re.compile(r"`([^`]+)`|(?<![\w@])(@[^\s,;()\[\]]*[^\s,;.:()\[\]])")


_HELD = re.compile("\x00(\\d+)\x00")


def prose(text: str) -> list[Node]:
    """A judge's sentence as inlines: ```code``` and ``@key`` become Code.

    As Code a key is never re-read as a citation (Markdown output) or a GitHub @-mention.
    """
    codes: list[str] = []

    def hold(m: re.Match[str]) -> str:
        codes.append(m.group(1) or m.group(2))
        return f"\x00{len(codes) - 1}\x00"

    out: list[Node] = []
    for word in _MARKUP.sub(hold, text).split():
        if out:
            out.append(ast.space())
        for i, part in enumerate(_HELD.split(word)):
            if i % 2:
                out.append(ast.code(codes[int(part)]))
            elif part:
                out.append(ast.str_(part))
    return out


def state_label(state: State) -> str:
    """The short words of the inline flag: ``not in ledger``, ``quote not found``…"""
    return state.value.replace("-", " ")


def item_label(judgement: Judgement) -> str:
    """The flag's words for one judgement: its state's, unless verify found the quote on
    another page than its locator names (``Judgement.misplaced``: not "quote not found")."""
    return MISPLACED_LABEL if judgement.misplaced else state_label(judgement.state)


def flag_text(item: Item) -> str:
    return f"[citation {item.number}: {item_label(item.judgement)}]"


UNVERIFIED_WORD = "unverified"
UNVERIFIED_TITLE = "Declared unverified by the writer: no source backs these words"
SOURCE_WORD = "source"
VERSION_WARNING = "version changed"  # before recheck's words, beside a checked citation
SOURCE_TITLE = "The source itself, opened at the quoted passage (a new visit, not the evidence)"


EVIDENCE_WORD = "evidence"


def evidence_text(item: Item) -> str:
    """The evidence link's words: a checked quotation the writer edited says so at the claim."""
    r = item.judgement.receipt
    if item.state is State.CHECKED and r is not None and r.edits:
        return f"{EVIDENCE_WORD} ({checked_phrase(r.edits)})"
    return EVIDENCE_WORD


def unverified_text() -> str:
    """The marker after a declared-unverified claim: a word, never a colour or an icon."""
    return f"[{UNVERIFIED_WORD}]"


def citation_line(item: Item, link_to: str | None) -> list[Node]:
    """``Citation 3: `key`, p. 14`` — the number links back to the flag when links work."""
    ref = item.found.ref
    label = [ast.str_("Citation"), ast.space(), ast.str_(str(item.number))]
    inlines = [ast.link(label, "#" + link_to)] if link_to else label
    inlines += [ast.str_(":"), ast.space(), ast.code(ref.key)]
    if ref.locator:
        inlines += [ast.str_(","), ast.space(), *ast.words(ref.locator)]
    return inlines


def callout_blocks(item: Item, *, link_back: bool, shout: bool = False) -> list[Node]:
    """The callout's content: title first, in bold (in capitals too where bold cannot show).

    Every word is ``inert``: a quote, a nearest passage or a reason from outside may carry
    control characters and bidi overrides, written out here for every format at once.
    """
    return ast.inert(_callout_blocks(item, link_back=link_back, shout=shout))


def group_blocks(
    items: list[Item], *, link_back: bool, shout: bool = False
) -> tuple[list[Node], list[list[Node]]]:
    """One callout for the breakdowns of one block: its head, and each item's own blocks.

    The head is a title as loud as a single callout's (bold, capitals where bold cannot show)
    saying how many citations here are not checked, then each reason that several items share,
    said once with the numbers of the citations it belongs to. Each item keeps its own title
    (its state), citation line and the reasons that are its alone — so a row of identical
    callouts never reads as boilerplate, and no item loses what is wrong with it.
    """
    counts: dict[str, list[int]] = {}
    for item in items:
        for reason in _unique_reasons(item.judgement.reasons):
            counts.setdefault(reason, []).append(item.number)
    shared = {r: ns for r, ns in counts.items() if len(ns) > 1}
    title = f"{len(items)} citations here are not checked"
    head = [ast.para([ast.strong(ast.words(title.upper() if shout else title))])]
    for reason, numbers in shared.items():
        head.append(_labelled(f"Why (citations {_numbers(numbers)}):", *prose(reason)))
    parts = [
        ast.inert(_callout_blocks(item, link_back=link_back, shout=shout, skip=set(shared)))
        for item in items
    ]
    return ast.inert(head), parts


def _numbers(numbers: list[int]) -> str:
    """``1, 2 and 5``."""
    text = [str(n) for n in numbers]
    return text[0] if len(text) == 1 else ", ".join(text[:-1]) + " and " + text[-1]


def _unique_reasons(reasons: tuple[str, ...]) -> list[str]:
    return list(dict.fromkeys(" ".join(r.split()) for r in reasons if r.strip()))


def banner_text(items: list[Item]) -> str:
    """The per-document banner's words: how many citations, how many checked, the rest by state."""
    by_label: dict[str, int] = {}
    for item in items:
        label = item_label(item.judgement)
        by_label[label] = by_label.get(label, 0) + 1
    checked = by_label.pop(state_label(State.CHECKED), 0)
    broken = sum(by_label.values())
    parts = ", ".join(f"{n} {label}" for label, n in by_label.items())
    noun = "citation" if len(items) == 1 else "citations"
    text = f"Citation check: {checked} of {len(items)} {noun} checked"
    if broken:
        text += f"; {broken} not checked ({parts})"
    return text + "."


def _callout_blocks(
    item: Item, *, link_back: bool, shout: bool, skip: set[str] | None = None
) -> list[Node]:
    j = item.judgement
    title = j.title.upper() if shout else j.title
    blocks = [
        ast.para([ast.strong(ast.words(title))]),
        ast.para(citation_line(item, item.found.anchor if link_back else None)),
    ]
    own = tuple(r for r in j.reasons if " ".join(r.split()) not in (skip or set()))
    blocks += _reasons(own)
    if j.state is State.RESTRICTED:
        return blocks
    if j.quote is not None and j.quote.text.strip():
        line = [*_label("You quoted:"), ast.quoted(ast.words(j.quote.text))]
        if j.quote.locator:
            line += [ast.space(), ast.str_("("), *ast.words(j.quote.locator), ast.str_(")")]
        blocks.append(ast.para(line))
    blocks += _record(j)
    if item.evidence:
        blocks.append(
            _labelled("Evidence:", ast.link(ast.words("what was retrieved"), item.evidence))
        )
    receipt = j.receipt
    if receipt is not None and j.state in (State.QUOTE_NOT_FOUND, State.SOURCE_CHANGED):
        if receipt.candidate and not _said(j, receipt.candidate):
            nearest = ast.quoted(ast.words(receipt.candidate))
            blocks.append(_labelled("Nearest passage in the source:", nearest))
        differences = [d for d in receipt.differences if not _said(j, d)]
        if differences:
            blocks.append(_labelled("Differences:", *ast.words("; ".join(differences))))
    return blocks


def _said(j: Judgement, text: str) -> bool:
    """Do the judge's reasons already say ``text``? A callout never repeats itself."""
    return " ".join(text.split()) in " ".join(" ".join(r.split()) for r in j.reasons)


def _record(j: Judgement) -> list[Node]:
    """A withdrawal or dispute as recorded in the ledger: when, why, what the source says.

    Only what the reasons do not already say, so the callout never repeats itself.
    """
    if j.source is None:
        return []
    if j.state is State.WITHDRAWN:
        record, verb = j.source.withdrawn, "Withdrawn"
    elif j.state is State.DISPUTED:
        record, verb = j.source.disputed, "Disputed"
    else:
        return []
    if record is None:
        return []
    blocks = []
    if not _said(j, record.reason):
        head = f"{verb} on {record.date}:" if record.date else f"{verb}:"
        blocks.append(_labelled(head, *ast.words(record.reason)))
    if record.source_says and not _said(j, record.source_says):
        says = ast.quoted(ast.words(record.source_says))
        blocks.append(_labelled("What the source says:", says))
    return blocks


def _label(label: str) -> list[Node]:
    return [ast.strong(ast.words(label)), ast.space()]


def _labelled(label: str, *inlines: Node) -> Node:
    return ast.para([*_label(label), *inlines])


def _reasons(reasons: tuple[str, ...]) -> list[Node]:
    reasons = tuple(r for r in reasons if r.strip())
    if not reasons:
        return []
    if len(reasons) == 1:
        return [_labelled("Why:", *prose(reasons[0]))]
    return [
        ast.para([ast.strong(ast.words("Why:"))]),
        ast.bullet_list([[ast.plain(prose(r))] for r in reasons]),
    ]
