"""What a seat shows while the cards are dealt (托管 during the deal, R10): a declaration, or nothing.

R10 itself is :mod:`rules_core.bidding`'s: every act this module proposes is replayed there after the
deal's earlier acts, and only an accepted one is suggested, so a suggestion is legal by construction.
This module only decides what is *worth* showing:

* it values a contract by the trumps it would give the seat: those held (jokers, level cards, the suit)
  plus the share of the cards still to come, over the average share of a 25-card hand, with a bonus for
  jokers, level cards and trump pairs (they win tricks and protect the bottom);
* with nothing declared it opens (A1, or A5 with a pair, or A6/A7 with a joker pair) in its best suit
  when that value passes a bar that falls as the deal goes on (an early hand is mostly unknown, a late
  one is what it is, and nobody declaring means no-trump, R10.8);
* it reinforces its own standing single when it holds the pair (A2: the pair stage then blocks level
  pair overturns, R10.4);
* it overturns an opponent's contract (A3, A6, A7) when its level pair or joker pair gives a clearly
  better contract for the seat than the one standing, and its own (A4) only for a much better one; it
  never overturns its partner;
* what a declaration wins sets the bars (:class:`Role`): in the first hand it wins the deal (R10.6); in
  a later hand the dealer is fixed (R10.7), so the dealer's side declares more readily (its trumps defend
  the bottom it keeps, and its overturn margin is smaller), and the attackers only to take the contract
  with their own long suit.

On another table (R14.11) the same policy reads the table from the ``Rules``: D copies (showing every
copy of a level card held is its strongest act), the table's hand size for the deal's progress and the
average share, N seats; under finding friends no partner is known while the cards are dealt (the calls
come after the bury, R15.2), so only the dealer's own declarations count as his side's. Acts are judged
by ``rules_core.bidding.declare`` there.

The request holds no other seat's received cards (:mod:`~rules_core.strategy.privacy`).

Bounded: at most ten candidate acts, each judged by one replay of the request's acts (at most 100).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from rules_core.bidding import Act, Bidding, Declaration, declarations_of, declare, resolve_declarations
from rules_core.cards import (
    BIG_JOKER,
    COPIES,
    DECK_SIZE,
    EMPTY_HAND,
    HAND_SIZE,
    NUM_FACES,
    PLAYERS,
    SMALL_JOKER,
    Hand,
    Suit,
    check_copies,
    check_size,
    deal_sizes,
    face_of,
    format_cards,
)
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.rules import Partners, Rules
from rules_core.strategy.privacy import refuse_other_hands
from rules_core.trump import TRUMP, trump_context

OPENING_BAR: Final = 1.25
"""An opening needs this multiple of an average hand's trumps at the start of the deal ..."""
LATE_BAR: Final = 1.0
"""... falling to this once all 25 cards are in (nobody declaring means no-trump, R10.8)."""
OVERTURN_MARGIN: Final = 0.2
"""An opponent's contract is overturned only for a contract this much better for the seat."""
SELF_OVERTURN_MARGIN: Final = 0.5
"""The seat's own contract only for a contract this much better (A4 doubles O too, R10.5)."""
HONOUR_BONUS: Final = 0.5
"""Extra trumps' worth for each joker and level card held: they are the top of every trump ladder."""
PAIR_BONUS: Final = 1.0
"""Extra trumps' worth for each trump pair held (pairs and tractors win tricks and the dig, R8.4)."""
SUIT_SHARE: Final = HAND_SIZE * 36 / DECK_SIZE
"""The trumps of an average 25-card hand under a suit contract (4 jokers, 8 level cards, 24 of the
suit): the bonuses are counted in these units whatever the contract, so no-trump is not flattered."""
JOKER_WAIT: Final = 20
"""A joker pair is shown only once this many cards are in: it outranks every level card (R10.4), so
waiting costs no stage race and shows a hand that is known."""


DEALER_BAR: Final = (1.1, 0.9)
"""A later hand, the dealer's side: the opening bar from the first card to the last. Lower than a first
hand's: the side keeps the bottom whoever declares (R10.7), and a trump suit of its own is what defends
it at the last trick (R8.3), while silence leaves the attackers to name their long suit."""
ATTACK_BAR: Final = (1.25, 1.0)
"""A later hand, the attackers: a first hand's bar, but declaring wins them no deal (R10.7), so they name a
suit only when it is their own long one (:data:`LONG_SUIT`): a contract on trumps the dealer's side holds
(its jokers and level cards count for whoever declares) only helps the dealer's side."""
DEALER_OVERTURN_MARGIN: Final = 0.1
"""The dealer's side overturns the attackers' contract (their long suit) for a smaller gain."""
LONG_SUIT: Final = 1.0
"""An attacker's suit is its own long one when it holds at least this multiple of an average share of that
suit's plain cards (12 ranks, two decks) among the cards received. Tuned on tournament seeds 11 and 12
against 1.25 with a higher bar (1.35 to 1.1): 38.6 against 37.6 points per deal (noise is about 2)."""


@dataclass(frozen=True, slots=True)
class TableAct:
    """An act on another table as the policy reads it (R14.11): its seat (0..N-1) and shown cards."""

    seat: int
    cards: tuple[int, ...]


Shown = Declaration | TableAct
"""An act of the deal: a Declaration on the rulebooks' table (R10), a TableAct on another."""


class Role(StrEnum):
    """Why the seat would declare: what R10.6/R10.7 make a declaration win."""

    CONTEST = "CONTEST"
    """The first hand: declaring wins the deal for the seat (R10.6)."""
    DEALER_SIDE = "DEALER_SIDE"
    """A later hand, the rotation dealer or his partner: declaring picks the trump the side defends with."""
    ATTACKERS = "ATTACKERS"
    """A later hand, the other side: declaring takes the contract in its own long suit."""


class DeclarationPolicy(StrEnum):
    """How :func:`suggest_declaration` decides."""

    STRONG = "STRONG"
    """Declare, reinforce or overturn when the holding is worth it (the default)."""
    NONE = "NONE"
    """Never declare (the plain policy: the deal goes on as if the seat were away)."""


@dataclass(frozen=True, slots=True)
class DeclarationAdvice:
    """The act to make now: the cards to show and the R10.3 act they make, or nothing (``cards`` empty)."""

    cards: tuple[int, ...]
    act: Act | None
    reason: str
    policy: DeclarationPolicy


@dataclass(frozen=True, slots=True)
class _Deal:
    """What the seat knows during the deal: its cards, how many it has, and the copies others showed."""

    level: int
    hand: Hand
    received: int
    shown_elsewhere: Hand
    """Per face, the copies other seats have shown in accepted acts (R10.2: they are in their hands)."""
    role: Role
    first_hand: bool
    dealer: int | None
    copies: int = COPIES
    """D, the copies of each face (R14.1)."""
    size: int = HAND_SIZE
    """The table's hand size (R14.2)."""
    fixed: bool = True
    """Fixed partners (every other seat is a partner, R14.9); under finding friends no partner is known
    while the cards are dealt (the calls come after the bury, R15.2)."""

    @property
    def deck(self) -> int:
        """The cards of the table's decks (108 on the rulebooks' table)."""
        return NUM_FACES * self.copies


def suggest_declaration(
    *,
    rules: Rules,
    level: int,
    seat: int,
    received: Sequence[int],
    acts: Sequence[tuple[int, tuple[int, ...], tuple[int, ...] | None]],
    policy: DeclarationPolicy = DeclarationPolicy.STRONG,
    first_hand: bool = True,
    dealer: int | None = None,
) -> DeclarationAdvice:
    """The declaration ``seat`` should make now, having received ``received`` (in deal order) after the
    deal's earlier ``acts`` (as ValidateDeclaration's request lists them, but with no other seat's
    received cards: they are private, :mod:`~rules_core.strategy.privacy`). ``first_hand`` and ``dealer``
    mean what they mean for ValidateDeclaration (R10.6, R10.7). Always legal under R10 (R14.11 on
    another table: declarations of up to D copies, judged by ``bidding.declare``)."""
    seats, copies = rules.seats, rules.decks
    size = deal_sizes(copies, seats)[0]
    _check_seat(seat, seats)
    if not 2 <= level <= 14:
        raise InvalidArgumentError("level", Problem.OUT_OF_RANGE, f"level must be 2..14, got {level}")
    check_deal_context(first_hand=first_hand, dealer=dealer, seats=seats)
    check_size(received, "received", 1, size, "a hand during the deal")
    hand = check_copies(received, "received", copies)
    refuse_other_hands(seat, acts, received)
    sequence = _sequence(rules, acts)
    bidding = _resolve(rules, level, sequence, first_hand=first_hand, dealer=dealer, acts=acts)
    fixed = rules.partners is Partners.FIXED
    deal = _Deal(
        level,
        hand,
        len(received),
        _shown_elsewhere(seat, hand, sequence, bidding, seats=seats, copies=copies),
        _role(seat, first_hand, dealer, fixed=fixed),
        first_hand,
        dealer,
        copies,
        size,
        fixed,
    )
    if policy is DeclarationPolicy.NONE:
        return DeclarationAdvice((), None, "none: this policy never declares", policy)
    for cards, why in _wanted(deal, seat, sequence, bidding):
        act = _accepted(rules, deal, seat, sequence, cards)
        if act is not None:
            return DeclarationAdvice(cards, act, f"strong: {act} {format_cards(cards)}, {why}", policy)
    return DeclarationAdvice((), None, _why_not(deal, seat, bidding), policy)


def check_deal_context(*, first_hand: bool, dealer: int | None, seats: int = PLAYERS) -> None:
    """As ValidateDeclaration: a first hand names no dealer (the bidding decides it, R10.6); a later hand
    names its rotation dealer, 0..seats-1 (R10.7, R14.1), since who deals decides what a declaration is
    worth."""
    if dealer is not None and not 0 <= dealer < seats:
        raise InvalidArgumentError(
            "dealer", Problem.OUT_OF_RANGE, f"dealer must be 0..{seats - 1}, got {dealer}"
        )
    if first_hand and dealer is not None:
        raise InvalidArgumentError(
            "dealer",
            Problem.INCONSISTENT,
            "the first hand's dealer is decided by the bidding (R10.6); omit it",
        )
    if not first_hand and dealer is None:
        raise InvalidArgumentError(
            "dealer", Problem.MISSING, "a later hand's dealer is fixed by rotation (R10.7): give it"
        )


def _sequence(
    rules: Rules, acts: Sequence[tuple[int, tuple[int, ...], tuple[int, ...] | None]]
) -> tuple[Shown, ...]:
    """The request's acts as Declaration values: R10's own reading on the rulebooks' table; on another
    the shown cards only (a hand of more than two copies is no two-deck count vector: the request's
    hands are judged once with its acts, :func:`_resolve`, R14.11)."""
    if rules.rulebook_table:
        return declarations_of(acts)
    return tuple(TableAct(who, tuple(cards)) for who, cards, _ in acts)


def _resolve(
    rules: Rules,
    level: int,
    sequence: Sequence[Shown],
    *,
    first_hand: bool,
    dealer: int | None,
    acts: Sequence[tuple[int, tuple[int, ...], tuple[int, ...] | None]] | None = None,
) -> Bidding:
    """The bidding so far: R10 on the rulebooks' table, R14.11 on another (up to D copies), there with
    the request's ``acts`` as sent (the seat's own received cards judged with its acts, R10.1) or, for
    an attempt, the sequence's shown cards (the seat's own cards were checked against what it holds)."""
    if rules.rulebook_table:
        declarations = [d for d in sequence if isinstance(d, Declaration)]  # every one, on this table
        return resolve_declarations(
            rules=rules, level=level, sequence=declarations, first_hand=first_hand, dealer=dealer
        )
    shown = acts if acts is not None else [(d.seat, d.cards, None) for d in sequence]
    return declare(rules=rules, level=level, acts=shown, first_hand=first_hand, dealer=dealer)


def _role(seat: int, first_hand: bool, dealer: int | None, *, fixed: bool = True) -> Role:
    """What declaring wins; under finding friends only the dealer himself is known to be on his side
    while the cards are dealt (R15.2: the calls come later)."""
    if first_hand or dealer is None:
        return Role.CONTEST
    same = (seat - dealer) % 2 == 0 if fixed else seat == dealer
    return Role.DEALER_SIDE if same else Role.ATTACKERS


def _check_seat(seat: int, seats: int = PLAYERS) -> None:
    if not 0 <= seat < seats:
        raise InvalidArgumentError("seat", Problem.OUT_OF_RANGE, f"seat must be 0..{seats - 1}, got {seat}")


def _shown_elsewhere(
    seat: int,
    hand: Hand,
    sequence: Sequence[Shown],
    bidding: Bidding,
    *,
    seats: int = PLAYERS,
    copies: int = COPIES,
) -> Hand:
    """The copies other seats showed in accepted acts; with the seat's own cards at most D (two on the
    rulebooks' table) of each face, and the seat's own accepted acts among its cards (shown cards stay
    in the hand, R10.2)."""
    decks = copies
    shown = [list(EMPTY_HAND) for _ in range(seats)]
    for index, (declaration, act) in enumerate(zip(sequence, bidding.acts, strict=True)):
        if act is None:
            continue
        face = declaration.cards[0]
        copies = COPIES if act is Act.A2_REINFORCE and decks == COPIES else len(declaration.cards)
        shown[declaration.seat][face] = max(shown[declaration.seat][face], copies)
        if declaration.seat == seat and hand[face] < copies:
            raise InvalidArgumentError(
                f"declarations[{index}].cards",
                Problem.INCONSISTENT,
                f"seat {seat} showed {format_cards(declaration.cards)} but its received cards lack them: "
                "shown cards stay in the hand (R10.2)",
            )
    elsewhere = tuple(
        sum(shown[other][face] for other in range(seats) if other != seat) for face in range(NUM_FACES)
    )
    for face in range(NUM_FACES):
        if hand[face] + elsewhere[face] > decks:
            raise InvalidArgumentError(
                "received",
                Problem.INCONSISTENT,
                f"{format_cards([face])}: the seat holds {hand[face]} and other seats showed"
                f" {elsewhere[face]}; {_DECKS.get(decks, str(decks))} decks hold {decks}",
            )
    return elsewhere


_DECKS: Final = {2: "two", 3: "three", 4: "four"}


def _trump_faces(level: int, trump: Suit | None) -> tuple[int, ...]:
    """The faces that are trumps under this contract (R2): jokers, level cards and the trump suit."""
    return trump_context(level, trump).faces[TRUMP]


def _value(deal: _Deal, trump: Suit | None) -> float:
    """How good contract ``trump`` is for the seat: its expected trumps at the end of the deal, plus the
    honours and pairs bonus, over the trumps an average 25-card hand gets under that contract."""
    faces = _trump_faces(deal.level, trump)
    held = sum(deal.hand[face] for face in faces)
    total = deal.copies * len(faces)
    unseen_trumps = total - held - sum(deal.shown_elsewhere[face] for face in faces)
    unseen = deal.deck - deal.received - sum(deal.shown_elsewhere)
    expected = held + (deal.size - deal.received) * max(unseen_trumps, 0) / max(unseen, 1)
    honours = sum(deal.hand[face] for face in faces if _is_honour(deal.level, face))
    pairs = sum(1 for face in faces if deal.hand[face] >= COPIES)  # tuples too (R14.3)
    average = deal.size * total / deal.deck
    share = SUIT_SHARE if deal.copies == COPIES else deal.size * 18 * deal.copies / deal.deck
    return expected / average + (HONOUR_BONUS * honours + PAIR_BONUS * pairs) / share


def _is_honour(level: int, face: int) -> bool:
    return face >= SMALL_JOKER or face % 13 + 2 == level


def _bar(deal: _Deal) -> float:
    """The value an opening needs: high early in the deal, lower as the hand is known (R10.1, R10.8), and
    by what declaring wins (:class:`Role`)."""
    early, late = {
        Role.CONTEST: (OPENING_BAR, LATE_BAR),
        Role.DEALER_SIDE: DEALER_BAR,
        Role.ATTACKERS: ATTACK_BAR,
    }[deal.role]
    return early - (early - late) * deal.received / deal.size


def _own_long_suit(deal: _Deal, trump: Suit | None) -> bool:
    """Whether the seat could name ``trump`` as an attacker: no-trump always (the value bar decides), a
    suit when the seat holds a long one of its plain cards (not the level cards)."""
    if deal.role is not Role.ATTACKERS or trump is None:
        return True
    level_face = face_of(trump, deal.level)
    plain = [face for face in range(trump * 13, trump * 13 + 13) if face != level_face]
    held = sum(deal.hand[face] for face in plain)
    average = deal.received * deal.copies * len(plain) / deal.deck
    return held >= LONG_SUIT * average


def _stake(deal: _Deal) -> str:
    return {
        Role.CONTEST: "declaring wins the deal in the first hand (R10.6)",
        Role.DEALER_SIDE: f"the trump the dealer's side (seat {deal.dealer}) defends the bottom with (R10.7)",
        Role.ATTACKERS: "a contract in the attackers' own long suit (R10.7)",
    }[deal.role]


def _wanted(
    deal: _Deal, seat: int, sequence: Sequence[Shown], bidding: Bidding
) -> list[tuple[tuple[int, ...], str]]:
    """The acts worth making now, best first (each still to be judged by R10)."""
    if not bidding.declared:
        return _openings(deal)
    owner = bidding.last_changer
    assert owner is not None
    if owner != seat and deal.fixed and owner % 2 == seat % 2:
        return []  # the partner's contract: never overturned
    current = bidding.contract
    reinforce: list[tuple[tuple[int, ...], str]] = []
    if owner == seat and current is not None and _single_stands(seat, sequence, bidding):
        face = face_of(current, deal.level)
        if deal.hand[face] >= COPIES:
            reinforce.append(
                (
                    (face,) * deal.hand[face],
                    "reinforcing its own single (A2 blocks level-pair overturns, R10.4)",
                )
            )
    if owner == seat:
        margin = SELF_OVERTURN_MARGIN
    elif deal.role is Role.DEALER_SIDE:
        margin = DEALER_OVERTURN_MARGIN
    else:
        margin = OVERTURN_MARGIN
    standing = _value(deal, current)
    bar = max(_bar(deal), standing + margin)
    overturns: list[tuple[float, tuple[int, ...], str]] = []
    for cards, trump in _pairs(deal):
        worth = _value(deal, trump)
        if trump != current and worth >= bar and _own_long_suit(deal, trump):
            why = f"{_name(trump)} worth {worth:.2f} against {standing:.2f} now; {_stake(deal)}"
            overturns.append((worth, cards, why))
    overturns.sort(key=lambda option: -option[0])  # stable: the big jokers before the small at a tie
    return reinforce + [(cards, why) for _, cards, why in overturns]


def _single_stands(seat: int, sequence: Sequence[Shown], bidding: Bidding) -> bool:
    """Whether the contract is still the seat's own A1 single, not yet reinforced."""
    accepted = [(d, act) for d, act in zip(sequence, bidding.acts, strict=True) if act is not None]
    return bool(accepted) and accepted[-1][1] is Act.A1_SINGLE and accepted[-1][0].seat == seat


def _openings(deal: _Deal) -> list[tuple[tuple[int, ...], str]]:
    """With nothing declared: the held level cards and joker pairs whose contract passes the bar, best
    first; a pair is shown whole (A5 or A6/A7, a higher stage: harder to overturn), a single as A1."""
    bar = _bar(deal)
    options: list[tuple[float, tuple[int, ...], str]] = []
    for suit in Suit:
        face = face_of(suit, deal.level)
        if deal.hand[face]:
            worth = _value(deal, suit)
            if worth >= bar and _own_long_suit(deal, suit):
                why = f"{_name(suit)} worth {worth:.2f} of an average hand (bar {bar:.2f}); {_stake(deal)}"
                if deal.hand[face] >= COPIES:  # every copy held: the strongest showing (R14.11)
                    options.append((worth + 0.01, (face,) * deal.hand[face], why))
                options.append((worth, (face,), why))
    for joker in (BIG_JOKER, SMALL_JOKER):
        if deal.hand[joker] >= COPIES and deal.received >= _joker_wait(deal):
            worth = _value(deal, None)
            if worth >= bar:
                why = f"no-trump worth {worth:.2f} of an average hand (bar {bar:.2f}); {_stake(deal)}"
                cards = (joker,) * deal.hand[joker]
                options.append((worth + (0.02 if joker == BIG_JOKER else 0.01), cards, why))
    options.sort(key=lambda option: -option[0])
    return [(cards, why) for _, cards, why in options]


def _pairs(deal: _Deal) -> list[tuple[tuple[int, ...], Suit | None]]:
    """The overturning pairs the seat holds: level pairs (their suit) and joker pairs (no-trump), the big
    jokers first (stage 4 ends the bidding, R10.4)."""
    found: list[tuple[tuple[int, ...], Suit | None]] = [
        ((face_of(suit, deal.level),) * deal.hand[face_of(suit, deal.level)], suit)
        for suit in Suit
        if deal.hand[face_of(suit, deal.level)] >= COPIES
    ]
    if deal.received >= _joker_wait(deal):
        found += [
            ((joker,) * deal.hand[joker], None)
            for joker in (BIG_JOKER, SMALL_JOKER)
            if deal.hand[joker] >= COPIES
        ]
    return found


def _joker_wait(deal: _Deal) -> int:
    """:data:`JOKER_WAIT` of a 25-card hand, as the same share of the table's hand (R14.2)."""
    return JOKER_WAIT * deal.size // HAND_SIZE


def _accepted(
    rules: Rules, deal: _Deal, seat: int, sequence: Sequence[Shown], cards: tuple[int, ...]
) -> Act | None:
    """R10 decides: the act ``cards`` makes after the deal's acts, or None when it would be rejected."""
    attempt: Shown = (
        Declaration(seat=seat, cards=cards, hand=deal.hand) if rules.rulebook_table else TableAct(seat, cards)
    )
    result = _resolve(rules, deal.level, [*sequence, attempt], first_hand=deal.first_hand, dealer=deal.dealer)
    return result.acts[-1]


def _why_not(deal: _Deal, seat: int, bidding: Bidding) -> str:
    owner = bidding.last_changer
    if owner is not None and owner != seat and deal.fixed and owner % 2 == seat % 2:
        return "strong: nothing; the partner's contract stands"
    held = any(deal.hand[face_of(suit, deal.level)] for suit in Suit) or any(
        deal.hand[joker] >= COPIES for joker in (SMALL_JOKER, BIG_JOKER)
    )
    if not held:
        return "strong: nothing; no level card or joker pair to show"
    return "strong: nothing; no legal act makes a contract worth showing now"


def _name(trump: Suit | None) -> str:
    return "no-trump" if trump is None else f"{trump.name} trump"
