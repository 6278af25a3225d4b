"""Declaring on other tables (R14.11): R10 with up to D copies of a level card.

The rulebooks' table (two decks, four seats, fixed partners) keeps :mod:`rules_core.bidding` unchanged.
On any other table a declaration shows **c copies of one face**, 1 ≤ c ≤ D: a level card X-L (trump X), or
c ≥ 2 copies of one joker (no-trump). Its strength is (c, kind), kind level < SJ < BJ, and an act is
accepted only when it is strictly stronger than the standing declaration. On two decks this is R10.4's
stage order (single < level pair < SJ SJ < BJ BJ, each once). The standing declarer adding copies of his
own card is a reinforce (A2); any other accepted act after the first is an overturn (A3, A4 for the seat
that set the standing contract, A6/A7 with jokers), counted in O (R10.5, capped at 8). The acts keep
R10.3's labels, so the answer has the rulebooks' shape.

>>> from dataclasses import replace
>>> from rules_core.cards import parse_cards
>>> from rules_core.rules import DEFAULT_RULES
>>> rules = replace(DEFAULT_RULES, decks=3, seats=6)
>>> acts = [(0, tuple(parse_cards(["H3", "H3"])), None), (1, tuple(parse_cards(["S3", "S3", "S3"])), None)]
>>> result = declare_table(rules=rules, level=3, acts=acts, first_hand=True)
>>> result.contract, result.overturn_multiplier, result.dealer, [str(act) for act in result.acts]
(<Suit.S: 0>, 2, 1, ['A5', 'A3'])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rules_core.bidding import Act, Bidding, BidRejection, Rejection, Shown, first_dealer, outcome, rejected
from rules_core.cards import (
    BIG_JOKER,
    NUM_FACES,
    SMALL_JOKER,
    Deck,
    Suit,
    deal_sizes,
    format_cards,
    format_rank,
    rank_of,
)
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.rules import NoBid, Rules

__all__ = ["declare_table", "strength_of"]

_KIND = {SMALL_JOKER: 1, BIG_JOKER: 2}
"""R14.11: jokers over level cards at equal copies, BJ over SJ (level cards are kind 0)."""


def strength_of(level: int, cards: Sequence[int]) -> tuple[int, int] | BidRejection:
    """R14.11: (copies, kind) of a declaration, or why it declares nothing. ``cards`` are faces."""
    face = cards[0]
    if any(card != face for card in cards):
        return BidRejection.NOT_A_PAIR
    if face in _KIND:
        return (len(cards), _KIND[face]) if len(cards) >= 2 else BidRejection.NOT_LEVEL_CARDS
    if rank_of(face) != level:
        return BidRejection.NOT_LEVEL_CARDS
    return len(cards), 0


@dataclass(slots=True)
class _Standing:
    """The bidding so far on another table; only accepted acts move it."""

    face: int | None = None
    strength: tuple[int, int] = (0, 0)
    owner: int | None = None
    first: int | None = None
    single: int | None = None
    """The opening single's (A1) seat: its joker act over its own standing contract is an A4 (R10.3)."""
    changer: int | None = None
    overturns: int = 0
    shown: dict[int, list[int]] = field(default_factory=dict)
    """Per seat, the copies of each face shown in accepted acts (R10.2: they stay in the hand)."""

    @property
    def stage(self) -> int:
        """R14.11: the standing declaration's copies, reported as the bidding's stage (:class:`Standing`)."""
        return self.strength[0]


def declare_table(
    *,
    rules: Rules,
    level: int,
    acts: Sequence[Shown],
    first_hand: bool,
    first_seated: int = 0,
    dealer: int | None = None,
) -> Bidding:
    """R14.11: replay one deal's declarations on the ruleset's table, as :func:`bidding.declare` does on
    the rulebooks' table. Nobody declaring gives no-trump with O = 1 (R10.8)."""
    _check_context(rules, level=level, first_hand=first_hand, first_seated=first_seated, dealer=dealer)
    state = _Standing()
    labels: list[Act | None] = []
    rejections: list[Rejection] = []
    for index, (seat, cards, hand) in enumerate(acts):
        path = f"declarations[{index}]"
        _check_act(rules, path, seat, cards, hand)
        act = _judge(rules, level, state, seat, cards, hand)
        if isinstance(act, tuple):
            rejections.append(rejected(index, seat, cards, *act))
            labels.append(None)
            continue
        labels.append(act)
    if state.face is None and rules.no_bid is not NoBid.NO_TRUMP:
        raise InvalidArgumentError(
            "no_bid", Problem.INCONSISTENT, "on other tables nobody declaring gives no-trump (R14.11, R10.8)"
        )
    contract = None if state.face is None or state.face >= SMALL_JOKER else Suit(state.face // 13)
    dealer = first_dealer(rules, state, first_hand=first_hand, first_seated=first_seated, dealer=dealer)
    return outcome(state, labels, rejections, contract, dealer)


def _check_context(
    rules: Rules, *, level: int, first_hand: bool, first_seated: int, dealer: int | None
) -> None:
    if not 2 <= level <= 14:
        raise InvalidArgumentError("level", Problem.OUT_OF_RANGE, f"level must be 2..14, got {level}")
    for name, seat in (("first_seated", first_seated), ("dealer", dealer)):
        if seat is not None and not 0 <= seat < rules.seats:
            raise InvalidArgumentError(
                name, Problem.OUT_OF_RANGE, f"seat {seat} is out of range 0..{rules.seats - 1}"
            )
    if first_hand and dealer is not None:
        raise InvalidArgumentError(
            "dealer",
            Problem.INCONSISTENT,
            "the first hand's dealer is decided by the bidding (R10.6); omit it",
        )


def _check_act(rules: Rules, path: str, seat: int, cards: Sequence[int], hand: Sequence[int] | None) -> None:
    """Malformed acts are INVALID_ARGUMENT naming their field: a seat of the table, 1..D known faces, a
    hand so far of at most the table's hand size (R14.1, R14.2)."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < rules.seats:
        raise InvalidArgumentError(f"{path}.seat", Problem.OUT_OF_RANGE, f"seat must be 0..{rules.seats - 1}")
    if not cards:
        raise InvalidArgumentError(f"{path}.cards", Problem.MISSING, "show at least one card")
    Deck(rules.decks).add(cards, f"{path}.cards")
    if hand is not None:
        size = deal_sizes(rules.decks, rules.seats)[0]
        if not 1 <= len(hand) <= size:
            raise InvalidArgumentError(
                f"{path}.hand",
                Problem.BAD_SIZE,
                f"a hand during the deal holds 1 to {size} cards, got {len(hand)}",
            )
        Deck(rules.decks).add(hand, f"{path}.hand")


def _judge(  # noqa: PLR0917 (one private step of declare_table)
    rules: Rules, level: int, state: _Standing, seat: int, cards: Sequence[int], hand: Sequence[int] | None
) -> Act | tuple[BidRejection, str]:
    """The act ``cards`` make (and ``state`` moved), or a rejection with its reason."""
    strength = strength_of(level, cards)
    if isinstance(strength, BidRejection):
        why = (
            "one face only" if strength is BidRejection.NOT_A_PAIR else f"{format_rank(level)}s or 2+ jokers"
        )
        return strength, f"a declaration shows copies of one level card or 2+ of one joker: {why} (R14.11)"
    face = cards[0]
    reinforce = seat == state.owner and face == state.face
    if reinforce and len(cards) <= state.strength[0]:  # R10.3 A2: the added copies alone
        strength = (state.strength[0] + len(cards), strength[1])
    if strength <= state.strength:
        return BidRejection.STAGE_NOT_HIGHER, "not stronger than the standing declaration (R14.11)"
    if face == state.face and not reinforce and face < SMALL_JOKER:
        return BidRejection.SAME_SUIT, "those are already trump; only their declarer adds copies (R10.3 A2)"
    own = state.shown.setdefault(seat, [0] * NUM_FACES)
    needed = strength[0]
    if hand is not None and hand.count(face) < needed:
        return BidRejection.CARDS_NOT_HELD, f"seat {seat} has not received {needed} {format_cards([face])}"
    elsewhere = sum(shown[face] for other, shown in state.shown.items() if other != seat)
    if elsewhere + needed > rules.decks:
        return BidRejection.CARD_SHOWN_ELSEWHERE, "another seat has shown those copies (R10.2)"
    own[face] = max(own[face], needed)
    act = _label(state, seat, face, strength, reinforce)
    if act is Act.A1_SINGLE:
        state.single = seat
    state.face, state.strength = face, strength
    if act is not Act.A2_REINFORCE:
        state.changer = seat
    state.owner = seat
    if state.first is None:
        state.first = seat
    return act


def _label(state: _Standing, seat: int, face: int, strength: tuple[int, int], reinforce: bool) -> Act:
    """R10.3's label of an accepted act; overturns counted (R10.5)."""
    joker = {SMALL_JOKER: Act.A6_SMALL_JOKER_NT, BIG_JOKER: Act.A7_BIG_JOKER_NT}.get(face)
    if state.face is None:
        return joker or (Act.A1_SINGLE if strength[0] == 1 else Act.A5_DIRECT_PAIR)
    if reinforce:
        return Act.A2_REINFORCE
    state.overturns += 1
    if joker is not None:
        return Act.A4_SELF_OVERTURN if seat == state.single == state.owner else joker
    return Act.A4_SELF_OVERTURN if seat == state.owner else Act.A3_OVERTURN
