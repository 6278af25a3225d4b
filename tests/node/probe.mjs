// What a backend writes after `npm install tractor-rules-client-0.1.0.tgz` and nothing else: plain
// JavaScript, one legal play and one request with an unknown card, the second failing with a RulesError
// whose BadRequest and ErrorInfo arrive decoded; then, when a second target is given, one call to it
// (a server that answers UNAVAILABLE first: the channel's retry policy must hide that). Prints one JSON
// object for tests/service/test_node_client.py, with the package's channel defaults beside it.
//
//   node probe.mjs 127.0.0.1:50051 [127.0.0.1:50052]

import { CHANNEL_OPTIONS, Card, Contract, Rank, RulesError, createClient } from "@tractor-rules/client";

const rules = createClient(process.argv[2], { timeoutMs: 10_000 });
const play = { level: Rank.RANK_5, contract: Contract.HEARTS, seat: 2, hand: [Card.SA, Card.HA, Card.C3] };
const report = { channelOptions: CHANNEL_OPTIONS };
try {
  const verdict = await rules.validatePlay({ ...play, cards: [Card.SA] });
  report.legal = verdict.legal;
  try {
    await rules.validatePlay({ ...play, hand: [Card.SA, 77], cards: [Card.SA] });
    report.error = null;
  } catch (error) {
    if (!(error instanceof RulesError)) throw error;
    const { name, code, codeName, details, reason, domain, metadata, fieldViolations, fields } = error;
    report.error = { name, code, codeName, details, reason, domain, metadata, fieldViolations, fields };
  }
} finally {
  rules.close();
}
if (process.argv[3]) {
  const flaky = createClient(process.argv[3], { timeoutMs: 10_000 });
  try {
    report.retried = { legal: (await flaky.validatePlay({ ...play, cards: [Card.SA] })).legal };
  } catch (error) {
    report.retried = { error: error instanceof RulesError ? error.codeName : String(error) };
  } finally {
    flaky.close();
  }
}
console.log(JSON.stringify(report));
