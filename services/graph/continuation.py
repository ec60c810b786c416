"""Opaque GraphNeighborhood continuation tokens: snapshot instant plus the last node key."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from services.graph.domain import NeighborhoodQuery

__all__ = ["Cursor", "InvalidContinuation", "decode_cursor", "encode_cursor"]

_VERSION = 1
_DIGEST_BYTES = 16


class InvalidContinuation(ValueError):
    """The token is malformed, tampered with, or belongs to a different request."""


@dataclass(frozen=True)
class Cursor:
    """Where a chain stands: its snapshot instant and the last (hop, entity id) returned."""

    snapshot: datetime
    last_hop: int
    last_entity_id: UUID


def _request_key(query: NeighborhoodQuery) -> str:
    # A token only resumes the request that produced it; anything that changes the walk
    # (or the shape of its pages' paths) is part of the key.
    clocks = (
        [query.clocks.valid_at.isoformat(), query.clocks.believed_at.isoformat()]
        if query.clocks
        else None
    )
    parts = [
        query.namespace,
        str(query.entity_id),
        query.hops,
        sorted(set(query.predicates)),
        clocks,
        query.include_paths,
    ]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:32]


def _digest(body: bytes) -> bytes:
    # Integrity, not secrecy: a forged token can only ask what a fresh request could ask.
    return hmac.new(b"rememberstack.graph.v1", body, hashlib.sha256).digest()[:_DIGEST_BYTES]


def encode_cursor(query: NeighborhoodQuery, cursor: Cursor) -> str:
    """An opaque URL-safe token for resuming ``query`` after ``cursor``."""
    body = json.dumps(
        {
            "v": _VERSION,
            "k": _request_key(query),
            "t": cursor.snapshot.isoformat(),
            "h": cursor.last_hop,
            "e": str(cursor.last_entity_id),
        },
        separators=(",", ":"),
    ).encode()
    return base64.urlsafe_b64encode(_digest(body) + body).decode().rstrip("=")


def decode_cursor(query: NeighborhoodQuery, token: str) -> Cursor:
    """The cursor in ``token``; raises InvalidContinuation when it cannot resume ``query``."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError) as exc:
        raise InvalidContinuation("continuation is not a token this service issued") from exc
    digest, body = raw[:_DIGEST_BYTES], raw[_DIGEST_BYTES:]
    if len(digest) != _DIGEST_BYTES or not hmac.compare_digest(digest, _digest(body)):
        raise InvalidContinuation("continuation is corrupted or was not issued by this service")
    try:
        payload = json.loads(body)
        if payload["v"] != _VERSION:
            raise InvalidContinuation("continuation comes from an incompatible version")
        if payload["k"] != _request_key(query):
            raise InvalidContinuation("continuation belongs to a different request")
        snapshot = datetime.fromisoformat(payload["t"])
        hop = int(payload["h"])
        entity_id = UUID(payload["e"])
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, InvalidContinuation):
            raise
        raise InvalidContinuation("continuation is malformed") from exc
    if snapshot.tzinfo is None or not 0 <= hop <= query.hops:
        raise InvalidContinuation("continuation is malformed")
    return Cursor(snapshot=snapshot, last_hop=hop, last_entity_id=entity_id)
