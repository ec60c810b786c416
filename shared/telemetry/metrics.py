"""Every RememberStack metric, created in one place; services record with one-line calls.

Names and units follow the OpenTelemetry semantic-convention style (dotted names, UCUM units,
durations in seconds except the conventional ``rpc.server.duration`` in milliseconds).
docs/operations.md lists each with its attributes and its Prometheus name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from opentelemetry.metrics import Counter, Histogram, Meter, NoOpMeter

__all__ = [
    "RPC_DURATION_BUCKETS_MS",
    "SECONDS_BUCKETS",
    "Metrics",
]

# Spans most RPCs land in: sub-millisecond health checks up to the 25 s query budget.
RPC_DURATION_BUCKETS_MS = (1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000)
# Stage, work-item and read durations: a 2 ms read up to a ten-minute adjudication.
SECONDS_BUCKETS = (
    0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600
)  # fmt: skip


class _Decision(Protocol):
    """What a written adjudication decision tells a metric (writer.DecisionEntry has it)."""

    @property
    def engine(self) -> str | None: ...
    @property
    def outcome(self) -> str: ...


class _Resolution(Protocol):
    """What an entity-resolution verdict tells a metric (entities.ResolvedMention has it)."""

    @property
    def step(self) -> str: ...
    @property
    def created(self) -> bool: ...


D = TypeVar("D", bound=_Decision)
R = TypeVar("R", bound=_Resolution)


@dataclass(frozen=True, slots=True)
class Metrics:
    """The instruments of one process. Build with `Metrics.create(meter)`; `Metrics.noop()`
    records nothing (tests and tools that run services without telemetry)."""

    meter: Meter
    rpc_duration: Histogram
    read_duration: Histogram
    read_truncations: Counter
    read_negatives: Counter
    work_item_duration: Histogram
    dead_letters: Counter
    stage_duration: Histogram
    claims_extracted: Counter
    decisions: Counter
    resolutions: Counter
    merges: Counter

    @classmethod
    def create(cls, meter: Meter) -> Metrics:
        def seconds(name: str, description: str) -> Histogram:
            return meter.create_histogram(
                name,
                unit="s",
                description=description,
                explicit_bucket_boundaries_advisory=list(SECONDS_BUCKETS),
            )

        return cls(
            meter=meter,
            rpc_duration=meter.create_histogram(
                "rpc.server.duration",
                unit="ms",
                description="Duration of inbound RPCs.",
                explicit_bucket_boundaries_advisory=list(RPC_DURATION_BUCKETS_MS),
            ),
            read_duration=seconds(
                "rememberstack.read.duration",
                "Duration of read operations of the query and graph services, by outcome.",
            ),
            read_truncations=meter.create_counter(
                "rememberstack.read.truncations",
                unit="{response}",
                description="Read responses a bound cut short, by operation and bound.",
            ),
            read_negatives=meter.create_counter(
                "rememberstack.read.negatives",
                unit="{response}",
                description="Read responses answered with a typed negative, by kind.",
            ),
            work_item_duration=seconds(
                "rememberstack.work_item.duration",
                "Time a worker spent on one work item attempt, by kind and outcome.",
            ),
            dead_letters=meter.create_counter(
                "rememberstack.work_item.dead_letters",
                unit="{item}",
                description="Work items moved to dead_letter (attempts exhausted), by kind.",
            ),
            stage_duration=seconds(
                "rememberstack.stage.duration",
                "Duration of one pipeline stage of one document version.",
            ),
            claims_extracted=meter.create_counter(
                "rememberstack.claims.extracted",
                unit="{claim}",
                description="New claims stored by extraction, by extractor.",
            ),
            decisions=meter.create_counter(
                "rememberstack.adjudication.decisions",
                unit="{decision}",
                description="Adjudication decisions written, by engine and outcome.",
            ),
            resolutions=meter.create_counter(
                "rememberstack.entity.resolutions",
                unit="{mention}",
                description="Entity-resolution verdicts, by the cascade step that decided.",
            ),
            merges=meter.create_counter(
                "rememberstack.entity.merges",
                unit="{merge}",
                description="Entity merges applied and undone.",
            ),
        )

    @classmethod
    def noop(cls) -> Metrics:
        return cls.create(NoOpMeter("rememberstack"))

    # One-line recorders for the services. Attribute values are low-cardinality by design:
    # never a namespace, id or free text.

    def record_stages(self, seconds: Mapping[str, float]) -> None:
        """Stage durations of one item, e.g. ``{"convert": 0.01, "extract": 1.2}``."""
        for stage, value in seconds.items():
            self.stage_duration.record(value, {"rememberstack.stage": stage})

    def record_claims_extracted(self, extractor: str, count: int) -> None:
        if count:
            self.claims_extracted.add(count, {"rememberstack.extractor": extractor})

    def record_decisions(self, decisions: Sequence[D]) -> Sequence[D]:
        """Count written decisions by engine and outcome; returns them (so a call can wrap)."""
        counts: dict[tuple[str, str], int] = {}
        for decision in decisions:
            key = (decision.engine or "none", decision.outcome)
            counts[key] = counts.get(key, 0) + 1
        for (engine, outcome), count in counts.items():
            self.decisions.add(
                count,
                {"rememberstack.engine": engine, "rememberstack.outcome": outcome},
            )
        return decisions

    def record_resolutions(self, verdicts: Sequence[R]) -> Sequence[R]:
        """Count verdicts by deciding step; returns them (so a call can wrap)."""
        counts: dict[tuple[str, bool], int] = {}
        for verdict in verdicts:
            key = (verdict.step, verdict.created)
            counts[key] = counts.get(key, 0) + 1
        for (step, created), count in counts.items():
            self.resolutions.add(
                count,
                {"rememberstack.resolution.step": step, "rememberstack.entity.created": created},
            )
        return verdicts

    def record_merge(self, operation: str) -> None:
        """``operation`` is ``merge`` or ``undo``."""
        self.merges.add(1, {"rememberstack.merge.operation": operation})
