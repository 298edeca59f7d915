#!/usr/bin/env python3
"""Build the locator's labelled set, ``tests/data/locate_cases.jsonl``, from ../shared/corpus.

Every quote starts as a sentence (8–40 words) taken mechanically from a source's EXTRACTED text
(the project's extractor), so an honest variant is truly in the source. Each sentence then gives
one honest variant (``expect_found: true``: reflowed whitespace, smart quotes, dashes,
ligatures, soft hyphens, NBSP, hyphenation across a line, first-letter case, ``[T]he``, an
ellipsis, …) and one altered quote (``expect_found: false``: a number changed, a negation added
or dropped, a word or name swapped, a splice of two sentences, a word dropped, an ellipsis over a
"not", …). An altered quote is kept only if its normalised form is not in the source.

The labels come from how a case is built, never from running the locator. Output lines are what
``citeledger locate --batch`` reads: ``id``, ``source`` (path relative to the repository),
``quote``, ``expect_found``, ``kind``; honest cases also carry ``expect_norm``, the normalised
source words the answer must cover. Deterministic: the same corpus and extractor give the same
file. Sources whose licence is unknown give only a few short quotations each.

    .venv/bin/python tools/make_locate_cases.py            # writes tests/data/locate_cases.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from citeledger.cli.locate import extract_path  # noqa: E402
from citeledger.locate.language import language_of  # noqa: E402
from citeledger.locate.locator import NEGATIONS, STOPWORDS  # noqa: E402
from citeledger.locate.normalize import normalize_for_match  # noqa: E402
from citeledger.locate.wordlists import (  # noqa: E402
    ATTRIBUTIONS,
    REFERENCES,
    STANCES,
    TAIL_QUALIFIERS,
    TAIL_QUALIFIERS_AFTER_COMMA,
    clause_joint,
    first_meaningful,
    word_class,
)
from citeledger.locate.wordlists import FRAMES as FRAMES_BY_LANGUAGE  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus"
# Public-domain or openly licensed sources may give more quotations than the rest.
OPEN_SOURCES = {
    "text/project_gutenberg_frankenstein.txt",
    "text/project_gutenberg_pride_and_prejudice.txt",
    "text/rfc2616.txt",
    "text/rfc3986.txt",
    "pdf/dmca.pdf",
    "pdf/GeoTopo-komprimiert.pdf",
}
PER_OPEN_SOURCE = 24
PER_OTHER_SOURCE = 4

LIGATURES = {"ffi": "\ufb03", "ffl": "\ufb04", "ff": "\ufb00", "fi": "\ufb01", "fl": "\ufb02"}
AUX = (
    "is",
    "are",
    "was",
    "were",
    "can",
    "could",
    "will",
    "would",
    "should",
    "may",
    "might",
    "must",
    "has",
    "have",
    "had",
    "does",
    "do",
    "did",
)
PREFIXABLE = {
    "likely": "unlikely",
    "possible": "impossible",
    "able": "unable",
    "known": "unknown",
    "clear": "unclear",
    "necessary": "unnecessary",
    "common": "uncommon",
    "usual": "unusual",
    "certain": "uncertain",
    "complete": "incomplete",
    "correct": "incorrect",
    "valid": "invalid",
    "consistent": "inconsistent",
    "accurate": "inaccurate",
    "safe": "unsafe",
    "important": "unimportant",
    "significant": "insignificant",
    "available": "unavailable",
    "acceptable": "unacceptable",
    "able,": "unable,",
    "happy": "unhappy",
    "fortunate": "unfortunate",
    "aware": "unaware",
    "dependent": "independent",
    "reliable": "unreliable",
    "equal": "unequal",
}

_SENT_END = re.compile(r"(?<=[.!?])[\"”’')]*\s+(?=[\"“‘(]?[A-Z])")
_BLOCK = re.compile(r"\n[ \t]*\n")
_LINE = re.compile(r"\n")
_WS = re.compile(r"\s+")


# --- sentences from the extracted text --------------------------------------------------------


def writer_copy(span: str) -> str:
    """What a writer pasting the sentence would end up with: one line, ligatures spelled out,
    invisible characters and line-end hyphenation gone. Never touches digits or words."""
    s = "".join(c for c in span if c not in "\u00ad\u200b\u200c\u200d\u2060\ufeff")
    for k in sorted(LIGATURES, key=len, reverse=True):
        s = s.replace(LIGATURES[k], k)
    s = s.replace("\ufb05", "st").replace("\ufb06", "st")
    s = re.sub(r"(?<=[a-z])-[ \t]*\n\s*(?=[a-z])", "", s)
    return " ".join(s.split())


def good_sentence(s: str) -> bool:
    words = s.split()
    if not 8 <= len(words) <= 40:
        return False
    if not s[0].isupper() or s[-1] not in ".!?":
        return False
    if any(
        bad in s
        for bad in (
            "http",
            "www.",
            "@",
            "|",
            "\t",
            "...",
            "…",
            ". .",
            "[",
            "]",
            "{",
            "}",
            "_",
            "\\",
            "=",
            "<",
            ">",
            "#",
            "*",
        )
    ):
        return False
    if re.search(r" {3,}", s) or re.search(r"[\x00-\x08\x0b-\x1f]", s):
        return False
    letters = sum(c.isalpha() for c in s)
    visible = sum(not c.isspace() for c in s)
    if letters < 0.8 * visible:
        return False
    short = [w for w in words if len(w.strip(".,;:!?\"'()")) <= 1]
    return len(short) <= len(words) // 3


def sentences(text: str, kind: str) -> list[tuple[int, int]]:
    """Spans (original offsets) of candidate sentences. HTML blocks are lines; in text and PDF
    a line break is only a wrap, and blocks are separated by blank lines."""
    out: list[tuple[int, int]] = []
    for bs, be in _blocks(text, _LINE if kind == "html" else _BLOCK):
        chunk = text[bs:be]
        starts = [0] + [m.end() for m in _SENT_END.finditer(chunk)]
        ends = [m.start() for m in _SENT_END.finditer(chunk)] + [len(chunk)]
        for a, b in zip(starts, ends, strict=True):
            seg = chunk[a:b].rstrip()
            seg_l = seg.lstrip()
            a2 = a + (len(seg) - len(seg_l))
            # closing quote marks after the terminator stay outside the sentence
            while seg_l and seg_l[-1] in "\"”’')":
                seg_l = seg_l[:-1]
            if seg_l and good_sentence(writer_copy(seg_l)):
                out.append((bs + a2, bs + a2 + len(seg_l)))
    return out


def _blocks(text: str, sep: re.Pattern[str]) -> list[tuple[int, int]]:
    out = []
    pos = 0
    for m in sep.finditer(text):
        out.append((pos, m.start()))
        pos = m.end()
    out.append((pos, len(text)))
    return out


# --- honest variants -------------------------------------------------------------------------


def _words(s: str) -> list[str]:
    return s.split(" ")


def v_whitespace(s: str, rng: random.Random, ctx: dict) -> str | None:
    w = _words(s)
    seps = [rng.choice([" ", "\n", "  ", " \n  ", "\t", "\r\n"]) for _ in w[1:]]
    return w[0] + "".join(sep + x for sep, x in zip(seps, w[1:], strict=True))


def v_smart_quotes(s: str, rng: random.Random, ctx: dict) -> str | None:
    if not re.search("['\"‘’“”]", s):
        return None
    if re.search("[‘’“”]", s):
        return s.translate({0x2018: "'", 0x2019: "'", 0x201C: '"', 0x201D: '"'})
    out, open_ = [], True
    for i, c in enumerate(s):
        if c == "'":
            out.append("\u2019" if i > 0 and s[i - 1].isalnum() else "\u2018")
        elif c == '"':
            out.append("\u201c" if open_ else "\u201d")
            open_ = not open_
        else:
            out.append(c)
    return "".join(out)


def v_dashes(s: str, rng: random.Random, ctx: dict) -> str | None:
    if not re.search("[-–—]", s):
        return None
    s2 = re.sub(r"(?<=\d)-(?=\d)", "\u2013", s)
    s2 = re.sub(r"(?<=\d)–(?=\d)", "-", s2) if s2 == s else s2
    s2 = re.sub(r"(?<=[a-z])-(?=[a-z])", "\u2011", s2)
    s2 = re.sub(r"\s*—\s*", lambda m: rng.choice([" -- ", "--", " — ", "\u2014"]), s2)
    s2 = re.sub(r"(?<=[a-z]) – (?=[a-z])", " — ", s2)
    return s2 if s2 != s else None


def v_ligatures(s: str, rng: random.Random, ctx: dict) -> str | None:
    if not any(k in s for k in LIGATURES):
        return None
    out = s
    for k in sorted(LIGATURES, key=len, reverse=True):
        out = out.replace(k, LIGATURES[k])
    return out


def _long_word_indexes(w: list[str], n: int = 7) -> list[int]:
    return [i for i, x in enumerate(w) if len(x) >= n and x.isalpha() and x.islower()]


def v_soft_hyphens(s: str, rng: random.Random, ctx: dict) -> str | None:
    w = _words(s)
    idx = _long_word_indexes(w)
    if not idx:
        return None
    for i in rng.sample(idx, min(3, len(idx))):
        x = w[i]
        cut = rng.randint(2, len(x) - 2)
        w[i] = x[:cut] + "\u00ad" + x[cut:]
    return " ".join(w)


def v_nbsp(s: str, rng: random.Random, ctx: dict) -> str | None:
    w = _words(s)
    seps = [rng.choice([" ", "\u00a0", "\u2009", "\u202f", "\u2002"]) for _ in w[1:]]
    return w[0] + "".join(sep + x for sep, x in zip(seps, w[1:], strict=True))


def v_hyphenation(s: str, rng: random.Random, ctx: dict) -> str | None:
    w = _words(s)
    idx = _long_word_indexes(w, 8)
    if not idx:
        return None
    i = rng.choice(idx)
    x = w[i]
    cut = rng.randint(3, len(x) - 3)
    w[i] = x[:cut] + "-\n" + x[cut:]
    return " ".join(w)


def v_first_case(s: str, rng: random.Random, ctx: dict) -> str | None:
    if not s[0].isalpha():
        return None
    return s[0].swapcase() + s[1:]


def v_bracket_first(s: str, rng: random.Random, ctx: dict) -> str | None:
    if not s[0].isalpha() or not s[1:2].isalpha():
        return None
    return f"[{s[0].swapcase()}]{s[1:]}"


PRONOUNS = (
    "it",
    "they",
    "he",
    "she",
    "this",
    "these",
    "we",
    "them",
    "its",
    "their",
    "his",
    "her",
    "there",
)


_NAME_BEFORE = re.compile(r"(?<=[a-z,;] )[A-Z][a-z]{2,}(?: [A-Z][a-z]{2,})?(?=[ ,.;:])")
FAKE_REFERENTS = ("the authors", "the committee", "the system", "the project")


def _pronoun_indexes(w: list[str]) -> list[int]:
    return [i for i in range(1, len(w) - 1) if w[i].lower() in PRONOUNS]


def v_bracket_word(s: str, rng: random.Random, ctx: dict) -> str | None:
    """A pronoun spelled out by a name the source gives in the sentences before (the rule: a
    bracket names what the source itself refers to there), or a [sic] inserted."""
    w = _words(s)
    idx = _pronoun_indexes(w)
    names = _NAME_BEFORE.findall(ctx.get("before", ""))
    if idx and names:
        i = rng.choice(idx)
        name = names[-1]
        w[i] = f"[{name}'s]" if w[i].lower() in ("its", "their", "his", "her") else f"[{name}]"
        return " ".join(w)
    idx = [i for i in range(2, len(w) - 2) if w[i].isalpha()]
    if not idx:
        return None
    i = rng.choice(idx)
    return " ".join([*w[: i + 1], "[sic]", *w[i + 1 :]])


def e_bracket_not_named(s: str, rng: random.Random, ctx: dict) -> str | None:
    """A pronoun spelled out by a referent the source never names: "[the committee]" for
    "it" where no committee is in the text is the writer's guess, not the source's word."""
    w = _words(s)
    idx = _pronoun_indexes(w)
    fakes = [f for f in FAKE_REFERENTS if f.split()[-1] not in ctx["norm"].lower()]
    if not idx or not fakes:
        return None
    w[rng.choice(idx)] = f"[{rng.choice(fakes)}]"
    return " ".join(w)


def _has_negation(words: list[str]) -> bool:
    return any(
        x.lower().strip(".,;:!?\"'()") in NEGATIONS or x.lower().endswith(("n't", "n’t"))
        for x in words
    )


def v_ellipsis(s: str, rng: random.Random, ctx: dict) -> str | None:
    w = _words(s)
    if len(w) < 10:
        return None
    for _ in range(10):
        a = rng.randint(3, len(w) - 6)
        b = rng.randint(a + 2, min(len(w) - 3, a + 12))
        omitted = " ".join(w[a - 1 : b + 1])
        if (
            not _has_negation(w[max(0, a - 1) : b + 1])
            and not first_meaningful(omitted)
            # the mark before the gap counts too: the locator reads "them, … a" as ", and …"
            and not clause_joint(w[a - 1][-1:] + " " + " ".join(w[a:b]))
            # nor the verb that governs a kept infinitive ("used … to cure" of "used to try to")
            and not (w[b].lower() == "to" and not w[b - 1].endswith((",", ")")))
        ):
            mark = rng.choice([" ... ", " … ", " [...] ", " . . . "])
            return " ".join(w[:a]) + mark + " ".join(w[b:])
    return None


def v_ellipsis_sentences(s: str, rng: random.Random, ctx: dict) -> str | None:
    nxt = ctx.get("next_sentence")
    if not nxt or not ctx.get("same_paragraph"):
        return None
    if re.fullmatch(r"(?:\w\.)+", s.split()[-1]):
        return None  # "of the U.S." is the splitter cutting at an initial, not a sentence end
    if _has_negation(_words(s)[-6:]) or _has_negation(_words(nxt)[:6]):
        return None
    if first_meaningful(ctx["between"]):
        return None
    return s + " ... " + nxt


def v_edge(s: str, rng: random.Random, ctx: dict) -> str | None:
    if s[-1] == ".":
        return rng.choice([s[:-1], "\u201c" + s[:-1] + "\u201d", '"' + s + '"'])
    return None


def v_exact(s: str, rng: random.Random, ctx: dict) -> str | None:
    return ctx["span"]


def v_combined(s: str, rng: random.Random, ctx: dict) -> str | None:
    out = s
    for f in rng.sample(
        [v_smart_quotes, v_ligatures, v_soft_hyphens, v_first_case, v_hyphenation, v_dashes], 3
    ):
        got = f(out, rng, ctx)
        if got:
            out = got
    out = v_whitespace(out, rng, ctx) or out
    return out if out != s else None


def v_short(s: str, rng: random.Random, ctx: dict) -> str | None:
    w = _words(s)
    n = rng.randint(3, 4)
    i = rng.randint(1, len(w) - n - 1)
    chunk = " ".join(w[i : i + n]).strip(".,;:!?\"'()")
    a = len(" ".join(w[:i])) + 1
    if _cut_from_frame(s, a, a + len(chunk)):
        return None  # cut from its sentence's "If …," or before its "except": not honest
    return chunk if len(chunk.split()) == n else None


def v_compound_spacing(s: str, rng: random.Random, ctx: dict) -> str | None:
    """A hyphenated compound typed with a space, or a space-split word from a PDF joined."""
    m = list(re.finditer(r"(?<=[a-z])-(?=[a-z])", s))
    if m:
        x = rng.choice(m)
        return s[: x.start()] + " " + s[x.end() :]
    return None


def v_comma_dropped(s: str, rng: random.Random, ctx: dict) -> str | None:
    # a mark before a space: "this:that" without its colon is another word, not punctuation
    idx = [i for i, c in enumerate(s) if c in ",;:" and 0 < i < len(s) - 1 and s[i + 1].isspace()]
    if not idx:
        return None
    i = rng.choice(idx)
    return s[:i] + s[i + 1 :]


def v_case_mid(s: str, rng: random.Random, ctx: dict) -> str | None:
    w = _words(s)
    idx = [i for i in range(1, len(w)) if w[i][:1].isupper() and w[i][1:].islower()]
    if not idx:
        return None
    i = rng.choice(idx)
    w[i] = w[i].lower()
    return " ".join(w)


HONEST: list[tuple[str, Callable[..., str | None]]] = [
    ("compound_spacing", v_compound_spacing),
    ("punctuation_dropped", v_comma_dropped),
    ("exact", v_exact),
    ("whitespace_reflow", v_whitespace),
    ("smart_quotes", v_smart_quotes),
    ("dashes", v_dashes),
    ("ligatures", v_ligatures),
    ("soft_hyphens", v_soft_hyphens),
    ("nbsp_thin_spaces", v_nbsp),
    ("hyphenation_line_break", v_hyphenation),
    ("first_letter_case", v_first_case),
    ("bracket_first_letter", v_bracket_first),
    ("bracket_alteration", v_bracket_word),
    ("ellipsis", v_ellipsis),
    ("ellipsis_two_sentences", v_ellipsis_sentences),
    ("edge_punctuation", v_edge),
    ("combined", v_combined),
    ("short_exact", v_short),
]


# --- altered quotes --------------------------------------------------------------------------


def a_number(s: str, rng: random.Random, ctx: dict) -> str | None:
    nums = list(re.finditer(r"\d+(?:[.,]\d+)?%?", s))
    if not nums:
        return None
    m = rng.choice(nums)
    t = m.group()
    options = []
    if "." in t:
        options.append(t.replace(".", "", 1))  # 1.5 -> 15
    if t.endswith("%"):
        options.append(t[:-1])
    digits = [i for i, c in enumerate(t) if c.isdigit()]
    i = rng.choice(digits)
    d = str((int(t[i]) + rng.randint(1, 8)) % 10)
    options.append(t[:i] + d + t[i + 1 :])
    new = rng.choice(options)
    if new == t:
        return None
    return s[: m.start()] + new + s[m.end() :]


def a_negation_inserted(s: str, rng: random.Random, ctx: dict) -> str | None:
    w = _words(s)
    idx = [i for i, x in enumerate(w[:-1]) if x.lower() in AUX and w[i + 1].lower() != "not"]
    if idx:
        i = rng.choice(idx)
        if rng.random() < 0.3 and w[i].lower() in ("is", "are", "was", "were", "does", "did"):
            return " ".join([*w[:i], w[i] + "n't", *w[i + 1 :]])
        return " ".join([*w[: i + 1], rng.choice(["not", "never"]), *w[i + 1 :]])
    idx = [i for i, x in enumerate(w) if x.lower().strip(".,;:") in PREFIXABLE]
    if idx:
        i = rng.choice(idx)
        core = w[i].lower().strip(".,;:")
        w[i] = w[i].replace(core, PREFIXABLE[core])
        return " ".join(w)
    return None


def a_negation_dropped(s: str, rng: random.Random, ctx: dict) -> str | None:
    w = _words(s)
    for i, x in enumerate(w):
        bare = x.lower().strip(".,;:!?\"'()")
        if bare in ("not", "never", "no") and 0 < i < len(w) - 1:
            return " ".join(w[:i] + w[i + 1 :])
        if bare in ("cannot",):
            w[i] = x.replace("cannot", "can").replace("Cannot", "Can")
            return " ".join(w)
        if re.search(r"n['’]t\b", x):
            w[i] = re.sub(r"n['’]t\b", "", x)
            if w[i].lower() in ("ca", "wo", "sha"):
                w[i] = {"ca": "can", "wo": "will", "sha": "shall"}[w[i].lower()]
            return " ".join(w)
    for k, v in PREFIXABLE.items():
        if re.search(rf"\b{v}\b", s):
            return re.sub(rf"\b{v}\b", k, s, count=1)
    return None


def _content_indexes(w: list[str]) -> list[int]:
    return [
        i
        for i, x in enumerate(w)
        if x.isalpha() and x.islower() and len(x) >= 4 and x not in STOPWORDS and x not in NEGATIONS
    ]


def a_word_swapped(s: str, rng: random.Random, ctx: dict) -> str | None:
    w = _words(s)
    idx = _content_indexes(w)
    pool = ctx["content_words"]
    if not idx or not pool:
        return None
    i = rng.choice(idx)
    for _ in range(20):
        new = rng.choice(pool)
        if new != w[i] and new.rstrip("s") != w[i].rstrip("s"):
            w[i] = new
            return " ".join(w)
    return None


def a_entity_swapped(s: str, rng: random.Random, ctx: dict) -> str | None:
    w = _words(s)
    idx = [
        i
        for i in range(1, len(w))
        if w[i][:1].isupper()
        and w[i].isalpha()
        and len(w[i]) > 2
        and not w[i - 1].endswith((".", "!", "?", ":"))
    ]
    pool = ctx["names"]
    if not idx or not pool:
        return None
    i = rng.choice(idx)
    for _ in range(20):
        new = rng.choice(pool)
        if new != w[i]:
            w[i] = new
            return " ".join(w)
    return None


def a_splice(s: str, rng: random.Random, ctx: dict) -> str | None:
    other = ctx.get("far_sentence")
    if not other:
        return None
    w, o = _words(s), _words(other)
    a = rng.randint(4, max(4, len(w) - 4))
    b = rng.randint(min(3, len(o) - 4), max(3, len(o) - 4))
    return " ".join(w[:a] + o[b:])


def a_word_dropped(s: str, rng: random.Random, ctx: dict) -> str | None:
    w = _words(s)
    idx = [i for i in _content_indexes(w) if 0 < i < len(w) - 1]
    if not idx:
        return None
    i = rng.choice(idx)
    return " ".join(w[:i] + w[i + 1 :])


def a_ellipsis_over_negation(s: str, rng: random.Random, ctx: dict) -> str | None:
    w = _words(s)
    for i, x in enumerate(w):
        if x.lower() in ("not", "never") and 3 <= i <= len(w) - 3:
            return " ".join(w[:i]) + " ... " + " ".join(w[i + 1 :])
    return None


def a_prefix_cut(s: str, rng: random.Random, ctx: dict) -> str | None:
    w = _words(s)
    for i, x in enumerate(w[:-4]):
        m = re.fullmatch(r"(un|im|in|dis|non)([a-z]{4,})", x)
        if m:
            return " ".join([m.group(2), *w[i + 1 : i + 8]])
    return None


def a_short_number(s: str, rng: random.Random, ctx: dict) -> str | None:
    m = re.search(r"(?:\S+ ){1,2}\d+(?:\.\d+)?(?: \S+){0,1}", s)
    if not m:
        return None
    return a_number(m.group().strip(".,;:!?\"'()"), rng, ctx)


def a_splice_nearby(s: str, rng: random.Random, ctx: dict) -> str | None:
    """The start of one sentence run into the end of the next, words between left out."""
    nxt = ctx.get("next_sentence")
    if not nxt:
        return None
    w, o = _words(s), _words(nxt)
    a = rng.randint(4, max(4, len(w) - 2))
    b = rng.randint(2, max(2, len(o) - 4))
    return " ".join(w[:a] + o[b:])


FUNCTION_SWAPS = {
    "the": "a",
    "a": "the",
    "and": "or",
    "or": "and",
    "all": "some",
    "some": "all",
    "may": "must",
    "must": "may",
    "more": "less",
    "less": "more",
    "always": "often",
    "only": "also",
    "before": "after",
    "after": "before",
}


def a_function_word(s: str, rng: random.Random, ctx: dict) -> str | None:
    w = _words(s)
    idx = [i for i in range(1, len(w)) if w[i] in FUNCTION_SWAPS]
    if not idx:
        return None
    i = rng.choice(idx)
    w[i] = FUNCTION_SWAPS[w[i]]
    return " ".join(w)


def a_combined(s: str, rng: random.Random, ctx: dict) -> str | None:
    """An alteration hidden under honest reformatting: the formatting must not unlock it."""
    for f in rng.sample([a_number, a_negation_inserted, a_word_swapped, a_word_dropped], 4):
        got = f(s, rng, ctx)
        if got:
            return v_combined(got, rng, ctx) or got
    return None


ALTERED: list[tuple[str, Callable[..., str | None]]] = [
    # past the quote's first word, case makes the word ("Bush"/"bush"): a change of name
    ("case_mid_quote", v_case_mid),
    ("splice_nearby", a_splice_nearby),
    ("function_word_swapped", a_function_word),
    ("altered_reformatted", a_combined),
    ("number_changed", a_number),
    ("negation_inserted", a_negation_inserted),
    ("negation_dropped", a_negation_dropped),
    ("content_word_swapped", a_word_swapped),
    ("entity_swapped", a_entity_swapped),
    ("splice", a_splice),
    ("word_dropped", a_word_dropped),
    ("ellipsis_over_negation", a_ellipsis_over_negation),
    ("prefix_cut", a_prefix_cut),
    ("short_number_changed", a_short_number),
]


# --- editorial marks (docs/editorial-marks.md): one more honest and one more altered quote per
# sentence, of the kind used least so far. Alterations that keep every letter of the source
# (a split, a join, a hyphen, quotation marks, a symbol) are checked against the source by form.

SYMBOL_SWAPS = {
    "≤": "≥",
    "≥": "≤",
    "<": ">",
    ">": "<",
    "∈": "∉",
    "∉": "∈",
    "⊆": "⊇",
    "⊇": "⊆",
    "⊂": "⊃",
    "⊃": "⊂",
    "=": "≠",
    "≠": "=",
    "∩": "∪",
    "∪": "∩",
    "∀": "∃",
    "∃": "∀",
    "→": "←",
    "×": "+",
    "+": "×",
    "±": "+",
}
DROPPABLE_SYMBOLS = "√¬%°∞±"
SPLIT_NEGATIONS = {
    "notable": "not able",
    "nobody": "no body",
    "nowhere": "now here",
    "nothing": "no thing",
    "none": "no ne",
    "cannot": "can not",
    "another": "a not her",
    "nonetheless": "none the less",
}


def e_bracket_negation(s: str, rng: random.Random, ctx: dict) -> str | None:
    w = _words(s)
    idx = [i for i, x in enumerate(w[:-1]) if x.lower() in AUX and w[i + 1].lower() != "not"]
    if not idx:
        return None
    i = rng.choice(idx)
    return " ".join([*w[: i + 1], rng.choice(["[not]", "[never]", "[no longer]"]), *w[i + 1 :]])


def e_bracket_letters(s: str, rng: random.Random, ctx: dict) -> str | None:
    """Letters added in a bracket: "[in]sufficient", "[N]or", "[un]likely"."""
    w = _words(s)
    small = {"or": "[n]", "either": "[n]", "ever": "[n]", "one": "[n]", "any": "[m]"}
    idx = [i for i in range(1, len(w)) if w[i] in small]
    if idx:
        i = rng.choice(idx)
        w[i] = small[w[i]] + w[i]
        return " ".join(w)
    idx = [i for i in _content_indexes(w) if i > 0]
    if not idx:
        return None
    i = rng.choice(idx)
    w[i] = rng.choice(["[un]", "[in]", "[non]", "[dis]"]) + w[i]
    return " ".join(w)


def e_bracket_number(s: str, rng: random.Random, ctx: dict) -> str | None:
    nums = list(re.finditer(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.]\d)", s))
    if nums:
        m = rng.choice(nums)
        new = str(int(float(m.group())) + rng.randint(1, 9))
        return s[: m.start()] + f"[{new}]" + s[m.end() :]
    w = _words(s)
    idx = [i for i in range(1, len(w) - 1) if w[i] in ("a", "the", "some", "many", "all")]
    if not idx:
        return None
    i = rng.choice(idx)
    w[i] = f"[{rng.randint(2, 90)}]"
    return " ".join(w)


def e_bracket_content(s: str, rng: random.Random, ctx: dict) -> str | None:
    """A source word replaced by another content word in a bracket: "[unfair]" for "fair"."""
    w = _words(s)
    idx = [i for i in _content_indexes(w) if 0 < i < len(w) - 1]
    pool = ctx["content_words"]
    if not idx or not pool:
        return None
    i = rng.choice(idx)
    for _ in range(20):
        new = rng.choice([*pool, "partly", "rarely", "only", "more", "less", "all", "unfair"])
        if new.rstrip("s") != w[i].rstrip("s"):
            w[i] = f"[{new}]"
            return " ".join(w)
    return None


def e_bracket_inserted(s: str, rng: random.Random, ctx: dict) -> str | None:
    """Words the source does not have, bracketed in."""
    w = _words(s)
    if len(w) < 6:
        return None
    i = rng.randint(2, len(w) - 2)
    pool = ctx["content_words"]
    word = (
        rng.choice(["partly", "only", "rarely", "all", "more", "may", *pool[:50]])
        if pool
        else "only"
    )
    return " ".join([*w[:i], f"[{word}]", *w[i:]])


def e_ellipsis_listed(s: str, rng: random.Random, ctx: dict) -> str | None:
    """An omission that holds a number, modal, quantifier, hedge, comparative or negative."""
    w = _words(s)
    idx = [i for i in range(3, len(w) - 3) if first_meaningful(w[i].strip(".,;:!?\"'()"))]
    if not idx:
        return None
    i = rng.choice(idx)
    a = max(3, i - rng.randint(0, 2))
    b = min(len(w) - 3, i + 1 + rng.randint(0, 2))
    if b - a < 1 or _has_negation(w[:a]) != _has_negation(w[:a]):
        return None
    q = " ".join(w[:a]) + rng.choice([" … ", " ... ", " [...] "]) + " ".join(w[b:])
    return q if _fragments_unique(q, ctx["norm"]) else None


def e_ellipsis_sentences_unmarked(s: str, rng: random.Random, ctx: dict) -> str | None:
    """The start of one sentence joined to the end of the next, the full stop not quoted."""
    nxt = ctx.get("next_sentence")
    if not nxt:
        return None
    w, o = _words(s), _words(nxt)
    if len(w) < 5 or len(o) < 5:
        return None
    a = rng.randint(3, len(w) - 2)
    b = rng.randint(1, len(o) - 3)
    q = " ".join(w[:a]) + " … " + " ".join(o[b:])
    return q if _fragments_unique(q, ctx["norm"]) else None


def e_ellipsis_paragraphs(s: str, rng: random.Random, ctx: dict) -> str | None:
    nxt = ctx.get("next_sentence")
    if not nxt or ctx.get("same_paragraph"):
        return None
    q = s + " … " + nxt
    return q if _fragments_unique(q, ctx["norm"]) else None


def e_symbol(s: str, rng: random.Random, ctx: dict) -> str | None:
    """A superscript or a symbol added where the source has none ("km²" for "km")."""
    w = _words(s)
    idx = [i for i in _content_indexes(w) if 0 < i < len(w) - 1]
    if not idx:
        return None
    i = rng.choice(idx)
    mark = rng.choice(["²", "³", "₂", " ≤", " ¬", " √", " ∞", "%", "°"])
    w[i] = w[i] + mark
    return " ".join(w)


def e_split_word(s: str, rng: random.Random, ctx: dict) -> str | None:
    """A source word split into a negation or into other real words ("now here")."""
    w = _words(s)
    vocab = ctx["vocab_set"]
    opts = []
    for i, x in enumerate(w):
        bare = x.strip(".,;:!?\"'()")
        if bare.lower() in SPLIT_NEGATIONS:
            opts.append((i, x.replace(bare, SPLIT_NEGATIONS[bare.lower()])))
            continue
        if not bare.isalpha() or len(bare) < 7:
            continue
        for k in range(3, len(bare) - 2):
            if _hyphen_there(ctx["text"], bare, k):
                continue  # the source's "previously-\nread": its hyphen typed as a space
            if bare[:k].lower() in vocab and bare[k:].lower() in vocab:
                opts.append((i, x.replace(bare, bare[:k] + " " + bare[k:])))
                break
    if not opts:
        return None
    i, new = rng.choice(opts)
    w[i] = new
    return " ".join(w)


def _hyphen_there(text: str, word: str, k: int) -> bool:
    """Whether the source writes ``word`` with a hyphen (or a line-break hyphen) at ``k``."""
    rx = rf"(?i){re.escape(word[:k])}[-\u00ad\u2010\u2011]\s*{re.escape(word[k:])}"
    return re.search(rx, text) is not None


def _fragments_unique(q: str, norm: str) -> bool:
    """Each fragment of an ellipsis quote occurs once in the source: an altered quote whose
    fragments also stand elsewhere may be an honest quote of that other passage."""
    for f in re.split(r"\s*(?:…|\.\.\.|\[\.\.\.\]|\[…\])\s*", q):
        f = normalize_for_match(f).strip(".,;:'\" ")
        if f and norm.count(f) + norm.count(f[:1].swapcase() + f[1:]) > 1:
            return False
    return True


def e_join_words(s: str, rng: random.Random, ctx: dict) -> str | None:
    """Two source words joined into another word ("no body" → "nobody", "a part" → "apart")."""
    w = _words(s)
    vocab = ctx["vocab_raw"]
    idx = [
        i
        for i in range(len(w) - 1)
        if w[i].isalpha()
        and w[i + 1].isalpha()
        and ((w[i] + w[i + 1]).lower() in vocab or w[i].lower() in NEGATIONS)
    ]
    if not idx:
        return None
    i = rng.choice(idx)
    return " ".join([*w[:i], w[i] + w[i + 1], *w[i + 2 :]])


def e_hyphen(s: str, rng: random.Random, ctx: dict) -> str | None:
    """A hyphen the source does not have: "re-act" for "react"."""
    w = _words(s)
    idx = [i for i in _content_indexes(w) if len(w[i]) >= 6]
    if not idx:
        return None
    i = rng.choice(idx)
    x = w[i]
    cut = 2 if x[:2] in ("re", "de", "co", "un", "in") else rng.randint(2, len(x) - 3)
    if re.search(
        rf"(?i){re.escape(x[:cut])}[-\u2010\u2011\u2013\u2014\u00ad]\s*{re.escape(x[cut:])}",
        ctx["text"],
    ):
        return None
    w[i] = x[:cut] + "-" + x[cut:]
    return " ".join(w)


def e_scare_quotes(s: str, rng: random.Random, ctx: dict) -> str | None:
    w = _words(s)
    idx = [i for i in _content_indexes(w) if 0 < i < len(w) - 1]
    if not idx:
        return None
    i = rng.choice(idx)
    left, right = rng.choice([('"', '"'), ("\u201c", "\u201d"), ("'", "'"), ("\u2018", "\u2019")])
    w[i] = left + w[i] + right
    return " ".join(w)


def e_entities(s: str, rng: random.Random, ctx: dict) -> str | None:
    """HTML entities typed into the quote: decoded, the same words."""
    out = s.replace("&", "&amp;")
    out = re.sub(
        r"(?<=\w)['\u2019](?=\w)", lambda m: rng.choice(["&#8217;", "&rsquo;", "&#x2019;"]), out
    )
    w = out.split(" ")
    i = rng.randint(1, len(w) - 1)
    return " ".join(w[:i]) + "&nbsp;" + " ".join(w[i:])


def e_split_nonword(s: str, rng: random.Random, ctx: dict) -> str | None:
    """A long word typed split where neither piece is a word (a PDF's "classi fication")."""
    if not re.search(r"\w[.!?]?$", s):
        return None  # a fuzzy match's span leaves out punctuation at the end: not this rule's
    w = _words(s)
    vocab = ctx["vocab_set"]
    opts = []
    for i in _long_word_indexes(w, 9):
        x = w[i]
        for k in range(4, len(x) - 3):
            a, b = x[:k].lower(), x[k:].lower()
            if (
                a not in vocab
                and b not in vocab
                and not word_class(a)
                and not word_class(b)
                and a not in STOPWORDS
                and b not in STOPWORDS
            ):
                opts.append((i, x[:k] + " " + x[k:]))
                break
    if not opts:
        return None
    i, new = rng.choice(opts)
    w[i] = new
    return " ".join(w)


EDIT_HONEST: list[tuple[str, Callable[..., str | None]]] = [
    ("html_entities", e_entities),
    ("split_nonword", e_split_nonword),
    ("ellipsis", v_ellipsis),  # a second round of these two: at least 40 of each
    ("ellipsis_two_sentences", v_ellipsis_sentences),
]
EDIT_ALTERED: list[tuple[str, Callable[..., str | None]]] = [
    # past the quote's first word, case makes the word ("Bush"/"bush"): a change of name
    ("case_mid_quote", v_case_mid),
    ("bracket_negation", e_bracket_negation),
    ("bracket_letters", e_bracket_letters),
    ("bracket_number", e_bracket_number),
    ("bracket_content_word", e_bracket_content),
    ("bracket_inserted_word", e_bracket_inserted),
    ("bracket_referent_not_named", e_bracket_not_named),
    ("ellipsis_listed_word", e_ellipsis_listed),
    ("ellipsis_unmarked_sentences", e_ellipsis_sentences_unmarked),
    ("ellipsis_across_paragraphs", e_ellipsis_paragraphs),
    ("symbol_added", e_symbol),
    ("word_split", e_split_word),
    ("words_joined", e_join_words),
    ("hyphen_added", e_hyphen),
    ("scare_quotes_added", e_scare_quotes),
]
# Letters alone do not tell these from the source: their form must be absent instead.
SAME_LETTERS = {"word_split", "words_joined", "hyphen_added", "scare_quotes_added", "symbol_added"}


def _absent_form(quote: str, norm: str) -> bool:
    q = normalize_for_match(quote).strip(".,;:'\" ")
    return bool(q) and q not in norm and (q[:1].swapcase() + q[1:]) not in norm


# --- marks in the source itself: windows of words around them ----------------------------------

_SOURCE_BRACKET = re.compile(r"\[(?:\d+(?:[,–-]\s*\d+)*|[A-Z]+\d*)\]")
_SOURCE_DOTS = re.compile(r"(?<=\w) ?(?:\. \. \.|\.\.\.|…)(?= \w)")
_SOURCE_SYMBOL = re.compile("[" + re.escape("".join(SYMBOL_SWAPS) + DROPPABLE_SYMBOLS) + "]")
_SOURCE_INNER_QUOTES = re.compile(
    r"(?<=\w )([\"\u201c])(\w[^\"\u201c\u201d\n]{0,40}?)([\"\u201d])(?= \w|[,.])"
)


_WORD_BEFORE = re.compile(r"(\S+)[^\S\n]*\n?[^\S\n]*$")
_WORD_AFTER = re.compile(r"[^\S\n]*\n?[^\S\n]*([^\W\d_]+(?:['\u2019][^\W\d_]+)*)")


def _beside_negation(text: str, a: int, b: int) -> bool:
    """Whether the source's word right before ``text[a:b]``, or right after it (no punctuation
    between), is a negation: "entitled to" of "not entitled to", "she did" of "she did not"."""
    m = _WORD_BEFORE.search(text, max(0, a - 40), a)
    if m is not None and m.end() == a and word_class(m.group(1)) == "negation":
        return True
    if b >= len(text) or not text[b - 1].isalnum():
        return False
    m = _WORD_AFTER.match(text, b)
    return m is not None and word_class(m.group(1)) == "negation"


_SENTENCE_BEFORE = re.compile(r"(?:[.!?][\"'”’)\]]*\s+|\n[^\S\n]*\n)(?=[^.!?]*$)")
_FRAME_OPENERS = ("if", "when", "unless", "although", "though", "whenever", "provided")
FRAMES = ATTRIBUTIONS | STANCES
_QUALIFIER_AFTER = re.compile(
    r"[\"'”’)\]]*(,|[^\S\n]*[—–])?[^\S\n]*\n?[^\S\n]*([a-z]+(?: [a-z]+){0,2})"
)


def _cut_from_frame(text: str, a: int, b: int) -> bool:
    """Whether ``text[a:b]`` is cut from its sentence's frame or limit: its sentence opens
    with "If …," (or "When", "Unless", …) before it, or it stops right before the source's
    "if", "except", "only", "up to" … (``TAIL_QUALIFIERS``): its words alone say more than
    the source does (docs/editorial-marks.md)."""
    m = _SENTENCE_BEFORE.search(text, max(0, a - 400), a)
    lead = text[m.end() if m else max(0, a - 400) : a]
    first = re.match(r"[^A-Za-z]*(?:(?:But|And|So|Indeed|However|Then),?\s+)?([A-Za-z]+)", lead)
    if lead.rstrip().endswith(",") and first and first.group(1).lower() in _FRAME_OPENERS:
        return True
    # ... or with its language's "Wenn …,", "Falls …,", "Si …," (the locator reads the same
    # tables: a German page-break window after "Wenn es ein solches δ gibt," is not honest)
    lang = language_of(text[max(0, a - 400) : b + 300])
    openers = FRAMES_BY_LANGUAGE[lang]["condition"] if lang != "en" else frozenset()
    if lead.rstrip().endswith(",") and first and first.group(1).lower() in openers:
        return True
    # or it starts in a clause the source negates ("does not require that ⟦…"), or after a
    # report's or a view's "that" ("reports that ⟦…", "theory is that ⟦…")
    toks = re.findall(r"[^\W\d_]+(?:['’][^\W\d_]+)*|[,;:()—–]", lead)[-4:]
    words = [x.lower() for x in toks]
    tail3 = words[-3:]
    if any(word_class(x) == "negation" for x in tail3) and not any(
        x in ",;:()—–" for x in tail3[[word_class(x) for x in tail3].index("negation") :]
    ):
        return True
    if words and words[-1] == "that" and any(x in FRAMES for x in words[-4:-1]):
        return True
    # or right after a condition's "if" ("Anyway, if ⟦Facebook combined …"): what a condition
    # supposes is no claim of the source's
    conditions = FRAMES_BY_LANGUAGE[lang]["condition"] - {"whether"}
    if words and lead[-1:].isspace() and words[-1] in conditions:
        return True
    if words and lead[-1:].isspace() and words[-1] in FRAMES and toks[-1].islower():
        return True
    if text[b - 1 : b] in ".!?":
        return False
    t = _QUALIFIER_AFTER.match(text, b)
    if t is None:
        return False
    words = t.group(2)
    opened = TAIL_QUALIFIERS_AFTER_COMMA if t.group(1) else TAIL_QUALIFIERS
    return any(words == q or words.startswith(q + " ") for q in opened)


def windows(
    text: str, rx: re.Pattern[str], n: int, rng: random.Random, per_match: int = 1
) -> list[tuple[int, int, re.Match[str]]]:
    """Up to ``n`` spans of 10–16 whole words around matches of ``rx`` within one paragraph;
    with ``per_match`` > 1, up to that many windows of different widths around each (for marks
    the corpus has few of)."""
    ms = list(rx.finditer(text)) * per_match
    rng.shuffle(ms)
    seen: set[tuple[int, int]] = set()
    out: list[tuple[int, int, re.Match[str]]] = []
    used: set[int] = set()
    for m in ms:
        if len(out) >= n:
            break
        ps = max(text.rfind("\n\n", 0, m.start()), 0)
        pe = text.find("\n\n", m.end())
        pe = len(text) if pe == -1 else pe
        before = list(re.finditer(r"\S+", text[ps : m.start()]))[-rng.randint(4, 7) :]
        after = list(re.finditer(r"\S+", text[m.end() : pe]))[: rng.randint(5, 8)]
        if len(before) < 4 or len(after) < 4:
            continue
        a, b = ps + before[0].start(), m.end() + after[-1].end()
        span = text[a:b]
        if (
            (a > 0 and not text[a - 1].isspace())
            or re.search(r"[-\u00ad\u2010]\s*$", text[max(0, a - 4) : a])
            or span.endswith("-")
            or "-\n" in span
        ):
            continue  # a word cut by the window or by the source's line-break hyphen
        letters = sum(c.isalpha() for c in span)
        if (a, b) in seen:
            continue
        if letters < 0.6 * sum(not c.isspace() for c in span) or (
            per_match == 1 and a // 2000 in used
        ):
            continue
        if re.search(r"[\[\]]", span.replace(m.group(), "")) and rx is not _SOURCE_BRACKET:
            continue
        while span and span[-1] in ",;:([\"“'—–- ":
            span = span[:-1]
        used.add(a // 2000)
        seen.add((a, b))
        out.append((a, a + len(span), m))
    return out


def source_mark_cases(
    text: str, norm: str, source: str, stem: str, quota: int, rng: random.Random
) -> list[dict]:
    """Honest quotes with the source's own brackets (and a first-letter bracket), its own
    ". . .", its quotation marks converted; altered ones with a symbol changed or dropped, or
    its quotation marks removed."""
    out: list[dict] = []

    def add(kind: str, q: str, found: bool, a: int, b: int) -> None:
        beside = found and _beside_negation(text, a, b)
        if beside:
            # the window starts right after the source's "not" or stops right before it: its
            # words as they are say what the source does not (docs/editorial-marks.md)
            kind, found = "window_beside_negation", False
        elif found and _cut_from_frame(text, a, b):
            # the window drops its sentence's "If …," or stops before its "except …": its
            # words alone say more than the source does
            beside, kind, found = True, "window_cut_from_frame", False
        case = {
            "id": f"{stem}-{kind}-{len(out)}",
            "source": source,
            "quote": q,
            "expect_found": found,
            "kind": kind,
        }
        if found:
            case["expect_norm"] = normalize_for_match(text[a:b])
        elif not beside and not _absent_form(q, norm):
            return
        out.append(case)

    for a, b, _m in windows(text, _SOURCE_BRACKET, quota, rng):
        q = writer_copy(text[a:b])
        if q[:1].isalpha() and q[1:2].isalpha():
            add(
                "bracket_first_letter_beside_source_brackets",
                f"[{q[0].swapcase()}]{q[1:]}",
                True,
                a,
                b,
            )
    for a, b, _m in windows(text, _SOURCE_DOTS, 3 * quota, rng, per_match=3):
        add("source_ellipsis", writer_copy(text[a:b]), True, a, b)
    for a, b, m in windows(text, _SOURCE_SYMBOL, quota, rng):
        q = writer_copy(text[a:b])
        sym = m.group()
        if sym in SYMBOL_SWAPS and rng.random() < 0.7:
            bad = q.replace(sym, SYMBOL_SWAPS[sym], 1)
        else:
            bad = q.replace(sym, "", 1)
        if bad != q and len(bad.split()) >= 5:
            add("symbol_changed", bad, False, a, b)
    for a, b, m in windows(text, _SOURCE_INNER_QUOTES, quota, rng):
        q = writer_copy(text[a:b])
        add(
            "quote_marks_removed",
            q.replace(m.group(1), "", 1).replace(m.group(3), "", 1),
            False,
            a,
            b,
        )
        add(
            "quote_marks_single",
            q.replace(m.group(1), "\u2018", 1).replace(m.group(3), "\u2019", 1),
            True,
            a,
            b,
        )
    return out


# --- quotes whose edges or marks change what the source says (r4's kinds, fresh windows) --------

_LISTED_SITE = re.compile(
    r"(?<=[a-z] )(no|only|all|some|any|most|few|several|many|every|each|nothing|everything"
    r"|something|anything)(?= [a-z])"
)
_NAME_SITE = re.compile(r"(?<=[a-z,] )([A-Z])([a-z]{2,})(?= [a-z])")
_NEGATION_BEFORE = re.compile(r"(?<=[a-z] )(?:not|never|no|without|cannot) (?=[a-z])")
_NEGATION_AFTER = re.compile(r"(?<=[a-z]) (?=(?:not|never)\b)")
_GOES_ON_SITE = re.compile(
    r"(?<=[a-z]) (?=(?:until|unless|if|when|because|except|without|but|while|after|before) )"
)
_FOREIGN_NEGATION = re.compile(
    r"(?<=\w )(?:pas|jamais|rien|sans|aucune?|nicht|nie|kein\w*|nichts|ohne|não|nunca|nem|sem"
    r"|nada|sin|nadie|senza|niente|nessun\w*) \w+(?= \w)"
)
_SUBJECT_SITE = re.compile(
    r"(?<=[a-z] )(?:that|which|who) (?:[\w’'-]+ ){1,4}?"
    r"(?=(?:is|are|was|were|has|have|had|will|would|can|could|may|might|must|should) )"
)
# two words before a kept infinitive, no comma ("used to try to cure", "helping Facebook to
# build"): left out, the verb that governs the infinitive goes with them
_NOT_INFINITIVE = sorted(
    REFERENCES
    | {"a", "an", "be", "such", "both", "what", "every", "each", "all", "any", "some"}
    | {"no", "more", "most"}
)
_GOVERNING_SITE = re.compile(
    r"(?<=[a-z] )[a-z]+ [a-z]+ (?=to (?!(?:" + "|".join(_NOT_INFINITIVE) + r") )"
    r"[a-z]{3,}(?<!ing) [a-z])"
)
_ASIDE_SITE = re.compile(r"(?<=[a-z]), (?:which|who) [^,.;:()\[\]\n]{8,70},(?= [a-z])")
FOREIGN = ("folha", "heise", "lemonde", "liberation", "la-nacion")


def _site_window(
    text: str,
    s: int,
    e: int,
    rng: random.Random,
    *,
    start_at_site: bool = False,
    end_at_site: bool = False,
) -> tuple[int, int] | None:
    """Whole words around the site ``text[s:e]`` within its paragraph (one line for HTML), as
    ``windows`` takes them; starting at its end or stopping at its start if asked."""
    ps = max(text.rfind("\n\n", 0, s), 0)
    pe = text.find("\n\n", e)
    pe = len(text) if pe == -1 else pe
    if start_at_site:
        after = list(re.finditer(r"\S+", text[e:pe]))[: rng.randint(8, 12)]
        if len(after) < 8:
            return None
        a, b = e, e + after[-1].end()
    elif end_at_site:
        before = list(re.finditer(r"\S+", text[ps:s]))[-rng.randint(8, 12) :]
        if len(before) < 8:
            return None
        a, b = ps + before[0].start(), s
    else:
        before = list(re.finditer(r"\S+", text[ps:s]))[-rng.randint(4, 7) :]
        after = list(re.finditer(r"\S+", text[e:pe]))[: rng.randint(5, 8)]
        if len(before) < 4 or len(after) < 4:
            return None
        a, b = ps + before[0].start(), e + after[-1].end()
    span = text[a:b]
    if (
        (a > 0 and not text[a - 1].isspace())
        or not span[-1:].isalpha()
        or "-\n" in span
        or re.search(r"[\[\]\"“”…]|\.\.", span)
        or "\n\n" in span
        or sum(c.isalpha() for c in span) < 0.7 * sum(not c.isspace() for c in span)
    ):
        return None
    return a, b


def edge_cases(
    text: str, norm: str, source: str, stem: str, quota: int, rng: random.Random
) -> list[dict]:
    """Altered quotes of the kinds r4 found accepted, built afresh from the corpus: a bracket
    standing for a listed word, a bracketed case change mid-quote, a quote starting right after
    or stopping right before the source's negation, a full stop of the quote's own where the
    source goes on, an ellipsis over a negation in the source's language or over the subject
    of the next verb or the verb that governs a kept infinitive; and the honest omission of an
    aside clause in commas."""
    out: list[dict] = []

    def sites(rx: re.Pattern[str]) -> list[re.Match[str]]:
        ms = list(rx.finditer(text))
        rng.shuffle(ms)
        return ms

    def add(kind: str, q: str, found: bool, a: int, b: int) -> bool:
        qn = normalize_for_match(q).strip(".,;:'\" ")
        # the same words elsewhere may quote another passage honestly
        if (
            not found
            and "[" not in q
            and "…" not in q
            and norm.count(qn) + norm.count(qn[:1].swapcase() + qn[1:]) != 1
        ):
            return False
        if "…" in q and not _fragments_unique(q, norm):
            return False
        if found and (_beside_negation(text, a, b) or _cut_from_frame(text, a, b)):
            return False  # its edges are beside the source's negation or frame: not honest
        case = {
            "id": f"{stem}-{kind}-{len(out)}",
            "source": source,
            "quote": q,
            "expect_found": found,
            "kind": kind,
        }
        if found:
            case["expect_norm"] = normalize_for_match(text[a:b])
        out.append(case)
        return True

    def each(
        kind: str, rx: re.Pattern[str], make: Callable[[re.Match[str]], bool], most: int = quota
    ) -> None:
        n = 0
        for m in sites(rx):
            if n >= most:
                break
            n += make(m)

    def listed(m: re.Match[str]) -> bool:
        w = _site_window(text, m.start(), m.end(), rng)
        if w is None:
            return False
        a, b = w
        rep = "[it]" if m.group().endswith("thing") else rng.choice(["[the]", "[they]", "[it]"])
        q = writer_copy(text[a : m.start()]) + " " + rep + " " + writer_copy(text[m.end() : b])
        return add("bracket_for_listed_word", q, False, a, b)

    def name(m: re.Match[str]) -> bool:
        w = _site_window(text, m.start(), m.end(), rng)
        if w is None:
            return False
        a, b = w
        q = (
            writer_copy(text[a : m.start()])
            + f" [{m.group(1).lower()}]{m.group(2)} "
            + writer_copy(text[m.end() : b])
        )
        return add("bracket_case_midquote", q, False, a, b)

    def after_negation(m: re.Match[str]) -> bool:
        w = _site_window(text, m.start(), m.end(), rng, start_at_site=True)
        return w is not None and add(
            "starts_after_negation", writer_copy(text[w[0] : w[1]]), False, *w
        )

    def before_negation(m: re.Match[str]) -> bool:
        w = _site_window(text, m.start(), m.end(), rng, end_at_site=True)
        return w is not None and add(
            "stops_before_negation", writer_copy(text[w[0] : w[1]]), False, *w
        )

    def goes_on(m: re.Match[str]) -> bool:
        w = _site_window(text, m.start(), m.end(), rng, end_at_site=True)
        if w is None or "\n" in text[m.start() : m.end() + 1]:
            return False
        q = writer_copy(text[w[0] : w[1]])
        if not q[:1].isupper():
            return False
        return add("full_stop_where_source_goes_on", q + ".", False, *w)

    def omit(kind: str, found: bool) -> Callable[[re.Match[str]], bool]:
        def make(m: re.Match[str]) -> bool:
            w = _site_window(text, m.start(), m.end(), rng)
            if w is None:
                return False
            a, b = w
            gap = m.group()
            if found and (first_meaningful(gap) is not None or clause_joint(gap.strip(", "))):
                return False  # an honest aside holds nothing the rules refuse
            if kind == "ellipsis_takes_subject" and (
                first_meaningful(gap) is not None or "," in gap
            ):
                return False  # refused for that reason already: not this kind's measure
            q = writer_copy(text[a : m.start()]) + " … " + writer_copy(text[m.end() : b])
            return add(kind, q, found, a, b)

        return make

    each("bracket_for_listed_word", _LISTED_SITE, listed)
    each("bracket_case_midquote", _NAME_SITE, name)
    each("starts_after_negation", _NEGATION_BEFORE, after_negation)
    each("stops_before_negation", _NEGATION_AFTER, before_negation)
    each("full_stop_where_source_goes_on", _GOES_ON_SITE, goes_on)
    if stem.startswith(FOREIGN):
        # five sources only: three times the quota, enough to measure
        make = omit("ellipsis_foreign_negation", False)
        each("ellipsis_foreign_negation", _FOREIGN_NEGATION, make, 3 * quota)
    each("ellipsis_takes_subject", _SUBJECT_SITE, omit("ellipsis_takes_subject", False))
    each("ellipsis_aside_clause", _ASIDE_SITE, omit("ellipsis_aside_clause", True))
    each(
        "ellipsis_takes_governing_verb",
        _GOVERNING_SITE,
        omit("ellipsis_takes_governing_verb", False),
    )
    return out


# --- quotes across a page break (PDF running headers) ------------------------------------------


def page_break_quotes(text: str, page_starts: tuple[int, ...]) -> list[str]:
    """Writer's copies of the words on both sides of a page break whose new page opens with a
    running header (a first line that recurs on three or more pages, digits ignored)."""
    if len(page_starts) < 4:
        return []
    firsts = []
    for p in page_starts[1:]:
        nl = text.find("\n", p)
        firsts.append((p, nl, re.sub(r"\d+", "#", text[p:nl].strip().lower())))
    counts: dict[str, int] = {}
    for _, _, k in firsts:
        counts[k] = counts.get(k, 0) + 1
    out = []
    for p, nl, k in firsts:
        if not k or counts[k] < 3 or nl == -1:
            continue
        before = writer_copy(text[max(0, p - 300) : p]).split(" ")[-7:]
        after = writer_copy(text[nl + 1 : nl + 300]).split(" ")[:7]
        starts = [m.start() for m in re.finditer(r"\S+", text[max(0, p - 300) : p])]
        ends = [m.end() for m in re.finditer(r"\S+", text[nl + 1 : nl + 300])]
        if (
            len(starts) >= 7
            and len(ends) >= 7
            and _cut_from_frame(text, max(0, p - 300) + starts[-7], nl + 1 + ends[6])
        ):
            continue  # cut from its sentence's "if …," or before its "except": not honest
        q = " ".join(before + after)
        if before and after and before[-1][-1:] not in ".!?:" and good_words(q):
            out.append(q)
    return out


def good_words(q: str) -> bool:
    letters = sum(c.isalpha() for c in q)
    visible = sum(not c.isspace() for c in q)
    return len(q.split()) >= 10 and letters >= 0.85 * visible and not re.search(r"[\[\]=|]", q)


# --- assembling --------------------------------------------------------------------------------


def build_cases(corpus: Path = CORPUS) -> list[dict]:
    cases: list[dict] = []
    files = sorted(
        p for d in ("text", "html", "pdf") for p in (corpus / d).glob("*") if p.is_file()
    )
    counts: dict[str, int] = {}
    for path in files:
        rel_corpus = f"{path.parent.name}/{path.name}"
        try:
            ex = extract_path(path)
        except Exception as err:  # a source the extractor refuses gives no cases
            print(f"skip {rel_corpus}: {err}", file=sys.stderr)
            continue
        text = ex.text
        norm = normalize_for_match(text)
        letters = _letters(norm)
        spans = sentences(text, ex.kind)
        if not spans:
            continue
        rng = random.Random(zlib.crc32(rel_corpus.encode()))
        quota = PER_OPEN_SOURCE if rel_corpus in OPEN_SOURCES else PER_OTHER_SOURCE
        chosen = sorted(rng.sample(range(len(spans)), min(quota, len(spans))))
        bases = [writer_copy(text[a:b]) for a, b in spans]
        vocab = sorted(
            {
                w
                for b in bases
                for w in _words(b)
                if w.isalpha() and w.islower() and len(w) >= 5 and w not in STOPWORDS
            }
        )
        vocab_set = frozenset(_letters_words(norm))
        vocab_raw = frozenset(_letters_words(text))
        names = sorted(
            {
                w
                for b in bases
                for w in _words(b)[1:]
                if w.isalpha() and w[:1].isupper() and len(w) > 2
            }
        )
        source = "../shared/corpus/" + rel_corpus
        for n, si in enumerate(chosen):
            a, b = spans[si]
            base = bases[si]
            nxt = None
            between = ""
            if si + 1 < len(spans) and 0 <= spans[si + 1][0] - b <= 600:
                nxt = bases[si + 1]
                between = text[b : spans[si + 1][0]]
            far = [j for j in range(len(spans)) if abs(spans[j][0] - a) > 3000]
            prev = spans[si - 2][0] if si >= 2 else (spans[si - 1][0] if si else a)
            ctx = {
                # the two sentences before (the locator's referent rule reads three)
                "before": " ".join(re.split(r"(?<=[.!?])\s+", text[max(prev, a - 600) : a])[-3:]),
                "span": text[a:b],
                "next_sentence": nxt,
                "content_words": vocab,
                "names": names,
                "far_sentence": bases[rng.choice(far)] if far else None,
                "same_paragraph": nxt is not None and not _BLOCK.search(between),
                "between": between,
                "text": text,
                "vocab_set": vocab_set,
                "vocab_raw": vocab_raw,
                "norm": norm,
            }
            stem = f"{path.stem[:24]}-{n:02d}"
            # the kind used least so far that applies to this sentence: every kind is exercised
            for kind, fn in sorted(HONEST, key=lambda kf: (counts.get(kf[0], 0), kf[0])):
                q = fn(base, rng, ctx)
                if q:
                    end = spans[si + 1][1] if kind == "ellipsis_two_sentences" else b
                    expect = normalize_for_match(text[a:end])
                    cases.append(
                        {
                            "id": f"{stem}-h",
                            "source": source,
                            "quote": q,
                            "expect_found": True,
                            "kind": kind,
                            "expect_norm": expect,
                        }
                    )
                    counts[kind] = counts.get(kind, 0) + 1
                    break
            for kind, fn in sorted(ALTERED, key=lambda kf: (counts.get(kf[0], 0), kf[0])):
                q = fn(base, rng, ctx)
                if q and _absent(q, norm, letters):
                    cases.append(
                        {
                            "id": f"{stem}-a",
                            "source": source,
                            "quote": q,
                            "expect_found": False,
                            "kind": kind,
                        }
                    )
                    counts[kind] = counts.get(kind, 0) + 1
                    break
            for kind, fn in sorted(EDIT_HONEST, key=lambda kf: (counts.get(kf[0], 0), kf[0])):
                q = fn(base, rng, ctx)
                if q and q != base:
                    end = spans[si + 1][1] if kind == "ellipsis_two_sentences" else b
                    cases.append(
                        {
                            "id": f"{stem}-eh",
                            "source": source,
                            "quote": q,
                            "expect_found": True,
                            "kind": kind,
                            "expect_norm": normalize_for_match(text[a:end]),
                        }
                    )
                    counts[kind] = counts.get(kind, 0) + 1
                    break
            for round_ in range(2):
                for kind, fn in sorted(EDIT_ALTERED, key=lambda kf: (counts.get(kf[0], 0), kf[0])):
                    q = fn(base, rng, ctx)
                    if not q:
                        continue
                    if kind == "hyphen_added":
                        ok = True  # normalising drops in-word hyphens; e_hyphen read the text
                    elif kind in SAME_LETTERS:
                        ok = _absent_form(q, norm)
                    else:
                        ok = _absent(q, norm, letters)
                    if q and ok:
                        cases.append(
                            {
                                "id": f"{stem}-e{round_}",
                                "source": source,
                                "quote": q,
                                "expect_found": False,
                                "kind": kind,
                            }
                        )
                        counts[kind] = counts.get(kind, 0) + 1
                        break
        marks_quota = 8 if rel_corpus in OPEN_SOURCES else 3
        rng3 = random.Random(zlib.crc32(rel_corpus.encode()) + 2)
        cases.extend(source_mark_cases(text, norm, source, path.stem[:24], marks_quota, rng3))
        rng4 = random.Random(zlib.crc32(rel_corpus.encode()) + 3)
        cases.extend(edge_cases(text, norm, source, path.stem[:24], marks_quota, rng4))
        rng2 = random.Random(zlib.crc32(rel_corpus.encode()) + 1)
        for n, q in enumerate(page_break_quotes(text, ex.page_starts)[:3]):
            stem = f"{path.stem[:24]}-pb{n}"
            cases.append(
                {
                    "id": f"{stem}-h",
                    "source": source,
                    "quote": q,
                    "expect_found": True,
                    "kind": "page_break_header",
                }
            )
            bad = a_word_dropped(q, rng2, {}) or a_number(q, rng2, {})
            if bad and _absent(bad, norm, letters):
                cases.append(
                    {
                        "id": f"{stem}-a",
                        "source": source,
                        "quote": bad,
                        "expect_found": False,
                        "kind": "page_break_altered",
                    }
                )
    return cases


def _letters_words(s: str) -> list[str]:
    return re.findall(r"[^\W\d_]+", s.lower())


def _letters(s: str) -> str:
    return re.sub(r"[\W_]+", "", s).lower()


def _absent(quote: str, norm: str, norm_letters: str) -> bool:
    """An altered quote must not be in the source in any form the locator may accept (even
    differing in punctuation, spacing or case only)."""
    q = normalize_for_match(quote.replace("...", " ")).strip(".,;:'\" ")
    if not q:
        return False
    if q in norm or (q[:1].swapcase() + q[1:]) in norm:
        return False
    return _letters(q) not in norm_letters


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--out", type=Path, default=REPO / "tests" / "data" / "locate_cases.jsonl")
    args = ap.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}", file=sys.stderr)
        return 2
    cases = build_cases(args.corpus)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as fh:
        for c in cases:
            fh.write(json.dumps(c, ensure_ascii=False) + "\n")
    kinds: dict[str, int] = {}
    for c in cases:
        kinds[c["kind"]] = kinds.get(c["kind"], 0) + 1
    print(f"{len(cases)} cases -> {args.out}", file=sys.stderr)
    for k, v in sorted(kinds.items()):
        print(f"  {k:28} {v}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
