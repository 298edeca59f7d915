"""The index key is the source's exact text in the ledger (issue 8 item 2), not its value.

A value carries line numbers, so inserting one line above a source used to re-judge every
source below it. Now an edit elsewhere — a comment at the top, a new source, another source's
title — keeps every other entry, while a byte of the source's own text (its title, its quote,
its receipt) re-judges that source, and only it. A build from the ledger's remembered outline
(``ledger.outline``) and the build that parsed the edited file make the same keys. Whatever
the index does, the build judges exactly as a build without it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from citeledger.evidence.judgements import FOLDER, JudgementIndex
from citeledger.judge import Judge
from test_judgement_index import (  # the same verified four-source project
    _build,
    _edit_ledger,
    _states,
    _without_index,
    project,
    verified,
)

__all__ = ["project", "verified"]


def _judged_afresh(monkeypatch: pytest.MonkeyPatch, folder: Path) -> tuple[list[str], object]:
    """The keys whose evidence a filter build (and ``check``) judged again, and the build."""
    keys: list[str] = []
    real = Judge._judge_evidence

    def spy(self: Judge, source, quote, receipt, trusted, *rest):  # type: ignore[no-untyped-def]
        keys.append(source.key)
        return real(self, source, quote, receipt, trusted, *rest)

    with monkeypatch.context() as m:
        m.setattr(Judge, "_judge_evidence", spy)
        built = _build(folder)
    return sorted(set(keys)), built


def _prepend(folder: Path, text: str) -> None:
    path = folder / "citeledger.yaml"
    path.write_text(text + path.read_text("utf-8"), "utf-8")


CHECKED = ["checked"] * 4
# an edit → the sources judged afresh, and every citation's state after it
EDITS: dict[str, tuple[Callable[[Path], None], list[str], list[str]]] = {
    "a comment line at the top": (lambda f: _prepend(f, "# the sources\n\n"), [], CHECKED),
    "a new source above the others": (
        lambda f: _edit_ledger(
            f, "sources:\n", "sources:\n  new:\n    url: https://example.org/x\n"
        ),
        [],
        CHECKED,
    ),
    "another source's title": (
        lambda f: _edit_ledger(f, "title: Source 0", "title: Source 9"),
        ["s0"],
        CHECKED,
    ),
    "its title": (lambda f: _edit_ledger(f, "title: Source 1", "title: Source 7"), ["s1"], CHECKED),
    "a comment inside it": (
        lambda f: _edit_ledger(f, "title: Source 1\n", "title: Source 1\n    # seen on paper\n"),
        ["s1"],
        CHECKED,
    ),
    # a stale receipt is found before any evidence is read
    "its quote": (
        lambda f: _edit_ledger(f, "The passage 1 is here.", "The passage 1 is hare."),
        [],
        ["checked", "stale", "checked", "checked"],
    ),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_only_the_edited_sources_are_judged_afresh(
    project: Path, monkeypatch: pytest.MonkeyPatch, edit: str
) -> None:
    """An edit elsewhere in the ledger (s1 is "it") keeps the other sources' entries; a byte
    of a source's own text re-judges it, and only it."""
    change, expected, states = EDITS[edit]
    _build(project)
    change(project)
    afresh, built = _judged_afresh(monkeypatch, project)
    assert afresh == expected
    assert built == _without_index(project, monkeypatch)
    assert _states(built[0]) == states


def test_the_outline_and_a_full_parse_make_the_same_keys(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After an edit the first build parses the whole file (and remembers its outline); the
    next one slices the outline's spans: neither may judge afresh what the other judged."""
    _build(project)
    _prepend(project, "# edited\n")
    first, _ = _judged_afresh(monkeypatch, project)  # a full parse of the new bytes
    second, built = _judged_afresh(monkeypatch, project)  # its outline
    assert first == second == []
    assert _states(built[0]) == ["checked"] * 4


def test_a_receipt_byte_re_judges_although_the_verdict_was_remembered(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _build(project)
    text = (project / "citeledger.yaml").read_text("utf-8")
    at = text.index("s2:")
    # s2's receipt: one digit of its span's end (its date is in the history log too, which
    # tells an edit to it before any evidence is judged)
    digit = text.index("\n", text.index("char_end:", at)) - 1
    (project / "citeledger.yaml").write_text(
        text[:digit] + str((int(text[digit]) + 1) % 10) + text[digit + 1 :], "utf-8"
    )
    afresh, built = _judged_afresh(monkeypatch, project)
    assert afresh == ["s2"]
    assert built == _without_index(project, monkeypatch)
    assert _states(built[0])[2] == "tampered"


def test_an_entry_sealed_before_orjson_is_still_ours_and_a_crafted_one_is_none(
    tmp_path: Path,
) -> None:
    """The seal's bytes are the standard library's sorted JSON (entries from earlier builds
    keep their seals); a crafted value orjson cannot write is no entry, never a traceback."""
    secret = b"k" * 32
    reasons = ["Vérifié — “found”"]
    body = {"state": "checked", "reasons": reasons, "files": [["ab/x.warc.gz", "d" * 64]]}
    text = json.dumps(["key1", body], sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    old_mac = hmac.new(secret, text.encode("utf-8"), hashlib.sha256).hexdigest()
    deep: list[object] = []
    for _ in range(300):  # orjson reads it, and cannot write it: the seal raises TypeError
        deep = [deep]
    shard = {"key1": {**body, "mac": old_mac}, "key2": {**body, "reasons": deep, "mac": "0"}}
    (tmp_path / FOLDER).mkdir()
    (tmp_path / FOLDER / "k.json").write_text(json.dumps(shard), "utf-8")  # the keys' shard
    index = JudgementIndex(tmp_path, secret)
    remembered = index.get("key1")
    assert remembered is not None and remembered.reasons == tuple(reasons)
    assert index.get("key2") is None
