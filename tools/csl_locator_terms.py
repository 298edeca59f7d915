"""Regenerate ``src/citeledger/build/locator-terms.json`` from a checkout of the CSL locales.

Pandoc's citeproc reads a citation's locator with the terms of the document's ``lang``
(``[@key, S. 99]`` is page 99 in German), so the build must read the same words. Only what
that takes is vendored: for each locale, the forms of the locator terms pandoc reads
(``Text.Pandoc.Citeproc.Locator.locatorTerms``), every form and number, and the primary dialect
of each language (``de`` → ``de-DE``). Labels are listed in pandoc's order: where a locale
gives one form two labels (pt-BR's ``p.`` is a page and a verse), the first wins, as in pandoc.

Usage: ``python tools/csl_locator_terms.py LOCALES_CHECKOUT [OUT]``, where the checkout is
https://github.com/citation-style-language/locales (CC BY-SA 3.0, see the LICENSE beside OUT).
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

NS = {"csl": "http://purl.org/net/xbiblio/csl"}
# pandoc's locator terms -> the label citeledger compares (number-of-pages reads as a page)
TERMS = {
    "book": "book",
    "chapter": "chapter",
    "column": "column",
    "figure": "figure",
    "folio": "folio",
    "issue": "issue",
    "line": "line",
    "note": "note",
    "opus": "opus",
    "page": "page",
    "number-of-pages": "page",
    "paragraph": "paragraph",
    "part": "part",
    "section": "section",
    "sub-verbo": "sub verbo",
    "sub verbo": "sub verbo",
    "verse": "verse",
    "volume": "volume",
}
OUT = Path(__file__).resolve().parent.parent / "src/citeledger/build/locator-terms.json"


def forms(path: Path) -> dict[str, list[str]]:
    """Each label's forms in one locale file (every form and number), in file order."""
    root = ET.parse(path).getroot()
    out: dict[str, list[str]] = {label: [] for label in dict.fromkeys(TERMS.values())}
    for term in root.iterfind("csl:terms/csl:term", NS):
        label = TERMS.get(term.get("name", ""))
        if label is None:
            continue
        texts = [term.text or ""] + [(child.text or "") for child in term]
        for text in texts:
            text = " ".join(text.replace("\u00a0", " ").split())
            if text and text not in out[label]:
                out[label].append(text)
    return {label: fs for label, fs in out.items() if fs}


def main(argv: list[str]) -> int:
    if not 2 <= len(argv) <= 3:
        print(__doc__, file=sys.stderr)
        return 2
    checkout = Path(argv[1])
    out_path = Path(argv[2]) if len(argv) == 3 else OUT
    locales: dict[str, dict[str, list[str]]] = {}
    for path in sorted(checkout.glob("locales-*.xml")):
        name = path.stem.removeprefix("locales-")
        locales[name] = forms(path)
    primary = json.loads((checkout / "locales.json").read_text("utf-8"))["primary-dialects"]
    commit = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    data = {
        "source": "https://github.com/citation-style-language/locales",
        "commit": commit or "unknown",
        "license": "CC BY-SA 3.0 (see locator-terms.LICENSE.txt)",
        "primary": primary,
        "locales": locales,
    }
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    out_path.write_text(text + "\n", encoding="utf-8")
    print(f"{out_path}: {len(locales)} locales, {len(text)} characters")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
