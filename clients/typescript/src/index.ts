// @tractor-rules/client: the tractor.rules.v1 contract (protoc-gen-es) and a small client over
// @grpc/grpc-js (with a ValidatePlay batcher, card names and a ready type registry). The google.rpc messages are at "@tractor-rules/client/google/rpc".

export * from "./v1.js";
export {
  ATTEMPT_TIMEOUT,
  CHANNEL_OPTIONS,
  KEEPALIVE_TIME_MS,
  KEEPALIVE_TIMEOUT_MS,
  MAX_MESSAGE_BYTES,
  SERVICE,
  SERVICE_CONFIG,
  channelOptions,
} from "./channel.js";
export { DOMAIN, RulesError, STATUS_DETAILS_KEY, codeName } from "./errors.js";
export type { FieldViolation } from "./errors.js";
export { callMetadata, createClient } from "./client.js";
export { DEFAULT_MAX_WAIT_MS, MAX_BATCH_ITEMS, PlayBatcher, unbatchedStatus } from "./batching.js";
export type { BatchedCallOptions, BatcherOptions } from "./batching.js";
export * as cards from "./cards.js";
export { registry } from "./registry.js";
export type { CallOptions, ClientOptions, RulesClient, RulesMethods, UnaryMethod } from "./client.js";
