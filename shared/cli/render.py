"""Render wire messages as JSON with SPEC §8's snake_case names, and as rich tables."""

from __future__ import annotations

import json
from typing import Any

from google.protobuf.descriptor import EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp
from rich.console import Console
from rich.table import Table

__all__ = ["message_to_data", "print_facts", "print_json"]


def _enum_value_name(enum: EnumDescriptor, number: int) -> str | None:
    """`PRECISION_DAY` → `day`; unspecified values render as null."""
    value = enum.values_by_number.get(number)
    if value is None or value.name.endswith("_UNSPECIFIED"):
        return None
    prefix = "".join("_" + c if c.isupper() else c for c in enum.name).lstrip("_").upper() + "_"
    name = value.name
    return (name[len(prefix) :] if name.startswith(prefix) else name).lower()


def _scalar(field: Any, value: Any) -> Any:
    if field.type == FieldDescriptor.TYPE_ENUM and field.enum_type is not None:
        return _enum_value_name(field.enum_type, value)
    if field.type == FieldDescriptor.TYPE_BYTES:
        return f"<{len(value)} bytes>"
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return message_to_data(value)
    return value


def message_to_data(message: Message) -> Any:
    """Plain data for JSON: snake_case field names, lower-case enum names, ISO-8601 UTC times.

    Message fields that are not set render as null, so every SPEC §8 key is present.
    """
    if isinstance(message, Timestamp):
        return message.ToJsonString()
    descriptor = message.DESCRIPTOR
    data: dict[str, Any] = {}
    for field in descriptor.fields:
        value = getattr(message, field.name)
        if field.is_repeated:
            data[field.name] = [_scalar(field, item) for item in value]
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            data[field.name] = message_to_data(value) if message.HasField(field.name) else None
        else:
            data[field.name] = _scalar(field, value)
    return data


def print_json(console: Console, message: Message) -> None:
    """Print one message as indented JSON."""
    console.print_json(json.dumps(message_to_data(message)))


def print_facts(console: Console, response: Any) -> None:
    """A readable table of a FactsContextResponse-like message with its evidence."""
    if response.HasField("negative"):
        negative = message_to_data(response.negative)
        console.print(f"[yellow]{negative['kind']}[/]: {negative['explanation']}")
        if negative["workaround"]:
            console.print(f"  try: {negative['workaround']}")
    claims = {claim.claim_id: claim for claim in response.claims}
    evidence_by_fact: dict[str, list[tuple[str, str]]] = {}
    for link in response.fact_evidence:
        stance = message_to_data(link)["stance"]
        evidence_by_fact.setdefault(link.fact_id, []).append((link.claim_id, stance or ""))
    table = Table(title=f"{len(response.facts)} fact(s)", show_lines=True)
    for column in ("fact", "kind", "evidence", "valid", "match", "sources"):
        table.add_column(column)
    for fact in response.facts:
        data = message_to_data(fact)
        validity = data["validity"] or {}
        window = f"{validity.get('valid_from') or '?'} → {validity.get('valid_until') or '…'}"
        label = fact.label
        if fact.contradiction_group:
            sides = ", ".join(member.label for member in fact.contradiction.co_members)
            label += f"\n[red]contradicted by:[/] {sides}"
        sources = "\n".join(
            f"[{stance}] {claims[claim_id].claim_text}"
            + (f" ({claims[claim_id].document_title})" if claims[claim_id].document_title else "")
            for claim_id, stance in evidence_by_fact.get(fact.fact_id, [])
            if claim_id in claims
        )
        table.add_row(
            label,
            data["kind"] or "",
            str(fact.evidence_count),
            f"{window}\n({validity.get('valid_precision') or 'unknown'})",
            data["temporal_match"] or "",
            sources,
        )
    console.print(table)
