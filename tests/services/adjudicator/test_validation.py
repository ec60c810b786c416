"""Validation, the confidence floor, the adjudication flow and the prompt engine's answers."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest
from openai import AsyncOpenAI

from services.adjudicator.domain import (
    Assertion,
    CandidateFact,
    ClaimView,
    Decision,
    Window,
    recorded_outcome,
)
from services.adjudicator.engines.base import (
    ConfigurationError,
    EngineAnswerInvalid,
    adjudicate,
    apply_floor,
    validate,
)
from services.adjudicator.engines.jev import JevEngine
from services.adjudicator.engines.prompt import (
    PromptEngine,
    create_engine,
    decision_schema,
    parse_answer,
)


def at(y: int, m: int, d: int = 1) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


def make_assertion(window: Window | None = None, kind: str = "relation") -> Assertion:
    claim = ClaimView(
        claim_id="claim-9",
        document_id="doc-4",
        claim_text="Priya joined Initech in May 2026.",
        asserted_at=at(2026, 7, 1),
        polarity="positive",
        is_attributed=False,
        holder=None,
        subject_text="Priya",
        predicate_text="joined",
        object_text="Initech",
        window=window or Window(),
        window_kind="effective_period",
    )
    return Assertion(
        kind=kind,  # type: ignore[arg-type]
        subject_entity_id="ent-priya",
        predicate="works_for" if kind == "relation" else None,
        object_entity_id="ent-initech" if kind == "relation" else None,
        statement="Priya works for Initech",
        polarity="positive",
        window=claim.window,
        claim=claim,
        subject_name="Priya",
        object_name="Initech",
        label="Priya works for Initech",
    )


def make_candidate(fact_id: str = "fact-7", window: Window | None = None) -> CandidateFact:
    return CandidateFact(
        fact_id=fact_id,
        kind="relation",
        subject_entity_id="ent-priya",
        predicate="works_for",
        object_entity_id="ent-umbrella",
        statement="Priya works for Umbrella",
        label="Priya works for Umbrella",
        window=window or Window(at(2022, 1), None, "month"),
    )


def make_decision(**changes: Any) -> Decision:
    base = Decision(
        action="confirm",
        candidate_id="fact-7",
        stance="supports",
        window_action="keep",
        new_window=None,
        confidence=0.9,
        rationale="repeats it",
        method="test",
        engine="test",
    )
    return replace(base, **changes)


def test_consistent_decision_has_no_problems() -> None:
    assert validate(make_decision(), make_assertion(), [make_candidate()]) == []


def test_unknown_candidate_id_is_rejected() -> None:
    problems = validate(
        make_decision(candidate_id="fact-404"), make_assertion(), [make_candidate()]
    )
    assert any("fact-404" in p for p in problems)


def test_inverted_window_is_rejected() -> None:
    inverted = Window(at(2026, 5), at(2026, 1), "month")
    decision = make_decision(action="adjust", window_action="replace", new_window=inverted)
    problems = validate(decision, make_assertion(), [make_candidate()])
    assert any("inverted" in p for p in problems)


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({"action": "add"}, "must not name a candidate"),
        ({"candidate_id": None}, "unknown candidate"),
        ({"stance": "contradicts"}, "needs stance supports"),
        ({"action": "contradict_group"}, "needs stance contradicts"),
        ({"action": "adjust", "window_action": "replace"}, "needs a new window"),
        ({"window_action": "close"}, "needs window action keep"),
        ({"confidence": 1.4}, "outside"),
    ],
)
def test_inconsistent_action_is_rejected(changes: dict[str, Any], fragment: str) -> None:
    problems = validate(make_decision(**changes), make_assertion(), [make_candidate()])
    assert any(fragment in p for p in problems), problems


def test_supersede_without_successor_start_is_rejected() -> None:
    decision = make_decision(
        action="supersede",
        window_action="close",
        new_window=Window(at(2022, 1), at(2026, 7, 1), "month"),
    )
    problems = validate(decision, make_assertion(), [make_candidate()])
    assert any("successor's world start" in p for p in problems)


def test_supersede_closing_at_said_on_time_instead_of_world_start_is_rejected() -> None:
    incoming = make_assertion(Window(at(2026, 5), None, "month"))
    said_on = incoming.claim.asserted_at
    assert said_on is not None
    decision = make_decision(
        action="supersede",
        window_action="close",
        new_window=Window(at(2022, 1), said_on, "month"),
    )
    problems = validate(decision, incoming, [make_candidate()])
    assert any("close the earlier fact at the successor's world start" in p for p in problems)
    fixed = replace(decision, new_window=Window(at(2022, 1), at(2026, 5), "month"))
    assert validate(fixed, incoming, [make_candidate()]) == []


def test_supersede_of_a_later_fact_is_rejected() -> None:
    incoming = make_assertion(Window(at(2021, 5), None, "month"))
    decision = make_decision(
        action="supersede",
        window_action="close",
        new_window=Window(at(2022, 1), at(2021, 5), "month"),
    )
    problems = validate(decision, incoming, [make_candidate()])
    assert any("no later than" in p for p in problems)


def test_observation_cannot_merge_into_relation() -> None:
    problems = validate(make_decision(), make_assertion(kind="observation"), [make_candidate()])
    assert any("cannot merge" in p for p in problems)


def test_floor_turns_low_confidence_merge_into_add() -> None:
    floored = apply_floor(
        make_decision(action="contradict_group", stance="contradicts", confidence=0.6), 0.75
    )
    assert (floored.action, floored.candidate_id, floored.method) == (
        "add",
        None,
        "confidence_floor",
    )
    assert "contradict_group" in floored.rationale


def test_floor_keeps_confident_merge_and_never_touches_add() -> None:
    confident = make_decision(confidence=0.8)
    assert apply_floor(confident, 0.75) == confident
    low_add = make_decision(action="add", candidate_id=None, confidence=0.2)
    assert apply_floor(low_add, 0.75) == low_add


def test_recorded_outcomes_follow_decision_table() -> None:
    assert [
        recorded_outcome(a) for a in ("add", "confirm", "adjust", "supersede", "contradict_group")
    ] == [
        "add",
        "noop",
        "update",
        "update",
        "contradict",
    ]


async def test_no_candidates_adds_through_novelty_gate() -> None:
    result = await adjudicate(JevEngine(), make_assertion(), [])
    assert (result.decision.action, result.decision.method) == ("add", "novelty_gate")
    assert result.proposed is None


def test_parse_answer_reads_a_structured_decision() -> None:
    incoming = make_assertion(Window(at(2026, 5), None, "month"))
    answer = {
        "action": "supersede",
        "candidate_id": "fact-7",
        "stance": "supports",
        "window_action": "close",
        "new_valid_from": None,
        "new_valid_until": "2026-05-01T00:00:00Z",
        "confidence": 0.91,
        "rationale": "new job",
    }
    decision = parse_answer(json.dumps(answer), incoming, [make_candidate()], model="m")
    assert decision.new_window == Window(at(2022, 1), at(2026, 5), "month")
    assert validate(decision, incoming, [make_candidate()]) == []


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not json",
        "[1, 2]",
        '{"action": "merge"}',
        '{"action": "add", "stance": "supports", "window_action": "keep", "confidence": "high",'
        ' "candidate_id": "none"}',
    ],
)
def test_unreadable_answer_raises_engine_answer_invalid(text: str) -> None:
    with pytest.raises(EngineAnswerInvalid):
        parse_answer(text, make_assertion(), [make_candidate()])


def test_schema_limits_candidate_ids_to_the_candidates_and_none() -> None:
    schema = decision_schema([make_candidate("fact-1"), make_candidate("fact-2")])
    assert schema["properties"]["candidate_id"]["enum"] == ["fact-1", "fact-2", "none"]
    assert schema["properties"]["rationale"]["maxLength"] == 200


def test_prompt_engine_without_model_settings_names_the_variables() -> None:
    with pytest.raises(ConfigurationError) as info:
        create_engine("prompt", llm_model="smollm2")
    assert "REMEMBERSTACK_LLM_BASE_URL" in str(info.value)
    assert "REMEMBERSTACK_LLM_MODEL" in str(info.value)


def test_create_engine_selects_jev_and_refuses_unknown_names() -> None:
    assert create_engine("jev").name == "jev"
    with pytest.raises(ConfigurationError):
        create_engine("oracle")


class _ChatEndpoint(BaseHTTPRequestHandler):
    """An OpenAI-compatible /chat/completions endpoint answering with a fixed content."""

    content: ClassVar[str] = ""
    requests: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(body)
        reply = {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": type(self).content},
                }
            ],
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        return


@pytest.fixture
def chat_endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _ChatEndpoint)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def _engine(base_url: str) -> PromptEngine:
    return PromptEngine(
        AsyncOpenAI(base_url=base_url, api_key="unused", max_retries=0),
        "smollm2",
        timeout=5.0,
        max_retries=0,
    )


async def test_prompt_engine_answer_naming_unknown_candidate_falls_back_to_add(
    chat_endpoint: str,
) -> None:
    _ChatEndpoint.content = json.dumps(
        {
            "action": "confirm",
            "candidate_id": "fact-invented",
            "stance": "supports",
            "window_action": "keep",
            "new_valid_from": None,
            "new_valid_until": None,
            "confidence": 0.99,
            "rationale": "same",
        }
    )
    result = await adjudicate(_engine(chat_endpoint), make_assertion(), [make_candidate()])
    assert (result.decision.action, result.decision.method) == ("add", "validation_fallback")
    assert any("fact-invented" in p for p in result.problems)
    sent = _ChatEndpoint.requests[-1]
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["max_tokens"] > 0


async def test_prompt_engine_unparseable_answer_falls_back_and_is_recorded(
    chat_endpoint: str,
) -> None:
    _ChatEndpoint.content = "I think they are the same"
    result = await adjudicate(_engine(chat_endpoint), make_assertion(), [make_candidate()])
    assert (result.decision.action, result.decision.method) == ("add", "validation_fallback")
    assert result.problems and "unreadable" in result.problems[0]


async def test_prompt_engine_valid_answer_is_applied_with_floor(chat_endpoint: str) -> None:
    _ChatEndpoint.content = json.dumps(
        {
            "action": "contradict_group",
            "candidate_id": "fact-7",
            "stance": "contradicts",
            "window_action": "keep",
            "new_valid_from": None,
            "new_valid_until": None,
            "confidence": 0.9,
            "rationale": "two employers at once",
        }
    )
    engine = _engine(chat_endpoint)
    confident = await adjudicate(engine, make_assertion(), [make_candidate()])
    assert (confident.decision.action, confident.decision.model) == ("contradict_group", "smollm2")
    floored = await adjudicate(engine, make_assertion(), [make_candidate()], floor=0.95)
    assert floored.decision.method == "confidence_floor"
