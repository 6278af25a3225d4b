"""Answers that cannot depend on the table, sent to every table (issue 25 item 5: a test that catches drift).

A worked case of the rulebooks' table (two decks, four seats, fixed partners) or a contract golden is a
request at four seats. :func:`variants` seats it again at 4 or 6 seats, with fixed partners (R15.1) or
finding friends (R15, one called card nobody plays), under every preset, with the options its answer
depends on pinned (and, as extra axes, set to their other values: R6 ruff structure, R16.3 FOLLOW, R16.7
THROW-RUFF, R4.5 THROW, R8.4 DIG and DIG-SHAPE). What is added around the case cannot change the answer:

* the extra seats of six play *discards*: low plain cards of no points, off the led category, never a
  level card (R2), so they can neither win (R7.1) nor add points (R8.1); on a lead their hands hold only
  such cards, so they beat no thrown component (R4.4);
* the original plays keep their order and their leader, either with the extra seats after them
  (``after``) or between the leader and the second play (``between``, with the leader's seat rotated so
  that seat numbers wrap); every layout keeps each original seat's parity, so fixed partners stay
  partners (R15.1: every other seat);
* a hand larger than the table's hand size (R14.2: 17 at six seats) drops cards of other categories that
  it does not play; they take no part in a follow (R5) or a throw check (R4.4); where that is not enough
  the case does not fit that table and is left out (counted, never silently);
* the dealer is chosen so that the winner's side is the same under fixed partners and under finding
  friends (the winner is the dealer, or sits on the other side), so the attackers' points and the dig
  (R8.3) cannot depend on partners; a golden whose winner is the dealer's partner is compared without
  those fields.

:func:`project` keeps the parts of an answer that must not change (the winner's original seat, each
original play's judgement, legality and violation, shape and components, the throw's outcome, the dig) and
:class:`Refused` stands for INVALID_ARGUMENT with the fields it names: where an option cannot apply, every
table must refuse it naming the same ruleset field.

Everything here speaks the public contract (the proto JSON mapping); the only engine calls are the card
and trump-context readers that build inputs, so the checks stay valid while the engine is rewritten.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from itertools import product
from pathlib import Path
from typing import Any

from google.protobuf.message import Message
from worked_cases import Case, all_cases, table_of

from rules_core.cards import Suit, parse_cards, parse_rank
from rules_core.rules import (
    PRESETS,
    DigMultiplier,
    DigShape,
    FollowRule,
    RuffStructure,
    Rules,
    ThrowCheck,
    ThrowRuffCompare,
)
from rules_core.trump import TRUMP, TrumpContext, trump_context
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import types_pb2

Body = dict[str, Any]
CONTRACT_DIR = Path(__file__).resolve().parent / "contract"

PRESET_NAMES = ("default", "rulebook-000", "rulebook-001", "rulebook-003")
TABLES = ((4, "FIXED"), (4, "FRIENDS"), (6, "FIXED"), (6, "FRIENDS"))
"""(seats, partners): the tables every case is sent to, all of two decks (R14, R15.1)."""
LAYOUTS = {"after": (0, 1, 2, 3), "between": (0, 3, 4, 5)}
"""Play positions of the original P1..P4 at six seats; the extra seats take the others. At four seats
``between`` is a rotation of the leader (the leader sits at the last seat)."""
HAND_SIZE = {4: 25, 6: 17}
"""R14.2 for two decks."""
BOTTOM_SIZE = {4: 8, 6: 6}
"""R14.2 for two decks."""

OPTIONS: dict[str, tuple[str, str, Any, str]] = {
    # case option -> (Ruleset field, enum prefix, engine enum, Rules attribute)
    "THROW": ("throw_check", "THROW_CHECK_", ThrowCheck, "throw"),
    "RUFF": ("ruff_structure", "RUFF_STRUCTURE_", RuffStructure, "ruff"),
    "DIG": ("dig_multiplier", "DIG_MULTIPLIER_", DigMultiplier, "dig_multiplier"),
    "DIG_SHAPE": ("dig_shape", "DIG_SHAPE_", DigShape, "dig_shape"),
    "FOLLOW": ("follow_rule", "FOLLOW_RULE_", FollowRule, "follow"),
    "THROW_RUFF": ("throw_ruff_compare", "THROW_RUFF_COMPARE_", ThrowRuffCompare, "throw_ruff_compare"),
}
"""The options a play, a follow, a trick or a dig can depend on: pinned in every request."""

CONTRACTS = {
    "S": "CONTRACT_SPADES",
    "H": "CONTRACT_HEARTS",
    "C": "CONTRACT_CLUBS",
    "D": "CONTRACT_DIAMONDS",
    "NT": "CONTRACT_NO_TRUMP",
}
_SUITS = {"CONTRACT_SPADES": Suit.S, "CONTRACT_HEARTS": Suit.H, "CONTRACT_CLUBS": Suit.C}
_SUITS["CONTRACT_DIAMONDS"] = Suit.D
LOW_RANKS = ("2", "3", "4", "6", "7", "8", "9")
"""Ranks of no points (R8.1), weakest first."""
POINTS = {"5": 5, "10": 10, "K": 10}


# -------------------------------------------------------------------------------------------------
# cards


def card(name: str) -> str:
    """RULES.md notation to the wire's enum name (``SJack`` -> ``CARD_SJACK``)."""
    return f"CARD_{name.upper()}"


def _notation(wire: str) -> str:
    name = wire.removeprefix("CARD_")
    return "SJack" if name == "SJACK" else name


def points(wire: str) -> int:
    """R8.1: a card's points."""
    name = _notation(wire)
    return 0 if name in ("SJ", "BJ") else POINTS.get(name[1:], 0)


@dataclass(frozen=True)
class Reader:
    """A request's level and contract: which category each card is in (R2)."""

    ctx: TrumpContext
    level: str

    @staticmethod
    def of(body: Body) -> Reader:
        level = body["level"].removeprefix("RANK_")
        return Reader(trump_context(parse_rank(level), _SUITS.get(body["contract"])), level)

    def category(self, wire: str) -> int:
        return int(self.ctx.category[parse_cards([_notation(wire)])[0]])

    def categories(self, cards: list[str]) -> set[int]:
        return {self.category(c) for c in cards}

    def discards(self, avoid: set[int], used: Counter[str]) -> Iterator[str]:
        """Low plain cards of no points outside ``avoid`` (categories) with a copy left (two decks),
        weakest first: what an extra seat can play without changing the trick."""
        for rank in LOW_RANKS:
            if rank == self.level:
                continue
            for suit in "DCHS":
                wire = card(suit + rank)
                if self.category(wire) in avoid or self.category(wire) == TRUMP:
                    continue
                for _ in range(2 - used[wire]):
                    yield wire

    def callable_card(self, used: Counter[str]) -> str:
        """R15.3: a plain card nobody holds or plays in the request (a call that is never met)."""
        for suit, rank in product("DCHS", ("A", "K", "Q", *LOW_RANKS)):
            wire = card(suit + rank)
            if rank != self.level and self.category(wire) != TRUMP and not used[wire]:
                return wire
        raise DoesNotFitError("every plain card is in the request")


def used_cards(body: Body) -> Counter[str]:
    """Every card a request names, counted (no face more than the two decks' two copies, R14.1)."""
    found: Counter[str] = Counter()

    def walk(node: Any, key: str = "") -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if k not in ("ruleset",):
                    walk(v, k)
        elif isinstance(node, list):
            for v in node:
                walk(v, key)
        elif isinstance(node, str) and node.startswith("CARD_") and key not in ("card",):
            found[node] += 1

    walk(body)
    return found


# -------------------------------------------------------------------------------------------------
# the base requests: a worked case as the rulebooks' table asks it


def cases_of_rulebook_table() -> list[Case]:
    """The worked cases of the play areas on two decks and four seats (CASES.md)."""
    areas = ("lead", "throw", "follow", "trick", "ruff", "dig")
    return [c for c in all_cases() if c["area"] in areas and table_of(c) == (2, 4)]


def _seated(plays: list[list[str]]) -> list[Body]:
    return [{"seat": i, "cards": [card(c) for c in p]} for i, p in enumerate(plays)]


def base_request(case: Case) -> tuple[str, Body]:
    """The case as one request at the rulebooks' table (P1..P4 at seats 0..3, P1 leads)."""
    data, body = case["input"], {"level": f"RANK_{case['level']}", "contract": CONTRACTS[case["trump"]]}
    area = case["area"]
    if area == "lead":
        lead = [card(c) for c in data["cards"]]
        empty: list[Body] = [{"seat": s} for s in (1, 2, 3)]
        return "ValidatePlay", {**body, "seat": 0, "hand": lead, "cards": lead, "other_hands": empty}
    if area == "throw":
        lead = [card(c) for c in data["throw"]]
        others: list[Body] = [
            {"seat": int(k[1:]) - 1, "cards": [card(c) for c in v]} for k, v in data["others"].items()
        ]
        return "ValidatePlay", {**body, "seat": 0, "hand": lead, "cards": lead, "other_hands": others}
    if area == "follow":
        led: Body = {"leader": 0, "plays": [{"seat": 0, "cards": [card(c) for c in data["lead"]]}]}
        hand, play = [card(c) for c in data["hand"]], [card(c) for c in data["play"]]
        return "ValidatePlay", {**body, "seat": 1, "hand": hand, "cards": play, "trick": led}
    if area in ("trick", "ruff"):
        return "ResolveTrick", {**body, "leader": 0, "plays": _seated(data["plays"]), "dealer": 0}
    bottom = [card(c) for c in data["bottom"]]
    dealer = next(s for s in range(4) if f"P{s + 1}" not in data["attackers"])
    trick = _seated(data["last_trick"])
    return "ResolveTrick", {
        **body,
        "leader": 0,
        "plays": trick,
        "dealer": dealer,
        "last_trick": True,
        "bottom": bottom,
    }


def own_options(case: Case) -> dict[str, str]:
    """The case's values of :data:`OPTIONS` (its ``opts``, else the default), as engine enum names."""
    found = {}
    for option, (_, _, domain, attribute) in OPTIONS.items():
        value = case["opts"].get(option)
        found[option] = (domain(value) if value is not None else getattr(PRESETS["default"], attribute)).name
    return found


def golden_options(body: Body) -> dict[str, str]:
    """A golden's values of :data:`OPTIONS`: its ruleset's overrides, else its preset's (the wire's
    names: an enum value is the prefix plus the engine name)."""
    ruleset = body.get("ruleset", {})
    rules = PRESETS[ruleset.get("preset") or "default"]
    found = {}
    for option, (field, prefix, _, attribute) in OPTIONS.items():
        wire = ruleset.get(field) or ruleset.get(_camel(field))
        found[option] = wire.removeprefix(prefix) if wire else getattr(rules, attribute).name
    return found


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _snake(node: Any) -> Any:
    """A golden's proto JSON with lowerCamelCase keys turned to the proto field names (both parse)."""
    if isinstance(node, dict):
        return {
            "".join(f"_{ch.lower()}" if ch.isupper() else ch for ch in k): _snake(v) for k, v in node.items()
        }
    if isinstance(node, list):
        return [_snake(v) for v in node]
    return node


GOLDENS = (
    "ValidatePlay/follow_must_follow_suit",
    "ValidatePlay/follow_must_play_tractor",
    "ValidatePlay/follow_tractor_legal",
    "ValidatePlay/lead_mixed_categories",
    "ValidatePlay/throw_fails_forced_pair",
    "ResolveTrick/over_ruff",
    "ResolveTrick/trump_level_card_wins",
    "ResolveTrick/dig_pair_rulebook_003",
    "ListLegalPlays/follow_owes_a_pair",
)
"""The goldens of the rulebooks' table whose answer cannot depend on the table (the others are of another
table, an error, a settlement or advice)."""


@cache
def golden(name: str) -> tuple[str, Body, Body]:
    """A golden's method, request and response in proto field names."""
    method = name.split("/", maxsplit=1)[0]
    request = json.loads((CONTRACT_DIR / f"{name}.request.json").read_text())
    response = json.loads((CONTRACT_DIR / f"{name}.response.json").read_text())
    return method, _snake(request), _snake(response)


# -------------------------------------------------------------------------------------------------
# the axes


def axes(area: str, method: str, body: Body, own: dict[str, str]) -> list[dict[str, str]]:
    """The option combinations a request is sent with: its own first, then the other values of the
    options its area depends on (R4.5 THROW for a throw, R16.3 FOLLOW for a follow, R6 RUFF with R16.7
    THROW-RUFF for a trick led by a throw, R8.4 DIG with DIG-SHAPE for a dig)."""
    if area == "lead":
        return [own]
    if area == "throw":
        grid = {"THROW": ["TOP_DOWN", "PAIRS_FIRST"]}
    elif area == "follow":
        grid = {"FOLLOW": ["STRUCTURE", "SUIT_ONLY"]}
    elif area == "dig":
        grid = {"DIG": ["DOUBLING", "CAPPED"], "DIG_SHAPE": ["LEAD", "WINNER"]}
    else:
        grid = {"RUFF": ["COVER", "COUNT"]}
        if _led_throw(body):
            grid["THROW_RUFF"] = [v.name for v in ThrowRuffCompare]
    combos = [own]
    for values in product(*grid.values()):
        combo = {**own, **dict(zip(grid, values, strict=True))}
        if combo not in combos:
            combos.append(combo)
    return combos


def _led_throw(body: Body) -> bool:
    """Whether a trick's lead holds several faces (a throw, R3.5, or a tractor): R16.7 can matter only
    for a throw, and for a tractor it must not."""
    return len(set(body["plays"][0]["cards"])) > 1


def area_of(method: str, body: Body) -> str:
    """A golden's area by its request."""
    if method == "ResolveTrick":
        return "dig" if body.get("last_trick") else "ruff"
    plays = body.get("trick", {}).get("plays", [])
    if plays:
        return "follow"
    return "throw" if any(h.get("cards") for h in body.get("other_hands", [])) else "lead"


def combo_id(combo: dict[str, str], own: dict[str, str]) -> str:
    """A short label: ``own`` or the options that differ from the case's own."""
    changed = [f"{k}={v}" for k, v in combo.items() if own[k] != v]
    return ",".join(changed) or "own"


def ruleset(preset: str, combo: dict[str, str], seats: int, partners: str) -> Body:
    """A wire Ruleset: the preset, each pinned option the preset does not already give, and the table.
    Leaving out what the preset gives exercises the preset's own value as well as the override."""
    rules: Rules = PRESETS[preset]
    body: Body = {"preset": preset}
    for option, value in combo.items():
        field, prefix, _, attribute = OPTIONS[option]
        if getattr(rules, attribute).name != value:
            body[field] = prefix + value
    if seats != 4:
        body.update(decks=2, seats=seats)
    if partners == "FRIENDS":
        body["partners"] = "PARTNERS_FRIENDS"
    return body


# -------------------------------------------------------------------------------------------------
# seating a request at another table


@dataclass(frozen=True)
class Seating:
    """Where the original seats sit: ``seat_of[s]`` for an original seat s; ``back`` the inverse."""

    seats: int
    seat_of: dict[int, int]

    @property
    def back(self) -> dict[int, int]:
        return {v: k for k, v in self.seat_of.items()}


class DoesNotFitError(Exception):
    """The case does not fit this table (a hand past the hand size, no room for the discards)."""


def seat(
    method: str, body: Body, table: tuple[int, str], layout: str, ruleset_body: Body
) -> tuple[Body, Seating]:
    """``body`` (a four-seat request) at a table of ``seats``: the original plays in order, the extra
    seats' discards and hands, the hands cut to the hand size, the bottom to the bottom size, and under
    finding friends one call nobody can meet."""
    seats, partners = table
    body = copy.deepcopy(body)
    reader = Reader.of(body)
    if method == "ResolveTrick":
        old_leader = body.get("leader", 0)
    elif body.get("trick", {}).get("plays"):
        old_leader = body["trick"].get("leader", 0)
    else:
        old_leader = body.get("seat", 0)
    positions = LAYOUTS[layout] if seats > 4 else LAYOUTS["after"]
    leader = 0 if layout == "after" else seats - 1
    seat_of = {(old_leader + p) % 4: (leader + positions[p]) % seats for p in range(4)}
    extras = [(leader + p) % seats for p in range(seats) if p not in positions]
    seating = Seating(seats, seat_of)
    body["ruleset"] = ruleset_body
    if method == "ResolveTrick":
        _seat_trick(body, reader, seating, extras, leader)
        if body.get("last_trick") and "bottom" in body:
            body["bottom"] = _cut_bottom(body["bottom"], BOTTOM_SIZE[seats])
        if partners == "FRIENDS":
            if body["dealer"] != body["leader"]:  # R15.15: the dealer leads the first trick
                body["tricks_before"] = [_won_before(reader, body, seats)]
            used = used_cards(body)
            for _ in range(seats // 2 - 1):  # R15.2: FRIEND-CALLS' default, each call never met
                called = reader.callable_card(used)
                used[called] += 2
                body.setdefault("friend_calls", []).append({"card": called, "copy": 1})
            body.setdefault("tricks_before", [])
    else:
        _seat_play(body, reader, seating, extras, leader)
    return body, seating


def _won_before(reader: Reader, body: Body, seats: int) -> Body:
    """A finished trick of singles that the dealer leads and this trick's leader wins (R7.4), the other
    seats discarding: under finding friends a trick led by another seat needs the tricks before it."""
    pool = list(reader.discards(set(), used_cards(body)))
    dealer, leader = body["dealer"], body["leader"]
    for suit in "DCHS":
        own = sorted({c for c in pool if c[5] == suit}, key=lambda c: LOW_RANKS.index(c[6:]))
        rest = [c for c in pool if c[5] != suit]
        if len(own) >= 2 and len(rest) >= seats - 2:
            break
    else:
        raise DoesNotFitError("no cards left for the trick before")
    plays = []
    for i in range(seats):
        at = (dealer + i) % seats
        played = own[0] if at == dealer else own[-1] if at == leader else rest.pop(0)
        plays.append({"seat": at, "cards": [played]})
    return {"plays": plays, "winner": leader}


def _seat_trick(body: Body, reader: Reader, seating: Seating, extras: list[int], leader: int) -> None:
    plays = body["plays"]
    size = len(plays[0]["cards"])
    avoid = reader.categories(plays[0]["cards"])
    by_position = {}
    for play in plays:
        by_position[(seating.seat_of[play.get("seat", 0)] - leader) % seating.seats] = {
            "seat": seating.seat_of[play.get("seat", 0)],
            "cards": play["cards"],
        }
    used = used_cards(body)
    hands = {h.get("seat", 0): h for h in body.get("hands", [])}
    for extra in extras:
        pool = reader.discards(avoid, used)
        chosen = _take(pool, size)
        used.update(chosen)
        by_position[(extra - leader) % seating.seats] = {"seat": extra, "cards": chosen}
    body["plays"] = [by_position[p] for p in range(seating.seats)]
    body["leader"] = leader
    body["dealer"] = seating.seat_of[body.get("dealer", 0)]
    if hands:
        new_hands = [{"seat": seating.seat_of[s], "cards": h.get("cards", [])} for s, h in hands.items()]
        new_hands += [{"seat": p["seat"], "cards": p["cards"]} for p in body["plays"] if p["seat"] in extras]
        for hand in new_hands:
            play = next(p["cards"] for p in body["plays"] if p["seat"] == hand["seat"])
            hand["cards"] = _cut_hand(hand["cards"], play, reader, avoid, HAND_SIZE[seating.seats])
        body["hands"] = new_hands


def _seat_play(body: Body, reader: Reader, seating: Seating, extras: list[int], leader: int) -> None:
    """A ValidatePlay or ListLegalPlays request seated again: a follow gets the extra seats' discards
    that come before it; a lead gets the extra seats' hands."""
    limit = HAND_SIZE[seating.seats]
    trick = body.get("trick", {})
    plays = trick.get("plays", [])
    old_seat = body.get("seat", 0)
    body["seat"] = seating.seat_of[old_seat]
    if plays:  # a follow: the plays so far, with the extra seats that come before the follower
        avoid = reader.categories(plays[0]["cards"])
        size = len(plays[0]["cards"])
        mine = (body["seat"] - leader) % seating.seats
        by_position = {}
        for play in plays:
            new = seating.seat_of[play.get("seat", 0)]
            by_position[(new - leader) % seating.seats] = {"seat": new, "cards": play["cards"]}
        used = used_cards(body)
        for extra in extras:
            position = (extra - leader) % seating.seats
            if position < mine:
                pool = reader.discards(avoid, used)
                chosen = _take(pool, size)
                used.update(chosen)
                by_position[position] = {"seat": extra, "cards": chosen}
        body["trick"] = {"leader": leader, "plays": [by_position[p] for p in sorted(by_position)]}
        body["hand"] = _cut_hand(body["hand"], body.get("cards", []), reader, avoid, limit)
        return
    if "trick" in body:
        body["trick"] = {"leader": leader}
    avoid = reader.categories(body["cards"])
    others = [
        {
            "seat": seating.seat_of[h.get("seat", 0)],
            "cards": _cut_hand(h.get("cards", []), [], reader, avoid, limit),
        }
        for h in body.get("other_hands", [])
    ]
    body["hand"] = _cut_hand(body["hand"], body["cards"], reader, avoid, limit)
    if others:
        used = used_cards({**body, "other_hands": others})
        for extra in extras:
            pool = reader.discards(avoid, used)
            chosen = [c for c in (next(pool, None) for _ in range(2)) if c is not None]
            used.update(chosen)
            others.append({"seat": extra, "cards": chosen})
        body["other_hands"] = others


def _take(pool: Iterator[str], size: int) -> list[str]:
    """``size`` discards, or the case does not fit."""
    chosen = [c for _, c in zip(range(size), pool, strict=False)]
    if len(chosen) < size:
        raise DoesNotFitError("no room for the extra seats' discards")
    return chosen


def _cut_hand(hand: list[str], play: list[str], reader: Reader, keep: set[int], limit: int) -> list[str]:
    """R14.2: a hand within the table's hand size, dropping cards of other categories it does not play."""
    if len(hand) <= limit:
        return hand
    spare = Counter(hand) - Counter(play)
    drop = [c for c in spare.elements() if reader.category(c) not in keep]
    cut = Counter(hand) - Counter(drop[: len(hand) - limit])
    if sum(cut.values()) > limit:
        raise DoesNotFitError(f"a hand of {len(hand)} keeps more than {limit} cards that matter")
    kept = []
    for c in hand:
        if cut[c] > 0:
            kept.append(c)
            cut[c] -= 1
    return kept


def _cut_bottom(bottom: list[str], size: int) -> list[str]:
    """R14.2: the table's bottom size, keeping the point cards; a bottom with more point cards than that
    does not fit (its points, and so the dig, would change)."""
    if len(bottom) <= size:
        return bottom
    kept = sorted(bottom, key=lambda c: -points(c))[:size]
    if sum(map(points, kept)) != sum(map(points, bottom)):
        raise DoesNotFitError(f"the bottom's points do not fit in {size} cards")
    return kept


def choose_dealer(area: str, base: Body, winner: int) -> int:
    """The dealer (an original seat) that puts the winner on the same side under fixed partners and under
    finding friends: a dig's winner of the dealer's team is the dealer; else the dealer sits across."""
    if area == "dig":
        return winner if (winner - base["dealer"]) % 2 == 0 else base["dealer"]
    return (winner + 1) % 4


# -------------------------------------------------------------------------------------------------
# the answers


@dataclass(frozen=True)
class Refused:
    """INVALID_ARGUMENT naming these fields."""

    fields: tuple[str, ...]


Answer = Message | Refused
Caller = Callable[[str, Body], Answer]


def _components(components: Any) -> list[tuple[int, int, list[str]]]:
    return sorted((c.type, c.pairs, sorted(c.cards)) for c in components)


def project(method: str, answer: Answer, seating: Seating, base: Body) -> Any:
    """The parts of an answer that cannot depend on the table, in the original seats."""
    if isinstance(answer, Refused):
        return ("INVALID_ARGUMENT", answer.fields)
    back = seating.back
    if isinstance(answer, pb.ValidatePlayResponse):
        outcome = answer.throw_outcome
        return {
            "legal": answer.legal,
            "violation": types_pb2.Violation.Name(answer.violation),
            "required": _components(answer.required),
            "shape": types_pb2.Shape.Name(answer.shape),
            "components": _components(answer.components),
            "throw": (
                types_pb2.ThrowResult.Name(outcome.result),
                sorted(outcome.forced.cards),
                sorted(outcome.led),
                sorted(outcome.returned),
                all(e.seat in back for e in outcome.evidence),
            ),
        }
    if isinstance(answer, pb.ListLegalPlaysResponse):
        return {
            "plays": sorted((sorted(p.cards), p.shape) for p in answer.plays),
            "truncated": answer.truncated,
        }
    assert isinstance(answer, pb.ResolveTrickResponse)
    original = {p.seat: p for p in answer.plays if p.seat in back}
    winner = back.get(answer.winner, -1) if answer.legal else None
    found: dict[str, Any] = {
        "legal": answer.legal,
        "winner": winner,
        "won_by": pb.Judgement.Name(answer.won_by),
        "trick_points": answer.trick_points,
        "plays": {
            back[s]: (pb.Judgement.Name(p.judgement), p.checked, p.legal, p.violation)
            for s, p in original.items()
        },
        "bottom_points": answer.bottom_points,
    }
    dealer = base.get("dealer", 0)
    if winner is not None and (winner == dealer or (winner - dealer) % 2 == 1):  # the same side either way
        found.update(
            attacker_points=answer.attacker_points,
            dig_multiplier=answer.dig_multiplier,
            bottom_added=answer.bottom_added,
        )
    return found


# -------------------------------------------------------------------------------------------------
# the check


REQUESTS: dict[str, type[Message]] = {
    "ValidatePlay": pb.ValidatePlayRequest,
    "ResolveTrick": pb.ResolveTrickRequest,
    "ListLegalPlays": pb.ListLegalPlaysRequest,
}


@dataclass(frozen=True)
class Item:
    """One request to replay everywhere: a worked case or a golden, with the option combination."""

    id: str
    area: str
    method: str
    body: Body
    combo: dict[str, str]
    expect: Case | None = None
    """The worked case, checked against the rulebooks' table answer for its own options."""


def items(*, goldens: bool = True) -> list[Item]:
    """Every worked case of the play areas and every table-free golden, with each option combination."""
    found = []
    for case in cases_of_rulebook_table():
        method, body = base_request(case)
        own = own_options(case)
        for combo in axes(case["area"], method, body, own):
            label = combo_id(combo, own)
            found.append(
                Item(
                    f"{case['id']}-{label}",
                    case["area"],
                    method,
                    body,
                    combo,
                    case if label == "own" else None,
                )
            )
    for name in GOLDENS if goldens else ():
        method, request, _ = golden(name)
        own = golden_options(request)
        area = area_of(method, request)
        for combo in axes(area, method, request, own):
            found.append(Item(f"{name}-{combo_id(combo, own)}", area, method, request, combo))
    return found


def _dealt(item: Item, call: Caller) -> Body:
    """The base request with its dealer chosen from the rulebooks' table winner (worked cases only: a
    golden keeps its own, and :func:`project` leaves out what partners could change)."""
    if item.method != "ResolveTrick" or (item.expect is None and not item.id.startswith("WC-")):
        return item.body
    rules = ruleset("default", item.combo, 4, "FIXED")
    answer = call(item.method, {**item.body, "ruleset": rules})
    if not isinstance(answer, pb.ResolveTrickResponse) or not answer.legal:
        return item.body
    return {**item.body, "dealer": choose_dealer(item.area, item.body, answer.winner)}


def differences(
    item: Item,
    call: Caller,
    presets: tuple[str, ...] = PRESET_NAMES,
    tables: tuple[tuple[int, str], ...] = TABLES,
    layouts: tuple[str, ...] = tuple(LAYOUTS),
) -> tuple[list[str], int]:
    """Every (preset, table, layout) whose invariant answer differs from the rulebooks' table's for the
    same preset and options, and how many variants were sent."""
    base = _dealt(item, call)
    found, sent = [], 0
    for preset in presets:
        reference_body, seating = seat(
            item.method, base, (4, "FIXED"), "after", ruleset(preset, item.combo, 4, "FIXED")
        )
        reference = project(item.method, call(item.method, reference_body), seating, base)
        if item.expect is not None and preset == "default":
            found += _against_case(item.expect, reference)
        for seats, partners in tables:
            for layout in layouts:
                rules = ruleset(preset, item.combo, seats, partners)
                try:
                    body, seating = seat(item.method, base, (seats, partners), layout, rules)
                except DoesNotFitError:
                    continue
                got = project(item.method, call(item.method, body), seating, base)
                sent += 1
                if got != reference:
                    found.append(
                        f"{preset} {seats} seats {partners.lower()} {layout}: {describe_diff(reference, got)}"
                    )
    return found, sent


def describe_diff(want: Any, got: Any) -> str:
    if isinstance(want, dict) and isinstance(got, dict):
        keys = sorted(k for k in want.keys() | got.keys() if want.get(k) != got.get(k))
        return "; ".join(f"{k} {want.get(k)!r} -> {got.get(k)!r}" for k in keys)
    return f"{want!r} -> {got!r}"


def _against_case(case: Case, answer: Any) -> list[str]:
    """The rulebooks' table answer is the worked case's (CASES.md): a wrong reference would make every
    comparison meaningless."""
    expect, area = case["expect"], case["area"]
    if isinstance(answer, tuple):
        return [f"reference refused: {answer}"]
    if area == "lead":
        ok = answer["shape"] == f"SHAPE_{expect['shape'].upper()}"
    elif area == "throw":
        ok = (
            (answer["throw"][0] != "THROW_RESULT_FAILED") == expect["ok"]
            if answer["legal"]
            else not expect["ok"]
        )
    elif area == "follow":
        ok = answer["legal"] == expect["legal"]
    elif area == "dig":
        ok = (
            answer["winner"] == int(expect["winner"][1:]) - 1
            and answer["trick_points"] == expect["trick_points"]
        )
    else:
        ok = answer["winner"] == int(expect["winner"][1:]) - 1 and answer["trick_points"] == expect["points"]
    return [] if ok else [f"the rulebooks' table answer is not the worked case's: {answer}"]
