"""``citeledger build``: many pages in one process, each page exactly what pandoc builds alone.

The claim is byte identity with ``pandoc PAGE --filter pandoc-citeledger ARGS -o OUT`` (real
pandoc, real filter, a verified copy of ``examples/site`` plus generated pages), page by page
semantics (warnings naming the page, strict failing that page only, nothing half-written), and
a shared judge that never carries one page's warnings or state into another.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from browser_util import MANUAL
from citeledger.build.batch import HeldEvidence, split_pandoc_args
from citeledger.build.filter import LedgerJudges, run_filter
from citeledger.errors import CiteledgerError

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
ENV = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
SITE_ARGS = ["-s", "--citeproc", "-M", "citeledger.ledger=citeledger.yaml"]

GENERATED = {
    # no citation at all: passes through the filter untouched
    "plain.md": "# Plain\n\nNothing cited here, only *words*.\n",
    # no title: pandoc titles the page by its input's name
    "untitled.md": "The range is 4.2 m [@tides quote:range]. Crossing [@tides quote:crossing].\n",
    # five citations, one of a key the ledger lacks, one broken
    "deep/er/five.md": (
        "---\ntitle: Five\n---\n\nOne [@tides quote:range]. Two [@tides quote:crossing].\n\n"
        "Three [@ranger-log quote:cut-off]. Four [@ranger-log quote:closed]. Five [@nobody].\n"
    ),
    # a page's own strictness (a breakdown in it): that page alone fails
    "strict.md": (
        "---\ntitle: Strict\nciteledger:\n  strict: true\n---\n\n"
        "Closed [@ranger-log quote:closed].\n"
    ),
}


def _run(
    args: list[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, env=env or ENV, check=False
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A verified copy of examples/site, with the generated pages beside its own."""
    work = tmp_path_factory.mktemp("batch") / "site"
    ignore = shutil.ignore_patterns("build", "public", ".citeledger")
    shutil.copytree(REPO / "examples" / "site", work, ignore=ignore)
    for name, text in GENERATED.items():
        (work / "pages" / name).parent.mkdir(parents=True, exist_ok=True)
        (work / "pages" / name).write_text(text, "utf-8")
    verified = _run([str(BIN / "citeledger"), "verify", "--yes", "--warn-only"], work)
    assert verified.returncode == 0, verified.stderr
    return work


def _pages(site: Path, *, strict: bool = False) -> list[str]:
    found = sorted(str(p.relative_to(site)) for p in (site / "pages").rglob("*.md"))
    return [p for p in found if strict or not p.endswith("strict.md")]


def _alone(
    site: Path, page: str, out: Path, args: list[str], env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    out.parent.mkdir(parents=True, exist_ok=True)
    ours = [] if "pandoc-citeledger" in args else ["--filter", "pandoc-citeledger"]
    cmd = ["pandoc", page, *ours, *args, "-o", str(out)]
    return _run(cmd, site, env)


def _batch(
    site: Path, pages: list[str], out: str, args: list[str], *extra: str, pandoc: str
) -> subprocess.CompletedProcess[str]:
    cmd = [
        str(BIN / "citeledger"),
        "build",
        *pages,
        "--base",
        "pages",
        "-o",
        out,
        "--pandoc",
        pandoc,
    ]
    return _run([*cmd, *extra, "--", *args], site)


def _out(folder: Path, page: str, ext: str) -> Path:
    return folder / Path(page).relative_to("pages").with_suffix(ext)


@pytest.mark.parametrize(
    ("args", "ext"),
    [
        (SITE_ARGS, ".html"),
        (["-s", "-t", "latex", "-M", "citeledger.ledger=citeledger.yaml"], ".tex"),
        (["-t", "gfm", "--citeproc"], ".md"),
        (["--citeproc", "--filter", "pandoc-citeledger", "--toc", "-s"], ".html"),
    ],
    ids=["html-standalone-citeproc", "latex-standalone", "gfm", "citeproc-first"],
)
def test_every_page_is_byte_identical_to_pandoc_with_the_filter(
    site: Path, pandoc_path: str, args: list[str], ext: str, tmp_path: Path
) -> None:
    pages = _pages(site)
    built = _batch(site, pages, str(tmp_path / "batch"), args, "--jobs", "2", pandoc=pandoc_path)
    assert built.returncode == 0, built.stderr
    for page in pages:
        alone = _alone(site, page, _out(tmp_path / "alone", page, ext), args)
        assert alone.returncode == 0, alone.stderr
        mine = _out(tmp_path / "batch", page, ext).read_bytes()
        assert mine == _out(tmp_path / "alone", page, ext).read_bytes(), page
    assert "Citation failed" in _out(tmp_path / "batch", "pages/reports/may.md", ext).read_text()


def test_a_lua_filter_after_ours_runs_on_our_output(
    site: Path, pandoc_path: str, tmp_path: Path
) -> None:
    lua = tmp_path / "upper.lua"
    lua.write_text("function Str(s) return pandoc.Str(s.text:upper()) end\n")
    args = [*SITE_ARGS, "--filter", "pandoc-citeledger", "--lua-filter", str(lua)]
    pages = _pages(site)
    built = _batch(site, pages, str(tmp_path / "batch"), args, pandoc=pandoc_path)
    assert built.returncode == 0, built.stderr
    for page in pages:
        _alone(site, page, _out(tmp_path / "alone", page, ".html"), args)
        assert (
            _out(tmp_path / "batch", page, ".html").read_bytes()
            == _out(tmp_path / "alone", page, ".html").read_bytes()
        )
    assert (
        "CITATION FAILED" in _out(tmp_path / "batch", "pages/reports/may.md", ".html").read_text()
    )


def test_warnings_name_their_page_and_strict_fails_that_page_alone(
    site: Path, pandoc_path: str, tmp_path: Path
) -> None:
    out = tmp_path / "public"
    old = _out(out, "pages/strict.md", ".html")
    old.parent.mkdir(parents=True)
    old.write_text("the last good build")
    built = _batch(site, _pages(site, strict=True), str(out), SITE_ARGS, pandoc=pandoc_path)
    assert built.returncode == 1
    lines = built.stderr.splitlines()
    assert any(
        line.startswith("[WARNING] citeledger: pages/reports/may.md: citation 2 (@ranger-log")
        for line in lines
    )
    assert any(line.startswith("[ERROR] citeledger: pages/strict.md: strict:") for line in lines)
    assert lines[-1] == "citeledger: error: 1 of 7 pages failed (not written): pages/strict.md"
    # what pandoc does when its filter fails: nothing written, the old output left as it was
    assert old.read_text() == "the last good build"
    assert _out(out, "pages/index.md", ".html").exists()
    assert not [p for p in out.rglob(".tmp-*")]
    # a page's warnings are its own: the plain page's build printed none
    assert not any("pages/plain.md" in line for line in lines)


def test_evidence_pages_linked_relatively_from_each_output_folder(
    site: Path, pandoc_path: str, tmp_path: Path
) -> None:
    """``--evidence-pages DIR``: each page as pandoc builds it with the folder and its relative
    link in the environment; the pages written once, the same set the single builds write."""
    work = tmp_path / "w"
    shutil.copytree(site, work)
    pages = _pages(work)
    built = _batch(
        work, pages, "public", SITE_ARGS, "--evidence-pages", "public/evidence", pandoc=pandoc_path
    )
    assert built.returncode == 0, built.stderr
    batch_evidence = {p.name: p.read_bytes() for p in (work / "public" / "evidence").iterdir()}
    assert batch_evidence
    shutil.rmtree(work / "public" / "evidence")
    for page in pages:
        target = _out(work / "alone", page, ".html")
        link = os.path.relpath("public/evidence", _out(Path("public"), page, ".html").parent)
        env = {**ENV, "CITELEDGER_EVIDENCE_PAGES": "public/evidence"}
        alone = _alone(work, page, target, SITE_ARGS, {**env, "CITELEDGER_EVIDENCE_LINK": link})
        assert alone.returncode == 0, alone.stderr
        assert _out(work / "public", page, ".html").read_bytes() == target.read_bytes(), page
    crossing = _out(work / "public", "pages/guide/crossing.md", ".html").read_text()
    assert 'href="../evidence/' in crossing
    alone_evidence = {p.name: p.read_bytes() for p in (work / "public" / "evidence").iterdir()}
    assert batch_evidence == alone_evidence


def test_a_metadata_evidence_link_wins_over_the_computed_one(
    site: Path, pandoc_path: str, tmp_path: Path
) -> None:
    work = tmp_path / "w"
    shutil.copytree(site, work)
    page = work / "pages" / "guide" / "own.md"
    page.write_text(
        "---\nciteledger:\n  evidence-link: /site/evidence\n---\n\nRange [@tides quote:range].\n"
    )
    built = _batch(
        work,
        ["pages/guide/own.md"],
        "public",
        SITE_ARGS,
        "--evidence-pages",
        "public/evidence",
        pandoc=pandoc_path,
    )
    assert built.returncode == 0, built.stderr
    assert 'href="/site/evidence/' in (work / "public" / "guide" / "own.html").read_text()


def test_a_read_only_evidence_store_still_builds_the_same_pages(
    site: Path, pandoc_path: str, tmp_path: Path
) -> None:
    """The store's folders read-only (and, for root, whom modes do not stop, the index's folder
    taken by a file): the index cannot be saved, and every page is built as pandoc builds it."""
    work = tmp_path / "w"
    shutil.copytree(site, work)
    store = work / ".citeledger"
    shutil.rmtree(store / "judgements", ignore_errors=True)
    (store / "judgements").write_text("not a folder")
    folders = [store, *(p for p in store.rglob("*") if p.is_dir())]
    for folder in folders:
        folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        pages = _pages(work)
        built = _batch(work, pages, str(tmp_path / "batch"), SITE_ARGS, pandoc=pandoc_path)
        assert built.returncode == 0, built.stderr
        for page in pages:
            _alone(work, page, _out(tmp_path / "alone", page, ".html"), SITE_ARGS)
            mine = _out(tmp_path / "batch", page, ".html").read_bytes()
            assert mine == _out(tmp_path / "alone", page, ".html").read_bytes(), page
        assert (store / "judgements").read_text() == "not a folder"
    finally:
        for folder in folders:
            folder.chmod(stat.S_IRWXU)


def test_the_index_saved_once_at_the_end_judges_as_a_fresh_build(
    site: Path, pandoc_path: str, tmp_path: Path
) -> None:
    """The first batch writes the index; a batch judging from it, and one with the index
    off, write the same pages."""
    work = tmp_path / "w"
    shutil.copytree(site, work)
    shutil.rmtree(work / ".citeledger" / "judgements", ignore_errors=True)
    pages = _pages(work)
    first = _batch(work, pages, "first", SITE_ARGS, pandoc=pandoc_path)
    assert first.returncode == 0, first.stderr
    assert list((work / ".citeledger" / "judgements").glob("*.json"))
    again = _batch(work, pages, "again", SITE_ARGS, pandoc=pandoc_path)
    cmd = [str(BIN / "citeledger"), "build", *pages, "--base", "pages", "-o", "off"]
    off = _run(
        [*cmd, "--pandoc", pandoc_path, "--", *SITE_ARGS],
        work,
        {**ENV, "CITELEDGER_JUDGEMENT_INDEX": "off"},
    )
    assert again.returncode == off.returncode == 0
    for page in pages:
        made = [_out(work / d, page, ".html").read_bytes() for d in ("first", "again", "off")]
        assert made[0] == made[1] == made[2], page


def test_an_interrupted_write_leaves_no_half_page(
    site: Path, pandoc_path: str, tmp_path: Path
) -> None:
    """A pandoc that dies half-way through writing a page: the output is the old one (or
    none), no temporary file is left, and the batch names the page."""
    broken = tmp_path / "pandoc"
    broken.write_text(
        "#!/bin/sh\n"
        'case "$*" in *"-f json"*) for last; do :; done; printf "<html><bo" > "$last"; '
        "kill -9 $$;; esac\n"
        f'exec "{pandoc_path}" "$@"\n'
    )
    broken.chmod(0o755)
    out = tmp_path / "public"
    built = _batch(site, ["pages/index.md"], str(out), SITE_ARGS, pandoc=str(broken))
    assert built.returncode == 2
    assert built.stderr.splitlines()[-1].endswith("pages failed (not written): pages/index.md")
    assert not (out / "index.html").exists()
    assert not list(out.rglob(".tmp-*"))


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["-d", "site.yaml"], "--defaults cannot be used in a batch"),
        (["-o", "x.html"], "--output cannot be used in a batch"),
        (["--lua-filter", "f.lua", "--filter", "pandoc-citeledger"], "comes before"),
        (["--no-such-option"], "unknown option --no-such-option"),
        (["--to"], "--to needs a value"),
        (["page.md"], "page.md is not an option"),
    ],
)
def test_what_cannot_be_split_faithfully_is_refused_in_one_line(
    site: Path, pandoc_path: str, tmp_path: Path, args: list[str], says: str
) -> None:
    built = _batch(site, ["pages/index.md"], str(tmp_path / "o"), args, pandoc=pandoc_path)
    assert built.returncode == 2
    assert len(built.stderr.splitlines()) == 1 and says in built.stderr
    assert not (tmp_path / "o").exists()


def test_stdin_and_a_page_written_over_by_itself_are_refused(site: Path, pandoc_path: str) -> None:
    stdin = _run([str(BIN / "citeledger"), "build", "-", "--", "-s"], site)
    assert stdin.returncode == 2 and "standard input" in stdin.stderr
    same = _run(
        [str(BIN / "citeledger"), "build", "pages/index.md", "--ext", "md", "--", "-t", "gfm"],
        site,
    )
    assert same.returncode == 2 and "written over by its own output" in same.stderr


def test_pandoc_options_go_to_the_run_that_uses_them() -> None:
    split = split_pandoc_args(
        [
            *("-fmarkdown+smart", "--stand", "-M", "a=1", "--to=html5+smart", "--columns", "60"),
            *("-C", "--lua-filter=x.lua", "--bibliography", "r.bib", "-V", "v=1"),
        ]
    )
    read = ["-fmarkdown+smart", "-M", "a=1", "--columns", "60", "--bibliography", "r.bib"]
    assert split.read == read
    written = ["--stand", "--to=html5+smart", "--columns", "60", "-C", "--lua-filter=x.lua"]
    assert split.write == [*written, "-V", "v=1"]
    assert split.to == "html5" and split.metadata == ["a=1"]
    before = split_pandoc_args(["-C", "-F", "/usr/bin/pandoc-citeledger", "-s"])
    assert before.read == ["-C"] and before.write == ["-s"]
    with pytest.raises(CiteledgerError, match="ambiguous"):
        split_pandoc_args(["--list"])


# options as a user writes them, each with where it must go: read, write, both or a filter
_WORDS = {
    ("-f", "markdown"): "read",
    ("--metadata=a:1",): "read",
    ("--bibliography", "r.bib"): "read",
    ("-s",): "write",
    ("--toc",): "write",
    ("-V", "x=1"): "write",
    ("--to=html5",): "write",
    ("--columns=72",): "both",
    ("--quiet",): "both",
    ("--lua-filter", "a.lua"): "filter",
    ("-F", "b.py"): "filter",
    ("--citeproc",): "filter",
}


@given(st.lists(st.sampled_from(sorted(_WORDS)), max_size=12))
def test_every_option_reaches_its_run_in_the_users_order(options: list[tuple[str, ...]]) -> None:
    """Nothing is lost or reordered: each run gets its options as a subsequence of the user's,
    and every filter (ours first by default) runs after ours, in the order given."""
    split = split_pandoc_args([w for option in options for w in option])
    want = {
        run: [w for o in options if _WORDS[o] in kinds for w in o]
        for run, kinds in (("read", ("read", "both")), ("write", ("write", "both", "filter")))
    }
    assert split.read == want["read"]
    assert split.write == want["write"]


def _doc(text: str, pandoc_path: str) -> dict[str, object]:
    out = subprocess.run(
        [pandoc_path, "-f", "markdown", "-t", "json"],
        input=text.encode(),
        capture_output=True,
        check=True,
    )
    loaded: dict[str, object] = json.loads(out.stdout)
    return loaded


def test_a_shared_judge_keeps_each_pages_warnings_its_own(
    tmp_path: Path, pandoc_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hand-written ``verified`` flag warns on every page citing it, as a fresh filter run
    would, and on no other page; a missing ledger's warning likewise."""
    (tmp_path / "citeledger.yaml").write_text(
        "sources:\n  k:\n    url: https://example.org/k\n    quotes:\n"
        "      - text: The words.\n        verified: true\n"
        "  other:\n    url: https://example.org/o\n    quotes:\n      - text: Other words.\n"
    )
    monkeypatch.chdir(tmp_path)
    held = HeldEvidence()

    def page(text: str) -> list[str]:
        result = run_filter(_doc(text, pandoc_path), judge_factory=LedgerJudges(held=held))
        return [w for w in result.warnings if "hand-written" in w]

    fresh = [w for w in run_filter(_doc("A [@k].", pandoc_path)).warnings if "hand-written" in w]
    assert fresh
    assert page("A [@k].") == fresh
    assert page("B [@other].") == []
    assert page("C [@k] again.") == fresh
    assert len(held.ledgers) == 1  # parsed once for all three
    # the default ledger's absence warns on every page, not only the first
    (tmp_path / "citeledger.yaml").unlink()
    held = HeldEvidence()
    for _ in range(2):
        result = run_filter(_doc("A [@k].", pandoc_path), judge_factory=LedgerJudges(held=held))
        assert any(w.startswith("no ledger at citeledger.yaml") for w in result.warnings)
    # a later page naming that missing ledger fails as a lone run does: no empty stand-in
    named = "---\nciteledger:\n  ledger: citeledger.yaml\n---\n\nA [@k].\n"
    with pytest.raises(CiteledgerError, match="does not exist"):
        run_filter(_doc(named, pandoc_path))
    with pytest.raises(CiteledgerError, match="does not exist"):
        run_filter(_doc(named, pandoc_path), judge_factory=LedgerJudges(held=held))


def _verified_ledgers(tmp_path: Path) -> None:
    """``one.yaml`` verified once and ``two.yaml``, the same sources verified again a day
    later, both keeping their evidence in ``tmp_path/.citeledger``."""
    from citeledger.evidence.store import EvidenceStore
    from citeledger.ledger import append_receipts, load_ledger
    from test_evidence_pages import make_ledger, verified

    one = make_ledger(tmp_path).rename(tmp_path / "one.yaml")
    two = tmp_path / "two.yaml"
    two.write_bytes(one.read_bytes())
    ledger = load_ledger(two)
    store = EvidenceStore(ledger.evidence_dir)
    at = "2026-08-04T10:00:00Z"
    append_receipts(two, verified(ledger.sources["hchm"], "hchm", MANUAL, store, at))


def _page_doc(ledger: str, cite: str, pandoc_path: str) -> dict[str, object]:
    return _doc(f"---\nciteledger:\n  ledger: {ledger}\n---\n\nThe appeal {cite}.\n", pandoc_path)


def _folder(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.iterdir())}


def test_a_batch_renders_each_evidence_page_once_and_writes_what_lone_runs_write(
    tmp_path: Path, pandoc_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pages citing one quote (and one page between them whose newer receipt supersedes its
    page, so the older page must be written again after it): the folder is byte for byte what
    lone filter runs leave, and a page already written is not rendered again by the next page
    citing it."""
    import citeledger.evidence.publish as publish

    _verified_ledgers(tmp_path)
    monkeypatch.chdir(tmp_path)
    cite = "[@hchm, sec. 14.2]"
    order = ["one.yaml", "one.yaml", "two.yaml", "one.yaml", "one.yaml"]
    docs = [_page_doc(ledger, cite, pandoc_path) for ledger in order]

    def build(folder: str, held: HeldEvidence | None) -> list[list[str]]:
        env = {**os.environ, "CITELEDGER_EVIDENCE_PAGES": folder}
        links = []
        for doc in docs:
            factory = LedgerJudges(held=held) if held else None
            result = run_filter(json.loads(json.dumps(doc)), environ=env, judge_factory=factory)
            assert not result.errors
            links.append([str(i.evidence) for i in result.items])
        return links

    build("alone", None)
    name = next(iter(_folder(tmp_path / "alone")))  # an older verify's page of the quote
    stale = re.sub(r"-[0-9A-Za-z]{1,20}-(?=[0-9a-f]{12}-)", "-20250101t000000z-", name)
    assert stale != name
    for folder in ("alone", "batch"):
        shutil.rmtree(tmp_path / folder, ignore_errors=True)
        (tmp_path / folder).mkdir()
        (tmp_path / folder / stale).write_text("an older page")
        (tmp_path / folder / "notes.txt").write_text("not a page")
    alone = build("alone", None)
    assert stale not in _folder(tmp_path / "alone")
    rendered: list[str] = []
    real = publish.render_page

    def counted(judgement: object, *args: object, **kwargs: object) -> object:
        rendered.append(str(kwargs["key"]))
        return real(judgement, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(publish, "render_page", counted)
    batch = build("batch", HeldEvidence())
    assert [[link.replace("batch/", "alone/") for link in page] for page in batch] == alone
    assert _folder(tmp_path / "batch") == _folder(tmp_path / "alone")
    assert len(_folder(tmp_path / "batch")) == 2  # notes, and the older receipt's page again
    # once a receipt, and once more for the page a newer receipt's page had removed: not once
    # a citing page
    assert len(rendered) == 3


def test_a_first_batch_judges_a_quote_once_for_all_its_pages(
    tmp_path: Path, pandoc_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No index on disk yet: the second page citing a quote finds the first page's verdict
    (the same state and reasons a lone run judges), while a page with other trust settings
    (``require-signature``) is judged afresh, as its own build."""
    from citeledger.judge import Judge

    _verified_ledgers(tmp_path)
    monkeypatch.chdir(tmp_path)
    cite = "[@hchm, sec. 14.2]"
    plain = _page_doc("one.yaml", cite, pandoc_path)
    signed = _doc(
        "---\nciteledger:\n  ledger: one.yaml\n  require-signature: true\n---\n\n"
        f"The appeal {cite}.\n",
        pandoc_path,
    )
    monkeypatch.setenv("CITELEDGER_JUDGEMENT_INDEX", "off")
    lone = [
        [(i.state, i.judgement.reasons) for i in run_filter(json.loads(json.dumps(d))).items]
        for d in (plain, plain, signed)
    ]
    monkeypatch.delenv("CITELEDGER_JUDGEMENT_INDEX")
    judged: list[str] = []
    real = Judge._judge_evidence

    def counted(self: Judge, *args: object, **kwargs: object) -> object:
        judged.append("judged")
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Judge, "_judge_evidence", counted)
    held = HeldEvidence()
    made = []
    for doc in (plain, plain, signed):
        result = run_filter(json.loads(json.dumps(doc)), judge_factory=LedgerJudges(held=held))
        made.append([(i.state, i.judgement.reasons) for i in result.items])
    assert made == lone
    assert not (tmp_path / ".citeledger" / "judgements").exists()  # saved at the batch's end
    assert len(judged) == 2  # the plain quote once for two pages, the signed page its own
