"""Goldens in the pandoc-ext style: pandoc itself, with the filter, is the harness.

Each case is ``tests/golden/<case>/`` holding ``input.md``, ``defaults.yaml`` (reader, filter,
metadata — the filter is the checkout's shim with the fixture judge, ``tests/data/filter``) and
one ``expected.<fmt>`` per output family: html, latex, gfm, plain, and docx read back with
``pandoc -f docx+styles -t markdown`` (``expected.docx.md``). ``make update-golden`` sets
``CITELEDGER_UPDATE_GOLDEN=1`` to rewrite them; review the diff before committing it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from helpers import PANDOC, venv_env

from citeledger.model import State

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(p.name for p in GOLDEN.iterdir() if (p / "input.md").is_file())
FORMATS = {
    "html": "html",
    "latex": "latex",
    "gfm": "gfm",
    "markdown": "markdown",
    "plain": "plain",
    "docx": "docx.md",
}
UPDATE = os.environ.get("CITELEDGER_UPDATE_GOLDEN") == "1"


def render(case: str, fmt: str, tmp_path: Path) -> str:
    folder = GOLDEN / case
    cmd = [PANDOC, "--defaults", str(folder / "defaults.yaml"), str(folder / "input.md")]
    env = venv_env()
    if fmt == "docx":
        out = tmp_path / "out.docx"
        subprocess.run(
            [*cmd, "-t", "docx", "-o", str(out)], env=env, check=True, capture_output=True
        )
        cmd = [PANDOC, "-f", "docx+styles", "-t", "markdown", str(out)]
    else:
        cmd = [*cmd, "-t", fmt]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False, cwd=folder)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("case", CASES)
def test_golden(case: str, fmt: str, tmp_path: Path) -> None:
    expected_file = GOLDEN / case / f"expected.{FORMATS[fmt]}"
    actual = render(case, fmt, tmp_path)
    if UPDATE:
        expected_file.write_text(actual, encoding="utf-8")
        return
    assert expected_file.is_file(), f"no golden {expected_file}: run `make update-golden`"
    assert actual == expected_file.read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_goldens_cover_every_state_in_every_family(fmt: str) -> None:
    """The ``states`` golden shows each breakdown's title in words, and a flag for it."""
    text = (GOLDEN / "states" / f"expected.{FORMATS[fmt]}").read_text(encoding="utf-8")
    flat = " ".join(re.sub(r"^[>\s]+", " ", line) for line in text.splitlines())
    flat = flat.replace("{[}", "[").replace("{]}", "]").replace("\\", "")  # LaTeX's escapes
    flat = " ".join(flat.split()).lower()
    for state in State:
        if state.is_breakdown:
            assert state.title.lower() in flat, (fmt, state)
            assert f"{state.value.replace('-', ' ')}]" in flat, (fmt, state)


def _flat(case: str, fmt: str) -> str:
    """A golden as words: tags, escapes and quote marks of every family taken out."""
    text = (GOLDEN / case / f"expected.{FORMATS[fmt]}").read_text(encoding="utf-8")
    text = re.sub(r"<[^>]+>", "", text)  # HTML tags (the brackets are spans of their own)
    text = text.replace("{[}", "[").replace("{]}", "]").replace("\\", "").replace("**", "")
    return " ".join(re.sub(r"^[>\s]+", " ", line) for line in text.splitlines())


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_unverified_golden_says_unverified_in_words_at_every_marker(fmt: str) -> None:
    """Five markers (one nested marker adds none): five ``[unverified]``, and no breakdown."""
    flat = _flat("unverified", fmt)
    assert flat.count("[unverified]") == 5, flat
    assert "citation" not in flat.lower()  # no flag, no callout, no audit


@pytest.mark.parametrize("fmt", ["html", "latex"])  # docx read back merges bookmarks at one spot
def test_claims_golden_anchors_each_claim_once(fmt: str) -> None:
    text = (GOLDEN / "claims" / f"expected.{FORMATS[fmt]}").read_text(encoding="utf-8")
    for n in range(1, 9):
        anchor = f"citeledger-claim-{n}"
        defined = re.findall(rf'(?:id="|label{{|\[\]{{#|{{#){anchor}\b', text)
        assert len(defined) == 1, (fmt, anchor, defined)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_sources_golden_links_checked_web_citations_only(fmt: str) -> None:
    text = (GOLDEN / "sources" / f"expected.{FORMATS[fmt]}").read_text(encoding="utf-8")
    assert "SECRET" not in text
    if fmt == "plain":
        return  # plain drops URLs; the audit table still names "source at the passage"
    fragment = "https://example.org/manual.html#:~:text="
    assert text.count(fragment.replace("#", "\\#") if fmt == "latex" else fragment) >= 2
