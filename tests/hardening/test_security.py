"""Who gets in: TLS, mutual TLS and bearer tokens, with certificates made at test time.

A client without a valid certificate is refused in the handshake (no RPC runs); one with a valid
certificate is served. Without a valid ``authorization: Bearer`` token every RPC but health is
UNAUTHENTICATED, unknown methods included. Plaintext is the default and says so in a WARNING at start.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
import tlscerts
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from inproc import Running, config, running

from loadtest.server import ServerProcess, run_serve
from services import config as config_module
from services import security
from tractor.rules.v1 import rules_service_pb2_grpc

TIMEOUT = 10.0
NAME_OVERRIDE = [("grpc.ssl_target_name_override", tlscerts.SERVER_NAME)]
TOKEN = "new-token-fedcba9876543210"


def _credentials(
    certs: tlscerts.Certificates, client: tlscerts.Pair | None, ca: tlscerts.Pair | None = None
) -> grpc.ChannelCredentials:
    return grpc.ssl_channel_credentials(
        root_certificates=(ca or certs.ca).cert_pem,
        private_key=client.key_pem if client else None,
        certificate_chain=client.cert_pem if client else None,
    )


def _validate(
    channel: grpc.Channel, request: Message, metadata: tuple[tuple[str, str], ...] = ()
) -> grpc.StatusCode:
    stub = rules_service_pb2_grpc.RulesServiceStub(channel)
    try:
        stub.ValidatePlay(request, timeout=TIMEOUT, metadata=metadata)
    except grpc.RpcError as error:
        return error.code()
    return grpc.StatusCode.OK


def _health(channel: grpc.Channel) -> grpc.StatusCode:
    try:
        health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=TIMEOUT)
    except grpc.RpcError as error:
        return error.code()
    return grpc.StatusCode.OK


# --------------------------------------------------------------------------------------------------
# TLS and mutual TLS


@pytest.fixture(scope="module")
def mtls_server(certs: tlscerts.Certificates) -> Iterator[str]:
    settings = config(
        tls_cert=str(certs.server.cert), tls_key=str(certs.server.key), tls_client_ca=str(certs.ca.cert)
    )
    with running(settings) as server:
        yield server.target


def test_tls_serves_a_client_that_trusts_the_ca(
    certs: tlscerts.Certificates, valid: dict[str, Message]
) -> None:
    settings = config(tls_cert=str(certs.server.cert), tls_key=str(certs.server.key))
    assert settings.transport == "tls"
    with running(settings) as server:
        with grpc.secure_channel(server.target, _credentials(certs, None), NAME_OVERRIDE) as channel:
            assert _validate(channel, valid["ValidatePlay"]) == grpc.StatusCode.OK
        with grpc.insecure_channel(server.target) as plaintext:
            assert _validate(plaintext, valid["ValidatePlay"]) == grpc.StatusCode.UNAVAILABLE
        with grpc.secure_channel(
            server.target, _credentials(certs, None, certs.rogue_ca), NAME_OVERRIDE
        ) as fooled:
            assert _validate(fooled, valid["ValidatePlay"]) == grpc.StatusCode.UNAVAILABLE


def test_mtls_serves_a_client_with_a_valid_certificate(
    mtls_server: str, certs: tlscerts.Certificates, valid: dict[str, Message]
) -> None:
    with grpc.secure_channel(mtls_server, _credentials(certs, certs.client), NAME_OVERRIDE) as channel:
        assert _validate(channel, valid["ValidatePlay"]) == grpc.StatusCode.OK
        assert _health(channel) == grpc.StatusCode.OK


@pytest.mark.parametrize("client", ["none", "rogue", "expired"])
def test_mtls_refuses_a_client_without_a_valid_certificate(
    mtls_server: str, certs: tlscerts.Certificates, valid: dict[str, Message], client: str
) -> None:
    """No certificate, one from another CA, an expired one: the handshake fails, nothing is served,
    not even health (the refusal happens before any RPC)."""
    pair = {"none": None, "rogue": certs.rogue_client, "expired": certs.expired_client}[client]
    with grpc.secure_channel(mtls_server, _credentials(certs, pair), NAME_OVERRIDE) as channel:
        assert _validate(channel, valid["ValidatePlay"]) == grpc.StatusCode.UNAVAILABLE
        assert _health(channel) == grpc.StatusCode.UNAVAILABLE
    with grpc.insecure_channel(mtls_server) as plaintext:
        assert _validate(plaintext, valid["ValidatePlay"]) == grpc.StatusCode.UNAVAILABLE


# --------------------------------------------------------------------------------------------------
# bearer tokens


@pytest.fixture
def bearer_server(token_file: Path) -> Iterator[tuple[str, Running]]:
    settings = config(auth_token_file=str(token_file))
    assert settings.authenticates and settings.transport == "plaintext"
    with running(settings) as server:
        yield server.target, server


@pytest.mark.parametrize(
    "metadata",
    [
        (),
        (("authorization", "Bearer wrong-token-000000000000"),),
        (("authorization", f"Basic {TOKEN}"),),
        (("authorization", TOKEN),),
        (("authorization", f"Bearer {TOKEN}x"),),
        (("authorization", "Bearer "),),
    ],
    ids=["missing", "wrong", "basic", "no-scheme", "longer", "empty"],
)
def test_a_call_without_a_valid_token_is_unauthenticated(
    bearer_server: tuple[str, Running], valid: dict[str, Message], metadata: tuple[tuple[str, str], ...]
) -> None:
    target, _ = bearer_server
    with grpc.insecure_channel(target) as channel:
        assert _validate(channel, valid["ValidatePlay"], metadata) == grpc.StatusCode.UNAUTHENTICATED


def test_every_listed_token_is_accepted_and_health_stays_open(
    bearer_server: tuple[str, Running], valid: dict[str, Message]
) -> None:
    """Both tokens of a rotation work; health needs none (load balancers probe without one);
    refusals are counted in the metrics like any other status."""
    target, server = bearer_server
    with grpc.insecure_channel(target) as channel:
        for token in ("old-token-0123456789abcdef", TOKEN):
            metadata = (("authorization", f"Bearer {token}"),)
            assert _validate(channel, valid["ValidatePlay"], metadata) == grpc.StatusCode.OK
        assert (
            _validate(channel, valid["ValidatePlay"], (("authorization", f"bearer {TOKEN}"),))
            == grpc.StatusCode.OK
        )
        assert _health(channel) == grpc.StatusCode.OK
        assert _validate(channel, valid["ValidatePlay"]) == grpc.StatusCode.UNAUTHENTICATED
    assert server.handled("ValidatePlay", "UNAUTHENTICATED") == 1
    assert server.handled("ValidatePlay", "OK") == 3


def test_reflection_and_unknown_methods_need_the_token(bearer_server: tuple[str, Running]) -> None:
    """A caller without a token learns nothing: not the schema, not which methods exist."""
    target, _ = bearer_server
    with grpc.insecure_channel(target) as channel:
        reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        with pytest.raises(grpc.RpcError) as refused:
            list(reflection.ServerReflectionInfo(iter([request]), timeout=TIMEOUT))
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
        listed = reflection.ServerReflectionInfo(
            iter([request]), timeout=TIMEOUT, metadata=(("authorization", f"Bearer {TOKEN}"),)
        )
        assert next(iter(listed)).list_services_response.service
        with pytest.raises(grpc.RpcError) as unknown:
            channel.unary_unary("/tractor.rules.v1.RulesService/NoSuchMethod")(b"", timeout=TIMEOUT)
        assert unknown.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_token_rules(tmp_path: Path) -> None:
    """Short tokens, empty token files and a token both in the environment and in a file are refused."""
    short = config(auth_token="short")
    with pytest.raises(ValueError, match="TRACTOR_RULES_AUTH_TOKEN"):
        security.tokens(short)
    empty = tmp_path / "empty"
    empty.write_text("# nothing\n\n")
    with pytest.raises(ValueError, match="holds no token"):
        security.tokens(config(auth_token_file=str(empty)))
    with pytest.raises(ValueError, match="not both"):
        config(auth_token=TOKEN, auth_token_file=str(empty))
    assert security.tokens(config(auth_token=TOKEN)) == (TOKEN.encode(),)


def test_the_token_has_no_flag_and_never_shows_in_the_configuration() -> None:
    """A flag would show the token to anyone who can run ``ps``; repr would put it in logs."""
    parsed = config_module.parse([], env={"TRACTOR_RULES_AUTH_TOKEN": TOKEN})
    assert parsed.auth_token == TOKEN and TOKEN not in repr(parsed)
    with pytest.raises(SystemExit):
        config_module.parse(["--auth-token", TOKEN], env={})


# --------------------------------------------------------------------------------------------------
# the real command line


def test_serve_with_mtls_and_a_token_end_to_end(
    certs: tlscerts.Certificates, valid: dict[str, Message], tmp_path: Path
) -> None:
    """``tractor-rules serve`` with the TLS flags and the token in its environment: the start-up line
    says so, no plaintext warning, and only a certified client with the token is served."""
    flags = ["--workers", "1", "--tls-cert", str(certs.server.cert), "--tls-key", str(certs.server.key)]
    flags += ["--tls-client-ca", str(certs.ca.cert)]
    with ServerProcess(*flags, env={"TRACTOR_RULES_AUTH_TOKEN": TOKEN}, metrics_dir=tmp_path / "m") as server:
        assert (server.serving["transport"], server.serving["auth"]) == ("mtls", "bearer")
        assert not [entry for entry in server.log if entry.get("level") == "warning"]
        assert TOKEN not in str(list(server.log))
        with grpc.secure_channel(server.target, _credentials(certs, certs.client), NAME_OVERRIDE) as channel:
            authorized = (("authorization", f"Bearer {TOKEN}"),)
            assert _validate(channel, valid["ValidatePlay"], authorized) == grpc.StatusCode.OK
            assert _validate(channel, valid["ValidatePlay"]) == grpc.StatusCode.UNAUTHENTICATED
            assert _health(channel) == grpc.StatusCode.OK
        with grpc.secure_channel(server.target, _credentials(certs, None), NAME_OVERRIDE) as anonymous:
            assert _validate(anonymous, valid["ValidatePlay"], authorized) == grpc.StatusCode.UNAVAILABLE


def test_plaintext_is_the_default_and_is_logged_as_a_warning(tmp_path: Path) -> None:
    with ServerProcess("--workers", "1", metrics_dir=tmp_path / "m") as server:
        assert (server.serving["transport"], server.serving["auth"]) == ("plaintext", "none")
        warnings = [entry for entry in server.log if entry.get("level") == "warning"]
    assert len(warnings) == 1 and "PLAINTEXT" in warnings[0]["msg"]
    assert warnings[0]["transport"] == "plaintext" and warnings[0]["auth"] == "none"


def test_unusable_security_settings_are_a_clean_exit_2(certs: tlscerts.Certificates, tmp_path: Path) -> None:
    """A missing file, a key that is not the certificate's, a CA without a certificate, a weak token:
    exit status 2 naming the setting, before anything is forked or bound."""
    cases = [
        (
            ["--tls-cert", str(tmp_path / "missing.crt"), "--tls-key", str(certs.server.key)],
            {},
            "TRACTOR_RULES_TLS_CERT",
        ),
        (
            ["--tls-cert", str(certs.server.cert), "--tls-key", str(certs.client.key)],
            {},
            "TRACTOR_RULES_TLS_KEY",
        ),
        (["--tls-client-ca", str(certs.ca.cert)], {}, "tls_client_ca"),
        (
            [
                "--tls-cert",
                str(certs.server.cert),
                "--tls-key",
                str(certs.server.key),
                "--tls-client-ca",
                str(certs.server.key),
            ],
            {},
            "TRACTOR_RULES_TLS_CLIENT_CA",
        ),
        ([], {"TRACTOR_RULES_AUTH_TOKEN": "123"}, "TRACTOR_RULES_AUTH_TOKEN"),
        (["--auth-token-file", str(tmp_path / "missing")], {}, "TRACTOR_RULES_AUTH_TOKEN_FILE"),
    ]
    for flags, env, named in cases:
        done = run_serve("--address", "127.0.0.1", "--port", "0", *flags, metrics_dir=tmp_path, env=env)
        assert done.returncode == 2, (flags, done.stderr)
        assert named in done.stderr and "Traceback" not in done.stderr, (flags, done.stderr)


def test_a_plaintext_health_port_serves_the_probes_beside_tls(
    certs: tlscerts.Certificates, valid: dict[str, Message], tmp_path: Path
) -> None:
    """Kubernetes' native gRPC probes speak plaintext only: with TLS on the main port, ``--health-port``
    serves ``grpc.health.v1`` alone in plaintext, with the main port's status (NOT_SERVING on drain)."""
    flags = ["--workers", "1", "--tls-cert", str(certs.server.cert), "--tls-key", str(certs.server.key)]
    flags += ["--health-port", "0", "--drain-seconds", "3"]
    rules = health_pb2.HealthCheckRequest(service="tractor.rules.v1.RulesService")
    with ServerProcess(*flags, metrics_dir=tmp_path / "m") as server:
        probe_target = f"127.0.0.1:{server.serving['health_port']}"
        assert server.serving["health_port"] not in (-1, server.port)
        with grpc.insecure_channel(probe_target) as probe:
            check = health_pb2_grpc.HealthStub(probe).Check
            assert check(rules, timeout=TIMEOUT).status == health_pb2.HealthCheckResponse.SERVING
            assert _validate(probe, valid["ValidatePlay"]) == grpc.StatusCode.UNIMPLEMENTED  # health only
        with grpc.insecure_channel(server.target) as plaintext:
            assert _health(plaintext) == grpc.StatusCode.UNAVAILABLE  # the main port speaks TLS only
        server.proc.send_signal(signal.SIGTERM)
        server.wait_for("draining", TIMEOUT)
        with grpc.insecure_channel(probe_target) as probe:
            check = health_pb2_grpc.HealthStub(probe).Check
            assert check(rules, timeout=TIMEOUT).status == health_pb2.HealthCheckResponse.NOT_SERVING
        assert server.proc.wait(TIMEOUT + 10) == 0


def test_the_health_port_must_differ_from_the_main_port() -> None:
    with pytest.raises(ValueError, match="health_port must differ from port"):
        config_module.ServerConfig(port=50051, health_port=50051)
