"""Checks every request message before a servicer sees it: control characters, string lengths,
timestamp ranges, repeated-field sizes; and collects the namespaces the request names.

Generic over the protos, so a new field is covered the day it is added: the limits below are
by field name, with a default for any other string.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from shared.errors import Violations

__all__ = ["DEFAULT_STRING_LIMIT", "RequestFacts", "inspect_request", "string_limit"]

DEFAULT_STRING_LIMIT = 2048
_ID_LIMIT = 64
_MAX_REPEATED = 1000
# Limits by field name; ids (*_id, *_ids) get _ID_LIMIT. Converters may check tighter ones.
_STRING_LIMITS: dict[str, int] = {
    "namespace": 128,
    "media_type": 255,
    "source_kind": 256,
    "query": 8192,
    "property_query": 8192,
    "name": 512,
    "predicate": 128,
    "predicates": 128,
    "decided_by": 200,
    "page_token": 4096,
    "continuation": 4096,
}
# Fields holding prose may carry tabs and line breaks; every other field no control character.
_FREE_TEXT = frozenset({"query", "property_query", "title", "name"})
# Unicode category Cc: C0, DEL and C1; free text keeps \t \n \r.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_CONTROL_IN_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_TIMESTAMP = "google.protobuf.Timestamp"
_MIN_SECONDS, _MAX_SECONDS = -62_135_596_800, 253_402_300_799  # 0001-01-01 .. 9999-12-31


@dataclass
class RequestFacts:
    """What inspecting one request found: every violation, and every namespace it names
    (``""`` for a top-level namespace left empty, which means the server's default; an empty
    nested one takes its enclosing message's)."""

    violations: Violations = field(default_factory=Violations)
    namespaces: set[str] = field(default_factory=set)


def string_limit(name: str) -> int:
    """The longest value a string field of this name may hold, in characters."""
    if name in _STRING_LIMITS:
        return _STRING_LIMITS[name]
    if name.endswith(("_id", "_ids")):
        return _ID_LIMIT
    return DEFAULT_STRING_LIMIT


def inspect_request(message: Message, prefix: str = "") -> RequestFacts:
    """Check ``message`` and everything nested in it; field paths start with ``prefix``."""
    facts = RequestFacts()
    _walk(message, prefix, facts)
    return facts


def _walk(message: Message, path: str, facts: RequestFacts, inherited: str = "") -> None:
    descriptor = message.DESCRIPTOR
    if descriptor.full_name == _TIMESTAMP:
        _check_timestamp(message, path.rstrip("."), facts.violations)
        return
    namespace_field = descriptor.fields_by_name.get("namespace")
    if namespace_field is not None and namespace_field.type == FieldDescriptor.TYPE_STRING:
        # An empty nested namespace means the enclosing request's (CombinedContext's halves).
        inherited = message.namespace or inherited  # type: ignore[attr-defined]
        facts.namespaces.add(inherited)
    for fd, value in message.ListFields():
        where = f"{path}{fd.name}"
        if fd.is_repeated:
            if len(value) > _MAX_REPEATED:
                facts.violations.add(where, f"accepts at most {_MAX_REPEATED} items")
                continue
            for index, item in enumerate(value):
                _check_value(fd, item, f"{where}[{index}]", facts, inherited)
        else:
            _check_value(fd, value, where, facts, inherited)


def _check_value(
    fd: FieldDescriptor, value: object, where: str, facts: RequestFacts, inherited: str
) -> None:
    if fd.type == FieldDescriptor.TYPE_STRING:
        assert isinstance(value, str)
        _check_string(fd.name, value, where, facts.violations)
    elif fd.type == FieldDescriptor.TYPE_MESSAGE:
        assert isinstance(value, Message)
        _walk(value, f"{where}.", facts, inherited)


def _check_string(name: str, value: str, where: str, violations: Violations) -> None:
    limit = string_limit(name)
    if len(value) > limit:
        violations.add(where, f"must be at most {limit} characters, got {len(value)}")
        return
    found = (_CONTROL_IN_TEXT if name in _FREE_TEXT else _CONTROL).search(value)
    if found is not None:
        char = found.group()
        violations.add(
            where, f"must not contain control characters (U+{ord(char):04X} at {found.start()})"
        )


def _check_timestamp(ts: Message, where: str, violations: Violations) -> None:
    seconds, nanos = ts.seconds, ts.nanos  # type: ignore[attr-defined]
    if not _MIN_SECONDS <= seconds <= _MAX_SECONDS:
        violations.add(where, "must be a UTC instant within years 1 to 9999")
    if not 0 <= nanos < 1_000_000_000:
        violations.add(where, "nanos must be within 0..999999999")
