#!/usr/bin/env python3
"""The citeledger filter with the fixture judge: what the goldens run through pandoc.

``run`` is the one start of the filter for every golden's script, each naming its own judge.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]


def run(folder: Path, module: str, judge: str) -> int:
    """The filter through the checkout's shim, with ``module.judge`` (from ``folder`` or this
    one, imported after the shim) as its judge factory."""
    sys.path[:0] = [str(folder), str(HERE)]
    # the checkout's shim puts src/ and templates/ in place exactly as for a user
    spec = importlib.util.spec_from_file_location(
        "citeledger_shim", ROOT / "filters" / "citeledger.py"
    )
    assert spec is not None and spec.loader is not None
    shim = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shim)
    code: int = shim.main(judge_factory=getattr(importlib.import_module(module), judge))
    return code


if __name__ == "__main__":
    sys.exit(run(HERE, "fixture_judge", "FixtureJudge"))
