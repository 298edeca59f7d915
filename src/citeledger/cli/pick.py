"""``citeledger pick KEY``: select a quote in the source's own text instead of typing it.

On a terminal the text is shown around a selection the writer moves and resizes — search
(``/words``, ``n``), widen and narrow by a word at either end (``+ - < >``), the whole sentence
(``s``), a page (``p N``) — and ``y`` writes it. Off a terminal, ``--find "words"`` (with
``--page N`` to look on one page) picks the one passage that matches, or lists the candidates
and exits 1. The selection is a span of the retrieved text, so the quote is the source's words
exactly; ``verify.pick.record`` turns it into a quote and its receipt in the same act.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from citeledger.errors import CiteledgerError
from citeledger.inert import visible
from citeledger.model import Extracted

CONTEXT = 240  # characters shown on each side of the selection
LISTED = 20  # candidates listed when several passages match
_WORD = re.compile(r"\S+")
HELP = (
    "commands: /WORDS search · n / N next / previous match · + / - widen / narrow the end by a "
    "word · < / > widen / narrow the start by a word · s the whole sentence · p N page N "
    "(p: every page) · y write this quote · q quit"
)


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "pick",
        help="select a quote in the source's retrieved text; write it with its receipt",
        description="Show the source's text (its stored evidence, or a retrieval stated first "
        "like verify's plan), select a passage, and write it as a quote exactly as the source "
        "has it, with its page, and its receipt. Off a terminal give --find.",
    )
    p.add_argument("key", help="the source's citation key")
    p.add_argument("--find", metavar="WORDS", help="select the passage with these words")
    p.add_argument("--page", type=int, metavar="N", help="look on page N only")
    p.add_argument("--id", dest="quote_id", help="an id for the quote, for [@key quote:ID]")
    p.add_argument("--ledger", default="citeledger.yaml")
    p.add_argument("--yes", action="store_true", help="do not ask before retrieving")
    p.add_argument("--allow-private", action="store_true")
    p.add_argument("--config")
    p.add_argument(
        "--allow-outside",
        action="store_true",
        help="allow a ledger's evidence_dir outside the project",
    )


# ----------------------------------------------------------------------------- the selection


def page_bounds(extracted: Extracted, page: int | None) -> tuple[int, int]:
    """The character range of page ``page`` (1-based), or of the whole text."""
    text, starts = extracted.text, extracted.page_starts
    if page is None:
        return 0, len(text)
    if not starts or not 1 <= page <= len(starts):
        pages = len(starts) or 1
        raise CiteledgerError(
            f"the source has no page {page} (it has {pages})",
            fix=f"give --page between 1 and {pages}" if starts else "leave out --page",
        )
    end = starts[page] if page < len(starts) else len(text)
    return starts[page - 1], end


def find_spans(
    prepared: Any, words: str, lo: int = 0, hi: int | None = None
) -> list[tuple[int, int]]:
    """Every span of the original text whose normalised form is ``words`` normalised (any case),
    starting in ``[lo, hi)``: spacing, line breaks, ligatures, dashes and quote marks do not
    hide a passage from the search (``locate.normalize``)."""
    from citeledger.locate.normalize import normalize_for_match

    needle = normalize_for_match(words).strip()
    norm = prepared.norm
    if len(needle.lower()) == len(needle) and len(norm.lower()) == len(norm):  # offsets hold
        needle, norm = needle.lower(), norm.lower()
    hi = len(prepared.text) if hi is None else hi
    spans: list[tuple[int, int]] = []
    at = norm.find(needle) if needle else -1
    while at >= 0:
        start, end = prepared.orig_span(at, at + len(needle))
        if lo <= start < hi:
            spans.append((start, end))
        at = norm.find(needle, at + 1)
    return spans


@dataclass
class Selection:
    """A span of ``text``, always on word boundaries and never empty once made."""

    text: str
    start: int = 0
    end: int = 0

    @property
    def words(self) -> str:
        return self.text[self.start : self.end]

    def widen_end(self) -> None:
        m = _WORD.search(self.text, self.end)
        if m:
            self.end = m.end()

    def narrow_end(self) -> None:
        last = [m for m in _WORD.finditer(self.text, self.start, self.end)]
        if len(last) > 1:
            self.end = last[-2].end()

    def widen_start(self) -> None:
        before = list(_WORD.finditer(self.text, max(0, self.start - 400), self.start))
        if before:
            self.start = before[-1].start()

    def narrow_start(self) -> None:
        inside = list(_WORD.finditer(self.text, self.start, self.end))
        if len(inside) > 1:
            self.start = inside[1].start()

    def sentence(self) -> None:
        """Widen to the sentence(s) holding the selection (the one sentence splitter)."""
        from citeledger.build.sentences import sentence_spans

        lo = max(0, self.start - 2000)
        window = self.text[lo : self.end + 2000]
        for a, b in sentence_spans(window):
            if a + lo <= self.start < b + lo:
                self.start = a + lo
            if a + lo < self.end <= b + lo:
                self.end = b + lo
        while self.end > self.start and self.text[self.end - 1].isspace():
            self.end -= 1


def locator_for(extracted: Extracted, start: int) -> str | None:
    """The quote's locator: its page in a paged source; on a web page the section heading
    (h1/h2, as the extractor saw them) that stands last before it on a line of its own."""
    page = extracted.page_of(start)
    if page:
        return f"p. {page}"
    heading = section_before(extracted.text, getattr(extracted, "headings", ()), start)
    return f"sec. {heading}" if heading else None


def section_before(text: str, headings: Sequence[str], start: int) -> str | None:
    best, where = None, -1
    for heading in headings:
        at = text.rfind(heading, 0, start)
        while at > where:
            end = at + len(heading)
            alone = (at == 0 or text[at - 1] == "\n") and text[end : end + 1] in ("\n", "")
            if alone:
                best, where = heading, at
                break
            at = text.rfind(heading, 0, at)
    return best


def context(sel: Selection, *, colour: bool) -> str:
    """The selection in its surroundings, the source's words made inert."""
    text = sel.text
    before = text[max(0, sel.start - CONTEXT) : sel.start]
    after = text[sel.end : sel.end + CONTEXT]
    on, off = ("\x1b[7m", "\x1b[0m") if colour else ("", "")
    return f"…{visible(before)}⟦{on}{visible(sel.words)}{off}⟧{visible(after)}…"


# ----------------------------------------------------------------------------- the command


def main(args: argparse.Namespace) -> int:
    from citeledger.verify import pick

    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    if not interactive and not args.find:
        raise CiteledgerError(
            "not on a terminal: there is no one to select a passage",
            fix='give the words to pick with --find "…" (and --page N to look on one page)',
        )
    with pick.session(
        args.ledger,
        args.key,
        assume_yes=args.yes,
        allow_private=args.allow_private,
        config_path=args.config,
        allow_outside=args.allow_outside,
    ) as s:
        lo, hi = page_bounds(s.extracted, args.page)
        from citeledger.locate.normalize import prepare

        prepared = prepare(s.text)
        spans = find_spans(prepared, args.find, lo, hi) if args.find else []
        if not interactive:
            if len(spans) != 1:
                _candidates(args.key, args.find, spans, s.extracted, sys.stdout)
                return 1
            return _write(s, Selection(s.text, *spans[0]), args.quote_id, sys.stdout)
        return _interactive(s, prepared, spans, (lo, hi), args.quote_id, sys.stdin, sys.stdout)


def _candidates(
    key: str, words: str, spans: Sequence[tuple[int, int]], extracted: Extracted, out: TextIO
) -> None:
    if not spans:
        out.write(visible(f"citeledger: @{key}: no passage has the words “{words}”") + "\n")
        out.write("  fix: give words the source has (spacing and case do not matter)\n")
        return
    out.write(visible(f"citeledger: @{key}: {len(spans)} passages have “{words}”:") + "\n")
    for n, (a, b) in enumerate(spans[:LISTED], 1):
        where = locator_for(extracted, a) or f"character {a}"
        near = Selection(extracted.text, max(0, a - 60), min(len(extracted.text), b + 60))
        out.write(f"  {n}. {where}: …{visible(' '.join(near.words.split()))}…\n")
    if len(spans) > LISTED:
        out.write(f"  … and {len(spans) - LISTED} more\n")
    out.write("  fix: give more words, or --page N, so that one passage matches\n")


def _write(s: Any, sel: Selection, quote_id: str | None, out: TextIO) -> int:
    from citeledger.verify import pick

    locator = locator_for(s.extracted, sel.start)
    receipt = pick.record(s, sel.start, sel.end, locator, quote_id)
    where = f" ({locator})" if locator else ""
    out.write(
        visible(f"citeledger: picked @{s.source.key}{where}: “{' '.join(sel.words.split())}”")
        + "\n"
    )
    out.write(
        f"citeledger: quote and receipt written to {s.ledger_path} "
        f"(found, {receipt.match}, from {s.origin})\n"
    )
    return 0


def _interactive(
    s: Any,
    prepared: Any,
    spans: list[tuple[int, int]],
    bounds: tuple[int, int],
    quote_id: str | None,
    inp: TextIO,
    out: TextIO,
) -> int:
    sel = Selection(s.text, *(spans[0] if spans else (bounds[0], bounds[0])))
    if not spans:
        sel.widen_end()
    pages = len(s.extracted.page_starts)
    out.write(
        visible(
            f"citeledger: pick @{s.source.key} from {s.origin}: {len(s.text)} characters"
            + (f", {pages} pages" if pages else "")
        )
        + "\n"
        + HELP
        + "\n"
    )
    hit = 0
    lo, hi = bounds
    while True:
        where = locator_for(s.extracted, sel.start) or f"character {sel.start}"
        out.write(f"\n[{where} · {len(sel.words)} characters selected]\n")
        out.write(context(sel, colour=True) + "\n")
        out.write("pick> ")
        out.flush()
        line = inp.readline()
        if not line:
            out.write("\nciteledger: nothing written\n")
            return 1
        cmd = line.strip()
        if cmd.startswith("/"):
            spans = find_spans(prepared, cmd[1:], lo, hi)
            hit = 0
            if not spans:
                out.write(visible(f"no passage has “{cmd[1:]}”") + "\n")
                continue
            sel.start, sel.end = spans[0]
        elif cmd in ("n", "N") and spans:
            hit = (hit + (1 if cmd == "n" else -1)) % len(spans)
            sel.start, sel.end = spans[hit]
            out.write(f"match {hit + 1} of {len(spans)}\n")
        elif cmd in ("+", "-", "<", ">", "s"):
            action = {
                "+": sel.widen_end,
                "-": sel.narrow_end,
                "<": sel.widen_start,
                ">": sel.narrow_start,
                "s": sel.sentence,
            }[cmd]
            action()
        elif cmd.startswith("p"):
            arg = cmd[1:].strip()
            try:
                lo, hi = page_bounds(s.extracted, int(arg) if arg else None)
            except (ValueError, CiteledgerError) as exc:
                out.write(f"{getattr(exc, 'message', 'give a page number')}\n")
                continue
            sel.start = sel.end = lo
            sel.widen_end()
        elif cmd == "y":
            try:
                return _write(s, sel, quote_id, out)
            except CiteledgerError as exc:
                out.write(visible(f"not written: {exc.one_line()}") + "\n")
        elif cmd == "q":
            out.write("citeledger: nothing written\n")
            return 1
        else:
            out.write(HELP + "\n")
