// A ready type registry: every message of the contract and of the google.rpc files its errors carry, so
// a `google.rpc.Status` with details prints and parses as ProtoJSON in one line:
//
//     toJson(StatusSchema, error.status, { registry })

import { createRegistry } from "@bufbuild/protobuf";

import { file_google_rpc_error_details } from "./gen/google/rpc/error_details_pb.js";
import { file_google_rpc_status } from "./gen/google/rpc/status_pb.js";
import { file_tractor_rules_v1_rules_service } from "./gen/tractor/rules/v1/rules_service_pb.js";
import { file_tractor_rules_v1_types } from "./gen/tractor/rules/v1/types_pb.js";

/** The messages `Any` details may hold in this service's statuses (BadRequest, ErrorInfo, ...) and the contract. */
export const registry = createRegistry(
  file_google_rpc_error_details,
  file_google_rpc_status,
  file_tractor_rules_v1_types,
  file_tractor_rules_v1_rules_service,
);
