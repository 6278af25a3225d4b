// Replays every golden pair of tests/contract against a live tractor.rules.v1.RulesService, as an
// independent Node.js client built on the published npm package (@tractor-rules/client, installed from
// its `npm pack` tarball): its protoc-gen-es messages and their canonical ProtoJSON, its client for the
// calls (the recommended channel settings), its RulesError for the errors, whose decoded
// google.rpc.Status is compared with the error goldens. The comparison rules are tests/contract/README.md's.
//
//   node dist/replay.js --target 127.0.0.1:50051 --contract tests/contract
//
// Exit status: 0 when every pair matches, 1 when one does not (each named on stderr), 2 on bad usage.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

import { createRegistry, fromJson, toJson } from "@bufbuild/protobuf";
import type { DescMessage, JsonValue } from "@bufbuild/protobuf";
import {
  RulesError,
  RulesService,
  createClient,
  file_tractor_rules_v1_rules_service,
} from "@tractor-rules/client";
import type { RulesClient, UnaryMethod } from "@tractor-rules/client";
import {
  StatusSchema,
  file_google_rpc_error_details,
  file_google_rpc_status,
} from "@tractor-rules/client/google/rpc";

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

/** Call one unary method; its response or its rich error (RulesError.status), both as canonical ProtoJSON. */
async function call(client: RulesClient, method: UnaryMethod, request: JsonValue): Promise<Outcome> {
  try {
    const message = fromJson(method.input, request, options);
    const response = await client.call(method, message, { timeoutMs: DEADLINE_MS });
    return { kind: "response", json: toJson(method.output, response, options) };
  } catch (error) {
    if (!(error instanceof RulesError)) throw error;
    if (error.status === undefined) throw new Error(`${error.message}: no grpc-status-details-bin trailer`);
    if (error.status.code !== error.code) {
      throw new Error(`trailer status ${error.status.code} is not the call's status ${error.code}`);
    }
    return { kind: "error", json: toJson(StatusSchema, error.status, options) };
  }
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
async function replay(client: RulesClient, contract: string, method: UnaryMethod, name: string) {
  const base = join(contract, method.name, name);
  const request = golden(`${base}.request.json`, method.input);
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
  const client = createClient(target);
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
          problem = await replay(client, contract, method as UnaryMethod, name);
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
