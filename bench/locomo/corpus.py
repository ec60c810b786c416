"""LoCoMo corpus loading: sessions as SPEC §1 conversation documents, and scorable questions."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_AUDIT_PATH",
    "DEFAULT_DATA_PATH",
    "Question",
    "Session",
    "Turn",
    "load_questions",
    "load_sessions",
    "parse_evidence",
    "parse_session_time",
    "render_turn",
    "to_document",
    "turn_offsets",
]

_DATA_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "eval-data" / "locomo"
DEFAULT_DATA_PATH = _DATA_DIR / "locomo10.json"
DEFAULT_AUDIT_PATH = _DATA_DIR / "locomo10_audit_errors.json"

_SESSION_KEY = re.compile(r"session_(\d+)")
_SESSION_TIME_FORMAT = "%I:%M %p on %d %B, %Y"
# Tolerates the malformed citations in the answer key ("D:11:26", "D30:05").
_EVIDENCE_ID = re.compile(r"D:?(\d+):(\d+)")
_EVIDENCE_SPLIT = re.compile(r"[;\s]+")
_LINE = re.compile(r"^\[(D\d+:\d+) \| [^\]]*\] ", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Turn:
    """One utterance of a session."""

    turn_id: str
    speaker: str
    text: str
    image_caption: str | None = None


@dataclass(frozen=True, slots=True)
class Session:
    """One dated session of a conversation; ``said_on`` is its time, in UTC."""

    conv_index: int
    session_no: int
    said_on: datetime
    turns: tuple[Turn, ...]


@dataclass(frozen=True, slots=True)
class Question:
    """One QA item with its (cleaned) evidence turn ids; category 1..5 as in the data."""

    question_id: str
    conv_index: int
    category: int
    question: str
    evidence: tuple[str, ...]


def _read_json(path: Path) -> Any:
    with path.open(encoding="utf-8") as handle:
        return json.load(handle)


def parse_session_time(raw: str) -> datetime:
    """Parse a ``session_N_date_time`` value such as ``"1:56 pm on 8 May, 2023"`` as UTC."""
    return datetime.strptime(raw.strip(), _SESSION_TIME_FORMAT).replace(tzinfo=UTC)


def load_sessions(path: Path = DEFAULT_DATA_PATH) -> list[Session]:
    """All sessions that have turns, ordered by conversation then session number."""
    sessions: list[Session] = []
    for conv_index, sample in enumerate(_read_json(path)):
        conversation: dict[str, Any] = sample["conversation"]
        numbered = sorted(
            (int(match.group(1)), key)
            for key in conversation
            if (match := _SESSION_KEY.fullmatch(key)) and conversation[key]
        )
        for session_no, key in numbered:
            turns = tuple(
                Turn(
                    turn_id=raw["dia_id"],
                    speaker=raw["speaker"],
                    text=raw["text"],
                    image_caption=raw.get("blip_caption"),
                )
                for raw in conversation[key]
            )
            said_on = parse_session_time(conversation[f"{key}_date_time"])
            sessions.append(Session(conv_index, session_no, said_on, turns))
    return sessions


def _one_line(text: str) -> str:
    return " ".join(text.split())


def render_turn(turn: Turn, said_on: datetime) -> str:
    """One document line: ``[D1:3 | 2023-05-08T13:56:00Z] Caroline: text [image: caption]``."""
    stamp = said_on.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    line = f"[{turn.turn_id} | {stamp}] {_one_line(turn.speaker)}: {_one_line(turn.text)}"
    if turn.image_caption:
        line += f" [image: {_one_line(turn.image_caption)}]"
    return line


def to_document(session: Session) -> tuple[str, str]:
    """The session as a conversation document (SPEC §1): ``(source_ref, text)``."""
    source_ref = f"locomo_{session.conv_index}_session_{session.session_no}"
    text = "\n".join(render_turn(turn, session.said_on) for turn in session.turns)
    return source_ref, text


def turn_offsets(text: str) -> dict[str, tuple[int, int]]:
    """Map each turn id of a rendered document to the ``[start, end)`` characters of its line."""
    offsets: dict[str, tuple[int, int]] = {}
    for match in _LINE.finditer(text):
        start = match.start()
        end = text.find("\n", start)
        offsets[match.group(1)] = (start, len(text) if end == -1 else end)
    return offsets


def parse_evidence(raw: list[str], known: set[str]) -> tuple[str, ...]:
    """Normalise cited ids (``D30:05`` -> ``D30:5``), dropping duplicates and unknown turns."""
    ids: list[str] = []
    for entry in raw:
        for token in _EVIDENCE_SPLIT.split(entry):
            match = _EVIDENCE_ID.fullmatch(token)
            if match is None:
                continue
            turn_id = f"D{int(match.group(1))}:{int(match.group(2))}"
            if turn_id in known and turn_id not in ids:
                ids.append(turn_id)
    return tuple(ids)


def _corrected_evidence(audit_path: Path) -> dict[str, list[str]]:
    # An empty correction is kept: the audit found nothing in the transcript supporting the item.
    return {item["question_id"]: item["correct_evidence"] for item in _read_json(audit_path)}


def load_questions(
    path: Path = DEFAULT_DATA_PATH, audit_path: Path | None = None
) -> list[Question]:
    """Every QA item, evidence cleaned and, with ``audit_path``, replaced by the audit errata."""
    corrections = _corrected_evidence(audit_path) if audit_path is not None else {}
    questions: list[Question] = []
    for conv_index, sample in enumerate(_read_json(path)):
        known = {
            turn["dia_id"]
            for key, value in sample["conversation"].items()
            if _SESSION_KEY.fullmatch(key)
            for turn in value
        }
        for qa_index, qa in enumerate(sample["qa"]):
            question_id = f"locomo_{conv_index}_qa{qa_index}"
            raw = corrections.get(question_id, qa["evidence"])
            questions.append(
                Question(
                    question_id=question_id,
                    conv_index=conv_index,
                    category=int(qa["category"]),
                    question=qa["question"],
                    evidence=parse_evidence(raw, known),
                )
            )
    return questions
