// The package's batcher, card names and type registry, as plain JavaScript in a scratch project: one JSON
// object for tests/clients/test_typescript_package.py. RULES is the rules server; PROXY forwards
// ValidatePlays to it and counts the batches (a batch whose first item has seat 3 it holds until its
// deadline).
//
//   node sdk.mjs RULES PROXY

import { toJson } from "@bufbuild/protobuf";
import {
  Card,
  CardSchema,
  Contract,
  DEFAULT_MAX_WAIT_MS,
  MAX_BATCH_ITEMS,
  PlayBatcher,
  Rank,
  RulesError,
  SeatCardsSchema,
  ValidatePlayResponseSchema,
  cards,
  createClient,
  registry,
} from "@tractor-rules/client";
import { StatusSchema } from "@tractor-rules/client/google/rpc";

const [rulesTarget, proxyTarget] = process.argv.slice(2);
const rules = createClient(rulesTarget, { timeoutMs: 10_000 });
const proxy = createClient(proxyTarget, { timeoutMs: 10_000 });
const PLAYS = ["SA", "HA", "C3", "SA HA", "HA C3"];
const request = (index) => ({
  level: Rank.RANK_5,
  contract: Contract.HEARTS,
  seat: 2,
  hand: index % 2 ? [Card.SA, 77] : [Card.SA, Card.HA, Card.C3],
  cards: index % 2 ? [Card.SA] : cards.cards(PLAYS[(index / 2) % PLAYS.length]),
});
const answer = async (call) => {
  try {
    return { response: toJson(ValidatePlayResponseSchema, await call, { registry }) };
  } catch (error) {
    if (!(error instanceof RulesError)) throw error;
    return { error: { code: error.codeName, fields: error.fields, reason: error.reason } };
  }
};
const report = { maxBatchItems: MAX_BATCH_ITEMS, defaultMaxWaitMs: DEFAULT_MAX_WAIT_MS };
try {
  // 250 calls at once, half malformed, beside the unary answers
  const batcher = new PlayBatcher(proxy);
  const indexes = [...Array(250).keys()];
  const batched = await Promise.all(indexes.map((index) => answer(batcher.validatePlay(request(index)))));
  const unary = await Promise.all(indexes.map((index) => answer(rules.validatePlay(request(index)))));
  report.batched = batched;
  report.sameAsUnary = batched.map((got, index) => JSON.stringify(got) === JSON.stringify(unary[index]));
  await batcher.close();
  // a smaller window
  const small = new PlayBatcher(proxy, { maxItems: 10 });
  await Promise.all(indexes.slice(0, 25).map((index) => small.validatePlay(request(2 * index))));
  await small.close();
  report.small = "sent";
  // deadlines: a held batch ends at its caller's deadline; a call queued behind it at its own, unsent
  const held = new PlayBatcher(proxy);
  const first = answer(held.validatePlay({ ...request(0), seat: 3 }, { timeoutMs: 600 }));
  await new Promise((resolve) => setTimeout(resolve, 50)); // past the window: the first batch is in flight
  const queued = answer(held.validatePlay(request(0), { timeoutMs: 200 }));
  report.deadlines = { held: await first, queued: await queued };
  await held.close();
  report.closed = await answer(held.validatePlay(request(0))).catch((error) => String(error));
  report.knobs = [0, 101].map((maxItems) => {
    try {
      new PlayBatcher(proxy, { maxItems });
      return "accepted";
    } catch (error) {
      return error.name;
    }
  });
  // the registry: the rich status of a failed call as ProtoJSON, which needs it
  try {
    await rules.validatePlay(request(1));
  } catch (error) {
    report.statusJson = toJson(StatusSchema, error.status, { registry });
    try {
      toJson(StatusSchema, error.status);
      report.withoutRegistry = "printed";
    } catch (failure) {
      report.withoutRegistry = String(failure.message);
    }
  }
} finally {
  rules.close();
  proxy.close();
}
// card names: every card of the enum both ways, and the seat helpers
const names = CardSchema.values.filter((value) => value.number !== 0).map((value) => value.name);
report.cards = Object.fromEntries(names.map((name) => [name, cards.card(name)]));
report.names = cards.names(names.map((name) => cards.card(name.toLowerCase())));
report.parsed = cards.cards("SK SK SJACK BJ");
report.seatCards = toJson(SeatCardsSchema, cards.seatCards(1, "S3 S3"));
report.partners = [0, 1, 2, 3].map((seat) => [cards.partner(seat), cards.team(seat)]);
report.refused = [() => cards.card("S1"), () => cards.seatCards(4, "S3"), () => cards.name(99)].map((bad) => {
  try {
    bad();
    return "accepted";
  } catch (error) {
    return error.name;
  }
});
console.log(JSON.stringify(report));
