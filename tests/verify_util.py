"""A project of local text sources, and verify run as a user runs it: for the kill tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def text_project(folder: Path, n: int, words: int = 300) -> Path:
    """``n`` file sources of about ``words`` words each, one quote per source; the ledger."""
    lines = ["sources:"]
    for i in range(n):
        filler = " ".join(f"word{i}x{j}" for j in range(words))
        (folder / f"page{i}.txt").write_text(
            f"Page {i}. The passage number {i} is here. {filler}\n"
        )
        lines += [f"  s{i}:", f"    file: page{i}.txt", "    quotes:"]
        lines += [f"      - text: The passage number {i} is here."]
    ledger = folder / "citeledger.yaml"
    ledger.write_text("\n".join(lines) + "\n", "utf-8")
    return ledger


def start_verify(folder: Path) -> subprocess.Popen[bytes]:
    """``citeledger verify --yes`` in ``folder``, as a process a test may kill."""
    return subprocess.Popen(
        [sys.executable, "-m", "citeledger.cli", "verify", "--yes"],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
