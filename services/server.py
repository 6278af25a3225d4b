"""Bootstrap: ``create_server`` builds a fully wired, unstarted server; ``run_worker`` is one worker's life.

``create_server`` is what tests use directly (bind ``127.0.0.1:0``, start, call, stop); the supervisor
forks workers that each call ``run_worker``, which adds the signal handling and the graceful shutdown:
on SIGTERM health turns NOT_SERVING, calls keep being served for the drain period, then the server
stops taking calls and in-flight ones get the rest of the grace period to finish.

The rules engine's modules are imported in the workers, never in the supervisor before it forks (the
servicer and the interceptor, which import them, are imported inside ``create_server``): each worker
chooses its build of ``rules_core`` when it starts (``rules_core.engine.choose_again``), so a SIGHUP
recycle moves the workers onto a compiled engine built after the service started (``make run``).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import signal
import threading
import time
from concurrent import futures
from dataclasses import replace
from types import FrameType
from typing import Any, Final

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2
from prometheus_client import CollectorRegistry

import rules_core
import services
from rules_core import engine
from services import logs, security, transport
from services.config import ServerConfig
from services.dispatch import BodyFirstPool
from services.metrics import Metrics
from tractor.rules.v1 import rules_service_pb2, rules_service_pb2_grpc

RULES_SERVICE: Final = rules_service_pb2.DESCRIPTOR.services_by_name["RulesService"].full_name
"""``tractor.rules.v1.RulesService``: the health and reflection name of the service."""
REFLECTION_V1: Final = "grpc.reflection.v1.ServerReflection"
"""The reflection protocol clients such as grpcurl ask for first (v1alpha is the fallback)."""
SERVICE_NAMES: Final = (RULES_SERVICE, health.SERVICE_NAME, reflection.SERVICE_NAME, REFLECTION_V1)
"""Every service the server exposes, as listed by reflection."""
PRESTART_SECONDS: Final = 5.0
"""How long the request threads wait for each other at start (see ``prestart``)."""
PARENT_POLL_SECONDS: Final = 1.0
"""How often a worker checks that its parent is alive (an orphaned worker shuts itself down)."""
HEALTH_THREADS: Final = 4
"""Threads of the plaintext health server: probes call ``Check``, and each ``Watch`` holds one."""
WATCH_BODY_SECONDS: Final = 5.0
"""How long a health call may take to send its request before it is cancelled (a stalled probe)."""
HEALTH_MAX_CALLS: Final = 256
"""Calls the health server holds at once; more are RESOURCE_EXHAUSTED, so watchers cannot pile up."""

_log = logs.get("server")


def bind_target(host: str, port: int) -> str:
    """``host:port`` for grpc, with IPv6 literals in brackets.

    >>> bind_target("::", 0), bind_target("[::]", 50051), bind_target("127.0.0.1", 1)
    ('[::]:0', '[::]:50051', '127.0.0.1:1')
    """
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"{host}:{port}"


def new_health() -> health.HealthServicer:
    """A non-blocking health servicer with its own small pool for Watch streams."""
    pool = BodyFirstPool(1, body_timeout=WATCH_BODY_SECONDS, thread_name_prefix="health")
    return health.HealthServicer(experimental_non_blocking=True, experimental_thread_pool=pool)


def prestart(executor: futures.ThreadPoolExecutor, count: int) -> None:
    """Start all ``count`` request threads now instead of on the first bursts of load.

    A ThreadPoolExecutor adds a thread only when every existing one is busy, so a worker would grow
    for as long as new peaks of concurrency come along, each new thread adding its stack and buffers;
    started up front, the worker's threads and memory after warm-up are what they will stay. Each task
    waits until all of them run (or 5 s), which forces one thread per task.
    """
    barrier = threading.Barrier(count)

    def hold() -> None:
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(PRESTART_SECONDS)

    for _ in range(count):
        executor.submit(hold)


def create_server(
    config: ServerConfig,
    *,
    registry: CollectorRegistry,
    health_servicer: health.HealthServicer | None = None,
    metrics: Metrics | None = None,
) -> tuple[Any, int]:
    """An unstarted server with the rules servicer, the interceptors, health and reflection; and its port.

    Every service is marked SERVING in ``health_servicer`` (one is made when not given); metrics are
    recorded in ``metrics`` (made on ``registry`` when not given). The port is TLS or mutual TLS when
    the configuration names certificates, and a bearer token is required when it names one
    (``services.security``). Raises OSError when the address cannot be bound, ValueError when a
    certificate or token file cannot be used.

    The error interceptor is the outer one, so refused calls (UNAUTHENTICATED) are counted too; gRPC
    itself answers RESOURCE_EXHAUSTED for oversized messages. Past ``max_concurrent_rpcs`` calls the pool
    refuses a call, or gRPC does when the body-first deferral is off (``gate``).
    """
    # in the worker: see the module docstring
    from services.interceptor import RpcInterceptor, overload_trailers  # noqa: PLC0415
    from services.servicer import RulesServicer  # noqa: PLC0415

    metrics = metrics or Metrics(registry)
    credentials = security.server_credentials(config)
    executor = BodyFirstPool(
        config.threads,
        limit=config.max_concurrent_rpcs,
        body_timeout=config.max_request_seconds,
        reject=overload_trailers,
        report=metrics.awaiting_body.set,
        defer=config.body_first,
    )
    metrics.body_first.set(int(executor.deferrable))
    if not executor.deferrable:
        _log.warning(
            "body-first deferral off: a stalled client holds a thread; gRPC's maximum_concurrent_rpcs "
            "limits calls",
            extra={"why": executor.why_not, "max_concurrent_rpcs": config.max_concurrent_rpcs},
        )
    prestart(executor, config.threads)
    server = grpc.server(
        executor,
        interceptors=[
            RpcInterceptor(metrics, max_request_seconds=config.max_request_seconds),
            *security.interceptors(config),
        ],
        options=transport.grpc_options(config),
        maximum_concurrent_rpcs=gate(executor, config.max_concurrent_rpcs),
    )
    rules_service_pb2_grpc.add_RulesServiceServicer_to_server(RulesServicer(metrics), server)
    health_servicer = health_servicer or new_health()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in ("", RULES_SERVICE):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection(SERVICE_NAMES, server)
    add_reflection_v1(server)
    return server, add_port(server, bind_target(config.address, config.port), credentials)


def gate(executor: BodyFirstPool, limit: int) -> int | None:
    """gRPC's own ``maximum_concurrent_rpcs``: none while the pool enforces ``limit`` (its refusal carries
    an ErrorInfo), ``limit`` when the pool cannot (the deferral is off), so the limit always holds.

    >>> gate(BodyFirstPool(1, defer=False), 5), gate(BodyFirstPool(1, defer=False), 0)
    (5, None)
    """
    return None if executor.deferrable else (limit or None)


def add_reflection_v1(server: Any) -> None:
    """Serve ``grpc.reflection.v1`` beside ``v1alpha`` (grpcio-reflection ships only the latter).

    The two protocols are the same messages under two package names, so the v1 service is the v1alpha
    servicer with its messages read and written as v1 bytes; its descriptor (v1alpha's, renamed) joins
    the default pool so that reflection can describe the v1 service too.
    """
    _register_reflection_v1_descriptor()
    servicer = reflection.ReflectionServicer((*SERVICE_NAMES, REFLECTION_V1))
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(REFLECTION_V1, {"ServerReflectionInfo": handler}),)
    )


@functools.cache
def _register_reflection_v1_descriptor() -> None:
    """Add ``grpc/reflection/v1/reflection.proto`` (v1alpha's file, renamed) to the default pool, once."""
    pool = descriptor_pool.Default()
    try:
        pool.FindFileByName("grpc/reflection/v1/reflection.proto")
        return
    except KeyError:
        pass
    file = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(file)
    file.name = "grpc/reflection/v1/reflection.proto"
    file.package = "grpc.reflection.v1"
    for message in file.message_type:
        for field in message.field:
            if field.type_name.startswith(".grpc.reflection.v1alpha."):
                field.type_name = field.type_name.replace(".v1alpha.", ".v1.", 1)
    for service in file.service:
        for method in service.method:
            method.input_type = method.input_type.replace(".v1alpha.", ".v1.", 1)
            method.output_type = method.output_type.replace(".v1alpha.", ".v1.", 1)
    file.options.Clear()
    pool.Add(file)


def add_port(server: Any, target: str, credentials: grpc.ServerCredentials | None = None) -> int:
    """Bind ``target`` (TLS with ``credentials``); the port bound, or OSError when the bind fails."""
    try:
        if credentials is None:
            port = server.add_insecure_port(target)
        else:
            port = server.add_secure_port(target, credentials)
    except RuntimeError as error:  # grpc raises when the bind fails
        raise OSError(f"cannot bind {target}: {error}") from error
    if not port:
        raise OSError(f"cannot bind {target}")
    return int(port)


def create_health_server(config: ServerConfig, health_servicer: health.HealthServicer) -> tuple[Any, int]:
    """A plaintext server with ``grpc.health.v1`` alone on ``config.health_port``, answering from the main
    server's own health servicer (so it turns NOT_SERVING on drain too): the port for probes that cannot
    speak TLS. Nothing else is served there; no token is asked, as on the main port's health service."""
    from services.interceptor import overload_trailers  # noqa: PLC0415  # in the worker: see the module docstring

    executor = BodyFirstPool(
        HEALTH_THREADS,
        limit=HEALTH_MAX_CALLS,
        body_timeout=config.max_request_seconds or WATCH_BODY_SECONDS,
        reject=overload_trailers,
        thread_name_prefix="health",
        defer=config.body_first,
    )
    server = grpc.server(
        executor,
        options=transport.grpc_options(config),
        maximum_concurrent_rpcs=gate(executor, HEALTH_MAX_CALLS),
    )
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    return server, add_port(server, bind_target(config.address, config.health_port))


def shut_down(server: Any, health_servicer: health.HealthServicer, config: ServerConfig) -> None:
    """Graceful stop within ``config.grace_seconds``: NOT_SERVING, drain, then finish in-flight calls."""
    started = time.monotonic()
    health_servicer.enter_graceful_shutdown()
    _log.info("draining", extra={"drain_seconds": config.drain, "grace_seconds": config.grace_seconds})
    time.sleep(config.drain)
    remaining = max(config.grace_seconds - (time.monotonic() - started), 0.0)
    stopped = server.stop(remaining)
    stopped.wait(remaining + 5.0)  # grpc cancels what is left at the end of the grace; bounded wait
    _log.info("stopped", extra={"seconds": round(time.monotonic() - started, 3)})


SIGNAL_WAIT_SLICE_SECONDS: Final = 0.5
"""The longest a ``SignalEvent.wait`` sleeps before it looks at the flag again."""


class SignalEvent(threading.Event):
    """A ``threading.Event`` that a signal handler may set.

    Python runs a handler in the main thread between two bytecodes, possibly while that thread holds
    the event's own lock inside ``wait``; ``threading.Event``'s lock is not reentrant, so ``set()`` there
    waits for itself forever and one SIGTERM hangs the process. This one takes a reentrant lock, and
    its ``wait`` looks at the flag at least every ``SIGNAL_WAIT_SLICE_SECONDS``, since a handler that
    sets it between that thread's look and its sleep cannot wake it.
    """

    def __init__(self) -> None:
        super().__init__()
        self._raised = False
        self._condition = threading.Condition(threading.RLock())

    def is_set(self) -> bool:
        """Whether the flag is set."""
        return self._raised

    def set(self) -> None:
        """Set the flag and wake the waiters (safe in a signal handler)."""
        with self._condition:
            self._raised = True
            self._condition.notify_all()

    def clear(self) -> None:
        """Clear the flag."""
        with self._condition:
            self._raised = False

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the flag is set or ``timeout`` has passed; the flag."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._condition:
            while not self._raised:
                left = SIGNAL_WAIT_SLICE_SECONDS
                if deadline is not None:
                    left = min(left, deadline - time.monotonic())
                if left <= 0:
                    break
                self._condition.wait(left)
            return self._raised


def stop_on_signals() -> threading.Event:
    """An event that SIGTERM or SIGINT sets (logged): the parent and every worker stop on it."""
    stop = SignalEvent()

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        stop.set()  # first: nothing in the handler may keep it from happening
        _log.info("signal", extra={"signal": signal.Signals(signum).name})

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    return stop


def run_worker(config: ServerConfig, port: int, ready_fd: int, parent: int) -> int:
    """One worker process: serve on the shared ``port`` until SIGTERM (or the parent dies), then stop.

    Writes one byte to ``ready_fd`` once serving, so the parent knows the port is live.
    """
    logs.configure(config.log_level)
    engine.choose_again()  # before the servicer imports the engine: see the module docstring
    services.choose_shell()  # and its conversion module, from the same build
    stop = stop_on_signals()
    health_servicer = new_health()
    registry = CollectorRegistry()
    metrics = Metrics(registry)
    metrics.start_flushing()
    server, _ = create_server(
        replace(config, port=port), registry=registry, health_servicer=health_servicer, metrics=metrics
    )
    server.start()
    health_server = None
    if config.health_port >= 0:
        health_server, _ = create_health_server(config, health_servicer)
        health_server.start()
    # Everything imported and built so far lives as long as the worker: out of the collector's sight, a
    # full collection no longer walks it, so no call pays a pause for scanning the whole heap (about
    # 24 ms here, the slowest suggestions' cause), and forked pages stay shared.
    gc.freeze()
    os.write(ready_fd, b"1")
    os.close(ready_fd)
    _log.info(
        "worker serving",
        extra={"port": port, "engine": rules_core.ENGINE, "engine_reason": rules_core.ENGINE_REASON},
    )
    while not stop.wait(PARENT_POLL_SECONDS):
        if os.getppid() != parent:
            _log.warning("parent gone; shutting down", extra={"parent": parent})
            break
    shut_down(server, health_servicer, config)
    metrics.close()  # the last counts, before the parent marks this worker dead
    if health_server is not None:  # after the main server: probes see NOT_SERVING through the drain
        health_server.stop(None)
    return 0
