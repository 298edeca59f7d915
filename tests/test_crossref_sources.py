"""A key that looks like a cross-reference (``@sec-2020``, ``@eq-smith``) is a citation when
the ledger has it and the document defines no such label; a key that is both is read as the
label, with a warning naming both (strict fails); any other prefixed key stays a
cross-reference (a Quarto book refers to labels of other chapters). Real pandoc, the real
filter, a real ledger."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from helpers import PANDOC, pandoc_json, venv_env

from citeledger.build.citations import scan_document, sourced_crossrefs
from citeledger.build.crossref import CROSSREF_PREFIXES, Crossrefs, defined_labels, is_crossref
from citeledger.cli import main

LEDGER = """\
# the writer's keys happen to look like cross-references
sources:
  sec-2020:
    url: https://example.org/sec
    title: SEC annual report 2020
    quotes:
      - text: Markets fell.
  eq-smith:
    url: https://example.org/eq
    title: Smith on equations
    quotes:
      - text: The equation holds.
"""


def _project(tmp_path: Path, doc: str) -> Path:
    (tmp_path / "citeledger.yaml").write_text(LEDGER, encoding="utf-8")
    (tmp_path / "doc.md").write_text(doc, encoding="utf-8")
    return tmp_path


def _build(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PANDOC, "doc.md", "--filter", "pandoc-citeledger", "-t", "plain", "--wrap=none", *args],
        cwd=project,
        capture_output=True,
        text=True,
        env=venv_env(CITELEDGER_CACHE_DIR=str(project.parent / f"{project.name}-cache")),
        check=False,
    )


def test_a_ledger_key_that_looks_like_a_crossref_is_judged(tmp_path: Path) -> None:
    doc = "Markets fell [@sec-2020]. See @sec-intro, @fig-x and [@Eq-smith, p. 3].\n"
    build = _build(_project(tmp_path, doc))
    assert build.returncode == 0, build.stderr
    assert "Markets fell [@sec-2020] [citation 1: unchecked]." in build.stdout
    assert "Citation 1: sec-2020" in build.stdout
    # ``Eq-smith`` is no ledger key (keys are case-sensitive): a capitalised cross-reference
    assert "See @sec-intro, @fig-x and [@Eq-smith, p. 3]." in build.stdout
    assert "citation 2" not in build.stdout and "label" not in build.stderr


def test_a_prefixed_key_no_ledger_has_stays_a_crossref(tmp_path: Path) -> None:
    """A Quarto book's chapter refers to a section of another chapter: no label here, no
    source, so nothing to judge and nothing to warn about — and the document is written back
    byte for byte, as every document without citations is."""
    project = _project(tmp_path, "As @sec-method shows, see @fig-1 and @thm-main.\n")
    raw = subprocess.run(
        [PANDOC, "doc.md", "-t", "json"], cwd=project, capture_output=True, check=True
    ).stdout
    filtered = subprocess.run(
        [sys.executable, "-m", "citeledger.build.filter", "html"],
        cwd=project,
        input=raw,
        capture_output=True,
        env=venv_env(CITELEDGER_CACHE_DIR=str(project.parent / f"{project.name}-cache")),
        check=True,
    )
    assert filtered.stdout == raw and filtered.stderr == b""


@pytest.mark.parametrize(
    "defines",
    [
        "# Results {#sec-2020}\n\nText.\n",
        "::: {#sec-2020}\nA div.\n:::\n",
        "A [span]{#sec-2020} here.\n",
        "![A figure](x.png){#sec-2020}\n",
        "```{#sec-2020 .python}\nx = 1\n```\n",
        "$$ E = mc^2 $$ {#sec-2020}\n",
        "| a |\n|---|\n| 1 |\n\n: A table {#sec-2020}\n",
    ],
    ids=["header", "div", "span", "figure", "code", "display-math", "table-caption"],
)
def test_a_ledger_key_the_document_defines_as_a_label_is_a_breakdown_with_a_warning(
    tmp_path: Path, defines: str
) -> None:
    """A cross-reference filter after this one may read the key as the label, citeproc as the
    source: never shown checked, and the reader is told at the citation (strict fails)."""
    project = _project(tmp_path, f"{defines}\nAs @sec-2020 shows.\n")
    build = _build(project)
    assert build.returncode == 0, build.stderr
    assert "As @sec-2020 [citation 1: unchecked] shows." in build.stdout, build.stdout
    assert "@sec-2020 is a source and also a label this document defines" in build.stdout
    assert "citation 2" not in build.stdout
    [warning] = [line for line in build.stderr.splitlines() if "is a source (a key" in line]
    assert warning.startswith("[WARNING] citeledger: @sec-2020 is a source (a key of the ledger")
    assert "citeledger.yaml" in warning and "{#sec-2020}" in warning
    assert "Rename the label" in warning
    strict = _build(project, "-M", "citeledger.strict=true")
    assert strict.returncode != 0
    assert "strict: 1 ledger key is a label of this document too" in strict.stderr


@pytest.mark.parametrize(
    "text",
    [
        "<!-- {#sec-2020} -->\n",
        "Some `{#sec-2020}` code.\n",
        "```\n{#sec-2020}\n```\n",
        "Plain words {#sec-2020} here.\n",
        "`x`{#sec-2020}\n",
        '<p id="sec-2020">Words.</p>\n',
    ],
    ids=["html-comment", "code", "code-block", "prose", "code-id", "raw-html"],
)
def test_text_that_defines_no_label_leaves_the_source_a_citation(tmp_path: Path, text: str) -> None:
    """An HTML comment (or code, or prose) holding ``{#sec-2020}`` made the source a
    cross-reference with no callout; only what a label reader reads is a label."""
    build = _build(_project(tmp_path, f"{text}\nMarkets fell [@sec-2020].\n"))
    assert build.returncode == 0, build.stderr
    assert "Markets fell [@sec-2020] [citation 1: unchecked]." in build.stdout, build.stdout
    assert "also a label" not in build.stdout + build.stderr


def test_check_reads_them_as_the_build_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITELEDGER_CACHE_DIR", str(tmp_path.parent / f"{tmp_path.name}-cache"))
    doc = "Markets fell sharply that whole year [@sec-2020].\n\n$$ x $$ {#eq-smith}\n\n"
    doc += "The rule holds as @eq-smith and @fig-1 show.\n"
    project = _project(tmp_path, doc)
    report = project / "report.json"
    code = main(["check", str(project / "doc.md"), "--json", str(report)])
    assert code == 1  # the one citation is unchecked
    data = json.loads(report.read_text(encoding="utf-8"))
    # @eq-smith is a source and a label both: judged, never checked
    assert [c["key"] for c in data["citations"]] == ["sec-2020", "eq-smith"]
    assert data["citations"][1]["state"] == "unchecked"
    [warning] = data["warnings"]
    assert "@eq-smith is a source (a key of the ledger" in warning and "doc.md" in warning
    assert data["coverage"]["without_provenance"] == []
    assert "@eq-smith is a source (a key of the ledger" in capsys.readouterr().err


def test_is_crossref_with_cited_keys() -> None:
    prefixes = Crossrefs(CROSSREF_PREFIXES, {"sec-2020"})
    assert is_crossref("sec-2020") and not is_crossref("sec-2020", prefixes)
    assert is_crossref("sec-2021", prefixes) and not is_crossref("smith", prefixes)
    assert not is_crossref("fig-x", ())


def test_labels_are_looked_for_only_when_a_prefixed_key_is_a_source() -> None:
    doc = pandoc_json("# A {#sec-a}\n\nSee @sec-a and @sec-b and [@smith].\n")
    asked: list[set[str]] = []

    def sources(keys: object) -> list[str]:
        asked.append(set(keys))  # type: ignore[call-overload]
        return []

    scan = scan_document(doc)
    assert sourced_crossrefs(doc, scan, sources) == (scan, [])
    assert asked == [{"sec-a", "sec-b"}]
    again, both = sourced_crossrefs(doc, scan, lambda keys: ["sec-a", "sec-b"])
    assert both == ["sec-a"]  # a label and a source: a citation the filter shows as both
    assert [f.ref.key for f in again.citations] == ["sec-a", "sec-b", "smith"]
    assert defined_labels(doc, {"sec-a", "sec-b"}) == {"sec-a"}


BIB = """\
@book{fig-2019,
  title = {Figures of Speech},
  author = {Doe, Jane},
  year = {2019},
}
"""


@pytest.mark.parametrize("where", ["bib", "references"])
def test_a_bibliography_key_that_looks_like_a_crossref_is_judged(
    tmp_path: Path, where: str
) -> None:
    """citeproc renders ``[@fig-2019]`` from the .bib (or ``references``): a citation no
    ledger source backs, so ``not-in-ledger``, never passed over."""
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    head = (
        "bibliography: refs.bib"
        if where == "bib"
        else "references:\n- id: fig-2019\n  type: book\n  title: Figures of Speech"
    )
    doc = f"---\n{head}\n---\n\nSpeech has figures [@fig-2019]. See @fig-2020.\n"
    build = _build(_project(tmp_path, doc))
    assert "Speech has figures [@fig-2019] [citation 1: not in ledger]." in build.stdout
    assert "See @fig-2020." in build.stdout and "citation 2" not in build.stdout


def test_bibliography_sources_reads_each_format(tmp_path: Path) -> None:
    from citeledger.build.crossref_sources import bibliography_sources

    (tmp_path / "a.bib").write_text("@article{ sec-1 ,\n title={A}}\n@book{sec-10x, title={B}}\n")
    (tmp_path / "b.json").write_text('[{"id": "eq-2", "type": "book"}]')
    (tmp_path / "c.yaml").write_text("references:\n- id: 'tbl-3'\n  type: book\n")
    files = [{"t": "MetaString", "c": name} for name in ("a.bib", "b.json", "c.yaml", "gone.bib")]
    meta = {"bibliography": {"t": "MetaList", "c": files}}
    lookup = bibliography_sources(meta, [tmp_path])
    asked = {"sec-1", "sec-10", "eq-2", "tbl-3", "tbl-33"}
    assert set(lookup(asked)) == {"sec-1", "eq-2", "tbl-3"}


def test_a_rerun_and_a_markdown_build_keep_them_citations(tmp_path: Path) -> None:
    """The filter's own output filtered again changes nothing; a GitHub Markdown build writes
    the citation back with its quote selector (matched to its item, not to the list of items
    a cross-reference test left)."""
    ledger = LEDGER + "  smith:\n    url: https://example.org/smith\n    title: Smith\n"
    ledger += "    quotes:\n      - text: One.\n        id: one\n"
    ledger += "      - text: Two.\n        id: two\n"
    project = _project(tmp_path, "Claim [@sec-2020; @smith quote:two]. See @sec-intro.\n")
    (project / "citeledger.yaml").write_text(ledger, encoding="utf-8")
    env = venv_env(CITELEDGER_CACHE_DIR=str(project.parent / f"{project.name}-cache"))

    def run(*args: str, data: bytes | None = None) -> bytes:
        done = subprocess.run(args, cwd=project, input=data, capture_output=True, env=env)
        assert done.returncode == 0, done.stderr
        return done.stdout

    raw = run(PANDOC, "doc.md", "-t", "json")
    once = run(sys.executable, "-m", "citeledger.build.filter", "html", data=raw)
    twice = run(sys.executable, "-m", "citeledger.build.filter", "html", data=once)
    assert once == twice and b"citeledger-cite" in once
    gfm = run(PANDOC, "doc.md", "--filter", "pandoc-citeledger", "-t", "gfm").decode()
    assert "Claim [@sec-2020; @smith quote:two] **\\[citation 1: unchecked\\]**" in gfm


# --- F-A: a prefixed key is a cross-reference only when the filter knows it is no source ---

ESCAPED = {
    # citeproc decodes each of these ids to ``sec-2030``; none holds the bytes ``sec-2030``
    "refs.json": '[{"id": "sec\\u002d2030", "type": "report", "title": "SEC 2030"}]',
    "refs.yaml": 'references:\n- id: "sec\\x2d2030"\n  type: report\n  title: SEC 2030\n',
    "folded.yaml": 'references:\n- id: "sec-\\\n    2030"\n  type: report\n  title: SEC 2030\n',
}


@pytest.mark.parametrize("name", sorted(ESCAPED))
def test_a_bibliography_id_written_escaped_is_still_a_source(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_text(ESCAPED[name], encoding="utf-8")
    doc = f"---\nbibliography: {name}\n---\n\nMarkets fell [@sec-2030]. See @sec-2031.\n"
    build = _build(_project(tmp_path, doc), "--citeproc")
    assert "Markets fell (" in build.stdout and "SEC 2030" in build.stdout  # citeproc found it
    assert "[citation 1: not in ledger]." in build.stdout, build.stdout
    assert "See @sec-2031." in build.stdout or "(sec-2031?)" in build.stdout
    assert "citation 2" not in build.stdout


def test_a_ledger_key_written_escaped_is_still_a_source(tmp_path: Path) -> None:
    project = _project(tmp_path, "Markets fell [@sec-2030]. See @sec-intro.\n")
    ledger = '\nsources:\n  "sec\\x2d2030":\n    url: https://example.org/s\n    quotes:\n'
    (project / "citeledger.yaml").write_text(ledger + "      - text: Markets fell.\n")
    build = _build(project)
    assert build.returncode == 0, build.stderr
    assert "Markets fell [@sec-2030] [citation 1: unchecked]." in build.stdout
    assert "See @sec-intro." in build.stdout and "citation 2" not in build.stdout


def test_a_bibliography_found_through_resource_path(tmp_path: Path) -> None:
    """pandoc finds ``sub/refs.bib`` through ``--resource-path``, which a filter cannot see:
    the key it might hold is judged, with a breakdown that says why; the ``resource-path``
    metadata the filter can read finds the entry itself."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "refs.bib").write_text(BIB.replace("fig-2019", "sec-2030"))
    doc = "---\nbibliography: refs.bib\n---\n\nMarkets fell [@sec-2030]. See @sec-a.\n\n"
    project = _project(tmp_path, doc + "# A {#sec-a}\n")
    build = _build(project, "--citeproc", "--resource-path=.:sub")
    assert "Markets fell (Doe 2019) [citation 1: not in ledger]." in build.stdout, build.stdout
    assert "cannot tell @sec-2030 from a cross-reference" in build.stdout
    assert "bibliography refs.bib (not found in" in build.stdout
    # a label the document defines is a cross-reference still, with no note
    assert "See (sec-a?)." in build.stdout and "citation 2" not in build.stdout
    assert not [
        line for line in build.stderr.splitlines() if "citeledger" in line and "sec-a" in line
    ]
    [warning] = [line for line in build.stderr.splitlines() if "filter could not read" in line]
    assert "the bibliography refs.bib" in warning and "@sec-2030" in warning
    meta = _build(project, "--citeproc", "--resource-path=.:sub", "-M", "resource-path=sub")
    assert "Markets fell (Doe 2019) [citation 1: not in ledger]." in meta.stdout
    assert "cannot tell" not in meta.stdout and "could not read" not in meta.stderr


@pytest.mark.parametrize("bibliography", ["https://example.org/refs.bib", "refs.json", "x.bin"])
def test_a_bibliography_the_filter_cannot_read_makes_prefixed_keys_citations(
    tmp_path: Path, bibliography: str
) -> None:
    (tmp_path / "refs.json").write_text('[{"id": "sec\\u002d2030",')  # cut short
    (tmp_path / "x.bin").write_text("@book{sec-2030, title={A}}\n")
    doc = f"---\nbibliography: {bibliography}\n---\n\nMarkets fell [@sec-2030].\n"
    build = _build(_project(tmp_path, doc))
    assert "Markets fell [@sec-2030] [citation 1: not in ledger]." in build.stdout, build.stderr
    assert f"it could not read the bibliography {bibliography} (" in build.stdout


def test_bibliography_sources_is_unsure_of_what_it_cannot_read(tmp_path: Path) -> None:
    from citeledger.build.crossref_sources import Unsure, any_source, bibliography_sources

    (tmp_path / "a.bib").write_text("@book{sec-1, title={A}}\n")
    files = [{"t": "MetaString", "c": name} for name in ("a.bib", "gone.bib")]
    lookup = any_source(
        bibliography_sources({"bibliography": {"t": "MetaList", "c": files}}, [tmp_path])
    )
    answer = lookup({"sec-1", "sec-2"})
    assert isinstance(answer, Unsure) and set(answer) == {"sec-1"}
    assert answer.unsure == {"sec-2"} and [n for n, _ in answer.unread] == ["gone.bib"]
    found = bibliography_sources({"bibliography": files[0]}, [tmp_path])({"sec-1", "sec-2"})
    assert set(found) == {"sec-1"} and not getattr(found, "unsure", None)


def test_check_judges_a_key_of_an_unread_bibliography(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITELEDGER_CACHE_DIR", str(tmp_path.parent / f"{tmp_path.name}-cache"))
    doc = "---\nbibliography: gone.bib\n---\n\nMarkets fell sharply that year [@sec-2030].\n"
    project = _project(tmp_path, doc)
    report = project / "report.json"
    assert main(["check", str(project / "doc.md"), "--json", str(report)]) == 1
    data = json.loads(report.read_text(encoding="utf-8"))
    [cited] = data["citations"]
    assert cited["key"] == "sec-2030" and cited["state"] == "not-in-ledger"
    assert any("could not read the bibliography gone.bib" in w for w in data["warnings"])


# --- F-F: a bibliography is read through the one read gate, with a size cap ---


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "too-large"])
def test_a_bibliography_that_is_no_file_is_refused_not_read(tmp_path: Path, kind: str) -> None:
    """A committed ``refs.bib -> /dev/zero`` link or a FIFO made the filter read forever (or
    die in a traceback); a file past the cap is refused before it is read. Each is "not
    readable": the prefixed key is judged, and one warning names the file."""
    import os

    from citeledger.build.bib_ids import BIB_LIMIT

    bib = tmp_path / "refs.bib"
    if kind == "fifo":
        os.mkfifo(bib)
    elif kind == "dev-zero":
        bib.symlink_to("/dev/zero")
    else:
        with bib.open("wb") as fh:  # sparse: no disk is spent
            fh.truncate(BIB_LIMIT + 1)
    doc = "---\nbibliography: refs.bib\n---\n\nMarkets fell [@sec-2030]. As @sec-a shows.\n\n"
    project = _project(tmp_path, doc + "# A {#sec-a}\n")
    build = subprocess.run(
        [PANDOC, "doc.md", "--filter", "pandoc-citeledger", "-t", "plain", "--wrap=none"],
        cwd=project,
        capture_output=True,
        text=True,
        env=venv_env(CITELEDGER_CACHE_DIR=str(tmp_path.parent / f"{tmp_path.name}-cache")),
        timeout=120,  # a hang is the failure, not a wait
        check=False,
    )
    assert build.returncode == 0, build.stderr
    assert "Traceback" not in build.stderr
    assert "Markets fell [@sec-2030] [citation 1: not in ledger]." in build.stdout
    assert "citation 2" not in build.stdout
    [warning] = [line for line in build.stderr.splitlines() if "filter could not read" in line]
    said = {"fifo": "named pipe (FIFO)", "dev-zero": "character device", "too-large": "larger"}
    assert "the bibliography refs.bib (" in warning and said[kind] in warning
    assert "@sec-2030" in warning and "@sec-a" not in warning


def test_a_bibliography_not_read_is_warned_about_when_no_key_needs_it(tmp_path: Path) -> None:
    (tmp_path / "refs.bib").symlink_to("/dev/zero")
    doc = "---\nbibliography: refs.bib\n---\n\n# A {#sec-a}\n\nAs @sec-a shows [@eq-smith].\n"
    build = _build(_project(tmp_path, doc))
    assert build.returncode == 0, build.stderr
    assert "[citation 1: unchecked]" in build.stdout and "citation 2" not in build.stdout
    [warning] = [line for line in build.stderr.splitlines() if "filter could not read" in line]
    assert warning.endswith("the path is a character device, not a file)")


def test_read_regular_refuses_past_its_limit(tmp_path: Path) -> None:
    from citeledger.inputs import TooLarge, read_regular

    (tmp_path / "a").write_bytes(b"12345")
    assert read_regular(tmp_path / "a", limit=5) == b"12345"
    with pytest.raises(TooLarge):
        read_regular(tmp_path / "a", limit=4)


# --- rev3: every id citeproc may read is a source ---


@pytest.mark.parametrize("order", ['"sec-2030", "id": "other"', '"other", "id": "sec-2030"'])
def test_a_csl_json_item_with_two_ids_counts_both(tmp_path: Path, order: str) -> None:
    """pandoc keeps an item's first ``"id"``, ``json.loads`` its last: either is a source."""
    (tmp_path / "refs.json").write_text(f'[{{"id": {order}, "type": "book", "title": "T"}}]')
    doc = "---\nbibliography: refs.json\n---\n\nMarkets fell [@sec-2030]. See @sec-a.\n"
    build = _build(_project(tmp_path, doc))
    assert "Markets fell [@sec-2030] [citation 1: not in ledger]." in build.stdout, build.stdout
    assert "See @sec-a." in build.stdout and "citation 2" not in build.stdout


MARKED_IDS = [
    "'**sec-2030**'",
    "'[sec-2030]{.x}'",
    "'*sec*-2030'",
    "'`sec`-2030'",
    "'<span>sec</span>-2030'",
    "'sec-2030<!-- c -->'",
    "'sec-2030^[a note]'",
    "|\n    sec-2030",
]


@pytest.mark.parametrize("ident", MARKED_IDS)
def test_a_references_id_written_with_markup_is_a_source(tmp_path: Path, ident: str) -> None:
    """pandoc reads a ``references`` id as plain text (markup dropped): citeproc renders
    ``@sec-2030`` from it, so the filter judges it."""
    head = f"references:\n- id: {ident}\n  type: book\n  title: T\n  author: [{{family: Doe}}]"
    doc = f"---\n{head}\n  issued: 2019\n---\n\nMarkets fell [@sec-2030]. See @sec-a.\n"
    build = _build(_project(tmp_path, doc), "--citeproc")
    assert "Markets fell (Doe 2019) [citation 1: not in ledger]." in build.stdout, build.stdout
    assert "citation 2" not in build.stdout


STRINGIFY = """\
function Pandoc(doc)
  local out = {}
  for _, ref in ipairs(doc.meta.references) do out[#out + 1] = pandoc.utils.stringify(ref.id) end
  local f = io.open("ids.txt", "w")
  f:write(table.concat(out, "\\31"))
  f:close()
end
"""


def test_ref_id_reads_an_id_as_pandoc_stringifies_it(tmp_path: Path) -> None:
    """The filter's reading of each id is pandoc's own (``pandoc.utils.stringify``): emphasis,
    spans, code, smart quotes, spaces, line breaks, notes, raw HTML."""
    from citeledger.build.references import ref_id

    idents = [
        *MARKED_IDS,
        "'\"sec\"-2030'",
        "\"'sec'-2030\"",
        "'sec  2030'",
        "'sec--2030'",
        "'[sec](https://example.org)-2030'",
        "'sec\\\n  2030'",
        "'![sec](x.png)-2030'",
        "'$x$-2030'",
    ]
    doc = "---\nreferences:\n" + "".join(f"- id: {i}\n  type: book\n" for i in idents) + "---\n"
    (tmp_path / "doc.md").write_text(doc, encoding="utf-8")
    (tmp_path / "ids.lua").write_text(STRINGIFY, encoding="utf-8")
    subprocess.run([PANDOC, "doc.md", "-L", "ids.lua", "-o", "out.txt"], cwd=tmp_path, check=True)
    theirs = (tmp_path / "ids.txt").read_text(encoding="utf-8").split("\x1f")
    ours = [ref_id(item) for item in pandoc_json(doc)["meta"]["references"]["c"]]
    assert ours == theirs


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be"])
def test_a_utf16_bibliography_with_a_byte_order_mark_is_read(tmp_path: Path, codec: str) -> None:
    """pandoc reads a CSL YAML file saved as UTF-16 with a byte-order mark: so does the filter."""
    head = "references:\n- id: sec-2030\n  type: book\n  title: T\n  author: [{family: Doe}]\n"
    data = head + "  issued: 2019\n"
    raw = data.encode(codec) if codec == "utf-16" else b"\xfe\xff" + data.encode(codec)
    (tmp_path / "refs.yaml").write_bytes(raw)
    doc = "---\nbibliography: refs.yaml\n---\n\nMarkets fell [@sec-2030]. See @sec-a.\n"
    build = _build(_project(tmp_path, doc), "--citeproc")
    assert "Markets fell (Doe 2019) [citation 1: not in ledger]." in build.stdout, build.stdout
    assert "citation 2" not in build.stdout


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-32"])
def test_ids_in_decodes_by_the_byte_order_mark(codec: str) -> None:
    from citeledger.build.bib_ids import ids_in

    text = '[{"id": "sec-1", "type": "book"}]'
    data = ("\ufeff" + text).encode(codec) if codec == "utf-16-le" else text.encode(codec)
    assert ids_in("refs.json", data, {"sec-1", "sec-2"}) == {"sec-1"}


def test_a_biblatex_file_is_read_as_bibtex(tmp_path: Path) -> None:
    """pandoc reads ``refs.biblatex`` as BibLaTeX: its key is a source, and a book's reference
    to another chapter's section is still a cross-reference, with no warning."""
    (tmp_path / "refs.biblatex").write_text(BIB.replace("fig-2019", "sec-2030"))
    doc = "---\nbibliography: refs.biblatex\n---\n\nMarkets fell [@sec-2030]. See @sec-method.\n"
    build = _build(_project(tmp_path, doc), "--citeproc")
    assert "Markets fell (Doe 2019) [citation 1: not in ledger]." in build.stdout, build.stdout
    assert "citation 2" not in build.stdout and "could not read" not in build.stderr


def test_a_name_the_filter_cannot_read_says_which_it_can() -> None:
    from citeledger.build.bib_ids import Unreadable, ids_in

    with pytest.raises(Unreadable, match=r"only from a name ending .bib, .bibtex, .biblatex, .js"):
        ids_in("refs.bin", b"@book{sec-1, title={A}}", {"sec-1"})


def test_a_bibliography_name_in_two_folders_is_read_in_both(tmp_path: Path) -> None:
    """The document's ``resource-path`` metadata names ``lib``, pandoc's command line reads
    ``./refs.json`` first: the filter cannot see which one pandoc reads, so a key either holds
    is a source (``lib/refs.json`` alone would say ``@sec-2030`` is none)."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "refs.json").write_text('[{"id": "sec-other", "type": "book"}]')
    entry = '"id": "sec-2030", "type": "book", "author": [{"family": "Doe"}]'
    (tmp_path / "refs.json").write_text(f'[{{{entry}, "issued": {{"date-parts": [[2019]]}}}}]')
    head = "bibliography: refs.json\nresource-path: lib"
    doc = f"---\n{head}\n---\n\nMarkets fell [@sec-2030]. See @sec-other and @sec-a.\n"
    build = _build(_project(tmp_path, doc), "--citeproc", "--resource-path=.:lib")
    assert "Markets fell (Doe 2019) [citation 1: not in ledger]." in build.stdout, build.stdout
    assert "See (sec-other?) [citation 2: not in ledger]" in build.stdout  # the other file's
    assert "citation 3" not in build.stdout and "could not read" not in build.stderr
