"""Signed JWTs verified against a JWKS (file or URL) with PyJWT: signature, iss, aud, exp."""

from __future__ import annotations

import json
import time
import urllib.request
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import jwt

from shared.auth.principal import SCOPES, Principal, Scope, parse_namespaces
from shared.errors import Unauthenticated

__all__ = ["JwtRules", "JwtVerifier", "fetch_jwks", "parse_jwks"]

_JWKS_FETCH_TIMEOUT_SECONDS = 10.0
_MAX_JWKS_BYTES = 1024 * 1024
# An RS256 verification costs about a millisecond of Python and OpenSSL; a client sends the
# same token with every call, so verified tokens are remembered until they expire (or the key
# set changes).
_VERIFIED_CACHE_SIZE = 4096


@dataclass(frozen=True, slots=True)
class JwtRules:
    """What a token must satisfy besides a valid signature."""

    issuer: str
    audience: str
    algorithms: tuple[str, ...]
    scope_claim: str
    namespaces_claim: str
    leeway_seconds: float


def parse_jwks(data: bytes, where: str) -> dict[str | None, jwt.PyJWK]:
    """Signing keys by ``kid`` (None for a key without one); ValueError for a bad set."""
    try:
        key_set = jwt.PyJWKSet.from_dict(json.loads(data))
    except (ValueError, jwt.PyJWKSetError, jwt.InvalidKeyError) as exc:
        raise ValueError(f"{where}: not a usable JWKS: {exc}") from exc
    return {key.key_id: key for key in key_set.keys if key.public_key_use in (None, "sig")}


def fetch_jwks(url: str) -> bytes:
    """The JWKS document at ``url`` (blocking; run it in a thread)."""
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=_JWKS_FETCH_TIMEOUT_SECONDS) as response:
        data: bytes = response.read(_MAX_JWKS_BYTES + 1)
    if len(data) > _MAX_JWKS_BYTES:
        raise ValueError(f"{url}: JWKS larger than {_MAX_JWKS_BYTES} bytes")
    return data


class JwtVerifier:
    """Turns a bearer JWT into a Principal or raises Unauthenticated saying why."""

    def __init__(self, rules: JwtRules) -> None:
        self._rules = rules
        self._keys: dict[str | None, jwt.PyJWK] = {}
        self._verified: OrderedDict[str, tuple[Principal, float]] = OrderedDict()
        self.unknown_key_seen = False

    def set_keys(self, keys: dict[str | None, jwt.PyJWK]) -> None:
        self._keys = keys
        self._verified.clear()  # a key that left the set no longer vouches for its tokens

    def verify(self, token: str) -> Principal:
        remembered = self._verified.get(token)
        if remembered is not None and time.time() < remembered[1]:
            self._verified.move_to_end(token)
            return remembered[0]
        principal, expires_at = self._verify(token)
        self._verified[token] = (principal, expires_at)
        if len(self._verified) > _VERIFIED_CACHE_SIZE:
            self._verified.popitem(last=False)
        return principal

    def _verify(self, token: str) -> tuple[Principal, float]:
        rules = self._rules
        try:
            header = jwt.get_unverified_header(token)
        except jwt.DecodeError:
            raise Unauthenticated("credential rejected: malformed token") from None
        algorithm = header.get("alg")
        if algorithm not in rules.algorithms:
            raise Unauthenticated("credential rejected: token algorithm not accepted")
        key = self._key_for(header.get("kid"))
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key=key,
                algorithms=[algorithm],
                audience=rules.audience,
                issuer=rules.issuer,
                leeway=rules.leeway_seconds,
                options={"require": ["exp", "iss", "aud", "sub"]},
            )
        except jwt.ExpiredSignatureError:
            raise Unauthenticated("credential rejected: token expired") from None
        except jwt.ImmatureSignatureError:
            raise Unauthenticated("credential rejected: token not valid yet") from None
        except jwt.InvalidAudienceError:
            raise Unauthenticated("credential rejected: token audience not accepted") from None
        except jwt.InvalidIssuerError:
            raise Unauthenticated("credential rejected: token issuer not accepted") from None
        except jwt.MissingRequiredClaimError as exc:
            raise Unauthenticated(f"credential rejected: token lacks claim {exc.claim}") from None
        except jwt.InvalidTokenError:
            raise Unauthenticated("credential rejected: bad token signature") from None
        return self._principal(claims), float(claims["exp"])

    def _key_for(self, kid: object) -> jwt.PyJWK:
        key = self._keys.get(kid) if isinstance(kid, str) else None
        if key is None and kid is None and len(self._keys) == 1:
            key = next(iter(self._keys.values()))
        if key is None:
            # Perhaps the issuer rotated its keys: the authenticator fetches the set again.
            self.unknown_key_seen = True
            raise Unauthenticated("credential rejected: token signed by an unknown key")
        return key

    def _principal(self, claims: dict[str, Any]) -> Principal:
        rules = self._rules
        subject = claims.get("sub")
        if not isinstance(subject, str) or not subject:
            raise Unauthenticated("credential rejected: token subject must be a string")
        # An identity provider's tokens carry scopes of other audiences too (openid, …).
        scopes: frozenset[Scope] = frozenset(
            s for s in SCOPES if s in _words(claims.get(rules.scope_claim))
        )
        try:
            namespaces = parse_namespaces(
                _words(claims.get(rules.namespaces_claim)), "token namespaces"
            )
        except ValueError as exc:
            raise Unauthenticated(f"credential rejected: {exc}") from None
        if not scopes or namespaces == frozenset():
            raise Unauthenticated("credential rejected: token grants no scope or no namespace")
        return Principal(f"jwt:{subject}", "jwt", scopes, namespaces)


def _words(value: object) -> Sequence[str]:
    """OAuth scopes come space-separated (``"read ingest"``) or as a list; namespaces too."""
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    return ()
