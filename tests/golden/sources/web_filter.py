#!/usr/bin/env python3
"""The citeledger filter with the web judge (``web_judge.py``): what the ``sources`` golden runs."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "data" / "filter"))

from fixture_filter import run  # noqa: E402 (on the path just set)

if __name__ == "__main__":
    sys.exit(run(HERE, "web_judge", "WebJudge"))
