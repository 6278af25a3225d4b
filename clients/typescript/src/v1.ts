// The generated tractor.rules.v1 contract (protoc-gen-es): messages, enums, their schemas, RulesService.
export * from "./gen/tractor/rules/v1/types_pb.js";
export * from "./gen/tractor/rules/v1/rules_service_pb.js";
