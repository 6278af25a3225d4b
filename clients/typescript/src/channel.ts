// Channel settings the service recommends, the same as the Python client's
// (clients/python/tractor/rules/client/channel.py; tests/service/test_node_client.py checks that the two
// agree): retries of the pure RPCs, keepalive, the server's message limits.

import type { ChannelOptions } from "@grpc/grpc-js";

export const SERVICE = "tractor.rules.v1.RulesService";

/**
 * How long one attempt may go unanswered before it is cancelled and retried, as in the Python client:
 * longer than the server takes to answer any call (`--max-request-seconds`, 5 s by default). gRPC core
 * (the Python client) acts on it; @grpc/grpc-js 1.14 accepts it in the service config and ignores it, as
 * it ignores `grpc.experimental.enable_hedging`, so here a call's own deadline is its only bound.
 */
export const ATTEMPT_TIMEOUT = "6s";

/**
 * The client service config. Every RulesService RPC is a pure function of its request, so retrying
 * UNAVAILABLE (a worker replaced or draining mid-call) is safe and hides it; waiting for a connection,
 * rather than failing fast, rides out a reconnect that lands on a dying worker. CANCELLED is retried too:
 * a server that stops cancels the calls that reached its gRPC core in the instant of the stop, before any
 * handler saw them; an application's own cancel (an AbortSignal, `call.cancel()`) is never retried.
 * @grpc/grpc-js parses `waitForReady` here but does not act on it: the client sets the per-call flag on
 * every call instead (`callMetadata` in client.ts).
 */
export const SERVICE_CONFIG = {
  methodConfig: [
    {
      name: [{ service: SERVICE }],
      waitForReady: true,
      retryPolicy: {
        maxAttempts: 3,
        initialBackoff: "0.05s",
        maxBackoff: "0.5s",
        backoffMultiplier: 2,
        retryableStatusCodes: ["UNAVAILABLE", "CANCELLED"],
        perAttemptRecvTimeout: ATTEMPT_TIMEOUT,
      },
    },
  ],
} as const;

/** The server's default message limit (`--max-message-bytes`): twice the largest legal request. */
export const MAX_MESSAGE_BYTES = 384 * 1024;

/**
 * A keepalive ping every minute while calls are open, the connection closed if one goes unanswered for
 * 20 s; the server tolerates pings every 10 s (`--min-client-ping-seconds`), so these are never too many.
 */
export const KEEPALIVE_TIME_MS = 60_000;
export const KEEPALIVE_TIMEOUT_MS = 20_000;

/** The options `createClient` sets; `overrides` given to it replace options of the same name. */
export const CHANNEL_OPTIONS: Readonly<ChannelOptions> = Object.freeze({
  "grpc.service_config": JSON.stringify(SERVICE_CONFIG),
  "grpc.enable_retries": 1,
  "grpc.experimental.enable_hedging": 1, // gRPC core's switch for perAttemptRecvTimeout (grpc-js: none)
  "grpc.keepalive_time_ms": KEEPALIVE_TIME_MS,
  "grpc.keepalive_timeout_ms": KEEPALIVE_TIMEOUT_MS,
  "grpc.max_send_message_length": MAX_MESSAGE_BYTES,
  "grpc.max_receive_message_length": MAX_MESSAGE_BYTES,
});

/** `CHANNEL_OPTIONS` with `overrides` replacing options of the same name (and any others added). */
export function channelOptions(overrides: ChannelOptions = {}): ChannelOptions {
  return { ...CHANNEL_OPTIONS, ...overrides };
}
