"""Bearer credentials → Principal: API keys and JWTs, with their sources reloaded in place."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from shared.auth.api_keys import ApiKeyEntry, hash_api_key, parse_api_key_file
from shared.auth.jwt_tokens import JwtRules, JwtVerifier, fetch_jwks, parse_jwks
from shared.auth.principal import Principal
from shared.auth.settings import SecuritySettings
from shared.auth.watched_file import WatchedFile
from shared.errors import Unauthenticated

__all__ = ["Authenticator", "CredentialSourceError", "bearer_token"]

logger = logging.getLogger(__name__)

_MAX_CREDENTIAL_CHARS = 8192
# An unknown `kid` may mean the issuer rotated keys; fetch again, but not on every bad token.
_UNKNOWN_KID_REFETCH_SECONDS = 30.0


class CredentialSourceError(RuntimeError):
    """The configured key file yields no key at start-up: the server would admit nobody."""


def bearer_token(authorization: str | None) -> str:
    """The credential of an ``authorization: Bearer …`` header; Unauthenticated otherwise."""
    if not authorization:
        raise Unauthenticated("this call needs a bearer credential (authorization: Bearer …)")
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise Unauthenticated("the authorization header must be 'Bearer <credential>'")
    if len(token) > _MAX_CREDENTIAL_CHARS:
        raise Unauthenticated("credential rejected: too long")
    return token


class Authenticator:
    """Verifies credentials against the configured key file and/or JWKS.

    ``refresh()`` re-reads whatever changed; ``start()`` runs it every ``reload_seconds`` so a
    rotated key or Secret takes effect without a restart. A source that fails to load keeps
    its previous content (and logs why), so a half-written file never locks everyone out.
    """

    def __init__(
        self,
        *,
        api_keys_file: WatchedFile | None = None,
        jwks_file: WatchedFile | None = None,
        jwks_url: str | None = None,
        jwt_rules: JwtRules | None = None,
        reload_seconds: float = 5.0,
        jwks_refresh_seconds: float = 300.0,
    ) -> None:
        if (jwks_file or jwks_url) and jwt_rules is None:
            raise ValueError("a JWKS source needs JwtRules")
        self._api_keys_file = api_keys_file
        self._jwks_file = jwks_file
        self._jwks_url = jwks_url
        self._jwt = JwtVerifier(jwt_rules) if jwt_rules is not None else None
        self._keys: dict[str, ApiKeyEntry] = {}
        self._reload_seconds = reload_seconds
        self._jwks_refresh_seconds = jwks_refresh_seconds
        self._jwks_fetched_at = float("-inf")
        self._task: asyncio.Task[None] | None = None

    @classmethod
    def from_settings(cls, settings: SecuritySettings) -> Authenticator | None:
        """The configured authenticator, or None when the server runs open."""
        if not settings.auth_enabled:
            return None
        rules = None
        if settings.auth_jwks_file or settings.auth_jwks_url:
            assert settings.auth_jwt_issuer and settings.auth_jwt_audience  # settings check
            rules = JwtRules(
                issuer=settings.auth_jwt_issuer,
                audience=settings.auth_jwt_audience,
                algorithms=tuple(settings.auth_jwt_algorithms),
                scope_claim=settings.auth_jwt_scope_claim,
                namespaces_claim=settings.auth_jwt_namespaces_claim,
                leeway_seconds=settings.auth_jwt_leeway_seconds,
            )
        return cls(
            api_keys_file=WatchedFile(settings.auth_api_keys_file)
            if settings.auth_api_keys_file
            else None,
            jwks_file=WatchedFile(settings.auth_jwks_file) if settings.auth_jwks_file else None,
            jwks_url=settings.auth_jwks_url,
            jwt_rules=rules,
            reload_seconds=settings.auth_reload_seconds,
            jwks_refresh_seconds=settings.auth_jwks_refresh_seconds,
        )

    def authenticate(self, authorization: str | None) -> Principal:
        """The principal of an ``authorization`` header value; Unauthenticated otherwise."""
        token = bearer_token(authorization)
        if token.count(".") == 2 and self._jwt is not None:
            return self._jwt.verify(token)
        entry = self._keys.get(hash_api_key(token))
        if entry is None:
            raise Unauthenticated("credential rejected: unknown API key or token")
        return entry.principal

    async def refresh(self) -> None:
        """Re-read every source that changed (the JWKS URL when due); failures keep the old."""
        if self._api_keys_file is not None:
            self._load_keys(self._api_keys_file)
        if self._jwt is not None and self._jwks_file is not None:
            self._load_jwks_file(self._jwks_file, self._jwt)
        if self._jwt is not None and self._jwks_url is not None and self._jwks_due(self._jwt):
            await self._fetch_jwks(self._jwks_url, self._jwt)

    async def start(self) -> None:
        """Load every source once (a server with no usable source would reject everyone, so
        that fails loudly), then keep reloading in the background."""
        await self.refresh()
        if self._api_keys_file is not None and not self._keys and self._jwt is None:
            raise CredentialSourceError(
                f"{self._api_keys_file.path}: no usable API keys (missing, unreadable or"
                " invalid; the log says which)"
            )
        self._task = asyncio.create_task(self._reload_loop(), name="auth:reload")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _reload_loop(self) -> None:
        while True:
            await asyncio.sleep(self._reload_seconds)
            try:
                await self.refresh()
            except Exception:
                logger.exception("auth: reloading credentials failed; keeping the old ones")

    def _load_keys(self, source: WatchedFile) -> None:
        try:
            data = source.read_if_changed()
            if data is not None:
                self._keys = parse_api_key_file(data, str(source.path))
                logger.info("auth: loaded %d API keys from %s", len(self._keys), source.path)
        except (OSError, ValueError) as exc:
            logger.error("auth: API keys not reloaded (%s); keeping %d", exc, len(self._keys))

    def _load_jwks_file(self, source: WatchedFile, verifier: JwtVerifier) -> None:
        try:
            data = source.read_if_changed()
            if data is not None:
                verifier.set_keys(parse_jwks(data, str(source.path)))
                logger.info("auth: loaded the JWKS from %s", source.path)
        except (OSError, ValueError) as exc:
            logger.error("auth: JWKS not reloaded (%s); keeping the previous keys", exc)

    def _jwks_due(self, verifier: JwtVerifier) -> bool:
        since = time.monotonic() - self._jwks_fetched_at
        if verifier.unknown_key_seen and since >= _UNKNOWN_KID_REFETCH_SECONDS:
            return True
        return since >= self._jwks_refresh_seconds

    async def _fetch_jwks(self, url: str, verifier: JwtVerifier) -> None:
        self._jwks_fetched_at = time.monotonic()
        verifier.unknown_key_seen = False
        try:
            data = await asyncio.to_thread(fetch_jwks, url)
            verifier.set_keys(parse_jwks(data, url))
            logger.info("auth: fetched the JWKS from %s", url)
        except (OSError, ValueError) as exc:
            logger.error("auth: JWKS not fetched from %s (%s); keeping the old keys", url, exc)
