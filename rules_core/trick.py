"""Trick resolution, points and digging the bottom (R7, R8).

The winner is found in one pass over the plays (R7.1): a same-category follow of the lead's exact
single-component shape wins with a strictly stronger top; a valid ruff of a plain lead takes the trick
from in-category plays and is over-ruffed only by a strictly stronger key; everything else (discards,
mixed plays, structure mismatches) cannot win. Ties go to the earlier play (R7.3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from rules_core.cards import (
    PLAYERS,
    POINTS,
    Deck,
    Hand,
    check_copies,
    check_size,
    deal_sizes,
    format_cards,
    hand_of,
)
from rules_core.component import width
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.follow import follow_verdict
from rules_core.friends import FriendCall, Play, SidesAfter, Trick, replay_sides
from rules_core.overruff import beats, throw_ruff_key
from rules_core.ruffing import NO_KEY, ruff_key
from rules_core.rules import DigMultiplier, DigShape, Partners, Rules, ThrowRuffCompare
from rules_core.seating import SeatCards, by_seat, in_turn, seat_in_range, table_plays
from rules_core.shapes import Decomposition, decompose
from rules_core.throw import check_lead
from rules_core.trump import TRUMP, TrumpContext
from rules_core.verdicts import Illegal, Legal


class Judgement(StrEnum):
    """How one play of a trick was judged (R7.1)."""

    LEAD = "LEAD"
    """The first play of the trick."""
    BEAT = "BEAT"
    """A same-category follow of the lead's shape with a stronger top: it took the trick over."""
    FOLLOW = "FOLLOW"
    """An in-category follow that did not take the trick (weaker, tied, or not the lead's shape)."""
    RUFF = "RUFF"
    """A valid ruff that took the trick from the in-category plays (R6.4)."""
    OVER_RUFF = "OVER_RUFF"
    """A valid ruff with a strictly stronger key than the ruff before it (R6.5)."""
    UNDER_RUFF = "UNDER_RUFF"
    """A valid ruff whose key did not beat the earlier ruff (equal keys go to the earlier, R7.3)."""
    DISCARD = "DISCARD"
    """Off-category, mixed, or trumps without the lead's structure: can never win (R5.2, R6.3)."""


@dataclass(frozen=True, slots=True)
class Dig:
    """The bottom's contribution when the last trick is settled (R8.3–R8.5)."""

    bottom_points: int
    """Point value of the buried cards."""
    multiplier: int | None
    """The dig multiplier, or None when the dealer team protected the bottom (保底)."""
    added: int
    """What the bottom adds to the attackers' score: bottom points × multiplier, or 0."""


@dataclass(frozen=True, slots=True)
class TrickResult:
    """The outcome of one trick."""

    winner: int
    """The seat (0..3) that takes the trick and leads the next (R7.4)."""
    points: int
    """Point value of all cards in the trick (R8.2)."""
    attacker_points: int
    """Points this trick adds to the attackers' score: its points (and any dig) if they won it, else 0."""
    judgements: tuple[Judgement, ...]
    """How each play was judged, in play order (the leader's first)."""
    won_by: Judgement
    """The judgement of the winning play (LEAD, BEAT, RUFF or OVER_RUFF)."""
    dig: Dig | None
    """The bottom's contribution; only for the last trick."""


def is_attacker(seat: int, dealer: int) -> bool:
    """Whether ``seat`` is on the attacking side when ``dealer`` deals (partners sit opposite, R1.5)."""
    return (seat - dealer) % 2 == 1


def resolve_trick(
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
    """Decide a trick of one play per seat in play order, starting with ``leader`` (R7, R8, R14.8, R14.9);
    ``attackers`` are the attacking seats when finding friends set them (R15.8), else fixed partners.

    Raises InvalidArgumentError for a malformed trick: not one play per seat, plays of unequal size, or a
    lead that mixes categories (such a lead can never be on the table, R4.3).
    """
    seats = rules.seats
    if len(plays) != seats:
        raise InvalidArgumentError("plays", Problem.BAD_SIZE, f"a trick has {seats} plays, got {len(plays)}")
    first = plays[0]
    if not first or len(set(map(ctx.category.__getitem__, first))) != 1:
        raise InvalidArgumentError(
            "plays[0].cards",
            Problem.INCONSISTENT,
            f"plays[0]: {format_cards(plays[0])} is not a lead of one category",
        )
    for i, play in enumerate(plays[1:], start=1):
        if len(play) != len(plays[0]):
            raise InvalidArgumentError(
                f"plays[{i}].cards",
                Problem.BAD_SIZE,
                f"plays[{i}]: {len(play)} cards follow a lead of {len(plays[0])}",
            )
    judgements, best, lead = _judge(ctx, rules, plays)
    winner = (leader + best) % seats
    points = sum(POINTS[face] for play in plays for face in play)
    attack = (winner - dealer) % 2 == 1 if attackers is None else winner in attackers  # R1.5, R14.9, R15.8
    dig = None
    if last:
        dig = _dig(
            ctx=ctx,
            rules=rules,
            lead=decompose(ctx, first) if lead is None else lead,
            winning_play=plays[best],
            attack=attack,
            bottom=bottom,
        )
    attacker_points = points + (dig.added if dig else 0) if attack else 0
    return TrickResult(winner, points, attacker_points, judgements, judgements[best], dig)


@dataclass(frozen=True, slots=True)
class Standing:
    """Who is winning a trick so far (R7.1): the winning play's index, its key, and whether it is a ruff."""

    best: int
    key: int
    """The winning play's top, or its ruff key: R6.6's, or under THROW-RUFF a throw's (R16.7)."""
    ruffed: bool


def opening(lead: Decomposition) -> Standing:
    """The standing after the lead alone: a single-component lead holds its top as the key; a throw has
    no key, since a same-category follow never beats it (R7.2)."""
    return Standing(0, lead.components[0].top if len(lead.components) == 1 else 0, False)


def judge_play(
    ctx: TrumpContext, rules: Rules, lead: Decomposition, standing: Standing, play: Sequence[int]
) -> tuple[Judgement, int]:
    """R7.1 for one follow against the standing: its judgement and, when it takes the trick (BEAT, RUFF,
    OVER_RUFF), its key (else NO_KEY). The one place R7's comparison is written; a search calls it for
    every simulated play, so singles and pairs skip the decomposition."""
    category = lead.category
    single = len(lead.components) == 1
    if single and len(play) <= 2:
        face = play[0]
        if len(play) == 2 and play[1] != face:  # two unequal cards: never the pair's shape, nor a ruff
            return (
                Judgement.FOLLOW
                if ctx.category[face] == category == ctx.category[play[1]]
                else Judgement.DISCARD
            ), NO_KEY
        strength = ctx.strength[face]
        if ctx.category[face] == category:
            if not standing.ruffed and strength > standing.key:
                return Judgement.BEAT, strength
            return Judgement.FOLLOW, NO_KEY
        if ctx.category[face] != TRUMP or category == TRUMP:
            return Judgement.DISCARD, NO_KEY
        ruff = strength  # R6.6: a single or pair ruff's key is its own strength
    elif all(ctx.category[face] == category for face in play):
        follow = decompose(ctx, play)
        comp = follow.components
        same_shape = single and len(comp) == 1 and comp[0].pairs == lead.components[0].pairs
        if same_shape and not standing.ruffed and comp[0].top > standing.key:
            return Judgement.BEAT, comp[0].top
        return Judgement.FOLLOW, NO_KEY
    elif category == TRUMP:
        return Judgement.DISCARD, NO_KEY
    elif single or rules.throw_ruff_compare is ThrowRuffCompare.R6_6:
        ruff = ruff_key(ctx, rules, lead, play)
    else:  # R16.7: a throw's ruffs under a house rule (one check per play, only on this path)
        return _house_ruff(ctx, rules, lead, standing, play)
    if ruff == NO_KEY:
        return Judgement.DISCARD, NO_KEY
    if not standing.ruffed:
        return Judgement.RUFF, ruff
    if ruff > standing.key:
        return Judgement.OVER_RUFF, ruff
    return Judgement.UNDER_RUFF, NO_KEY


def _house_ruff(
    ctx: TrumpContext, rules: Rules, lead: Decomposition, standing: Standing, play: Sequence[int]
) -> tuple[Judgement, int]:
    """R16.7: a ruff of a throw judged under THROW-RUFF; validity and the first ruff are R6's."""
    ruff = throw_ruff_key(ctx, rules, lead, play)
    if ruff == NO_KEY:
        return Judgement.DISCARD, NO_KEY
    if not standing.ruffed:
        return Judgement.RUFF, ruff
    if beats(ctx, rules, lead, ruff, standing.key):
        return Judgement.OVER_RUFF, ruff
    return Judgement.UNDER_RUFF, NO_KEY


TAKES: frozenset[Judgement] = frozenset({Judgement.BEAT, Judgement.RUFF, Judgement.OVER_RUFF})
"""The judgements of a follow that takes the trick over."""


def advance(
    ctx: TrumpContext,
    rules: Rules,
    lead: Decomposition,
    standing: Standing,
    play: Sequence[int],
    *,
    index: int,
) -> Standing:
    """The standing after play number ``index`` (R7.1; ties go to the earlier play, R7.3)."""
    judgement, key = judge_play(ctx, rules, lead, standing, play)
    return Standing(index, key, judgement is not Judgement.BEAT) if judgement in TAKES else standing


def standing_of(ctx: TrumpContext, rules: Rules, plays: Sequence[Sequence[int]]) -> Standing:
    """The standing of a (possibly unfinished) trick: ``plays`` in play order, the lead first."""
    lead = decompose(ctx, plays[0])
    standing = opening(lead)
    for i in range(1, len(plays)):
        standing = advance(ctx, rules, lead, standing, plays[i], index=i)
    return standing


def _judge(
    ctx: TrumpContext, rules: Rules, plays: Sequence[Sequence[int]]
) -> tuple[tuple[Judgement, ...], int, Decomposition | None]:
    """R7.1: each play's judgement, the index of the winning play, and the lead's decomposition if it
    was needed: a play that is neither all of the led category nor all trumps is a discard whatever the
    lead's shape (R6.3), so a long lead that every other seat discards on is never decomposed."""
    category = ctx.category[plays[0][0]]
    lead: Decomposition | None = None
    standing = Standing(0, 0, False)
    judgements = [Judgement.LEAD]
    for i, play in enumerate(plays[1:], start=1):
        if not all(ctx.category[face] == category for face in play) and (
            category == TRUMP or any(ctx.category[face] != TRUMP for face in play)
        ):
            judgements.append(Judgement.DISCARD)
            continue
        if lead is None:  # every play before this one was a discard: the lead still stands
            lead = decompose(ctx, plays[0])
            standing = opening(lead)
        judgement, key = judge_play(ctx, rules, lead, standing, play)
        judgements.append(judgement)
        if judgement in TAKES:
            standing = Standing(i, key, judgement is not Judgement.BEAT)
    return tuple(judgements), standing.best, lead


def dig_multiplier(rules: Rules, pairs: int, width: int = 2) -> int:
    """R8.4, R14.9: M = 2^(1 + (w - 1)k) for a top component of k rungs of w copies (2^(k+1) for k pairs,
    2 for a single) under DIG-000; DIG-003 caps it at 8 (single 2, pair 4, any tractor 8).

    >>> from rules_core.rules import DEFAULT_RULES, RULEBOOK_003
    >>> [dig_multiplier(DEFAULT_RULES, k) for k in range(5)], dig_multiplier(RULEBOOK_003, 4)
    ([2, 4, 8, 16, 32], 8)
    >>> dig_multiplier(DEFAULT_RULES, 1, 3), dig_multiplier(DEFAULT_RULES, 2, 4)
    (8, 128)
    """
    exponent = 1 + (width - 1) * pairs if pairs else 1
    if rules.dig_multiplier is DigMultiplier.CAPPED:
        return 1 << min(exponent, 3)
    return 1 << exponent


def _dig(
    *,
    ctx: TrumpContext,
    rules: Rules,
    lead: Decomposition,
    winning_play: Sequence[int],
    attack: bool,
    bottom: Sequence[int],
) -> Dig:
    """R8.3–R8.5: the bottom scores ×M for the attackers if they win the last trick, else nothing."""
    bottom_points = sum(POINTS[face] for face in bottom)
    if not attack:
        return Dig(bottom_points, None, 0)
    shape = lead if rules.dig_shape is DigShape.LEAD else decompose(ctx, winning_play)
    top = shape.components[0] if shape.components else None
    multiplier = dig_multiplier(rules, top.pairs, width(top)) if top is not None else dig_multiplier(rules, 0)
    return Dig(bottom_points, multiplier, bottom_points * multiplier)


@dataclass(frozen=True, slots=True)
class JudgedTrick:
    """A trick as a request asks about it: each play's check (with hands), the outcome, and the sides."""

    leader: int
    checks: tuple[Legal | Illegal, ...]
    """With hands: the lead's verdict, then each follow's (none after an illegal lead); else empty."""
    problem: str
    """Why a checked trick is not resolved (an illegal play, a failed throw), or "" when it is."""
    result: TrickResult | None
    """The resolved trick, unless ``problem`` says why not."""
    sides: SidesAfter | None = None
    """The sides and the calls after this trick (R15.8; fixed partners: every other seat), answered on
    every table but the rulebooks' (whose answer has always been the trick alone); None when the trick
    is not resolved."""
    seats: int = PLAYERS
    """The table's seats: the plays' seats are counted from ``leader`` modulo them (R14.1)."""
    wide: bool = False
    """More than two decks: components are tuples whose width the answer names (R14.3)."""


RecordedTrick = tuple[tuple[SeatCards, ...], int | None]
"""A recorded trick as a request gives it: its seated plays in play order and its winner (None: absent)."""


def judge_trick(
    ctx: TrumpContext,
    rules: Rules,
    *,
    leader: int,
    plays: Sequence[SeatCards],
    dealer: int,
    last: bool = False,
    bottom: Sequence[int] = (),
    hands: Sequence[SeatCards] = (),
    calls: Sequence[FriendCall] = (),
    before: Sequence[RecordedTrick] = (),
) -> JudgedTrick:
    """R7 and R8 for a trick as a request lists it, on every table (R14.8, R14.9); with ``hands`` (every
    seat's cards before the trick) each play is checked first (R4, R5), and a trick with an illegal play
    or a failed throw is not resolved: only a throw's forced component is ever on the table (R4.7).
    Under finding friends the attackers are the seats off the dealer's side after this trick (R15.8),
    found from the ``calls`` and the tricks ``before`` it."""
    seats = rules.seats
    seat_in_range(leader, "leader", seats)
    seat_in_range(dealer, "dealer", seats)
    if len(plays) != seats:
        raise InvalidArgumentError(
            "plays", Problem.BAD_SIZE, f"a trick has exactly {seats} plays, got {len(plays)}"
        )
    hand_size, bottom_size = deal_sizes(rules.decks, seats)
    if last or bottom:
        check_size(bottom, "bottom", bottom_size, bottom_size, "the bottom")
    deck = Deck(rules.decks)
    checks: tuple[Legal | Illegal, ...] = ()
    if not hands:
        cards, _ = table_plays(ctx, plays, "plays", leader=leader, deck=deck, seats=seats)
        deck.add(bottom, "bottom")
    else:
        held = {
            s: hand_of(c, rules.decks)
            for s, c in by_seat(
                hands, "hands", seats=range(seats), low=1, high=hand_size, deck=deck, table=seats
            ).items()
        }
        cards = in_turn(plays, "plays", leader=leader, seats=seats)
        for i, play in enumerate(cards):
            check_copies(play, f"plays[{i}].cards", rules.decks)
        deck.add(bottom, "bottom")
        checks = _check_plays(ctx, rules, leader, cards, held)
    wide, shown = rules.decks > 2, not rules.rulebook_table
    earlier = _record(ctx, rules, dealer, calls, before)
    problem = _problem(checks, leader, seats)
    if problem:
        return JudgedTrick(leader, checks, problem, None, None, seats, wide)
    attackers: frozenset[int] | None = None
    if earlier is None:  # fixed partners and no record: every other seat from the dealer (R1.5, R14.9)
        sides = SidesAfter(frozenset((dealer + k) % seats for k in range(0, seats, 2)), (), 0)
    else:  # R15.8: the sides after this trick, with it in the record (R15.15)
        winner = (leader + _judge(ctx, rules, cards)[1]) % seats
        current = Trick(tuple(Play(seat, tuple(faces)) for seat, faces in plays), winner)
        try:
            sides = replay_sides(rules, ctx, dealer, calls, (*earlier, current))[-1]
        except InvalidArgumentError as error:
            raise renamed(error, f"tricks[{len(earlier)}].", "") from None
        if rules.partners is Partners.FRIENDS:
            attackers = frozenset(range(seats)) - sides.dealer_side
    result = resolve_trick(
        ctx, rules, leader=leader, plays=cards, dealer=dealer, last=last, bottom=bottom, attackers=attackers
    )
    return JudgedTrick(leader, checks, "", result, sides if shown else None, seats, wide)


def _record(
    ctx: TrumpContext,
    rules: Rules,
    dealer: int,
    calls: Sequence[FriendCall],
    before: Sequence[RecordedTrick],
) -> tuple[Trick, ...] | None:
    """R15.1-R15.4, R15.15: the calls fit the table and the tricks before are a hand's, checked whenever
    given; None when fixed partners come with no record (they need none)."""
    if rules.partners is Partners.FIXED and not calls and not before:
        return None
    earlier = as_tricks(before, "tricks_before")
    try:
        replay_sides(rules, ctx, dealer, calls, earlier)
    except InvalidArgumentError as error:
        raise renamed(error, "tricks", "tricks_before") from None
    return earlier


def as_tricks(records: Sequence[RecordedTrick], path: str) -> tuple[Trick, ...]:
    """Recorded tricks as R15's: a winner is required on each (R15.15)."""
    tricks = []
    for t, (plays, winner) in enumerate(records):
        if winner is None:
            raise InvalidArgumentError(f"{path}[{t}].winner", Problem.MISSING, "each trick names its winner")
        tricks.append(Trick(tuple(Play(seat, tuple(cards)) for seat, cards in plays), winner))
    return tuple(tricks)


def renamed(error: InvalidArgumentError, old: str, new: str) -> InvalidArgumentError:
    """The same error with the path prefix ``old`` spelled ``new`` (the request's own field names)."""
    if error.argument.startswith(old):
        return InvalidArgumentError(new + error.argument[len(old) :], error.problem, error.message)
    return error


def _check_plays(
    ctx: TrumpContext, rules: Rules, leader: int, plays: Sequence[Sequence[int]], hands: dict[int, Hand]
) -> tuple[Legal | Illegal, ...]:
    """The lead against the other hands, then each follow (skipped after an illegal lead)."""
    seats = rules.seats
    others = {s: hands[s] for s in range(seats) if s != leader}
    lead = check_lead(ctx, rules, hand=hands[leader], lead=plays[0], others=others)
    if isinstance(lead, Illegal):
        return (lead,)
    assert lead.play.category is not None
    follows = (
        follow_verdict(
            ctx,
            rules,
            hand=hands[(leader + i) % seats],
            led=lead.play,
            play=plays[i],
            shape=decompose(ctx, plays[i]),
        )
        for i in range(1, seats)
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
