"""Invariants of the k8s/ manifests and their agreement with the image and the settings."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from shared.auth.api_keys import hash_api_key, parse_api_key_file
from tests.support.settings import SystemSettings as Settings

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "k8s"
GRPC_PORT = 50051
HEALTH_PORT = 50052  # plaintext, health only: kubelet's gRPC probes cannot speak TLS
COMPONENTS = ("ingest", "adjudicator", "query", "graph")
SERVICE_NAMES = {
    "ingest": "rememberstack.v1.IngestService",
    "adjudicator": "rememberstack.v1.AdjudicatorService",
    "query": "rememberstack.v1.QueryService",
    "graph": "rememberstack.v1.GraphService",
}
# Raw base files always; kustomize renderings (which apply generators and overlay patches) when
# kubectl is installed.
SOURCES = ("files:base", "kustomize:base", "kustomize:overlays/dev", "kustomize:overlays/prod")

Manifest = dict[str, Any]


def _load_all(path: Path) -> list[Manifest]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc is not None]


def _render(target: str) -> list[Manifest]:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl (with built-in kustomize) is not installed")
    result = subprocess.run(
        [kubectl, "kustomize", str(K8S / target)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    return [doc for doc in yaml.safe_load_all(result.stdout) if doc is not None]


@pytest.fixture(scope="module", params=SOURCES)
def manifests(request: pytest.FixtureRequest) -> list[Manifest]:
    kind, target = str(request.param).split(":", 1)
    if kind == "kustomize":
        return _render(target)
    files = sorted((K8S / target).glob("*.yaml"))
    return [doc for path in files if path.name != "kustomization.yaml" for doc in _load_all(path)]


def _of_kind(objects: list[Manifest], kind: str) -> list[Manifest]:
    return [obj for obj in objects if obj["kind"] == kind]


def _ours(obj: Manifest) -> bool:
    return bool(
        obj["metadata"].get("labels", {}).get("app.kubernetes.io/part-of") == "rememberstack"
    )


def _workloads(objects: list[Manifest]) -> Iterator[Manifest]:
    for obj in objects:
        if obj["kind"] in {"Deployment", "Job", "StatefulSet"} and _ours(obj):
            yield obj


def _containers(pod: Manifest) -> list[Manifest]:
    return list(pod.get("initContainers", [])) + list(pod["containers"])


def _component(deployment: Manifest) -> str:
    return str(deployment["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/component"])


def _selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(key) == value for key, value in selector.items())


def _quantity(value: str | int | float) -> float:
    text = str(value)
    units = {"m": 1e-3, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "k": 1e3, "M": 1e6, "G": 1e9}
    for suffix in sorted(units, key=len, reverse=True):
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * units[suffix]
    return float(text)


def _kustomization_paths(kustomization: Manifest) -> Iterator[str]:
    yield from kustomization.get("resources", [])
    yield from kustomization.get("components", [])
    for patch in kustomization.get("patches", []):
        if "path" in patch:
            yield patch["path"]
    for generator in kustomization.get("configMapGenerator", []) + kustomization.get(
        "secretGenerator", []
    ):
        yield from generator.get("envs", [])
        yield from (entry.split("=", 1)[-1] for entry in generator.get("files", []))


def _env_file(path: Path) -> dict[str, str]:
    entries = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, value = line.split("=", 1)
            entries[key] = value
    return entries


def test_every_yaml_file_parses_into_named_kubernetes_objects() -> None:
    # k8s/observability's rule files are Prometheus files, not objects (test_observability).
    prometheus = K8S / "observability"
    paths = [
        p
        for p in sorted(K8S.rglob("*.yaml"))
        if p.parent != prometheus or p.stem == "kustomization"
    ]
    assert len(paths) >= 10
    for path in paths:
        for doc in _load_all(path):
            assert doc.get("apiVersion") and doc.get("kind"), path
            if doc["kind"] not in {"Kustomization", "Component"}:
                assert doc["metadata"].get("name"), path


def test_every_kustomization_lists_existing_files() -> None:
    kustomizations = sorted(K8S.rglob("kustomization.yaml"))
    assert {path.parent.relative_to(K8S).as_posix() for path in kustomizations} >= {
        "base",
        "overlays/dev",
        "overlays/prod",
    }
    for path in kustomizations:
        for entry in _kustomization_paths(yaml.safe_load(path.read_text())):
            target = path.parent / entry
            assert target.is_file() or (target / "kustomization.yaml").is_file(), (path, entry)


def test_base_resources_carry_no_namespace() -> None:
    for path in sorted((K8S / "base").glob("*.yaml")):
        for doc in _load_all(path):
            assert "namespace" not in doc.get("metadata", {}), path


def test_every_deployment_probes_grpc_health_on_its_container_port(
    manifests: list[Manifest],
) -> None:
    deployments = _of_kind(manifests, "Deployment")
    assert sorted(_component(d) for d in deployments) == sorted(COMPONENTS)
    for deployment in deployments:
        component = _component(deployment)
        (container,) = deployment["spec"]["template"]["spec"]["containers"]
        ports = {port["name"]: port["containerPort"] for port in container["ports"]}
        assert ports == {"grpc": GRPC_PORT, "health": HEALTH_PORT}
        readiness = container["readinessProbe"]["grpc"]
        assert readiness == {"port": HEALTH_PORT, "service": SERVICE_NAMES[component]}
        assert container["livenessProbe"]["grpc"] == {"port": HEALTH_PORT, "service": ""}
        assert container["startupProbe"]["grpc"]["port"] == HEALTH_PORT


def test_every_deployment_mounts_its_api_keys_read_only_from_the_auth_secret(
    manifests: list[Manifest],
) -> None:
    settings = _env_file(K8S / "base" / "settings.env")
    keys_file = Path(settings["REMEMBERSTACK_AUTH_API_KEYS_FILE"])
    for deployment in _of_kind(manifests, "Deployment"):
        pod = deployment["spec"]["template"]["spec"]
        volumes = {volume["name"]: volume for volume in pod["volumes"]}
        (container,) = pod["containers"]
        mounts = {m["mountPath"]: m for m in container["volumeMounts"]}
        mount = mounts[str(keys_file.parent)]
        assert mount["readOnly"] is True
        assert volumes[mount["name"]]["secret"]["secretName"] == "rememberstack-auth"


def test_every_deployment_runs_the_service_named_by_its_component(
    manifests: list[Manifest],
) -> None:
    images = set()
    for deployment in _of_kind(manifests, "Deployment"):
        pod = deployment["spec"]["template"]["spec"]
        (container,) = pod["containers"]
        env = {item["name"]: item.get("value") for item in container.get("env", [])}
        assert env["SERVICE"] == _component(deployment)
        assert "command" not in container and "args" not in container
        (init,) = pod["initContainers"]
        assert init["command"] == ["python", "-m", "shared.db.migrate_cli", "wait"]
        assert init["envFrom"] == container["envFrom"]
        images |= {init["image"], container["image"]}
    (job,) = _of_kind(manifests, "Job")
    (migrate,) = job["spec"]["template"]["spec"]["containers"]
    assert migrate["command"] == ["python", "-m", "shared.db.migrate_cli", "upgrade"]
    assert images == {migrate["image"]}


def test_every_rememberstack_container_is_hardened(manifests: list[Manifest]) -> None:
    workloads = list(_workloads(manifests))
    assert workloads
    for workload in workloads:
        pod = workload["spec"]["template"]["spec"]
        assert pod["automountServiceAccountToken"] is False
        assert pod["enableServiceLinks"] is False
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
        volumes = {volume["name"]: volume for volume in pod["volumes"]}
        for container in _containers(pod):
            context = container["securityContext"]
            assert context["runAsNonRoot"] is True
            assert context["readOnlyRootFilesystem"] is True
            assert context["allowPrivilegeEscalation"] is False
            assert context["capabilities"]["drop"] == ["ALL"]
            (tmp,) = [m for m in container["volumeMounts"] if m["mountPath"] == "/tmp"]
            assert "emptyDir" in volumes[tmp["name"]]


def test_every_rememberstack_container_has_requests_within_limits(
    manifests: list[Manifest],
) -> None:
    for workload in _workloads(manifests):
        for container in _containers(workload["spec"]["template"]["spec"]):
            resources = container["resources"]
            for resource in ("cpu", "memory"):
                request = _quantity(resources["requests"][resource])
                limit = _quantity(resources["limits"][resource])
                assert 0 < request <= limit, (workload["metadata"]["name"], resource)


def test_ingest_gets_the_most_memory_for_its_models(manifests: list[Manifest]) -> None:
    limits = {
        _component(d): _quantity(
            d["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["memory"]
        )
        for d in _of_kind(manifests, "Deployment")
    }
    assert limits["ingest"] >= 1.5 * 2**30
    assert limits["query"] >= 2**30
    assert max(limits, key=lambda name: limits[name]) == "ingest"


def test_each_deployment_has_exactly_one_grpc_service_selecting_only_its_pods(
    manifests: list[Manifest],
) -> None:
    deployments = _of_kind(manifests, "Deployment")
    services = [s for s in _of_kind(manifests, "Service") if _ours(s)]
    assert len(services) == len(deployments)
    for deployment in deployments:
        matching = [
            service
            for service in services
            if _selects(
                service["spec"]["selector"], deployment["spec"]["template"]["metadata"]["labels"]
            )
        ]
        assert len(matching) == 1, deployment["metadata"]["name"]
        (service,) = matching
        assert service["spec"].get("type", "ClusterIP") == "ClusterIP"
        (port,) = service["spec"]["ports"]
        assert (port["name"], port["port"], port["targetPort"]) == ("grpc", GRPC_PORT, "grpc")
        assert port["appProtocol"] == "grpc"
        # Peers reach each other through the addresses in the settings.
        assert service["metadata"]["name"] == f"rememberstack-{_component(deployment)}"


def test_disruption_budget_and_autoscaler_targets_exist(manifests: list[Manifest]) -> None:
    deployments = {d["metadata"]["name"]: d for d in _of_kind(manifests, "Deployment")}
    budgets = _of_kind(manifests, "PodDisruptionBudget")
    for deployment in deployments.values():
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        assert [b for b in budgets if _selects(b["spec"]["selector"]["matchLabels"], labels)]
    for hpa in _of_kind(manifests, "HorizontalPodAutoscaler"):
        target = deployments[hpa["spec"]["scaleTargetRef"]["name"]]
        # A replica count in the Deployment would fight the autoscaler on every apply.
        assert "replicas" not in target["spec"]
        assert hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]


def test_network_policies_admit_grpc_only_from_the_namespace(manifests: list[Manifest]) -> None:
    policies = {p["metadata"]["name"]: p for p in _of_kind(manifests, "NetworkPolicy")}
    deny = policies["rememberstack-default-deny"]["spec"]
    assert deny["policyTypes"] == ["Ingress", "Egress"]
    assert "ingress" not in deny and "egress" not in deny
    ingress_rules = [rule for p in policies.values() for rule in p["spec"].get("ingress", [])]
    assert ingress_rules
    for rule in ingress_rules:
        assert rule["ports"] == [{"protocol": "TCP", "port": GRPC_PORT}]
        assert rule["from"] == [{"podSelector": {}}]
    egress_ports = {
        (port["protocol"], port["port"])
        for p in policies.values()
        for rule in p["spec"].get("egress", [])
        for port in rule.get("ports", [])
    }
    assert {("UDP", 53), ("TCP", 53), ("TCP", 5432), ("TCP", GRPC_PORT)} <= egress_ports


def test_settings_in_configmap_and_secret_are_valid_rememberstack_settings() -> None:
    values = _env_file(K8S / "base" / "settings.env")
    (secret,) = _load_all(K8S / "base" / "secret.yaml")
    values |= secret["stringData"]
    for key in values:
        assert key.startswith("REMEMBERSTACK_"), key
    # Empty means unset (env_ignore_empty); Settings forbids unknown fields, so a typo fails here.
    # model_validate leaves the test process's own environment out of it.
    fields = {k.removeprefix("REMEMBERSTACK_").lower(): v for k, v in values.items() if v}
    settings = Settings.model_validate(fields)
    assert settings.port == GRPC_PORT
    assert settings.health_port == HEALTH_PORT
    # Bound to 0.0.0.0, a server without credentials would refuse to start.
    assert settings.auth_enabled and not settings.allow_unauthenticated
    assert settings.host == "0.0.0.0"
    for component in COMPONENTS:
        assert getattr(settings, f"{component}_address") == f"rememberstack-{component}:{GRPC_PORT}"


def test_dev_overlay_runs_one_of_each_against_its_own_pgvector_postgres() -> None:
    objects = _render("overlays/dev")
    assert not _of_kind(objects, "HorizontalPodAutoscaler")
    for deployment in _of_kind(objects, "Deployment"):
        assert deployment["spec"].get("replicas", 1) == 1
    (postgres,) = _of_kind(objects, "StatefulSet")
    assert (
        postgres["spec"]["template"]["spec"]["containers"][0]["image"] == "pgvector/pgvector:pg16"
    )
    database_services = [
        s for s in _of_kind(objects, "Service") if s["metadata"]["name"] == "postgres"
    ]
    assert _selects(
        database_services[0]["spec"]["selector"], postgres["spec"]["template"]["metadata"]["labels"]
    )
    (secret,) = [
        s for s in _of_kind(objects, "Secret") if s["metadata"]["name"] == "rememberstack-secrets"
    ]
    assert "@postgres:5432/" in secret["stringData"]["REMEMBERSTACK_DATABASE_URL"]
    (auth,) = [
        s for s in _of_kind(objects, "Secret") if s["metadata"]["name"] == "rememberstack-auth"
    ]
    (dev_key,) = parse_api_key_file(auth["stringData"]["api-keys.yaml"].encode(), "dev").values()
    assert dev_key.sha256 == hash_api_key("rsk_dev_local_only_never_use_in_production")


def test_base_auth_secret_template_admits_nobody() -> None:
    (auth,) = _load_all(K8S / "base" / "auth-secret.yaml")
    entries = parse_api_key_file(auth["stringData"]["api-keys.yaml"].encode(), "base")
    assert set(entries) == {"0" * 64}  # no key hashes to zeros


def test_prod_overlay_spreads_replicas_and_never_renders_the_secret_template() -> None:
    objects = _render("overlays/prod")
    assert not _of_kind(objects, "Secret")
    (config,) = _of_kind(objects, "ConfigMap")
    fields = {k.removeprefix("REMEMBERSTACK_").lower(): v for k, v in config["data"].items() if v}
    settings = Settings.model_validate(fields)
    assert settings.tls_cert_file is not None and settings.tls_key_file is not None
    for budget in _of_kind(objects, "PodDisruptionBudget"):
        assert budget["spec"]["minAvailable"] == 1
        assert "maxUnavailable" not in budget["spec"]
    minimums = {
        h["spec"]["scaleTargetRef"]["name"]: h["spec"]["minReplicas"]
        for h in _of_kind(objects, "HorizontalPodAutoscaler")
    }
    for deployment in _of_kind(objects, "Deployment"):
        name = deployment["metadata"]["name"]
        assert minimums.get(name, deployment["spec"].get("replicas", 1)) >= 2, name
        pod = deployment["spec"]["template"]
        volumes = {v["name"]: v for v in pod["spec"]["volumes"]}
        (container,) = pod["spec"]["containers"]
        mounts = {m["mountPath"]: m for m in container["volumeMounts"]}
        tls_mount = mounts[str(settings.tls_cert_file.parent)]
        assert tls_mount["readOnly"] is True
        assert volumes[tls_mount["name"]]["secret"]["secretName"] == "rememberstack-tls"
        keys = {c["topologyKey"] for c in pod["spec"]["topologySpreadConstraints"]}
        assert keys == {"topology.kubernetes.io/zone", "kubernetes.io/hostname"}
        for constraint in pod["spec"]["topologySpreadConstraints"]:
            assert _selects(constraint["labelSelector"]["matchLabels"], pod["metadata"]["labels"])


def test_image_user_matches_the_pod_security_context() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    match = re.search(r"^ARG APP_UID=(\d+)$", dockerfile, re.MULTILINE)
    assert match is not None
    uid = int(match.group(1))
    assert uid != 0
    assert re.search(r"^USER \$\{APP_UID\}:\$\{APP_UID\}$", dockerfile, re.MULTILINE)
    assert re.search(rf"^EXPOSE {GRPC_PORT}$", dockerfile, re.MULTILINE)
    for path in sorted((K8S / "base").glob("*.yaml")):
        for doc in _load_all(path):
            if doc["kind"] in {"Deployment", "Job"}:
                assert doc["spec"]["template"]["spec"]["securityContext"]["runAsUser"] == uid
