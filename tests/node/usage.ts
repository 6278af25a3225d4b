// The typed surface of @tractor-rules/client, checked by tsc in the scratch project where the packed
// package is installed (tests/service/node_client.py compiles it with replay.ts; it is never run): the
// README's example, and mistakes the types must reject (each `@ts-expect-error` fails the build when
// the line below it compiles).

import { create, toJson } from "@bufbuild/protobuf";
import type { JsonValue } from "@bufbuild/protobuf";
import {
  Card,
  Contract,
  PlayBatcher,
  Rank,
  RulesError,
  RulesService,
  ValidatePlayRequestSchema,
  cards,
  createClient,
  registry,
} from "@tractor-rules/client";
import type { SeatCards, SettleHandResponse, ValidatePlayResponse } from "@tractor-rules/client";
import { StatusSchema } from "@tractor-rules/client/google/rpc";
import type { Status } from "@tractor-rules/client/google/rpc";

export async function usage(target: string): Promise<void> {
  const rules = createClient(target, { timeoutMs: 2000 });
  try {
    const verdict: ValidatePlayResponse = await rules.validatePlay({
      level: Rank.RANK_5,
      contract: Contract.HEARTS,
      seat: 2,
      hand: [Card.SA, Card.HA, Card.C3],
      cards: [Card.SA, Card.HA],
    });
    const legal: boolean = verdict.legal;
    const same: ValidatePlayResponse = await rules.call(RulesService.method.validatePlay, {
      hand: [Card.SA],
    });
    const message: ValidatePlayResponse = await rules.validatePlay(create(ValidatePlayRequestSchema), {
      timeoutMs: 500,
      signal: AbortSignal.timeout(1000),
    });
    console.log(legal, same.legal, message.legal);
    // @ts-expect-error a field the request does not have
    await rules.validatePlay({ handd: [] });
    // @ts-expect-error a bare number is no Card (the READMEs send one with a cast, `77 as Card`)
    await rules.validatePlay({ hand: [Card.SA, 77] });
    await rules.validatePlay({ hand: [Card.SA, 77 as Card] }, { waitForReady: false });
    const batcher = new PlayBatcher(rules, { maxItems: 10, maxWaitMs: 5 });
    const batched: ValidatePlayResponse = await batcher.validatePlay({ hand: cards.cards("SA") }, { timeoutMs: 100 });
    // @ts-expect-error the batcher takes ValidatePlay requests only
    await batcher.validatePlay({ plays: [] });
    await batcher.close();
    const hand: Card[] = cards.cards("SK SQ");
    const names: string[] = cards.names(hand);
    const play: SeatCards = cards.seatCards(1, "S3 S3");
    const team: [number, number] = cards.team(cards.partner(1));
    console.log(batched.legal, names, play.seat, team);
    // @ts-expect-error settleHand answers a SettleHandResponse
    const wrong: ValidatePlayResponse = await rules.settleHand({});
    const settled: SettleHandResponse = await rules.settleHand({});
    console.log(wrong, settled);
  } catch (error) {
    if (!(error instanceof RulesError)) throw error;
    const status: Status | undefined = error.status;
    const printed: JsonValue = status ? toJson(StatusSchema, status, { registry }) : null;
    console.log(printed);
    const code: number = error.code;
    const fields: string[] = error.fieldViolations.map((violation) => violation.field);
    const reason: string = error.reason;
    const metadata: Readonly<Record<string, string>> = error.metadata;
    console.log(status, code, fields, reason, metadata, error.domain, error.codeName, error.details);
  } finally {
    rules.close();
  }
}
