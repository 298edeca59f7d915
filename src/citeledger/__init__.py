"""citeledger: every citation a promise a reader can check.

A citation is *checked* only when this tool has retrieved its source and found the quoted
passage in it (``citeledger verify``). Everything else renders as a loud breakdown.
"""

__version__ = "0.1.0"
