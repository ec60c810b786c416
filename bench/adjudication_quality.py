"""Run the labelled adjudication suite through the real pipeline and score decisions per type."""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import tempfile
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.adjudicator.engines.base import AdjudicationEngine
from services.adjudicator.engines.jev import MODEL_VERSION, JevEngine
from services.adjudicator.entities.resolver import EntityResolver
from services.adjudicator.normalization import Normalizer, PredicateVocabulary
from services.adjudicator.service import AdjudicationService
from services.adjudicator.worker import make_handler
from shared.db.queue import claim, complete, enqueue, fail
from shared.embedding import Embedder

__all__ = ["DEFAULT_SUITE", "CaseResult", "SuiteReport", "load_suite", "main", "run_suite"]

DEFAULT_SUITE = Path(__file__).resolve().parents[1] / "tests" / "data" / "adjudication_suite.jsonl"
RESULTS = Path(__file__).resolve().parent / "results" / "adjudication_quality.json"


def load_suite(path: Path = DEFAULT_SUITE) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@dataclass
class CaseResult:
    case_id: str
    expected: list[str]
    actual: list[str]
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.problems


@dataclass
class SuiteReport:
    engine: str
    cases: list[CaseResult]

    def per_action(self) -> dict[str, dict[str, float]]:
        """Per expected decision type: how many claims got exactly that decision."""
        total: Counter[str] = Counter()
        right: Counter[str] = Counter()
        for case in self.cases:
            for want, got in zip(case.expected, case.actual, strict=False):
                total[want] += 1
                right[want] += want == got
        return {
            k: {"n": total[k], "correct": right[k], "accuracy": right[k] / total[k]}
            for k in sorted(total)
        }

    def summary(self) -> dict[str, Any]:
        decisions = sum(len(c.expected) for c in self.cases)
        correct = sum(
            w == g for c in self.cases for w, g in zip(c.expected, c.actual, strict=False)
        )
        return {
            "engine": self.engine,
            "cases": len(self.cases),
            "cases_passed": sum(c.passed for c in self.cases),
            "decision_accuracy": correct / decisions if decisions else 0.0,
            "per_action": self.per_action(),
            "failures": {c.case_id: c.problems for c in self.cases if not c.passed},
        }


def _time(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value).replace(tzinfo=UTC)


class _Writer:
    """Writes documents, versions and claims as the ingest service would."""

    def __init__(self, factory: async_sessionmaker[AsyncSession], namespace: str) -> None:
        self.factory = factory
        self.namespace = namespace
        self.offset = 0

    async def one(self, session: AsyncSession, sql: str, **params: Any) -> Any:
        return (await session.execute(text(sql), params)).scalar()

    async def document(self, session: AsyncSession, title: str) -> tuple[uuid.UUID, uuid.UUID]:
        await session.execute(
            text("INSERT INTO namespaces (namespace) VALUES (:ns) ON CONFLICT DO NOTHING"),
            {"ns": self.namespace},
        )
        doc = await self.one(
            session,
            "INSERT INTO documents (namespace, identity_key, title) VALUES (:ns, :k, :t)"
            " RETURNING id",
            ns=self.namespace,
            k=f"sha256:{uuid.uuid4().hex}",
            t=title,
        )
        chunk = await self.one(
            session,
            "INSERT INTO chunks (namespace, document_id, content_sha256, text)"
            " VALUES (:ns, :d, :s, :t) RETURNING id",
            ns=self.namespace,
            d=doc,
            s=uuid.uuid4().hex,
            t=title,
        )
        return doc, chunk

    async def version(self, session: AsyncSession, doc: uuid.UUID, number: int) -> uuid.UUID:
        return await self.one(  # type: ignore[no-any-return]
            session,
            "INSERT INTO document_versions (namespace, document_id, version_number, content,"
            " content_text, media_type, content_sha256)"
            " VALUES (:ns, :d, :n, '', '', 'text/plain', :s) RETURNING id",
            ns=self.namespace,
            d=doc,
            n=number,
            s=hashlib.sha256(uuid.uuid4().bytes).hexdigest(),
        )

    async def claim(
        self,
        session: AsyncSession,
        doc: uuid.UUID,
        chunk: uuid.UUID,
        version: uuid.UUID,
        spec: dict[str, Any],
        extractor_version: str,
    ) -> uuid.UUID:
        self.offset += 1
        claim_id: uuid.UUID = await self.one(
            session,
            "INSERT INTO claims (namespace, document_id, first_version_id, chunk_id, claim_text,"
            " normalized_text, source_span, char_start, char_end, chunk_char_start,"
            " chunk_char_end, asserted_at, claim_valid_from, claim_valid_until,"
            " claim_valid_precision, claim_valid_kind, is_attributed, holder, polarity,"
            " subject_text, predicate_text, object_text, speaker, extractor_name,"
            " extractor_version, dedupe_key) VALUES (:ns, :d, :v, :c, :t, lower(:t), :t, :o, :o,"
            " 0, 0, :said, :vf, :vu, :p, :k, :attr, :h, :pol, :s, :pred, :obj, :sp, 'suite',"
            " :xv, :key) RETURNING id",
            ns=self.namespace,
            d=doc,
            v=version,
            c=chunk,
            t=spec["text"],
            o=self.offset,
            said=_time(spec.get("said")),
            vf=_time(spec.get("valid_from")),
            vu=_time(spec.get("valid_until")),
            p=spec.get("precision", "unknown"),
            k=spec.get("kind"),
            attr=spec.get("holder") is not None,
            h=spec.get("holder"),
            pol=spec.get("polarity", "positive"),
            s=spec.get("subject"),
            pred=spec.get("predicate"),
            obj=spec.get("object"),
            sp=spec.get("speaker"),
            xv=extractor_version,
            key=uuid.uuid4().hex,
        )
        await self.link(session, version, claim_id)
        return claim_id

    async def link(self, session: AsyncSession, version: uuid.UUID, claim_id: uuid.UUID) -> None:
        await session.execute(
            text(
                "INSERT INTO version_claims (namespace, version_id, claim_id) VALUES (:ns, :v, :c)"
            ),
            {"ns": self.namespace, "v": version, "c": claim_id},
        )


async def _drain(
    factory: async_sessionmaker[AsyncSession], service: AdjudicationService, kind: str
) -> None:
    handler = make_handler(service, "suite")
    while (item := await claim(factory, [kind], "suite", 120.0)) is not None:
        try:
            async with factory() as session, session.begin():
                await handler(session, item)
                await complete(session, item.id, "suite")
        except Exception as exc:
            async with factory() as session, session.begin():
                await fail(session, item.id, "suite", repr(exc))
            raise


async def _enqueue(
    factory: async_sessionmaker[AsyncSession],
    namespace: str,
    kind: str,
    version: uuid.UUID,
    retire: Sequence[uuid.UUID] = (),
    reason: str | None = None,
) -> None:
    async with factory() as session, session.begin():
        await enqueue(
            session,
            namespace,
            kind,
            {
                "version_id": str(version),
                "retire_claim_ids": [str(c) for c in retire],
                "retire_reason": reason,
            },
            version_id=version,
        )


def _action(rows: list[Any]) -> str:
    outcomes = [r.outcome for r in rows]
    if not outcomes:
        return "none"
    if "update" in outcomes and "add" in outcomes:
        return "supersede"
    if "update" in outcomes:
        return "adjust"
    if outcomes.count("contradict") >= 2:
        return "contradict_group"
    if "contradict" in outcomes:
        return "contradict_evidence"
    if "noop" in outcomes:
        return "confirm"
    return "add"


async def run_case(
    factory: async_sessionmaker[AsyncSession], service: AdjudicationService, case: dict[str, Any]
) -> CaseResult:
    namespace = f"suite-{uuid.uuid4().hex[:12]}"
    kind = f"adjudicate.version.{namespace}"
    writer = _Writer(factory, namespace)
    claim_order: list[uuid.UUID] = []
    for doc_spec in case["docs"]:
        async with factory() as session, session.begin():
            doc, chunk = await writer.document(session, doc_spec["title"])
            version = await writer.version(session, doc, 1)
            ids = [
                await writer.claim(session, doc, chunk, version, spec, "1")
                for spec in doc_spec["claims"]
            ]
        claim_order.extend(ids)
        await _enqueue(factory, namespace, kind, version)
        await _drain(factory, service, kind)
        for number in range(2, int(doc_spec.get("versions", 1)) + 1):
            async with factory() as session, session.begin():
                version = await writer.version(session, doc, number)
                for claim_id in ids:
                    await writer.link(session, version, claim_id)
            await _enqueue(factory, namespace, kind, version)
            await _drain(factory, service, kind)
        if doc_spec.get("reextract"):
            async with factory() as session, session.begin():
                version = await writer.version(session, doc, 2)
                fresh = [
                    await writer.claim(session, doc, chunk, version, spec, "2")
                    for spec in doc_spec["claims"]
                ]
            claim_order.extend(fresh)
            await _enqueue(factory, namespace, kind, version, ids, "reextracted")
            await _drain(factory, service, kind)
    return await _score(factory, namespace, case, claim_order)


async def _score(
    factory: async_sessionmaker[AsyncSession],
    namespace: str,
    case: dict[str, Any],
    claim_order: list[uuid.UUID],
) -> CaseResult:
    expect = case["expect"]
    async with factory() as session:
        transcripts = (
            await session.execute(
                text("SELECT claim_id, outcome FROM decision_transcripts WHERE namespace = :ns"),
                {"ns": namespace},
            )
        ).all()
        facts = (
            await session.execute(
                text(
                    "SELECT f.label, f.valid_from, f.valid_until, f.evidence_count,"
                    " f.contradiction_group_id, e.canonical_name AS subject,"
                    " (SELECT count(*) FROM fact_evidence x WHERE x.fact_id = f.id"
                    "  AND x.stance = 'contradicts') AS contradicting"
                    " FROM facts f JOIN entities e ON e.id = f.subject_entity_id"
                    " WHERE f.namespace = :ns AND f.invalidated_at IS NULL"
                ),
                {"ns": namespace},
            )
        ).all()
    actual = [_action([t for t in transcripts if t.claim_id == cid]) for cid in claim_order]
    result = CaseResult(case["id"], list(expect["actions"]), actual)
    if actual != result.expected:
        result.problems.append(f"decisions {actual} != {result.expected}")
    if "facts" in expect and len(facts) != expect["facts"]:
        result.problems.append(f"{len(facts)} facts, expected {expect['facts']}")
    by_label = {f.label: f for f in facts}
    for label, count in expect.get("counts", {}).items():
        got = by_label[label].evidence_count if label in by_label else None
        if got != count:
            result.problems.append(f"count of {label!r} is {got}, expected {count}")
    for label, (start, until) in expect.get("windows", {}).items():
        fact = by_label.get(label)
        want = (_time(start), _time(until))
        if fact is None or (fact.valid_from, fact.valid_until) != want:
            got = None if fact is None else (fact.valid_from, fact.valid_until)
            result.problems.append(f"window of {label!r} is {got}, expected {want}")
    if "groups" in expect:
        groups = {f.contradiction_group_id for f in facts if f.contradiction_group_id}
        if len(groups) != expect["groups"]:
            result.problems.append(f"{len(groups)} groups, expected {expect['groups']}")
    if "contradicting" in expect:
        got = sum(f.contradicting for f in facts)
        if got != expect["contradicting"]:
            result.problems.append(f"{got} contradicting links, expected {expect['contradicting']}")
    for label, subject in expect.get("subjects", {}).items():
        fact = by_label.get(label)
        if fact is None or fact.subject != subject:
            result.problems.append(f"{label!r} not anchored on {subject}")
    return result


def build_service(
    factory: async_sessionmaker[AsyncSession], embedder: Embedder, engine: AdjudicationEngine
) -> AdjudicationService:
    return AdjudicationService(
        factory,
        engine=engine,
        engine_version=MODEL_VERSION if engine.name == "jev" else "prompt",
        resolver=EntityResolver(embedder),
        embedder=embedder,
        normalizer=Normalizer(PredicateVocabulary()),
        confidence_floor=0.75,
        extractor="suite",
    )


async def run_suite(
    factory: async_sessionmaker[AsyncSession],
    embedder: Embedder,
    engine: AdjudicationEngine,
    cases: Sequence[dict[str, Any]],
) -> SuiteReport:
    service = build_service(factory, embedder, engine)
    return SuiteReport(engine.name, [await run_case(factory, service, case) for case in cases])


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    from services.adjudicator.engines.prompt import create_engine as create_adjudication_engine
    from shared.db.embedded import EmbeddedPostgres
    from shared.db.engine import create_engine, session_factory
    from shared.db.migrate import upgrade_to_head
    from shared.embedding import OnnxMiniLmEmbedder

    cases = load_suite(Path(args.suite))
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedPostgres(Path(tmp) / "pg")
        url = server.start()
        try:
            await upgrade_to_head(url)
            engine = create_engine(url)
            factory = session_factory(engine)
            embedder = OnnxMiniLmEmbedder.load(threads=1)
            reports = {"jev": (await run_suite(factory, embedder, JevEngine(), cases)).summary()}
            if args.llm_base_url:
                prompt = create_adjudication_engine(
                    "prompt",
                    llm_base_url=args.llm_base_url,
                    llm_model=args.llm_model,
                    timeout=120.0,
                    max_retries=0,
                )
                report = await run_suite(factory, embedder, prompt, cases[: args.prompt_cases])
                reports["prompt"] = report.summary()
            await engine.dispose()
        finally:
            server.stop()
    return reports


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--suite", default=str(DEFAULT_SUITE))
    parser.add_argument("--llm-base-url", default=None, help="OpenAI-compatible server for prompt")
    parser.add_argument("--llm-model", default="smollm2")
    parser.add_argument("--prompt-cases", type=int, default=65)
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args()
    reports = asyncio.run(_main(args))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(reports, indent=2, default=str))
    for name, report in reports.items():
        print(
            f"{name}: {report['cases_passed']}/{report['cases']} cases, "
            f"decision accuracy {report['decision_accuracy']:.3f}"
        )
        for action, row in report["per_action"].items():
            print(f"  {action:20s} {row['correct']:3d}/{row['n']:3d}  {row['accuracy']:.3f}")


if __name__ == "__main__":
    main()
