"""OpenTelemetry tracer and meter providers, with OTLP export only when an endpoint is set.

Export is configured from settings: `REMEMBERSTACK_OTLP_ENDPOINT` (plaintext OTLP/gRPC to
host:port, kept as an alias) or the standard `OTEL_EXPORTER_OTLP_[TRACES_|METRICS_]ENDPOINT`,
with `OTEL_SDK_DISABLED`, `OTEL_SERVICE_NAME` and `OTEL_{TRACES,METRICS}_EXPORTER` read into
`Settings`. The SDK itself reads the rest of the standard variables (headers, certificates,
`OTEL_EXPORTER_OTLP_INSECURE`, `OTEL_TRACES_SAMPLER[_ARG]`, `OTEL_RESOURCE_ATTRIBUTES`,
`OTEL_METRIC_EXPORT_INTERVAL`, `OTEL_BSP_*`, `OTEL_PROPAGATORS`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from opentelemetry import metrics as otel_metrics
from opentelemetry import trace
from opentelemetry.metrics import Meter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import (
    ConsoleMetricExporter,
    MetricReader,
    PeriodicExportingMetricReader,
)
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ParentBased
from opentelemetry.trace import Tracer

from shared.telemetry.metrics import RPC_DURATION_BUCKETS_MS, Metrics

if TYPE_CHECKING:
    from shared.config import Settings

__all__ = [
    "RPC_DURATION_BUCKETS_MS",
    "ExportOptions",
    "Metrics",
    "Telemetry",
    "configure_telemetry",
    "telemetry_from_settings",
]

Exporter = Literal["otlp", "console", "none"]


@dataclass(frozen=True, slots=True)
class ExportOptions:
    """Where traces and metrics go. `otlp_endpoint` is our plaintext alias; `standard_*` say
    that an `OTEL_EXPORTER_OTLP_*ENDPOINT` is set, which the OTLP exporters read themselves."""

    otlp_endpoint: str | None = None
    standard_traces_endpoint: bool = False
    standard_metrics_endpoint: bool = False
    traces_exporter: Exporter = "otlp"
    metrics_exporter: Exporter = "otlp"
    disabled: bool = False

    @classmethod
    def from_settings(cls, settings: Settings) -> ExportOptions:
        generic = bool(settings.otel_exporter_otlp_endpoint)
        return cls(
            otlp_endpoint=settings.otlp_endpoint,
            standard_traces_endpoint=generic or bool(settings.otel_exporter_otlp_traces_endpoint),
            standard_metrics_endpoint=generic or bool(settings.otel_exporter_otlp_metrics_endpoint),
            traces_exporter=settings.otel_traces_exporter,
            metrics_exporter=settings.otel_metrics_exporter,
            disabled=settings.otel_sdk_disabled,
        )


@dataclass(frozen=True, slots=True)
class Telemetry:
    """Handles a process passes down: providers for interceptors, a tracer, a meter and the
    instruments every service records into."""

    service_name: str
    tracer_provider: TracerProvider
    meter_provider: MeterProvider
    tracer: Tracer
    meter: Meter
    exporting: bool
    traces_exported: bool = False
    metrics_exported: bool = False
    metrics: Metrics = field(default_factory=Metrics.noop)
    # Statement spans come from this one: it records a span only inside a traced RPC or work
    # item, so pollers, claim loops and housekeeping do not start a trace every second.
    database_tracer_provider: TracerProvider | None = None

    def install_global(self) -> None:
        """Make these the process-wide providers (call once, from ``__main__``)."""
        # `otel_metrics`: in this package, `metrics` is the submodule of our instruments.
        trace.set_tracer_provider(self.tracer_provider)
        otel_metrics.set_meter_provider(self.meter_provider)

    def force_flush(self, timeout_millis: int = 10_000) -> None:
        """Export what is pending now (tests, benchmarks, before a short-lived process ends)."""
        self.tracer_provider.force_flush(timeout_millis)
        self.meter_provider.force_flush(timeout_millis)

    def shutdown(self) -> None:
        """Flush pending spans and metrics; safe to call when nothing is exported."""
        self.tracer_provider.shutdown()
        self.meter_provider.shutdown()


def _span_exporter(options: ExportOptions) -> SpanExporter | None:
    if options.disabled or options.traces_exporter == "none":
        return None
    if options.traces_exporter == "console":
        return ConsoleSpanExporter()
    if not (options.otlp_endpoint or options.standard_traces_endpoint):
        return None
    # Imported here so a process without an endpoint never loads the exporter stack.
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

    if options.otlp_endpoint:
        return OTLPSpanExporter(endpoint=options.otlp_endpoint, insecure=True)
    return OTLPSpanExporter()


def _metric_reader(options: ExportOptions) -> MetricReader | None:
    if options.disabled or options.metrics_exporter == "none":
        return None
    if options.metrics_exporter == "console":
        return PeriodicExportingMetricReader(ConsoleMetricExporter())
    if not (options.otlp_endpoint or options.standard_metrics_endpoint):
        return None
    from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import OTLPMetricExporter

    if options.otlp_endpoint:
        exporter = OTLPMetricExporter(endpoint=options.otlp_endpoint, insecure=True)
    else:
        exporter = OTLPMetricExporter()
    return PeriodicExportingMetricReader(exporter)


def configure_telemetry(
    service_name: str,
    otlp_endpoint: str | None = None,
    *,
    options: ExportOptions | None = None,
) -> Telemetry:
    """Build providers for ``service_name``; without an endpoint they record nothing outward.

    Spans are still made without an exporter, so log lines carry trace ids that join the
    lines of one request or work item; database statements get spans only when traces are
    exported (see `shared.telemetry.database`).
    """
    options = options or ExportOptions(otlp_endpoint=otlp_endpoint)
    # OTEL_RESOURCE_ATTRIBUTES joins in through Resource.create; the name given here wins.
    resource = Resource.create({SERVICE_NAME: service_name})
    tracer_provider = TracerProvider(resource=resource)
    span_exporter = _span_exporter(options)
    database_provider: TracerProvider | None = None
    if span_exporter is not None:
        processor = BatchSpanProcessor(span_exporter)
        tracer_provider.add_span_processor(processor)
        database_provider = TracerProvider(resource=resource, sampler=ParentBased(root=ALWAYS_OFF))
        database_provider.add_span_processor(processor)
    reader = _metric_reader(options)
    readers: list[MetricReader] = [reader] if reader is not None else []
    meter_provider = MeterProvider(metric_readers=readers, resource=resource)
    meter = meter_provider.get_meter("rememberstack")
    return Telemetry(
        service_name=service_name,
        tracer_provider=tracer_provider,
        meter_provider=meter_provider,
        tracer=tracer_provider.get_tracer("rememberstack"),
        meter=meter,
        exporting=span_exporter is not None or reader is not None,
        traces_exported=span_exporter is not None,
        metrics_exported=reader is not None,
        metrics=Metrics.create(meter),
        database_tracer_provider=database_provider,
    )


def telemetry_from_settings(settings: Settings) -> Telemetry:
    """The process's telemetry as its settings (and the standard OTEL_* variables) say."""
    return configure_telemetry(
        settings.otel_service_name or settings.service_name,
        options=ExportOptions.from_settings(settings),
    )
