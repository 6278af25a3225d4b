"""The table's shape (R14): D decks and N seats; the entry points that take it from the ruleset.

``rules.decks`` and ``rules.seats`` choose the code: the two-deck table goes to the two-deck modules
(``throw``, ``follow``, ``trick``) unchanged, so its answers and its hot path are today's; any other
table is checked here (copies ≤ D, hand and bottom sizes of R14.2, N plays) and judged by
:mod:`rules_core.tuples`.

>>> [table_sizes(2, 4), table_sizes(3, 5), table_sizes(4, 8)]
[(25, 8), (31, 7), (26, 8)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rules_core.cards import NUM_FACES, POINTS, Hand, faces_of, format_card, format_cards, remove
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.follow import check_follow
from rules_core.kitty import BuryResult, validate_bury
from rules_core.rules import DigShape, FollowRule, Rules
from rules_core.shapes import Decomposition
from rules_core.throw import check_lead
from rules_core.trick import Dig, Judgement, TrickResult, resolve_trick
from rules_core.trump import TRUMP, TrumpContext
from rules_core.tuples import (
    NO_KEY,
    beats_in_category,
    decompose_wide,
    dig_exponent,
    follow_wide,
    lead_wide,
    ruff_key_wide,
)
from rules_core.verdicts import Illegal, Legal, Violation

MIN_BOTTOM = 5
"""R14.2: the bottom's minimum (rbtying/shengji's default kitty)."""


def table_sizes(decks: int, seats: int) -> tuple[int, int]:
    """R14.2: (hand size, bottom size): the bottom makes the hands equal, and holds at least 5 cards."""
    total = NUM_FACES * decks
    bottom = total % seats or seats
    if bottom < MIN_BOTTOM:
        bottom += seats
    return (total - bottom) // seats, bottom


def total_points(decks: int) -> int:
    """R14.9: 100 points per deck (R8.1)."""
    return 100 * decks


def is_default(rules: Rules) -> bool:
    """The rulebooks' table: two decks, four seats (R0–R13)."""
    return rules.decks == 2 and rules.seats == 4


class Counter:
    """The cards of one request counted across its arguments against D copies a face (R14.1)."""

    __slots__ = ("_counts", "_decks")

    def __init__(self, decks: int) -> None:
        self._counts = [0] * NUM_FACES
        self._decks = decks

    def add(self, faces: Sequence[int], path: str) -> Hand:
        """Count an argument's cards; its own count vector. Raises at a copy past D or an unknown face."""
        own = [0] * NUM_FACES
        for i, face in enumerate(faces):
            if isinstance(face, bool) or not isinstance(face, int) or not 0 <= face < NUM_FACES:
                raise InvalidArgumentError(f"{path}[{i}]", Problem.UNKNOWN_VALUE, f"unknown face {face!r}")
            own[face] += 1
            self._counts[face] += 1
            if self._counts[face] > self._decks:
                raise InvalidArgumentError(
                    f"{path}[{i}]",
                    Problem.TOO_MANY_COPIES,
                    f"more than {self._decks} copies of {format_card(face)}: {self._decks} decks (R14.1)",
                )
        return tuple(own)


def _check_hand(faces: Sequence[int], path: str, rules: Rules, low: int = 1) -> None:
    """A hand holds low..the table's hand size cards (R14.2)."""
    high = table_sizes(rules.decks, rules.seats)[0]
    if not low <= len(faces) <= high:
        raise InvalidArgumentError(
            path, Problem.BAD_SIZE, f"a hand holds {low} to {high} cards, got {len(faces)}"
        )


def _check_seat(seat: int, path: str, seats: int) -> int:
    if isinstance(seat, bool) or not 0 <= seat < seats:
        raise InvalidArgumentError(path, Problem.OUT_OF_RANGE, f"seat {seat} is out of range 0..{seats - 1}")
    return seat


def table_lead(
    ctx: TrumpContext,
    rules: Rules,
    *,
    hand: Sequence[int],
    lead: Sequence[int],
    others: Mapping[int, Sequence[int]],
) -> Legal | Illegal:
    """R4 on the ruleset's table: ``hand`` and ``lead`` are faces, ``others`` each other seat's faces."""
    if rules.decks == 2:
        counter = Counter(2)
        held = counter.add(hand, "hand")
        rest = {s: counter.add(c, f"other_hands[{s}]") for s, c in sorted(others.items())}
        return check_lead(ctx, rules, hand=held, lead=lead, others=rest)
    counter = Counter(rules.decks)
    _check_hand(hand, "hand", rules)
    held = counter.add(hand, "hand")
    Counter(rules.decks).add(lead, "cards")  # the lead is part of the hand: counted on its own
    if len(others) != rules.seats - 1:  # R14.5: a throw is checked against every other hand
        raise InvalidArgumentError(
            "other_hands", Problem.MISSING, f"give the other {rules.seats - 1} hands, got {len(others)}"
        )
    rest = {}
    for seat, cards in sorted(others.items()):
        _check_seat(seat, "other_hands.seat", rules.seats)
        _check_hand(cards, f"other_hands[{seat}]", rules, low=0)
        rest[seat] = counter.add(cards, f"other_hands[{seat}]")
    return lead_wide(ctx, rules, hand=held, lead=lead, others=rest)


def table_follow(
    ctx: TrumpContext, rules: Rules, *, hand: Sequence[int], lead: Sequence[int], play: Sequence[int]
) -> Legal | Illegal:
    """R5 on the ruleset's table: ``play`` from ``hand`` (faces) on the cards ``lead``."""
    structure = rules.follow is FollowRule.STRUCTURE
    counter = Counter(rules.decks)
    if not is_default(rules):
        _check_hand(hand, "hand", rules)
    held = counter.add(hand, "hand")
    counter.add(lead, "lead")
    Counter(rules.decks).add(play, "cards")
    if rules.decks == 2:
        return check_follow(ctx, hand=held, lead=lead, play=play, structure=structure)
    led = decompose_wide(ctx, lead)
    if led.category is None:
        raise InvalidArgumentError(
            "lead", Problem.INCONSISTENT, "the lead must be non-empty cards of one category"
        )
    return follow_wide(ctx, hand=held, led=led, play=play, structure=structure)


def attacking(seat: int, dealer: int, seats: int, attackers: frozenset[int] | None) -> bool:
    """R14.9: the sides given (R15), else fixed partners: every other seat from the dealer (even N)."""
    if attackers is not None:
        return seat in attackers
    if seats % 2:
        raise InvalidArgumentError(
            "attackers",
            Problem.MISSING,
            f"a table of {seats} seats has sides only from finding friends (R15)",
        )
    return (seat - dealer) % 2 == 1


def table_trick(
    ctx: TrumpContext,
    rules: Rules,
    *,
    leader: int,
    plays: Sequence[Sequence[int]],
    dealer: int,
    last: bool = False,
    bottom: Sequence[int] = (),
    attackers: frozenset[int] | None = None,
) -> TrickResult:
    """R7 and R8 on the ruleset's table: N plays in play order from ``leader``; ``attackers`` the seats of
    the attacking side when finding friends set them (R15), else fixed partners."""
    if is_default(rules) and attackers is None:
        return resolve_trick(ctx, rules, leader=leader, plays=plays, dealer=dealer, last=last, bottom=bottom)
    n = rules.seats
    _check_seat(leader, "leader", n)
    _check_seat(dealer, "dealer", n)
    if len(plays) != n:
        raise InvalidArgumentError("plays", Problem.BAD_SIZE, f"a trick has {n} plays, got {len(plays)}")
    counter = Counter(rules.decks)
    for i, play in enumerate(plays):
        counter.add(play, f"plays[{i}].cards")
        if len(play) != len(plays[0]) or not play:
            raise InvalidArgumentError(
                f"plays[{i}].cards", Problem.BAD_SIZE, f"every play has the lead's {len(plays[0])} cards"
            )
    if last or bottom:
        size = table_sizes(rules.decks, rules.seats)[1]
        if len(bottom) != size:
            raise InvalidArgumentError("bottom", Problem.BAD_SIZE, f"the bottom holds exactly {size} cards")
        counter.add(bottom, "bottom")
    lead = decompose_wide(ctx, plays[0])
    if lead.category is None:
        raise InvalidArgumentError(
            "plays[0].cards", Problem.INCONSISTENT, f"{format_cards(plays[0])} is not a lead of one category"
        )
    judgements, best = judge_wide(ctx, lead, plays)
    winner = (leader + best) % n
    points = sum(POINTS[face] for play in plays for face in play)
    dig = None
    if last:
        bottom_points = sum(POINTS[face] for face in bottom)
        if attacking(winner, dealer, n, attackers):
            shape = lead if rules.dig_shape is DigShape.LEAD else decompose_wide(ctx, plays[best])
            multiplier = 1 << dig_exponent(rules, shape)
            dig = Dig(bottom_points, multiplier, bottom_points * multiplier)
        else:
            dig = Dig(bottom_points, None, 0)
    gained = points + (dig.added if dig else 0) if attacking(winner, dealer, n, attackers) else 0
    return TrickResult(winner, points, gained, judgements, judgements[best], dig)


def judge_wide(
    ctx: TrumpContext, lead: Decomposition, plays: Sequence[Sequence[int]]
) -> tuple[tuple[Judgement, ...], int]:
    """R7.1 with R14.8 over every play: each judgement and the index of the winning play."""
    category = lead.category
    best, key, ruffed = 0, lead.components[0].top if len(lead.components) == 1 else 0, False
    judgements = [Judgement.LEAD]
    for i, play in enumerate(plays[1:], start=1):
        judgement = Judgement.DISCARD
        if all(ctx.category[face] == category for face in play):
            follow = decompose_wide(ctx, play)
            top = follow.components[0].top
            judgement = Judgement.FOLLOW
            if beats_in_category(lead, follow) and not ruffed and top > key:
                judgement, best, key = Judgement.BEAT, i, top
        elif category != TRUMP:
            ruff = ruff_key_wide(ctx, lead, play)
            if ruff != NO_KEY:
                if not ruffed:
                    judgement, best, key, ruffed = Judgement.RUFF, i, ruff, True
                elif ruff > key:
                    judgement, best, key = Judgement.OVER_RUFF, i, ruff
                else:
                    judgement = Judgement.UNDER_RUFF
        judgements.append(judgement)
    return tuple(judgements), best


def table_bury(rules: Rules, *, hand: Sequence[int], bury: Sequence[int]) -> BuryResult:
    """R11 with R14.2: the dealer holds a hand plus the bottom and buries exactly the bottom's size."""
    if is_default(rules):
        return validate_bury(hand=hand, bury=bury)
    size, bottom = table_sizes(rules.decks, rules.seats)
    if len(hand) != size + bottom:
        raise InvalidArgumentError(
            "hand", Problem.BAD_SIZE, f"the dealer buries from {size + bottom} cards (R14.2), got {len(hand)}"
        )
    held = Counter(rules.decks).add(hand, "hand")
    buried = Counter(rules.decks).add(bury, "bury")
    if len(bury) != bottom:
        message = f"buried {len(bury)} cards; exactly {bottom} are buried (R14.2)"
        return BuryResult(legal=False, reason=Violation.WRONG_CARD_COUNT, message=message)
    missing = [face for face in range(NUM_FACES) for _ in range(buried[face] - held[face])]
    if missing:
        message = f"{format_cards(missing)} not in the dealer's hand"
        return BuryResult(legal=False, reason=Violation.CARDS_NOT_IN_HAND, message=message)
    return BuryResult(legal=True, remaining=remove(held, bury), bottom=faces_of(buried))
