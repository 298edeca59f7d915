"""DOCX callouts, read back from the .docx itself (``pandoc -f docx+styles``).

What a Word user sees is the file, not our AST: every paragraph of a callout, its reason bullets
included, must carry the "Citeledger Breakdown" style, and a callout for a claim in a list item
must stay in that item (not become a bullet of a list of its own, nor split a numbered list).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from fixture_judge import FixtureJudge, judgement_for
from helpers import PANDOC, pandoc_bytes, run_main, walk

from citeledger.build.citations import plain_text
from citeledger.model import CitationRef, Judgement

STYLE = ["custom-style", "Citeledger Breakdown"]
DOC = (
    "A paragraph claim [@st-stale].\n\n"
    "- A list claim [@st-tampered].\n"
    "    - A nested claim [@st-unchecked].\n"
    "- Another item.\n\n"
    "1. A numbered claim [@st-disputed].\n"
    "2. The second item.\n"
)


class TwoReasons(FixtureJudge):
    """Two reasons: the callout then lists them as bullets."""

    def judge(self, ref: CitationRef) -> Judgement:
        j = judgement_for(ref)
        reasons = (f"First reason of {ref.key}.", f"Second reason with `code` for {ref.key}.")
        return Judgement(j.key, j.state, reasons, source=j.source, quote=j.quote)


@pytest.fixture(scope="module")
def read_back(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    """The filtered document written as .docx by pandoc, read back by pandoc (its blocks)."""
    out = tmp_path_factory.mktemp("docx") / "out.docx"
    filtered = run_main(pandoc_bytes(DOC), "docx", judge_factory=TwoReasons).out
    subprocess.run([PANDOC, "-f", "json", "-o", str(out)], input=filtered, check=True)
    back = subprocess.run(
        [PANDOC, "-f", "docx+styles", "-t", "json", str(out)], capture_output=True, check=True
    )
    blocks: list[Any] = json.loads(back.stdout)["blocks"]
    return blocks


def _styled(node: Any) -> bool:
    return node.get("t") == "Div" and STYLE in node["c"][0][2]


def _paragraphs_with(blocks: Any, words: str) -> list[tuple[dict, bool]]:
    """(paragraph, inside a callout-styled Div) for each paragraph holding ``words``."""
    out: list[tuple[dict, bool]] = []

    def visit(node: Any, styled: bool) -> None:
        if isinstance(node, list):
            for child in node:
                visit(child, styled)
        elif isinstance(node, dict):
            if node.get("t") in ("Para", "Plain") and words in plain_text(node["c"]):
                out.append((node, styled))
            inner = styled or _styled(node)
            for value in node.values():
                visit(value, inner)

    visit(blocks, False)
    return out


@pytest.mark.parametrize(
    ("key", "number"),
    [("st-stale", 1), ("st-tampered", 2), ("st-unchecked", 3), ("st-disputed", 4)],
)
def test_every_paragraph_of_a_callout_keeps_its_style(
    read_back: list, key: str, number: int
) -> None:
    for words in (
        f"Citation {number}: {key}",
        f"First reason of {key}.",  # the reason bullets, which used to lose the style
        f"Second reason with code for {key}.",
        "You quoted:",
    ):
        found = _paragraphs_with(read_back, words)
        assert found and all(styled for _, styled in found), (key, words)


def test_a_callout_in_a_list_item_stays_in_the_item(read_back: list) -> None:
    lists = [b for b in read_back if b["t"] in ("BulletList", "OrderedList")]
    # one bullet list of two items and one numbered list of two: nothing split off
    assert [(b["t"], len(_items(b))) for b in lists] == [("BulletList", 2), ("OrderedList", 2)]
    first, second = _items(lists[0])
    assert "A list claim" in plain_text(first[0]["c"])
    assert _holds(first, "First reason of st-tampered.")
    nested = next(b for b in first if b["t"] == "BulletList")
    assert len(_items(nested)) == 1 and _holds(nested, "First reason of st-unchecked.")
    assert "Another item." in plain_text(second[0]["c"]) and not _holds(second, "reason")
    numbered_first, numbered_second = _items(lists[1])
    assert _holds(numbered_first, "First reason of st-disputed.")
    assert "The second item." in plain_text(numbered_second[0]["c"])
    assert lists[1]["c"][0][0] == 1  # numbering starts once, at 1


def _items(block: dict) -> list[list]:
    items: list[list] = block["c"][1] if block["t"] == "OrderedList" else block["c"]
    return items


def _holds(blocks: Any, words: str) -> bool:
    return any(styled for _, styled in _paragraphs_with(blocks, words))


def test_the_flag_links_to_the_callout(read_back: list) -> None:
    links = [n["c"][2][0] for n in walk(read_back) if n.get("t") == "Link"]
    assert "#citeledger-breakdown-1" in links and "#citeledger-cite-2" in links
