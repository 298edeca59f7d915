"""Shared fixtures: the bundled pandoc, the shared corpus beside the repository, the network.

The corpus path is computed here once (``CORPUS``); a test that needs a corpus file asks
``corpus_file`` for it, which skips (never fails) when the corpus is not beside the checkout.
The loopback server and the network guard (``tests/netserver.py``) are registered for every
test file by importing them here.

Skip policy — a skipped test tests nothing, so only what CI cannot have may skip there:

- test dependencies (the ``test`` extra: jsonschema, typst, panflute, playwright, …) and the
  tools ``.ci/run`` installs (chromium, pdflatex, xelatex, lualatex, soffice, make, Debian's
  ``/usr/bin/pandoc``) are asked for with ``require(module)``, ``require_tool(name)`` or the
  mark ``@pytest.mark.tool(name)``. Locally a missing one skips with its reason; under CI
  (``CITELEDGER_CI=1``, exported by ``.ci/run``) it FAILS the test: a broken install, not a
  reason to test less.
- the shared corpus (``../shared/corpus``) is not part of the checkout and ``.ci/run`` does not
  provide it: its tests skip everywhere (``corpus_file``, ``corpus``).
- opt-in trials (``CITELEDGER_LONG=1``: ``make test-long``) skip unless asked for.
"""

from __future__ import annotations

import importlib
import os
import shutil
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import pytest

from netserver import loopback_only, netserver, tls_netserver

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpus"
DOCUMENTS = CORPUS / "documents"

CI = os.environ.get("CITELEDGER_CI") == "1"

__all__ = [
    "CI",
    "CORPUS",
    "DOCUMENTS",
    "corpus_file",
    "loopback_only",
    "missing",
    "netserver",
    "require",
    "require_tool",
    "tls_netserver",
]


def missing(reason: str) -> NoReturn:
    """Skip for ``reason`` locally; under CI fail: what ``.ci/run`` installs must be there."""
    if CI:
        pytest.fail(
            f"{reason} — under CITELEDGER_CI=1 a missing test dependency or tool fails",
            pytrace=False,
        )
    pytest.skip(reason, allow_module_level=True)


def require(module: str) -> ModuleType:
    """Import a test dependency (the ``test`` extra), or skip/fail by the policy above."""
    try:
        return importlib.import_module(module)
    except ImportError:
        missing(f"{module} is not installed (a test dependency: pip install -e '.[test]')")


def require_tool(*names: str, path: str | None = None) -> str:
    """The first of ``names`` found on PATH (or in ``path``), or skip/fail by the policy."""
    for name in names:
        found = shutil.which(name, path=path)
        if found is not None:
            return found
    where = path or "PATH"
    missing(f"no {' or '.join(names)} in {where} (.ci/run installs it)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "tool(*names): needs one of these programs (require_tool: CI fails without)"
    )


def pytest_runtest_setup(item: pytest.Item) -> None:
    """``@pytest.mark.tool("pdflatex")``: ``require_tool`` before the test runs."""
    for mark in item.iter_markers("tool"):
        require_tool(*mark.args, **mark.kwargs)


def corpus_file(*parts: str) -> Path:
    """A file of the shared corpus; the calling test is skipped when it is not there."""
    path = CORPUS.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"../shared/corpus/{'/'.join(parts)} is not beside the repository")
    return path


@pytest.fixture(scope="session")
def pandoc_path() -> str:
    import pypandoc

    return str(pypandoc.get_pandoc_path())


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not beside the repository")
    return CORPUS


@pytest.fixture(autouse=True, scope="session")
def _private_derivation_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Derivations the judgement remembers (citeledger.derivation) go to a cache of the test
    run, never the user's own; subprocesses (the filter under pandoc) inherit it."""
    import os

    os.environ["CITELEDGER_CACHE_DIR"] = str(tmp_path_factory.mktemp("derivations"))
    os.environ.pop("CITELEDGER_SIGNING_KEY", None)
    os.environ["XDG_CONFIG_HOME"] = str(tmp_path_factory.mktemp("config"))
    # HTML snapshots start a browser (seconds a page): only the tests of them turn it on
    os.environ["CITELEDGER_CHROMIUM"] = ""
