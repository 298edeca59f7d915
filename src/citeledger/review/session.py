"""``citeledger review``: the claims put before the writer one by one, and their answers kept.

On a terminal each checked claim without a holding review is shown as the document states it,
beside the quote inside its context in the source (and where its snapshot image is), and the
writer answers: supports (a review is recorded), does not support (the source is recorded as
disputed, with their reason), or skip. Off a terminal nothing can be asked: ``--list`` prints
what awaits review instead. Nothing here sets or changes ``checked``.
"""

from __future__ import annotations

import functools
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from citeledger.atomic import atomic_write
from citeledger.errors import CiteledgerError
from citeledger.inert import visible
from citeledger.review.queue import Pending, awaiting, in_context
from citeledger.review.records import make_review, record_dispute, record_review, reviewer_name
from citeledger.review.status import OUT_OF_DATE

PROMPT = "Does the quote support the claim? [s]upports / [d]oes not support / s[k]ip / [q]uit: "
_ANSWERS = {"s": "supports", "d": "disputes", "k": "skip", "q": "quit", "": "skip"}


def run_review(
    docs: Sequence[str],
    *,
    ledger: str | None = None,
    reviewer: str | None = None,
    list_only: bool = False,
    from_format: str | None = None,
    allow_outside: bool = False,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    inp, out = stdin or sys.stdin, stdout or sys.stdout
    if not list_only and not (inp.isatty() and out.isatty()):
        raise CiteledgerError(
            "review asks the writer questions, and this is not a terminal",
            fix="run it in a terminal, or use `citeledger review --list` to print what awaits",
        )
    items = awaiting(docs, ledger=ledger, from_format=from_format, allow_outside=allow_outside)
    if list_only:
        for item in items:
            out.write(visible(_list_line(item)) + "\n")
        n = len(items)
        said = "citation awaits" if n == 1 else "citations await"
        out.write(f"citeledger: {n} checked {said} review\n")
        return 0
    if not items:
        out.write("citeledger: every checked citation has a review that holds; nothing to ask\n")
        return 0
    who = reviewer_name(reviewer)
    try:
        _ask_each(items, who, inp, out)
    finally:  # quit, end of input, Ctrl-C: this run's images go with it
        _remove_shots()
    return 0


def _ask_each(items: Sequence[Pending], who: str, inp: TextIO, out: TextIO) -> None:
    """Each claim put to the writer, each answer recorded as given; the tally at the end."""
    tally = {"supports": 0, "disputes": 0, "skip": 0}
    disputed: set[tuple[str, str]] = set()
    for number, item in enumerate(items, 1):
        if (item.ledger, item.ref.key) in disputed:
            continue  # the source is disputed now: its other claims are no longer checked
        out.write("\n" + visible(_present(item, number, len(items))) + "\n")
        answer = _ask(inp, out, PROMPT, _ANSWERS)
        if answer == "quit":
            break
        if answer == "supports":
            quote = item.judgement.quote
            assert quote is not None
            review = make_review(item.ref.claim, quote.text, who)
            record_review(item.ledger, item.ref.key, item.quote_index, quote.text, review)
            out.write(f"citeledger: review recorded for @{item.ref.key} in {item.ledger}\n")
        elif answer == "disputes":
            out.write(
                f"  this records @{item.ref.key} as disputed: every citation of it will show so\n"
            )
            reason = _ask_text(inp, out, "Why does it not support the claim? (one sentence): ")
            says = _ask_text(
                inp, out, "What does the source actually say? (Enter to leave out): ", True
            )
            record_dispute(item.ledger, item.ref.key, reason, says)
            disputed.add((item.ledger, item.ref.key))
            out.write(
                f"citeledger: @{item.ref.key} recorded as disputed in {item.ledger}; "
                "nothing was removed\n"
            )
        tally[answer] += 1
    out.write(
        f"citeledger: {tally['supports']} reviewed, {tally['disputes']} disputed, "
        f"{tally['skip']} skipped\n"
    )


def _list_line(item: Pending) -> str:
    state = "review out of date" if item.status.state == OUT_OF_DATE else "not reviewed"
    return f"{item.where}: @{item.ref.key}: {state} — “{item.ref.claim}”"


def _present(item: Pending, number: int, total: int) -> str:
    j, ref = item.judgement, item.ref
    title = j.source.title if j.source is not None else ref.key
    before, quoted, after = in_context(item)
    r = j.receipt
    lines = [
        f"[{number}/{total}] @{ref.key} — {title} ({item.where})",
        f"Claim:   {ref.claim or '(no claim words around the citation)'}",
        f"Quote in the source{_place(item)}:",
        "    …"
        + " ".join(before.split())
        + " >>> "
        + " ".join(quoted.split())
        + " <<< "
        + " ".join(after.split())
        + "…",
        f"Snapshot: {_snapshot_file(item)}",
    ]
    if r is not None and r.version_changed:
        lines.append(f"Note: {r.version_changed}")
    if item.status.state == OUT_OF_DATE:
        lines.append(item.status.words)
    return "\n".join(lines)


def _place(item: Pending) -> str:
    r = item.judgement.receipt
    if r is None:
        return ""
    where = f" ({r.url}" if r.url else " ("
    return (where + (f", page {r.page}" if r.page else "") + ")").replace(" ()", "")


def _snapshot_file(item: Pending) -> str:
    """The snapshot PNG (digest-checked) copied where an image viewer can open it."""
    from citeledger.evidence.publish import snapshot_png

    r = item.judgement.receipt
    if r is None:
        return "none"
    png = snapshot_png(r, item.reader)
    if png is None:
        return r.snapshot_note or "no snapshot in this receipt's evidence"
    # written afresh into a folder of this run's own: a file planted at a shared path would be
    # shown unchecked, and the writer would judge the claim against a forged image
    target = _shots_folder() / f"{r.snapshot_sha256}.png"
    atomic_write(target, png)
    return str(target)


@functools.cache
def _shots_folder() -> Path:
    """This run's own folder of snapshot images, made when the first is shown: it stays while
    the writer looks and answers, and goes when the session ends (``_remove_shots``)."""
    return Path(tempfile.mkdtemp(prefix="citeledger-review-"))


def _remove_shots() -> None:
    if _shots_folder.cache_info().currsize:  # made this run
        shutil.rmtree(_shots_folder(), ignore_errors=True)
        _shots_folder.cache_clear()


def _ask(inp: TextIO, out: TextIO, prompt: str, answers: dict[str, str]) -> str:
    while True:
        out.write(prompt)
        out.flush()
        line = inp.readline()
        if not line:  # end of input: stop asking, keep what was recorded
            return "quit"
        answer = answers.get(line.strip().lower()[:1])
        if answer is not None:
            return answer
        out.write("  please answer s, d, k or q\n")


def _ask_text(inp: TextIO, out: TextIO, prompt: str, optional: bool = False) -> str:
    while True:
        out.write(prompt)
        out.flush()
        line = inp.readline()
        if not line:
            raise KeyboardInterrupt  # no reason given: nothing is recorded for this claim
        text = " ".join(line.split())
        if text or optional:
            return text
        out.write("  a dispute needs a reason; say why, in a sentence\n")
