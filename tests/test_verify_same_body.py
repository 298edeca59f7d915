"""Sources whose bodies are byte-identical, verified in one run: each gets evidence of its own
retrieval (the first a capture, the others revisits of it), never another source's record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeledger.cli import main


def test_identical_bodies_in_one_batch_each_keep_their_own_evidence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    lines = ["sources:"]
    for i in range(12):
        body = i % 2  # six sources share each body
        filler = " ".join(f"word{body}x{j}" for j in range(300))
        (tmp_path / f"page{i}.txt").write_text(f"The passage {body} is here. {filler}\n")
        lines += [f"  s{i}:", f"    file: page{i}.txt", "    quotes:"]
        lines += [f"      - text: The passage {body} is here."]
    (tmp_path / "citeledger.yaml").write_text("\n".join(lines) + "\n", "utf-8")
    doc = "\n\n".join(f"Claim {i} holds [@s{i}]." for i in range(12))
    (tmp_path / "doc.md").write_text(doc + "\n", "utf-8")
    assert main(["verify", "--yes"]) == 0
    assert main(["check", "doc.md", "--json", "r.json", "--quiet"]) == 0
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert {c["key"]: c["state"] for c in report["citations"]} == {
        f"s{i}": "checked" for i in range(12)
    }
    stored = sorted(p.name for p in (tmp_path / ".citeledger").rglob("*.warc.gz"))
    assert len(stored) == 12 and sum("~" not in n for n in stored) == 2  # 2 captures, 10 revisits
