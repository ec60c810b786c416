"""The chat-model final choice of entity resolution: validation, fallback and its verdicts."""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable
from types import SimpleNamespace
from typing import Any

import pytest
from openai import AsyncOpenAI
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.adjudicator.config import load_settings
from services.adjudicator.entities.model_choice import ChatModelChooser, choice_schema
from services.adjudicator.entities.resolver import EntityResolver, Mention, ResolvedMention
from services.adjudicator.entities.rules import Choice, Nominee
from tests.support.llama import LlamaServer

DocumentClaims = Callable[[AsyncSession, str, int], Awaitable[tuple[uuid.UUID, list[uuid.UUID]]]]


class FakeChat:
    """An OpenAI-compatible client at the network boundary that replays canned answers."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.requests: list[dict[str, Any]] = []
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self._create))

    async def _create(self, **kwargs: Any) -> Any:
        self.requests.append(kwargs)
        message = SimpleNamespace(content=self.answers.pop(0))
        return SimpleNamespace(choices=[SimpleNamespace(message=message, finish_reason="stop")])


def _chooser(client: Any) -> ChatModelChooser:
    return ChatModelChooser(lambda: client, "fake-model", 5.0, 0)


def _nominee(name: str, score: float = 0.6) -> Nominee:
    return Nominee(
        uuid.uuid4(),
        name,
        name.lower(),
        name,
        name.lower(),
        "trigram",
        score,
        "given_name",
        None,
        False,
    )


def _answer(choice: str, confidence: float = 0.9) -> str:
    return json.dumps({"choice": choice, "confidence": confidence, "rationale": "because"})


async def test_answer_naming_a_nominee_is_chosen_and_the_schema_lists_only_nominees() -> None:
    dana, other = _nominee("Dana Kim"), _nominee("Dana Ross")
    client = FakeChat(_answer(str(other.entity_id)))
    rules = Choice(None, "unsupported_candidates", dana)
    choice, record = await _chooser(client).choose("Dana", ["Ravi"], [dana, other], rules)
    assert choice == Choice(other, "model")
    assert record["choice"] == str(other.entity_id) and "fallback" not in record
    request = client.requests[0]
    schema = request["response_format"]["json_schema"]["schema"]
    assert schema == choice_schema([dana, other])
    assert schema["properties"]["choice"]["enum"] == [
        str(dana.entity_id),
        str(other.entity_id),
        "new",
    ]
    assert schema["properties"]["rationale"]["maxLength"] == 200
    assert request["max_tokens"] > 0 and request["model"] == "fake-model"


async def test_answer_new_keeps_the_rejected_candidate_as_a_merge_proposal() -> None:
    dana = _nominee("Dana Kim")
    rules = Choice(dana, "given_name+document")
    choice, record = await _chooser(FakeChat(_answer("new"))).choose("Dana", [], [dana], rules)
    assert choice == Choice(None, "model", dana)
    assert record["choice"] == "new"


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (_answer(str(uuid.uuid4())), "neither a nominated candidate nor 'new'"),
        ("not json", "not JSON"),
        (json.dumps({"choice": "new", "confidence": "high"}), "confidence is not a number"),
        (_answer("new", confidence=0.2), "low confidence"),
    ],
)
async def test_unusable_answer_falls_back_to_the_rule_choice_with_the_reason(
    answer: str, reason: str
) -> None:
    dana = _nominee("Dana Kim")
    rules = Choice(dana, "given_name+co_mentioned")
    choice, record = await _chooser(FakeChat(answer)).choose("Dana", [], [dana], rules)
    assert choice is rules
    assert reason in record["fallback"] and record["rule_choice"] == "given_name+co_mentioned"


def test_llm_entity_resolver_without_a_chat_server_is_refused() -> None:
    with pytest.raises(ValueError, match="entity_resolver=llm needs"):
        load_settings(entity_resolver="llm", llm_model="m")
    assert load_settings().entity_resolver == "rules"


async def _resolve_dana_twice(
    session: AsyncSession,
    namespace: str,
    document_claims: DocumentClaims,
    resolver: EntityResolver,
) -> tuple[ResolvedMention, ResolvedMention, ResolvedMention]:
    """ "Dana Kim" and "Dana Ross" in two documents, then "Dana" in a third that shares no
    context with either: a lone name that two full names could stand for. Returns both
    candidates and the lone mention."""
    first_doc, first_claims = await document_claims(session, namespace, 1)
    namesake_doc, namesake_claims = await document_claims(session, namespace, 1)
    second_doc, second_claims = await document_claims(session, namespace, 1)
    (known,) = await resolver.resolve_mentions(
        session, namespace, [Mention("Dana Kim", "subject", first_claims[0], first_doc)]
    )
    (namesake,) = await resolver.resolve_mentions(
        session, namespace, [Mention("Dana Ross", "subject", namesake_claims[0], namesake_doc)]
    )
    (mention,) = await resolver.resolve_mentions(
        session,
        namespace,
        [Mention("Dana", "subject", second_claims[0], second_doc, co_mentions=("Olu Ade",))],
    )
    return known, namesake, mention


async def _verdict(session: AsyncSession, claim_id: uuid.UUID | None) -> Any:
    return (
        await session.execute(
            text(
                "SELECT step, scores, chosen_entity_id, created_new, resolver_version"
                " FROM resolution_verdicts WHERE claim_id = :claim"
            ),
            {"claim": claim_id},
        )
    ).one()


async def test_resolver_with_a_chooser_records_the_model_verdict_and_follows_it(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    client = FakeChat()
    resolver = EntityResolver(None, chooser=_chooser(client))
    async with session_factory() as session, session.begin():
        doc, claims = await document_claims(session, namespace, 1)
        (known,) = await resolver.resolve_mentions(
            session, namespace, [Mention("Dana Kim", "subject", claims[0], doc)]
        )
        assert known.entity_id is not None and not client.requests  # nothing to choose from
        client.answers.append(_answer(str(known.entity_id)))
        other_doc, other_claims = await document_claims(session, namespace, 1)
        (mention,) = await resolver.resolve_mentions(
            session,
            namespace,
            [Mention("Dana", "subject", other_claims[0], other_doc, co_mentions=("Olu Ade",))],
        )
        verdict = await _verdict(session, mention.mention.claim_id)
    assert mention.entity_id == known.entity_id and mention.step == "model"
    assert verdict.step == "model" and verdict.chosen_entity_id == known.entity_id
    assert verdict.resolver_version == "entity-llm-2:fake-model"
    assert verdict.scores["model"]["confidence"] == 0.9
    assert verdict.scores["rule"] == "model"


async def test_resolver_with_an_invalid_model_answer_keeps_the_rule_outcome(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    client = FakeChat(_answer("somebody-else"))
    resolver = EntityResolver(None, chooser=_chooser(client))
    async with session_factory() as session, session.begin():
        known, namesake, mention = await _resolve_dana_twice(
            session, namespace, document_claims, resolver
        )
        verdict = await _verdict(session, mention.mention.claim_id)
    # Offline, a lone "Dana" that two full names could stand for, with no shared context,
    # becomes a new entity (rules.choose).
    assert mention.created and mention.entity_id not in (known.entity_id, namesake.entity_id)
    assert verdict.step == "new" and verdict.created_new
    assert "neither a nominated candidate" in verdict.scores["model"]["fallback"]
    assert verdict.resolver_version == "entity-llm-2:fake-model"


@pytest.mark.llm
async def test_real_chat_model_decides_a_mention_with_a_recorded_valid_verdict(
    llama_server: LlamaServer,
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    def client() -> AsyncOpenAI:
        return AsyncOpenAI(base_url=llama_server.base_url, api_key="unused", max_retries=0)

    chooser = ChatModelChooser(client, llama_server.model, 120.0, 0)
    resolver = EntityResolver(None, chooser=chooser)
    async with session_factory() as session, session.begin():
        known, namesake, mention = await _resolve_dana_twice(
            session, namespace, document_claims, resolver
        )
        verdict = await _verdict(session, mention.mention.claim_id)
    record = verdict.scores["model"]
    assert verdict.resolver_version == f"entity-llm-2:{llama_server.model}"
    assert record["model"] == llama_server.model
    # A toy model may answer anything; what is recorded must be a valid outcome either way.
    if "fallback" in record:
        assert verdict.step == "new" and mention.created
    else:
        assert verdict.step == "model"
        candidates = {str(known.entity_id): known, str(namesake.entity_id): namesake}
        assert record["choice"] in (*candidates, "new")
        chosen = candidates.get(record["choice"], mention)
        assert verdict.chosen_entity_id == chosen.entity_id == mention.entity_id
        assert mention.created == (record["choice"] == "new")
