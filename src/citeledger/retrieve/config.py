"""Every knob of the retrieval stage, with courteous defaults, from env vars or a config mapping.

One frozen value carries all of it so that a run is reproducible from its settings and tests can
point every provider at a loopback server. It must never read the network, and it must refuse a
misspelt setting rather than silently ignore it (a typo in ``allow_private`` must not widen what
is contacted).
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx
import yaml

from citeledger import __version__
from citeledger.errors import CiteledgerError
from citeledger.extract.pdf import MAX_INFLATED_BYTES
from citeledger.inputs import read_bytes, read_text
from citeledger.verify.bounded import DEFAULT_CPU_SECONDS, DEFAULT_MEMORY_BYTES, Limits

MB = 1_000_000


def _default_timeout() -> httpx.Timeout:
    return httpx.Timeout(30.0, connect=10.0)


def _default_intervals() -> Mapping[str, float]:
    return {"export.arxiv.org": 3.0}


def _default_limits() -> httpx.Limits:
    return httpx.Limits(max_connections=16, max_keepalive_connections=8, keepalive_expiry=30.0)


@dataclass(frozen=True)
class RetrieveConfig:
    """Settings of one retrieval run. Base URLs end with ``/``; sizes are bytes; times seconds."""

    doi_base: str = "https://doi.org/"
    arxiv_base: str = "https://arxiv.org/"
    arxiv_api_base: str = "https://export.arxiv.org/api/"
    isbn_base: str = "https://openlibrary.org/"
    mailto: str | None = None
    timeout: httpx.Timeout = field(default_factory=_default_timeout)
    deadline: float = 120.0  # one exchange (request + whole body), however slowly it drips
    limits: httpx.Limits = field(default_factory=_default_limits)
    max_body_bytes: int = 50 * MB  # on the wire
    max_decompressed_bytes: int = 100 * MB  # after content-encoding is undone
    max_redirects: int = 10
    max_attempts: int = 3  # per hop, for 429/5xx and dropped connections
    backoff_base: float = 1.0
    backoff_cap: float = 30.0
    retry_after_cap: float = 60.0  # a server asking for longer is given up on, not obeyed
    concurrency: int = 8  # HTTP exchanges in flight, all hosts together
    per_host_concurrency: int = 2
    allow_private: bool = False
    fetch_metadata: bool = True
    ca_bundle: str | None = None  # extra trust anchors (PEM file), e.g. a corporate TLS proxy
    host_intervals: Mapping[str, float] = field(default_factory=_default_intervals)
    """Least seconds between requests to a host (arXiv's API asks for one every 3 s)."""
    # Extraction and locating of one source, in a worker process (``citeledger.verify.bounded``):
    extract_cpu_seconds: float = DEFAULT_CPU_SECONDS  # 60 s
    extract_memory_bytes: int = DEFAULT_MEMORY_BYTES  # 2000 MB of address space
    max_inflated_pdf_bytes: int = MAX_INFLATED_BYTES  # 250 MB: a PDF's streams, images aside

    @property
    def extraction_limits(self) -> Limits:
        return Limits(
            cpu_seconds=self.extract_cpu_seconds,
            memory_bytes=self.extract_memory_bytes,
            max_inflated_bytes=self.max_inflated_pdf_bytes,
        )

    def __post_init__(self) -> None:
        for name in ("doi_base", "arxiv_base", "arxiv_api_base", "isbn_base"):
            value = getattr(self, name)
            parts = urlsplit(value)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise CiteledgerError(
                    f"retrieve setting {name} is not an absolute http(s) URL: {value!r}",
                    fix="write it like https://doi.org/",
                )
            if not value.endswith("/"):
                object.__setattr__(self, name, value + "/")
        for name in (
            "max_body_bytes",
            "max_decompressed_bytes",
            "max_attempts",
            "concurrency",
            "per_host_concurrency",
            "extract_memory_bytes",
            "max_inflated_pdf_bytes",
        ):
            if getattr(self, name) < 1:
                raise CiteledgerError(f"retrieve setting {name} must be at least 1")
        if self.extract_cpu_seconds <= 0:
            raise CiteledgerError("retrieve setting extract_cpu_seconds must be more than 0")
        if self.max_redirects < 0:
            raise CiteledgerError("retrieve setting max_redirects must not be negative")
        if self.ca_bundle:
            _check_ca_bundle(self.ca_bundle)

    @property
    def user_agent(self) -> str:
        """Crossref etiquette: say who we are and how to reach whoever runs us."""
        if self.mailto:
            return f"citeledger/{__version__} (+mailto:{self.mailto})"
        return f"citeledger/{__version__}"

    def replace(self, **changes: Any) -> RetrieveConfig:
        return dataclasses.replace(self, **changes)

    @classmethod
    def load(
        cls,
        mapping: Mapping[str, Any] | None = None,
        env: Mapping[str, str] | None = None,
        **overrides: Any,
    ) -> RetrieveConfig:
        """Defaults, then the config file's mapping, then ``CITELEDGER_*`` env vars, then flags."""
        values: dict[str, Any] = {}
        if mapping:
            values.update(_from_mapping(mapping, source="config"))
        values.update(_from_env(os.environ if env is None else env))
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**_assemble(values))

    @classmethod
    def from_file(cls, path: str | None, **overrides: Any) -> RetrieveConfig:
        """:meth:`load` with the mapping of the YAML settings file ``path`` (if given)."""
        if not path:
            return cls.load(None, **overrides)
        fix = "give a YAML file of retrieve settings (see docs), or leave out --config"
        text = read_text(path, "the retrieval settings", fix)
        try:
            mapping = yaml.safe_load(text)
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            raise CiteledgerError(
                f"the retrieval settings are not valid YAML: {getattr(e, 'problem', None) or e}",
                file=path,
                line=mark.line + 1 if mark is not None else None,
                fix="check the indentation and quoting on this line",
            ) from None
        if mapping is not None and not isinstance(mapping, Mapping):
            raise CiteledgerError(
                f"the retrieval settings must be a mapping, not {type(mapping).__name__}",
                file=path,
                fix="write one 'setting: value' per line",
            )
        try:
            return cls.load(mapping or None, **overrides)
        except CiteledgerError as e:
            if e.file is None:
                e = CiteledgerError(e.message, file=path, line=e.line, fix=e.fix)
            raise e from None

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any]) -> RetrieveConfig:
        return cls(**_assemble(_from_mapping(mapping, source="config")))

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> RetrieveConfig:
        return cls(**_assemble(_from_env(os.environ if env is None else env)))


# Settings a file or the environment may give, with their parsers. connect/read timeouts are
# folded into one httpx.Timeout; pool limits into httpx.Limits.
_FLOAT = float
_SETTINGS: dict[str, type] = {
    "doi_base": str,
    "arxiv_base": str,
    "arxiv_api_base": str,
    "isbn_base": str,
    "mailto": str,
    "connect_timeout": _FLOAT,
    "read_timeout": _FLOAT,
    "deadline": _FLOAT,
    "max_connections": int,
    "max_keepalive_connections": int,
    "max_body_bytes": int,
    "max_decompressed_bytes": int,
    "max_redirects": int,
    "max_attempts": int,
    "backoff_base": _FLOAT,
    "backoff_cap": _FLOAT,
    "retry_after_cap": _FLOAT,
    "concurrency": int,
    "per_host_concurrency": int,
    "allow_private": bool,
    "fetch_metadata": bool,
    "ca_bundle": str,
    "extract_cpu_seconds": _FLOAT,
    "extract_memory_bytes": int,
    "max_inflated_pdf_bytes": int,
}

ENV_VARS: Mapping[str, str] = {f"CITELEDGER_{name.upper()}": name for name in _SETTINGS}
"""Environment variable → setting, e.g. ``CITELEDGER_DOI_BASE`` → ``doi_base``."""


def _check_ca_bundle(path: str) -> None:
    """The extra trust anchors must be a readable PEM file now, not a failure per request."""
    fix = "give the path of a PEM file of CA certificates, or remove ca_bundle"
    read_bytes(path, "retrieve setting ca_bundle", fix)
    try:
        ssl.create_default_context(cafile=path)
    except (ssl.SSLError, OSError, ValueError) as e:
        raise CiteledgerError(
            f"retrieve setting ca_bundle: not a PEM file of certificates ({e})",
            file=path,
            fix=fix,
        ) from None


def _parse(name: str, raw: Any, where: str) -> Any:
    kind = _SETTINGS[name]
    try:
        if kind is bool:
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off", ""):
                return False
            raise ValueError(raw)
        if kind is int:
            if isinstance(raw, bool):
                raise ValueError(raw)
            if isinstance(raw, float) and not raw.is_integer():
                raise ValueError(raw)
            return int(raw)
        if kind is float:
            if isinstance(raw, bool):
                raise ValueError(raw)
            return float(raw)
        if not isinstance(raw, str | int | float) or isinstance(raw, bool):
            raise ValueError(raw)
        return str(raw)
    except ValueError:
        raise CiteledgerError(
            f"{where}: {raw!r} is not a valid {kind.__name__} for retrieve setting {name}",
            fix=f"give {name} a {kind.__name__}",
        ) from None


def _intervals(raw: Any, where: str) -> dict[str, float]:
    if not isinstance(raw, Mapping):
        raise CiteledgerError(
            f"{where}: host_intervals must map host names to seconds",
            fix="write e.g. host_intervals: {export.arxiv.org: 3}",
        )
    out: dict[str, float] = {}
    for host, seconds in raw.items():
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds < 0:
            raise CiteledgerError(f"{where}: {seconds!r} is not a number of seconds for {host}")
        out[str(host).lower()] = float(seconds)
    return out


def _from_mapping(mapping: Mapping[str, Any], source: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, raw in mapping.items():
        name = str(key).replace("-", "_")
        if name == "host_intervals":
            out[name] = {**_default_intervals(), **_intervals(raw, f"{source} {key}")}
            continue
        if name not in _SETTINGS:
            close = difflib.get_close_matches(name, list(_SETTINGS), n=1)
            raise CiteledgerError(
                f"{source}: unknown retrieve setting {key!r}",
                fix=f"did you mean {close[0]!r}?" if close else "see docs for the settings",
            )
        if raw is None:
            continue
        out[name] = _parse(name, raw, f"{source} {key}")
    return out


def _from_env(env: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for var, name in ENV_VARS.items():
        if var in env:
            out[name] = _parse(name, env[var], f"environment {var}")
    return out


def _assemble(values: dict[str, Any]) -> dict[str, Any]:
    """Fold flat settings into RetrieveConfig's constructor arguments."""
    values = dict(values)
    connect = values.pop("connect_timeout", None)
    read = values.pop("read_timeout", None)
    timeout = values.get("timeout")
    if connect is not None or read is not None:
        base = timeout if isinstance(timeout, httpx.Timeout) else _default_timeout()
        values["timeout"] = httpx.Timeout(
            read if read is not None else base.read,
            connect=connect if connect is not None else base.connect,
            pool=base.pool,
        )
    max_conn = values.pop("max_connections", None)
    keep = values.pop("max_keepalive_connections", None)
    if max_conn is not None or keep is not None:
        base_limits = values.get("limits") or _default_limits()
        values["limits"] = httpx.Limits(
            max_connections=max_conn if max_conn is not None else base_limits.max_connections,
            max_keepalive_connections=(
                keep if keep is not None else base_limits.max_keepalive_connections
            ),
            keepalive_expiry=base_limits.keepalive_expiry,
        )
    return values
