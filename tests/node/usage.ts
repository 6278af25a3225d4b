// The typed surface of @tractor-rules/client, checked by tsc in the scratch project where the packed
// package is installed (tests/service/node_client.py compiles it with replay.ts; it is never run): the
// README's example, and mistakes the types must reject (each `@ts-expect-error` fails the build when
// the line below it compiles).

import { create } from "@bufbuild/protobuf";
import {
  Card,
  Contract,
  Rank,
  RulesError,
  RulesService,
  ValidatePlayRequestSchema,
  createClient,
} from "@tractor-rules/client";
import type { SettleHandResponse, ValidatePlayResponse } from "@tractor-rules/client";
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
    // @ts-expect-error settleHand answers a SettleHandResponse
    const wrong: ValidatePlayResponse = await rules.settleHand({});
    const settled: SettleHandResponse = await rules.settleHand({});
    console.log(wrong, settled);
  } catch (error) {
    if (!(error instanceof RulesError)) throw error;
    const status: Status | undefined = error.status;
    const code: number = error.code;
    const fields: string[] = error.fieldViolations.map((violation) => violation.field);
    const reason: string = error.reason;
    const metadata: Readonly<Record<string, string>> = error.metadata;
    console.log(status, code, fields, reason, metadata, error.domain, error.codeName, error.details);
  } finally {
    rules.close();
  }
}
