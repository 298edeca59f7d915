"""Helpers for the filter's tests: pandoc itself turns Markdown into the JSON the filter reads;
the builds around it (make, LaTeX, the examples) run as a user runs them."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pypandoc

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
PANDOC = str(pypandoc.get_pandoc_path())
SHIM = REPO / "filters" / "citeledger.py"
FIXTURE_FILTER = HERE / "fixture_filter.py"


def pandoc_bytes(markdown: str, *args: str) -> bytes:
    """``pandoc -f markdown -t json`` of ``markdown``, exactly as pandoc would hand it over."""
    proc = subprocess.run(
        [PANDOC, "-f", "markdown", "-t", "json", *args],
        input=markdown.encode(),
        capture_output=True,
        check=True,
    )
    return proc.stdout


def pandoc_json(markdown: str, *args: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(pandoc_bytes(markdown, *args))
    return result


def venv_env(**extra: str) -> dict[str, str]:
    """An environment whose ``python3`` is this interpreter (the filters' shebang uses it)."""
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env.update(extra)
    return env


class Run:
    """One in-process run of ``filter.main``: exit code, stdout bytes, stderr lines."""

    def __init__(self, code: int, out: bytes, err: str) -> None:
        self.code = code
        self.out = out
        self.err = err

    @property
    def doc(self) -> dict[str, Any]:
        result: dict[str, Any] = json.loads(self.out)
        return result

    @property
    def warnings(self) -> list[str]:
        return [line for line in self.err.splitlines() if line.startswith("[WARNING] citeledger: ")]


def build_golden(case: str, *args: str) -> None:
    """pandoc on ``tests/golden/<case>`` (its defaults: the fixture judge's filter), ``args``
    naming the output."""
    folder = REPO / "tests" / "golden" / case
    cmd = [PANDOC, "--defaults", str(folder / "defaults.yaml"), str(folder / "input.md"), *args]
    subprocess.run(cmd, env=venv_env(), check=True, capture_output=True)


def run_main(raw: bytes, fmt: str = "html", **kw: Any) -> Run:
    from citeledger.build.filter import main

    out = io.BytesIO()
    err = io.StringIO()
    code = main([fmt], stdin=io.BytesIO(raw), stdout=out, stderr=err, **kw)
    return Run(code, out.getvalue(), err.getvalue())


def walk(node: Any) -> Iterator[dict[str, Any]]:
    """Every dict node of a JSON AST, depth first, in document order."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def with_class(doc: Any, t: str, cls: str) -> list[dict[str, Any]]:
    """Elements of type ``t`` (Span/Div) carrying class ``cls``, in document order.

    A Markdown build's Spans keep their attributes hidden in a first raw inline
    (``build.hidden``): they are seen here as the filter reads them back, attributes in place.
    """
    from citeledger.build.hidden import revealed

    nodes = (revealed(n) if n.get("t") == "Span" else n for n in walk(doc))
    return [n for n in nodes if n.get("t") == t and cls in n["c"][0][1]]


def body(doc: Any) -> list[dict[str, Any]]:
    """The document's blocks after the filter's banner (``citeledger-banner``), if it has one.

    The banner is tested on its own (tests/test_filter_grouped.py); tests about where the
    callouts and anchors go read the body after it.
    """
    blocks: list[dict[str, Any]] = doc["blocks"]
    if blocks and _is_banner(blocks[0]):
        return blocks[1:]
    return blocks


def _is_banner(block: dict[str, Any]) -> bool:
    if block.get("t") == "Div":
        return "citeledger-banner" in block["c"][0][1]
    if block.get("t") == "BlockQuote":  # GitHub Markdown builds: a ``[!WARNING]`` alert
        from citeledger.build.names import BANNER_ALERT_MARK

        return bool(block["c"]) and block["c"][0]["c"][:1] == [
            {"t": "RawInline", "c": ["markdown", BANNER_ALERT_MARK]}
        ]
    return False


def compile_latex(engine: str, tex: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``engine`` on ``tex`` in its own folder, stopping at the first error (the log on stdout)."""
    return subprocess.run(
        [engine, "-halt-on-error", "-interaction=nonstopmode", tex.name],
        cwd=tex.parent,
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )


def pdf_text(path: Path) -> str:
    """The text a reader of the PDF sees (PDFium), its whitespace runs made single spaces."""
    import pypdfium2

    pdf = pypdfium2.PdfDocument(str(path))
    try:
        text = "".join(pdf[i].get_textpage().get_text_range() for i in range(len(pdf)))
    finally:
        pdf.close()
    return " ".join(text.split())


def copy_example(name: str, folder: Path) -> Path:
    """A copy of ``examples/NAME`` in ``folder``, without what a build or verify wrote there:
    the tracked examples are never written."""
    work = folder / name
    ignore = shutil.ignore_patterns("build", "public", ".citeledger")
    shutil.copytree(REPO / "examples" / name, work, ignore=ignore)
    return work


def make(work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """GNU make in ``work``, this venv's citeledger and pandoc first on PATH."""
    return subprocess.run(
        ["make", *args], cwd=work, capture_output=True, text=True, env=venv_env(), check=False
    )
