"""Runs one beliefs case through the public API: its steps in order, waiting for readiness after
each ingest, then every expectation block; the case's verdict is pass, fail or error."""

from __future__ import annotations

import asyncio
import time
import traceback
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from rememberstack.v1 import document_pb2, ingest_service_pb2

from bench.beliefs_checks import Check, check_expectations
from shared.cli.client import Stubs
from shared.proto_convert import timestamp

__all__ = ["CaseResult", "run_case"]

_VERSIONING = {
    "snapshot": document_pb2.VERSIONING_MODE_SNAPSHOT,
    "living": document_pb2.VERSIONING_MODE_LIVING,
}


@dataclass
class CaseResult:
    """The verdict of one case and every check behind it."""

    case_id: str
    decisions: list[str]
    register: str
    behaviour: str
    checks: list[Check] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0

    @property
    def verdict(self) -> str:
        if self.error is not None:
            return "error"
        return "pass" if all(c.ok for c in self.checks) else "fail"

    @property
    def problems(self) -> list[str]:
        if self.error is not None:
            return [self.error]
        return [c.message for c in self.checks if not c.ok and c.message]


class _Documents:
    """The case's documents by key: what was sent first and the id the service gave."""

    def __init__(self, stubs: Stubs, namespace: str, timeout: float) -> None:
        self.stubs = stubs
        self.namespace = namespace
        self.timeout = timeout
        self.sent: dict[str, dict[str, Any]] = {}
        self.ids: dict[str, str] = {}

    async def ingest(self, step: dict[str, Any]) -> list[Check]:
        first = self.sent.setdefault(step["doc"], step)
        reply = await self.stubs.ingest.IngestDocument(
            ingest_service_pb2.IngestDocumentRequest(
                namespace=self.namespace,
                content=step["text"].encode(),
                media_type=first["media_type"],
                source_kind=first["source_kind"],
                source_ref=first["source_ref"],
                title=first["title"],
                source_modified_time=timestamp(
                    datetime.fromisoformat(step["said_on"].replace("Z", "+00:00"))
                ),
                versioning_mode=_VERSIONING[first["versioning"]],
            )
        )
        self.ids[step["doc"]] = reply.document_id
        if not reply.created:
            return []
        return await self.settle([reply.version_id])

    async def settle(self, version_ids: list[str]) -> list[Check]:
        """Wait until every version is ready or dead-lettered; a dead letter fails the case."""
        if not version_ids:
            return []
        stream = self.stubs.ingest.WatchReadiness(
            ingest_service_pb2.WatchReadinessRequest(
                namespace=self.namespace, version_ids=version_ids
            ),
            timeout=self.timeout,
        )
        latest: dict[str, document_pb2.VersionReadiness] = {}
        async for update in stream:
            latest.update({v.version_id: v for v in update.versions})
            if update.all_settled:
                break
        dead = [v for v in latest.values() if v.dead_lettered or not v.ready]
        return [
            Check(
                "processed",
                not dead,
                "" if not dead else f"{len(dead)} version(s) not processed: dead-lettered",
            )
        ]

    async def delete(self, key: str) -> None:
        await self.stubs.ingest.DeleteDocument(
            ingest_service_pb2.DeleteDocumentRequest(
                namespace=self.namespace, document_id=self.ids[key]
            )
        )

    async def reextract(self, key: str) -> list[Check]:
        reply = await self.stubs.ingest.ReextractDocuments(
            ingest_service_pb2.ReextractDocumentsRequest(
                namespace=self.namespace, document_ids=[self.ids[key]]
            )
        )
        return await self.settle(list(reply.version_ids))


async def _steps(
    stubs: Stubs, namespace: str, case: dict[str, Any], wait_seconds: float
) -> list[Check]:
    documents = _Documents(stubs, namespace, wait_seconds)
    seen: dict[str, str] = {}
    checks: list[Check] = []
    for index, step in enumerate(case["steps"]):
        op = step["op"]
        if op in ("ingest", "ingest_version"):
            checks += await documents.ingest(step)
        elif op == "delete":
            await documents.delete(step["doc"])
        elif op == "reextract":
            checks += await documents.reextract(step["doc"])
        else:
            found = await check_expectations(stubs, namespace, step["expect"], seen)
            checks += [Check(c.kind, c.ok, f"[step {index}] {c.message}") for c in found]
    return checks + await check_expectations(stubs, namespace, case["expect"], seen)


async def run_case(
    stubs: Stubs, case: dict[str, Any], *, case_seconds: float = 900.0
) -> CaseResult:
    """One case in a namespace of its own. Exceptions of the harness or the services become
    the `error` verdict instead of stopping the suite."""
    result = CaseResult(case["id"], case["decisions"], case["register"], case["behaviour"])
    namespace = f"beliefs-{case['id']}-{uuid.uuid4().hex[:8]}"
    started = time.monotonic()
    try:
        result.checks = await asyncio.wait_for(
            _steps(stubs, namespace, case, case_seconds), timeout=case_seconds
        )
    except Exception as exc:
        result.error = f"{type(exc).__name__}: {exc}"[:500]
        result.checks = []
        if not isinstance(exc, TimeoutError):
            result.error += " | " + traceback.format_exc(limit=2).replace("\n", " ")[-400:]
    result.seconds = time.monotonic() - started
    return result
