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

from rules_core.autoplay import suggest_play
from rules_core.cards import HAND_SIZE, PLAYERS, Deck, Hand, check_copies, check_size, hand_of
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.follow import follow_verdict
from rules_core.legal_plays import legal_plays
from rules_core.rules import Rules
from rules_core.seating import SeatCards, by_seat, seat_in_range, table_plays
from rules_core.shapes import Decomposition, decompose
from rules_core.throw import lead_verdict
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
    *,
    seat: int,
    hand: Sequence[int],
    trick_leader: int | None,
    trick_plays: Sequence[SeatCards],
) -> Turn:
    """Validate a seat, its hand (1..25 cards) and the trick so far (``trick_leader`` None: no trick)."""
    seat_in_range(seat, "seat")
    check_size(hand, "hand", 1, HAND_SIZE, "a hand")
    deck = Deck()
    deck.add(hand, "hand")
    held = deck.hand()
    leader = seat_in_range(trick_leader or 0, "trick.leader")
    if not trick_plays:
        if trick_leader is not None and leader != seat:
            raise InvalidArgumentError(
                "trick.leader", Problem.OUT_OF_ORDER, f"seat {seat} leads, but the trick's leader is {leader}"
            )
        return Turn(seat, held, seat, (), None, deck)
    if len(trick_plays) >= PLAYERS:
        raise InvalidArgumentError(
            "trick.plays", Problem.BAD_SIZE, f"the trick is complete: it has {len(trick_plays)} plays"
        )
    plays, led = table_plays(ctx, trick_plays, "trick.plays", leader=leader, deck=deck)
    expected = (leader + len(plays)) % PLAYERS
    if seat != expected:
        raise InvalidArgumentError(
            "seat", Problem.OUT_OF_ORDER, f"seat {expected} plays next, not seat {seat}"
        )
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
    """R4 (a lead; a throw is judged against ``others``, the other three hands) or R5 (a follow)."""
    turn = check_turn(ctx, seat=seat, hand=hand, trick_leader=trick_leader, trick_plays=trick_plays)
    check_copies(cards, "cards")
    shape = decompose(ctx, cards) if cards else None
    if turn.led is not None:
        follow = follow_verdict(
            ctx, hand=turn.hand, led=turn.led, play=cards, shape=_shape(ctx, shape, cards)
        )
        return PlayVerdict(follow, shape)
    held: Mapping[int, Hand] = {}
    if others:
        seats = [s for s in range(PLAYERS) if s != turn.seat]
        listed = by_seat(others, "other_hands", seats=seats, deck=turn.deck)
        held = {s: hand_of(c) for s, c in listed.items()}  # counted in the turn's deck already
    elif shape is not None and shape.category is not None and len(shape.components) > 1:
        raise InvalidArgumentError(
            "other_hands",
            Problem.MISSING,
            "a throw is judged against the other three hands (R4.4): give their cards",
        )
    lead = lead_verdict(ctx, rules, hand=turn.hand, lead=cards, play=_shape(ctx, shape, cards), others=held)
    return PlayVerdict(lead, shape)


def _shape(ctx: TrumpContext, shape: Decomposition | None, cards: Sequence[int]) -> Decomposition:
    return shape if shape is not None else decompose(ctx, cards)


@dataclass(frozen=True, slots=True)
class Listing:
    """A bounded listing of legal plays, each with its shape (R4.2, R5)."""

    plays: tuple[tuple[tuple[int, ...], Decomposition], ...]
    truncated: bool
    """True when more plays may exist (see ``legal_plays.PlayList``)."""


def list_plays(
    ctx: TrumpContext,
    *,
    seat: int,
    hand: Sequence[int],
    trick_leader: int | None,
    trick_plays: Sequence[SeatCards],
    limit: int = 0,
) -> Listing:
    """Up to ``limit`` (0: :data:`DEFAULT_LIMIT`) legal plays for the seat whose turn it is."""
    turn = check_turn(ctx, seat=seat, hand=hand, trick_leader=trick_leader, trick_plays=trick_plays)
    listing = legal_plays(ctx, hand=turn.hand, lead=turn.lead, limit=limit or DEFAULT_LIMIT)
    return Listing(tuple((play, decompose(ctx, play)) for play in listing.plays), listing.truncated)


@dataclass(frozen=True, slots=True)
class Suggestion:
    """The auto-play (托管) for a seat, and why it is that play (R13.6)."""

    cards: tuple[int, ...]
    shape: Decomposition
    reason: str


def suggest(
    ctx: TrumpContext,
    *,
    seat: int,
    hand: Sequence[int],
    trick_leader: int | None,
    trick_plays: Sequence[SeatCards],
) -> Suggestion:
    """R13.6: the rightmost smallest card as a lead, the weakest legal follow otherwise."""
    turn = check_turn(ctx, seat=seat, hand=hand, trick_leader=trick_leader, trick_plays=trick_plays)
    play = suggest_play(ctx, hand=turn.hand, lead=turn.lead)
    reason = (
        "follow: the weakest legal play, rightmost cards first (R13.6)"
        if turn.plays
        else "lead: the rightmost smallest card of the default layout (R13.6)"
    )
    return Suggestion(play, decompose(ctx, play), reason)
