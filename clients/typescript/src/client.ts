// A RulesService client over @grpc/grpc-js: the recommended channel settings, one typed method per RPC
// (from the generated service descriptor, so a new RPC needs no hand-written code), and every failure as
// a RulesError.

import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { DescMessage, DescMethod, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";

import { channelOptions } from "./channel.js";
import { RulesError } from "./errors.js";
import { RulesService } from "./gen/tractor/rules/v1/rules_service_pb.js";

/** A unary method of a generated service descriptor, its request and response schemas typed. */
export type UnaryMethod<I extends DescMessage = DescMessage, O extends DescMessage = DescMessage> =
  DescMethod & { readonly methodKind: "unary"; readonly input: I; readonly output: O };

export interface CallOptions {
  /** Milliseconds until the call's deadline; the client's `timeoutMs` when absent. */
  readonly timeoutMs?: number;
  /** Request metadata (headers). */
  readonly metadata?: grpc.Metadata;
  /** Cancels the call (it then fails with CANCELLED and is not retried). */
  readonly signal?: AbortSignal;
  /**
   * Wait for a connection until the deadline rather than fail at once with UNAVAILABLE (true by default,
   * as the Python client's service config does; grpc-js honours only this per-call option).
   */
  readonly waitForReady?: boolean;
}

export interface ClientOptions {
  /** TLS (`grpc.credentials.createSsl(...)`); plaintext when absent. */
  readonly credentials?: grpc.ChannelCredentials;
  /** Channel options replacing the recommended ones (`CHANNEL_OPTIONS`) of the same name. */
  readonly overrides?: grpc.ChannelOptions;
  /** The deadline of every call that gives none, in milliseconds; no deadline when absent. */
  readonly timeoutMs?: number;
}

type Rpcs = typeof RulesService.method;

/** One promise-returning method per RulesService RPC (`validatePlay`, `settleHand`, ...). */
export type RulesMethods = {
  readonly [K in keyof Rpcs]: (
    request: MessageInitShape<Rpcs[K]["input"]>,
    options?: CallOptions,
  ) => Promise<MessageShape<Rpcs[K]["output"]>>;
};

export interface RulesClient extends RulesMethods {
  /** The underlying @grpc/grpc-js client (its channel: `getChannel()`). */
  readonly grpcClient: grpc.Client;
  /** The deadline of every call that gives none (`ClientOptions.timeoutMs`). */
  readonly timeoutMs: number | undefined;
  /** Call any unary method of the generated descriptors; a response, or a rejection with a RulesError. */
  call<I extends DescMessage, O extends DescMessage>(
    method: UnaryMethod<I, O>,
    request: MessageInitShape<I>,
    options?: CallOptions,
  ): Promise<MessageShape<O>>;
  /** Close the channel; calls in flight finish first. */
  close(): void;
}

/**
 * A client of `target` (`host:port`) with the recommended channel settings:
 *
 *     const rules = createClient("rules.internal:50051", { timeoutMs: 2000 });
 *     const verdict = await rules.validatePlay({ ... });
 */
export function createClient(target: string, options: ClientOptions = {}): RulesClient {
  const credentials = options.credentials ?? grpc.credentials.createInsecure();
  const grpcClient = new grpc.Client(target, credentials, channelOptions(options.overrides));
  const call = <I extends DescMessage, O extends DescMessage>(
    method: UnaryMethod<I, O>,
    request: MessageInitShape<I>,
    callOptions: CallOptions = {},
  ): Promise<MessageShape<O>> =>
    unary(grpcClient, method, request, callOptions.timeoutMs ?? options.timeoutMs, callOptions);
  const methods = Object.fromEntries(
    RulesService.methods.map((method) => [
      method.localName,
      (request: MessageInitShape<DescMessage>, callOptions?: CallOptions) =>
        call(method as UnaryMethod, request, callOptions),
    ]),
  ) as unknown as RulesMethods;
  return { ...methods, grpcClient, timeoutMs: options.timeoutMs, call, close: () => grpcClient.close() };
}

function unary<I extends DescMessage, O extends DescMessage>(
  client: grpc.Client,
  method: UnaryMethod<I, O>,
  request: MessageInitShape<I>,
  timeoutMs: number | undefined,
  options: CallOptions,
): Promise<MessageShape<O>> {
  return new Promise((resolve, reject) => {
    if (method.methodKind !== "unary") throw new TypeError(`${method.name} is not a unary RPC`);
    const message = create(method.input, request); // a bad initializer rejects, it does not throw
    if (options.signal?.aborted) {
      const cause = options.signal.reason as unknown;
      reject(new RulesError(grpc.status.CANCELLED, "cancelled before the call", undefined, { cause }));
      return;
    }
    const call = client.makeUnaryRequest(
      `/${method.parent.typeName}/${method.name}`,
      (value: MessageShape<I>) => Buffer.from(toBinary(method.input, value)),
      (bytes: Buffer) => fromBinary(method.output, bytes),
      message,
      callMetadata(options),
      timeoutMs === undefined ? {} : { deadline: Date.now() + timeoutMs },
      (error, response) => {
        options.signal?.removeEventListener("abort", cancel);
        if (error) reject(RulesError.fromServiceError(error));
        else resolve(response as MessageShape<O>);
      },
    );
    const cancel = () => call.cancel();
    options.signal?.addEventListener("abort", cancel, { once: true });
  });
}

/**
 * The call's metadata with gRPC's wait-for-ready flag set (unless `waitForReady: false`): grpc-js reads
 * the flag from the metadata's options, never from the service config's `waitForReady`, so without it a
 * call made while the server is not up yet fails with UNAVAILABLE after the first connection attempt.
 */
export function callMetadata(options: Pick<CallOptions, "metadata" | "waitForReady">): grpc.Metadata {
  const metadata = options.metadata?.clone() ?? new grpc.Metadata();
  metadata.setOptions({ ...metadata.getOptions(), waitForReady: options.waitForReady ?? true });
  return metadata;
}
