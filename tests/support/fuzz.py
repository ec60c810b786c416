"""Hypothesis strategies for any protobuf request message, from its descriptor, biased toward
the inputs that broke services: control characters, huge strings, out-of-range numbers and
timestamps, unknown enum values, ids that exist (in this namespace or another)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from hypothesis import strategies as st

F = FieldDescriptor

_NASTY_CHARS = st.sampled_from(
    ["\x00", "\x07", "\x1b", "\x7f", "\x85", "\u2028", "\ufeff", "é", "💥"]
)
_INTS = st.one_of(
    st.integers(-3, 40),
    st.sampled_from([-(2**31), 2**31 - 1, 1000, 10**6]),
)
_INT64S = st.one_of(_INTS, st.sampled_from([-(2**63), 2**63 - 1, 253_402_300_800, -62_135_596_801]))


def _strings(pool: Sequence[str]) -> st.SearchStrategy[str]:
    plain = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=24)
    nasty = st.builds(lambda head, bad, tail: head + bad + tail, plain, _NASTY_CHARS, plain)
    huge = st.sampled_from([10_000, 100_000]).map(lambda n: "x" * n)
    options = [plain, nasty, huge, st.just("")]
    if pool:
        options.insert(0, st.sampled_from(list(pool)))
    return st.one_of(*options)


def _bytes(pool: Sequence[bytes]) -> st.SearchStrategy[bytes]:
    options = [st.binary(max_size=64), st.just(b"")]
    if pool:
        options.insert(0, st.sampled_from(list(pool)))
    return st.one_of(*options)


def message_strategy(
    descriptor: Descriptor,
    *,
    strings: Sequence[str] = (),
    blobs: Sequence[bytes] = (),
    depth: int = 0,
) -> st.SearchStrategy[Message]:
    """Messages of ``descriptor``: each field absent or drawn from a nasty-biased strategy."""
    cls = GetMessageClass(descriptor)
    fields: dict[str, st.SearchStrategy[Any]] = {}
    for fd in descriptor.fields:
        value = _field_value(fd, strings, blobs, depth)
        if value is None:
            continue
        if fd.is_repeated:
            value = st.lists(value, max_size=4)
        fields[fd.name] = st.one_of(st.none(), value)

    def build(values: dict[str, Any]) -> Message:
        message = cls()
        for name, value in values.items():
            if value is None:
                continue
            fd = descriptor.fields_by_name[name]
            if fd.is_repeated:
                target = getattr(message, name)
                if fd.type == F.TYPE_MESSAGE:
                    for item in value:
                        target.add().CopyFrom(item)
                else:
                    target.extend(value)
            elif fd.type == F.TYPE_MESSAGE:
                getattr(message, name).CopyFrom(value)
            else:
                setattr(message, name, value)
        return message

    return st.fixed_dictionaries(fields).map(build)


def _field_value(
    fd: FieldDescriptor, strings: Sequence[str], blobs: Sequence[bytes], depth: int
) -> st.SearchStrategy[Any] | None:
    if fd.type == F.TYPE_STRING:
        return _strings(strings)
    if fd.type == F.TYPE_BYTES:
        return _bytes(blobs)
    if fd.type == F.TYPE_BOOL:
        return st.booleans()
    if fd.type in (F.TYPE_INT32, F.TYPE_SINT32, F.TYPE_SFIXED32):
        return _INTS
    if fd.type in (F.TYPE_UINT32, F.TYPE_FIXED32):
        return st.integers(0, 2**32 - 1)
    if fd.type in (F.TYPE_INT64, F.TYPE_SINT64, F.TYPE_SFIXED64):
        return _INT64S
    if fd.type in (F.TYPE_UINT64, F.TYPE_FIXED64):
        return st.integers(0, 2**64 - 1)
    if fd.type in (F.TYPE_FLOAT, F.TYPE_DOUBLE):
        return st.floats(allow_nan=True, allow_infinity=True, width=32)
    if fd.type == F.TYPE_ENUM:
        known = [v.number for v in fd.enum_type.values]
        return st.one_of(st.sampled_from(known), st.integers(-1, 50))
    if fd.type == F.TYPE_MESSAGE:
        if fd.message_type.full_name == "google.protobuf.Timestamp":
            return st.builds(
                lambda s, n: GetMessageClass(fd.message_type)(seconds=s, nanos=n),
                _INT64S | st.integers(0, 2_000_000_000),
                st.one_of(st.just(0), _INTS, st.integers(999_999_990, 1_000_000_010)),
            )
        if depth >= 3:
            return None
        return message_strategy(fd.message_type, strings=strings, blobs=blobs, depth=depth + 1)
    return None
