// One typed error for every failed call: the rich google.rpc.Status of the grpc-status-details-bin
// trailer decoded, so nobody parses trailers by hand. The same shape as the Python client's RulesError
// (clients/python/tractor/rules/client/errors.py).

import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { anyIs, anyUnpack } from "@bufbuild/protobuf/wkt";
import { Metadata, status as GrpcStatus } from "@grpc/grpc-js";
import type { ServiceError } from "@grpc/grpc-js";

import { BadRequestSchema, ErrorInfoSchema } from "./gen/google/rpc/error_details_pb.js";
import { StatusSchema, type Status } from "./gen/google/rpc/status_pb.js";

/** Where gRPC carries the rich google.rpc.Status. */
export const STATUS_DETAILS_KEY = "grpc-status-details-bin";
/** The ErrorInfo domain of the service's own errors. */
export const DOMAIN = "rules.tractor";

/** One bad field of a request: its path, the stable reason, and a sentence for people. */
export interface FieldViolation {
  readonly field: string;
  readonly reason: string;
  readonly description: string;
}

/** The name of a gRPC status code (`INVALID_ARGUMENT`), or `UNKNOWN` for a number gRPC does not define. */
export function codeName(code: number): string {
  return (GrpcStatus as unknown as Record<number, string | undefined>)[code] ?? "UNKNOWN";
}

/**
 * A failed RulesService call: the gRPC code and message, and the decoded google.rpc.Status — ErrorInfo's
 * `reason`, `domain` and `metadata`, BadRequest's `fieldViolations`. `reason` is empty when the status
 * carries no ErrorInfo (a status gRPC itself produced, such as UNAVAILABLE or DEADLINE_EXCEEDED).
 */
export class RulesError extends Error {
  override readonly name = "RulesError";
  /** The gRPC status code (`status.INVALID_ARGUMENT` of @grpc/grpc-js, 3). */
  readonly code: number;
  /** The status message (what `ServiceError.details` holds). */
  readonly details: string;
  /** The trailing metadata, with the rich status under `grpc-status-details-bin`. */
  readonly trailers: Metadata;
  /** The google.rpc.Status of the trailer, or undefined when the server sent none. */
  readonly status: Status | undefined;
  /** ErrorInfo's stable, machine-readable reason (`UNKNOWN_VALUE`, `TOO_MANY_CALLS`...). */
  readonly reason: string;
  readonly domain: string;
  /** ErrorInfo's metadata (the field, a limit...). */
  readonly metadata: Readonly<Record<string, string>>;
  /** BadRequest's violations, in the server's order (empty but for INVALID_ARGUMENT). */
  readonly fieldViolations: readonly FieldViolation[];

  constructor(code: number, details: string, trailers: Metadata = new Metadata(), options?: ErrorOptions) {
    super(`${codeName(code)}: ${details}`, options);
    this.code = code;
    this.details = details;
    this.trailers = trailers;
    this.status = decodeStatus(trailers);
    const info = unpacked(this.status, ErrorInfoSchema)[0];
    this.reason = info?.reason ?? "";
    this.domain = info?.domain ?? "";
    this.metadata = Object.freeze({ ...(info?.metadata ?? {}) });
    this.fieldViolations = Object.freeze(
      unpacked(this.status, BadRequestSchema).flatMap((bad) =>
        bad.fieldViolations.map(({ field, reason, description }) =>
          Object.freeze({ field, reason, description }),
        ),
      ),
    );
  }

  /** The typed error of what @grpc/grpc-js reported (a RulesError is returned as it is). */
  static fromServiceError(error: ServiceError | RulesError): RulesError {
    if (error instanceof RulesError) return error;
    return new RulesError(error.code ?? GrpcStatus.UNKNOWN, error.details ?? error.message, error.metadata, {
      cause: error,
    });
  }

  /** The error a unary call ending with `status` reports. */
  static fromStatus(status: Status): RulesError {
    const trailers = new Metadata();
    trailers.set(STATUS_DETAILS_KEY, Buffer.from(toBinary(StatusSchema, status)));
    return new RulesError(status.code, status.message, trailers);
  }

  /** The name of the code (`INVALID_ARGUMENT`). */
  get codeName(): string {
    return codeName(this.code);
  }

  /** The paths of the bad fields, in the server's order. */
  get fields(): string[] {
    return this.fieldViolations.map((violation) => violation.field);
  }
}

function decodeStatus(trailers: Metadata): Status | undefined {
  const [value] = trailers.get(STATUS_DETAILS_KEY);
  return value instanceof Uint8Array ? fromBinary(StatusSchema, value) : undefined;
}

/** The details of one type in `status`, unpacked. */
function unpacked<Desc extends typeof ErrorInfoSchema | typeof BadRequestSchema>(
  status: Status | undefined,
  schema: Desc,
) {
  return (status?.details ?? [])
    .filter((detail) => anyIs(detail, schema))
    .map((detail) => anyUnpack(detail, schema))
    .filter((message) => message !== undefined);
}
