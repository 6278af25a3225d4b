"""Requests on any table (R14, R15): the turn, the trick with its sides, the hand's settlement, and what
stays on the rulebooks' table (R14.10).

The service asks :func:`rules_core.rules.on_rulebook_table` once per request: a two-deck, four-seat
table with fixed partners takes today's modules (``turn``, ``trick``, ``taodou``) unchanged; every
other table comes here. The functions take the request's arguments as they arrive (seated plays,
recorded tricks) and name their fields as the request spells them (``trick.plays[1].cards``,
``tricks_before[2].winner``, ``seat_levels[3]``).

>>> from dataclasses import replace
>>> from rules_core.rules import DEFAULT_RULES, Partners, on_rulebook_table
>>> on_rulebook_table(DEFAULT_RULES), on_rulebook_table(replace(DEFAULT_RULES, partners=Partners.FRIENDS))
(True, False)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from rules_core.cards import NUM_FACES
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.friends import (
    CallState,
    FriendCall,
    Play,
    SidesAfter,
    TableSettlement,
    Trick,
    replay_sides,
    settle_table,
)
from rules_core.rules import MAX_DECKS, MAX_SEATS, MIN_DECKS, MIN_SEATS, Partners, Rules
from rules_core.seating import SeatCards, check_next
from rules_core.settlement import FailedThrow, hand_size
from rules_core.shapes import Decomposition, decompose
from rules_core.table import Counter, table_follow, table_lead, table_sizes, table_trick
from rules_core.trick import TrickResult
from rules_core.trump import TrumpContext
from rules_core.tuples import decompose_wide
from rules_core.turn import PlayVerdict
from rules_core.verdicts import Illegal, Legal

MAX_TABLE_CARDS: Final = NUM_FACES * MAX_DECKS
"""R14.1: the cards of the largest table (four decks): a bound on a whole hand record's cards."""
MAX_TABLE_SEATS: Final = MAX_SEATS
"""R14: the most seats of any table."""
MAX_TABLE_HAND: Final = max(
    table_sizes(decks, seats)[0]
    for decks in range(MIN_DECKS, MAX_DECKS + 1)
    for seats in range(MIN_SEATS, MAX_SEATS + 1)
)
"""R14.2: the largest hand of any table (52: four decks, four seats); a play is at most a hand."""
MAX_TABLE_BOTTOM: Final = max(
    table_sizes(decks, seats)[1]
    for decks in range(MIN_DECKS, MAX_DECKS + 1)
    for seats in range(MIN_SEATS, MAX_SEATS + 1)
)
"""R14.2: the largest bottom of any table (12)."""
MAX_TABLE_TRICKS: Final = MAX_TABLE_HAND
"""R15.15: the most tricks of any hand: one card each from the largest hand."""

RecordedTrick = tuple[tuple[SeatCards, ...], int | None]
"""A recorded trick as a request gives it: its seated plays in play order and its winner (None: absent)."""


# ------------------------------------------------------------------------------------------------
# ValidatePlay


def _seat(seat: int, path: str, seats: int) -> int:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < seats:
        raise InvalidArgumentError(path, Problem.OUT_OF_RANGE, f"seat {seat} is out of range 0..{seats - 1}")
    return seat


def _sized(cards: Sequence[int], path: str, rules: Rules, low: int = 1) -> None:
    """R14.2: a hand holds ``low`` to the table's hand size cards (17 at two decks and six seats)."""
    high = hand_size(rules)
    if not low <= len(cards) <= high:
        raise InvalidArgumentError(
            path, Problem.BAD_SIZE, f"a hand here holds {low} to {high} cards, got {len(cards)}"
        )


def shape_of(ctx: TrumpContext, rules: Rules, cards: Sequence[int]) -> Decomposition | None:
    """A play's decomposition on the table's decks (R3.6, R14.3); None for no cards."""
    if not cards:
        return None
    return decompose(ctx, cards) if rules.decks == 2 else decompose_wide(ctx, cards)


def validate_table_play(
    ctx: TrumpContext,
    rules: Rules,
    *,
    seat: int,
    hand: Sequence[int],
    trick_leader: int | None,
    trick_plays: Sequence[SeatCards],
    cards: Sequence[int],
    others: Sequence[SeatCards],
) -> PlayVerdict:
    """R4 and R5 on the ruleset's table (R14.4–R14.6): the turn order of N seats, then a lead (a throw
    judged against ``others``) or a follow of the trick's lead."""
    n = rules.seats
    _seat(seat, "seat", n)
    _sized(hand, "hand", rules)
    leader = _seat(trick_leader or 0, "trick.leader", n)
    shape = shape_of(ctx, rules, cards)
    if not trick_plays:
        if trick_leader is not None and leader != seat:
            raise InvalidArgumentError(
                "trick.leader", Problem.OUT_OF_ORDER, f"seat {seat} leads, but the trick's leader is {leader}"
            )
        return PlayVerdict(_lead(ctx, rules, seat, hand, cards, others, shape), shape)
    if len(trick_plays) >= n:
        raise InvalidArgumentError(
            "trick.plays", Problem.BAD_SIZE, f"the trick is complete: it has {len(trick_plays)} plays"
        )
    deck = Counter(rules.decks)  # R14.1: the hand and the trick so far share D copies of a face
    deck.add(hand, "hand")
    for i, (played, faces) in enumerate(trick_plays):
        deck.add(faces, f"trick.plays[{i}].cards")
        if played != (leader + i) % n:
            raise InvalidArgumentError(
                f"trick.plays[{i}].seat", Problem.OUT_OF_ORDER, f"seat {(leader + i) % n} plays here"
            )
        if not faces or len(faces) != len(trick_plays[0][1]):
            raise InvalidArgumentError(
                f"trick.plays[{i}].cards", Problem.BAD_SIZE, "every play of a trick has the lead's size"
            )
    check_next(seat, leader, len(trick_plays), n)
    verdict = table_follow(ctx, rules, hand=hand, lead=trick_plays[0][1], play=cards)
    return PlayVerdict(verdict, shape)


def _lead(  # noqa: PLR0917 (one private step of validate_table_play)
    ctx: TrumpContext,
    rules: Rules,
    seat: int,
    hand: Sequence[int],
    cards: Sequence[int],
    others: Sequence[SeatCards],
    shape: Decomposition | None,
) -> Legal | Illegal:
    """R4 (R14.5): a lead; a throw needs every other seat's hand."""
    held = {}
    for i, (other, faces) in enumerate(others):
        _seat(other, f"other_hands[{i}].seat", rules.seats)
        if other == seat or other in held:
            raise InvalidArgumentError(
                f"other_hands[{i}].seat",
                Problem.OUT_OF_ORDER,
                f"seat {other} is listed twice or is the leader",
            )
        _sized(faces, f"other_hands[{i}].cards", rules, low=0)
        held[other] = faces
    throw = shape is not None and shape.category is not None and len(shape.components) > 1
    if not throw and not held:  # R4.2: one component is always a legal lead; no other hand can change it
        held = {other: () for other in range(rules.seats) if other != seat}
    if throw and len(held) != rules.seats - 1:
        raise InvalidArgumentError(
            "other_hands",
            Problem.MISSING,
            f"a throw is judged against the other {rules.seats - 1} hands (R4.4, R14.5): give their cards",
        )
    return table_lead(ctx, rules, hand=hand, lead=cards, others=held)


# ------------------------------------------------------------------------------------------------
# ResolveTrick


@dataclass(frozen=True, slots=True)
class TableTrick:
    """A trick on any table: its result, its checks, and the sides after it (finding friends)."""

    leader: int
    result: TrickResult | None
    checks: tuple[Legal | Illegal, ...]
    problem: str
    sides: SidesAfter | None
    """The sides and the calls after this trick (R15.8; fixed partners: every other seat); None when the
    trick is not resolved."""


def _tricks(records: Sequence[RecordedTrick], path: str) -> tuple[Trick, ...]:
    """Recorded tricks as R15's: a winner is required on each (R15.15)."""
    tricks = []
    for t, (plays, winner) in enumerate(records):
        if winner is None:
            raise InvalidArgumentError(f"{path}[{t}].winner", Problem.MISSING, "each trick names its winner")
        tricks.append(Trick(tuple(Play(seat, tuple(cards)) for seat, cards in plays), winner))
    return tuple(tricks)


def _ruleset(error: InvalidArgumentError) -> InvalidArgumentError:
    """R15.1: a table its partners cannot seat is the ruleset's fault (``ruleset.partners``)."""
    return _renamed(error, "partners", "ruleset.partners")


def _renamed(error: InvalidArgumentError, old: str, new: str) -> InvalidArgumentError:
    """The same error with the path prefix ``old`` spelled ``new`` (the request's own field names)."""
    if error.argument.startswith(old):
        return InvalidArgumentError(new + error.argument[len(old) :], error.problem, error.message)
    return error


def resolve_table_trick(
    ctx: TrumpContext,
    rules: Rules,
    *,
    leader: int,
    plays: Sequence[SeatCards],
    dealer: int,
    last: bool,
    bottom: Sequence[int],
    hands: Sequence[SeatCards],
    calls: Sequence[FriendCall],
    before: Sequence[RecordedTrick],
) -> TableTrick:
    """R7, R8 on the table (R14.8, R14.9); under finding friends the attackers are the seats off the
    dealer's side after this trick (R15.8), found from the calls and the tricks before it."""
    n = rules.seats
    _seat(leader, "leader", n)
    if len(plays) != n:
        raise InvalidArgumentError("plays", Problem.BAD_SIZE, f"a trick has {n} plays, got {len(plays)}")
    for i, (seat, _) in enumerate(plays):
        if seat != (leader + i) % n:
            raise InvalidArgumentError(
                f"plays[{i}].seat", Problem.OUT_OF_ORDER, f"seat {(leader + i) % n} plays here"
            )
    cards = [tuple(faces) for _, faces in plays]
    checks = _check_plays(ctx, rules, leader, cards, hands) if hands else ()
    problem = _problem(checks, leader, n)
    friends = rules.partners is Partners.FRIENDS
    earlier = _tricks(before, "tricks_before")
    try:  # R15.1-R15.4, R15.15: the calls fit the table and the tricks before are a hand's
        replay_sides(rules, ctx, dealer, calls, earlier)
    except InvalidArgumentError as error:
        raise _ruleset(_renamed(error, "tricks", "tricks_before")) from None
    if problem:
        return TableTrick(leader, None, checks, problem, None)
    if not friends and not earlier:  # fixed partners need no record: every other seat from the dealer
        fixed = frozenset((dealer + k) % n for k in range(0, n, 2))
        result = table_trick(ctx, rules, leader=leader, plays=cards, dealer=dealer, last=last, bottom=bottom)
        return TableTrick(leader, result, checks, "", SidesAfter(fixed, (), 0))
    probe = table_trick(ctx, rules, leader=leader, plays=cards, dealer=dealer, attackers=frozenset())
    current = Trick(tuple(Play(seat, tuple(faces)) for seat, faces in plays), probe.winner)
    try:  # R15.15: the record runs from the dealer's lead, each trick led by the last one's winner
        sides = replay_sides(rules, ctx, dealer, calls, (*earlier, current))[-1]
    except InvalidArgumentError as error:
        raise _renamed(error, f"tricks[{len(earlier)}].", "") from None
    attackers = frozenset(range(n)) - sides.dealer_side if friends else None
    result = table_trick(
        ctx, rules, leader=leader, plays=cards, dealer=dealer, last=last, bottom=bottom, attackers=attackers
    )
    return TableTrick(leader, result, checks, "", sides)


def _check_plays(
    ctx: TrumpContext, rules: Rules, leader: int, plays: Sequence[Sequence[int]], hands: Sequence[SeatCards]
) -> tuple[Legal | Illegal, ...]:
    """R4, R5 on the table: the lead against the other hands, then each follow (none after a bad lead)."""
    n = rules.seats
    held: dict[int, Sequence[int]] = {}
    for i, (seat, faces) in enumerate(hands):
        _seat(seat, f"hands[{i}].seat", n)
        if seat in held:
            raise InvalidArgumentError(
                f"hands[{i}].seat", Problem.OUT_OF_ORDER, f"seat {seat} is listed twice"
            )
        _sized(faces, f"hands[{i}].cards", rules)
        held[seat] = faces
    if len(held) != n:
        raise InvalidArgumentError("hands", Problem.BAD_SIZE, f"give all {n} hands or none")
    others = {s: held[s] for s in range(n) if s != leader}
    lead = table_lead(ctx, rules, hand=held[leader], lead=plays[0], others=others)
    if isinstance(lead, Illegal):
        return (lead,)
    follows = tuple(
        table_follow(ctx, rules, hand=held[(leader + i) % n], lead=plays[0], play=plays[i])
        for i in range(1, n)
    )
    return (lead, *follows)


def _problem(checks: Sequence[Legal | Illegal], leader: int, seats: int) -> str:
    """Why a checked trick cannot be resolved, or "" when every play is legal and the lead stands."""
    for i, verdict in enumerate(checks):
        if isinstance(verdict, Illegal):
            return f"seat {(leader + i) % seats}'s play is illegal: {verdict.message}"
    if checks:
        lead = checks[0]
        if isinstance(lead, Legal) and lead.throw is not None and not lead.throw.succeeded:
            return "the lead is a throw that fails (R4.7): only its forced component is led"
    return ""


# ------------------------------------------------------------------------------------------------
# SettleHand


def settle_table_hand(
    rules: Rules,
    ctx: TrumpContext,
    *,
    dealer: int,
    levels: Sequence[int],
    calls: Sequence[FriendCall],
    tricks: Sequence[RecordedTrick],
    dig_points: int,
    failed_throws: Sequence[FailedThrow],
) -> tuple[TableSettlement, tuple[CallState, ...]]:
    """R15.8–R15.13 for a SettleHand request on any table, and every call's state at the end; the seats'
    levels are ``seat_levels``."""
    played = _tricks(tricks, "tricks")
    try:
        settled = settle_table(
            rules,
            ctx,
            dealer=dealer,
            levels=levels,
            calls=calls,
            tricks=played,
            dig_points=dig_points,
            failed_throws=failed_throws,
        )
    except InvalidArgumentError as error:
        raise _ruleset(_renamed(error, "levels", "seat_levels")) from None
    return settled, replay_sides(rules, ctx, dealer, calls, played)[-1].calls
