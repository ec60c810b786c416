"""API keys and JWTs become principals, or are refused with UNAUTHENTICATED saying why."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import jwt
import pytest

from shared.auth.api_keys import parse_api_key_file
from shared.auth.authenticator import Authenticator
from shared.auth.jwt_tokens import JwtRules
from shared.auth.watched_file import WatchedFile
from shared.errors import Unauthenticated
from tests.support.credentials import AUDIENCE, ISSUER, KeyFile, Signer, write_jwks

RULES = JwtRules(
    issuer=ISSUER,
    audience=AUDIENCE,
    algorithms=("RS256", "ES256"),
    scope_claim="scope",
    namespaces_claim="rememberstack_namespaces",
    leeway_seconds=0.0,
)


@pytest.fixture
def signer() -> Signer:
    return Signer("k1")


@pytest.fixture
async def authenticator(tmp_path: Path, signer: Signer) -> Authenticator:
    keys = KeyFile(tmp_path / "keys.yaml")
    keys.add("reader", ["read"], ["team-a"])
    write_jwks(tmp_path / "jwks.json", signer)
    auth = Authenticator(
        api_keys_file=WatchedFile(keys.path),
        jwks_file=WatchedFile(tmp_path / "jwks.json"),
        jwt_rules=RULES,
    )
    auth.keys = keys  # type: ignore[attr-defined]
    await auth.refresh()
    return auth


def _refused(auth: Authenticator, header: str | None) -> str:
    with pytest.raises(Unauthenticated) as caught:
        auth.authenticate(header)
    return caught.value.message


async def test_api_key_authenticates_as_its_id_with_its_grants(authenticator):
    key = authenticator.keys.keys["reader"]
    principal = authenticator.authenticate(f"Bearer {key}")
    assert principal.name == "key:reader"
    assert principal.has_scope("read") and not principal.has_scope("ingest")
    assert principal.may_touch("team-a") and not principal.may_touch("team-b")


async def test_missing_malformed_and_unknown_credentials_are_refused(authenticator):
    assert "needs a bearer credential" in _refused(authenticator, None)
    assert "Bearer" in _refused(authenticator, "Basic dXNlcjpwYXNz")
    assert "unknown API key" in _refused(authenticator, "Bearer rsk_not-a-key")


async def test_valid_jwt_carries_subject_scopes_and_namespaces(authenticator, signer):
    token = signer.token(sub="agent-7", scope="openid read curate", namespaces=["a", "b"])
    principal = authenticator.authenticate(f"Bearer {token}")
    assert principal.name == "jwt:agent-7"
    assert principal.scopes == {"read", "curate"}
    assert principal.namespaces == {"a", "b"}


async def test_jwt_expired_wrong_audience_wrong_issuer_are_refused(authenticator, signer):
    assert "expired" in _refused(authenticator, f"Bearer {signer.token(expires_in=-5)}")
    assert "audience" in _refused(authenticator, f"Bearer {signer.token(audience='other')}")
    assert "issuer" in _refused(authenticator, f"Bearer {signer.token(issuer='https://evil')}")


async def test_jwt_signed_by_another_key_or_unknown_kid_is_refused(authenticator, signer):
    forged = Signer("k1").token()  # same kid, different key
    assert "signature" in _refused(authenticator, f"Bearer {forged}")
    assert "unknown key" in _refused(authenticator, f"Bearer {Signer('k9').token()}")


async def test_jwt_with_alg_none_or_hmac_over_the_public_key_is_refused(authenticator, signer):
    unsigned = jwt.encode(
        {"sub": "x", "iss": ISSUER, "aud": AUDIENCE, "exp": 4102444800, "scope": "admin"},
        key=None,
        algorithm="none",
    )
    assert "algorithm" in _refused(authenticator, f"Bearer {unsigned}")
    public_pem = signer.jwk()["n"].encode()
    hmac = jwt.encode({"sub": "x", "scope": "admin"}, public_pem, algorithm="HS256")
    assert "algorithm" in _refused(authenticator, f"Bearer {hmac}")


async def test_jwt_without_scope_or_namespaces_grants_nothing(authenticator, signer):
    assert "no scope" in _refused(authenticator, f"Bearer {signer.token(scope='openid')}")
    assert "no scope" in _refused(authenticator, f"Bearer {signer.token(namespaces=[])}")


async def test_rotated_key_file_takes_effect_without_restart(authenticator):
    old = authenticator.keys.keys["reader"]
    new = authenticator.keys.add("reader-2", ["read"], ["*"])
    authenticator.keys.remove("reader")
    await authenticator.refresh()
    assert authenticator.authenticate(f"Bearer {new}").name == "key:reader-2"
    assert "unknown API key" in _refused(authenticator, f"Bearer {old}")


async def test_broken_key_file_keeps_the_keys_already_loaded(authenticator):
    key = authenticator.keys.keys["reader"]
    authenticator.keys.path.write_text("keys: [ {id: half")
    await authenticator.refresh()
    assert authenticator.authenticate(f"Bearer {key}").name == "key:reader"


async def test_rotated_jwks_accepts_the_new_signer(tmp_path, authenticator, signer):
    old_token = signer.token()
    assert authenticator.authenticate(f"Bearer {old_token}").name == "jwt:agent-1"
    rotated = Signer("k2")
    write_jwks(tmp_path / "jwks.json", rotated)
    await authenticator.refresh()
    assert authenticator.authenticate(f"Bearer {rotated.token()}").name == "jwt:agent-1"
    assert "unknown key" in _refused(authenticator, f"Bearer {signer.token()}")
    # Remembered verifications went with the key that made them.
    assert "unknown key" in _refused(authenticator, f"Bearer {old_token}")


async def test_remembered_token_still_expires(authenticator, signer):
    # `exp` is whole seconds after a truncated `iat`: two seconds leave at least one to use it.
    token = signer.token(expires_in=2)
    assert authenticator.authenticate(f"Bearer {token}").name == "jwt:agent-1"
    await asyncio.sleep(2.5)
    assert "expired" in _refused(authenticator, f"Bearer {token}")


async def test_background_reload_picks_up_a_new_key(tmp_path):
    keys = KeyFile(tmp_path / "keys.yaml")
    keys.add("first", ["read"], ["*"])
    auth = Authenticator(api_keys_file=WatchedFile(keys.path), reload_seconds=0.05)
    await auth.start()
    try:
        second = keys.add("second", ["ingest"], ["*"])
        for _ in range(100):
            await asyncio.sleep(0.05)
            try:
                assert auth.authenticate(f"Bearer {second}").name == "key:second"
                break
            except Unauthenticated:
                continue
        else:
            pytest.fail("the new key was never loaded")
    finally:
        await auth.stop()


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("{}", "'keys' list"),
        ("keys: [{id: a, sha256: abc, scopes: [read], namespaces: ['*']}]", "64 hex"),
        ("keys: [{id: a, sha256: " + "a" * 64 + ", scopes: [write], namespaces: ['*']}]", "scope"),
        ("keys: [{id: a, sha256: " + "a" * 64 + ", scopes: [read], namespaces: []}]", "namespaces"),
    ],
)
def test_key_file_errors_name_the_entry(text, complaint):
    with pytest.raises(ValueError, match=complaint):
        parse_api_key_file(text.encode(), "keys.yaml")


async def test_jwks_fetched_from_a_url_verifies_tokens_and_refetches_for_a_new_kid(tmp_path):
    import http.server
    import threading

    signers = [Signer("url-1")]

    class Jwks(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps({"keys": [s.jwk() for s in signers]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Jwks)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        auth = Authenticator(
            jwks_url=f"http://127.0.0.1:{server.server_port}/jwks.json", jwt_rules=RULES
        )
        await auth.refresh()
        assert auth.authenticate(f"Bearer {signers[0].token()}").name == "jwt:agent-1"
        signers.append(Signer("url-2"))
        token = signers[1].token(sub="rotated")
        assert "unknown key" in _refused(auth, f"Bearer {token}")
        auth._jwks_fetched_at -= 31  # the unknown-kid refetch waits 30 s between tries
        await auth.refresh()
        assert auth.authenticate(f"Bearer {token}").name == "jwt:rotated"
    finally:
        server.shutdown()
