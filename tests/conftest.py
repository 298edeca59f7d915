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
