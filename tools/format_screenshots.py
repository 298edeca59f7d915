"""Page images of the Word and typst callouts, for docs/ (run from the repository).

One small document — a breakdown in a paragraph, one in a list item, a withdrawn citation (a
decision on record, purple) and a checked one — judged by the tests' fixture judge, built by
pandoc to DOCX (rendered to PDF by LibreOffice, headless) and to typst (compiled by the typst
wheel), and the first page of each drawn by PDFium:

    .venv/bin/python tools/format_screenshots.py docs/docx-breakdown.png docs/typst-breakdown.png
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(HERE / "tests"), str(HERE / "tests" / "data" / "filter")]

DOC = """\
Appeals must be lodged within sixty days [@st-quote-not-found, p. 14], a rule the
tribunal applied strictly [@st-checked].

- The deadline was later extended [@st-stale].
- Another item.

An earlier reading of the rule [@st-withdrawn] no longer stands.
"""


def main(docx_png: str, typst_png: str) -> None:
    import typst
    from fixture_judge import FixtureJudge
    from helpers import PANDOC, pandoc_bytes, run_main

    from page_image import png

    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        sys.exit("no LibreOffice: apt-get install -y --no-install-recommends libreoffice-writer")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for fmt in ("docx", "typst"):
            filtered = run_main(pandoc_bytes(DOC), fmt, judge_factory=FixtureJudge).out
            out = work / f"out.{'typ' if fmt == 'typst' else fmt}"
            args = ["-s", "--citeproc"] if fmt == "typst" else ["--citeproc"]
            cmd = [PANDOC, "-f", "json", "-t", fmt, *args, "-o", str(out)]
            subprocess.run(cmd, input=filtered, check=True, capture_output=True)
        profile = f"-env:UserInstallation=file://{work}/lo"
        subprocess.run(
            [soffice, profile, "--headless", "--convert-to", "pdf", "out.docx"],
            cwd=work,
            check=True,
            capture_output=True,
        )
        word = (work / "out.pdf").read_bytes()
        typeset = typst.compile(str(work / "out.typ"), root=str(work))
    for pdf, target in ((word, docx_png), (typeset, typst_png)):
        Path(target).write_bytes(png(pdf, scale=1.2, crop=True))
        print(f"wrote {target}")


if __name__ == "__main__":
    main(
        *(
            sys.argv[1:3]
            if len(sys.argv) > 2
            else ["docs/docx-breakdown.png", "docs/typst-breakdown.png"]
        )
    )
