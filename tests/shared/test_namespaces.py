"""Every service resolves a request's namespace the same way."""

from __future__ import annotations

from shared.errors import Violations
from shared.namespaces import MAX_NAMESPACE_CHARS, resolve_namespace


def test_an_empty_namespace_resolves_to_the_default_without_violations() -> None:
    violations = Violations()
    assert resolve_namespace("", "default", violations) == "default"
    assert not violations


def test_a_named_namespace_wins_over_the_default() -> None:
    assert resolve_namespace("team-a", "default", Violations()) == "team-a"


def test_an_overlong_namespace_is_a_violation_of_the_named_field() -> None:
    violations = Violations()
    resolve_namespace("n" * (MAX_NAMESPACE_CHARS + 1), "default", violations, "items[2].namespace")
    assert [v.field for v in violations.items] == ["items[2].namespace"]
