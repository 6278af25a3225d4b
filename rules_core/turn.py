"""A seat's turn at the table: the trick so far, and what the seat may play into it (R4, R5, R13.6).

The request-level entry points of play: each takes a turn as a client describes it (the seat, its
hand, the trick so far as seated plays) and decides everything about it in one call: that the turn is
one a game can produce (seats in range and in turn order, one category led, follows of its size, no
third copy across the hand and the table), and then the rules' answer. Arguments are named like the
service's request fields (``hand``, ``trick.plays[1].cards[0]``), so an InvalidArgumentError names the
field to fix.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from rules_core.autoplay import suggest_play
from rules_core.cards import (
    Deck,
    Hand,
    check_copies,
    check_size,
    deal_sizes,
    hand_of,
)
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.follow import follow_verdict
from rules_core.legal_plays import legal_plays
from rules_core.rules import FollowRule, Partners, Rules
from rules_core.seating import SeatCards, by_seat, check_next, seat_in_range, table_plays
from rules_core.shapes import Decomposition, decompose
from rules_core.strategy import DEFAULT_BUDGET, SeatView, rank_plays, search_plays
from rules_core.strategy.privacy import refuse_other_bottom
from rules_core.strategy.shown import Shown, played_by_seat, shown_by_seat
from rules_core.throw import lead_verdict
from rules_core.trick import resolve_trick
from rules_core.trump import TrumpContext
from rules_core.verdicts import Illegal, Legal

DEFAULT_LIMIT = 100
"""Plays listed when the caller names no limit."""


@dataclass(frozen=True, slots=True)
class Turn:
    """A seat about to play: its hand, and the trick so far (no plays: it leads)."""

    seat: int
    hand: Hand
    leader: int
    plays: tuple[tuple[int, ...], ...]
    """The plays so far in play order: a lead of one category, follows of its size."""
    led: Decomposition | None
    """The lead's decomposition, or None when this seat leads."""
    deck: Deck
    """Every card of the turn counted, so further arguments (the other hands) join the same count."""

    @property
    def lead(self) -> tuple[int, ...]:
        """The cards actually led, or () when this seat leads."""
        return self.plays[0] if self.plays else ()


def check_turn(
    ctx: TrumpContext,
    rules: Rules,
    *,
    seat: int,
    hand: Sequence[int],
    trick_leader: int | None,
    trick_plays: Sequence[SeatCards],
) -> Turn:
    """Validate a seat, its hand (1 to the table's hand size, R14.2) and the trick so far (``trick_leader``
    None: no trick), on the ruleset's table: N seats in turn, D copies of a face (R14.1)."""
    seats = rules.seats
    seat_in_range(seat, "seat", seats)
    check_size(hand, "hand", 1, deal_sizes(rules.decks, seats)[0], "a hand")
    deck = Deck(rules.decks)
    deck.add(hand, "hand")
    held = deck.hand()
    leader = seat_in_range(trick_leader or 0, "trick.leader", seats)
    if not trick_plays:
        if trick_leader is not None and leader != seat:
            raise InvalidArgumentError(
                "trick.leader", Problem.OUT_OF_ORDER, f"seat {seat} leads, but the trick's leader is {leader}"
            )
        return Turn(seat, held, seat, (), None, deck)
    if len(trick_plays) >= seats:
        raise InvalidArgumentError(
            "trick.plays", Problem.BAD_SIZE, f"the trick is complete: it has {len(trick_plays)} plays"
        )
    plays, led = table_plays(ctx, trick_plays, "trick.plays", leader=leader, deck=deck, seats=seats)
    check_next(seat, leader, len(plays), seats)
    if len(hand) < len(plays[0]):
        raise InvalidArgumentError(
            "hand",
            Problem.BAD_SIZE,
            f"a follower holds at least as many cards as were led ({len(plays[0])}), got {len(hand)}",
        )
    return Turn(seat, held, leader, plays, led, deck)


@dataclass(frozen=True, slots=True)
class PlayVerdict:
    """The rules' answer on one play, with the play's own shape whether it is legal or not."""

    verdict: Legal | Illegal
    shape: Decomposition | None
    """The play's decomposition (decomposed once for the whole request); None for no cards."""
    wide: bool = False
    """More than two decks: components are tuples whose width the answer names (R14.3)."""


def validate_play(
    ctx: TrumpContext,
    rules: Rules,
    *,
    seat: int,
    hand: Sequence[int],
    trick_leader: int | None,
    trick_plays: Sequence[SeatCards],
    cards: Sequence[int],
    others: Sequence[SeatCards] | None,
) -> PlayVerdict:
    """R4 (a lead; a throw is judged against ``others``, every other seat's hand) or R5 (a follow), on
    every table (R14.4-R14.6)."""
    turn = check_turn(ctx, rules, seat=seat, hand=hand, trick_leader=trick_leader, trick_plays=trick_plays)
    check_copies(cards, "cards", rules.decks)
    shape = decompose(ctx, cards) if cards else None
    wide = rules.decks > 2
    if turn.led is not None:
        follow = follow_verdict(
            ctx, rules, hand=turn.hand, led=turn.led, play=cards, shape=_shape(ctx, shape, cards)
        )
        return PlayVerdict(follow, shape, wide)
    held: Mapping[int, Hand] = {}
    if others:
        seats = [s for s in range(rules.seats) if s != turn.seat]
        high = deal_sizes(rules.decks, rules.seats)[0]
        listed = by_seat(others, "other_hands", seats=seats, deck=turn.deck, high=high, table=rules.seats)
        held = {s: hand_of(c, rules.decks) for s, c in listed.items()}  # counted in the turn's deck already
    elif shape is not None and shape.category is not None and len(shape.components) > 1:
        raise InvalidArgumentError(
            "other_hands",
            Problem.MISSING,
            f"a throw is judged against the other {_SEATS_WORDS.get(rules.seats - 1, rules.seats - 1)} hands "
            "(R4.4): give their cards",
        )
    lead = lead_verdict(ctx, rules, hand=turn.hand, lead=cards, play=_shape(ctx, shape, cards), others=held)
    return PlayVerdict(lead, shape, wide)


_SEATS_WORDS: Final = {3: "three"}
"""The other hands in a message as the rulebooks' table has always named them."""


def _shape(ctx: TrumpContext, shape: Decomposition | None, cards: Sequence[int]) -> Decomposition:
    return shape if shape is not None else decompose(ctx, cards)


@dataclass(frozen=True, slots=True)
class HandSoFar:
    """What a seat at the table knows of the hand beyond its cards and the trick (as a request gives it)."""

    dealer: int | None = None
    tricks: tuple[tuple[SeatCards, ...], ...] = ()
    """The finished tricks in order, each one seated play per seat (N on the table) in play order."""
    attacker_points: int | None = None
    bottom: tuple[int, ...] = ()
    """The buried cards (the table's bottom size, R14.2), when the seat is the dealer."""
    declarations: tuple[SeatCards, ...] = ()
    """What the bidding showed (R10): each act's seat and shown cards, in time order (public)."""


NOTHING_KNOWN: Final = HandSoFar()


class Policy(StrEnum):
    """How the auto-play chooses (托管)."""

    RIGHTMOST_SMALLEST = "RIGHTMOST_SMALLEST"
    """R13.6 as written: the rightmost smallest card as a lead, the weakest legal follow."""
    STRONG = "STRONG"
    """Plays for the seat's side (``rules_core.strategy``), within a work budget."""


def seat_view(ctx: TrumpContext, rules: Rules, turn: Turn, so_far: HandSoFar, path: str) -> SeatView:
    """The seat's knowledge, checked to be a history a real hand can have on the ruleset's table (R14):
    every finished trick one play per seat in turn order from the previous trick's winner (R4.1, R7.4),
    the first led by the dealer, no copy past D of a card across the history, the hand, the trick and
    the bottom, the seat's hand size accounted for, the attackers' points the tricks give (fixed
    partners: under finding friends the request carries no calls, so the sides and the points stay as
    given, R15.8), the bottom (its size) only for the dealer (R11), and what the bidding showed a
    bidding R10 (R14.11) accepts (``rules_core.strategy.shown``).

    Under finding friends the view knows the dealer's side as far as the request tells it: the dealer,
    and the seat itself when it is the dealer; every other seat's side stays open (a request has no
    friend calls, so nothing in the tricks shows who joined)."""
    seats = rules.seats
    hand_size, bottom_size = deal_sizes(rules.decks, seats)
    dealer = None if so_far.dealer is None else seat_in_range(so_far.dealer, f"{path}.dealer", seats)
    if len(so_far.tricks) >= hand_size:
        raise InvalidArgumentError(
            f"{path}.tricks",
            Problem.BAD_SIZE,
            f"a seat still to play has played at most {hand_size - 1} tricks, got {len(so_far.tricks)}",
        )
    fixed = rules.partners is Partners.FIXED
    tricks: list[tuple[int, tuple[tuple[int, ...], ...]]] = []
    next_leader, points, played = dealer, 0, 0
    for index, trick in enumerate(so_far.tricks):
        where = f"{path}.tricks[{index}].plays"
        if len(trick) != seats:
            raise InvalidArgumentError(
                where, Problem.BAD_SIZE, f"a finished trick has {seats} plays, got {len(trick)}"
            )
        leader = trick[0][0]
        if next_leader is not None and leader != next_leader:
            who = "the dealer" if index == 0 else f"the winner of trick {index - 1}"
            raise InvalidArgumentError(
                f"{where}[0].seat",
                Problem.OUT_OF_ORDER,
                f"trick {index} is led by {who}, seat {next_leader} (R4.1, R7.4)",
            )
        plays, _ = table_plays(
            ctx,
            trick,
            where,
            leader=seat_in_range(leader, f"{where}[0].seat", seats),
            deck=turn.deck,
            seats=seats,
        )
        result = resolve_trick(ctx, rules, leader=leader, plays=plays, dealer=dealer or 0)
        points += result.attacker_points
        played += len(plays[(turn.seat - leader) % seats])
        next_leader = result.winner
        tricks.append((leader, plays))
    if tricks and turn.leader != next_leader:
        raise InvalidArgumentError(
            "trick.leader",
            Problem.OUT_OF_ORDER,
            f"the winner of the last trick, seat {next_leader}, leads this one",
        )
    if tricks and played + sum(turn.hand) != hand_size:
        raise InvalidArgumentError(
            f"{path}.tricks",
            Problem.INCONSISTENT,
            f"seat {turn.seat} played {played} cards in these tricks and holds {sum(turn.hand)}: "
            f"a hand is {hand_size}",
        )
    attackers = so_far.attacker_points
    if attackers is not None:
        if attackers % 5:
            raise InvalidArgumentError(
                f"{path}.attacker_points", Problem.OUT_OF_RANGE, "points are a multiple of 5 (R8.1)"
            )
        if tricks and dealer is not None and fixed and attackers != points:
            raise InvalidArgumentError(
                f"{path}.attacker_points",
                Problem.INCONSISTENT,
                f"the tricks give the attackers {points} points",
            )
    elif tricks and dealer is not None and fixed:
        attackers = points
    if so_far.bottom:
        refuse_other_bottom(turn.seat, dealer, so_far.bottom, path)  # private to the dealer (R11)
        check_size(so_far.bottom, f"{path}.bottom", bottom_size, bottom_size, "the bottom")
        turn.deck.add(so_far.bottom, f"{path}.bottom")
    shown: Shown = ()
    if so_far.declarations:  # R10.2: shown cards stay with their seat until it plays them
        by_seat, counts = played_by_seat(tricks, turn.leader, turn.plays, seats)
        shown = shown_by_seat(
            ctx,
            rules,
            so_far.declarations,
            seat=turn.seat,
            hand=turn.hand,
            played=by_seat,
            complete=counts[turn.seat] + sum(turn.hand) == hand_size,
            bottom=so_far.bottom,
            dealer=dealer,
            deck=turn.deck,
            path=path,
        )
    return SeatView(
        seat=turn.seat,
        hand=turn.hand,
        leader=turn.leader,
        plays=turn.plays,
        dealer=dealer,
        tricks=tuple(tricks),
        attacker_points=attackers,
        bottom=tuple(so_far.bottom),
        shown=shown,
    )


@dataclass(frozen=True, slots=True)
class Listing:
    """A bounded listing of legal plays, each with its shape (R4.2, R5), ranked when asked."""

    plays: tuple[tuple[tuple[int, ...], Decomposition], ...]
    truncated: bool
    """True when more plays may exist (see ``legal_plays.PlayList``)."""
    scores: tuple[float, ...] | None = None
    """When ranked: each play's evaluation (higher is better), the plays best first."""


def list_plays(
    ctx: TrumpContext,
    rules: Rules,
    *,
    seat: int,
    hand: Sequence[int],
    trick_leader: int | None,
    trick_plays: Sequence[SeatCards],
    limit: int = 0,
    rank: bool = False,
    so_far: HandSoFar = NOTHING_KNOWN,
    seed: int = 0,
    budget: int = 0,
) -> Listing:
    """Up to ``limit`` (0: :data:`DEFAULT_LIMIT`) legal plays for the seat whose turn it is; with ``rank``,
    best first by the strong auto-play's evaluation (a hint, 提示)."""
    turn = check_turn(ctx, rules, seat=seat, hand=hand, trick_leader=trick_leader, trick_plays=trick_plays)
    known = so_far != NOTHING_KNOWN  # checked even unranked: what the strong policy would read
    view = seat_view(ctx, rules, turn, so_far, "hand_so_far") if rank or known else None
    listing = legal_plays(
        ctx,
        hand=turn.hand,
        lead=turn.lead,
        limit=limit or DEFAULT_LIMIT,
        structure=rules.follow is FollowRule.STRUCTURE,  # R16.3
        decks=rules.decks,
    )
    if not rank or view is None:
        return Listing(tuple((play, decompose(ctx, play)) for play in listing.plays), listing.truncated)
    ranked = rank_plays(ctx, rules, view, listing.plays, seed=seed, budget=budget or DEFAULT_BUDGET)
    return Listing(
        tuple((play, decompose(ctx, play)) for play, _ in ranked),
        listing.truncated,
        tuple(s for _, s in ranked),
    )


@dataclass(frozen=True, slots=True)
class Suggestion:
    """The auto-play (托管) for a seat, and why it is that play."""

    cards: tuple[int, ...]
    shape: Decomposition
    reason: str
    policy: Policy


def _strong_reason(candidates: int, layouts: int) -> str:
    """What the strong search did: the layouts it used are fewer than the budget where its candidates
    fill MAX_WORK, and none for a lone candidate or the trick's last play (nothing unseen plays in it)."""
    if candidates == 1:
        return "strong: the one candidate play"
    if not layouts:
        return f"strong: the best of {candidates} candidate plays, the trick's last play"
    return (
        f"strong: the best of {candidates} candidate plays over {layouts} sampled layouts of the unseen cards"
    )


def suggest(
    ctx: TrumpContext,
    rules: Rules,
    *,
    seat: int,
    hand: Sequence[int],
    trick_leader: int | None,
    trick_plays: Sequence[SeatCards],
    policy: Policy = Policy.STRONG,
    so_far: HandSoFar = NOTHING_KNOWN,
    seed: int = 0,
    budget: int = 0,
) -> Suggestion:
    """The auto-play: the strong policy (the default for 托管), or R13.6's rightmost smallest card as a
    lead and weakest legal follow. Always legal; the same request and seed give the same play."""
    turn = check_turn(ctx, rules, seat=seat, hand=hand, trick_leader=trick_leader, trick_plays=trick_plays)
    view = seat_view(ctx, rules, turn, so_far, "hand_so_far")
    if policy is Policy.STRONG:
        found = search_plays(ctx, rules, view, seed=seed, budget=budget or DEFAULT_BUDGET)
        play = found.best
        reason = _strong_reason(len(found.ranked), found.layouts)
        return Suggestion(play, decompose(ctx, play), reason, policy)
    play = suggest_play(
        ctx, hand=turn.hand, lead=turn.lead, decks=rules.decks, structure=rules.follow is FollowRule.STRUCTURE
    )
    reason = (
        "follow: the weakest legal play, rightmost cards first (R13.6)"
        if turn.plays
        else "lead: the rightmost smallest card of the default layout (R13.6)"
    )
    return Suggestion(play, decompose(ctx, play), reason, policy)
