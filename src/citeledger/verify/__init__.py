"""The verify act: retrieve → extract → locate → receipt, and ``recheck`` months later.

The only callers of ``citeledger.retrieve``. Extraction and locating run in a bounded worker
(``bounded``); receipts are written by ``citeledger.ledger.write``.
"""
