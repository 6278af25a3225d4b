"""Standard gRPC health checking and server reflection, as any generic client (grpcurl, k8s) sees them."""

from __future__ import annotations

import grpc
from google.protobuf import descriptor_pb2
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_status import rpc_status
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
    assert listed == {
        RULES_SERVICE,
        "grpc.health.v1.Health",
        "grpc.reflection.v1alpha.ServerReflection",
        "grpc.reflection.v1.ServerReflection",
    }


def test_reflection_v1_answers_a_client_that_asks_for_v1_first(live: Live) -> None:
    """grpcurl asks grpc.reflection.v1 first; the v1 service answers with the same contract."""
    v1 = live.channel.stream_stream(
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    )
    asked = [
        reflection_pb2.ServerReflectionRequest(list_services=""),
        reflection_pb2.ServerReflectionRequest(file_containing_symbol=RULES_SERVICE),
        reflection_pb2.ServerReflectionRequest(file_containing_symbol="grpc.reflection.v1.ServerReflection"),
    ]
    listed, contract, itself = list(v1(iter(asked), timeout=TIMEOUT))
    assert "grpc.reflection.v1.ServerReflection" in {s.name for s in listed.list_services_response.service}
    names = {
        descriptor_pb2.FileDescriptorProto.FromString(raw).name
        for raw in contract.file_descriptor_response.file_descriptor_proto
    }
    assert {"tractor/rules/v1/rules_service.proto", "google/rpc/status.proto"} <= names
    described = descriptor_pb2.FileDescriptorProto.FromString(
        itself.file_descriptor_response.file_descriptor_proto[0]
    )
    assert (described.package, described.service[0].name) == ("grpc.reflection.v1", "ServerReflection")
    assert described.service[0].method[0].input_type == ".grpc.reflection.v1.ServerReflectionRequest"


def test_an_unknown_method_is_unimplemented_with_an_error_info(live: Live) -> None:
    method = live.channel.unary_unary("/tractor.rules.v1.RulesService/NoSuchMethod")
    try:
        method(b"", timeout=TIMEOUT)
    except grpc.RpcError as error:
        assert error.code() == grpc.StatusCode.UNIMPLEMENTED
        status = rpc_status.from_call(error)
        assert status is not None
        infos = [d for d in status.details if d.Is(error_details_pb2.ErrorInfo.DESCRIPTOR)]
        info = error_details_pb2.ErrorInfo()
        infos[0].Unpack(info)
        assert (info.reason, info.domain) == ("UNKNOWN_METHOD", "rules.tractor")
    else:
        raise AssertionError("an unknown method must be UNIMPLEMENTED")


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
        "ValidatePlays",
        "ResolveTricks",
        "SuggestDeclaration",
        "SuggestBury",
    }
