"""The locator: find the writer's quote in the extracted text, or refuse — and say why.

Pure functions over text (no I/O). ``normalize`` is the one normalisation, ``wordlists`` the
words the editorial-mark rules rest on (docs/editorial-marks.md), ``edits`` their wording.
"""

from typing import Any

__all__ = ["Prepared", "locate", "locate_prepared", "normalize_for_match", "prepare"]


def __getattr__(name: str) -> Any:
    """The locator's names, imported on first use: a build that judges from the judgement index
    (``evidence.judgements``) imports ``locate.edits`` for its wording and never the locator."""
    if name in __all__:
        from citeledger.locate import locator

        return getattr(locator, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
