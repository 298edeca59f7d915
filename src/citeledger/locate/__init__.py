"""The locator: find the writer's quote in the extracted text, or refuse — and say why.

Pure functions over text (no I/O). ``normalize`` is the one normalisation, ``wordlists`` the
words the editorial-mark rules rest on (docs/editorial-marks.md), ``edits`` their wording.
"""

from citeledger.locate.locator import (
    Prepared,
    locate,
    locate_prepared,
    normalize_for_match,
    prepare,
)

__all__ = ["Prepared", "locate", "locate_prepared", "normalize_for_match", "prepare"]
