"""The one setting of the fuzzers (ledger styles, mangled ledgers, generated ASTs).

``make test`` runs a fixed, reproducible set (derandomized, no example database), so a red CI
is a change's fault, never a new random draw's; ``make fuzz`` sets CITELEDGER_FUZZ_EXAMPLES and
explores at random, with the example database.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

EXAMPLES = int(os.environ.get("CITELEDGER_FUZZ_EXAMPLES", "40"))
RANDOM = "CITELEDGER_FUZZ_EXAMPLES" in os.environ
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=not RANDOM,
    database=settings.default.database if RANDOM else None,
)
