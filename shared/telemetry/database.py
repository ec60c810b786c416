"""Database telemetry of one engine: statement spans and connection-pool gauges."""

from __future__ import annotations

from collections.abc import Iterable

from opentelemetry.instrumentation.sqlalchemy.engine import EngineTracer
from opentelemetry.instrumentation.sqlalchemy.version import __version__ as _instrumentation_version
from opentelemetry.metrics import CallbackOptions, NoOpMeter, Observation
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.pool import Pool

from shared.telemetry import Telemetry

__all__ = ["instrument_engine"]


def instrument_engine(engine: AsyncEngine, telemetry: Telemetry | None, pool_name: str) -> None:
    """Spans for every statement (the maintained SQLAlchemy instrumentation, only while traces
    are exported: unexported statement spans would cost CPU for nothing) and the
    `db.client.connection.count` / `db.client.connection.max` gauges of the engine's pool.

    Call once per engine. `pool_name` tells pools apart (the service name).
    """
    if telemetry is None:
        return
    if telemetry.database_tracer_provider is not None:
        tracer = telemetry.database_tracer_provider.get_tracer(
            "opentelemetry.instrumentation.sqlalchemy", _instrumentation_version
        )
        # The instrumentation's own pool counter is left out: the gauges below report the
        # pool whether or not statements are traced.
        unused = NoOpMeter("unused").create_up_down_counter("db.client.connections.usage")
        EngineTracer(tracer, engine.sync_engine, unused)  # type: ignore[no-untyped-call]
    _pool_gauges(telemetry, engine.sync_engine.pool, pool_name)


def _pool_gauges(telemetry: Telemetry, pool: Pool, pool_name: str) -> None:
    def count(_options: CallbackOptions) -> Iterable[Observation]:
        used = int(getattr(pool, "checkedout", lambda: 0)())
        idle = int(getattr(pool, "checkedin", lambda: 0)())
        base = {"db.client.connection.pool.name": pool_name}
        return [
            Observation(used, base | {"db.client.connection.state": "used"}),
            Observation(idle, base | {"db.client.connection.state": "idle"}),
        ]

    def maximum(_options: CallbackOptions) -> Iterable[Observation]:
        size = int(getattr(pool, "size", lambda: 0)())
        overflow = max(int(getattr(pool, "_max_overflow", 0)), 0)
        return [Observation(size + overflow, {"db.client.connection.pool.name": pool_name})]

    meter = telemetry.meter
    meter.create_observable_up_down_counter(
        "db.client.connection.count",
        callbacks=[count],
        unit="{connection}",
        description="Connections of the pool, by state (used: checked out; idle: pooled).",
    )
    meter.create_observable_up_down_counter(
        "db.client.connection.max",
        callbacks=[maximum],
        unit="{connection}",
        description="Most connections the pool may open (pool size plus overflow).",
    )
