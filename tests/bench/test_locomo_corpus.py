"""Tests for the LoCoMo corpus loader: counts, SPEC §1 rendering, offsets and evidence cleaning."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench.locomo.corpus import (
    DEFAULT_AUDIT_PATH,
    DEFAULT_DATA_PATH,
    Question,
    Session,
    Turn,
    load_questions,
    load_sessions,
    parse_evidence,
    parse_session_time,
    to_document,
    turn_offsets,
)

needs_data = pytest.mark.skipif(
    not DEFAULT_DATA_PATH.exists(), reason="LoCoMo data not available (shared/eval-data)"
)


@pytest.fixture(scope="module")
def sessions() -> list[Session]:
    return load_sessions()


@pytest.fixture(scope="module")
def questions() -> list[Question]:
    return load_questions()


def _scorable(questions: list[Question]) -> list[Question]:
    return [q for q in questions if q.category <= 4 and q.evidence]


def test_session_time_with_pm_hour_parses_as_utc_24h() -> None:
    assert parse_session_time("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert parse_session_time("12:09 am on 13 September, 2023") == datetime(
        2023, 9, 13, 0, 9, tzinfo=UTC
    )


def test_document_renders_one_spec_line_per_turn_with_flattened_text_and_caption() -> None:
    session = Session(
        conv_index=3,
        session_no=2,
        said_on=datetime(2023, 5, 8, 13, 56, tzinfo=UTC),
        turns=(
            Turn("D2:1", "Caroline", "Hi!\nLook at\n\nthis."),
            Turn("D2:2", "Melanie", "Nice.", image_caption="a photo of a lake"),
        ),
    )
    source_ref, text = to_document(session)
    assert source_ref == "locomo_3_session_2"
    assert text.splitlines() == [
        "[D2:1 | 2023-05-08T13:56:00Z] Caroline: Hi! Look at this.",
        "[D2:2 | 2023-05-08T13:56:00Z] Melanie: Nice. [image: a photo of a lake]",
    ]


def test_turn_offsets_of_synthetic_document_cover_each_line_exactly() -> None:
    session = Session(
        0, 1, datetime(2024, 1, 1, tzinfo=UTC), (Turn("D1:1", "A", "x"), Turn("D1:2", "B", "yz"))
    )
    _, text = to_document(session)
    offsets = turn_offsets(text)
    assert text[slice(*offsets["D1:1"])] == "[D1:1 | 2024-01-01T00:00:00Z] A: x"
    assert text[slice(*offsets["D1:2"])] == "[D1:2 | 2024-01-01T00:00:00Z] B: yz"
    assert offsets["D1:2"][1] == len(text)


def test_malformed_evidence_strings_are_split_normalised_and_unknown_ids_dropped() -> None:
    known = {"D8:6", "D9:17", "D11:26", "D30:5", "D4:4"}
    raw = ["D8:6; D9:17", "D:11:26", "D30:05", "D", "D4:4 D99:1", "D8:6"]
    assert parse_evidence(raw, known) == ("D8:6", "D9:17", "D11:26", "D30:5", "D4:4")


@needs_data
def test_locomo10_has_10_conversations_272_sessions_5882_turns(sessions: list[Session]) -> None:
    assert len({s.conv_index for s in sessions}) == 10
    assert len(sessions) == 272
    assert sum(len(s.turns) for s in sessions) == 5882
    assert sessions[0].said_on == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


@needs_data
def test_locomo10_without_errata_keeps_1536_scorable_items_in_categories_1_to_4(
    questions: list[Question],
) -> None:
    assert len(questions) == 1986
    assert len(_scorable(questions)) == 1536
    assert questions[0].question_id == "locomo_0_qa0"
    assert questions[0].evidence == ("D1:3",)


@needs_data
def test_every_rendered_session_round_trips_its_turns_through_offsets(
    sessions: list[Session],
) -> None:
    for session in sessions:
        _, text = to_document(session)
        offsets = turn_offsets(text)
        assert list(offsets) == [t.turn_id for t in session.turns]
        for turn in session.turns:
            line = text[slice(*offsets[turn.turn_id])]
            assert "\n" not in line
            assert line.startswith(f"[{turn.turn_id} | ")
            assert f"] {turn.speaker}: {' '.join(turn.text.split())}" in line


@needs_data
def test_audit_errata_replace_evidence_and_empty_correction_makes_item_unscorable(
    questions: list[Question],
) -> None:
    audited = {q.question_id: q for q in load_questions(audit_path=DEFAULT_AUDIT_PATH)}
    assert audited["locomo_0_qa1"].evidence == ("D1:14",)
    assert audited["locomo_6_qa11"].evidence == ()
    assert len(_scorable(list(audited.values()))) == 1535
    original = {q.question_id: q for q in questions}
    assert original["locomo_0_qa1"].evidence == ("D1:12",)


def test_audit_file_entries_apply_by_question_id(tmp_path: Path) -> None:
    data = [
        {
            "conversation": {
                "speaker_a": "A",
                "speaker_b": "B",
                "session_1_date_time": "9:00 am on 1 January, 2024",
                "session_1": [
                    {"speaker": "A", "dia_id": "D1:1", "text": "one"},
                    {"speaker": "B", "dia_id": "D1:2", "text": "two"},
                ],
            },
            "qa": [
                {"question": "q0", "evidence": ["D1:1"], "category": 4},
                {"question": "q1", "evidence": ["D1:1"], "category": 1},
            ],
        }
    ]
    audit = [{"question_id": "locomo_0_qa1", "correct_evidence": ["D1:2", "D7:7"]}]
    data_path, audit_path = tmp_path / "data.json", tmp_path / "audit.json"
    data_path.write_text(json.dumps(data))
    audit_path.write_text(json.dumps(audit))
    loaded = load_questions(data_path, audit_path)
    assert [q.evidence for q in loaded] == [("D1:1",), ("D1:2",)]
    assert [q.category for q in loaded] == [4, 1]
