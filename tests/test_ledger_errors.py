"""Every way a ledger can be wrong is one line naming the file, the line and the fix.

The bad ledgers live in ``tests/data/ledgers/``; each states what it expects in its first lines
(``# expect-line``, ``# expect-message``, ``# expect-fix``) so a reader sees the case and its
verdict side by side.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from citeledger.errors import LedgerError
from citeledger.ledger import load_ledger, yamlnodes

BAD = Path(__file__).parent / "data" / "ledgers"
FIXTURES = sorted(BAD.glob("*.yaml"))


def expectations(path: Path) -> dict[str, str]:
    found = dict(re.findall(r"^# expect-([a-z]+): (.*)$", path.read_text("utf-8"), re.M))
    assert set(found) == {"line", "message", "fix"}, f"{path.name} lacks its expectations"
    return found


def load_error(path: Path | str) -> LedgerError:
    with pytest.raises(LedgerError) as err:
        load_ledger(path)
    return err.value


def assert_one_line(err: LedgerError, file: str, line: int | None) -> str:
    text = str(err)
    assert "\n" not in text
    assert "Traceback" not in text and 'File "' not in text
    where = f"{file}:{line}: " if line else f"{file}: "
    assert text.startswith(where), text
    assert err.file == file and err.line == line
    return text


def test_there_is_a_fixture_for_every_error_kind() -> None:
    assert len(FIXTURES) >= 45


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_bad_ledger_is_one_line_with_file_line_and_fix(path: Path) -> None:
    expected = expectations(path)
    err = load_error(str(path))
    text = assert_one_line(err, str(path), int(expected["line"]))
    assert expected["message"] in err.message, text
    assert err.fix and expected["fix"] in err.fix, text
    assert text.endswith(f" — {' '.join(err.fix.split())}")


@pytest.mark.parametrize(
    "name", ["duplicate-field", "malformed-colon", "two-identifiers", "duplicate-in-receipt"]
)
def test_pure_python_parser_reports_the_same_lines(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without libyaml the loader falls back to PyYAML's own parser, with the same verdicts."""
    import yaml

    path = BAD / f"{name}.yaml"
    expected = expectations(path)
    monkeypatch.setattr(yamlnodes, "_LazyLoader", yamlnodes._lazy_loader(yaml.SafeLoader))
    err = load_error(str(path))
    assert err.line == int(expected["line"])
    assert expected["message"].split(":")[0] in err.message


def test_missing_ledger_says_which_file_and_how_to_fix(tmp_path: Path) -> None:
    path = str(tmp_path / "citeledger.yaml")
    err = load_error(path)
    text = assert_one_line(err, path, None)
    assert "does not exist" in text
    assert "create it or pass --ledger / citeledger.ledger" in text


def test_a_folder_is_not_a_ledger(tmp_path: Path) -> None:
    err = load_error(str(tmp_path))
    assert "is a folder" in str(err)


def test_non_utf8_ledger_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "citeledger.yaml"
    path.write_bytes(b"sources:\n  smith2020:\n    title: caf\xe9\n")
    err = load_error(str(path))
    assert_one_line(err, str(path), 3)
    assert err.fix == "save the file as UTF-8"


def test_control_character_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "citeledger.yaml"
    path.write_text("sources:\n  smith2020:\n    title: bell\x07\n", "utf-8")
    err = load_error(str(path))
    assert_one_line(err, str(path), 3)
    assert "#x0007" in err.message


def test_file_identifier_through_a_symlink_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "doc.pdf").write_bytes(b"%PDF-1.4")
    project = tmp_path / "project"
    project.mkdir()
    (project / "docs").symlink_to(outside)
    ledger = project / "citeledger.yaml"
    ledger.write_text("sources:\n  s:\n    file: docs/doc.pdf\n", "utf-8")
    err = load_error(str(ledger))
    assert_one_line(err, str(ledger), 3)
    assert "outside the ledger's folder" in err.message


def test_error_file_is_the_path_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("book.yaml").write_text("sources:\n  k:\n    doi: 10.1/x\n", "utf-8")
    err = load_error("book.yaml")
    assert str(err).startswith("book.yaml:3: ")


@pytest.mark.parametrize("name", ["a\\nContent-Length: 7\\nX: .txt", "a\\tb.txt", "a\\u2028b.txt"])
def test_a_file_path_with_a_control_character_is_refused(tmp_path: Path, name: str) -> None:
    """A line break in a path went into the evidence's WARC headers as headers of its own (a
    forged Content-Length): the ledger names the line and what to fix instead."""
    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text(f'sources:\n  s:\n    file: "{name}"\n', "utf-8")
    err = load_error(str(ledger))
    assert_one_line(err, str(ledger), 3)
    assert "control character" in err.message
