"""Shared fixtures: the bundled pandoc, the shared corpus beside the repository, the network.

The corpus path is computed here once (``CORPUS``); a test that needs a corpus file asks
``corpus_file`` for it, which skips (never fails) when the corpus is not beside the checkout.
The loopback server and the network guard (``tests/netserver.py``) are registered for every
test file by importing them here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from netserver import loopback_only, netserver, tls_netserver

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpus"
DOCUMENTS = CORPUS / "documents"

__all__ = ["CORPUS", "DOCUMENTS", "corpus_file", "loopback_only", "netserver", "tls_netserver"]


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
