"""The four RememberStack services, named once, from the generated service descriptors.

A service's short name (`ingest`) is the package under `services/`, the process the launcher
starts (`python -m services.ingest`), the key of its address and log file; its full name
(`rememberstack.v1.IngestService`) is what health and reflection report. Both come from the
proto contract here, so the launcher, the demo, the services' `__main__` and the benchmarks
cannot disagree about which services exist.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from rememberstack.v1 import (
    adjudicator_service_pb2,
    graph_service_pb2,
    ingest_service_pb2,
    query_service_pb2,
)

__all__ = [
    "ADJUDICATOR",
    "GRAPH",
    "INGEST",
    "QUERY",
    "SERVICES",
    "SERVICE_NAMES",
    "ServiceSpec",
    "service_spec",
]

_SUFFIX = "Service"


@dataclass(frozen=True, slots=True)
class ServiceSpec:
    """One service of the system, as the contract declares it."""

    name: str
    """Short name: `ingest`, `adjudicator`, `query`, `graph`."""
    full_name: str
    """Fully qualified gRPC service name, e.g. `rememberstack.v1.IngestService`."""

    @property
    def module(self) -> str:
        """The module `python -m` runs to serve it."""
        return f"services.{self.name}"


def _from_descriptor(proto_module: ModuleType) -> ServiceSpec:
    # One service per `<name>_service.proto` (house style); its name ends in "Service".
    (descriptor,) = proto_module.DESCRIPTOR.services_by_name.values()
    if not descriptor.name.endswith(_SUFFIX):
        raise ValueError(f"{descriptor.full_name}: a service name must end in {_SUFFIX!r}")
    return ServiceSpec(descriptor.name.removesuffix(_SUFFIX).lower(), descriptor.full_name)


INGEST = _from_descriptor(ingest_service_pb2)
ADJUDICATOR = _from_descriptor(adjudicator_service_pb2)
QUERY = _from_descriptor(query_service_pb2)
GRAPH = _from_descriptor(graph_service_pb2)

# Start-up order of `rememberstack up` (and the order of ports from --base-port): the writing
# services first.
SERVICES: tuple[ServiceSpec, ...] = (INGEST, ADJUDICATOR, QUERY, GRAPH)
SERVICE_NAMES: tuple[str, ...] = tuple(spec.name for spec in SERVICES)


def service_spec(name: str) -> ServiceSpec:
    """The service with short name `name`; KeyError names the known ones."""
    for spec in SERVICES:
        if spec.name == name:
            return spec
    raise KeyError(f"no service {name!r}; the services are {', '.join(SERVICE_NAMES)}")
