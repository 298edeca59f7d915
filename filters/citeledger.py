#!/usr/bin/env python3
"""Run the citeledger pandoc filter from a checkout: ``pandoc --filter filters/citeledger.py``.

Puts the checkout's ``src`` first on ``sys.path`` (and ``templates/`` in place as the package
``citeledger.templates``, which an installed copy ships as package data), then hands over to
``citeledger.build.filter.main``. The Python running it needs the project's dependencies: use the
virtualenv's (``.venv/bin`` first on PATH), or install the package and use ``pandoc-citeledger``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

if importlib.util.find_spec("citeledger.templates") is None:  # a bare checkout, not installed
    spec = importlib.util.spec_from_file_location(
        "citeledger.templates",
        ROOT / "templates" / "__init__.py",
        submodule_search_locations=[str(ROOT / "templates")],
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["citeledger.templates"] = module
    spec.loader.exec_module(module)

from citeledger.build.filter import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
