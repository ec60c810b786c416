"""OpenTelemetry tracer and meter providers, with OTLP export only when an endpoint is set."""

from __future__ import annotations

from dataclasses import dataclass

from opentelemetry import metrics, trace
from opentelemetry.metrics import Counter, Histogram, Meter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import MetricReader, PeriodicExportingMetricReader
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Tracer

__all__ = [
    "RPC_DURATION_BUCKETS_MS",
    "Telemetry",
    "configure_telemetry",
    "create_counter",
    "create_rpc_duration_histogram",
]

# Spans most RPCs land in: sub-millisecond health checks up to the 25 s query budget.
RPC_DURATION_BUCKETS_MS = (1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000)


@dataclass(frozen=True, slots=True)
class Telemetry:
    """Handles a process passes down: providers for interceptors, a tracer and a meter."""

    service_name: str
    tracer_provider: TracerProvider
    meter_provider: MeterProvider
    tracer: Tracer
    meter: Meter
    exporting: bool

    def install_global(self) -> None:
        """Make these the process-wide providers (call once, from ``__main__``)."""
        trace.set_tracer_provider(self.tracer_provider)
        metrics.set_meter_provider(self.meter_provider)

    def shutdown(self) -> None:
        """Flush pending spans and metrics; safe to call when nothing is exported."""
        self.tracer_provider.shutdown()
        self.meter_provider.shutdown()


def configure_telemetry(service_name: str, otlp_endpoint: str | None) -> Telemetry:
    """Build providers for ``service_name``; without an endpoint they record nothing outward."""
    resource = Resource.create({SERVICE_NAME: service_name})
    tracer_provider = TracerProvider(resource=resource)
    readers: list[MetricReader] = []
    if otlp_endpoint:
        # Imported here so a process without an endpoint never loads the exporter stack.
        from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import OTLPMetricExporter
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

        tracer_provider.add_span_processor(
            BatchSpanProcessor(OTLPSpanExporter(endpoint=otlp_endpoint, insecure=True))
        )
        readers.append(
            PeriodicExportingMetricReader(OTLPMetricExporter(endpoint=otlp_endpoint, insecure=True))
        )
    meter_provider = MeterProvider(metric_readers=readers, resource=resource)
    return Telemetry(
        service_name=service_name,
        tracer_provider=tracer_provider,
        meter_provider=meter_provider,
        tracer=tracer_provider.get_tracer("rememberstack"),
        meter=meter_provider.get_meter("rememberstack"),
        exporting=bool(otlp_endpoint),
    )


def create_rpc_duration_histogram(meter: Meter) -> Histogram:
    """Server-side RPC latency in milliseconds (OTel semantic name ``rpc.server.duration``)."""
    return meter.create_histogram(
        "rpc.server.duration",
        unit="ms",
        description="Duration of inbound RPCs.",
        explicit_bucket_boundaries_advisory=list(RPC_DURATION_BUCKETS_MS),
    )


def create_counter(meter: Meter, name: str, description: str, unit: str = "1") -> Counter:
    """A monotonic counter, e.g. ``rememberstack.adjudication.outcomes`` by engine."""
    return meter.create_counter(name, unit=unit, description=description)
