// What the package's channel retries, against a scripted server (tests/clients/test_typescript_package.py)
// that answers ValidatePlay by the request's `seat`: each call's outcome, one JSON object. For `abort`, the
// call is cancelled by its AbortSignal once the server has it (seat 9 asks the server whether it has).
//
//   node retries.mjs 127.0.0.1:PORT

import { RulesError, createClient } from "@tractor-rules/client";

const rules = createClient(process.argv[2], { timeoutMs: 10_000 });
const outcome = async (call) => {
  try {
    return { legal: (await call).legal };
  } catch (error) {
    if (!(error instanceof RulesError)) throw error;
    return { error: error.codeName };
  }
};
const modes = {
  unavailableTwice: 1,
  alwaysUnavailable: 2,
  cancelledOnce: 3,
  invalidArgument: 4,
  resourceExhausted: 5,
  internal: 6,
};
const report = {};
for (const [mode, seat] of Object.entries(modes)) report[mode] = await outcome(rules.validatePlay({ seat }));
report.deadline = await outcome(rules.validatePlay({ seat: 7 }, { timeoutMs: 300 }));
const controller = new AbortController();
const aborted = outcome(rules.validatePlay({ seat: 8 }, { signal: controller.signal }));
while (!(await rules.validatePlay({ seat: 9 })).legal); // until the server holds the seat-8 call
controller.abort();
report.abort = await aborted;
rules.close();
// exit once printed: on @grpc/grpc-js 1.10.0 the cancelled call's stream keeps the closed channel's
// event loop alive (1.14 exits by itself)
process.stdout.write(`${JSON.stringify(report)}\n`, () => process.exit(0));
