"""citeledger in a chain of panflute filters: ``prepare``, ``action`` and ``finalize``.

For people who already run several filters in one process::

    import panflute
    from citeledger import panflute as citeledger

    panflute.run_filters(
        [my_action, citeledger.action],
        prepare=citeledger.prepare,
        finalize=citeledger.finalize,
    )

or who let panflute load them from the document's metadata (``pandoc --filter panflute``)::

    panflute-filters: [my_filter, citeledger.panflute]

It judges exactly as ``pandoc-citeledger`` does, because it is the same code: ``action`` does
its work when the walk reaches the ``Doc`` itself (the last element a panflute walk visits),
so it runs where it stands in the chain, after the actions before it; it hands the document to
``build.filter.run_filter`` as JSON and puts what comes back into the same ``Doc`` (panflute's
autoloader keeps the ``Doc`` it passed, whatever ``main`` returns). ``finalize`` writes the
warnings to stderr as ``[WARNING] citeledger: …``; a bad ledger or option (exit 2) and
``strict`` with breakdowns (exit 1) end the run there with the filter's one ``[ERROR]`` line,
so pandoc fails the build as it does with the standalone filter.

panflute is an optional extra (``pip install citeledger[panflute]``); the standalone filter never
imports it and keeps its raw-JSON speed (a panflute load, walk and dump costs several times
that). ``Citeledger(judge_factory=…)`` gives the three functions for another judge (the tests'
fixture judge). panflute 2.3 does not list ``typst`` as a raw format; importing this module adds
it, so a typst build's callouts can be held. Writes nothing to stdout.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import IO, Any, NoReturn

import panflute as pf

from citeledger.build.api_version import check_api_version
from citeledger.build.filter import FilterResult, JudgeFactory, run_filter
from citeledger.errors import CiteledgerError
from citeledger.inert import visible

# panflute 2.3 refuses raw blocks of formats it does not list, typst among them (pandoc writes
# typst since 3.1.2, and so does our typst renderer): it may hold them, as pandoc does
pf.elements.RAW_FORMATS.add("typst")


class Citeledger:
    """One filter in a panflute chain: its ``prepare``, ``action`` and ``finalize``."""

    def __init__(
        self,
        judge_factory: JudgeFactory | None = None,
        environ: Mapping[str, str] | None = None,
        stderr: IO[str] | None = None,
    ) -> None:
        self.judge_factory = judge_factory
        self.environ = environ
        self.stderr = stderr
        self.result: FilterResult | None = None

    def prepare(self, doc: Any) -> None:
        self.result = None

    def action(self, elem: Any, doc: Any) -> None:
        """Judge and render the whole document when the walk reaches the ``Doc``."""
        if isinstance(elem, pf.Doc):
            self.result = self.judge(elem)

    def finalize(self, doc: Any) -> None:
        """Warnings to stderr; a run that must fail the build ends here, as the filter's does."""
        result, self.result = self.result, None
        if result is None:
            return
        err = self.stderr or sys.stderr
        for warning in result.warnings:
            err.write(visible(f"[WARNING] citeledger: {warning}") + "\n")
        for error in result.errors:
            err.write(visible(f"[ERROR] citeledger: {error}") + "\n")
        err.flush()
        if result.errors:
            raise SystemExit(result.exit_code)

    def judge(self, doc: Any) -> FilterResult | None:
        """``doc`` judged and rendered in place by the standalone filter's ``run_filter``."""
        raw = json.loads(json.dumps(doc, default=lambda e: e.to_json(), check_circular=False))
        try:
            check_api_version(raw)
            result = run_filter(
                raw, doc.format or "html", judge_factory=self.judge_factory, environ=self.environ
            )
        except CiteledgerError as exc:
            self._fail(exc.one_line())
        except OSError as exc:  # a file the filter reads or writes: one line, never a traceback
            where = f" ({exc.filename})" if exc.filename else ""
            self._fail(f"{exc.strerror or exc}{where}")
        if result.changed:
            new = json.loads(json.dumps(result.doc), object_hook=pf.elements.from_json)
            doc.content = list(new.content)
            doc.metadata = new.metadata
        return result

    def _fail(self, message: str) -> NoReturn:
        err = self.stderr or sys.stderr
        err.write(visible(f"[ERROR] citeledger: {message}") + "\n")
        err.flush()
        raise SystemExit(2)

    def run(self, doc: Any = None) -> Any:
        """``panflute.run_filters`` with this filter alone (stdin to stdout when ``doc`` is
        None, else ``doc`` filtered in place and returned)."""
        return pf.run_filters([self.action], prepare=self.prepare, finalize=self.finalize, doc=doc)


_DEFAULT = Citeledger()
prepare = _DEFAULT.prepare
action = _DEFAULT.action
finalize = _DEFAULT.finalize


def main(doc: Any = None) -> Any:
    """What ``panflute-filters: [citeledger.panflute]`` calls, and ``python -m``."""
    return _DEFAULT.run(doc)


if __name__ == "__main__":  # pragma: no cover - ``python -m citeledger.panflute``
    main()
