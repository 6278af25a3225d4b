"""Positions of recorded hands, as the seat to play saw them: real views for the strategy tests."""

from __future__ import annotations

from collections.abc import Iterator

from rules_core.audit import HandRecord
from rules_core.bidding import resolve_declarations
from rules_core.cards import PLAYERS, add, remove
from rules_core.rules import Rules
from rules_core.strategy import SeatView
from rules_core.trick import resolve_trick
from rules_core.trump import TrumpContext, trump_context

Position = tuple[TrumpContext, SeatView, dict[int, tuple[int, ...]]]
"""A context, the view of the seat to play, and the other seats' hands (to judge a lead)."""


def positions(record: HandRecord, rules: Rules) -> Iterator[Position]:
    """Every turn of a recorded hand, as the seat to play saw it (all optional fields filled)."""
    bidding = resolve_declarations(
        rules=rules,
        level=record.level,
        sequence=record.declarations,
        first_hand=record.first_hand,
        dealer=record.dealer,
    )
    dealer = bidding.dealer
    assert dealer is not None
    ctx = trump_context(record.level, bidding.contract)
    hands = list(record.deal)
    hands[dealer] = remove(add(hands[dealer], record.bottom), record.buried)
    leader, points = dealer, 0
    history: list[tuple[int, tuple[tuple[int, ...], ...]]] = []
    for index, trick in enumerate(record.tricks):
        for offset in range(PLAYERS):
            seat = (leader + offset) % PLAYERS
            view = SeatView(
                seat=seat,
                hand=hands[seat],
                leader=leader,
                plays=trick.plays[:offset],
                dealer=dealer,
                tricks=tuple(history),
                attacker_points=points,
                bottom=record.buried if seat == dealer else (),
            )
            yield ctx, view, {s: hands[s] for s in range(PLAYERS) if s != seat}
        for offset, play in enumerate(trick.plays):
            hands[(leader + offset) % PLAYERS] = remove(hands[(leader + offset) % PLAYERS], play)
        last = index == len(record.tricks) - 1
        result = resolve_trick(
            ctx, rules, leader=leader, plays=trick.plays, dealer=dealer, last=last, bottom=record.buried
        )
        points += result.attacker_points
        history.append((leader, trick.plays))
        leader = result.winner
