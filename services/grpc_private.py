"""Every use of grpcio's private server internals, in one place, with the version it was checked against.

``services.dispatch.BodyFirstPool`` reads a unary call's body on gRPC's polling thread before it spends a
pool thread on the call. grpcio has no public API for that, so it uses the same private helpers of
``grpc._server`` that grpcio's own ``_unary_request`` uses. They were read and tested on grpcio
``CHECKED_AGAINST`` only: on any other version (or with ``--body-first false``) the deferral is off,
``available()`` says why, and the server says so at start (a warning and
``tractor_rules_body_first_deferral 0``) and limits calls with gRPC's own ``maximum_concurrent_rpcs``.
"""

from __future__ import annotations

from typing import Any, Final

import grpc

CHECKED_AGAINST: Final = "1.85.1"
"""The grpcio whose ``grpc._server`` internals this module was written and tested against."""
_NAMES: Final = (
    "_unary_response_in_pool",
    "_stream_response_in_pool",
    "_receive_message",
    "_is_rpc_state_active",
    "_abort",
    "_RECEIVE_MESSAGE_TOKEN",
    "_CLOSED",
    "_EMPTY_FLAGS",
)

try:
    from grpc import _server
    from grpc._cython import cygrpc

    _MISSING = [name for name in _NAMES if not hasattr(_server, name)]
except ImportError:  # pragma: no cover - grpcio always ships both
    _MISSING = ["grpc._server"]


def available(version: str = grpc.__version__) -> tuple[bool, str]:
    """Whether the deferral can run on this grpcio, and if not, why (for the start-up warning)."""
    if version != CHECKED_AGAINST:
        return False, f"grpcio {version} is not {CHECKED_AGAINST}, whose private server API it was checked on"
    if _MISSING:
        return False, f"grpc._server lacks {', '.join(_MISSING)}"
    return True, ""


def reads_one_request(args: tuple[Any, ...]) -> bool:
    """Whether gRPC submitted a call whose request is one message it would wait for in the pool thread:
    a unary-unary call, or a unary-stream one (health ``Watch``), whose argument is ``_unary_request``."""
    if len(args) != 7:
        return False
    job, thunk = args[0], args[4]
    if job is _server._unary_response_in_pool:
        return True
    return job is _server._stream_response_in_pool and getattr(thunk, "__qualname__", "").startswith(
        "_unary_request."
    )


def receiver(state: Any, rpc_event: Any, deserializer: Any) -> Any:
    """grpc's own completion handler of a message receive (it sets ``state.request``)."""
    return _server._receive_message(state, rpc_event.call, deserializer)


def start_receive(state: Any, rpc_event: Any, on_arrival: Any) -> bool:
    """Start receiving the request body, ``on_arrival(event)`` called on the polling thread when it
    arrives; False when the call is already over. Call with ``state.condition`` held."""
    if not _server._is_rpc_state_active(state):
        return False
    rpc_event.call.start_server_batch((cygrpc.ReceiveMessageOperation(_server._EMPTY_FLAGS),), on_arrival)
    state.due.add(_server._RECEIVE_MESSAGE_TOKEN)
    return True


def take_request(rpc_event: Any, state: Any) -> Any:
    """The request once the receive completed: what grpc's own ``_unary_request`` returns after its wait
    (None, after answering UNIMPLEMENTED, for a stream that ended without a message)."""
    with state.condition:
        if state.request is None:
            if state.client is _server._CLOSED:
                details = f'"{rpc_event.call_details.method.decode()}" requires exactly one request message.'
                _server._abort(state, rpc_event.call, cygrpc.StatusCode.unimplemented, details.encode())
            return None
        request, state.request = state.request, None
        return request


def refuse(state: Any, rpc_event: Any, trailing: Any, details: bytes) -> None:
    """End a call at once with RESOURCE_EXHAUSTED and ``trailing`` metadata, from the polling thread."""
    with state.condition:
        state.trailing_metadata = trailing
        _server._abort(state, rpc_event.call, cygrpc.StatusCode.resource_exhausted, details)


def cancel(call: Any, details: str) -> None:
    """Cancel a call whose body never came (the client sees CANCELLED)."""
    call.cancel(cygrpc.StatusCode.cancelled, details)
