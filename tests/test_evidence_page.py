"""Evidence pages (seed 000 rules 11–18): read-only, self-contained, and loud when broken.

Pages are parsed with the stdlib HTML parser, so the assertions are about the document a
browser builds, not about substrings that could sit inside an attribute or a comment.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field, replace
from html.parser import HTMLParser

import pytest

from citeledger.evidence.page import (
    CONTEXT_LIMIT,
    CSP,
    evidence_page_name,
    page_identity,
    page_slug,
    render_evidence_page,
    stylesheet,
)
from citeledger.model import Identifier, Judgement, Quote, Receipt, Source, State, Withdrawal


def sha(s: str) -> str:
    return hashlib.sha256(s.encode("utf-8")).hexdigest()


# --- a parsed page -------------------------------------------------------------------------------

VOID = {"meta", "br", "hr", "img", "input", "link", "base", "area", "col", "embed", "source", "wbr"}


@dataclass
class Node:
    tag: str
    attrs: dict[str, str | None]
    children: list[Node | str] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self):
        yield self
        for c in self.children:
            if isinstance(c, Node):
                yield from c.iter()

    def find_all(self, tag: str | None = None, cls: str | None = None) -> list[Node]:
        return [
            n
            for n in self.iter()
            if (tag is None or n.tag == tag) and (cls is None or cls in n.classes)
        ]

    def by_id(self, ident: str) -> Node:
        (node,) = [n for n in self.iter() if n.attrs.get("id") == ident]
        return node


class TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]
        self.starttags: list[tuple[str, dict[str, str | None]]] = []
        self.comments: list[str] = []
        self.decl: list[str] = []

    def handle_starttag(self, tag, attrs):
        node = Node(tag, dict(attrs))
        self.starttags.append((tag, dict(attrs)))
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_endtag(self, tag):
        assert tag not in VOID
        assert self.stack[-1].tag == tag, f"</{tag}> closes <{self.stack[-1].tag}>"
        self.stack.pop()

    def handle_data(self, data):
        self.stack[-1].children.append(data)

    def handle_comment(self, data):
        self.comments.append(data)

    def handle_decl(self, decl):
        self.decl.append(decl)


def parse(page: str) -> TreeBuilder:
    builder = TreeBuilder()
    builder.feed(page)
    builder.close()
    assert builder.stack == [builder.root], "unclosed elements"
    return builder


# --- fixtures ------------------------------------------------------------------------------------

QUOTE = (
    "An appeal against a declined subsidence claim must be received within 60 days of the "
    "date of the decision letter."
)
BEFORE = "14.2 Appeals. Handlers record every appeal in the claims system on the day it arrives. "
NEXT = "This limit does not apply except in cases of subsidence reported after the decision."
TEXT = (
    "Household Claims Handling Manual\n\n"
    "14.1 Scope. This chapter covers appeals and complaints.\n\n"
    + BEFORE
    + QUOTE
    + " "
    + NEXT
    + " Late appeals go to the review panel.\n\n"
    "14.3 Complaints. A complaint is not an appeal."
)
URL = "https://claims.example.org/manual/hchm-v7.html"


def receipt(text: str = TEXT, words: str = QUOTE, **over) -> Receipt:
    """A receipt for ``words`` as found in ``text``; ``over`` replaces any field."""
    quote = words
    start = text.index(quote)
    fields = dict(
        outcome="found",
        identifier=f"url:{URL}",
        retrieved_at="2026-03-04T09:12:44Z",
        tool="citeledger 0.1.0",
        writer_quote_sha256=sha(quote),
        requested_url=URL,
        url=URL + "?v=7",
        status=200,
        content_type="text/html; charset=utf-8",
        body_sha256=sha("the body bytes"),
        evidence="sha256/ab/abcdef.warc.gz",
        extractor="selectolax 0.3.21",
        text_sha256=sha(text),
        char_start=start,
        char_end=start + len(quote),
        quote=quote,
        quote_sha256=sha(quote),
        match="exact",
        score=1.0,
        last_revised="2026-01-10",
    )
    fields.update(over)
    return Receipt(**fields)


def judgement(
    r: Receipt | None, state: State = State.CHECKED, reasons: tuple[str, ...] = (), **src
) -> Judgement:
    quote = Quote(text=QUOTE, locator="p. 14", receipts=(r,) if r else ())
    source = Source(
        key="hchm",
        identifier=Identifier("url", URL),
        csl={"title": "Household Claims Handling Manual"},
        quotes=(quote,),
        **src,
    )
    return Judgement("hchm", state, reasons, source, quote, r)


BACK = [("../report.html#cite-hchm-1", "Back to the claim"), ("../report.html#audit-3", "Audit")]


def page_for(j: Judgement, text: str | None = TEXT, **kw) -> tuple[str, TreeBuilder]:
    kw.setdefault("back_links", BACK)
    html_text = render_evidence_page(j, text=text, **kw)
    return html_text, parse(html_text)


def banner(tree: TreeBuilder) -> Node:
    (node,) = tree.root.find_all("div", "citeledger-evidence-banner")
    return node


# --- read-only, self-contained -------------------------------------------------------------------

FORBIDDEN = {
    "script",
    "form",
    "iframe",
    "frame",
    "object",
    "embed",
    "img",
    "link",
    "base",
    "input",
    "button",
    "textarea",
    "select",
    "video",
    "audio",
    "svg",
    "math",
    "source",
}


@pytest.mark.parametrize(
    "make",
    [
        lambda: judgement(receipt()),
        lambda: judgement(receipt(), State.TAMPERED, ("digest mismatch",)),
        lambda: judgement(None, State.UNCHECKED, ("never verified",)),
        lambda: judgement(
            receipt(
                outcome="unretrievable",
                reason="connection refused",
                char_start=None,
                char_end=None,
                quote=None,
                quote_sha256=None,
                body_sha256=None,
            ),
            State.UNRETRIEVABLE,
        ),
    ],
)
def test_page_cannot_navigate_load_or_run_anything(make) -> None:
    page, tree = page_for(make())
    tags = {t for t, _ in tree.starttags}
    assert not tags & FORBIDDEN
    allowed = {href for href, _ in BACK}
    for tag, attrs in tree.starttags:
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        assert "src" not in attrs and "action" not in attrs and "srcset" not in attrs
        if tag == "a":
            href = attrs.get("href") or ""
            assert href.startswith("#") or href in allowed, href
        for name, value in attrs.items():
            if name != "content":
                assert "http" not in (value or "").lower(), (tag, name, value)
    assert '<a href="http' not in page
    metas = [a for t, a in tree.starttags if t == "meta"]
    assert {"http-equiv": "Content-Security-Policy", "content": CSP} in metas
    assert CSP == "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
    assert {"name": "referrer", "content": "no-referrer"} in metas
    (style,) = tree.root.find_all("style")
    css = style.text()
    assert css.strip() and "url(" not in css and "@import" not in css
    assert tree.decl == ["DOCTYPE html"]


def test_addresses_are_text_never_links() -> None:
    _, tree = page_for(judgement(receipt()))
    receipt_section = tree.root.by_id("receipt").text()
    assert URL in receipt_section and URL + "?v=7" in receipt_section
    hrefs = [a.get("href") or "" for t, a in tree.starttags if t == "a"]
    assert not any("example.org" in h for h in hrefs)


@pytest.mark.parametrize(
    "href",
    [
        "https://evil.example/",
        "//evil.example/x",
        "javascript:alert(1)",
        "java\nscript:x",
        " https://x",
        "data:text/html,hi",
        "\\\\host\\share",
        "",
    ],
)
def test_back_links_must_be_relative(href: str) -> None:
    with pytest.raises(ValueError):
        render_evidence_page(judgement(receipt()), text=TEXT, back_links=[(href, "x")])


def test_back_links_are_rendered() -> None:
    _, tree = page_for(judgement(receipt()))
    links = {a.attrs["href"]: a.text() for a in tree.root.find_all("a")}
    assert links["../report.html#cite-hchm-1"] == "Back to the claim"
    assert links["../report.html#audit-3"] == "Audit"


def test_stylesheet_is_inline_and_loads_nothing() -> None:
    css = stylesheet()
    assert "url(" not in css and "@import" not in css and "</" not in css


# --- escaping ------------------------------------------------------------------------------------


def test_source_markup_and_writer_markup_come_out_as_text() -> None:
    text = (
        "Intro. <script>alert(1)</script> A source sentence with <b>bold</b> words in it. "
        "Then the next one <iframe src=x></iframe> follows."
    )
    quote = "A source sentence with <b>bold</b> words in it."
    r = receipt(text=text, words=quote)
    j = replace(judgement(r), quote=Quote(text="writer said <b>html</b> & more", receipts=(r,)))
    page, tree = page_for(j, text=text, title='Title "<i>x</i>"')
    tags = {t for t, _ in tree.starttags}
    assert "script" not in tags and "b" not in tags and "iframe" not in tags and "i" not in tags
    body = tree.root.text()
    assert "<script>alert(1)</script>" in body
    assert "writer said <b>html</b> & more" in body
    assert 'Title "<i>x</i>"' in body
    assert "&lt;script&gt;" in page


def test_control_characters_cannot_break_the_page() -> None:
    text = "Before\x00 text. The quoted words are here.\x1b Next sentence follows it."
    r = receipt(text=text, words="The quoted words are here.")
    _, tree = page_for(judgement(r), text=text)
    assert "\x00" not in tree.root.text()


# --- the passage ---------------------------------------------------------------------------------


def test_highlight_is_exactly_the_receipt_span() -> None:
    r = receipt()
    _, tree = page_for(judgement(r))
    (mark,) = tree.root.find_all("mark")
    assert mark.text() == TEXT[r.char_start : r.char_end] == QUOTE
    (passage,) = tree.root.find_all("div", "citeledger-evidence-passage")
    assert mark in passage.children


def test_context_shows_the_next_sentence_and_the_one_before() -> None:
    _, tree = page_for(judgement(receipt()))
    (passage,) = tree.root.find_all("div", "citeledger-evidence-passage")
    shown = passage.text()
    assert NEXT in shown  # "… except in cases of subsidence …" is visible beside the quote
    assert "Handlers record every appeal in the claims system" in shown
    assert shown.index("Handlers record") < shown.index(QUOTE) < shown.index(NEXT)
    assert "A complaint is not an appeal" not in shown  # another paragraph, two sentences on


def test_next_sentence_is_shown_even_across_a_paragraph_break() -> None:
    text = "Intro paragraph here.\n\n" + QUOTE + "\n\n" + NEXT + " More words.\n\nLast one."
    _, tree = page_for(judgement(receipt(text=text)), text=text)
    (passage,) = tree.root.find_all("div", "citeledger-evidence-passage")
    assert NEXT in passage.text()
    assert "Intro paragraph here." in passage.text()


def test_context_is_capped_and_says_so() -> None:
    filler = " ".join(f"filler{i}" for i in range(400))  # one enormous sentence each side
    text = filler + ". " + QUOTE + " " + filler + "."
    _, tree = page_for(judgement(receipt(text=text)), text=text)
    (passage,) = tree.root.find_all("div", "citeledger-evidence-passage")
    before, _, after = passage.text().partition(QUOTE)
    assert len(before) <= CONTEXT_LIMIT + 10 and len(after) <= CONTEXT_LIMIT + 10
    assert len(tree.root.find_all("span", "citeledger-evidence-cut")) == 2


def test_locator_and_receipt_fields_are_shown() -> None:
    r = receipt(page=14)
    _, tree = page_for(judgement(r))
    receipt_text = tree.root.by_id("receipt").text()
    for value in (
        "Web address (URL)",
        r.retrieved_at,
        r.body_sha256,
        r.text_sha256,
        r.quote_sha256,
        r.extractor,
        "exact",
        "1.000",
        "2026-01-10",
        f"{r.char_start}–{r.char_end}",
        "200",
        r.evidence,
    ):
        assert value in receipt_text, value
    assert "page 14" in tree.root.by_id("passage").text()
    assert "checked" in tree.root.by_id("state").text()


def test_checked_page_offers_a_text_fragment_as_text() -> None:
    _, tree = page_for(judgement(receipt()))
    addresses = [dd.text() for dd in tree.root.find_all("dd", "citeledger-evidence-address")]
    assert any(a.startswith(URL + "?v=7#:~:text=") for a in addresses)


def test_pdf_receipt_offers_a_page_address() -> None:
    r = receipt(content_type="application/pdf", extractor="pdfminer.six 20231228", page=14)
    _, tree = page_for(judgement(r))
    addresses = [dd.text() for dd in tree.root.find_all("dd", "citeledger-evidence-address")]
    assert URL + "?v=7#page=14" in addresses


def test_checked_bundle_has_a_calm_banner() -> None:
    _, tree = page_for(judgement(receipt()))
    b = banner(tree)
    assert "citeledger-evidence-ok" in b.classes
    assert "FAILED" not in tree.root.text()


# --- broken bundles fail loudly ------------------------------------------------------------------


def assert_failed(tree: TreeBuilder, *needles: str) -> None:
    b = banner(tree)
    assert "citeledger-evidence-failed" in b.classes
    assert b.attrs.get("role") == "alert"
    (verdict,) = b.find_all("p", "citeledger-evidence-verdict")
    assert verdict.text().startswith("FAILED")
    for needle in needles:
        assert needle in b.text(), needle
    # the banner comes before the passage: as prominent as the claim, not a footnote
    order = [n for n in tree.root.iter() if n is b or n.attrs.get("id") == "passage"]
    assert order[0] is b
    assert not tree.root.find_all("dd", "citeledger-evidence-address") or all(
        "#:~:" not in dd.text() for dd in tree.root.find_all("dd", "citeledger-evidence-address")
    )


def test_tampered_text_fails_even_if_the_caller_did_not_notice() -> None:
    tampered = TEXT.replace("60 days", "90 days")
    r = receipt()  # digests and span recorded against the original
    _, tree = page_for(judgement(r), text=tampered)
    assert_failed(tree, "text digest", "no longer holds the quotation")
    (wrapper,) = tree.root.find_all("div", "citeledger-evidence-inspect-only")
    assert "not evidence" in wrapper.text()
    assert "does not support that state" in tree.root.by_id("state").text()


def test_shifted_span_fails_and_is_not_repaired() -> None:
    shifted = "Inserted preface. " + TEXT
    r = receipt(text_sha256=sha(shifted))  # same text digest as the new text, stale offsets
    _, tree = page_for(judgement(r), text=shifted)
    assert_failed(tree, "no longer holds the quotation")
    (mark,) = tree.root.find_all("mark")
    assert mark.text() == shifted[r.char_start : r.char_end] != QUOTE


def test_receipt_quote_that_does_not_match_its_digest_fails() -> None:
    r = receipt(quote_sha256=sha("something else"))
    _, tree = page_for(judgement(r))
    assert_failed(tree, "quote_sha256")


def test_caller_reported_problems_fail_the_bundle() -> None:
    _, tree = page_for(judgement(receipt()), problems=["the evidence record is missing"])
    assert_failed(tree, "the evidence record is missing")


def test_breakdown_judgement_fails_with_its_reasons() -> None:
    j = judgement(receipt(), State.TAMPERED, ("stored body no longer matches body_sha256",))
    _, tree = page_for(j)
    assert_failed(tree, State.TAMPERED.title, "stored body no longer matches body_sha256")
    assert "tampered" in tree.root.by_id("state").text()


def test_missing_text_for_a_checked_citation_is_a_failure_not_a_blank() -> None:
    _, tree = page_for(judgement(receipt()), text=None)
    assert_failed(tree, "missing")
    (pane,) = tree.root.find_all("div", "citeledger-evidence-unavailable")
    assert pane.text().strip()
    assert not tree.root.find_all("mark")


def test_unretrievable_says_why_in_place() -> None:
    r = receipt(
        outcome="unretrievable",
        reason="offline: the network was not reachable",
        char_start=None,
        char_end=None,
        quote=None,
        quote_sha256=None,
        body_sha256=None,
        text_sha256=None,
        status=None,
    )
    _, tree = page_for(judgement(r, State.UNRETRIEVABLE, ("connection refused",)), text=None)
    assert_failed(tree, State.UNRETRIEVABLE.title, "connection refused")
    (pane,) = tree.root.find_all("div", "citeledger-evidence-unavailable")
    assert "offline: the network was not reachable" in pane.text()


def test_no_receipt_at_all_says_so() -> None:
    _, tree = page_for(judgement(None, State.UNCHECKED, ("never verified",)), text=None)
    assert_failed(tree, State.UNCHECKED.title)
    (pane,) = tree.root.find_all("div", "citeledger-evidence-unavailable")
    assert "citeledger verify" in pane.text()


def test_quote_not_found_shows_the_nearest_miss_and_differences() -> None:
    r = receipt(
        outcome="not-found",
        char_start=None,
        char_end=None,
        quote=None,
        quote_sha256=None,
        candidate=QUOTE,
        differences=("source says '60', quote says '90'",),
        match=None,
        score=0.91,
    )
    _, tree = page_for(judgement(r, State.QUOTE_NOT_FOUND, ("the quote is not in the source",)))
    assert_failed(tree, State.QUOTE_NOT_FOUND.title)
    passage = tree.root.by_id("passage").text()
    assert "not found" in passage and QUOTE in passage and "source says '60'" in passage


def test_withdrawn_citation_shows_what_the_source_says() -> None:
    w = Withdrawal(
        date="2026-08-02",
        reason="the paper does not make this claim",
        source_says="This paper explores word-graph embeddings.",
    )
    _, tree = page_for(judgement(receipt(), State.WITHDRAWN, ("withdrawn",), withdrawn=w))
    state = tree.root.by_id("state").text()
    assert "2026-08-02" in state and "word-graph embeddings" in state
    assert_failed(tree, State.WITHDRAWN.title)


def test_restricted_source_leaks_nothing() -> None:
    j = judgement(receipt(), State.RESTRICTED, ("not for this audience",), audience=("internal",))
    page, tree = page_for(j)
    for secret in ("Household Claims Handling Manual", "claims.example.org", "subsidence"):
        assert secret not in page
    assert_failed(tree, State.RESTRICTED.title)


# --- file names ----------------------------------------------------------------------------------


def test_page_names_are_stable_safe_and_distinct() -> None:
    r = receipt()
    name = evidence_page_name(r, "hchm")
    assert name == evidence_page_name(receipt(), "hchm")
    assert re.fullmatch(r"[A-Za-z0-9._-]+\.html", name)
    assert name.startswith("hchm-20260304T091244Z-")
    others = {
        evidence_page_name(replace(r, writer_quote_sha256=sha("another quote")), "hchm"),
        evidence_page_name(replace(r, retrieved_at="2026-03-05T00:00:00Z"), "hchm"),
        evidence_page_name(replace(r, body_sha256=sha("other body")), "hchm"),
        evidence_page_name(r, "other"),
        evidence_page_name(r, "Hchm"),  # differs only in case: must not collide on macOS
        name,
    }
    assert len(others) == 6
    assert len({n.lower() for n in others}) == 6


@pytest.mark.parametrize("key", ["doi:10.1101/2020.01.01", "../../etc/passwd", "a b/c\\d", "ü-key"])
def test_page_names_from_odd_keys_stay_in_their_folder(key: str) -> None:
    name = evidence_page_name(receipt(), key)
    assert re.fullmatch(r"[A-Za-z0-9._-]+\.html", name)
    assert not name.startswith(".") and "/" not in name and ".." not in name.split("-")[0]


@pytest.mark.parametrize("key", ["hchm", "doi:10.1101/2020.01.01", "a-2026-x", "ü-key"])
@pytest.mark.parametrize("body", ["some body", None])
def test_a_page_name_reads_back_as_the_key_and_quote_it_was_made_from(
    key: str, body: str | None
) -> None:
    """The folder's clean-up knows a page by (key slug, quote digest): the one reading of the
    layout ``evidence_page_name`` writes, whatever the key and retrieval."""
    r = receipt(body_sha256=sha(body) if body else None)
    assert page_identity(evidence_page_name(r, key)) == (
        page_slug(key),
        r.writer_quote_sha256[:8],
    )
    assert page_identity("index.html") is None and page_identity("notes-1-2-3.html") is None


def test_page_name_without_body() -> None:
    r = receipt(body_sha256=None, outcome="unretrievable")
    assert "nobody" in evidence_page_name(r, "hchm")


@pytest.mark.parametrize(
    ("kind", "links"),
    [
        ("checked", ["passage", "snapshot", "receipt", "state"]),
        ("unretrievable", ["passage", "receipt", "state"]),  # nothing found: no snapshot pane
        ("restricted", ["passage", "state"]),
        ("never verified", ["passage", "receipt", "state"]),
    ],
)
def test_the_section_links_are_the_sections_the_page_has(kind: str, links: list[str]) -> None:
    """The page's nav links each section it holds, in order, and no section it lacks: a
    reader never follows a link to nowhere, even when the source's own words name one."""
    words = 'The manual says <section id="snapshot"> and #receipt in its text.'
    text = f"{TEXT} {words}"
    r: Receipt | None = receipt(text)
    state = State.CHECKED
    if kind == "unretrievable":
        r = receipt(text, outcome="unretrievable", reason="offline", char_start=None)
        state = State.UNRETRIEVABLE
    elif kind == "restricted":
        state = State.RESTRICTED
    elif kind == "never verified":
        r, state = None, State.UNCHECKED
    _, tree = page_for(judgement(r, state), text=text)
    (nav,) = tree.root.find_all("nav", "citeledger-evidence-nav")
    hrefs = [str(a.attrs["href"]) for a in nav.find_all("a")]
    anchors = [h[1:] for h in hrefs if h.startswith("#")]
    sections = [str(s.attrs["id"]) for s in tree.root.find_all("section")]
    assert anchors == links
    assert [s for s in sections if s in anchors] == anchors and set(anchors) <= set(sections)


def test_the_context_shown_is_cut_at_sentences_as_the_build_and_the_locator_cut_them() -> None:
    """The page shows the sentence before the quote and the one after it, across a paragraph
    break. It had a splitter of
    its own that ended a sentence after any full stop ("Dr.", "e.g."), so the context shown
    stopped mid-sentence where the locator read it whole: one rule, ``sentence_end``."""
    from citeledger.evidence.page import passage_context

    text = (
        "Opening words. The trial was led by Dr. Smith in 2020.\n\n"
        "The quoted words stand here.\n\nLater work, e.g. by Jones, agreed. Closing words."
    )
    start = text.index("The quoted")
    end = start + len("The quoted words stand here.")
    before, quote, after, _, _ = passage_context(text, start, end)
    assert quote == "The quoted words stand here."
    assert before.strip() == "The trial was led by Dr. Smith in 2020."
    assert after.strip() == "Later work, e.g. by Jones, agreed."
