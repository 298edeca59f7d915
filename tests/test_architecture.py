"""The arrows that must never exist (design.md), checked rather than trusted.

The build is offline by construction: judging, rendering and reporting never load the network
stack, even when they run for real. The locator and extractors are pure. Nothing imports the CLI.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "citeledger"

_PROBE = r"""
import json, sys
from citeledger.report.check import run_check
code = run_check([sys.argv[1]], warn_only=True, quiet=True)
import citeledger.build.filter, citeledger.report.summary, citeledger.report.audit
import citeledger.evidence.publish, citeledger.report.coverage, citeledger.build.render
net = sorted(m for m in sys.modules if m == "httpx" or m.startswith(("httpx.", "httpcore",
             "citeledger.retrieve")))
print(json.dumps(net))
"""


def test_the_build_path_never_loads_the_network_stack(tmp_path: Path) -> None:
    (tmp_path / "citeledger.yaml").write_text(
        "sources:\n  k:\n    url: https://example.org/a\n    quotes:\n      - text: a b c d\n"
    )
    doc = tmp_path / "d.md"
    doc.write_text("A claim with a citation in it [@k] and another [@missing].\n")
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, str(doc)], capture_output=True, text=True, check=True
    )
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == []


def _calls(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute):
                owner = f.value.id if isinstance(f.value, ast.Name) else ""
                # str.replace is text; os.replace / os.rename move files
                if f.attr not in ("replace", "remove") or owner in ("os", "shutil"):
                    names.add(f.attr)
            elif isinstance(f, ast.Name):
                names.add(f.id)
    return names


def test_locate_and_extract_write_nothing() -> None:
    writers = {
        "write_text",
        "write_bytes",
        "replace",
        "rename",
        "unlink",
        "mkdir",
        "open",
        "mkstemp",
        "rmtree",
        "remove",
    }
    pure = [*sorted((SRC / "locate").glob("*.py")), *sorted((SRC / "extract").glob("*.py"))]
    assert len(pure) >= 8
    for path in pure:
        found = _calls(path) & writers
        assert not found, f"{path.name} calls {sorted(found)}"


# The build side: everything a `pandoc --filter` or `citeledger check` run may load.
OFFLINE_PACKAGES = ("build", "report", "evidence", "ledger", "locate", "extract", "review")
OFFLINE_MODULES = ("judge.py", "model.py", "errors.py", "confine.py", "inert.py", "sniff.py")


def test_nothing_imports_the_cli_and_the_offline_modules_never_import_retrieve() -> None:
    checked = 0
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        offline = rel.parts[0] in OFFLINE_PACKAGES or str(rel) in OFFLINE_MODULES
        checked += offline
        for mod in _imported(path):
            if rel.parts[0] != "cli":  # the command line is the edge: only it may use itself
                assert not mod.startswith("citeledger.cli"), f"{rel} imports the CLI"
            if offline:
                assert not mod.startswith(("httpx", "citeledger.retrieve", "citeledger.verify")), (
                    f"{rel} imports {mod}: the build is offline by construction"
                )
    assert checked > 30


def test_the_tree_is_the_pipeline() -> None:
    """Each stage is a package named for it (style.md): no flat name prefixes at the top."""
    stages = {p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert {"ledger", "retrieve", "extract", "locate", "evidence", "verify", "build", "report"} <= (
        stages
    )
    top = sorted(p.name for p in SRC.glob("*.py"))
    assert not [n for n in top if n.startswith(("extract", "evidence", "locate", "ledger"))], top


def _imported(path: Path) -> set[str]:
    """Every citeledger module ``path`` imports, at module level or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_verify_does_not_import_recheck() -> None:
    # recheck is verify run again with other rules: it builds on verify, never the other way
    assert "citeledger.verify.recheck" not in _imported(SRC / "verify" / "run.py")
    assert "citeledger.verify.run" in _imported(SRC / "verify" / "recheck.py")
