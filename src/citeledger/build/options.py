"""The filter's options: where each one comes from, and which source wins.

Options live under one metadata key, ``citeledger`` (design.md)::

    citeledger:
      ledger: citeledger.yaml   # the ledger file
      strict: false             # true: any breakdown makes the filter (and so pandoc) fail
      audit: false              # true: append a "Citation audit" section
      audience: public          # sources limited to other audiences render as `restricted`
      evidence-pages: evidence  # HTML builds: link each receipt's read-only evidence page,
                                # as written there by `citeledger evidence --out evidence`
      evidence-link: evidence   # the link to that folder from the output (default: the same
                                # path); e.g. pages in public/evidence, output in public/guide/:
                                # evidence-link: ../evidence
      references: true          # give citeproc the ledger's CSL data (the document's own wins)
      require-signature: false  # true: a receipt not signed by a trusted key is not checked

Precedence, first found wins:

1. document metadata, nested (``citeledger: {audit: true}``) before flat
   (``citeledger.audit``: what ``pandoc -M citeledger.audit=true`` sets, since ``-M`` does not
   nest keys); both spellings are accepted, and nested wins when both are given;
2. the environment, ``CITELEDGER_<NAME>`` with dashes as underscores (``CITELEDGER_LEDGER``);
3. the default (``citeledger.yaml``, not strict, no audit, no audience, no evidence pages,
   references on).

Two options only ever tighten, because the build (a Makefile's ``-M``, CI's environment) must be
able to rely on them whatever a document says:

- ``strict`` is on when any of the three sources turns it on; an element attribute
  ``citeledger-strict=true`` on a Div or Span makes the citations inside it strict, and
  ``false`` there changes nothing;
- ``require-signature`` is on when any source turns it on (like ``strict``); the keys it trusts
  come from the ledger's ``trusted_keys:``, ``CITELEDGER_TRUSTED_KEYS`` or ``check
  --trusted-key`` — never from the document, which cannot vouch for its own evidence;
- ``audience``: when the sources name different audiences, the build is for all of them, and a
  source is shown only if it is open to every one (a document cannot widen what ``-M
  citeledger.audience=public`` lets through). There is no per-element audience.

A relative ``ledger`` is resolved against the current directory: pandoc does not tell a filter
where its input file is, so run pandoc from the document's folder (as a Makefile does). A
``ledger`` or ``evidence-pages`` from the document must lie inside the project
(``citeledger.confine``); only the environment (``CITELEDGER_ALLOW_OUTSIDE``) can allow more.

Metadata values may be MetaBool, MetaString, MetaInlines or MetaBlocks; booleans also accept the
words true/false, yes/no, on/off, 1/0. A value that cannot be read is a ``CiteledgerError``.
This module never reads files and never prints.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from citeledger.build.citations import plain_text
from citeledger.confine import allowed_by
from citeledger.errors import CiteledgerError

META_KEY = "citeledger"
DEFAULT_LEDGER = "citeledger.yaml"
NAMES = (
    "ledger",
    "strict",
    "audit",
    "audience",
    "evidence-pages",
    "evidence-link",
    "references",
    "require-signature",
)
TRUSTED_KEYS_ENV = "CITELEDGER_TRUSTED_KEYS"
_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0", ""})


@dataclass(frozen=True)
class Options:
    ledger: str = DEFAULT_LEDGER
    ledger_source: str = "default"  # "metadata", "environment" or "default": where it was set
    strict: bool = False
    audit: bool = False
    audience: str | None = None
    evidence_pages: str | None = None
    evidence_link: str | None = None  # the pages' folder as the output links to it (default: same)
    references: bool = True
    require_signature: bool = False  # tighten-only, like strict
    trusted_keys: tuple[str, ...] = ()  # from the environment only: a document cannot vouch
    evidence_pages_source: str = "default"  # like ledger_source
    allow_outside: bool = False  # CITELEDGER_ALLOW_OUTSIDE: never from the document (confine.py)
    unknown: tuple[str, ...] = field(default=(), compare=False)  # names we do not know: a typo?

    @property
    def ledger_given(self) -> bool:
        """Set explicitly: a missing file is then an error, not a warning."""
        return self.ledger_source != "default"

    @property
    def ledger_from_document(self) -> bool:
        """Set in the document's metadata (``check`` resolves it beside the document)."""
        return self.ledger_source == "metadata"

    def ledger_path(self, cwd: Path | None = None) -> Path:
        path = Path(self.ledger).expanduser()
        return path if path.is_absolute() else (cwd or Path.cwd()) / path

    def for_element(self, attributes: tuple[tuple[str, str], ...]) -> Options:
        """These options as overridden by the ``citeledger-*`` attributes around a citation."""
        if not attributes:
            return self
        for key, value in attributes:
            if key == f"{META_KEY}-strict" and _boolean(value, f"attribute {key}"):
                return replace(self, strict=True)  # tighten only
        return self


def read_options(meta: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> Options:
    """The document-level options from pandoc JSON metadata and the environment."""
    env = os.environ if environ is None else environ
    nested: Any = meta.get(META_KEY)
    is_map = isinstance(nested, dict) and nested.get("t") == "MetaMap"
    if nested is not None and not is_map:  # ignored, it would turn the writer's strict off
        raise CiteledgerError(
            f"metadata {META_KEY} must be a map of options, not {_not_a_map(nested)}",
            fix=f"indent each option under {META_KEY}:, e.g. {META_KEY}: {{strict: true}}",
        )
    nested_map = nested.get("c", {}) if is_map else {}
    raw: dict[str, tuple[str, str]] = {}  # name -> (text, where it was found)
    kinds: dict[str, str] = {}
    for name in NAMES:
        if name in nested_map:
            raw[name] = (_meta_text(nested_map[name]), f"metadata {META_KEY}.{name}")
            kinds[name] = "metadata"
        elif f"{META_KEY}.{name}" in meta:
            raw[name] = (_meta_text(meta[f"{META_KEY}.{name}"]), f"metadata {META_KEY}.{name}")
            kinds[name] = "metadata"
        else:
            var = f"CITELEDGER_{name.upper().replace('-', '_')}"
            if var in env:
                raw[name] = (env[var], f"environment {var}")
                kinds[name] = "environment"
    options = Options()
    changes: dict[str, Any] = {}
    flat = [k[len(META_KEY) + 1 :] for k in meta if k.startswith(META_KEY + ".")]
    unknown = sorted({n for n in [*nested_map, *flat] if n not in NAMES})
    if unknown:
        changes["unknown"] = tuple(unknown)
    if "ledger" in raw:
        text, where = raw["ledger"]
        if not text.strip():
            raise CiteledgerError(f"{where} is empty", fix="give the path of the ledger file")
        changes["ledger"] = text.strip()
        changes["ledger_source"] = kinds["ledger"]
    for name in ("audit", "references"):
        if name in raw:
            changes[name] = _boolean(*raw[name])
    every = _every_source(meta, nested_map, env)
    if any(_boolean(text, where) for text, where in every.get("strict", [])):
        changes["strict"] = True
    if any(_boolean(text, where) for text, where in every.get("require-signature", [])):
        changes["require_signature"] = True
    if env.get(TRUSTED_KEYS_ENV):
        from citeledger.evidence.signing import parse_keys

        changes["trusted_keys"] = parse_keys(env[TRUSTED_KEYS_ENV])
    audiences = sorted({text.strip() for text, _ in every.get("audience", []) if text.strip()})
    if audiences:
        changes["audience"] = ",".join(audiences)
    if "evidence-pages" in raw:
        changes["evidence_pages"] = raw["evidence-pages"][0].strip() or None
        changes["evidence_pages_source"] = kinds["evidence-pages"]
    if "evidence-link" in raw:
        changes["evidence_link"] = raw["evidence-link"][0].strip() or None
    changes["allow_outside"] = allowed_by(env)
    return replace(options, **changes)


def _every_source(
    meta: Mapping[str, Any], nested_map: Mapping[str, Any], env: Mapping[str, str]
) -> dict[str, list[tuple[str, str]]]:
    """Each tighten-only option as given by every source, not just the first found."""
    found: dict[str, list[tuple[str, str]]] = {}
    for name in ("strict", "audience", "require-signature"):
        var = f"CITELEDGER_{name.upper().replace('-', '_')}"
        for value, where in (
            (nested_map.get(name), f"metadata {META_KEY}.{name}"),
            (meta.get(f"{META_KEY}.{name}"), f"metadata {META_KEY}.{name}"),
            (env.get(var), f"environment {var}"),
        ):
            if value is not None:
                found.setdefault(name, []).append((_meta_text(value), where))
    return found


def _not_a_map(value: Any) -> str:
    """What a ``citeledger:`` value is instead of a map, in the writer's words."""
    t = value.get("t") if isinstance(value, dict) else None
    if t == "MetaList":
        return "a list"
    try:
        text = _meta_text(value).strip()
    except CiteledgerError:
        text = ""
    if not text:
        return "empty (are the options under it indented?)"
    return f"the value {text[:40]!r}"


def _boolean(text: str, where: str) -> bool:
    word = text.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise CiteledgerError(f"{where} must be true or false, not {text!r}", fix="write true or false")


def _meta_text(value: Any) -> str:
    """A metadata value as text; MetaBool becomes ``true``/``false`` so one reader fits all."""
    if not isinstance(value, dict):
        return str(value)
    t: Any = value.get("t")
    c: Any = value.get("c")
    if t == "MetaBool":
        return "true" if c else "false"
    if t == "MetaString":
        return str(c)
    if t == "MetaInlines":
        return plain_text(c)
    if t == "MetaBlocks":
        return " ".join(plain_text(b.get("c", [])) for b in c if b.get("t") in ("Para", "Plain"))
    if t == "MetaList":
        return " ".join(_meta_text(v) for v in c)
    raise CiteledgerError(
        f"a {META_KEY} option given as {t} cannot be read",
        fix="write a plain value, e.g. true or a path",
    )
