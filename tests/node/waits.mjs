// Does a call wait for a server that is not up yet? Against TARGET (a port that refuses connections when
// this starts): one call with `waitForReady: false`, which must fail at once with UNAVAILABLE (so the
// channel has tried and failed to connect), then one call as every call is made, with TIMEOUT_MS; prints
// "calling" once that call is made (tests/clients/test_typescript_package.py opens the port then, or
// never), then one JSON object: both outcomes and how long the second call took.
//
//   node waits.mjs 127.0.0.1:PORT TIMEOUT_MS

import { Card, Contract, Rank, RulesError, createClient } from "@tractor-rules/client";

const [target, timeout] = process.argv.slice(2);
const timeoutMs = Number(timeout);
const rules = createClient(target, { timeoutMs });
const play = { level: Rank.RANK_5, contract: Contract.HEARTS, hand: [Card.SA, Card.HA], cards: [Card.SA] };
const outcome = async (call) => {
  try {
    return { legal: (await call).legal };
  } catch (error) {
    if (!(error instanceof RulesError)) throw error;
    return { error: error.codeName };
  }
};
const report = { failFast: await outcome(rules.validatePlay(play, { waitForReady: false })) };
const started = Date.now();
const call = rules.validatePlay(play);
console.log("calling");
report.waited = await outcome(call);
report.elapsedMs = Date.now() - started;
report.timeoutMs = timeoutMs;
rules.close();
console.log(JSON.stringify(report));
