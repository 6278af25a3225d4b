"""Standard gRPC health checking and server reflection, as any generic client (grpcurl, k8s) sees them."""

from __future__ import annotations

import grpc
from google.protobuf import descriptor_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from wire import Live

from services.server import RULES_SERVICE

TIMEOUT = 10.0


def test_health_reports_serving_for_the_server_and_the_service(live: Live) -> None:
    health = health_pb2_grpc.HealthStub(live.channel)
    for service in ("", RULES_SERVICE):
        response = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=TIMEOUT)
        assert response.status == health_pb2.HealthCheckResponse.SERVING


def test_health_of_an_unknown_service_is_not_found(live: Live) -> None:
    health = health_pb2_grpc.HealthStub(live.channel)
    try:
        health.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=TIMEOUT)
    except grpc.RpcError as error:
        assert error.code() == grpc.StatusCode.NOT_FOUND
    else:
        raise AssertionError("an unknown service must be NOT_FOUND")


def _reflect(
    live: Live, request: reflection_pb2.ServerReflectionRequest
) -> reflection_pb2.ServerReflectionResponse:
    stub = reflection_pb2_grpc.ServerReflectionStub(live.channel)
    return next(iter(stub.ServerReflectionInfo(iter([request]), timeout=TIMEOUT)))


def test_reflection_lists_every_service(live: Live) -> None:
    response = _reflect(live, reflection_pb2.ServerReflectionRequest(list_services=""))
    listed = {service.name for service in response.list_services_response.service}
    assert listed == {RULES_SERVICE, "grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection"}


def test_reflection_serves_the_contract_with_its_dependencies(live: Live) -> None:
    """A client that knows only the server can fetch the whole contract, types.proto included."""
    response = _reflect(live, reflection_pb2.ServerReflectionRequest(file_containing_symbol=RULES_SERVICE))
    files = {}
    for raw in response.file_descriptor_response.file_descriptor_proto:
        proto = descriptor_pb2.FileDescriptorProto.FromString(raw)
        files[proto.name] = proto
    assert "tractor/rules/v1/rules_service.proto" in files
    assert "tractor/rules/v1/types.proto" in files
    service = files["tractor/rules/v1/rules_service.proto"].service[0]
    assert {method.name for method in service.method} == {
        "ValidatePlay",
        "ResolveTrick",
        "SettleHand",
        "CalculatePenalty",
        "ValidateDeclaration",
        "ValidateBury",
        "ListLegalPlays",
        "SuggestPlay",
        "AuditHand",
    }
