// Cards, hands and seats in the notation of the rules (RULES.md R0/R1), as the contract's `Card` values:
// the same helpers as the Python client's `tractor.rules.client.cards`.
//
// A card's name is its `Card` enum name without `CARD_`: `SK` (king of spades), `H10`, `SJACK` (jack of
// spades), `SJ` and `BJ` (small and big joker). A hand or play is written as names apart: "SK SK SJACK BJ".

import { create } from "@bufbuild/protobuf";

import { Card, CardSchema, SeatCardsSchema, type SeatCards } from "./gen/tractor/rules/v1/types_pb.js";

export const CARD_PREFIX = "CARD_";
/** Seats 0..3 in playing order; partners sit opposite (0 and 2, 1 and 3). */
export const SEATS = 4;

const BY_NAME: ReadonlyMap<string, Card> = new Map(
  CardSchema.values
    .filter((value) => value.number !== Card.UNSPECIFIED)
    .map((value) => [value.name.slice(CARD_PREFIX.length), value.number as Card]),
);
const BY_NUMBER: ReadonlyMap<number, string> = new Map(
  [...BY_NAME].map(([name, value]) => [value as number, name]),
);

/** The `Card` of a name, with or without `CARD_`, any case (`"SK"`, `"CARD_SK"`); a RangeError if none. */
export function card(name: string): Card {
  let key = name.trim().toUpperCase();
  if (key.startsWith(CARD_PREFIX)) key = key.slice(CARD_PREFIX.length);
  const value = BY_NAME.get(key);
  if (value === undefined) {
    throw new RangeError(`unknown card ${JSON.stringify(name)}; cards are S2 .. SA, H2 .., C2 .., D2 .., SJ, BJ`);
  }
  return value;
}

/** Cards from names apart (`"SK SK SQ"`) or a list of names. */
export function cards(text: string | Iterable<string>): Card[] {
  const names = typeof text === "string" ? text.split(/\s+/).filter((part) => part !== "") : [...text];
  return names.map(card);
}

/** The name of a `Card` (`Card.SK` -> `"SK"`); a RangeError for a number that is no card. */
export function name(value: Card): string {
  const found = BY_NUMBER.get(value);
  if (found === undefined) throw new RangeError(`${value} is no card`);
  return found;
}

/** The names of cards, in their order. */
export function names(values: Iterable<Card>): string[] {
  return [...values].map(name);
}

/** A `SeatCards` (another seat's hand, a play of a trick) from a seat and card names. */
export function seatCards(seat: number, hand: string | Iterable<string>): SeatCards {
  return create(SeatCardsSchema, { seat: checkedSeat(seat), cards: cards(hand) });
}

/** The seat opposite `seat`. */
export function partner(seat: number): number {
  return (checkedSeat(seat) + 2) % SEATS;
}

/** The two seats of `seat`'s team, lowest first. */
export function team(seat: number): [number, number] {
  const other = partner(seat);
  return seat < other ? [seat, other] : [other, seat];
}

function checkedSeat(seat: number): number {
  if (!Number.isInteger(seat) || seat < 0 || seat >= SEATS) {
    throw new RangeError(`seats are 0..${SEATS - 1}, got ${seat}`);
  }
  return seat;
}
