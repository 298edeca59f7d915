"""The judging code's version keys the judgement index, and the parsing code's the ledger's
outline and parsed sources: an upgrade of rapidfuzz, PyYAML or the interpreter (its unicodedata
tables drive normalize and casefold) must change them (review F10)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from importlib.machinery import ModuleSpec
from pathlib import Path

import pytest

from citeledger import judge
from citeledger.ledger import outline, parsed


def _version_with_rapidfuzz_init(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, text: str, library: str = "rapidfuzz"
) -> tuple[str, str]:
    """The judging and the parsing code's versions with ``library`` stating ``text``."""
    init = tmp_path / library / text.replace(" ", "_") / "__init__.py"
    init.parent.mkdir(parents=True)
    init.write_text(text)
    real = importlib.util.find_spec

    def find_spec(name: str, package: str | None = None) -> ModuleSpec | None:
        if name == library:
            return ModuleSpec(library, None, origin=str(init))
        return real(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    return _versions()


def _versions() -> tuple[str, str]:
    return judge.code_version.__wrapped__(), parsed.parse_code.__wrapped__()  # type: ignore[attr-defined]


def test_a_rapidfuzz_upgrade_changes_the_code_version(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    old = _version_with_rapidfuzz_init(monkeypatch, tmp_path, '__version__ = "3.14.6"')
    new = _version_with_rapidfuzz_init(monkeypatch, tmp_path, '__version__ = "3.15.0"')
    assert old[0] != new[0]


def test_a_pyyaml_upgrade_changes_the_judging_and_the_parsing_code_version(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    old = _version_with_rapidfuzz_init(monkeypatch, tmp_path, '__version__ = "6.0.1"', "yaml")
    new = _version_with_rapidfuzz_init(monkeypatch, tmp_path, '__version__ = "6.0.2"', "yaml")
    assert old[0] != new[0] and old[1] != new[1]


def test_another_interpreter_changes_the_judging_and_the_parsing_code_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    old = _versions()
    monkeypatch.setattr(sys, "version", sys.version + " (another build)")
    new = _versions()
    assert old[0] != new[0] and old[1] != new[1]


def test_an_outline_kept_by_other_parsing_code_is_not_recalled(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The outline holds the top-level parse (trust settings, history_head, evidence_dir): one
    an older build of the code left, with the same citeledger version, is parsed again."""
    where = tmp_path / "outline.json"
    outline.remember(where, {"evidence": str(tmp_path)}, {})
    assert outline.recall(where) is not None
    monkeypatch.setattr(outline, "parse_code", lambda: "another parse")
    assert outline.recall(where) is None


def test_the_code_version_does_not_import_rapidfuzz() -> None:
    """A build whose judgements all come from the index never locates: no fuzzy matcher load."""
    code = (
        "import sys; from citeledger.judge import code_version; code_version(); "
        "print('rapidfuzz' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_every_locator_module_keys_the_judging_code() -> None:
    """A remembered verdict rests on every rule of the locator: a module added to ``locate/``
    (the sentence, number and aside rules were, one after another) is keyed without being
    listed, so an edit to it re-judges instead of serving a verdict the rule now refuses."""
    import citeledger
    from citeledger.judge import _JUDGING_CODE

    package = Path(citeledger.__file__).parent
    keyed = set(citeledger.code_files(_JUDGING_CODE))
    for module in (package / "locate").glob("*.py"):
        assert f"locate/{module.name}" in keyed
    assert all((package / name).is_file() for name in keyed), "every keyed file exists"
