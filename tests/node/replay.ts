// Replays every golden pair of tests/contract against a live tractor.rules.v1.RulesService, as an
// independent Node.js client: protoc-gen-es stubs (protos/buf.gen.typescript.yaml) for the messages and
// their canonical ProtoJSON, @grpc/grpc-js for the calls, google.rpc.Status decoded from the
// grpc-status-details-bin trailer for the errors. The comparison rules are tests/contract/README.md's.
//
//   node dist/replay.js --target 127.0.0.1:50051 --contract tests/contract
//
// Exit status: 0 when every pair matches, 1 when one does not (each named on stderr), 2 on bad usage.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

import { createRegistry, fromBinary, fromJson, toBinary, toJson } from "@bufbuild/protobuf";
import type { DescMessage, DescMethod, JsonValue, Message } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";

import { file_google_rpc_error_details } from "./gen/ts/google/rpc/error_details_pb.js";
import { StatusSchema, file_google_rpc_status } from "./gen/ts/google/rpc/status_pb.js";
import { RulesService, file_tractor_rules_v1_rules_service } from "./gen/ts/tractor/rules/v1/rules_service_pb.js";

/** Every type a golden may name, the Any details (`@type`) of a google.rpc.Status included. */
const registry = createRegistry(
  file_tractor_rules_v1_rules_service,
  file_google_rpc_status,
  file_google_rpc_error_details,
);
const options = { registry };

/** JSON keys of human-readable text at any depth: compared for presence only. */
const PROSE_KEYS = new Set(["message", "description"]);
/** Per method, top-level keys of the response that are prose too. */
const PROSE_TOP: Record<string, string[]> = {
  SuggestPlay: ["reason"],
  SuggestDeclaration: ["reason"],
  SuggestBury: ["reason"],
};
const DEADLINE_MS = 10_000;

type Outcome = { kind: "response"; json: JsonValue } | { kind: "error"; json: JsonValue };

/** `tree` with every non-empty prose string replaced by a marker. */
function blankProse(tree: JsonValue, top: ReadonlySet<string> = new Set()): JsonValue {
  if (Array.isArray(tree)) return tree.map((item) => blankProse(item));
  if (tree !== null && typeof tree === "object") {
    const out: Record<string, JsonValue> = {};
    for (const [key, value] of Object.entries(tree)) {
      const prose = (PROSE_KEYS.has(key) || top.has(key)) && typeof value === "string" && value !== "";
      out[key] = prose ? "<text>" : blankProse(value);
    }
    return out;
  }
  return tree;
}

/** Where two JSON values first differ, as a path and both sides; undefined when they are equal. */
function difference(expected: unknown, actual: unknown, path = "$"): string | undefined {
  if (Array.isArray(expected) && Array.isArray(actual)) {
    for (let i = 0; i < Math.max(expected.length, actual.length); i++) {
      const found = difference(expected[i], actual[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  const isObject = (v: unknown): v is Record<string, unknown> =>
    v !== null && typeof v === "object" && !Array.isArray(v);
  if (isObject(expected) && isObject(actual)) {
    for (const key of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
      const found = difference(expected[key], actual[key], `${path}.${key}`);
      if (found) return found;
    }
    return undefined;
  }
  if (expected === actual) return undefined;
  return `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

/** Call one unary method; its response or its rich error, both as canonical ProtoJSON. */
function call(client: grpc.Client, method: DescMethod, request: Message): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      `/${RulesService.typeName}/${method.name}`,
      (message: Message) => Buffer.from(toBinary(method.input, message)),
      (bytes: Buffer) => fromBinary(method.output, bytes),
      request,
      new grpc.Metadata(),
      { deadline: Date.now() + DEADLINE_MS },
      (error, response) => {
        if (!error) {
          resolve({ kind: "response", json: toJson(method.output, response as Message, options) });
          return;
        }
        const [trailer] = error.metadata?.get("grpc-status-details-bin") ?? [];
        if (!(trailer instanceof Buffer)) {
          reject(new Error(`${error.code} ${error.details}: no grpc-status-details-bin trailer`));
          return;
        }
        const status = fromBinary(StatusSchema, trailer);
        if (status.code !== error.code) {
          reject(new Error(`trailer status ${status.code} is not the call's status ${error.code}`));
          return;
        }
        resolve({ kind: "error", json: toJson(StatusSchema, status, options) });
      },
    );
  });
}

/** A golden, after checking that protobuf-es reads and prints it unchanged (canonical ProtoJSON). */
function golden(path: string, schema: DescMessage): JsonValue {
  const json = JSON.parse(readFileSync(path, "utf8")) as JsonValue;
  const reprinted = toJson(schema, fromJson(schema, json, options), options);
  const changed = difference(json, reprinted);
  if (changed) throw new Error(`not canonical ProtoJSON for protobuf-es: ${changed}`);
  return json;
}

/** Replay one pair; a description of the mismatch, or undefined when it matches. */
async function replay(client: grpc.Client, contract: string, method: DescMethod, name: string) {
  const base = join(contract, method.name, name);
  const request = fromJson(method.input, golden(`${base}.request.json`, method.input), options);
  const files = readdirSync(join(contract, method.name));
  const expectsError = files.includes(`${name}.error.json`);
  if (expectsError === files.includes(`${name}.response.json`)) return "needs exactly one expected outcome";
  const expected = expectsError
    ? golden(`${base}.error.json`, StatusSchema)
    : golden(`${base}.response.json`, method.output);
  const actual = await call(client, method, request);
  if (actual.kind !== (expectsError ? "error" : "response")) {
    return `expected ${expectsError ? "an error" : "a response"}, got ${JSON.stringify(actual.json)}`;
  }
  const top = new Set(expectsError ? [] : (PROSE_TOP[method.name] ?? []));
  return difference(blankProse(expected, top), blankProse(actual.json, top));
}

async function main(): Promise<number> {
  let target: string | undefined;
  let contract: string | undefined;
  try {
    ({ target, contract } = parseArgs({
      options: { target: { type: "string" }, contract: { type: "string" } },
    }).values);
  } catch (error) {
    console.error(String(error));
  }
  if (!target || !contract) {
    console.error("usage: node dist/replay.js --target HOST:PORT --contract DIR");
    return 2;
  }
  const client = new grpc.Client(target, grpc.credentials.createInsecure());
  const failed: string[] = [];
  let ok = 0;
  try {
    for (const method of RulesService.methods) {
      const dir = join(contract, method.name);
      const names = (existsSync(dir) ? readdirSync(dir) : [])
        .filter((file) => file.endsWith(".request.json"))
        .map((file) => file.slice(0, -".request.json".length))
        .sort();
      if (names.length === 0) failed.push(`${method.name}: no golden pair`);
      for (const name of names) {
        const id = `${method.name}/${name}`;
        let problem: string | undefined;
        try {
          problem = await replay(client, contract, method, name);
        } catch (error) {
          problem = error instanceof Error ? error.message : String(error);
        }
        if (problem) {
          failed.push(id);
          console.error(`FAIL ${id}: ${problem}`);
        } else {
          ok++;
          console.log(`ok   ${id}`);
        }
      }
    }
  } finally {
    client.close();
  }
  console.log(`replayed golden pairs against ${target}: ${ok} ok, ${failed.length} failed`);
  if (failed.length) console.error(`failed: ${failed.join(", ")}`);
  return failed.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
