#!/usr/bin/env python3
"""How fast the locator is, as ratios against two references.

Workload (the issue's target): 1,000 quotes over 1,000 texts of ~100 KB each, one quote per text.
Texts are 100 KB windows of the extracted corpus (../shared/corpus: text, HTML, PDF); without the
corpus, seeded synthetic prose. Each quote is a sentence of its text (8–40 words) given one honest
reformatting (newlines, smart quotes, ligatures, soft hyphens, first-letter case, hyphenation,
NBSP, an ellipsis, or none).

References:
  (a) the floor — ``str.find`` of the pre-normalised quote in the pre-normalised text, i.e. what
      locating costs once normalisation is free; ``locate_prepared`` is measured on the same
      prepared texts, so the ratio is the locator's own overhead (target: ≤ 3×);
  (b) naive fuzzy — ``rapidfuzz.fuzz.partial_ratio_alignment(quote, whole_text)``; run on a
      subset of texts and extrapolated to the full workload (printed as such).
Also printed: ``prepare`` (normalising a text once, with its offset map) and a second workload of
altered quotes (one number or word changed), which take the fuzzy path to be refused.

Every time is the best of a few repeats per call (garbage collection off). Runs in well under two
minutes on one core:
    .venv/bin/python bench/bench_locate.py            # --texts 1000 --size 100000 --naive 40
    .venv/bin/python bench/bench_locate.py --slowest 10   # and where the time goes
"""

from __future__ import annotations

import argparse
import gc
import random
import re
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from rapidfuzz import fuzz  # noqa: E402

from citeledger.locate.locator import locate_prepared  # noqa: E402
from citeledger.locate.normalize import normalize_for_match, prepare  # noqa: E402
from citeledger.locate.wordlists import clause_joint, first_meaningful  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus"
_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def corpus_pool() -> tuple[str, str]:
    if not CORPUS.is_dir():
        return synthetic_pool(), "synthetic prose (no ../shared/corpus)"
    from citeledger.cli.locate import extract_path

    parts = []
    for d in ("text", "pdf", "html"):
        for p in sorted((CORPUS / d).glob("*")):
            try:
                parts.append(extract_path(p).text)
            except Exception:  # a source the extractor refuses is left out of the pool
                continue
    return "\n\n".join(parts), f"{len(parts)} extracted corpus documents"


def synthetic_pool(size: int = 3_000_000) -> str:
    rng = random.Random(1)
    words = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 10)))
        for _ in range(5000)
    ]
    out, n = [], 0
    while n < size:
        s = " ".join(rng.choice(words) for _ in range(rng.randint(8, 30)))
        s = s[0].upper() + s[1:] + ". "
        out.append(s)
        n += len(s)
    return "".join(out)


def pick_sentence(text: str, rng: random.Random) -> str | None:
    a = rng.randint(len(text) // 10, len(text) * 8 // 10)
    window = text[a : a + 3000]
    for s in _SENT.split(window)[1:-1]:
        w = s.split()
        letters = sum(c.isalpha() for c in s)
        if 8 <= len(w) <= 40 and letters > 0.75 * len(s.replace(" ", "")) and "[" not in s:
            return s
    return None


def honest(s: str, rng: random.Random) -> tuple[str, str]:
    w = s.split()
    kind = rng.choice(
        [
            "exact",
            "exact",
            "reflow",
            "smart",
            "ligature",
            "shy",
            "case",
            "hyphenation",
            "nbsp",
            "ellipsis",
        ]
    )
    if kind == "exact":
        return kind, s
    if kind == "reflow":
        return kind, w[0] + "".join(rng.choice([" ", "\n", "  "]) + x for x in w[1:])
    if kind == "smart":
        return kind, s.replace("'", "\u2019").replace('"', "\u201c")
    if kind == "ligature":
        return kind, s.replace("fi", "\ufb01").replace("fl", "\ufb02")
    if kind == "shy":
        return kind, " ".join(x[:3] + "\u00ad" + x[3:] if len(x) > 7 else x for x in w)
    if kind == "case":
        return kind, s[0].swapcase() + s[1:]
    if kind == "hyphenation":
        return kind, " ".join(x[:4] + "-\n" + x[4:] if len(x) > 9 and x.isalpha() else x for x in w)
    if kind == "nbsp":
        return kind, "\u00a0".join(w)
    cut = None if re.search(r"\n\s*\n", s) else _honest_omission(w)  # one paragraph
    if cut is not None:
        a, b = cut
        return kind, " ".join(w[:a]) + " ... " + " ".join(w[b:])
    return "exact", s


def _honest_omission(w: list[str]) -> tuple[int, int] | None:
    """The widest omission inside the sentence, five words kept on each side, that the rules
    accept (docs/editorial-marks.md: no listed word left out, not one word alone): an honest
    ellipsis."""
    for size in range(len(w) - 10, 1, -1):
        for a in range(5, len(w) - 5 - size + 1):
            b = a + size
            if w[a - 1].endswith("-") or w[b - 1].endswith("-"):
                continue  # a cut inside a word the source hyphenates at a line break
            gap = normalize_for_match(" ".join(w[a - 1 : b + 1]))
            joint = clause_joint(w[a - 1][-1:] + " " + " ".join(w[a:b]))
            if first_meaningful(gap) is None and joint is None:
                return a, b
    return None


def altered(s: str, rng: random.Random) -> str:
    w = s.split()
    nums = [i for i, x in enumerate(w) if any(c.isdigit() for c in x)]
    if nums:
        i = rng.choice(nums)
        w[i] = re.sub(r"\d", lambda m: str((int(m.group()) + 1) % 10), w[i], count=1)
    else:
        i = rng.randrange(1, len(w) - 1)
        w[i] = w[i] + "s" if not w[i].endswith("s") else w[i][:-1]
    return " ".join(w)


def best_of(fn, repeats: int) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="locator benchmark (ratios)")
    ap.add_argument("--texts", type=int, default=1000)
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--naive", type=int, default=40, help="texts for the naive rapidfuzz run")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument(
        "--slowest", type=int, default=0, help="also list the N slowest quotes (profiling aid)"
    )
    args = ap.parse_args(argv)
    started = time.perf_counter()
    pool, origin = corpus_pool()
    if len(pool) < args.size * 2:
        pool = pool + "\n\n" + synthetic_pool(args.size * 3)
    rng = random.Random(args.seed)

    t_prep = t_floor = t_ours = t_floor_alt = t_ours_alt = t_naive = t_naive_floor = 0.0
    t_naive_ours = 0.0
    kinds: Counter[str] = Counter()
    refusals: list[str] = []
    timed: list[tuple[float, float, str, str, str]] = []  # (locate, floor, kind, answer, quote)
    per_kind: dict[str, list[float]] = {}
    matches: Counter[str] = Counter()
    found = refused_alt = n = n_alt = n_naive = 0
    stride = max(1, (len(pool) - args.size) // max(1, args.texts))
    gc.disable()
    try:
        for i in range(args.texts):
            start = (i * stride + rng.randint(0, stride)) % max(1, len(pool) - args.size)
            text = pool[start : start + args.size]
            sentence = None
            for _ in range(5):
                sentence = pick_sentence(text, rng)
                if sentence:
                    break
            if not sentence:
                continue
            t = time.perf_counter()
            prep = prepare(text)
            t_prep += time.perf_counter() - t
            kind, quote = honest(sentence, rng)
            nq = normalize_for_match(quote)
            norm = prep.norm
            floor = best_of(lambda: norm.find(nq), args.repeats)  # noqa: B023
            res = locate_prepared(prep, quote)
            ours = best_of(lambda: locate_prepared(prep, quote), args.repeats)  # noqa: B023
            t_floor += floor
            t_ours += ours
            n += 1
            kinds[kind] += 1
            cell = per_kind.setdefault(kind, [0.0, 0.0, 0.0])
            cell[0] += floor
            cell[1] += ours
            cell[2] += best_of(lambda: norm.find(nq, norm.find(nq) + 1), args.repeats)  # noqa: B023
            matches[res.match or "refused"] += 1
            timed.append((ours, floor, kind, res.match or "refused", quote))
            found += res.found
            if not res.found and len(refusals) < 3:
                refusals.append(f"{kind}: {res.reason} {list(res.differences)[:1]}")
            bad = altered(sentence, rng)
            nb = normalize_for_match(bad)
            t_floor_alt += best_of(lambda: norm.find(nb), args.repeats)  # noqa: B023
            t_ours_alt += best_of(lambda: locate_prepared(prep, bad), 2)  # noqa: B023
            refused_alt += not locate_prepared(prep, bad).found
            n_alt += 1
            if n_naive < args.naive:
                t_naive += best_of(lambda: fuzz.partial_ratio_alignment(quote, text), 1)  # noqa: B023
                t_naive_floor += floor
                t_naive_ours += ours
                n_naive += 1
    finally:
        gc.enable()

    def ms(x: float) -> str:
        return f"{x * 1000:9.1f} ms"

    print(f"locator benchmark: {n} quotes over {n} texts of {args.size // 1000} KB ({origin})")
    print(f"  honest variants: {dict(kinds)}; answers: {dict(matches)}; found {found}/{n}")
    for line in refusals:
        print(f"    refused (the bench's variants are not all honest, e.g.): {line[:150]}")
    print(f"  (a) floor, str.find on pre-normalised text  {ms(t_floor)}")
    print(
        f"      locate_prepared on the same texts       {ms(t_ours)}   "
        f"ratio {t_ours / t_floor:5.2f}x the floor (target <= 3x)"
    )
    both = sum(c[2] for c in per_kind.values())
    print(
        f"      (floor that also checks uniqueness, find + find again: {ms(both).strip()}; "
        f"locate is {t_ours / both:.2f}x that)"
    )
    print(
        "      per kind: "
        + ", ".join(f"{k} {c[1] / c[0]:.1f}x" for k, c in sorted(per_kind.items()))
    )
    naive_total = t_naive * n / max(1, n_naive)
    print(
        f"  (b) naive rapidfuzz partial_ratio_alignment over whole texts: measured on "
        f"{n_naive} texts ({ms(t_naive).strip()}), extrapolated to {n}: {ms(naive_total)}"
    )
    print(
        f"      ratio naive / floor {t_naive / t_naive_floor:7.1f}x;  naive / locate "
        f"{t_naive / t_naive_ours:6.1f}x  (on the same {n_naive} texts)"
    )
    print(
        f"  prepare (normalise + offset map), once per text: {ms(t_prep)} in all, "
        f"{t_prep / max(1, n) * 1000:.2f} ms per text = {n * args.size / t_prep / 1e6:.1f} MB/s;"
        f" {t_prep / t_floor:.0f}x the floor's finds"
    )
    print(f"      end to end (prepare + locate) vs floor: {(t_prep + t_ours) / t_floor:.1f}x")
    print(
        f"  altered quotes (one number/word changed), refused {refused_alt}/{n_alt}: locate "
        f"{ms(t_ours_alt).strip()} vs failing find {ms(t_floor_alt).strip()} = "
        f"{t_ours_alt / t_floor_alt:.1f}x the floor"
    )
    if args.slowest > 0:
        timed.sort(reverse=True)
        top = timed[: args.slowest]
        print(
            f"  the {len(top)} slowest quotes take {sum(t[0] for t in top) / t_ours:.0%} of the "
            f"locate time ({ms(sum(t[0] for t in top)).strip()}):"
        )
        for ours, floor, kind, answer, quote in top:
            print(
                f"    {ours * 1e6:8.1f} us = {ours / floor:6.1f}x its floor  {kind:<11} "
                f"{answer:<10} {quote[:60]!r}"
            )
    print(f"  bench wall time {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
