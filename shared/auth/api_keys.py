"""Static API keys: stored as SHA-256 digests in a YAML file, looked up by the digest of a token."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

import yaml

from shared.auth.principal import Principal, parse_namespaces, parse_scopes

__all__ = ["API_KEY_PREFIX", "ApiKeyEntry", "hash_api_key", "new_api_key", "parse_api_key_file"]

API_KEY_PREFIX = "rsk_"
_HEX_DIGEST_CHARS = 64


def new_api_key() -> str:
    """A fresh key: 32 random bytes, URL-safe, with a prefix that secret scanners can match."""
    return API_KEY_PREFIX + secrets.token_urlsafe(32)


def hash_api_key(key: str) -> str:
    """The digest stored for ``key``.

    A plain SHA-256 suffices: keys are 256 random bits, so there is no dictionary to slow down
    with a password hash, and the lookup must stay cheap on every call.
    """
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class ApiKeyEntry:
    """One configured key: its digest and the principal it authenticates as."""

    sha256: str
    principal: Principal


def parse_api_key_file(data: bytes, where: str) -> dict[str, ApiKeyEntry]:
    """Entries by digest from a key file::

        keys:
          - id: ci-reader              # recorded as decided_by "key:ci-reader"
            sha256: 3b1f…              # hash_api_key(the key); never the key itself
            scopes: [read]
            namespaces: [team-a]       # or ["*"]

    Raises ValueError naming the first bad entry; a file that fails to parse changes nothing.
    """
    try:
        document: Any = yaml.safe_load(data) or {}
    except yaml.YAMLError as exc:
        raise ValueError(f"{where}: not YAML: {exc}") from None
    raw_keys = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(raw_keys, list):
        raise ValueError(f"{where}: expected a mapping with a 'keys' list")
    entries: dict[str, ApiKeyEntry] = {}
    ids: set[str] = set()
    for index, raw in enumerate(raw_keys):
        at = f"{where}: keys[{index}]"
        if not isinstance(raw, dict):
            raise ValueError(f"{at}: expected a mapping")
        key_id, digest = raw.get("id"), raw.get("sha256")
        if not isinstance(key_id, str) or not key_id.strip():
            raise ValueError(f"{at}: 'id' must be a non-empty string")
        if key_id in ids:
            raise ValueError(f"{at}: duplicate id {key_id!r}")
        if not isinstance(digest, str) or len(digest) != _HEX_DIGEST_CHARS:
            raise ValueError(f"{at}: 'sha256' must be 64 hex characters")
        digest = digest.lower()
        try:
            bytes.fromhex(digest)
        except ValueError:
            raise ValueError(f"{at}: 'sha256' must be 64 hex characters") from None
        scopes, namespaces = raw.get("scopes"), raw.get("namespaces")
        if not isinstance(scopes, list) or not scopes:
            raise ValueError(f"{at}: 'scopes' must be a non-empty list")
        if not isinstance(namespaces, list) or not namespaces:
            raise ValueError(f"{at}: 'namespaces' must be a non-empty list (or [\"*\"])")
        principal = Principal(
            name=f"key:{key_id}",
            kind="api_key",
            scopes=parse_scopes(scopes, at),
            namespaces=parse_namespaces(namespaces, at),
        )
        ids.add(key_id)
        entries[digest] = ApiKeyEntry(digest, principal)
    return entries
