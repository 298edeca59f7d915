"""LaTeX output compiles with each engine a thesis is built with: pdflatex, xelatex, lualatex.

Each engine present on the machine compiles the goldens' standalone LaTeX (``.ci/run``
installs Debian's texlive-xetex and texlive-luatex); an absent engine skips with its name
(fails under ``CITELEDGER_CI=1``: see tests/conftest.py).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import missing, require_tool

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from helpers import compile_latex

from test_filter_compile import PNG, _standalone


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["pdflatex", "xelatex", "lualatex"])
@pytest.mark.parametrize("case", ["states", "constructs", "metadata"])
def test_latex_output_compiles_with_each_engine(engine: str, case: str, tmp_path: Path) -> None:
    binary = require_tool(engine)
    if engine == "lualatex" and not _kpsewhich("luaotfload-main.lua"):
        missing("lualatex without luaotfload (texlive-luatex is not installed)")
    (tmp_path / "figure.png").write_bytes(PNG)
    tex = tmp_path / f"{case}.tex"
    _standalone(case, "latex", tex, f"--pdf-engine={engine}")
    proc = compile_latex(binary, tex, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert (tmp_path / f"{case}.pdf").stat().st_size > 1000


def _kpsewhich(name: str) -> bool:
    tool = shutil.which("kpsewhich")
    if tool is None:
        return False
    proc = subprocess.run([tool, name], capture_output=True, text=True, check=False)
    return bool(proc.stdout.strip())
