"""The report in the formats CI tools read natively: GitHub workflow commands, JUnit, SARIF 2.1.0.

All three are views of ``check``'s report (``summary.build_report``), never a second judgement:
a restricted citation is already stripped of its title, quote and anchor there. pandoc's JSON
carries no source positions, so the line of a claim is found in the document's own text: the
n-th citation of ``@key`` is placed on the line of the n-th ``@key`` written in the file (a
document pandoc cannot give as text, such as DOCX, gets no line). Text from outside goes
through ``inert.visible``. Never touches the network; writes nothing (the caller writes).
"""

from __future__ import annotations

import bisect
import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from citeledger import __version__
from citeledger.inert import visible
from citeledger.model import State
from citeledger.report.summary import citation_title

# pandoc's citation key: internal punctuation is part of the key when a word character follows.
_KEY_GOES_ON = r"(?![\w]|[:.#$%&\-+?<>~/]\w)"
_TEXT_SUFFIXES = frozenset({".md", ".markdown", ".qmd", ".rmd", ".txt", ".tex", ".rst", ".org"})

Lines = Mapping[tuple[str, int], int]  # (document, occurrence) → 1-based line


def claim_lines(citations: Sequence[Mapping[str, Any]]) -> dict[tuple[str, int], int]:
    """The line of each citation in its document's text (see the module docstring)."""
    by_doc: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for c in citations:
        by_doc[c["document"]].append(c)
    out: dict[tuple[str, int], int] = {}
    for doc, cites in by_doc.items():
        path = Path(doc)
        if path.suffix.lower() not in _TEXT_SUFFIXES:
            continue
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        starts = [0] + [m.end() for m in re.finditer("\n", text)]
        seen: dict[str, int] = defaultdict(int)
        found: dict[str, list[int]] = {}
        for c in cites:
            key = c["key"]
            if key not in found:
                pattern = re.compile(r"(?<![\w@])@\{?" + re.escape(key) + _KEY_GOES_ON)
                found[key] = [_line_of(starts, m.start()) for m in pattern.finditer(text)]
            lines = found[key]
            if lines:
                out[(doc, c["occurrence"])] = lines[min(seen[key], len(lines) - 1)]
            seen[key] += 1
    return out


def _line_of(starts: Sequence[int], offset: int) -> int:
    """The 1-based line holding ``offset`` (``starts``: each line's first offset, from 0)."""
    return max(1, bisect.bisect_right(starts, offset))


def _message(c: Mapping[str, Any]) -> str:
    """One line: the key, the state in words and the reasons."""
    parts = [f"@{c['key']}: {citation_title(c)}", *c["reasons"]]
    return visible(" — ".join(" ".join(str(p).split()) for p in parts))


def _breakdowns(report: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [c for c in report["citations"] if c["state"] != State.CHECKED.value]


# --- GitHub Actions workflow commands --------------------------------------------------------


def _gh_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


def github_commands(report: Mapping[str, Any], lines: Lines, *, warn_only: bool = False) -> str:
    """``::error file=…,line=…,title=…::message`` per breakdown, shown at the claim in a PR."""
    level = "warning" if warn_only else "error"
    out: list[str] = []
    for c in _breakdowns(report):
        props = [f"file={_gh_prop(visible(c['document']))}"]
        line = lines.get((c["document"], c["occurrence"]))
        if line is not None:
            props.append(f"line={line}")
        props.append(f"title={_gh_prop('citeledger: ' + c['state'])}")
        out.append(f"::{level} {','.join(props)}::{_gh_data(_message(c))}")
    return "\n".join(out)


# --- JUnit XML -------------------------------------------------------------------------------


def junit_xml(report: Mapping[str, Any], lines: Lines) -> str:
    """One ``testcase`` per citation, one ``testsuite`` per document; a breakdown fails."""
    root = ET.Element("testsuites", name="citeledger")
    suites: dict[str, ET.Element] = {}
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for c in report["citations"]:
        doc = visible(c["document"])
        suite = suites.get(doc)
        if suite is None:
            suite = suites[doc] = ET.SubElement(root, "testsuite", name=doc)
        line = lines.get((c["document"], c["occurrence"]))
        case = ET.SubElement(
            suite,
            "testcase",
            name=visible(f"#{c['occurrence']} @{c['key']}"),
            classname=doc,
            file=doc,
        )
        if line is not None:
            case.set("line", str(line))
        totals[doc][0] += 1
        if c["state"] != State.CHECKED.value:
            totals[doc][1] += 1
            failure = ET.SubElement(case, "failure", type=c["state"], message=_message(c))
            failure.text = "\n".join(visible(r) for r in c["reasons"]) or None
    for doc, suite in suites.items():
        suite.set("tests", str(totals[doc][0]))
        suite.set("failures", str(totals[doc][1]))
        suite.set("errors", "0")
    root.set("tests", str(sum(t[0] for t in totals.values())))
    root.set("failures", str(sum(t[1] for t in totals.values())))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# --- SARIF 2.1.0 -----------------------------------------------------------------------------

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def sarif_log(report: Mapping[str, Any], lines: Lines) -> dict[str, Any]:
    """A SARIF 2.1.0 log: one rule per breakdown state, one result per breakdown."""
    states = [s for s in State if s is not State.CHECKED]
    rules = [
        {
            "id": s.value,
            "name": "".join(w.capitalize() for w in s.value.split("-")),
            "shortDescription": {"text": s.title},
            "defaultConfiguration": {"level": "error"},
        }
        for s in states
    ]
    index = {s.value: i for i, s in enumerate(states)}
    results = []
    for c in _breakdowns(report):
        region: dict[str, Any] = {}
        line = lines.get((c["document"], c["occurrence"]))
        if line is not None:
            region["startLine"] = line
        location: dict[str, Any] = {
            "physicalLocation": {
                "artifactLocation": {"uri": Path(c["document"]).as_posix()},
                **({"region": region} if region else {}),
            }
        }
        results.append(
            {
                "ruleId": c["state"],
                "ruleIndex": index[c["state"]],
                "level": "error",
                "message": {"text": _message(c)},
                "locations": [location],
                "partialFingerprints": {
                    "citeledger/v1": f"{c['key']}:{c['occurrence']}:{c['state']}"
                },
            }
        )
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "citeledger",
                        "version": __version__,
                        "rules": rules,
                    }
                },
                "results": results,
            }
        ],
    }
