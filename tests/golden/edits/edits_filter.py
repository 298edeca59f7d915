#!/usr/bin/env python3
"""The citeledger filter with the edits judge (``edits_judge.py``): the ``edits`` golden."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT / "tests" / "data" / "filter"))
sys.path.insert(0, str(HERE))

# the checkout's shim puts src/ and templates/ in place exactly as for a user
spec = importlib.util.spec_from_file_location("citeledger_shim", ROOT / "filters" / "citeledger.py")
assert spec is not None and spec.loader is not None
shim = importlib.util.module_from_spec(spec)
spec.loader.exec_module(shim)

from edits_judge import EditsJudge  # noqa: E402

if __name__ == "__main__":
    sys.exit(shim.main(judge_factory=EditsJudge))
