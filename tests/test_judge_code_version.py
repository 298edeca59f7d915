"""The judging code's version keys the judgement index: a rapidfuzz upgrade must change it."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from importlib.machinery import ModuleSpec
from pathlib import Path

import pytest

from citeledger import judge


def _version_with_rapidfuzz_init(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, text: str) -> str:
    init = tmp_path / text.replace(" ", "_") / "__init__.py"
    init.parent.mkdir()
    init.write_text(text)
    real = importlib.util.find_spec

    def find_spec(name: str, package: str | None = None) -> ModuleSpec | None:
        if name == "rapidfuzz":
            return ModuleSpec("rapidfuzz", None, origin=str(init))
        return real(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    return judge.code_version.__wrapped__()  # type: ignore[no-any-return]


def test_a_rapidfuzz_upgrade_changes_the_code_version(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    old = _version_with_rapidfuzz_init(monkeypatch, tmp_path, '__version__ = "3.14.6"')
    new = _version_with_rapidfuzz_init(monkeypatch, tmp_path, '__version__ = "3.15.0"')
    assert old != new


def test_the_code_version_does_not_import_rapidfuzz() -> None:
    """A build whose judgements all come from the index never locates: no fuzzy matcher load."""
    code = (
        "import sys; from citeledger.judge import code_version; code_version(); "
        "print('rapidfuzz' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
