"""Syntax checks for the identifiers a source is retrieved through: DOI, arXiv id, ISBN, URL.

Pure functions of a string, and the ONE grammar: the ledger, ``add``, ``import`` and every
provider (``retrieve.arxiv``, ``retrieve.isbn``, ``retrieve.doi``) parse through these, so what
the ledger accepts is exactly what a provider will send, with the same advice for a mistake.
Each validator returns the value ``verify`` will send (normalised only where the form is
unambiguous: an ISBN loses its hyphens) or raises :class:`IdentifierError`, whose text says what
is wrong and how to write it instead.

This module must never touch the network or the file system: a syntactically valid identifier
says nothing about whether the work exists; only ``verify`` may find that out.
"""

from __future__ import annotations

import functools
import posixpath
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = [
    "ArxivId",
    "IdentifierError",
    "arxiv_version",
    "bare_doi",
    "canonical",
    "is_doi",
    "parse_arxiv",
    "printed_dois",
    "same_text",
    "validate_arxiv",
    "validate_doi",
    "validate_identifier",
    "validate_isbn",
    "validate_url",
]


class IdentifierError(ValueError):
    """A malformed identifier: ``problem`` says what is wrong, ``fix`` how to write it."""

    def __init__(self, problem: str, fix: str) -> None:
        self.problem = problem
        self.fix = fix
        super().__init__(f"{problem} — {fix}")


# --- DOI -----------------------------------------------------------------------------------

_DOI = re.compile(r"10\.\d{4,9}(?:\.\d+)*/\S+")
_DOI_PREFIX = re.compile(r"(?i)^doi:\s*")
_DOI_URL = re.compile(r"(?i)^(?:https?://)?(?:dx\.)?doi\.org/")
_DOI_EXAMPLE = "e.g. doi: 10.18653/v1/2020.emnlp-main.324"


def is_doi(value: str) -> bool:
    """Is ``value`` a bare DOI (``10.NNNN/suffix``)? The same test ``validate_doi`` applies."""
    return _DOI.fullmatch(value) is not None


# How documents print a DOI before the number — what a text names, not what a ledger may hold:
# a doi.org address (after "DOI: " too); "doi:", "DOI: ", "DOI " (Springer's page headers) or
# "DOI10." (the space lost in a PDF's text); IEEE's "Digital Object Identifier".
_PRINTED_PREFIX = (
    r"(?:(?:\bdoi\s*:?\s*)?(?:https?://)?(?:dx\.)?doi\.org/"
    r"|\bdoi(?![a-z])\s*:?\s*"
    r"|\bdigital\s+object\s+identifier\s*:?\s*)"
)
_PRINTED_DOI = re.compile(rf"(?i){_PRINTED_PREFIX}({_DOI.pattern})")
_AFTER_DOI = ".,;:)]}>'\""  # punctuation a sentence or a bracket puts after a printed DOI


def bare_doi(value: str) -> str | None:
    """The bare DOI of ``value`` written as a DOI, bare or with a prefix documents print it
    with (``_PRINTED_PREFIX``), or None."""
    value = value.strip()
    if is_doi(value):
        return value
    m = _PRINTED_DOI.fullmatch(value)
    return m[1] if m else None


def printed_dois(text: str) -> list[tuple[int, str]]:
    """Each DOI ``text`` prints with a prefix (``_PRINTED_PREFIX``): where its prefix starts,
    and the bare DOI without the punctuation after it; a bare ``10.…`` names nothing here."""
    found = []
    for m in _PRINTED_DOI.finditer(text):
        value = m[1].rstrip(_AFTER_DOI)
        if is_doi(value):
            found.append((m.start(), value))
    return found


def validate_doi(s: str) -> str:
    """Return the bare DOI (``10.NNNN/suffix``), as written; case is kept (DOIs ignore it)."""
    value = _text(s, "DOI", _DOI_EXAMPLE)
    for form, prefix in ((_DOI_URL, "https://doi.org/"), (_DOI_PREFIX, "'doi:'")):
        m = form.match(value)
        if m:
            bare = value[m.end() :]
            hint = f": doi: {bare}" if _DOI.fullmatch(bare) else ""
            raise IdentifierError(
                f"the DOI '{value}' is written with a {prefix} prefix",
                f"write the bare DOI, without {prefix}{hint}",
            )
    if any(c.isspace() for c in value):
        raise IdentifierError(
            f"the DOI '{value}' contains a space", "a DOI has no spaces; copy it again"
        )
    if not _DOI.fullmatch(value):
        raise IdentifierError(
            f"'{value}' is not a DOI",
            "a DOI is 10. then a registrant number of 4 or more digits, a slash and the "
            f"suffix ({_DOI_EXAMPLE}); for a web page use url: instead",
        )
    return value


# --- arXiv ---------------------------------------------------------------------------------

_ARXIV_NEW = re.compile(r"(?P<yy>\d{2})(?P<mm>\d{2})\.(?P<num>\d{4,5})(?:v(?P<v>[1-9]\d*))?")
_ARXIV_OLD = re.compile(
    r"(?P<archive>[a-z]+(?:-[a-z]+)?)(?P<sc>\.[A-Z]{2})?/"
    r"(?P<yy>\d{2})(?P<mm>\d{2})(?P<num>\d{3})(?:v(?P<v>[1-9]\d*))?"
)
_ARXIV_PREFIX = re.compile(r"(?i)^arxiv:\s*")
_ARXIV_URL = re.compile(r"(?i)^(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/")
_ARXIV_EXAMPLE = "e.g. arxiv: 2101.00001v2 or arxiv: hep-th/9901001"


def validate_arxiv(s: str) -> str:
    """Return the arXiv id: new ``YYMM.NNNN[N][vN]`` or old ``archive[.SC]/YYMMNNN[vN]``."""
    value = _text(s, "arXiv id", _ARXIV_EXAMPLE)
    for form, what in ((_ARXIV_URL, "an arXiv URL"), (_ARXIV_PREFIX, "'arXiv:'")):
        m = form.match(value)
        if m:
            bare = value[m.end() :].removesuffix(".pdf")
            hint = f": arxiv: {bare}" if _arxiv_match(bare) else ""
            raise IdentifierError(
                f"the arXiv id '{value}' is written as {what}",
                f"write the bare id{hint}",
            )
    m = _arxiv_match(value)
    if m is None:
        raise IdentifierError(
            f"'{value}' is not an arXiv id",
            f"write the new form YYMM.NNNNN or the old form archive/YYMMNNN, "
            f"with an optional version ({_ARXIV_EXAMPLE})",
        )
    problem = _arxiv_date_problem(m)
    if problem:
        raise IdentifierError(f"'{value}' is not an arXiv id: {problem}", _ARXIV_EXAMPLE)
    return value


@dataclass(frozen=True)
class ArxivId:
    """A valid arXiv id split into the work and the version it pins (None: the latest)."""

    base: str  # without version: 2101.00001, hep-th/9901001
    version: int | None = None

    @property
    def id(self) -> str:
        return f"{self.base}v{self.version}" if self.version else self.base

    def __str__(self) -> str:
        return self.id


def parse_arxiv(s: str) -> ArxivId:
    """The arXiv id ``validate_arxiv`` accepts, as work and version; raises IdentifierError."""
    value = validate_arxiv(s)
    m = _arxiv_match(value)
    assert m is not None  # validate_arxiv accepted it
    version = int(m["v"]) if m["v"] else None
    return ArxivId(value[: m.start("v") - 1] if version else value, version)


def arxiv_version(s: str) -> int | None:
    """The version an arXiv id pins (``2101.00001v2`` → 2), or None for 'the latest'."""
    return parse_arxiv(s).version


def _arxiv_match(value: str) -> re.Match[str] | None:
    return _ARXIV_NEW.fullmatch(value) or _ARXIV_OLD.fullmatch(value)


def _arxiv_date_problem(m: re.Match[str]) -> str | None:
    yy, mm = int(m["yy"]), int(m["mm"])
    if not 1 <= mm <= 12:
        return f"month {m['mm']} does not exist"
    if "archive" in m.groupdict():  # old scheme: 1991-08 to 2007-03
        year = 1900 + yy if yy >= 91 else 2000 + yy
        if not (1991, 8) <= (year, mm) <= (2007, 3):
            return f"old-style ids (archive/YYMMNNN) ran from 9108 to 0703, not {m['yy']}{m['mm']}"
        return None
    yymm = yy * 100 + mm
    if yymm < 704:
        return "new-style ids (YYMM.NNNNN) start at 0704; use the old form archive/YYMMNNN"
    digits = len(m["num"])
    if yymm <= 1412 and digits != 4:
        return f"ids from {m['yy']}{m['mm']} have 4 digits after the dot"
    if yymm >= 1501 and digits != 5:
        return f"ids from {m['yy']}{m['mm']} have 5 digits after the dot"
    return None


# --- ISBN ----------------------------------------------------------------------------------

_ISBN_PREFIX = re.compile(r"(?i)^isbn(?:-1[03])?\s*:?\s*")


def validate_isbn(s: str) -> str:
    """Return the ISBN's digits (ISBN-10 may end in ``X``); hyphens and spaces are dropped."""
    value = _text(s, "ISBN", "e.g. isbn: 978-0-306-40615-7")
    m = _ISBN_PREFIX.match(value)
    if m:
        raise IdentifierError(
            f"the ISBN '{value}' is written with an 'ISBN' prefix",
            f"write the number only: isbn: {value[m.end() :]}",
        )
    digits = re.sub(r"[\s-]", "", value).upper()
    if len(digits) == 10 and re.fullmatch(r"\d{9}[\dX]", digits):
        expected = _isbn10_check(digits[:9])
    elif len(digits) == 13 and digits.isdigit():
        if not digits.startswith(("978", "979")):
            raise IdentifierError(
                f"the ISBN-13 '{value}' does not start with 978 or 979",
                "copy the ISBN again from the book's copyright page or back cover",
            )
        expected = _isbn13_check(digits[:12])
    else:
        raise IdentifierError(
            f"'{value}' is not an ISBN",
            "an ISBN has 10 or 13 digits (an ISBN-10 may end in X); hyphens and spaces are "
            "allowed, e.g. isbn: 978-0-306-40615-7",
        )
    if digits[-1] != expected:
        raise IdentifierError(
            f"the ISBN '{value}' has a wrong check digit (the last digit would be {expected} "
            f"if the others are right, not {digits[-1]})",
            "copy the ISBN again from the book; one of its digits is mistyped",
        )
    return digits


def _isbn10_check(first9: str) -> str:
    total = sum((10 - i) * int(d) for i, d in enumerate(first9))
    check = (11 - total % 11) % 11
    return "X" if check == 10 else str(check)


def _isbn13_check(first12: str) -> str:
    total = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(first12))
    return str((10 - total % 10) % 10)


# --- URL -----------------------------------------------------------------------------------

_OTHER_SCHEMES = frozenset({"file", "ftp", "mailto", "data", "javascript", "urn", "doi", "arxiv"})


def validate_url(s: str) -> str:
    """Return the URL if it is absolute ``http``/``https`` with a host."""
    value = _text(s, "URL", "e.g. url: https://example.org/page")
    if any(c.isspace() for c in value):
        raise IdentifierError(f"the URL '{value}' contains a space", "write spaces in a URL as %20")
    parts = urlsplit(value)
    scheme = parts.scheme.lower()
    if scheme in ("http", "https"):
        if not parts.netloc:
            raise IdentifierError(f"the URL '{value}' has no host", "write https://host/path")
    elif scheme and ("://" in value or scheme in _OTHER_SCHEMES):
        raise _scheme_error(value, scheme)
    else:
        raise IdentifierError(
            f"the URL '{value}' is not absolute",
            f"write the full address with its scheme, e.g. url: https://{value.lstrip('/')}",
        )
    try:
        host = parts.hostname
        parts.port  # noqa: B018 — raises ValueError on a malformed port
    except ValueError:
        raise IdentifierError(
            f"the URL '{value}' has a malformed host or port", "write https://host[:port]/path"
        ) from None
    if not host:
        raise IdentifierError(f"the URL '{value}' has no host", "write https://host/path")
    if parts.username is not None or parts.password is not None:
        raise IdentifierError(
            f"the URL to {host} contains a user name or password (not shown here)",
            "remove the credentials: the ledger is shared and citeledger never sends them",
        )
    return value


def _scheme_error(value: str, scheme: str) -> IdentifierError:
    return IdentifierError(
        f"the URL '{value}' uses {scheme}:, which citeledger cannot retrieve",
        "use an http:// or https:// address (or file: for a document in the project)",
    )


# --- shared --------------------------------------------------------------------------------

_VALIDATORS = {
    "url": validate_url,
    "doi": validate_doi,
    "arxiv": validate_arxiv,
    "isbn": validate_isbn,
}


def validate_identifier(kind: str, value: str) -> str:
    """Validate ``value`` as an identifier of ``kind`` (``url``, ``doi``, ``arxiv``, ``isbn``).

    ``file`` is not handled here: whether a path is acceptable depends on the ledger's folder.
    """
    try:
        validator = _VALIDATORS[kind]
    except KeyError:
        raise ValueError(f"no syntax check for identifier kind {kind!r}") from None
    return validator(value)


@functools.lru_cache(maxsize=4096)  # a log names few works, each on many lines
def canonical(identifier: str) -> str:
    """The form in which two spellings of one work compare equal (``kind:value``, as receipts
    and the history log write identifiers): a record about a work — a registry's retraction, a
    withdrawal, a logged check — must be found whichever spelling the ledger uses now.

    A DOI is case-insensitive (DOI Handbook 2.4; Crossref lower-cases them) and loses a
    ``doi:``/doi.org prefix; an arXiv id names its work without the version; an ISBN-10 is its
    ISBN-13; a URL's scheme and host are lower-cased and a default port dropped; a path is
    normalised (``./a`` is ``a``). Anything this grammar does not parse is kept as written.
    """
    kind, sep, value = identifier.partition(":")
    if not sep:
        return identifier
    value = value.strip()
    form = _CANONICAL.get(kind)
    return f"{kind}:{form(value) if form else value}"


def same_text(
    checked: str, cited: str, *, version: str | None = None, latest: str | None = None
) -> bool:
    """Whether a check made under ``checked`` (a receipt's ``kind:value``) checked the text the
    ledger's ``cited`` names now: a respelling of the identifier keeps the check, another work
    (or another text of it) does not.

    The same work is ``canonical``'s. The same text is more for arXiv, whose versions are
    different texts of one work: a version the ledger pins must be the one checked, and an id
    without one means the latest. So a check of the latest (no version) counts for a pinned
    ``vN`` only when its evidence records it retrieved ``vN`` (``version``); a check pinned to
    ``vK`` counts for the latest only when its evidence records ``vK`` as the newest arXiv
    listed then (``latest``) — from there a newer version is recheck's "version changed", as
    for any check of the latest. ``version``/``latest``: the evidence's arXiv record (``v2``).
    A ``file:`` path with a ``..`` is no respelling: through a linked folder, ``a/../b`` is
    another file than the ``b`` it normalises to.
    """
    if checked == cited:
        return True
    if canonical(checked) != canonical(cited):
        return False
    kind = cited.partition(":")[0]
    if kind == "file":
        return not any(".." in x.partition(":")[2].split("/") for x in (checked, cited))
    if kind != "arxiv":
        return True
    was, now = _arxiv_pin(checked), _arxiv_pin(cited)
    if was == now:
        return True
    if was is None:
        return version == f"v{now}"
    if now is None:
        return latest == f"v{was}"
    return False


def _arxiv_pin(identifier: str) -> int | None:
    """The version an ``arxiv:`` identifier pins, in any spelling ``canonical`` reads."""
    m = _arxiv_match(_bare_arxiv(identifier.partition(":")[2].strip()))
    return int(m["v"]) if m and m["v"] else None


def _canonical_doi(value: str) -> str:
    bare = bare_doi(value) or value
    return "".join(c.lower() if c.isascii() else c for c in bare)  # ASCII only, as DOIs do


def _bare_arxiv(value: str) -> str:
    """An arXiv id without the ``arXiv:`` or address a text may write it with."""
    for form in (_ARXIV_URL, _ARXIV_PREFIX):
        m = form.match(value)
        if m:
            value = value[m.end() :].removesuffix(".pdf")
    return value


def _canonical_arxiv(value: str) -> str:
    """The work without its version; an old-style id without its subject class: old ids are
    numbered within the archive (``math.GT/0309136`` is ``math/0309136``, as arXiv stamps it)."""
    value = _bare_arxiv(value)
    m = _arxiv_match(value)
    if m is None:
        return value
    if m.groupdict().get("sc"):
        return _canonical_arxiv(value[: m.start("sc")] + value[m.end("sc") :])
    return value[: m.start("v") - 1] if m["v"] else value


def _canonical_isbn(value: str) -> str:
    digits = re.sub(r"[\s-]", "", value).upper()
    if len(digits) == 10 and re.fullmatch(r"\d{9}[\dX]", digits):
        return "978" + digits[:9] + _isbn13_check("978" + digits[:9])
    return digits


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _canonical_url(value: str) -> str:
    parts = urlsplit(value)
    scheme = parts.scheme.lower()
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        return value
    if not host or "@" in parts.netloc:
        return value
    netloc = f"[{host}]" if ":" in host else host
    if port is not None and port != _DEFAULT_PORTS.get(scheme):
        netloc += f":{port}"
    return parts._replace(scheme=scheme, netloc=netloc).geturl()


def _canonical_file(value: str) -> str:
    return posixpath.normpath(value) if value else value


_CANONICAL = {
    "doi": _canonical_doi,
    "arxiv": _canonical_arxiv,
    "isbn": _canonical_isbn,
    "url": _canonical_url,
    "file": _canonical_file,
}


def _text(s: object, what: str, example: str) -> str:
    if not isinstance(s, str):
        raise IdentifierError(f"the {what} must be text, not {type(s).__name__}", example)
    value = s.strip()
    if not value:
        raise IdentifierError(f"the {what} is empty", f"write it, {example}")
    return value
