"""Signed receipts: who vouches that a retrieval happened, not just that bytes are unchanged.

Digests catch accidents and naive edits, but anyone with this project's code can write an
evidence file and a matching receipt for a page that was never fetched. A signature by a key the
build trusts is the one thing such a forger cannot make. ``citeledger key init`` creates an
Ed25519 key (via ``cryptography``) OUTSIDE the project — ``$XDG_CONFIG_HOME/citeledger/`` or a
path given — so that a document, a ledger or a pull request never carries it. ``verify`` signs
each receipt's facts together with the digest of its whole evidence file; the build checks the
signature against ``trusted-keys`` (ledger, environment or command line; never the document).

A key is named by its public half, ``ed25519:<base64>``: that string is what a ledger trusts.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citeledger.errors import CiteledgerError

KEY_ENV = "CITELEDGER_SIGNING_KEY"
PREFIX = "ed25519:"
#: The receipt facts a signature covers; the evidence file's digest covers everything else.
SIGNED_FIELDS = (
    "outcome",
    "identifier",
    "retrieved_at",
    "tool",
    "writer_quote_sha256",
    "reason",
    "requested_url",
    "url",
    "redirects",
    "status",
    "content_type",
    "body_sha256",
    "evidence",
    "evidence_sha256",
    "history",
    "extractor",
    "text_sha256",
    "page",
    "char_start",
    "char_end",
    "quote_sha256",
    "match",
    "retracted",
    "metadata_mismatch",
    "signed_by",
    "signed_at",
)
#: Covered when present, left out of the payload when absent, so a signature made before the
#: field existed still holds — and a signed one cannot be deleted (or reworded) unnoticed:
#: recheck's version warning is a signed fact like any other.
OPTIONAL_SIGNED_FIELDS = ("version_changed",)


def default_key_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "citeledger" / "signing-key.pem"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def public_name(raw: bytes) -> str:
    return PREFIX + _b64(raw)


def payload(receipt: Any) -> bytes:
    """The canonical bytes a signature covers: the named fields, as JSON with sorted keys."""
    values = {}
    for name in SIGNED_FIELDS:
        value = getattr(receipt, name)
        if isinstance(value, tuple):
            value = list(value)
        values[name] = value
    for name in OPTIONAL_SIGNED_FIELDS:
        if getattr(receipt, name, None) is not None:
            values[name] = getattr(receipt, name)
    return json.dumps(values, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


@dataclass(frozen=True)
class Signer:
    """A private key loaded for one verify run."""

    key: Any  # cryptography's Ed25519PrivateKey
    public: str

    def sign(self, data: bytes) -> str:
        return _b64(self.key.sign(data))


def init_key(path: Path | None = None, *, project: Path | None = None, force: bool = False) -> str:
    """Create a signing key at ``path`` (default: the user's config folder); its public name."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    target = (path or default_key_path()).expanduser().resolve()
    here = (project or Path.cwd()).resolve()
    if target == here or here in target.parents:
        raise CiteledgerError(
            f"{target} is inside the project ({here}); a key kept there travels with the ledger",
            fix="give a --path outside the project (the default is ~/.config/citeledger/)",
        )
    if target.exists() and not force:
        raise CiteledgerError(
            f"a signing key already exists at {target}",
            fix="keep it (citeledger key show prints its public name), or pass --force",
        )
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(pem)
    return _public_of(key)


def _public_of(key: Any) -> str:
    from cryptography.hazmat.primitives import serialization

    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return public_name(raw)


def load_signer(path: Path | None = None) -> Signer | None:
    """The key verify signs with: ``path``, else ``$CITELEDGER_SIGNING_KEY``, else the default
    location if a key was created there; None when there is none (receipts go unsigned)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    explicit = path or (Path(os.environ[KEY_ENV]) if os.environ.get(KEY_ENV) else None)
    target = explicit or default_key_path()
    if not target.is_file():
        if explicit is not None:
            raise CiteledgerError(
                f"no signing key at {target}",
                file=str(target),
                fix=f"create one with `citeledger key init --path …`, or unset {KEY_ENV}",
            )
        return None
    try:
        key = serialization.load_pem_private_key(target.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise CiteledgerError(
            f"the signing key cannot be read ({exc.__class__.__name__})",
            file=str(target),
            fix="create a new one with `citeledger key init --force`",
        ) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise CiteledgerError(
            "the signing key is not an Ed25519 key", file=str(target), fix="use `key init`"
        )
    return Signer(key, _public_of(key))


def signature_holds(public: str, data: bytes, signature: str) -> bool:
    """Whether ``signature`` over ``data`` was made by the key named ``public``."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    if not public.startswith(PREFIX):
        return False
    try:
        key = Ed25519PublicKey.from_public_bytes(base64.b64decode(public[len(PREFIX) :]))
        key.verify(base64.b64decode(signature), data)
    except (InvalidSignature, ValueError):
        return False
    return True


def parse_keys(text: str | Iterable[str]) -> tuple[str, ...]:
    """Trusted keys from a list or a comma/space separated string, each ``ed25519:…``."""
    items = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    keys = []
    for item in items:
        item = str(item).strip()
        if not item:
            continue
        if not item.startswith(PREFIX):
            raise CiteledgerError(
                f"trusted key {item[:20]!r} is not an ed25519:… public key",
                fix="copy the line `citeledger key init` (or `key show`) printed",
            )
        keys.append(item)
    return tuple(keys)


def short(public: str) -> str:
    """A key as shown to readers: enough to recognise, not a wall of base64."""
    return public[: len(PREFIX) + 12] + "…"
