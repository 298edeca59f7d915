"""Verify run as a user runs it: a project of local text sources for the kill tests, and a
one-source ledger verified against the loopback server for the snapshot and forgery tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from citeledger.cli import main
from citeledger.ledger import load_ledger
from citeledger.model import Receipt


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


def verified_one(folder: Path, key: str, url: str, quote: str) -> Path:
    """The ledger in ``folder`` of one source ``key`` at ``url`` with one quote, after
    ``citeledger verify`` (private addresses allowed: the test server is on loopback)."""
    ledger = folder / "citeledger.yaml"
    ledger.write_text(
        f'sources:\n  {key}:\n    url: {url}\n    quotes:\n      - text: "{quote}"\n',
        encoding="utf-8",
    )
    assert main(["verify", "--ledger", str(ledger), "--yes", "--allow-private"]) == 0
    return ledger


def found_receipt(ledger: Path, key: str) -> Receipt:
    """The latest receipt of the one quote of ``key``, which verify must have found."""
    receipt = load_ledger(ledger).sources[key].quotes[0].latest
    assert receipt is not None and receipt.outcome == "found"
    return receipt
