"""What the bidding showed (R10), as the play's card counting uses it: each seat's shown cards stay in its
hand until it plays them (R10.2), so the sampling of the unseen cards keeps them there.

The facts come from ``HandSoFar.declarations``: each act's seat and shown cards, public at the table.
They are checked to be a bidding a real deal can have: every act one ValidateDeclaration accepts after
the acts before it (R10.3, R10.4; R14.11 on another table), the contract they end in the request's, seats
of the table, the asking seat's own shown cards among the cards it holds, played or (as the dealer)
buried, and no copy past D across the shown cards still held and everything else of the request.

**Ruling (what the bidding does not show).** The sampling infers nothing from an act *not* made. A seat
that could have overturned and did not may still hold the pair: R10 never obliges a declaration (R10.1,
R10.3 "may"), a pair may arrive after the stage that could use it is spent (R10.4), a seat may not
overturn its partner or may keep a joker pair for the play, and the deal's order of arrival is not in the
request. None of these is a rule the service can check, so a "holds no such pair" inference is never
sound from the rules alone and is not made: only cards shown constrain the layouts. The dealer's shown
cards may have gone into the bottom he buried (R11: any 8 cards), so for the dealer they are held or in
the bottom; every other seat holds its shown cards until it plays them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rules_core.bidding import Act, Declaration, declare, resolve_declarations
from rules_core.cards import COPIES, NUM_FACES, Deck, Hand, deal_sizes, format_cards
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.rules import Rules
from rules_core.seating import SeatCards, seat_in_range
from rules_core.strategy.knowledge import SeatView
from rules_core.trump import TrumpContext

Shown = tuple[tuple[int, tuple[int, ...]], ...]
"""Per seat with cards still known in its hand from the bidding: (seat, those faces, once per copy)."""


def shown_by_seat(
    ctx: TrumpContext,
    rules: Rules,
    acts: Sequence[SeatCards],
    *,
    seat: int,
    hand: Hand,
    played: Sequence[Sequence[int]],
    complete: bool,
    bottom: Sequence[int],
    dealer: int | None,
    deck: Deck,
    path: str,
) -> Shown:
    """The shown cards each other seat still holds (shown, not yet played by it), checked as described
    above; ``played[s]`` is every card seat s played in the tricks and the trick so far, ``complete``
    whether those are all the seat's plays of the hand (so its own shown cards can be accounted for).
    ``played`` is per seat a count vector (:func:`played_by_seat`)."""
    if not acts:
        return ()
    where = f"{path}.declarations"
    sequence = []
    seats = rules.seats
    for i, (who, cards) in enumerate(acts):
        seat_in_range(who, f"{where}[{i}].seat", seats)
        sequence.append(Declaration(seat=who, cards=tuple(cards), hand=None))
    try:
        if rules.rulebook_table:
            bidding = resolve_declarations(rules=rules, level=ctx.level, sequence=sequence, first_hand=True)
        else:  # R14.11: declarations of up to D copies
            shown = [(d.seat, d.cards, None) for d in sequence]
            bidding = declare(rules=rules, level=ctx.level, acts=shown, first_hand=True)
    except InvalidArgumentError as error:
        raise error.within(where) from None
    for rejection in bidding.rejections:
        raise InvalidArgumentError(
            f"{where}[{rejection.index}].cards",
            Problem.INCONSISTENT,
            f"ValidateDeclaration rejects this act: {rejection.message}",
        )
    if bidding.contract != ctx.trump:
        raise InvalidArgumentError(
            where,
            Problem.INCONSISTENT,
            f"these acts end in contract {_name(bidding.contract)}, but the request's contract is "
            f"{_name(ctx.trump)} (R10.3)",
        )
    known = [[0] * NUM_FACES for _ in range(seats)]
    first: dict[tuple[int, int], int] = {}
    for i, (declaration, act) in enumerate(zip(sequence, bidding.acts, strict=True)):
        face = declaration.cards[0]
        copies = COPIES if act is Act.A2_REINFORCE and rules.rulebook_table else len(declaration.cards)
        held = known[declaration.seat]
        held[face] = max(held[face], copies)
        first.setdefault((declaration.seat, face), i)
    mine = known[seat]
    if complete and dealer is not None and (dealer != seat or bottom):
        buried = [0] * NUM_FACES
        for face in bottom:
            buried[face] += 1
        for face in range(NUM_FACES):
            accounted = hand[face] + played[seat][face] + buried[face]
            if mine[face] > accounted:
                raise InvalidArgumentError(
                    f"{where}[{first[(seat, face)]}].cards",
                    Problem.INCONSISTENT,
                    f"seat {seat} showed {format_cards([face] * mine[face])} but has not played, kept or "
                    "buried them: shown cards stay in the hand (R10.2)",
                )
    facts = []
    for other in range(seats):
        if other == seat:
            continue
        still: list[int] = []
        for face in range(NUM_FACES):
            left = known[other][face] - played[other][face]
            if left > 0:
                deck.add([face] * left, f"{where}[{first[(other, face)]}].cards")  # no third copy
                still += [face] * left
        if still:
            facts.append((other, tuple(still)))
    return tuple(facts)


def played_by_seat(
    tricks: Sequence[tuple[int, Sequence[Sequence[int]]]],
    leader: int,
    plays: Sequence[Sequence[int]],
    seats: int = 4,
) -> tuple[list[list[int]], list[int]]:
    """Per seat of ``seats``, the count vector of every card it played in ``tricks`` and the trick so
    far, and how many cards that is."""
    played = [[0] * NUM_FACES for _ in range(seats)]
    sizes = [0] * seats
    for first, trick in [*tricks, (leader, plays)]:
        for offset, play in enumerate(trick):
            who = (first + offset) % seats
            counts = played[who]
            for face in play:
                counts[face] += 1
            sizes[who] += len(play)
    return played, sizes


def _name(trump: object) -> str:
    return "no-trump" if trump is None else str(getattr(trump, "name", trump))


def with_bidding(ctx: TrumpContext, rules: Rules, view: SeatView, acts: Sequence[SeatCards]) -> SeatView:
    """``view`` told what the bidding showed, as :func:`rules_core.turn.seat_view` tells a request's
    view (for a game loop that builds its views itself, such as self-play and the tournament)."""
    if not acts:
        return view
    played, counts = played_by_seat(view.tricks, view.leader, view.plays, rules.seats)
    shown = shown_by_seat(
        ctx,
        rules,
        acts,
        seat=view.seat,
        hand=view.hand,
        played=played,
        complete=counts[view.seat] + sum(view.hand) == deal_sizes(rules.decks, rules.seats)[0],
        bottom=view.bottom,
        dealer=view.dealer,
        deck=Deck(rules.decks),
        path="declarations",
    )
    return replace(view, shown=shown)
