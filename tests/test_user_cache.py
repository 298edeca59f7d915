"""The user's cache is believed only when the user alone can have written it (review F8).

A real project of ten file sources is verified, then built so that the cache holds its outline,
its parsed sources, its derivations and the index's key. Then the writer edits a quote (which
must make it `stale`) and an attacker plants, in the cache, the source as it was before the
edit under the new bytes' name — as anyone who can write the cache could. Whatever the cache
is (the user's own, one another user can write, one inside the project, a key a checkout made),
``citeledger check`` must judge as a build with a fresh cache and no index: never `checked`.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
from pathlib import Path

import pytest

from citeledger.cli import main
from citeledger.evidence import usercache
from citeledger.ledger import load_ledger, parsed
from test_judgement_index import copied

N = 10
EDITED = "s9"  # a source the tests edit: kept, then its kept entry planted or its text changed


def _project(folder: Path) -> None:
    lines, doc = ["sources:"], []
    for i in range(1, N + 1):
        (folder / f"s{i}.txt").write_text(
            f"The harbour gauge number {i} shows the mean spring range is {i}.2 metres.\n"
        )
        lines += [f"  s{i}:", f"    file: s{i}.txt", f'    title: "Source {i}"', "    quotes:"]
        lines += [f"      - text: the mean spring range is {i}.2 metres"]
        doc.append(f"Claim {i} holds [@s{i}].")
    (folder / "citeledger.yaml").write_text("\n".join(lines) + "\n", "utf-8")
    (folder / "doc.md").write_text("\n\n".join(doc) + "\n", "utf-8")


@pytest.fixture(scope="module")
def verified(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("cached")
    _project(folder)
    assert main(["verify", "--ledger", str(folder / "citeledger.yaml"), "--yes"]) == 0
    return folder


@pytest.fixture()
def project(verified: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return copied(verified, tmp_path, monkeypatch)


def _check(folder: Path) -> tuple[dict[str, str], list[str]]:
    """Each citation's state, and the report's warnings."""
    assert main(["check", "doc.md", "--json", "report.json", "--warn-only", "--quiet"]) == 0
    report = json.loads((folder / "report.json").read_text("utf-8"))
    return {c["key"]: c["state"] for c in report["citations"]}, list(report.get("warnings", []))


def _fresh(folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    with monkeypatch.context() as m:
        m.setenv("CITELEDGER_CACHE_DIR", str(tmp_path / "fresh-cache"))
        m.setenv("CITELEDGER_JUDGEMENT_INDEX", "off")
        return _check(folder)[0]


def _plant(folder: Path, secret: bytes | None = None, name: str = "citeledger.yaml") -> Path:
    """Edit @s9's quote, and keep every source as parsed *before* the edit under the edited
    bytes' kept file, sealed under ``secret`` (the attacker's own key) or, as the cache kept
    records before seals, with the sha256 of its data."""
    before = load_ledger("citeledger.yaml")
    path = folder / "citeledger.yaml"
    path.write_text(path.read_text("utf-8").replace("is 9.2 metres", "is 7.7 metres"), "utf-8")
    kept = getattr(load_ledger(name, lazy=True).sources, "kept", None)  # as `check` names it
    assert isinstance(kept, parsed.Kept)
    records = b""
    for key, source in before.sources.items():
        data = pickle.dumps(source, protocol=pickle.HIGHEST_PROTOCOL)
        seal = (
            usercache.mac(secret, usercache.named(kept.where) + key.encode() + b"\n" + data)
            if secret is not None
            else hashlib.sha256(data).hexdigest()
        )
        records += pickle.dumps((key, seal, data), pickle.HIGHEST_PROTOCOL)
    kept.where.parent.mkdir(parents=True, exist_ok=True)
    kept.where.write_bytes(records)
    return kept.where


def _warm(folder: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITELEDGER_CACHE_DIR", str(cache))
    states, _ = _check(folder)  # the outline kept
    assert set(states.values()) == {"checked"}
    _check(folder)  # the sources parsed from it kept too


def test_a_planted_kept_source_in_the_users_own_cache_is_no_entry(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The attacker cannot read the user's key: a record sealed otherwise (or by the earlier
    digest-only format) is parsed again."""
    _warm(project, tmp_path / "cache", monkeypatch)
    _plant(project)
    states, warnings = _check(project)
    assert states == _fresh(project, tmp_path, monkeypatch)
    assert states[EDITED] == "stale" and not warnings
    _plant(project, b"x" * 32)  # sealed under a key of the attacker's
    assert _check(project)[0][EDITED] == "stale"


def test_a_cache_inside_the_project_is_not_used(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CI pointing the cache into the checkout (to save it between runs): a pull request can
    commit the key and entries sealed with it, so such a cache is neither read nor written."""
    cache = project / ".cache" / "citeledger"
    cache.mkdir(parents=True, mode=0o700)
    secret = b"p" * 32
    key = cache / usercache.KEY
    key.write_bytes(secret)
    key.chmod(0o600)
    monkeypatch.setenv("CITELEDGER_CACHE_DIR", ".cache/citeledger")  # relative, as CI writes it
    _plant(project, secret)
    states, warnings = _check(project)
    assert states == _fresh(project, tmp_path, monkeypatch)
    assert states[EDITED] == "stale"
    assert any("inside the working directory" in w for w in warnings), warnings
    assert not list(cache.rglob("*.json")), "nothing is written there either"


@pytest.mark.skipif(os.geteuid() == 0, reason="every file root could name here is root's own")
def test_a_file_of_another_user_is_not_read() -> None:
    assert usercache.read(Path("/etc/passwd")) is None  # root's, not this user's


def test_a_cache_others_can_write_is_not_used(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shared cache folder (``CITELEDGER_CACHE_DIR=/tmp/…`` made group- or world-writable):
    whoever can write it could plant anything, the key included."""
    cache = tmp_path / "shared"
    _warm(project, cache, monkeypatch)
    secret = (cache / usercache.KEY).read_bytes()
    cache.chmod(0o777)
    try:
        _plant(project, secret)  # another user of the folder, who could read the key
        states, warnings = _check(project)
    finally:
        cache.chmod(0o700)
    assert states == _fresh(project, tmp_path, monkeypatch)
    assert states[EDITED] == "stale"
    assert any("only you can write" in w for w in warnings), warnings


def test_a_key_or_entry_others_could_write_is_not_believed(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key a checkout or a copy made (mode 0644, not the user's alone) is no key, and an
    entry another user could rewrite (group-writable) is no entry."""
    cache = tmp_path / "cache"
    _warm(project, cache, monkeypatch)
    key = cache / usercache.KEY
    secret = key.read_bytes()
    where = _plant(project, secret)
    where.chmod(0o664)
    assert _check(project)[0][EDITED] == "stale"
    where.chmod(0o600)
    usercache._SECRETS.clear()  # a new process
    key.chmod(0o644)
    assert usercache.secret() is None
    assert _check(project)[0][EDITED] == "stale"
    key.chmod(0o600)
    usercache._SECRETS.clear()
    link = cache / "link"
    link.symlink_to(where)
    assert usercache.read(link) is None, "a link is not followed"


def test_a_cache_in_the_ledgers_folder_is_not_used_from_another_working_directory(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CI building from another folder than the checkout's (``--ledger``), with the cache
    named inside the checkout: still the pull request's files, still not used."""
    cache = project / ".cache" / "citeledger"
    cache.mkdir(parents=True, mode=0o700)
    secret = b"q" * 32
    (cache / usercache.KEY).write_bytes(secret)
    (cache / usercache.KEY).chmod(0o600)
    monkeypatch.setenv("CITELEDGER_CACHE_DIR", str(cache))
    _plant(project, secret, str(project / "citeledger.yaml"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    ledger, doc, report = project / "citeledger.yaml", project / "doc.md", elsewhere / "r.json"
    argv = ["check", str(doc), "--ledger", str(ledger), "--json", str(report), "--warn-only"]
    assert main([*argv, "--quiet"]) == 0
    built = json.loads(report.read_text("utf-8"))
    states = {c["key"]: c["state"] for c in built["citations"]}
    assert states[EDITED] == "stale", states
    assert any("the ledger's folder" in w for w in built["warnings"]), built["warnings"]
