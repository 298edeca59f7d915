"""One read-only HTML page per receipt: the evidence a reader opens from a citation.

The reading surface of seed 000 (rules 11–18): it shows what was retrieved — provider and
identifier, requested and final address, retrieval time, body and text digests, extractor,
locator, match, the source's own words highlighted inside their paragraph with context on both
sides (a highlighted sentence alone is unfalsifiable: the next one may say "except in cases of
subsidence", seed 002), the source's last-revised date, and the citation's state with its
reasons.

What it must never do:

* navigate, submit or load: no scripts, forms, iframes, external images, external stylesheets
  or links out; the one image is the bundle's own snapshot, inlined as a ``data:`` URI (the
  policy allows ``img-src data:`` and nothing else). Addresses are shown as text to copy,
  never as links; the only links are same-page anchors and the caller's relative back links
  to the claim and its audit row. A Content-Security-Policy of ``default-src 'none'`` backs
  this up in the browser;
* render source markup: only extracted TEXT is shown, escaped, so a page that says
  ``<script>`` shows those characters;
* repair a broken bundle: when a member is missing or mismatched (the caller's ``problems``,
  or what this module rechecks itself — the span against the quote, the digests against the
  text) or the judgement is a breakdown, the whole page says FAILED in a banner as loud as the
  claim, and any passage still shown is labelled as not evidence;
* show a blank pane: when there is no text (offline, refused, no text layer), it says why in
  place;
* leak a restricted source: a ``restricted`` judgement renders no title, address or words;
* set or change any state: looking is not verifying.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources

from citeledger import __version__
from citeledger.evidence.links import passage_link
from citeledger.evidence.store import sha256_hex
from citeledger.locate.edits import count_phrase, describe
from citeledger.model import Edit, Judgement, Receipt, State
from citeledger.sentence_end import sentence_ends

CONTEXT_LIMIT = 600  # characters of context at most on each side of the quote

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

_PROVIDERS = {
    "url": "Web address (URL)",
    "doi": "DOI registry (doi.org)",
    "arxiv": "arXiv",
    "isbn": "ISBN (book)",
    "file": "Local file",
}

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_ENDS_SENTENCE = re.compile(r"[.!?…][\"'”’)\]]*$")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _shown(text: str) -> str:
    """Escaped text with control characters made visible instead of breaking the parser."""
    return _e(_CONTROL.sub("\ufffd", text))


@lru_cache(maxsize=1)
def stylesheet() -> str:
    """The page's CSS, shipped in ``citeledger.templates`` and inlined into every page."""
    css = resources.files("citeledger.templates").joinpath("evidence.css").read_text("utf-8")
    if "</" in css or "url(" in css or "@import" in css:
        raise ValueError("evidence.css must not load anything or close its <style> element")
    return css


# --- names ------------------------------------------------------------------------------------


def page_slug(key: str) -> str:
    """A citation key as the first part of its pages' names (see ``evidence_page_name``)."""
    slug = re.sub(r"[^a-z0-9._-]+", "-", key.lower()).strip("-.")[:60] or "key"
    if slug != key:
        slug += "-" + sha256_hex(key)[:6]
    return slug


def evidence_page_name(receipt: Receipt, key: str | None = None) -> str:
    """A stable file name for the page of one receipt.

    Built from the citation key, the retrieval time, and digest prefixes of the body and of the
    writer's quote, so two quotes of one retrieval and two retrievals of one quote never share a
    page, and rebuilding the document writes the same names. Safe on case-insensitive file
    systems: a key that does not survive as a lower-case slug gets a digest of its own.
    """
    parts: list[str] = [page_slug(key)] if key else []
    stamp = re.sub(r"[^0-9A-Za-z]", "", receipt.retrieved_at)[:20] or "undated"
    parts.append(stamp)
    parts.append((receipt.body_sha256 or "nobody")[:12])
    parts.append(receipt.writer_quote_sha256[:8] or "noquote")
    return "-".join(parts) + ".html"


# evidence_page_name's layout read back: <key slug>-<stamp>-<body digest>-<quote digest>.html
_PAGE_NAME = re.compile(
    r"^(?P<key>.+)-(?:[0-9A-Za-z]{1,20})-(?:[0-9a-f]{12}|nobody)-(?P<quote>[0-9a-f]{8}|noquote)"
    r"\.html$"
)


def page_identity(name: str) -> tuple[str, str] | None:
    """(key slug, writer's quote digest) of an evidence page's file name, as
    ``evidence_page_name`` wrote it; None for other files. Beside it: one layout, one place."""
    m = _PAGE_NAME.match(name)
    return (m["key"], m["quote"]) if m else None


# --- context ----------------------------------------------------------------------------------


def passage_context(
    text: str, start: int, end: int, limit: int = CONTEXT_LIMIT
) -> tuple[str, str, str, bool, bool]:
    """``(before, quote, after, cut_before, cut_after)`` around ``text[start:end]``.

    Context reaches the paragraph boundaries and at least one whole sentence beyond the quote on
    each side, even across a paragraph break, capped at ``limit`` characters each way (cut at a
    space, and flagged, so the page can say it was cut).
    """
    floor = max(0, start - limit)
    ceiling = min(len(text), end + limit)

    para_start = floor
    for m in _PARAGRAPH_BREAK.finditer(text, floor, start):
        para_start = m.end()
    para_end = ceiling
    next_break = _PARAGRAPH_BREAK.search(text, end, ceiling)
    if next_break:
        para_end = next_break.start()

    # the sentence before the quote's own sentence, and the one after its last
    # ends_before[-1] ends the sentence before the quote's own (or opens the quote's own, when
    # the quote starts mid-sentence); one further back starts the sentence before that.
    ends_before = [e for e, _ in sentence_ends(text, floor, start)]
    prev_start = ends_before[-2] if len(ends_before) >= 2 else floor
    lo = min(para_start, prev_start)

    ends_after = [e for e, _ in sentence_ends(text, end, ceiling)]
    wanted = 0 if _ENDS_SENTENCE.search(text, max(0, end - 4), end) else 1
    next_end = ends_after[wanted] if len(ends_after) > wanted else ceiling
    hi = max(para_end, next_end)

    cut_before = lo == floor and floor > 0
    cut_after = hi == ceiling and ceiling < len(text)
    before = text[lo:start]
    after = text[end:hi]
    if cut_before:
        space = before.find(" ")
        before = before[space + 1 :] if 0 <= space < len(before) // 2 else before
    if cut_after:
        space = after.rfind(" ")
        after = after[:space] if space > len(after) // 2 else after
    return before.lstrip(), text[start:end], after.rstrip(), cut_before, cut_after


# --- checks of the bundle ----------------------------------------------------------------------


def bundle_problems(receipt: Receipt | None, text: str | None) -> list[str]:
    """What is missing or mismatched between a receipt and the text it claims to come from."""
    if receipt is None:
        return []
    found: list[str] = []
    if (
        receipt.quote is not None
        and receipt.quote_sha256
        and sha256_hex(receipt.quote) != receipt.quote_sha256
    ):
        found.append("the receipt's quotation does not match its own digest (quote_sha256)")
    if text is None:
        if receipt.outcome == "found":
            found.append("the stored evidence text is missing, so the passage cannot be shown")
        return found
    if receipt.text_sha256 and sha256_hex(text) != receipt.text_sha256:
        found.append("the stored text does not match the receipt's text digest (text_sha256)")
    cs, ce = receipt.char_start, receipt.char_end
    if cs is not None and ce is not None:
        if not 0 <= cs <= ce <= len(text):
            found.append(
                f"the recorded span {cs}–{ce} lies outside the stored text ({len(text)} characters)"
            )
        elif receipt.quote is not None and text[cs:ce] != receipt.quote:
            found.append("the recorded span no longer holds the quotation in the stored text")
    elif receipt.outcome == "found":
        found.append("the receipt says the quote was found but records no span")
    return found


# --- the page ----------------------------------------------------------------------------------


def render_evidence_page(
    judgement: Judgement,
    *,
    text: str | None,
    problems: Sequence[str] = (),
    title: str | None = None,
    source_url: str | None = None,
    back_links: Sequence[tuple[str, str]] = (),
    snapshot: bytes | None = None,
) -> str:
    """The complete, self-contained HTML of one evidence page.

    ``snapshot`` is the PNG the receipt names, read from the evidence and digest-checked by the
    caller; a receipt that names one the caller could not give is shown as a failed bundle.

    ``text`` is the extracted text the receipt's offsets refer to (None when there is none);
    ``problems`` are what the caller found wrong with the bundle (evidence missing, digest
    mismatch…); ``back_links`` are ``(relative href, label)`` pairs back to the claim and its
    audit row in the built document.
    """
    for href, _label in back_links:
        _check_relative(href)

    receipt = judgement.receipt
    state = judgement.state
    key = judgement.key
    restricted = state is State.RESTRICTED

    all_problems: list[str] = []
    for p in (*problems, *([] if restricted else bundle_problems(receipt, text))):
        if p and p not in all_problems:
            all_problems.append(p)
    failed = bool(all_problems) or judgement.is_breakdown

    if title is None and judgement.source is not None:
        title = judgement.source.title
    if restricted:
        title = None

    out: list[str] = []
    out.append("<!DOCTYPE html>")
    out.append('<html lang="en">')
    out.append("<head>")
    out.append('<meta charset="utf-8">')
    out.append(f'<meta http-equiv="Content-Security-Policy" content="{_e(CSP)}">')
    out.append('<meta name="referrer" content="no-referrer">')
    out.append('<meta name="robots" content="noindex, nofollow">')
    out.append('<meta name="viewport" content="width=device-width, initial-scale=1">')
    verdict = "FAILED" if failed else "checked"
    out.append(f"<title>{_e(f'Evidence for @{key} ({verdict})')}</title>")
    out.append(f"<style>\n{stylesheet()}</style>")
    out.append("</head>")
    body_class = f"citeledger-evidence citeledger-{state.value}"
    if failed:
        body_class += " citeledger-evidence-failed-bundle"
    out.append(f'<body class="{_e(body_class)}">')

    out.append('<nav class="citeledger-evidence-nav" aria-label="Evidence page">')
    for href, label in back_links:
        out.append(f'<a href="{_e(href)}">{_e(label)}</a>')
    nav_at = len(out)  # the section links, once the sections are known (no dead anchor)
    out.append("</nav>")

    out.append("<header>")
    out.append(f"<h1>Evidence for <code>@{_e(key)}</code></h1>")
    if title:
        out.append(f'<p class="citeledger-evidence-title">{_e(title)}</p>')
    out.append("</header>")

    out.append("<main>")
    out.extend(_banner(judgement, all_problems, failed))
    if restricted:
        sections = [
            [
                '<section id="passage"><h2>The passage in the source</h2>',
                '<div class="citeledger-evidence-unavailable">This source is restricted to '
                "another audience: its title, address and words are not shown in this build."
                "</div>",
                "</section>",
            ]
        ]
    else:
        sections = [
            _passage_section(judgement, text, failed),
            _quote_section(judgement),
            _snapshot_section(receipt, snapshot),
            _receipt_section(judgement, text, source_url, failed),
        ]
    sections.append(_state_section(judgement, restricted, bool(all_problems)))
    for lines in sections:
        out.extend(lines)
    out.append("</main>")
    # the section links: the ids of the sections written, each read off its own opening tag
    # (an empty builder wrote none), never searched for in the page's text
    written = {m.group(1) for lines in sections if lines and (m := _OPENING.match(lines[0]))}
    out[nav_at:nav_at] = [
        f'<a href="#{anchor}">{label}</a>' for anchor, label in _SECTIONS if anchor in written
    ]

    out.append('<footer><p class="citeledger-evidence-note">')
    out.append(
        f"Written by citeledger {_e(__version__)} from the stored retrieval. This page is "
        "read-only: nothing on it navigates, submits or loads anything, and reading it does not "
        "check a citation. Only <code>citeledger verify</code> retrieves and checks."
    )
    out.append("</p></footer>")
    out.append("</body>")
    out.append("</html>")
    return "\n".join(out) + "\n"


_OPENING = re.compile(r'<section id="([a-z]+)">')
_SECTIONS = (
    ("passage", "Passage"),
    ("snapshot", "Snapshot"),
    ("receipt", "Receipt"),
    ("state", "State"),
)


def _snapshot_section(receipt: Receipt | None, png: bytes | None) -> list[str]:
    """The page as retrieved, the quote marked; or, in place and as loud as a breakdown, why
    there is no image (a missing snapshot is never a blank pane)."""
    if receipt is None or receipt.outcome != "found":
        return []
    import base64

    from citeledger.evidence.snapshot import png_size

    out = ['<section id="snapshot">', "<h2>Snapshot of the retrieved source</h2>"]
    size = png_size(png) if png is not None else None
    if receipt.snapshot and png is not None and size is not None:
        data = base64.b64encode(png).decode("ascii")
        out.append('<figure class="citeledger-evidence-snapshot">')
        out.append(
            f'<img src="data:image/png;base64,{data}" width="{size[0]}" height="{size[1]}" '
            'alt="The retrieved page as rendered from the stored bytes, the quoted words '
            'highlighted">'
        )
        out.append(
            "<figcaption>Rendered at verify time from the stored bytes of this retrieval (nothing "
            f"was fetched again); the quoted words are highlighted. sha256 "
            f"<code>{_e(receipt.snapshot_sha256 or '')}</code>.</figcaption>"
        )
        out.append("</figure>")
    else:
        why = receipt.snapshot_note or "no snapshot: this receipt was written without one"
        if receipt.snapshot:
            why = "no snapshot: the image the receipt names is missing or altered"
        out.append(
            '<div class="citeledger-evidence-no-snapshot" '
            f'role="alert"><p><strong>{_e(why[:1].upper() + why[1:])}</strong></p>'
            "<p>Only the extracted text above shows what was retrieved; no image of the page "
            "was kept.</p></div>"
        )
    out.append("</section>")
    return out


def is_relative_link(href: str) -> bool:
    """A link that stays inside the built document's folders: no scheme, no ``//host``, no
    backslash opening (browsers read ``/\\host`` as a host), no spaces or control characters.
    The one rule for every link the audit and the evidence pages make between themselves."""
    return not (
        _SCHEME.match(href)
        or href.startswith(("//", "\\", "/\\"))
        or any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in href)
    )


def _check_relative(href: str) -> None:
    if not href or not is_relative_link(href):
        raise ValueError(
            f"back link {href!r} must be a relative link into the built document "
            "(no scheme, no //host, no spaces): the evidence page never links out"
        )


def _banner(judgement: Judgement, problems: list[str], failed: bool) -> list[str]:
    state = judgement.state
    out: list[str] = []
    if not failed:
        out.append('<div class="citeledger-evidence-banner citeledger-evidence-ok" role="status">')
        edited = ""
        if judgement.receipt is not None and judgement.receipt.edits:
            edited = f", with {count_phrase(judgement.receipt.edits)}"
        out.append(
            '<p class="citeledger-evidence-verdict">Checked: the quoted words were found in '
            f"the retrieved source{_e(edited)}</p>"
        )
        out.append(
            '<p class="citeledger-evidence-note">This page shows that retrieval; it is not a new '
            "one. Whether the passage supports the claim is the writer's judgement, and yours."
            "</p>"
        )
        out.append("</div>")
        return out
    out.append('<div class="citeledger-evidence-banner citeledger-evidence-failed" role="alert">')
    if problems:
        out.append(
            '<p class="citeledger-evidence-verdict">FAILED: this evidence does not hold '
            "together</p>"
        )
        out.append("<p>It is shown as it is, not repaired from any other retrieval:</p>")
        out.append("<ul>")
        out.extend(f"<li>{_e(p)}</li>" for p in problems)
        out.append("</ul>")
        if not state.is_breakdown:
            out.append(
                "<p>The citation cannot be treated as checked while its evidence is broken.</p>"
            )
        else:
            out.append(f"<p>State: {_e(judgement.title)}.</p>")
    else:
        out.append(f'<p class="citeledger-evidence-verdict">FAILED: {_e(judgement.title)}</p>')
        if judgement.reasons:
            out.append("<ul>")
            out.extend(f"<li>{_e(r)}</li>" for r in judgement.reasons)
            out.append("</ul>")
    out.append("</div>")
    return out


def _unavailable_reason(judgement: Judgement) -> str:
    r = judgement.receipt
    if r is None:
        return (
            "No retrieval receipt exists for this citation: nobody has run "
            "citeledger verify on it, so there is no evidence to show."
        )
    if r.outcome == "unretrievable":
        return f"The source could not be retrieved: {r.reason or 'no reason was recorded'}."
    if r.outcome == "gone":
        return f"The source is gone: {r.reason or 'a recheck could not find it'}."
    if r.reason:
        return f"No evidence text is available: {r.reason}."
    return (
        "No evidence text is available for this receipt (the stored record is missing or has "
        "no text layer)."
    )


def _passage_section(judgement: Judgement, text: str | None, failed: bool) -> list[str]:
    r = judgement.receipt
    out = ['<section id="passage">', "<h2>The passage in the source</h2>"]
    span_ok = (
        text is not None
        and r is not None
        and r.char_start is not None
        and r.char_end is not None
        and 0 <= r.char_start <= r.char_end <= len(text)
    )
    if text is None or r is None:
        reason = _unavailable_reason(judgement)
        out.append(f'<div class="citeledger-evidence-unavailable">{_e(reason)}</div>')
    elif not span_ok:
        if r.outcome == "not-found" or judgement.state is State.QUOTE_NOT_FOUND:
            msg = "The quoted words were not found in the retrieved text."
        else:
            msg = "The receipt records no usable position in the retrieved text."
        out.append(f'<div class="citeledger-evidence-unavailable">{_e(msg)}</div>')
    else:
        assert r.char_start is not None and r.char_end is not None and text is not None
        before, _quote, after, cut_before, cut_after = passage_context(
            text, r.char_start, r.char_end
        )
        wrapper = "citeledger-evidence-inspect-only" if failed else "citeledger-evidence-evidence"
        out.append(f'<div class="{wrapper}">')
        if failed:
            out.append(
                '<p class="citeledger-evidence-note"><strong>For inspection only: this is what '
                "the stored text holds at the recorded position. Because this bundle failed, it "
                "is not evidence.</strong></p>"
            )
        where = [f"characters {r.char_start}–{r.char_end} of the extracted text"]
        if r.page is not None:
            where.insert(0, f"page {r.page}")
        out.append(f'<p class="citeledger-evidence-note">Located at {_e(", ".join(where))}.</p>')
        parts = ['<div class="citeledger-evidence-passage">']
        if cut_before:
            parts.append('<span class="citeledger-evidence-cut">[…] </span>')
        parts.append(_shown(before))
        parts.append(f"<mark>{_marked(text, r.char_start, r.char_end, r.edits)}</mark>")
        parts.append(_shown(after))
        if cut_after:
            parts.append('<span class="citeledger-evidence-cut"> […]</span>')
        parts.append("</div>")
        out.append("".join(parts))
        out.append("</div>")
    if r is not None and r.candidate:
        out.append("<h3>Nearest passage in the source (not a match)</h3>")
        out.append(
            f'<blockquote class="citeledger-evidence-quote">{_shown(r.candidate)}</blockquote>'
        )
    if r is not None and r.differences:
        out.append("<p>Differences between the writer's quotation and the source:</p><ul>")
        out.extend(f"<li>{_shown(d)}</li>" for d in r.differences)
        out.append("</ul>")
    out.append("</section>")
    return out


def _marked(text: str, start: int, end: int, edits: Sequence[Edit]) -> str:
    """The quoted span with the writer's edits shown in place: the words an ellipsis left out
    struck and greyed, a bracket beside the source words it stands for.

    Only edits that lie in the span and hold the stored text's words are drawn; any other is a
    broken receipt, which the judgement reports (the page never draws what the text lacks).
    """
    out: list[str] = []
    at = start
    for e in sorted(edits, key=lambda e: (e.char_start, e.char_end)):
        if not at <= e.char_start <= e.char_end <= end or text[e.char_start : e.char_end] != (
            e.source_text
        ):
            continue
        out.append(_shown(text[at : e.char_start]))
        words = _shown(e.source_text)
        bracket = (
            f'<ins class="citeledger-evidence-bracket" title="the writer\'s bracket">'
            f"{_shown(e.quote_text)}</ins>"
        )
        if e.kind == "omission":
            out.append(
                f'<del class="citeledger-evidence-omitted" title="left out by the writer\'s '
                f'{_e(e.quote_text)}">{words}</del>'
            )
        elif e.source_text:
            out.append(
                f'<del class="citeledger-evidence-replaced" title="the source\'s words, which '
                f'the bracket stands for">{words}</del>{bracket}'
            )
        else:
            out.append(bracket)
        at = e.char_end
    out.append(_shown(text[at:end]))
    return "".join(out)


def _edits_list(r: Receipt) -> list[str]:
    if not r.edits:
        return []
    out = [
        f"<p>The writer's editorial marks ({_e(count_phrase(r.edits))}), shown in place above:</p>",
        '<ul class="citeledger-evidence-edits">',
    ]
    out.extend(f"<li>{_shown(describe(e))}</li>" for e in r.edits)
    out.append("</ul>")
    return out


def _quote_section(judgement: Judgement) -> list[str]:
    r = judgement.receipt
    q = judgement.quote
    out = ['<section id="quote">', "<h2>Quotation</h2>"]
    if q is not None:
        out.append("<p>What the writer says the source says:</p>")
        out.append(f'<blockquote class="citeledger-evidence-quote">{_shown(q.text)}</blockquote>')
        if q.locator:
            out.append(f"<p>Writer's locator: {_e(q.locator)}</p>")
    if r is not None and r.quote is not None:
        out.append(
            "<p>The source's own words as the receipt recorded them (selected by the tool from "
            "the retrieved text, not typed):</p>"
        )
        out.append(f'<blockquote class="citeledger-evidence-quote">{_shown(r.quote)}</blockquote>')
    if r is not None:
        out.extend(_edits_list(r))
    if q is None and (r is None or r.quote is None):
        out.append('<p class="citeledger-evidence-note">No quotation is recorded.</p>')
    out.append("</section>")
    return out


def _row(label: str, value: str | None, *, code: bool = False, cls: str = "") -> str:
    if value is None or value == "":
        shown = '<span class="citeledger-evidence-note">not recorded</span>'
    elif code:
        shown = f"<code>{_shown(value)}</code>"
    else:
        shown = _shown(value)
    attr = f' class="{cls}"' if cls else ""
    return f"<dt>{_e(label)}</dt><dd{attr}>{shown}</dd>"


def _provider(judgement: Judgement) -> tuple[str | None, str | None]:
    if judgement.source is not None:
        ident = judgement.source.identifier
        return _PROVIDERS.get(ident.kind, ident.kind), ident.value
    if judgement.receipt is not None:
        kind, sep, value = judgement.receipt.identifier.partition(":")
        if sep and kind in _PROVIDERS:
            return _PROVIDERS[kind], value
        return None, judgement.receipt.identifier
    return None, None


def _receipt_section(
    judgement: Judgement, text: str | None, source_url: str | None, failed: bool
) -> list[str]:
    r = judgement.receipt
    out = ['<section id="receipt">', "<h2>Retrieval receipt</h2>"]
    provider, identifier = _provider(judgement)
    rows = [_row("Provider", provider), _row("Identifier", identifier, code=True)]
    if source_url:
        rows.append(_row("Source address", source_url, cls="citeledger-evidence-address"))
    if r is None:
        out.append('<dl class="citeledger-evidence-receipt">' + "".join(rows) + "</dl>")
        out.append('<p class="citeledger-evidence-note">No retrieval has been recorded.</p>')
        out.append("</section>")
        return out
    addr = "citeledger-evidence-address"
    rows.append(_row("Outcome", r.outcome))
    if r.local_copy:
        rows.append(
            _row(
                "Checked against",
                f"the writer's local copy of {r.identifier} ({r.local_copy}); nothing was "
                "retrieved from the identifier",
            )
        )
    rows += [
        _row("Requested address", r.requested_url, cls=addr),
        _row("Final address", r.url, cls=addr),
    ]
    if r.redirects:
        rows.append(_row("Redirects", " → ".join(r.redirects), cls=addr))
    rows += [
        _row("HTTP status", None if r.status is None else str(r.status)),
        _row("Content type", r.content_type),
        _row("Retrieved at (UTC)", r.retrieved_at),
        _row("Body digest (sha256)", r.body_sha256, code=True),
        _row("Evidence record", r.evidence, code=True),
        _row("Extractor", r.extractor),
        _row("Text digest (sha256)", r.text_sha256, code=True),
        _row("Page", None if r.page is None else str(r.page)),
        _row(
            "Characters",
            None
            if r.char_start is None or r.char_end is None
            else f"{r.char_start}–{r.char_end} (code points of the extracted text)",
        ),
        _row("Match", r.match),
        _row("Score", None if r.score is None else f"{r.score:.3f}"),
        _row("Quotation digest (sha256)", r.quote_sha256, code=True),
        _row("Writer's quotation digest (sha256)", r.writer_quote_sha256, code=True),
        _row("Source last revised", r.last_revised),
    ]
    if r.last_modified:
        rows.append(_row("Last-Modified (server)", r.last_modified))
    if r.etag:
        rows.append(_row("ETag", r.etag, code=True))
    if r.reason:
        rows.append(_row("Reason", r.reason))
    rows.append(_row("Tool", r.tool))
    rows.append(_row("Signed by", judgement.signer or ("not signed" if not r.signature else None)))
    if not failed:
        link = passage_link(r, text, r.url or source_url)
        if link:
            rows.append(_row("Open at the passage (copy into a browser)", link, cls=addr))
    out.append('<dl class="citeledger-evidence-receipt">' + "".join(rows) + "</dl>")
    out.append(
        '<p class="citeledger-evidence-note">Addresses are shown as text: this page does not '
        "navigate. Opening one is a new visit to the source, not this retrieval.</p>"
    )
    out.append("</section>")
    return out


def _state_section(judgement: Judgement, restricted: bool, broken: bool) -> list[str]:
    state = judgement.state
    out = ['<section id="state">', "<h2>State</h2>"]
    out.append(
        f'<p><strong class="citeledger-state citeledger-{_e(state.value)}">{_e(state.value)}'
        f"</strong>: {_e(judgement.title)}</p>"
    )
    if broken and not state.is_breakdown:
        out.append(
            "<p><strong>This evidence failed the checks above, so it does not support that "
            "state: run <code>citeledger check</code> again, and <code>citeledger verify</code> "
            "to retrieve the source anew.</strong></p>"
        )
    if judgement.reasons:
        out.append("<ul>")
        out.extend(f"<li>{_e(reason)}</li>" for reason in judgement.reasons)
        out.append("</ul>")
    src = judgement.source
    if src is not None and not restricted:
        for label, record in (("Withdrawn", src.withdrawn), ("Disputed", src.disputed)):
            if record is None:
                continue
            out.append(f"<p>{label} on {_e(record.date)}: {_e(record.reason)}</p>")
            if record.source_says:
                out.append("<p>What the source actually says:</p>")
                out.append(
                    f'<blockquote class="citeledger-evidence-quote">{_shown(record.source_says)}'
                    "</blockquote>"
                )
    r = judgement.receipt
    if r is not None and not restricted:
        if r.retracted:
            out.append(f"<p>Retraction recorded: {_e(r.retracted)}</p>")
        if r.metadata_mismatch:
            out.append(f"<p>Metadata mismatch: {_e(r.metadata_mismatch)}</p>")
    out.append("</section>")
    return out
