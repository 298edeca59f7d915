"""Where the filter's options come from: element > metadata (nested > flat) > env > default."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from helpers import PANDOC, pandoc_json, venv_env

from citeledger.build.options import DEFAULT_LEDGER, Options, read_options
from citeledger.errors import CiteledgerError


def meta(markdown_front_matter: str, *args: str) -> dict:
    return pandoc_json(f"---\n{markdown_front_matter}\n---\n\nx\n", *args)["meta"]


def test_defaults() -> None:
    options = read_options({}, environ={})
    assert options == Options()
    assert options.ledger == DEFAULT_LEDGER and not options.ledger_given
    assert not options.strict and not options.audit
    assert options.audience is None and options.evidence_pages is None


def test_nested_metadata_of_every_kind() -> None:
    m = meta(
        "citeledger:\n  ledger: refs/my ledger.yaml\n  strict: true\n  audit: yes\n"
        "  audience: internal\n  evidence-pages: evidence"
    )
    options = read_options(m, environ={})
    assert options.ledger == "refs/my ledger.yaml"
    assert options.ledger_from_document and options.ledger_given
    assert options.strict and options.audit
    assert (options.audience, options.evidence_pages) == ("internal", "evidence")


def test_flat_spelling_from_dash_m() -> None:
    m = meta("title: t", "-M", "citeledger.ledger=x.yaml", "-M", "citeledger.strict=true")
    options = read_options(m, environ={})
    assert (options.ledger, options.strict) == ("x.yaml", True)


def test_nested_wins_over_flat() -> None:
    m = meta(
        "citeledger:\n  ledger: nested.yaml\n  strict: false",
        "-M",
        "citeledger.ledger=flat.yaml",
        "-M",
        "citeledger.strict=true",
    )
    options = read_options(m, environ={})
    # nested wins for the ledger; strict only tightens, so -M's true holds
    assert (options.ledger, options.strict) == ("nested.yaml", True)


def test_metadata_wins_over_environment_and_environment_over_default() -> None:
    env = {
        "CITELEDGER_LEDGER": "env.yaml",
        "CITELEDGER_STRICT": "1",
        "CITELEDGER_EVIDENCE_PAGES": "ev",
    }
    options = read_options(meta("citeledger:\n  strict: false"), environ=env)
    # strict only tightens: the environment's "1" holds against the document's false
    assert (options.ledger, options.strict, options.evidence_pages) == ("env.yaml", True, "ev")
    assert options.ledger_source == "environment" and not options.ledger_from_document


def test_element_attributes_can_only_make_strict() -> None:
    base = Options(strict=True, audience="public", ledger="a.yaml")
    local = base.for_element(
        (
            ("citeledger-strict", "false"),
            ("citeledger-audience", "internal"),
            ("citeledger-ledger", "other.yaml"),
        )
    )
    assert (local.strict, local.audience, local.ledger) == (True, "public", "a.yaml")
    assert base.for_element(()) is base
    assert Options().for_element((("citeledger-strict", "true"),)).strict


def test_audiences_from_several_sources_are_all_required() -> None:
    options = read_options(
        {**meta("citeledger:\n  audience: internal"), "citeledger.audience": _s("public")},
        environ={},
    )
    assert options.audience == "internal,public"


def test_relative_ledger_is_resolved_against_the_current_directory(tmp_path: Path) -> None:
    assert Options(ledger="refs.yaml").ledger_path(tmp_path) == tmp_path / "refs.yaml"
    assert Options(ledger="/abs/refs.yaml").ledger_path(tmp_path) == Path("/abs/refs.yaml")


@pytest.mark.parametrize("value", ["maybe", "2"])
def test_unreadable_booleans_are_errors_that_say_what_to_write(value: str) -> None:
    with pytest.raises(CiteledgerError, match="true or false"):
        read_options({}, environ={"CITELEDGER_STRICT": value})


def test_empty_ledger_is_an_error() -> None:
    with pytest.raises(CiteledgerError, match="empty"):
        read_options({"citeledger.ledger": {"t": "MetaString", "c": " "}}, environ={})


def test_unknown_option_names_are_kept_for_a_warning() -> None:
    m = meta("citeledger:\n  stric: true", "-M", "citeledger.ledgr=x.yaml")
    options = read_options(m, environ={})
    assert options.unknown == ("ledgr", "stric") and not options.strict


def _s(text: str) -> dict:
    return {"t": "MetaString", "c": text}


@pytest.mark.parametrize(
    ("front_matter", "said"),
    [
        ("citeledger: strict", "not the value 'strict'"),
        ("citeledger: [strict]", "not a list"),
        ("citeledger:\nstrict: true", "not empty (are the options under it indented?)"),
        ("citeledger: true", "not the value 'true'"),
    ],
)
def test_a_citeledger_value_that_is_not_a_map_stops_the_real_filter_in_one_line(
    tmp_path: Path, front_matter: str, said: str
) -> None:
    """Ignored, it turned the writer's strict off without a word (r3 finding 12)."""
    (tmp_path / "doc.md").write_text(f"---\n{front_matter}\n---\n\nThe sun [@c].\n")
    run = subprocess.run(
        [PANDOC, "doc.md", "--filter", "pandoc-citeledger", "-t", "html", "-o", "out.html"],
        cwd=tmp_path,
        env=venv_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode != 0 and not (tmp_path / "out.html").exists()
    lines = [x for x in run.stderr.splitlines() if x.startswith("[ERROR] citeledger:")]
    assert len(lines) == 1 and f"metadata citeledger must be a map of options, {said}" in lines[0]
    assert "strict: true" in lines[0] and "Traceback" not in run.stderr
