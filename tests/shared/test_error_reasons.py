"""Every ErrorInfo.reason the server can send is a documented rememberstack.v1.ErrorReason."""

from __future__ import annotations

import ast
from pathlib import Path

from rememberstack.v1 import errors_pb2

ROOT = Path(__file__).resolve().parents[2]
PREFIX = "ERROR_REASON_"


def _documented() -> set[str]:
    return {
        name.removeprefix(PREFIX)
        for name in errors_pb2.ErrorReason.keys()  # noqa: SIM118 (an EnumTypeWrapper)
        if name != "ERROR_REASON_UNSPECIFIED"
    }


def _reasons_in(path: Path) -> set[str]:
    """String literals given as `reason=...`, `default_reason = ...` or `_status(_, _, reason)`."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "default_reason" for t in node.targets)
            and isinstance(node.value, ast.Constant)
        ):
            found.add(str(node.value.value))
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg == "reason" and isinstance(keyword.value, ast.Constant):
                    found.add(str(keyword.value.value))
            if isinstance(node.func, ast.Name) and node.func.id == "_status" and len(node.args) > 2:
                reason = node.args[2]
                if isinstance(reason, ast.Constant):
                    found.add(str(reason.value))
    return found


def test_every_reason_the_server_sends_is_an_error_reason_value() -> None:
    sent: set[str] = set()
    for package in ("shared", "services"):
        for path in (ROOT / package).rglob("*.py"):
            sent |= _reasons_in(path)
    # The abstract base's default: status_for_exception maps only its subclasses to a code.
    sent.discard("REMEMBERSTACK_ERROR")
    assert {"INVALID_ARGUMENT", "UNAVAILABLE", "VERSION_NOT_PARKED"} <= sent
    assert sent - _documented() == set()


def test_reason_strings_map_to_enum_values_by_the_documented_prefix() -> None:
    for reason in _documented():
        assert errors_pb2.ErrorReason.Value(PREFIX + reason) > 0
