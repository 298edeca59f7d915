#!/usr/bin/env python3
"""Quarto's entry to the citeledger filter: pandoc runs this file as a JSON filter.

It hands over to the installed package's ``pandoc-citeledger`` (``citeledger.build.filter``),
so the extension folder holds no copy of the filter. In this repository's own checkout it falls
back to the checkout's shim (``filters/citeledger.py``). Without either, one line says what to
install, and pandoc stops the build.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

SHIM = Path(__file__).resolve().parents[2] / "filters" / "citeledger.py"

try:
    from citeledger.build.filter import main
except ImportError:
    if not SHIM.is_file():
        sys.stderr.write(
            "[ERROR] citeledger: the citeledger package is not installed for "
            f"{sys.executable} — pip install citeledger (the extension runs python3 from PATH)\n"
        )
        sys.exit(2)
    main = runpy.run_path(str(SHIM))["main"]

if __name__ == "__main__":
    sys.exit(main())
