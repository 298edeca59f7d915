"""``citeledger locate``: the locator on its own, one quote or a batch of labelled cases.

A batch reads JSON lines (``id``, ``source`` — a path to a .html, .pdf or .txt file —, ``quote``,
optionally ``expect_found`` and ``kind``) and writes one JSON line per case: ``id``, ``found``,
``match``, ``char_start``, ``char_end``, ``page``, ``source_quote``, ``score``, plus
``differences``, ``candidate`` and ``ambiguous``. Each source is extracted and prepared once per
batch. ``score_cases`` turns results and labels into per-kind accuracy, false accepts and recall:
the figures the locator is held to (zero false accepts).

Must never: touch the network; write anywhere but the stream it is given; print from library
functions (only ``main``, the command's edge, writes to stdout).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from citeledger.errors import CiteledgerError
from citeledger.inert import visible
from citeledger.inputs import read_text
from citeledger.locate.locator import locate_prepared, prepare
from citeledger.locate.normalize import Prepared
from citeledger.model import Extracted, LocateResult


def extract_path(path: Path) -> Extracted:
    """The extracted text of a local file, by the project's extractor (as ``verify`` sees it)."""
    from citeledger.extract.dispatch import extract_file

    return extract_file(path)


def result_record(case_id: Any, res: LocateResult, extracted: Extracted) -> dict[str, Any]:
    """One output line: the contract of ``locate --batch`` (design.md)."""
    page = extracted.page_of(res.char_start) if res.char_start is not None else None
    return {
        "id": case_id,
        "found": res.found,
        "match": res.match,
        "char_start": res.char_start,
        "char_end": res.char_end,
        "page": page,
        "source_quote": res.source_quote,
        "score": res.score,
        "ambiguous": res.ambiguous,
        "differences": list(res.differences),
        "candidate": res.candidate,
        "reason": res.reason,
    }


def run_single(source_path: str | Path, quote: str) -> dict[str, Any]:
    """Locate one quote in one file."""
    path = Path(source_path)
    if not path.is_file():
        raise CiteledgerError(
            f"no such source file: {path}", file=str(path), fix="give a .html, .pdf or .txt path"
        )
    ex = extract_path(path)
    res = locate_prepared(prepare(ex.text), quote, page_starts=ex.page_starts)
    return result_record(None, res, ex)


@dataclass
class _SourceCache:
    """Extracted text and its preparation, once per source file per batch."""

    bases: Sequence[Path]
    items: dict[str, tuple[Extracted, Prepared] | CiteledgerError] = field(default_factory=dict)

    def resolve(self, source: str) -> Path:
        p = Path(source)
        if p.is_absolute():
            return p
        for base in self.bases:
            if (base / p).is_file():
                return base / p
        return self.bases[0] / p

    def get(self, source: str) -> tuple[Extracted, Prepared]:
        got = self.items.get(source)
        if got is None:
            path = self.resolve(source)
            try:
                if not path.is_file():
                    raise CiteledgerError(f"no such source file: {source}", file=str(path))
                ex = extract_path(path)
                got = (ex, prepare(ex.text))
            except CiteledgerError as err:
                got = err
            self.items[source] = got
        if isinstance(got, CiteledgerError):
            raise got
        return got


def read_cases(cases_path: str | Path) -> list[dict[str, Any]]:
    path = Path(cases_path)
    cases = []
    fix = "give a JSON Lines file: one object per line with id, source and quote"
    lines = read_text(path, "the cases file", fix).splitlines()
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            case = json.loads(line)
        except json.JSONDecodeError as err:
            raise CiteledgerError(
                f"not a JSON object: {err.msg}",
                file=str(path),
                line=n,
                fix="one JSON object per line with id, source and quote",
            ) from err
        if (
            not isinstance(case, dict)
            or not isinstance(case.get("quote"), str)
            or not isinstance(case.get("source"), str)
        ):
            raise CiteledgerError(
                "a case needs a string 'source' and a string 'quote'", file=str(path), line=n
            )
        cases.append(case)
    return cases


def locate_cases(
    cases: Iterable[Mapping[str, Any]], bases: Sequence[Path]
) -> Iterable[dict[str, Any]]:
    """Results in case order; a source that cannot be read gives ``found: false`` + ``error``."""
    cache = _SourceCache(bases=list(bases))
    for case in cases:
        try:
            ex, prep = cache.get(str(case["source"]))
        except CiteledgerError as err:
            yield {
                "id": case.get("id"),
                "found": False,
                "match": None,
                "char_start": None,
                "char_end": None,
                "page": None,
                "source_quote": None,
                "score": None,
                "error": str(err),
            }
            continue
        res = locate_prepared(prep, str(case["quote"]), page_starts=ex.page_starts)
        yield result_record(case.get("id"), res, ex)


def run_batch(
    cases_path: str | Path, out_stream: IO[str], *, base: str | Path | None = None
) -> list[dict[str, Any]]:
    """Locate every case of a JSON-lines file, writing one JSON line per case to ``out_stream``.

    A relative ``source`` is looked up in ``base`` (default: the working directory), then beside
    the cases file and in its parent folders, so the repository's labelled set runs from
    anywhere inside the repository.
    """
    cp = Path(cases_path).resolve()
    bases = [Path(base) if base is not None else Path.cwd(), *cp.parents]
    results = []
    for rec in locate_cases(read_cases(cp), bases):
        out_stream.write(json.dumps(rec, ensure_ascii=False) + "\n")
        results.append(rec)
    return results


@dataclass(frozen=True)
class KindScore:
    kind: str
    expect_found: bool
    total: int
    correct: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 1.0


@dataclass(frozen=True)
class Scores:
    kinds: tuple[KindScore, ...]
    false_accepts: tuple[str, ...]  # ids of altered quotes reported found: the worst bug
    misses: tuple[str, ...]  # ids of honest quotes refused
    honest: int
    altered: int
    unresolved: tuple[str, ...] = ()  # ids whose source could not be read

    @property
    def recall(self) -> float:
        return (self.honest - len(self.misses)) / self.honest if self.honest else 1.0

    def lines(self) -> list[str]:
        out = [f"{'kind':32} {'expect':>6} {'n':>5} {'correct':>8} {'acc':>7}"]
        for k in self.kinds:
            out.append(
                f"{k.kind:32} {('found' if k.expect_found else 'refuse'):>6} {k.total:5d} "
                f"{k.correct:8d} {k.accuracy:7.1%}"
            )
        out.append(
            f"honest: {self.honest}, recall {self.recall:.2%} ({len(self.misses)} missed); "
            f"altered: {self.altered}, false accepts {len(self.false_accepts)}"
        )
        if self.unresolved:
            out.append(f"skipped (source unreadable): {len(self.unresolved)}")
        return out


def score_cases(
    results: Iterable[Mapping[str, Any]],
    cases: Iterable[Mapping[str, Any]],
    out: IO[str] | None = None,
) -> Scores:
    """Per-kind accuracy, false accepts (altered quotes found) and recall (honest quotes found);
    written as a table to ``out`` when one is given."""
    by_id = {r.get("id"): r for r in results}
    table: dict[tuple[str, bool], list[int]] = {}
    fa: list[str] = []
    miss: list[str] = []
    unresolved: list[str] = []
    honest = altered = 0
    for c in cases:
        if "expect_found" not in c:
            continue
        r = by_id.get(c.get("id"))
        if r is None or "error" in r:
            unresolved.append(str(c.get("id")))
            continue
        want = bool(c["expect_found"])
        got = bool(r.get("found"))
        cell = table.setdefault((str(c.get("kind", "?")), want), [0, 0])
        cell[0] += 1
        cell[1] += got == want
        if want:
            honest += 1
            if not got:
                miss.append(str(c.get("id")))
        else:
            altered += 1
            if got:
                fa.append(str(c.get("id")))
    kinds = tuple(
        KindScore(kind, want, n, ok)
        for (kind, want), (n, ok) in sorted(table.items(), key=lambda kv: (not kv[0][1], kv[0][0]))
    )
    scores = Scores(kinds, tuple(fa), tuple(miss), honest, altered, tuple(unresolved))
    if out is not None:
        for line in scores.lines():
            out.write(visible(line) + "\n")
    return scores


def main(args: Any) -> int:
    """The command's edge: ``citeledger locate SOURCE QUOTE`` or ``--batch CASES [--score]``."""
    if getattr(args, "batch", None):
        out_path = getattr(args, "out", None)
        cases = read_cases(args.batch)
        if out_path:
            with open(out_path, "w", encoding="utf-8") as fh:
                results = run_batch(args.batch, fh)
        else:
            results = run_batch(args.batch, sys.stdout)
        if getattr(args, "score", False):
            # the table goes to stderr: stdout may be the JSON lines
            scores = score_cases(results, cases, out=sys.stderr)
            return 1 if scores.false_accepts else 0
        return 0
    if not getattr(args, "source", None) or getattr(args, "quote", None) is None:
        raise CiteledgerError(
            "locate needs SOURCE and QUOTE, or --batch CASES.jsonl",
            fix="citeledger locate paper.pdf 'the quoted words'",
        )
    rec = run_single(args.source, args.quote)
    print(json.dumps(rec, ensure_ascii=False, indent=2))
    return 0 if rec["found"] else 1
