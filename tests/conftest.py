"""Shared fixtures: the bundled pandoc, the shared corpus beside the repository."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpus"


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
