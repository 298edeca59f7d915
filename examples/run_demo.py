"""``make demo``: verify the standing case against a stand-in publisher and build it.

The build machine is offline, so a small HTTP server on 127.0.0.1:8765 serves the example's
``publisher/`` folder in place of the real web site. The example is copied to ``out/`` first so
the demo never edits the tracked ledger; then, in the copy: ``citeledger verify`` (the check),
``citeledger check`` (the offline judgement) and pandoc builds in HTML, DOCX and GFM with the
filter, so every breakdown can be seen where a reader would meet it.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE / "standing-case"
PORT = 8765
VERIFY_ONLY = ("hchm", "hchm-misquoted", "triage-notes")  # larson2019 stays never-verified


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return


@contextlib.contextmanager
def publisher(root: Path, port: int = PORT) -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(root))
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as exc:
        sys.exit(f"demo: cannot serve the stand-in publisher on 127.0.0.1:{port}: {exc}")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.shutdown()
        server.server_close()


def prepare(out: Path) -> Path:
    """A fresh copy of the example in ``out/work``; earlier outputs are removed, not piled up."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir()
    work = out / "work"
    shutil.copytree(EXAMPLE, work, ignore=shutil.ignore_patterns("out", ".citeledger"))
    return work


def run(cmd: list[str], cwd: Path, check: bool = True) -> int:
    print("$ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, cwd=cwd, check=check).returncode


def main() -> int:
    import pypandoc

    bin_dir = Path(sys.executable).parent
    citeledger = str(bin_dir / "citeledger")
    pandoc = pypandoc.get_pandoc_path()
    out = EXAMPLE / "out"
    out.mkdir(exist_ok=True)
    work = prepare(out)
    with publisher(work / "publisher"):
        # --warn-only: the misquote is the point of the demo, not a failure of it
        verify = [citeledger, "verify", "--yes", "--allow-private", "--warn-only"]
        run([*verify, "--only", *VERIFY_ONLY], work)
    run(
        [citeledger, "check", "chapter.md", "--warn-only", "--json", str(out / "report.json")], work
    )
    filt = str(bin_dir / "pandoc-citeledger")
    builds = {
        "chapter.html": ["-s", "--embed-resources", "--citeproc", "-t", "html5"],
        "chapter.docx": ["--citeproc", "-t", "docx"],
        "chapter.gfm.md": ["--citeproc", "-t", "gfm"],
    }
    for name, args in builds.items():
        # Built inside the copy, so the evidence links are relative and survive a move.
        run(
            [
                pandoc,
                "chapter.md",
                "--filter",
                filt,
                *args,
                "-o",
                name,
                "-M",
                "citeledger.evidence-pages=evidence",
            ],
            work,
        )
        shutil.copy2(work / name, out / name)
    shutil.copytree(work / "evidence", out / "evidence")
    import json

    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    print()
    print("demo: states of the standing case's citations")
    for c in report["citations"]:
        print(f"  #{c['occurrence']:<2} @{c['key']:<16} {c['state']}")
    cov = report["coverage"]
    print(f"demo: coverage {cov['with_provenance']}/{cov['prose_sentences']} prose sentences")
    print("demo: outputs")
    for name in builds:
        print(f"  {out / name}")
    print(f"  {out / 'report.json'} (citeledger check --json)")
    print(f"  {out / 'evidence'}/ (one read-only evidence page per receipt)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
