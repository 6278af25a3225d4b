// Validate Prometheus Operator custom resources (ServiceMonitor, PrometheusRule) offline.
//
// Kubernetes' own schemas do not cover custom resources, and the operator's CRDs are not published on
// the package registries this project may use; @kubernetes-models/prometheus-operator (npm) is: models
// generated from the operator's Go types. Two checks per object:
//   1. its JSON schema (ajv, via Model.validate()): types, required fields, formats (durations, ...);
//   2. its TypeScript interface (tsc --strict on a typed literal): unknown fields anywhere, which the
//      schemas let through (the API server would silently prune them, so a typo would do nothing).
//
// Usage: node deploy/validate/validate_crds.mjs < objects.json   (a JSON array of objects)
// Prints {"results": [{"kind", "name", "errors": [...]}]}; exits 1 when any object has an error.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { PrometheusRule, ServiceMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MODELS = { ServiceMonitor, PrometheusRule };
const MODULE = "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";

function schemaErrors(doc) {
  const Model = MODELS[doc.kind];
  if (!Model || doc.apiVersion !== "monitoring.coreos.com/v1") {
    return [`no model for ${doc.apiVersion}/${doc.kind}`];
  }
  try {
    new Model(doc).validate();
    return [];
  } catch (error) {
    return [`schema: ${error.message}`];
  }
}

// One typed constant per object, one per line, in a virtual file next to node_modules.
function typeErrors(docs) {
  const file = path.join(HERE, "__objects__.ts");
  const header = [`import type { IServiceMonitor, IPrometheusRule } from "${MODULE}";`];
  const lines = docs.map((doc, i) =>
    MODELS[doc.kind] ? `export const object${i}: I${doc.kind} = ${JSON.stringify(doc)};` : "",
  );
  const source = [...header, ...lines].join("\n");
  const options = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, version, ...rest) =>
    name === file ? ts.createSourceFile(name, source, version) : getSourceFile.call(host, name, version, ...rest);
  host.fileExists = (name) => name === file || fileExists.call(host, name);
  host.readFile = (name) => (name === file ? source : readFile.call(host, name));
  const program = ts.createProgram([file], options, host);
  const errors = docs.map(() => []);
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, " ");
    if (!diagnostic.file || diagnostic.file.fileName !== file) {
      throw new Error(`tsc: ${message}`);
    }
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    const index = line - header.length;
    if (index < 0 || index >= docs.length) {
      throw new Error(`tsc: ${message}`);
    }
    errors[index].push(`type: ${message}`);
  }
  return errors;
}

const docs = JSON.parse(readFileSync(0, "utf8"));
const typed = typeErrors(docs);
const results = docs.map((doc, i) => ({
  kind: doc.kind,
  name: doc.metadata?.name ?? "",
  errors: [...schemaErrors(doc), ...typed[i]],
}));
process.stdout.write(JSON.stringify({ results }, null, 2) + "\n");
process.exitCode = results.some((result) => result.errors.length) ? 1 : 0;
