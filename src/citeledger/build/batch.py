"""``citeledger build``: many pages, one Python process, pandoc run for each page.

A filter process per page pays Python's start and the imports on every page (~0.2 s here,
where pandoc itself takes ~10 ms); a site of hundreds of pages cannot afford it. The batch keeps
one process: each ledger parsed once, each evidence file read and hashed once, one judgement
index saved at the end (``HeldEvidence``), and per page

    pandoc PAGE <reader options, filters before ours> -t json
    → pandoc-citeledger's ``main``, in process (the same code, bytes in and bytes out)
    → pandoc PAGE.json -f json <writer options, filters after ours> -o OUT

The output is byte for byte what ``pandoc PAGE --filter pandoc-citeledger ARGS -o OUT`` writes:
the JSON in between is named after the page (pandoc titles a title-less page by its input's
name), and the format name pandoc would hand the filter is asked of pandoc itself, once per
batch (``_probe_format``). Every pandoc option is sorted into the run it belongs to
(``split_pandoc_args``); what cannot be split faithfully is refused in one line.

Each page is its own build: its own judges and warnings (named by the page), strict fails that
page alone (nothing written, as pandoc writes nothing when its filter fails), output replaced
atomically, and the batch goes on and names the pages that failed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from io import BytesIO, StringIO
from pathlib import Path
from typing import IO, TYPE_CHECKING

from citeledger.atomic import TEMP_PREFIX
from citeledger.build.render import base_format
from citeledger.errors import CiteledgerError
from citeledger.evidence.judgements import JudgementIndex
from citeledger.evidence.store import EvidenceReader
from citeledger.inert import visible
from citeledger.model import Ledger

if TYPE_CHECKING:
    from citeledger.evidence.publish import RenderedPages

#: The names our filter goes by on a pandoc command line (``--filter pandoc-citeledger``).
FILTER_NAMES = ("pandoc-citeledger", "citeledger.py")

# pandoc's options (``pandoc --help``, 3.x) by how they take a value, and by the run they
# belong to. A long option may be abbreviated to any unique prefix, as pandoc's getopt allows.


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_SHORT_VALUE = set("frtwoMdVHBAFLTcD")
_SHORT_OPTIONAL = set("sNpi")  # -s, -strue, -sfalse
_SHORT_FLAG = set("Cvh")
_SHORT_LONG = {
    **dict.fromkeys("fr", "from"),
    **dict.fromkeys("tw", "to"),
    "o": "output",
    "M": "metadata",
    "d": "defaults",
    "V": "variable",
    "H": "include-in-header",
    "B": "include-before-body",
    "A": "include-after-body",
    "F": "filter",
    "L": "lua-filter",
    "T": "title-prefix",
    "c": "css",
    "D": "print-default-template",
    "s": "standalone",
    "N": "number-sections",
    "p": "preserve-tabs",
    "i": "incremental",
    "C": "citeproc",
    "v": "version",
    "h": "help",
}
_LONG_VALUE = _words(
    "from read to write output data-dir metadata metadata-file defaults template variable "
    "variable-json wrap toc-depth number-offset top-level-division extract-media resource-path "
    "include-in-header include-before-body include-after-body highlight-style syntax-definition "
    "syntax-highlighting dpi eol columns tab-stop pdf-engine pdf-engine-opt reference-doc "
    "request-header abbreviations indented-code-classes default-image-extension filter "
    "lua-filter shift-heading-level-by base-header-level track-changes reference-location "
    "figure-caption-position table-caption-position markdown-headings slide-level "
    "email-obfuscation id-prefix title-prefix css epub-subdirectory epub-cover-image "
    "epub-metadata epub-embed-font split-level chunk-template epub-chapter-level ipynb-output "
    "bibliography csl citation-abbreviations log print-default-template "
    "print-default-data-file print-highlight-style"
)
_LONG_OPTIONAL = _words(
    "file-scope sandbox standalone ascii toc table-of-contents lof list-of-figures lot "
    "list-of-tables number-sections self-contained embed-resources link-images "
    "no-check-certificate preserve-tabs strip-comments reference-links list-tables listings "
    "incremental section-divs html-q-tags epub-title-page webtex mathjax katex trace dump-args "
    "ignore-args fail-if-warnings list-extensions"
)
_LONG_FLAG = _words(
    "no-highlight citeproc natbib biblatex mathml gladtex verbose quiet bash-completion "
    "list-input-formats list-output-formats list-highlight-languages list-highlight-styles "
    "version help"
)
_LONG = _LONG_VALUE | _LONG_OPTIONAL | _LONG_FLAG
# the reading run only: what is applied before the filters (reader options, metadata)
_READ = _words(
    "from read metadata metadata-file file-scope preserve-tabs tab-stop abbreviations "
    "indented-code-classes default-image-extension shift-heading-level-by base-header-level "
    "track-changes strip-comments extract-media bibliography csl citation-abbreviations"
)
# both runs: what reading and writing both use
_BOTH = _words(
    "data-dir sandbox resource-path request-header no-check-certificate columns trace verbose "
    "quiet fail-if-warnings"
)
_FILTERS = {"filter", "lua-filter", "citeproc"}
_REFUSED = {
    "output": "give the output folder as `citeledger build -o DIR` (before --)",
    "defaults": "a defaults file may carry filters and outputs the batch cannot place; write "
    "its options out after --",
    "log": "one log file cannot hold many pages; leave --log out",
    "dump-args": "leave it out",
    "ignore-args": "leave it out",
}

#: The extension of each writer's output, for a batch with ``-t`` and no ``--ext``.
EXTENSIONS = {
    "html": ".html",
    "html4": ".html",
    "html5": ".html",
    "latex": ".tex",
    "beamer": ".tex",
    "context": ".tex",
    "markdown": ".md",
    "gfm": ".md",
    "commonmark": ".md",
    "commonmark_x": ".md",
    "markdown_strict": ".md",
    "markdown_phpextra": ".md",
    "markdown_mmd": ".md",
    "plain": ".txt",
    "docx": ".docx",
    "odt": ".odt",
    "epub": ".epub",
    "epub2": ".epub",
    "epub3": ".epub",
    "typst": ".typ",
    "rst": ".rst",
    "org": ".org",
    "asciidoc": ".adoc",
    "json": ".json",
    "native": ".native",
    "pptx": ".pptx",
    "rtf": ".rtf",
    "mediawiki": ".wiki",
    "jats": ".xml",
    "docbook": ".xml",
    "man": ".1",
    "ms": ".ms",
    "texinfo": ".texi",
    "ipynb": ".ipynb",
}


@dataclass
class PandocSplit:
    """The user's pandoc arguments, sorted into the two runs around our filter."""

    read: list[str] = field(default_factory=list)  # pandoc PAGE <read> -t json
    write: list[str] = field(default_factory=list)  # pandoc PAGE.json -f json <write> -o OUT
    to: str | None = None  # the writer named by -t/--to, without its extensions
    metadata: list[str] = field(default_factory=list)  # the -M values, as given


def _pandoc_error(what: str, fix: str) -> CiteledgerError:
    return CiteledgerError(f"pandoc arguments: {what}", fix=fix)


def _long_name(given: str) -> str:
    """The option a long name (or unique prefix of one) means, as pandoc's getopt reads it."""
    if given in _LONG:
        return given
    matches = sorted(name for name in _LONG if name.startswith(given))
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise _pandoc_error(
            f"--{given} is ambiguous ({', '.join('--' + m for m in matches)})",
            fix="write the option in full",
        )
    raise _pandoc_error(
        f"unknown option --{given}",
        fix="citeledger build must know which pandoc run each option belongs to; check "
        "`pandoc --help`",
    )


def _options(args: Sequence[str]) -> list[tuple[str, str | None, list[str]]]:
    """Each option as (long name, value, its words on the command line)."""
    out: list[tuple[str, str | None, list[str]]] = []
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word.startswith("--") and len(word) > 2:
            name, eq, value = word[2:].partition("=")
            name = _long_name(name)
            if name in _LONG_VALUE and not eq:
                if i >= len(args):
                    raise _pandoc_error(f"--{name} needs a value", fix=f"give --{name}=VALUE")
                value = args[i]
                i += 1
                out.append((name, value, [word, value]))
            elif name in _LONG_FLAG and eq:
                raise _pandoc_error(f"--{name} takes no value", fix=f"write --{name} alone")
            else:
                out.append((name, value if eq else None, [word]))
        elif word.startswith("-") and len(word) > 1:
            letter, rest = word[1], word[2:]
            if letter in _SHORT_VALUE:
                if not rest:
                    if i >= len(args):
                        raise _pandoc_error(f"-{letter} needs a value", fix=f"give -{letter} VALUE")
                    rest = args[i]
                    i += 1
                    out.append((_SHORT_LONG[letter], rest, [word, rest]))
                else:
                    out.append((_SHORT_LONG[letter], rest, [word]))
            elif letter in _SHORT_OPTIONAL or (letter in _SHORT_FLAG and not rest):
                out.append((_SHORT_LONG[letter], rest or None, [word]))
            else:
                raise _pandoc_error(
                    f"cannot read {word}",
                    fix="give each short option on its own (-s -N, not -sN); see `pandoc --help`",
                )
        else:
            raise _pandoc_error(
                f"{word} is not an option",
                fix="name the pages before --; after -- go pandoc's options only",
            )
    return out


def is_our_filter(value: str) -> bool:
    return Path(value).name in FILTER_NAMES


def split_pandoc_args(args: Sequence[str]) -> PandocSplit:
    """Sort pandoc's options into the reading run and the writing run.

    Our filter stands where ``--filter pandoc-citeledger`` stands, else before every other
    filter (as ``pandoc --filter pandoc-citeledger --citeproc …`` orders them). ``--citeproc``
    may come before it; a JSON or Lua filter may not, since in the reading run it would be told
    the format ``json``, not the output's."""
    split = PandocSplit()
    parsed = _options(args)
    ours = [
        n
        for n, (name, value, _) in enumerate(parsed)
        if name == "filter" and is_our_filter(value or "")
    ]
    if len(ours) > 1:
        raise _pandoc_error(
            "--filter pandoc-citeledger is given twice", fix="give it once: it runs once a page"
        )
    at = ours[0] if ours else -1
    for n, (name, value, words) in enumerate(parsed):
        if name in _REFUSED:
            raise _pandoc_error(f"--{name} cannot be used in a batch", fix=_REFUSED[name])
        if name.startswith(("list-", "print-")) or name in ("version", "help", "bash-completion"):
            raise _pandoc_error(f"--{name} builds nothing", fix="run it with pandoc alone")
        if n == at:
            continue
        if name in _FILTERS:
            if n > at:
                split.write += words
            elif name == "citeproc":
                split.read += words
            else:
                raise _pandoc_error(
                    f"--{name} {value} comes before --filter pandoc-citeledger",
                    fix="put it after --filter pandoc-citeledger, or build with pandoc alone: "
                    "before it, a filter would see the format json",
                )
        elif name in _READ:
            split.read += words
            if name == "metadata" and value is not None:
                split.metadata.append(value)
        elif name in _BOTH:
            split.read += words
            split.write += words
        else:
            split.write += words
            if name == "to" and value:
                split.to = base_format(value) or value
    return split


def _probe_format(pandoc: str, write: Sequence[str], suffix: str) -> str:
    """The format name pandoc gives a filter for this output (``html`` for ``-t html5``? no:
    ``html5``; ``latex`` for a PDF), asked of pandoc with a filter that writes it down and stops
    the run before any writer (or PDF engine) starts."""
    with tempfile.TemporaryDirectory(prefix="citeledger-build-") as tmp:
        folder = Path(tmp)
        probe, said = folder / "probe", folder / "format"
        probe.write_text(f'#!/bin/sh\nprintf %s "$1" > "{said}"\nexit 1\n')
        probe.chmod(0o700)
        (folder / "empty.md").write_bytes(b"")
        # first of the filters: it stops the run before any of the user's runs on nothing
        cmd = [pandoc, str(folder / "empty.md"), "--filter", str(probe), *write]
        cmd += ["-o", str(folder / f"out{suffix}")]
        try:
            proc = subprocess.run(cmd, capture_output=True, check=False)
        except OSError as exc:
            raise CiteledgerError(
                f"cannot run pandoc ({pandoc}): {exc.strerror or exc}",
                fix="install pandoc, or name it with --pandoc PATH",
            ) from exc
        if said.exists():
            return said.read_text()
        last = proc.stderr.decode(errors="replace").strip().splitlines()
        raise _pandoc_error(
            f"pandoc refused them: {last[-1] if last else f'exit {proc.returncode}'}",
            fix="check the options after -- with pandoc alone",
        )


class _BatchIndex(JudgementIndex):
    """The judgement index of a batch: saved once, at the end, not after every page."""

    def save(self) -> None:
        pass

    def save_now(self) -> None:
        super().save()


class HeldEvidence:
    """What the pages of one batch share: each ledger parsed once, each evidence store read
    through one reader (each file read and hashed once), one index saved at the end.

    A batch is one build, as one filter run is: the evidence is taken as it was when first
    read, a verdict one page judged is the index entry the next page finds (as the next of
    many single builds would find it on disk), and each evidence page is rendered once
    (``RenderedPages``). Judges, their warnings and their per-build caches stay each page's
    own (``LedgerJudges(held=…)`` makes fresh ones for every page)."""

    def __init__(self) -> None:
        self.ledgers: dict[tuple[Path, str], Ledger] = {}
        self._stores: dict[str, tuple[EvidenceReader, _BatchIndex]] = {}
        self._rendered: RenderedPages | None = None

    @property
    def rendered(self) -> RenderedPages:
        """The batch's evidence pages, each rendered once (made when a page first needs one:
        the page renderer is not loaded for a site without evidence pages)."""
        if self._rendered is None:
            from citeledger.evidence.publish import RenderedPages

            self._rendered = RenderedPages()
        return self._rendered

    def evidence(self, root: str) -> tuple[EvidenceReader, _BatchIndex]:
        held = self._stores.get(root)
        if held is None:
            index = JudgementIndex.open(root)  # sealed by this machine's key, or off
            held = self._stores[root] = (
                EvidenceReader(root),
                _BatchIndex(index.root, index.secret),
            )
        return held

    def save(self) -> None:
        for _, index in self._stores.values():
            index.save_now()


@dataclass(frozen=True)
class Page:
    source: Path
    out: Path


@dataclass
class PageResult:
    page: Page
    code: int  # 0 written; 1 strict failed it; 2 anything else failed it
    log: str  # pandoc's stderr and our lines, in the order a single pandoc run prints them


def plan_pages(pages: Sequence[str], out_dir: str | None, base: str | None, ext: str) -> list[Page]:
    """Each page's output: its path under ``base`` moved to ``out_dir``, with ``ext``."""
    base_dir = Path(base or ".")
    out_root = Path(out_dir) if out_dir is not None else base_dir
    planned: list[Page] = []
    seen: dict[Path, Path] = {}
    for name in pages:
        if name == "-":
            raise CiteledgerError(
                "a batch cannot read a page from standard input", fix="name the page's file"
            )
        source = Path(name)
        if not source.is_file():
            raise CiteledgerError(f"no page at {name}", fix="name an existing file")
        try:
            rel = Path(os.path.relpath(source, base_dir))
        except ValueError:
            rel = Path("..")
        if rel.parts and rel.parts[0] == "..":
            raise CiteledgerError(
                f"{name} is not inside --base {base_dir}",
                fix="give a --base folder that holds every page",
            )
        out = out_root / rel.with_suffix(ext)
        if out.resolve() == source.resolve():
            raise CiteledgerError(
                f"{name} would be written over by its own output", fix="give -o DIR or --ext"
            )
        if out in seen:
            raise CiteledgerError(
                f"{name} and {seen[out]} would both be written to {out}",
                fix="give pages of different names",
            )
        seen[out] = source
        planned.append(Page(source, out))
    return planned


def output_extension(ext: str | None, split: PandocSplit) -> str:
    if ext:
        return ext if ext.startswith(".") else "." + ext
    if split.to is None:
        return ".html"
    known = EXTENSIONS.get(split.to)
    if known is None:
        raise CiteledgerError(
            f"no known file extension for -t {split.to}", fix="give one with --ext EXT"
        )
    return known


@dataclass
class Batch:
    """One ``citeledger build``: the pandoc runs' arguments and what the pages share."""

    pandoc: str
    split: PandocSplit
    fmt: str
    env: dict[str, str]
    evidence_pages: str | None = None
    held: HeldEvidence = field(default_factory=HeldEvidence)
    lock: threading.Lock = field(default_factory=threading.Lock)  # the filter: one page at once
    tmp: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="citeledger-build-")))
    mode: int = 0o644

    def environ(self, page: Page) -> dict[str, str]:
        """The filter's environment for a page: with ``--evidence-pages``, the folder and the
        link to it from the page's output folder (metadata, a ``-M``, still wins)."""
        if self.evidence_pages is None:
            return self.env
        link = os.path.relpath(self.evidence_pages, page.out.parent or ".")
        return {
            **self.env,
            "CITELEDGER_EVIDENCE_PAGES": self.evidence_pages,
            "CITELEDGER_EVIDENCE_LINK": Path(link).as_posix(),
        }

    def build(self, page: Page) -> PageResult:
        log = StringIO()
        name = str(page.source)
        try:
            return self._build(page, log)
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename else ""
            log.write(visible(f"[ERROR] citeledger: {name}: {exc.strerror or exc}{where}") + "\n")
            return PageResult(page, 2, log.getvalue())

    def _build(self, page: Page, log: StringIO) -> PageResult:
        name = str(page.source)
        path = name if not name.startswith("-") else f"./{name}"  # not an option to pandoc
        ast_bytes = self._pandoc(
            [path, *self.split.read, "-t", "json"], log, f"{name}: pandoc failed reading it"
        )
        if ast_bytes is None:
            return PageResult(page, 2, log.getvalue())
        from citeledger.build.filter import LedgerJudges, main

        out, err = BytesIO(), StringIO()
        with self.lock:
            code = main(
                [self.fmt],
                stdin=BytesIO(ast_bytes),
                stdout=out,
                stderr=err,
                judge_factory=LedgerJudges(held=self.held),
                environ=self.environ(page),
            )
        log.write(_named(err.getvalue(), name))
        if code != 0:
            return PageResult(page, 1 if code == 1 else 2, log.getvalue())
        folder = self.tmp / str(threading.get_ident())  # one a worker: pages' names may repeat
        folder.mkdir(exist_ok=True)
        ast = folder / (page.source.stem + ".json")  # a title-less page is titled by it
        ast.write_bytes(out.getvalue())
        page.out.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=page.out.parent, prefix=TEMP_PREFIX, suffix=page.out.suffix)
        os.close(fd)
        try:
            written = [str(ast), "-f", "json", *self.split.write, "-o", temp]
            if self._pandoc(written, log, f"{name}: pandoc failed writing {page.out}") is None:
                return PageResult(page, 2, log.getvalue())
            os.chmod(temp, _mode_of(page.out, self.mode))
            os.replace(temp, page.out)
        finally:
            Path(temp).unlink(missing_ok=True)
            ast.unlink(missing_ok=True)
        return PageResult(page, 0, log.getvalue())

    def _pandoc(self, args: list[str], log: StringIO, what: str) -> bytes | None:
        """One pandoc run: its stdout, or None (its failure logged) when it failed."""
        # pandoc inherits this process's environment: passing a copy would encode it every run
        proc = subprocess.run([self.pandoc, *args], capture_output=True, check=False)
        log.write(proc.stderr.decode(errors="replace"))
        if proc.returncode != 0:
            log.write(visible(f"[ERROR] citeledger: {what}") + "\n")
            return None
        return proc.stdout


def _mode_of(out: Path, default: int) -> int:
    """An existing output keeps its mode, as pandoc writing over it would; a new one gets the
    umask's."""
    try:
        return out.stat().st_mode & 0o7777
    except OSError:
        return default


def _named(text: str, page: str) -> str:
    """The filter's lines with the page named: ``[WARNING] citeledger: PAGE: …``."""
    lines = []
    for line in text.splitlines(keepends=True):
        for head in ("[WARNING] citeledger: ", "[ERROR] citeledger: "):
            if line.startswith(head):
                line = head + visible(page) + ": " + line[len(head) :]
                break
        lines.append(line)
    return "".join(lines)


def _cpus() -> int:
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


def _umask_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def run_build(
    pages: Sequence[str],
    pandoc_args: Sequence[str],
    *,
    out_dir: str | None = None,
    base: str | None = None,
    ext: str | None = None,
    jobs: int | None = None,
    pandoc: str | None = None,
    evidence_pages: str | None = None,
    stderr: IO[str],
) -> int:
    """Build every page; 0 when all were written, else 1 (only strict failures) or 2, with a
    last line naming the pages that failed. Raises ``CiteledgerError`` for a bad invocation,
    before any page is built."""
    split = split_pandoc_args(pandoc_args)
    if evidence_pages is not None and any(
        m.startswith(("citeledger.evidence-pages", "citeledger.evidence-link"))
        for m in split.metadata
    ):
        raise CiteledgerError(
            "--evidence-pages and -M citeledger.evidence-pages/-link both given",
            fix="give the folder once: --evidence-pages DIR computes each page's link",
        )
    planned = plan_pages(pages, out_dir, base, output_extension(ext, split))
    exe = pandoc or os.environ.get("PANDOC") or shutil.which("pandoc") or "pandoc"
    fmt = _probe_format(exe, split.write, planned[0].out.suffix if planned else ".html")
    batch = Batch(exe, split, fmt, dict(os.environ), evidence_pages, mode=_umask_mode())
    failed: list[PageResult] = []
    pool = ThreadPoolExecutor(max_workers=max(1, jobs or _cpus()))
    try:
        for result in pool.map(batch.build, planned):
            stderr.write(result.log)  # a page's lines together, in the order of the pages
            stderr.flush()
            if result.code:
                failed.append(result)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # an interrupt: no page left half-done
        shutil.rmtree(batch.tmp, ignore_errors=True)
        batch.held.save()
    if not failed:
        return 0
    names = ", ".join(visible(str(r.page.source)) for r in failed)
    stderr.write(
        f"citeledger: error: {len(failed)} of {len(planned)} pages failed (not written): {names}\n"
    )
    return max(r.code for r in failed)
