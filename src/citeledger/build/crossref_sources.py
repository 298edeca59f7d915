"""The build's side of ``citations.sourced_crossrefs``: which prefixed keys are sources — of
the ledger, or of the document's bibliography (its ``bibliography`` files and ``references``
entries: citeproc renders those too, and one not in the ledger is then ``not-in-ledger``) — and
what it says of a key that is a source and a label both.

Kept out of the filter's main path: asked only when a document has a key like ``@sec-2020``,
and then files are searched as bytes before any ledger is loaded, so a document full of
``@fig-x`` references costs a file read or two.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from citeledger.build.bib_ids import BIB_LIMIT, Unreadable, ids_in, spelled
from citeledger.build.crossref import label_warning
from citeledger.build.options import Options
from citeledger.inputs import file_kind, read_regular
from citeledger.model import Judgement, State


def ledger_sources(options: Options, factory: Any) -> Callable[[Collection[str]], Collection[str]]:
    """Which of some keys are sources of the build's ledger, by its parsed (decoded) keys.
    ``factory``: the filter's judge factory (``LedgerJudges``), which loads, confines and
    caches ledgers. No ledger, no sources: its warning is the citations' to give.

    The load is skipped only when the ledger's bytes cannot spell a key: none of the keys'
    bytes and no ``\\`` (a YAML escape, ``"sec\\x2d2020"``, decodes to ``sec-2020``)."""

    def sources(keys: Collection[str]) -> Collection[str]:
        if not options.ledger_from_document:  # a document's own ledger is confined first
            try:
                data = read_regular(options.ledger_path(getattr(factory, "cwd", None)))
            except OSError:
                return ()
            if b"\\" not in data and not spelled(data, keys):
                return ()
        ledger = getattr(factory(options), "ledger", None)
        return [key for key in keys if ledger is not None and key in ledger.sources]

    return sources


class Unsure(frozenset[str]):
    """Keys some lookup found, and ``unsure``: the keys it could not rule out, with why
    (``unread``: each bibliography it could not read, and the reason)."""

    unsure: frozenset[str]
    unread: tuple[tuple[str, str], ...]

    def __new__(
        cls,
        found: Iterable[str],
        unsure: Iterable[str] = (),
        unread: Iterable[tuple[str, str]] = (),
    ) -> Unsure:
        made = super().__new__(cls, found)
        made.unsure = frozenset(unsure) - made
        made.unread = tuple(unread)
        return made


def bibliography_sources(
    meta: Mapping[str, Any], folders: Sequence[Path]
) -> Callable[[Collection[str]], Collection[str]]:
    """Which of some keys are entries of the document's bibliography: its ``references``
    metadata, or a ``bibliography`` file (BibTeX/BibLaTeX, CSL JSON or YAML…, ``bib_ids``)
    found as pandoc finds it: in the document's ``resource-path`` metadata, else in one of
    ``folders`` (the working directory, the document's folder when known).

    A file that cannot be found or read (a URL, a FIFO, unparsable) makes every key it might
    hold ``unsure`` (``Unsure``): not known to be a cross-reference."""

    def sources(keys: Collection[str]) -> Collection[str]:
        found = {key for key in keys if key in _reference_ids(meta.get("references"))}
        unread = []
        for name in meta_strings(meta.get("bibliography")):
            rest = set(keys) - found
            if not rest:
                break
            try:
                found |= _bibliography_ids(name, _folders(meta, folders), rest)
            except Unreadable as e:
                unread.append((name, str(e)))
        return Unsure(found, set(keys) if unread else (), unread)

    return sources


def _folders(meta: Mapping[str, Any], folders: Sequence[Path]) -> list[Path]:
    """Where a relative bibliography name is looked for: the ``resource-path`` metadata's
    folders (``.:sub`` or a list; relative to the first of ``folders``), then ``folders``."""
    base = folders[0] if folders else Path.cwd()
    named = [part for s in meta_strings(meta.get("resource-path")) for part in s.split(":")]
    return [*(base / p for p in named if p), *folders]


def _bibliography_ids(name: str, folders: Sequence[Path], keys: Collection[str]) -> set[str]:
    """Which of ``keys`` the bibliography ``name`` holds, in every one of ``folders`` it is in:
    pandoc may read any of them (its ``--resource-path`` option is not the filter's to see), so
    a key any of them holds is a source. ``Unreadable`` when one is no file the filter can read
    (pandoc may still: a URL, a folder of its ``--resource-path``)."""
    if "://" in name:
        raise Unreadable("a URL: the build never fetches anything")
    path = Path(name).expanduser()
    found: set[str] = set()
    read: set[Path] = set()
    for candidate in [path] if path.is_absolute() else [f / path for f in folders]:
        if found >= set(keys):
            break
        if file_kind(candidate) == "missing" or (real := _real(candidate)) in read:
            continue
        read.add(real)
        try:
            data = read_regular(candidate, limit=BIB_LIMIT)  # never a FIFO, a device, a runaway
        except OSError as e:
            raise Unreadable(f"{candidate}: {e.strerror or e}") from None
        found |= ids_in(name, data, set(keys) - found)
    if read:
        return found
    where = ", ".join(str(f) for f in folders) if not path.is_absolute() else str(path)
    raise Unreadable(f"not found in {where}")


def _real(path: Path) -> Path:
    """One name for one file: the same file reached from two folders is read once."""
    try:
        return path.resolve()
    except OSError:
        return path


def meta_strings(value: Any) -> list[str]:
    """A metadata value's non-empty strings (a MetaString, MetaInlines, or a list of them), each
    read as pandoc reads it (``references.meta_text``): the file names of ``bibliography:``,
    the folders of ``resource-path``."""
    from citeledger.build.references import meta_text

    if isinstance(value, dict) and value.get("t") == "MetaList" and isinstance(value["c"], list):
        return [s for item in value["c"] for s in meta_strings(item)]
    return [text] if (text := meta_text(value)) else []


def _reference_ids(value: Any) -> set[str]:
    """The ``id`` of each entry of a ``references`` metadata list (read as ``references`` reads
    it when it merges the ledger's entries)."""
    from citeledger.build.references import ref_id

    if not isinstance(value, dict) or value.get("t") != "MetaList":
        return set()
    return {i for entry in value.get("c") or [] if isinstance(entry, dict) and (i := ref_id(entry))}


def any_source(*lookups: Callable[[Collection[str]], Collection[str]]) -> AnySource:
    """The keys any of ``lookups`` knows, each asked only for the keys the ones before lacked."""
    return AnySource(*lookups)


class AnySource:
    """``any_source``'s lookup; ``answer``: what it last said (an ``Unsure``: the keys no
    lookup could rule out, and the bibliographies it could not read)."""

    def __init__(self, *lookups: Callable[[Collection[str]], Collection[str]]) -> None:
        self.lookups = lookups
        self.answer = Unsure(())

    def __call__(self, keys: Collection[str]) -> Collection[str]:
        found: set[str] = set()
        unsure: set[str] = set()
        unread: list[tuple[str, str]] = []
        for lookup in self.lookups:
            rest = set(keys) - found
            if not rest:
                break
            got = lookup(rest)
            found.update(got)
            if isinstance(got, Unsure):
                unsure |= got.unsure
                unread += got.unread
        self.answer = Unsure(found, unsure, unread)
        return self.answer


def _both(key: str) -> str:
    return (
        f"@{key} is a source and also a label this document defines ({{#{key}}}): a "
        "cross-reference filter may read it as either, so it is not counted as checked here. "
        f"Rename the label (e.g. {{#{key}-x}}) or the source's key."
    )


@dataclass(frozen=True)
class CrossrefNotes:
    """What the filter says of the prefixed keys it read: ``labels``, the keys that are sources
    and labels both; ``unsure``, the keys judged as citations because a bibliography the filter
    could not read might hold them (``unread``: each such file and why)."""

    labels: Sequence[str] = ()
    unsure: frozenset[str] = frozenset()
    unread: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(
        cls, labels: Sequence[str], answer: Collection[str], cited: Iterable[str]
    ) -> CrossrefNotes:
        """The notes of a ``sourced_crossrefs`` run: its labels, and of the ``cited`` keys
        those the lookups' ``answer`` was unsure of."""
        if not isinstance(answer, Unsure):
            return cls(labels)
        return cls(labels, answer.unsure & frozenset(cited), answer.unread)

    def judged(self, judgement: Judgement) -> Judgement:
        """A key the filter could not tell from a cross-reference, not in the ledger: its
        breakdown says so first, and names the bibliography it could not read. A key that is a
        source and a label both is never shown checked: a cross-reference filter after this
        one may read it as the label, so the reader is told, at the citation."""
        key = judgement.key
        if key in self.labels:
            state = State.UNCHECKED if judgement.state is State.CHECKED else judgement.state
            return replace(judgement, state=state, reasons=(_both(key), *judgement.reasons))
        if key not in self.unsure or judgement.state is not State.NOT_IN_LEDGER:
            return judgement
        return replace(judgement, reasons=(self._why(key), *judgement.reasons))

    def _why(self, key: str) -> str:
        files = "; ".join(f"{name} ({why})" for name, why in self.unread)
        return (
            f"The filter cannot tell @{key} from a cross-reference: it could not read the "
            f"bibliography {files}, which may hold it, and this document defines no label "
            f"{{#{key}}}. So it is judged as a citation; put the bibliography where the filter "
            "finds it (the working directory or the document's `resource-path` metadata), or "
            "define the label."
        )

    def unread_warnings(self) -> list[str]:
        """One warning per bibliography the filter could not read (and the keys it judged for
        that as citations)."""
        keys = ", ".join(f"@{key}" for key in sorted(self.unsure))
        then = f", so nothing tells {keys} from cross-references: judged as citations"
        return [
            f"the filter could not read the bibliography {name} ({why}){then if keys else ''}"
            for name, why in self.unread
        ]

    def messages(self, options: Options) -> tuple[list[str], list[str]]:
        """The warnings (a key both source and label; a bibliography not read) and strict's
        error."""
        warnings = [label_warning(key, options.ledger) for key in self.labels]
        warnings += self.unread_warnings()
        errors = []
        if self.labels and options.strict:
            n = len(self.labels)
            some = "1 ledger key is a label" if n == 1 else f"{n} ledger keys are labels"
            errors.append(
                f"strict: {some} of this document too; failing the build (rename, or set "
                "citeledger.strict: false to build anyway)"
            )
        return warnings, errors
