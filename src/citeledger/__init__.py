"""citeledger: every citation a promise a reader can check.

A citation is *checked* only when this tool has retrieved its source and found the quoted
passage in it (``citeledger verify``). Everything else renders as a loud breakdown.
"""

__version__ = "0.1.0"


def code_digest(seed: str, names: tuple[str, ...]) -> str:
    """The sha256 of ``seed`` and of the package's files ``names`` (paths relative to the
    package): what keys a kept result to the code that made it (the judgement index, the
    parsed sources). A zipped install, whose files cannot be read, is keyed by the names."""
    import hashlib
    from pathlib import Path

    here = Path(__file__).parent
    digest = hashlib.sha256(seed.encode())
    for name in names:
        try:
            digest.update((here / name).read_bytes())
        except OSError:
            digest.update(name.encode())
    return digest.hexdigest()
