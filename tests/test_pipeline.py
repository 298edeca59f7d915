"""The writer's pipeline around the filter: make knows what a build reads, the evidence pages
link from any output folder and do not pile up, and no report prints a machine path.

Real parts throughout: the CLI's ``main``, the venv's pandoc and filter, GNU make, and copies of
``examples/`` in a temporary folder (verification reads local files only: nothing is sent).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citeledger.cli import main
from citeledger.cli.deps import make_rule

sys.path.insert(0, str(Path(__file__).parent / "data" / "filter"))

from helpers import copy_example, make, venv_env

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
CHAPTERS = ["chapters/01-introduction.md", "chapters/02-methods.md", "chapters/03-results.md"]


def _example(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh copy of ``examples/NAME``, verified against its local files, as the cwd."""
    work = copy_example(name, tmp_path)
    monkeypatch.chdir(work)
    assert main(["verify", "--yes", "--warn-only"]) == 0
    return work


def _deps(*docs: str) -> list[str]:
    """The prerequisites of the rule ``citeledger deps`` prints."""
    out = subprocess.run(
        [str(BIN / "citeledger"), "deps", "--ledger", "citeledger.yaml", "--target", "t", *docs],
        capture_output=True,
        text=True,
        env=venv_env(),
        check=True,
    ).stdout
    rule = out.split("\n\n")[0]
    return rule.replace("\\\n", " ").split(":", 1)[1].split()


def test_deps_names_the_ledger_the_history_and_each_receipts_evidence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = _example("thesis", tmp_path, monkeypatch)
    files = _deps(*CHAPTERS)
    assert files[:2] == ["citeledger.yaml", ".citeledger/history.jsonl"]
    evidence = files[2:]
    # three source files, each one retrieval; every path relative, every file there
    assert len(evidence) == 3 and all(f.endswith(".warc.gz") for f in evidence)
    assert all(not Path(f).is_absolute() and (work / f).is_file() for f in files)
    # the draft chapter's misquote has a receipt and evidence of its own retrieval too
    assert set(_deps(*CHAPTERS, "chapters/04-draft.md")) >= set(files)


def test_make_rule_escapes_what_make_would_misread() -> None:
    rule = make_rule(["out dir/a.pdf"], ["my ledger.yaml", "cost$.txt", "#1.warc.gz"])
    assert rule.splitlines()[0] == "out\\ dir/a.pdf: \\"
    assert " my\\ ledger.yaml \\" in rule and " cost$$.txt \\" in rule
    assert rule.endswith("\n\\#1.warc.gz:\n")  # gcc -MP: a deleted file rebuilds, not an error


MAKEFILE = """\
CHAPTERS := chapters/01-introduction.md chapters/02-methods.md chapters/03-results.md
out.html: $(CHAPTERS)
\tciteledger deps --ledger citeledger.yaml --target $@ -o out.d $(CHAPTERS)
\tpandoc $(CHAPTERS) --metadata-file=metadata.yaml --filter pandoc-citeledger -s -o $@
-include out.d
"""


@pytest.mark.tool("make")
def test_make_rebuilds_after_a_reverify_or_a_changed_capture_and_not_otherwise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = _example("thesis", tmp_path, monkeypatch)
    (work / "Makefile.test").write_text(MAKEFILE, encoding="utf-8")
    first = make(work, "-f", "Makefile.test")
    assert first.returncode == 0, first.stderr
    assert "checked" in (work / "out.html").read_text(encoding="utf-8")
    again = make(work, "-f", "Makefile.test")
    assert again.returncode == 0 and "is up to date" in again.stdout
    # a re-verify writes new receipts into the ledger: rebuilt
    assert main(["verify", "--yes", "--warn-only"]) == 0
    rebuilt = make(work, "-f", "Makefile.test")
    assert "pandoc " in rebuilt.stdout, rebuilt.stdout
    # a capture altered in the store: rebuilt, and the build says so at the claim
    evidence = next(f for f in _deps(*CHAPTERS) if f.endswith(".warc.gz"))
    path = work / evidence
    path.chmod(0o644)
    path.write_bytes(path.read_bytes()[:-10] + b"0123456789")
    tampered = make(work, "-f", "Makefile.test")
    assert "pandoc " in tampered.stdout
    assert "citeledger-tampered" in (work / "out.html").read_text(encoding="utf-8")
    # a capture deleted: make rebuilds (the empty rule), it does not stop at "No rule"
    path.unlink()
    gone = make(work, "-f", "Makefile.test")
    assert gone.returncode == 0 and "No rule" not in gone.stderr and "pandoc " in gone.stdout


def _pandoc(work: Path, doc: str, out: str, *meta: str) -> subprocess.CompletedProcess[str]:
    args = [str(BIN / "pandoc"), doc, "-s", "--filter", str(BIN / "pandoc-citeledger"), "-o", out]
    for m in meta:
        args += ["-M", m]
    return subprocess.run(
        args, cwd=work, capture_output=True, text=True, env=venv_env(), check=False
    )


def test_evidence_pages_link_from_an_output_folder_below_the_current_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """evidence-pages is where the pages are written; evidence-link how the output reaches them."""
    work = _example("site", tmp_path, monkeypatch)
    (work / "public" / "guide").mkdir(parents=True)
    out = "public/guide/crossing.html"
    done = _pandoc(
        work,
        "pages/guide/crossing.md",
        out,
        "citeledger.evidence-pages=public/evidence",
        "citeledger.evidence-link=../evidence",
    )
    assert done.returncode == 0, done.stderr
    html = (work / out).read_text(encoding="utf-8")
    links = [h for h in _hrefs(html) if "evidence/" in h]
    assert links and all(h.startswith("../evidence/") for h in links)
    assert all((work / "public" / "guide" / h).resolve().is_file() for h in links)


def _hrefs(html: str) -> list[str]:
    import re

    return re.findall(r'href="([^"#]+)', html)


def test_a_reverified_quote_replaces_its_evidence_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = _example("site", tmp_path, monkeypatch)
    (work / "public").mkdir()
    (work / "public" / "evidence").mkdir()
    keep = work / "public" / "evidence" / "notes.html"  # not an evidence page: never touched
    keep.write_text("mine", encoding="utf-8")
    meta = "citeledger.evidence-pages=public/evidence"
    assert _pandoc(work, "pages/index.md", "public/index.html", meta).returncode == 0
    first = sorted(p.name for p in (work / "public" / "evidence").glob("tides-*"))
    assert len(first) == 1
    time.sleep(1.1)  # receipts are stamped to the second: the later retrieval must differ
    assert main(["verify", "--yes", "--warn-only"]) == 0  # a later retrieval: a new page name
    assert _pandoc(work, "pages/index.md", "public/index.html", meta).returncode == 0
    second = sorted(p.name for p in (work / "public" / "evidence").glob("tides-*"))
    assert len(second) == 1 and second != first
    assert keep.read_text(encoding="utf-8") == "mine"


def test_check_reports_name_the_ledger_relative_to_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "case"
    shutil.copytree(REPO / "examples" / "standing-case", work)
    monkeypatch.chdir(work)
    assert main(["check", "chapter.md", "--warn-only", "--json", "r.json"]) == 0
    report = (work / "r.json").read_text(encoding="utf-8")
    assert "no source in the ledger citeledger.yaml" in report
    assert str(tmp_path) not in report + capsys.readouterr().out


WARNING = "citeproc ran before this filter"


@pytest.mark.parametrize(
    ("order", "bibliography"),
    [("citeproc-first", True), ("citeproc-first", False), ("filter-first", True)],
)
def test_citeproc_before_the_filter_is_named_once_with_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, order: str, bibliography: bool
) -> None:
    """Whether citeproc found the references (its bibliography Div) or not (only its rendered
    citations), the writer is told the order is wrong; in the right order, nothing is said."""
    work = tmp_path / "thesis"
    shutil.copytree(REPO / "examples" / "thesis", work)
    filt = ["--filter", str(BIN / "pandoc-citeledger")]
    steps = ["--citeproc", *filt] if order == "citeproc-first" else [*filt, "--citeproc"]
    bib = ["--bibliography", "refs.bib"] if bibliography else []
    done = subprocess.run(
        [str(BIN / "pandoc"), *CHAPTERS, *bib, *steps, "-o", "out.html"],
        cwd=work,
        capture_output=True,
        text=True,
        env=venv_env(),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    expected = 1 if order == "citeproc-first" else 0
    assert done.stderr.count(f"[WARNING] citeledger: {WARNING}") == expected
    if expected:
        assert "put --filter pandoc-citeledger before --citeproc" in done.stderr


def test_the_hand_written_flag_warning_names_the_flags_own_line(tmp_path: Path) -> None:
    from citeledger.judge import Judge
    from citeledger.ledger import load_ledger
    from citeledger.model import CitationRef

    ledger = tmp_path / "citeledger.yaml"
    ledger.write_text(
        "sources:\n"  # 1
        "  a:\n"  # 2
        "    url: https://example.org/a\n"  # 3
        "    verified: true\n"  # 4  (on the source: every quote of it)
        "    quotes:\n"  # 5
        "      - text: the words\n"  # 6
        "  b:\n"  # 7
        "    url: https://example.org/b\n"  # 8
        "    quotes:\n"  # 9
        "      - text: other words\n"  # 10
        "        locator: p. 2\n"  # 11
        "        verified: true\n",  # 12 (on the quote, below where it starts)
        encoding="utf-8",
    )
    judge = Judge(load_ledger(str(ledger)))
    judge.judge(CitationRef("a"))
    judge.judge(CitationRef("b"))
    lines = [w.split("(line ")[1].split(")")[0] for w in judge.warnings]
    assert lines == ["4", "12"]


def test_deps_of_a_document_without_a_ledger_is_an_empty_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The filter builds such a document (with a warning); make has nothing extra to watch."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.md").write_text("A claim [@x].\n", encoding="utf-8")
    assert main(["deps", "a.md", "--target", "a.html"]) == 0
    assert capsys.readouterr().out == "a.html:\n"


def test_citeledger_evidence_removes_the_pages_it_no_longer_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The folder of ``citeledger evidence --out`` is one ledger's whole set: an old page (a
    quote since edited) goes; a file that is no evidence page stays."""
    work = _example("site", tmp_path, monkeypatch)
    out = work / "pages-out"
    out.mkdir()
    old = out / "tides-20200101T000000Z-0123456789ab-deadbeef.html"
    old.write_text("an old page", encoding="utf-8")
    mine = out / "README.html"
    mine.write_text("mine", encoding="utf-8")
    assert main(["evidence", "--out", str(out)]) == 0
    assert not old.exists() and mine.read_text(encoding="utf-8") == "mine"
    assert len(list(out.glob("tides-*.html"))) == 2  # its two quotes, one page each
