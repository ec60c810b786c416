"""The spec's own examples, end to end: the sample corpus through the four real services."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from rememberstack.v1 import common_pb2, fact_pb2, query_service_pb2

from shared.cli.client import Stubs, connect
from shared.cli.ingest_files import ingest_files, watch_until_settled
from shared.grpc.server import GrpcServer
from shared.text.temporal import temporal_spans

CORPUS = Path(__file__).resolve().parents[2] / "samples" / "corpus"
HISTORY = common_pb2.TimeScope(history=common_pb2.HistoryScope())
CURRENT = common_pb2.TimeScope(current=common_pb2.CurrentScope())


@dataclass(frozen=True)
class Corpus:
    namespace: str
    stubs: Stubs


@pytest.fixture(scope="module")
async def corpus(servers: dict[str, GrpcServer]) -> AsyncIterator[Corpus]:
    """The sample corpus ingested once, one document at a time in said-on order, so each
    document is adjudicated against everything said before it."""
    manifest = json.loads((CORPUS / "manifest.json").read_text())
    said_on = {
        name: datetime.fromisoformat(value.replace("Z", "+00:00"))
        for name, value in manifest.items()
        if not name.startswith("_")
    }
    namespace = f"golden-{uuid.uuid4().hex[:8]}"
    async with connect({name: server.address for name, server in servers.items()}) as stubs:
        for name in sorted(said_on, key=said_on.__getitem__):
            (outcome,) = await ingest_files(
                stubs, [CORPUS / name], namespace=namespace, said_on=said_on
            )
            (state,) = await watch_until_settled(
                stubs, [outcome.version_id], namespace=namespace, on_update=lambda _s: None
            )
            assert state.ready, (name, state)
        yield Corpus(namespace, stubs)


async def _facts(
    corpus: Corpus, query: str, scope: common_pb2.TimeScope, k: int = 30
) -> list[fact_pb2.FactResult]:
    reply = await corpus.stubs.query.FactsContext(
        query_service_pb2.FactsContextRequest(
            namespace=corpus.namespace, query=query, k=k, time_scope=scope
        )
    )
    return list(reply.facts)


async def _entity_id(corpus: Corpus, name: str) -> str:
    reply = await corpus.stubs.query.ResolveEntity(
        query_service_pb2.ResolveEntityRequest(namespace=corpus.namespace, name=name)
    )
    exact = [c for c in reply.candidates if c.canonical_name == name]
    assert exact, [c.canonical_name for c in reply.candidates]
    return exact[0].entity_id


async def _relations(
    corpus: Corpus, subject: str, scope: common_pb2.TimeScope
) -> list[fact_pb2.FactResult]:
    reply = await corpus.stubs.query.LookupRelations(
        query_service_pb2.LookupRelationsRequest(
            namespace=corpus.namespace,
            subject_entity_id=await _entity_id(corpus, subject),
            time_scope=scope,
        )
    )
    return list(reply.facts)


def _ts(moment: datetime) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(moment)
    return stamp


def _day(ts: Timestamp) -> datetime:
    return ts.ToDatetime(tzinfo=UTC)


async def test_cutover_dates_are_one_contradiction_group_returned_together_in_june(
    corpus: Corpus,
) -> None:
    # The dates are events: a read returns them for the time their windows show.
    june = common_pb2.TimeScope(
        overlap=common_pb2.OverlapScope(
            **{
                "from": _ts(datetime(2026, 6, 1, tzinfo=UTC)),
                "to": _ts(datetime(2026, 6, 30, tzinfo=UTC)),
            }
        )
    )
    facts = await _facts(corpus, "billing migration cutover", june)
    cutover = [f for f in facts if f.subject.name == "billing migration cutover"]
    grouped = [f for f in cutover if f.contradiction_group]
    assert grouped, [(f.label, f.subject.name) for f in facts]
    first = grouped[0]
    sides = {first.fact_id} | {m.fact_id for m in first.contradiction.co_members}
    assert len(sides) == 2 and first.contradiction.total == 1
    starts = {_day(f.validity.valid_from).date().isoformat() for f in cutover if f.fact_id in sides}
    starts |= {
        _day(m.validity.valid_from).date().isoformat() for m in first.contradiction.co_members
    }
    # The spec's June 8 was corrected to June 9 by the retro; the standup's June 15 disputes it.
    assert starts == {"2026-06-09", "2026-06-15"}


async def test_correction_adjusts_the_june_8_window_and_keeps_the_old_one_in_the_transcript(
    corpus: Corpus,
) -> None:
    facts = await _facts(corpus, "billing migration cutover", HISTORY)
    (adjusted,) = [
        f
        for f in facts
        if f.subject.name == "billing migration cutover"
        and _day(f.validity.valid_from) == datetime(2026, 6, 9, tzinfo=UTC)
    ]
    assert _day(adjusted.validity.valid_until) == datetime(2026, 6, 10, tzinfo=UTC)
    transcript = await corpus.stubs.query.TranscriptRelation(
        query_service_pb2.TranscriptRelationRequest(
            namespace=corpus.namespace, fact_id=adjusted.fact_id
        )
    )
    updates = [d for d in transcript.decisions if d.outcome == fact_pb2.DECISION_OUTCOME_UPDATE]
    assert len(updates) == 1, transcript.decisions
    (update,) = updates
    assert _day(update.window_before.valid_from) == datetime(2026, 6, 8, tzinfo=UTC)
    assert _day(update.window_after.valid_from) == datetime(2026, 6, 9, tzinfo=UTC)


async def test_move_to_the_search_team_supersedes_works_on_at_the_successors_world_start(
    corpus: Corpus,
) -> None:
    current = await _relations(corpus, "Ravi Patel", CURRENT)
    history = await _relations(corpus, "Ravi Patel", HISTORY)
    assert [(f.predicate, f.object.name) for f in current] == [("member_of", "search team")]
    by_predicate = {f.predicate: f for f in history}
    assert set(by_predicate) == {"works_on", "member_of"}
    works_on, member_of = by_predicate["works_on"], by_predicate["member_of"]
    assert works_on.object.name == "billing migration"
    assert works_on.label == "Ravi Patel works on billing migration"
    # Closed at the move's world start (June 2026), not at the retro's said-on time (June 30).
    assert _day(works_on.validity.valid_until) == datetime(2026, 6, 1, tzinfo=UTC)
    assert works_on.superseded_by_fact_id == member_of.fact_id
    assert _day(member_of.validity.valid_from) == datetime(2026, 6, 1, tzinfo=UTC)
    assert not member_of.validity.HasField("valid_until")


@pytest.mark.parametrize(
    ("given", "full", "statement"),
    [
        ("Ravi", "Ravi Patel", "Ravi said the billing migration is on track"),
        ("Dana", "Dana Kim", "Dana believes the June date is too tight"),
    ],
)
async def test_given_name_in_the_standup_resolves_to_the_person_the_context_supports(
    corpus: Corpus, given: str, full: str, statement: str
) -> None:
    facts = await _facts(corpus, statement, HISTORY)
    (observation,) = [f for f in facts if f.label == statement]
    assert observation.kind == fact_pb2.FACT_KIND_OBSERVATION
    assert observation.subject.name == full
    context = await _entity_id(corpus, "billing migration")
    reply = await corpus.stubs.query.ResolveEntity(
        query_service_pb2.ResolveEntityRequest(
            namespace=corpus.namespace, name=given, context_entity_ids=[context]
        )
    )
    assert reply.candidates[0].canonical_name == full


async def test_no_fact_label_contains_a_date(corpus: Corpus) -> None:
    labels: set[str] = set()
    for query in ("billing migration cutover", "Ravi Patel", "Dana Kim", "payments team", "Mel"):
        labels |= {f.label for f in await _facts(corpus, query, HISTORY)}
    assert "Mel is a member of payments team" in labels
    assert "The billing migration cutover is scheduled" in labels
    assert [label for label in labels if temporal_spans(label)] == []


async def test_evidence_count_counts_distinct_documents_that_say_the_same_thing(
    corpus: Corpus,
) -> None:
    relations = await _relations(corpus, "Dana Kim", CURRENT)
    counts = {f.label: f.evidence_count for f in relations}
    # The spec and the onboarding guide both say it; the team chat says something else.
    assert counts["Dana Kim is a member of payments team"] == 2
    assert counts["Dana Kim reports to Head of Product"] == 1
    uses = await _relations(corpus, "billing migration", CURRENT)
    assert {f.label: f.evidence_count for f in uses} == {"billing migration uses Postgres": 2}


async def test_what_a_cited_document_says_is_about_its_thing_not_the_document(
    corpus: Corpus,
) -> None:
    """ "According to the spec, …" cites a source, not someone's view: the statement is about
    the service, so it can meet what other sources say of it (SPEC §6's cutover example)."""
    label = "According to the spec, the old invoicing service will be retired"
    facts = await _facts(corpus, "old invoicing service retired", HISTORY)
    (observation,) = [f for f in facts if f.label == label]
    assert observation.subject.name == "old invoicing service"
    assert _day(observation.validity.valid_from) == datetime(2026, 7, 1, tzinfo=UTC)
