"""k8s/observability: the dashboard and alert rules use the metrics the code exports."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from opentelemetry.sdk.metrics import MeterProvider

from shared.telemetry.metrics import Metrics

ROOT = Path(__file__).resolve().parents[2]
OBSERVABILITY = ROOT / "k8s" / "observability"
OPERATIONS = ROOT / "docs" / "operations.md"

# Instruments registered outside `Metrics` (observable ones): name → (unit, Prometheus type).
OBSERVED = {
    "rememberstack.queue.depth": ("{item}", "gauge"),
    "rememberstack.queue.age": ("s", "gauge"),
    "rememberstack.health.serving": ("{status}", "gauge"),
    "db.client.connection.count": ("{connection}", "gauge"),
    "db.client.connection.max": ("{connection}", "gauge"),
}
_UNIT_SUFFIX = {"s": "seconds", "ms": "milliseconds", "By": "bytes"}


def _instruments() -> dict[str, tuple[str, str]]:
    metrics = Metrics.create(MeterProvider().get_meter("test"))
    found = dict(OBSERVED)
    for name in Metrics.__dataclass_fields__:
        instrument: Any = getattr(metrics, name)
        if name == "meter":
            continue
        kind = "histogram" if "Histogram" in type(instrument).__name__ else "counter"
        found[instrument.name] = (instrument.unit, kind)
    return found


def prometheus_names(name: str, unit: str, kind: str) -> set[str]:
    """The series names Prometheus gives an OTLP metric (dots to underscores, unit suffix,
    `_total` on counters, `_bucket/_sum/_count` on histograms)."""
    base = name.replace(".", "_")
    suffix = _UNIT_SUFFIX.get(unit)
    if suffix:
        base = f"{base}_{suffix}"
    if kind == "counter":
        return {f"{base}_total"}
    if kind == "histogram":
        return {f"{base}_bucket", f"{base}_sum", f"{base}_count"}
    return {base}


KNOWN = {
    p for name, (unit, kind) in _instruments().items() for p in prometheus_names(name, unit, kind)
}
_SERIES = re.compile(r"\b((?:rememberstack|rpc|db)_[a-z_]+)\b")
# Label names share the prefixes: grouping clauses and matchers are dropped before reading.
_LABEL_PARTS = re.compile(r"\b(?:by|without|on|ignoring)\s*\([^)]*\)|\{[^}]*\}")


def _series_in(expr: str) -> set[str]:
    return set(_SERIES.findall(_LABEL_PARTS.sub(" ", expr)))


def test_every_exported_metric_is_documented_in_operations_md() -> None:
    text = OPERATIONS.read_text()
    missing = [name for name in _instruments() if f"`{name}`" not in text]
    assert missing == []


def test_dashboard_panels_query_only_exported_series() -> None:
    dashboard = json.loads((OBSERVABILITY / "dashboard.json").read_text())
    panels = dashboard["panels"]
    assert len({p["id"] for p in panels}) == len(panels)
    queried: set[str] = set()
    for panel in panels:
        assert {"h", "w", "x", "y"} <= set(panel["gridPos"])
        for target in panel.get("targets", []):
            series = _series_in(target["expr"])
            assert series, target["expr"]
            assert series <= KNOWN, (panel["title"], series - KNOWN)
            queried |= series
    # Every family appears on the dashboard (histograms and counters by one of their series).
    families = {n.removesuffix("_bucket").removesuffix("_count") for n in queried}
    for name, (unit, kind) in _instruments().items():
        names = {
            n.removesuffix("_bucket").removesuffix("_count").removesuffix("_sum")
            for n in prometheus_names(name, unit, kind)
        }
        assert names & families, f"{name} is on no panel"


def test_alert_rules_cover_queue_age_dead_letters_error_ratio_and_not_serving() -> None:
    rules = yaml.safe_load((OBSERVABILITY / "alerts.rules.yaml").read_text())
    alerts = {r["alert"]: r for group in rules["groups"] for r in group["rules"]}
    for rule in alerts.values():
        assert rule["labels"]["severity"] in {"warning", "critical"}
        assert rule["annotations"]["summary"] and rule["annotations"]["runbook"]
        assert _series_in(rule["expr"]) <= KNOWN, rule["alert"]
    uses = {name: _series_in(rule["expr"]) for name, rule in alerts.items()}
    assert "rememberstack_queue_age_seconds" in uses["RememberStackQueueStalled"]
    assert "rememberstack_queue_depth" in uses["RememberStackDeadLetters"]
    assert "rpc_server_duration_milliseconds_count" in uses["RememberStackErrorRatio"]
    assert "rememberstack_health_serving" in uses["RememberStackNotServing"]


@pytest.mark.parametrize(
    "command", [["check", "rules", "alerts.rules.yaml"], ["test", "rules", "alerts.test.yaml"]]
)
def test_promtool_accepts_the_rules_and_their_unit_tests(command: list[str]) -> None:
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip("promtool is not installed (Debian: apt-get install prometheus)")
    result = subprocess.run(
        [promtool, *command], cwd=OBSERVABILITY, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
