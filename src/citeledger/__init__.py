"""citeledger: every citation a promise a reader can check.

A citation is *checked* only when this tool has retrieved its source and found the quoted
passage in it (``citeledger verify``). Everything else renders as a loud breakdown.
"""

__version__ = "0.1.0"


def code_digest(seed: str, names: tuple[str, ...], libraries: tuple[str, ...] = ()) -> str:
    """The sha256 of ``seed``, of the package's files ``names`` (paths relative to the package),
    of the interpreter's version (its ``unicodedata`` tables drive normalizing and casefolding)
    and of each of ``libraries``: what keys a kept result to the code that made it (the
    judgement index, the ledger's outline and parsed sources). A zipped install, whose files
    cannot be read, is keyed by the names."""
    import hashlib
    import sys
    import unicodedata
    from pathlib import Path

    here = Path(__file__).parent
    digest = hashlib.sha256(f"{seed} {sys.version} {unicodedata.unidata_version}".encode())
    for name in code_files(names):
        try:
            digest.update((here / name).read_bytes())
        except OSError:
            digest.update(name.encode())
    for library in libraries:
        digest.update(f" {library} {_library_stamp(library)}".encode())
    return digest.hexdigest()


def code_files(names: tuple[str, ...]) -> list[str]:
    """``names`` with each folder name (``"locate/"``) replaced by every ``.py`` file in it,
    sorted: a module added to a package is keyed without anyone remembering to list it."""
    from pathlib import Path

    here = Path(__file__).parent
    out: list[str] = []
    for name in names:
        if name.endswith("/"):
            found = sorted(f"{name}{p.name}" for p in (here / name).glob("*.py"))
            out += found or [name]
        else:
            out.append(name)
    return out


def _library_stamp(name: str) -> str:
    """A library's version, read as the digest of its ``__init__.py`` (which states it) rather
    than imported: importing rapidfuzz costs a build whose judgements all come from the index
    ~50 ms."""
    import hashlib
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        return "missing"
    try:
        return hashlib.sha256(Path(spec.origin).read_bytes()).hexdigest()
    except OSError:  # not a plain file (a zipped install): import it for its version
        import importlib

        return str(getattr(importlib.import_module(name), "__version__", "unknown"))
