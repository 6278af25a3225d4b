// Client-side batching of ValidatePlay: many callers' plays travel as one ValidatePlays call, as the
// Python client's PlayBatcher does (clients/python/tractor/rules/client/batching.py), with the same item
// limits; each caller is answered as if it had called validatePlay itself.

import { create } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { anyPack, anyUnpack } from "@bufbuild/protobuf/wkt";
import type { Any } from "@bufbuild/protobuf/wkt";
import { status as GrpcStatus } from "@grpc/grpc-js";
import type { Metadata } from "@grpc/grpc-js";

import type { RulesClient } from "./client.js";
import { RulesError } from "./errors.js";
import { BadRequestSchema, ErrorInfoSchema } from "./gen/google/rpc/error_details_pb.js";
import { StatusSchema, type Status } from "./gen/google/rpc/status_pb.js";
import {
  ValidatePlayRequestSchema,
  type ValidatePlayRequest,
  type ValidatePlayResponse,
  type ValidatePlaysResponse,
} from "./gen/tractor/rules/v1/rules_service_pb.js";

/** The most items the service takes in one ValidatePlays call (the server's MAX_BATCH_ITEMS). */
export const MAX_BATCH_ITEMS = 100;
/** How long a call waits for batch-mates by default (milliseconds): small next to a round trip. */
export const DEFAULT_MAX_WAIT_MS = 2;

export interface BatcherOptions {
  /** The most items in one ValidatePlays call, 1..100 (MAX_BATCH_ITEMS, the default). */
  readonly maxItems?: number;
  /** How long the first call of a window waits for batch-mates, 0..1000 ms (2 by default). */
  readonly maxWaitMs?: number;
  /** Request metadata (headers) of every ValidatePlays call. */
  readonly metadata?: Metadata;
}

export interface BatchedCallOptions {
  /** Milliseconds until this caller's deadline; the client's `timeoutMs` when absent. */
  readonly timeoutMs?: number;
  /** Gives up this caller's wait (CANCELLED); its batch-mates are not affected. */
  readonly signal?: AbortSignal;
}

interface Item {
  readonly request: ValidatePlayRequest;
  readonly deadline: number | undefined;
  settled: boolean;
  resolve(response: ValidatePlayResponse): void;
  reject(error: unknown): void;
}

/** What gRPC reports for a call past its deadline. */
function deadlineExceeded(): RulesError {
  return new RulesError(GrpcStatus.DEADLINE_EXCEEDED, "Deadline Exceeded");
}

/**
 * Batches `validatePlay` calls into ValidatePlays calls, with at most one batch in flight per batcher
 * (so per connection, when a client has one batcher): a window is sent `maxWaitMs` after its first call,
 * or at once when it holds `maxItems`; calls made while a batch is in flight gather into the next window,
 * which is sent when that batch is answered. So under load a batch carries what arrived during one round
 * trip, and the server sees one batch call at a time from this connection.
 *
 * Each caller gets what validatePlay would give: its response, or for a malformed request a RulesError
 * with the unary call's field paths (`hand[1]`, not `items[3].hand[1]`); a failed batch call (UNAVAILABLE,
 * ...) fails each of its callers with its code. Every caller's deadline is its own: it gets
 * DEADLINE_EXCEEDED at its deadline even while its batch is in flight, an expired item is not sent, and
 * the batch call's deadline is the latest of its items'.
 */
export class PlayBatcher {
  readonly maxItems: number;
  readonly maxWaitMs: number;
  private readonly pending: Item[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly client: RulesClient,
    private readonly options: BatcherOptions = {},
  ) {
    this.maxItems = options.maxItems ?? MAX_BATCH_ITEMS;
    this.maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
    if (!Number.isInteger(this.maxItems) || this.maxItems < 1 || this.maxItems > MAX_BATCH_ITEMS) {
      throw new RangeError(`maxItems must be 1..${MAX_BATCH_ITEMS}, got ${this.maxItems}`);
    }
    if (!(this.maxWaitMs >= 0 && this.maxWaitMs <= 1000)) {
      throw new RangeError(`maxWaitMs must be 0..1000, got ${this.maxWaitMs}`);
    }
  }

  /** ValidatePlay's answer for `request`; rejects with its RulesError as the unary call would. */
  validatePlay(
    request: MessageInitShape<typeof ValidatePlayRequestSchema>,
    options: BatchedCallOptions = {},
  ): Promise<ValidatePlayResponse> {
    return new Promise((resolve, reject) => {
      if (this.closed) throw new Error("the PlayBatcher is closed");
      const message = create(ValidatePlayRequestSchema, request); // a bad initializer rejects here
      const timeoutMs = options.timeoutMs ?? this.client.timeoutMs;
      const { signal } = options;
      if (signal?.aborted) {
        reject(new RulesError(GrpcStatus.CANCELLED, "cancelled before the call", undefined, { cause: signal.reason }));
        return;
      }
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        item.settled = true;
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener("abort", abort);
      };
      const item: Item = {
        request: message,
        deadline: timeoutMs === undefined ? undefined : Date.now() + timeoutMs,
        settled: false,
        resolve: (response) => {
          if (item.settled) return;
          done();
          resolve(response);
        },
        reject: (error) => {
          if (item.settled) return;
          done();
          reject(error);
        },
      };
      const abort = () => item.reject(new RulesError(GrpcStatus.CANCELLED, "Cancelled on client"));
      signal?.addEventListener("abort", abort, { once: true });
      if (timeoutMs !== undefined) timer = setTimeout(() => item.reject(deadlineExceeded()), timeoutMs);
      this.pending.push(item);
      this.schedule();
    });
  }

  /** Send what is pending and wait until every batch is answered; later calls reject. The client stays open. */
  async close(): Promise<void> {
    this.closed = true;
    this.maxWaitExpired();
    while (this.inFlight !== undefined) await this.inFlight;
  }

  private schedule(): void {
    if (this.inFlight !== undefined) return; // the in-flight batch's end sends the next window
    if (this.pending.length >= this.maxItems) this.maxWaitExpired();
    else if (this.timer === undefined && this.pending.length > 0) {
      this.timer = setTimeout(() => this.maxWaitExpired(), this.maxWaitMs);
    }
  }

  private maxWaitExpired(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.inFlight !== undefined) return;
    const now = Date.now();
    const batch: Item[] = [];
    while (this.pending.length > 0 && batch.length < this.maxItems) {
      const item = this.pending.shift() as Item;
      if (item.settled) continue; // its caller gave up or its deadline passed
      if (item.deadline !== undefined && item.deadline <= now) item.reject(deadlineExceeded());
      else batch.push(item);
    }
    if (batch.length === 0) return;
    const deadlines = batch.map((item) => item.deadline);
    const timeoutMs = deadlines.some((deadline) => deadline === undefined)
      ? undefined
      : Math.max(...(deadlines as number[])) - now;
    const sent = this.client
      .validatePlays(
        { items: batch.map((item) => item.request) },
        { timeoutMs, ...(this.options.metadata ? { metadata: this.options.metadata } : {}) },
      )
      .then(
        (response) => answer(batch, results(response, batch.length)),
        (error: unknown) => batch.forEach((item) => item.reject(error)),
      );
    this.inFlight = sent.finally(() => {
      this.inFlight = undefined;
      if (this.pending.length > 0) this.maxWaitExpired(); // they waited a round trip already
    });
  }
}

function answer(items: readonly Item[], answers: readonly (ValidatePlayResponse | RulesError)[]): void {
  items.forEach((item, index) => {
    const result = answers[index] as ValidatePlayResponse | RulesError;
    if (result instanceof RulesError) item.reject(result);
    else item.resolve(result);
  });
}

/** Each item's answer or its error, in item order; INTERNAL for all when the answer is malformed. */
function results(response: ValidatePlaysResponse, count: number): (ValidatePlayResponse | RulesError)[] {
  if (response.results.length !== count) {
    const message = `ValidatePlays answered ${response.results.length} results for ${count} items`;
    return Array.from({ length: count }, () => new RulesError(GrpcStatus.INTERNAL, message));
  }
  return response.results.map(({ result }, index) => {
    if (result.case === "response") return result.value;
    if (result.case === "error") return RulesError.fromStatus(unbatchedStatus(result.value, index));
    return new RulesError(GrpcStatus.INTERNAL, `ValidatePlays left item ${index} empty`);
  });
}

/**
 * Item `index`'s error as the unary call gives it: field paths without the `items[i].` prefix, in the
 * message, in BadRequest's field violations and in ErrorInfo's metadata values; other details as they are.
 */
export function unbatchedStatus(status: Status, index: number): Status {
  const prefix = `items[${index}].`;
  const strip = (text: string) => (text.startsWith(prefix) ? text.slice(prefix.length) : text);
  const details: Any[] = status.details.map((detail) => {
    const bad = anyUnpack(detail, BadRequestSchema);
    if (bad !== undefined) {
      for (const violation of bad.fieldViolations) violation.field = strip(violation.field);
      return anyPack(BadRequestSchema, bad);
    }
    const info = anyUnpack(detail, ErrorInfoSchema);
    if (info !== undefined) {
      for (const [key, value] of Object.entries(info.metadata)) info.metadata[key] = strip(value);
      return anyPack(ErrorInfoSchema, info);
    }
    return detail;
  });
  return create(StatusSchema, { code: status.code, message: status.message.replace(prefix, ""), details });
}
