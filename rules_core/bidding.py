"""Trump declaration during the deal: acts, stages, the overturn multiplier and the first dealer (R10).

:func:`resolve_declarations` replays the declarations of one deal in time order. Each attempted act is
either accepted, with its R10.3 label, or rejected with a :class:`BidRejection`; a rejected act changes
nothing, exactly as if it had not been made. The answer is the contract, the overturn multiplier O
(R10.5) and, in the first hand, the dealer (R10.6, R10.8).

Readings chosen where RULES.md is silent (each is pinned by a test):

* A declaration shows one level card or one identical pair; anything else is rejected. The A2
  self-reinforce may be sent as the second copy alone (the worked cases' form) or as the whole pair.
* A4 (self-overturn) is open to the A1 declarer while his own contract stands, reinforced or not (the
  literal R10.3 reading), and with a joker pair after his own A4 too (WC-167b). A joker pair may overturn
  a contract its own seat set (R10.4's ruling, WC-167a: A6/A7 name no seat); like any A6/A7 after a
  declaration it is an overturn (R10.5), NT -> NT included as WC-143a and WC-156 count it. A level pair
  never overturns its own
  seat's contract (``OWN_CONTRACT``: A3 is "another player"). ``JokerOverturn.OTHERS`` keeps [003]'s
  literal 自反/反主 for joker pairs too: only the A1 declarer's self-overturn of his standing single.
* Shown cards stay in the hand (R10.2), so the copies shown in accepted acts are public: a seat cannot
  show a copy that another seat has already shown (``CARD_SHOWN_ELSEWHERE``).
* BID-STAGES UNLIMITED: the pair stage may repeat. Any other player's level pair of a suit other than the
  trump overturns a suit contract, any number of times; jokers still outrank level cards (a level pair
  never overturns a joker no-trump) and each joker pair still needs a higher stage. O is capped at 8.
* Checks run in a fixed order, so each rejection has one reason: the cards' shape and the ruleset, then
  which act R10.3 makes of them, then the holdings (R10.1, R10.2), then the stage (R10.4).

:func:`declare` is the one entry for every table: any table other than the rulebooks' declares R14.11's
c copies of one face, 1 <= c <= D (the table's decks), ranked by (copies, kind); the context checks, the
rejection's form, O and the first dealer are the same code on every table.

>>> from rules_core.cards import parse_cards
>>> from rules_core.rules import DEFAULT_RULES
>>> shown = (["H3"], ["S3", "S3"], ["SJ", "SJ"])
>>> acts = [Declaration(seat=seat, cards=parse_cards(names)) for seat, names in enumerate(shown)]
>>> result = resolve_declarations(rules=DEFAULT_RULES, level=3, sequence=acts, first_hand=True)
>>> result.contract, result.overturn_multiplier, result.dealer, [str(act) for act in result.acts]
(None, 4, 2, ['A1', 'A3', 'A6'])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import IntEnum, StrEnum
from typing import Final, Protocol

from rules_core.cards import (
    BIG_JOKER,
    BOTTOM_SIZE,
    COPIES,
    EMPTY_HAND,
    HAND_SIZE,
    NUM_FACES,
    PLAYERS,
    SMALL_JOKER,
    Deck,
    Hand,
    Suit,
    check_copies,
    deal_sizes,
    format_card,
    format_cards,
    format_rank,
    hand_of,
    rank_of,
    suit_of,
)
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.rules import (
    BidSet,
    BidStages,
    FirstDealer,
    JokerOverturn,
    NoBid,
    Rules,
)
from rules_core.seating import seat_in_range

MAX_OVERTURN_MULTIPLIER: Final = 8
"""R10.5: O is at most 8 (three overturns)."""


class Act(StrEnum):
    """The declaration acts of R10.3."""

    A1_SINGLE = "A1"
    """One level card when nothing is declared: T := its suit."""
    A2_REINFORCE = "A2"
    """The A1 declarer shows the second copy of his card: T stays, now a pair."""
    A3_OVERTURN = "A3"
    """Another player shows a level pair of a suit other than T: T := that suit."""
    A4_SELF_OVERTURN = "A4"
    """The A1 declarer shows a level pair of another suit, or (BID-SET 003) a joker pair for NT."""
    A5_DIRECT_PAIR = "A5"
    """BID-SET 003: a level pair when nothing is declared."""
    A6_SMALL_JOKER_NT = "A6"
    """BID-SET 003: SJ SJ, declaring or overturning to no-trump."""
    A7_BIG_JOKER_NT = "A7"
    """BID-SET 003: BJ BJ, declaring or overturning to no-trump."""


class BidRejection(StrEnum):
    """Why an attempted declaration is rejected."""

    WRONG_CARD_COUNT = "WRONG_CARD_COUNT"
    """A declaration shows one card or one pair (R10.3)."""
    NOT_A_PAIR = "NOT_A_PAIR"
    """Two cards that are not the same face."""
    NOT_LEVEL_CARDS = "NOT_LEVEL_CARDS"
    """Not a card of the level rank, nor a joker pair; a single joker declares nothing (R10.2)."""
    NOT_IN_RULESET = "NOT_IN_RULESET"
    """A joker pair or a direct pair under BID-SET 000, which has only A1–A4 (R10.3)."""
    STAGE_USED = "STAGE_USED"
    """The act's stage has already been executed (R10.4)."""
    STAGE_NOT_HIGHER = "STAGE_NOT_HIGHER"
    """The act's stage is below the stage already reached (R10.4)."""
    ALREADY_DECLARED = "ALREADY_DECLARED"
    """BID-STAGES UNLIMITED: a single card declares only while nothing is declared (A1)."""
    SAME_SUIT = "SAME_SUIT"
    """A pair overturn must name a suit other than the current trump (R10.3 A3)."""
    NOT_THE_DECLARER = "NOT_THE_DECLARER"
    """Only the A1 declarer may add a card to the trump suit's single (R10.3 A2)."""
    NOTHING_TO_REINFORCE = "NOTHING_TO_REINFORCE"
    """The declarer's single was already reinforced, or no longer stands as the contract (R10.3 A2)."""
    OWN_CONTRACT = "OWN_CONTRACT"
    """A player overturns a contract he set himself, other than by A4 from his own single."""
    CARDS_NOT_HELD = "CARDS_NOT_HELD"
    """The seat has not received the cards it shows (R10.1); A2 needs both copies."""
    CARD_SHOWN_ELSEWHERE = "CARD_SHOWN_ELSEWHERE"
    """Another seat has already shown a copy this act needs (R10.2: shown cards stay in the hand)."""


@dataclass(frozen=True, slots=True)
class Declaration:
    """One attempted act: ``seat`` lays down ``cards``; ``hand``, when given, is what it has received so far.

    For a self-reinforce, ``cards`` is the second copy alone or the whole pair.
    Raises InvalidArgumentError on malformed input: a seat outside 0..3, no cards, an unknown face, a
    third copy, or a ``hand`` that is not a count vector of at most 25 cards.
    """

    seat: int
    cards: tuple[int, ...]
    hand: Hand | None = None

    def __post_init__(self) -> None:
        if isinstance(self.seat, bool) or not isinstance(self.seat, int) or not 0 <= self.seat < PLAYERS:
            raise InvalidArgumentError(
                "seat", Problem.OUT_OF_RANGE, f"seat must be 0..{PLAYERS - 1}, got {self.seat!r}"
            )
        if not self.cards:
            raise InvalidArgumentError(
                "cards", Problem.MISSING, f"seat {self.seat} declares with no cards: show at least one card"
            )
        try:
            hand_of(self.cards)  # unknown faces and third copies
        except InvalidArgumentError as error:
            raise error.within("cards") from None
        if self.hand is not None:
            _validate_hand(self.hand)


@dataclass(frozen=True, slots=True)
class Rejection:
    """A rejected act: its index in the sequence, the typed reason and a message for people."""

    index: int
    reason: BidRejection
    message: str


@dataclass(frozen=True, slots=True)
class Bidding:
    """The outcome of a deal's declarations."""

    contract: Suit | None
    """The trump suit, or None for no-trump (also when nobody declared, R10.8)."""
    declared: bool
    """Whether any act was accepted."""
    overturns: int
    """Accepted overturns: A3, A4, and A6/A7 after a declaration (R10.5)."""
    overturn_multiplier: int
    """O = 2^overturns, 1..8 (R10.5)."""
    dealer: int | None
    """First hand: the dealer by R10.6/R10.8. Later hands: the rotation dealer passed in (R10.7)."""
    first_declarer: int | None
    """The seat of the first accepted act (FIRST-DEALER 000)."""
    last_changer: int | None
    """The seat of the last accepted contract-changing act, A2 excluded (FIRST-DEALER 003)."""
    stage: int
    """The stage of the last accepted act (R10.4): 0 = none, 1 single, 2 pair, 3 SJ SJ, 4 BJ BJ."""
    acts: tuple[Act | None, ...]
    """One entry per attempted act: its label, or None when rejected."""
    rejections: tuple[Rejection, ...]
    """The rejected acts, in sequence order."""
    bottom_revealed: int = 0
    """R16.6: how many bottom cards were turned up to fix the contract (0: none were)."""

    @property
    def rejected(self) -> tuple[int, ...]:
        """The indices of the rejected acts."""
        return tuple(rejection.index for rejection in self.rejections)


class _Kind(IntEnum):
    """What a declaration shows; the value is its R10.4 stage (A2 aside, which is stage 2)."""

    LEVEL_SINGLE = 1
    LEVEL_PAIR = 2
    SMALL_JOKER_PAIR = 3
    BIG_JOKER_PAIR = 4


_SUIT_NAMES: Final = {Suit.S: "spades", Suit.H: "hearts", Suit.C: "clubs", Suit.D: "diamonds"}
_OVERTURNS: Final = frozenset(
    {Act.A3_OVERTURN, Act.A4_SELF_OVERTURN, Act.A6_SMALL_JOKER_NT, Act.A7_BIG_JOKER_NT}
)
_OPENING: Final = {
    _Kind.LEVEL_SINGLE: Act.A1_SINGLE,
    _Kind.LEVEL_PAIR: Act.A5_DIRECT_PAIR,
    _Kind.SMALL_JOKER_PAIR: Act.A6_SMALL_JOKER_NT,
    _Kind.BIG_JOKER_PAIR: Act.A7_BIG_JOKER_NT,
}
_JOKER_NT: Final = {_Kind.SMALL_JOKER_PAIR: Act.A6_SMALL_JOKER_NT, _Kind.BIG_JOKER_PAIR: Act.A7_BIG_JOKER_NT}


class _RejectError(Exception):
    """Internal control flow: the act being checked is rejected (never escapes this module)."""

    def __init__(self, reason: BidRejection, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


@dataclass(frozen=True, slots=True)
class _State:
    """The bidding so far; only accepted acts move it."""

    contract: Suit | None = None
    stage: int = 0
    declarer: int | None = None
    """The A1 declarer, who alone may reinforce (A2) or self-overturn (A4)."""
    single_suit: Suit | None = None
    """The suit of the A1 single."""
    single_stands: bool = False
    """The contract is still the A1 declarer's (A1, perhaps reinforced by A2)."""
    reinforced: bool = False
    changer: int | None = None
    """The last contract changer."""
    first: int | None = None
    """The first accepted act's seat; None while nobody has declared."""
    overturns: int = 0
    shown: tuple[Hand, ...] = (EMPTY_HAND,) * PLAYERS
    """Per seat, the copies of each face it has shown in accepted acts (R10.2: they stay in the hand)."""


class Standing(Protocol):
    """What a deal's outcome reads of the bidding so far, on every table (:func:`outcome`)."""

    @property
    def first(self) -> int | None:
        """The first accepted act's seat; None while nobody has declared."""

    @property
    def changer(self) -> int | None:
        """The last contract changer's seat, A2 excluded (FIRST-DEALER 003)."""

    @property
    def stage(self) -> int:
        """The stage of the last accepted act (R10.4; R14.11: its copies)."""

    @property
    def overturns(self) -> int:
        """Accepted overturns (R10.5)."""


def resolve_declarations(
    *,
    rules: Rules,
    level: int,
    sequence: Sequence[Declaration],
    first_hand: bool,
    first_seated: int = 0,
    dealer: int | None = None,
    bottom: Sequence[int] | None = None,
) -> Bidding:
    """Replay one deal's declarations in time order (R10.3–R10.8).

    ``bottom`` is the 8 bottom cards in the order they lie, needed only when nobody declares under a
    NO-BID from the bottom (R16.6).

    ``first_seated`` is the first hand's dealer when nobody declares (R10.8); ``dealer`` is the rotation
    dealer of a later hand (R10.7) and must be None in the first hand, whose dealer the bidding decides.
    """
    _validate_context(level=level, first_hand=first_hand, first_seated=first_seated, dealer=dealer)
    if bottom is not None:
        _validate_bottom(bottom)
    state = _State()
    acts: list[Act | None] = []
    rejections: list[Rejection] = []
    for index, declaration in enumerate(sequence):
        try:
            act, kind, face = _judge(rules, level, state, declaration)
        except _RejectError as error:
            acts.append(None)
            seat, cards = declaration.seat, declaration.cards
            rejections.append(rejected(index, seat, cards, error.reason, error.message))
            continue
        acts.append(act)
        state = _apply(state, act, kind, face, declaration.seat)
    contract, revealed = state.contract, 0
    if state.first is None and rules.no_bid is not NoBid.NO_TRUMP:
        contract, revealed = bottom_trump(rules.no_bid, level, bottom)
    dealer = first_dealer(rules, state, first_hand=first_hand, first_seated=first_seated, dealer=dealer)
    return outcome(state, acts, rejections, contract, dealer, revealed)


def rejected(index: int, seat: int, cards: Sequence[int], reason: BidRejection, why: str) -> Rejection:
    """A rejected act as every table reports it (R10.3, R14.11): who showed what, and why not."""
    return Rejection(index, reason, f"seat {seat} shows {format_cards(cards)}: {why}")


def first_dealer(
    rules: Rules, state: Standing, *, first_hand: bool, first_seated: int, dealer: int | None
) -> int | None:
    """The dealer on every table: R10.6 in the first hand (R10.8 when nobody declared); later hands keep
    the rotation dealer (R10.7)."""
    if not first_hand:
        return dealer
    if state.first is None:
        return first_seated
    return state.first if rules.first_dealer is FirstDealer.FIRST_DECLARER else state.changer


def outcome(  # noqa: PLR0917 (the outcome's parts, each once)
    state: Standing,
    acts: Sequence[Act | None],
    rejections: Sequence[Rejection],
    contract: Suit | None,
    dealer: int | None,
    revealed: int = 0,
) -> Bidding:
    """A deal's bidding on every table from its labelled acts and the bidding's end state; O is
    2^overturns, at most 8 (R10.5)."""
    return Bidding(
        contract=contract,
        declared=state.first is not None,
        overturns=state.overturns,
        overturn_multiplier=min(MAX_OVERTURN_MULTIPLIER, 2**state.overturns),
        dealer=dealer,
        first_declarer=state.first,
        last_changer=state.changer,
        stage=state.stage,
        acts=tuple(acts),
        rejections=tuple(rejections),
        bottom_revealed=revealed,
    )


def _validate_bottom(bottom: Sequence[int]) -> None:
    """R16.6's bottom: exactly 8 cards, no face more than twice (checked whenever one is given)."""
    if len(bottom) != BOTTOM_SIZE:
        raise InvalidArgumentError(
            "bottom", Problem.BAD_SIZE, f"the bottom holds {BOTTOM_SIZE} cards, got {len(bottom)}"
        )
    check_copies(bottom, "bottom")


def bottom_trump(rule: NoBid, level: int, bottom: Sequence[int] | None) -> tuple[Suit, int]:
    """R16.6: the trump suit the bottom names and how many of its cards were turned up. Jokers name no
    suit and are passed over; there are at most four, so a suit is always found.

    >>> from rules_core.cards import parse_cards
    >>> cards = parse_cards(["BJ", "S9", "HA", "D7", "C7", "SK", "S3", "HQ"])
    >>> bottom_trump(NoBid.BOTTOM_LEVEL_OR_HIGHEST, 7, cards), bottom_trump(NoBid.BOTTOM_FIRST_CARD, 7, cards)
    ((<Suit.D: 3>, 4), (<Suit.S: 0>, 2))
    >>> bottom_trump(NoBid.BOTTOM_LEVEL_OR_HIGHEST, 5, cards)
    (<Suit.H: 1>, 8)
    """
    if bottom is None:
        raise InvalidArgumentError(
            "bottom", Problem.MISSING, "nobody declared: the bottom names the trump (R16.6), give its 8 cards"
        )
    _validate_bottom(bottom)
    suited = [(i, face) for i, face in enumerate(bottom) if face < SMALL_JOKER]
    if rule is NoBid.BOTTOM_FIRST_CARD:
        i, face = suited[0]
        return Suit(face // 13), i + 1
    for i, face in suited:
        if rank_of(face) == level:
            return Suit(face // 13), i + 1
    best = max(suited, key=lambda entry: (rank_of(entry[1]), -entry[0]))[1]  # the first of equal ranks
    return Suit(best // 13), BOTTOM_SIZE


def _validate_hand(hand: Hand) -> None:
    """A hand so far is a 54-count vector of 0..2 copies with at most 25 cards (R1.6)."""
    if len(hand) != NUM_FACES or any(not 0 <= count <= COPIES for count in hand):
        raise InvalidArgumentError(
            "hand", Problem.BAD_SIZE, f"a hand must be {NUM_FACES} counts of 0..{COPIES}"
        )
    if sum(hand) > HAND_SIZE:
        raise InvalidArgumentError(
            "hand",
            Problem.BAD_SIZE,
            f"a hand during the deal holds at most {HAND_SIZE} cards, got {sum(hand)}",
        )


def _validate_context(
    *, level: int, first_hand: bool, first_seated: int, dealer: int | None, seats: int = PLAYERS
) -> None:
    """The deal's context on every table: a level rank, seats of the table (R1.5, R14.1), and no dealer
    in the first hand (R10.6)."""
    if not 2 <= level <= 14:
        raise InvalidArgumentError("level", Problem.OUT_OF_RANGE, f"level must be 2..14, got {level}")
    if not 0 <= first_seated < seats:
        raise InvalidArgumentError(
            "first_seated",
            Problem.OUT_OF_RANGE,
            f"seat {first_seated} is out of range; seats are 0..{seats - 1} (first_seated)",
        )
    if dealer is not None and not 0 <= dealer < seats:
        raise InvalidArgumentError(
            "dealer", Problem.OUT_OF_RANGE, f"dealer must be 0..{seats - 1} or None, got {dealer}"
        )
    if first_hand and dealer is not None:
        raise InvalidArgumentError(
            "dealer",
            Problem.INCONSISTENT,
            "the first hand's dealer is decided by the bidding (R10.6); omit it",
        )


def _judge(rules: Rules, level: int, state: _State, declaration: Declaration) -> tuple[Act, _Kind, int]:
    """The act a declaration makes, or a _RejectError. Order: shape, act, holdings, stage."""
    kind, face = _kind_of(rules, level, declaration.cards)
    act = _classify(rules, state, declaration.seat, kind, face)
    held = None if declaration.hand is None else declaration.hand[face]
    _check_holdings(state.shown, declaration.seat, held, act, _needed(act, kind), face, COPIES)
    _check_stage(rules, state, act, kind)
    return act, kind, face


def _kind_of(rules: Rules, level: int, cards: tuple[int, ...]) -> tuple[_Kind, int]:
    """What the cards are as a declaration (R10.2, R10.3)."""
    if len(cards) > 2:
        raise _RejectError(BidRejection.WRONG_CARD_COUNT, "a declaration is one level card or one pair")
    face = cards[0]
    if len(cards) == 2 and cards[1] != face:
        raise _RejectError(BidRejection.NOT_A_PAIR, "the two cards are not a pair")
    if face in (SMALL_JOKER, BIG_JOKER):
        if len(cards) == 1:
            raise _RejectError(
                BidRejection.NOT_LEVEL_CARDS, "a single joker declares nothing; jokers go in pairs"
            )
        if rules.bid_set is BidSet.BASIC:
            raise _RejectError(BidRejection.NOT_IN_RULESET, "BID-SET 000 has no joker no-trump")
        return (_Kind.SMALL_JOKER_PAIR if face == SMALL_JOKER else _Kind.BIG_JOKER_PAIR), face
    if rank_of(face) != level:
        raise _RejectError(BidRejection.NOT_LEVEL_CARDS, f"declarations use {format_rank(level)}s (R10.2)")
    return (_Kind.LEVEL_SINGLE if len(cards) == 1 else _Kind.LEVEL_PAIR), face


def _classify(rules: Rules, state: _State, seat: int, kind: _Kind, face: int) -> Act:
    """Name the act (R10.3) from the bidding so far; refuse acts that R10.3 does not define."""
    if state.first is None:  # nothing declared yet
        if kind is _Kind.LEVEL_PAIR and rules.bid_set is BidSet.BASIC:
            raise _RejectError(
                BidRejection.NOT_IN_RULESET, "BID-SET 000 has no direct pair: show one card first"
            )
        return _OPENING[kind]
    suit = suit_of(face)
    own_single = state.single_stands and seat == state.declarer
    if kind is _Kind.LEVEL_SINGLE:
        return _classify_single(rules, state, seat, suit, own_single)
    if kind is _Kind.LEVEL_PAIR and suit is state.contract:
        if own_single:
            return _reinforce(state)
        raise _RejectError(
            BidRejection.SAME_SUIT, f"{_suit_name(suit)} are already trump; overturn to another suit"
        )
    if own_single:
        return Act.A4_SELF_OVERTURN
    if seat == state.changer:
        if kind in _JOKER_NT and rules.joker_overturn is JokerOverturn.ANY_SEAT:
            # R10.4 ruling (WC-167): a joker pair names no seat; the A1 declarer's is his self-overturn
            return Act.A4_SELF_OVERTURN if seat == state.declarer else _JOKER_NT[kind]
        raise _RejectError(
            BidRejection.OWN_CONTRACT,
            "the seat set this contract itself; only the A1 declarer may self-overturn (A4)",
        )
    return _JOKER_NT.get(kind, Act.A3_OVERTURN)


def _classify_single(rules: Rules, state: _State, seat: int, suit: Suit | None, own_single: bool) -> Act:
    """After a declaration a single level card can only be the A1 declarer's reinforce (A2)."""
    if own_single and suit is state.contract:
        return _reinforce(state)
    if suit is state.contract:
        if state.single_stands:
            raise _RejectError(
                BidRejection.NOT_THE_DECLARER, f"only seat {state.declarer} may reinforce its single"
            )
        raise _RejectError(BidRejection.NOTHING_TO_REINFORCE, "the contract is not a single to reinforce")
    if seat == state.declarer and suit is state.single_suit:
        raise _RejectError(
            BidRejection.NOTHING_TO_REINFORCE, f"{_suit_name(suit)} are no longer the contract"
        )
    if rules.bid_stages is BidStages.UNLIMITED:
        raise _RejectError(
            BidRejection.ALREADY_DECLARED, "a single card declares only while nothing is declared"
        )
    raise _stage_error(state, _Kind.LEVEL_SINGLE)


def _reinforce(state: _State) -> Act:
    if state.reinforced:
        raise _RejectError(BidRejection.NOTHING_TO_REINFORCE, "the declaration is already a pair")
    return Act.A2_REINFORCE


def _needed(act: Act, kind: _Kind) -> int:
    """Copies of the shown face the seat must hold: A2 needs the earlier copy too (R10.1)."""
    return COPIES if act is Act.A2_REINFORCE or kind is not _Kind.LEVEL_SINGLE else 1


def _check_holdings(  # noqa: PLR0917 (the act's parts, each once)
    shown: Sequence[Sequence[int]], seat: int, held: int | None, act: Act, needed: int, face: int, copies: int
) -> None:
    """R10.1, R10.2 on every table: the seat holds ``needed`` copies of what it shows (``held``: its copies
    received so far, None when not given), and the other seats' shown copies leave room for them among the
    table's ``copies`` (D)."""
    card = format_card(face)
    if held is not None and held < needed:
        raise _RejectError(
            BidRejection.CARDS_NOT_HELD,
            f"{act} needs {needed} {card} received so far, the seat holds {held} (R10.1)",
        )
    others = [other for other, counts in enumerate(shown) if other != seat and counts[face]]
    if needed + sum(shown[other][face] for other in others) > copies:
        seats = ", ".join(f"seat {other}" for other in others)
        raise _RejectError(
            BidRejection.CARD_SHOWN_ELSEWHERE, f"{card} has already been shown by {seats} (R10.2)"
        )


def _stage_of(act: Act, kind: _Kind) -> int:
    """R10.4: single 1; A2 and level pairs 2; SJ SJ 3; BJ BJ 4."""
    return 2 if act is Act.A2_REINFORCE else int(kind)


def _check_stage(rules: Rules, state: _State, act: Act, kind: _Kind) -> None:
    """R10.4 under STAGED; under UNLIMITED level-pair overturns may also repeat the pair stage."""
    stage = _stage_of(act, kind)
    if stage > state.stage:
        return
    repeat = stage == state.stage == _Kind.LEVEL_PAIR and act in (Act.A3_OVERTURN, Act.A4_SELF_OVERTURN)
    if rules.bid_stages is BidStages.UNLIMITED and repeat:
        return
    raise _stage_error(state, stage)


_STAGE_NAMES: Final = ("nothing", "a single", "a pair", "SJ SJ", "BJ BJ")


def _stage_error(state: _State, stage: int) -> _RejectError:
    reason = BidRejection.STAGE_USED if stage == state.stage else BidRejection.STAGE_NOT_HIGHER
    message = (
        f"{_STAGE_NAMES[stage]} (stage {stage}) cannot follow {_STAGE_NAMES[state.stage]}"
        f" (stage {state.stage}): each stage once, in rising order (R10.4)"
    )
    return _RejectError(reason, message)


def _apply(state: _State, act: Act, kind: _Kind, face: int, seat: int) -> _State:
    """The bidding after an accepted act."""
    counts = list(state.shown[seat])
    counts[face] = max(counts[face], _needed(act, kind))
    shown = tuple(tuple(counts) if index == seat else hand for index, hand in enumerate(state.shown))
    state = replace(state, stage=_stage_of(act, kind), shown=shown)
    if act is Act.A2_REINFORCE:
        return replace(state, reinforced=True)
    suit = suit_of(face)
    if act in _OVERTURNS and state.changer is not None:  # R10.5: changes an earlier declaration
        overturns = state.overturns + 1  # NT -> NT by a joker pair counts too (WC-143a, WC-156)
        return replace(state, contract=suit, changer=seat, single_stands=False, overturns=overturns)
    single = act is Act.A1_SINGLE
    return replace(
        state,
        contract=suit,
        changer=seat,
        first=seat,
        declarer=seat if single else None,
        single_suit=suit if single else None,
        single_stands=single,
    )


def _suit_name(suit: Suit | None) -> str:
    return "no-trump" if suit is None else _SUIT_NAMES[suit]


Shown = tuple[int, tuple[int, ...], tuple[int, ...] | None]
"""A declaration as a request gives it: the seat, the cards shown, and the cards received so far (or None)."""


def declarations_of(acts: Sequence[Shown], path: str = "declarations") -> tuple[Declaration, ...]:
    """Declaration values from a request's acts; a malformed act is named by its path
    (``declarations[1].seat``)."""
    found = []
    for i, (seat, cards, hand) in enumerate(acts):
        try:
            held = None
            if hand is not None:
                if not 1 <= len(hand) <= HAND_SIZE:
                    raise InvalidArgumentError(
                        "hand",
                        Problem.BAD_SIZE,
                        f"a hand during the deal holds 1 to {HAND_SIZE} cards, got {len(hand)}",
                    )
                try:
                    held = hand_of(hand)
                except InvalidArgumentError as error:
                    raise error.within("hand") from None
            found.append(Declaration(seat=seat, cards=cards, hand=held))
        except InvalidArgumentError as error:
            raise error.within(f"{path}[{i}]") from None
    return tuple(found)


def declare(
    *,
    rules: Rules,
    level: int,
    acts: Sequence[Shown],
    first_hand: bool,
    first_seated: int = 0,
    dealer: int | None = None,
    bottom: Sequence[int] | None = None,
) -> Bidding:
    """R10 on every table, the acts as a request lists them: the rulebooks' table (two decks, four seats,
    fixed partners) replays R10.3-R10.8 (:func:`resolve_declarations`), any other R14.11's c copies of a
    face, 1 <= c <= D, with the same context checks, labels, O and first dealer."""
    if rules.rulebook_table:
        return resolve_declarations(
            rules=rules,
            level=level,
            sequence=declarations_of(acts),
            first_hand=first_hand,
            first_seated=first_seated,
            dealer=dealer,
            bottom=bottom,
        )
    if bottom:
        raise InvalidArgumentError(
            "bottom", Problem.INCONSISTENT, "NO-BID from the bottom is not offered on other tables (R14.11)"
        )
    seats = rules.seats
    _validate_context(
        level=level, first_hand=first_hand, first_seated=first_seated, dealer=dealer, seats=seats
    )
    state = _Copies(shown=[[0] * NUM_FACES for _ in range(seats)])
    labels: list[Act | None] = []
    rejections: list[Rejection] = []
    for index, (seat, cards, hand) in enumerate(acts):
        _check_act(rules, f"declarations[{index}]", seat, cards, hand)
        try:
            labels.append(_judge_copies(rules, level, state, seat, cards, hand))
        except _RejectError as error:
            labels.append(None)
            rejections.append(rejected(index, seat, cards, error.reason, error.message))
    if state.face is None and rules.no_bid is not NoBid.NO_TRUMP:
        raise InvalidArgumentError(
            "no_bid", Problem.INCONSISTENT, "on other tables nobody declaring gives no-trump (R14.11, R10.8)"
        )
    contract = None if state.face is None or state.face >= SMALL_JOKER else Suit(state.face // 13)
    dealer = first_dealer(rules, state, first_hand=first_hand, first_seated=first_seated, dealer=dealer)
    return outcome(state, labels, rejections, contract, dealer)


# ------------------------------------------------------------------------------------------------
# R14.11: c copies of a face on another table


_KIND: Final = {SMALL_JOKER: 1, BIG_JOKER: 2}
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
class _Copies:
    """The bidding so far on another table (R14.11); only accepted acts move it."""

    face: int | None = None
    strength: tuple[int, int] = (0, 0)
    owner: int | None = None
    first: int | None = None
    single: int | None = None
    """The opening single's (A1) seat: its joker act over its own standing contract is an A4 (R10.3)."""
    changer: int | None = None
    overturns: int = 0
    shown: list[list[int]] = field(default_factory=list)
    """Per seat, the copies of each face shown in accepted acts (R10.2: they stay in the hand)."""

    @property
    def stage(self) -> int:
        """R14.11: the standing declaration's copies, reported as the bidding's stage (:class:`Standing`)."""
        return self.strength[0]


def _check_act(rules: Rules, path: str, seat: int, cards: Sequence[int], hand: Sequence[int] | None) -> None:
    """Malformed acts are INVALID_ARGUMENT naming their field: a seat of the table, 1..D known faces, a
    hand so far of at most the table's hand size (R14.1, R14.2)."""
    seat_in_range(seat, f"{path}.seat", rules.seats)
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


def _judge_copies(  # noqa: PLR0917 (one private step of declare)
    rules: Rules, level: int, state: _Copies, seat: int, cards: Sequence[int], hand: Sequence[int] | None
) -> Act:
    """The act ``cards`` make, ``state`` moved (R14.11), or a _RejectError with its reason."""
    strength = strength_of(level, cards)
    if isinstance(strength, BidRejection):
        why = (
            "one face only" if strength is BidRejection.NOT_A_PAIR else f"{format_rank(level)}s or 2+ jokers"
        )
        raise _RejectError(
            strength, f"a declaration shows copies of one level card or 2+ of one joker: {why} (R14.11)"
        )
    face = cards[0]
    reinforce = seat == state.owner and face == state.face
    if reinforce and len(cards) <= state.strength[0]:  # R10.3 A2: the added copies alone
        strength = (state.strength[0] + len(cards), strength[1])
    if strength <= state.strength:
        raise _RejectError(
            BidRejection.STAGE_NOT_HIGHER, "not stronger than the standing declaration (R14.11)"
        )
    if face == state.face and not reinforce and face < SMALL_JOKER:
        raise _RejectError(
            BidRejection.SAME_SUIT, "those are already trump; only their declarer adds copies (R10.3 A2)"
        )
    act = _label_copies(state, seat, face, strength, reinforce)
    held = None if hand is None else hand.count(face)
    _check_holdings(state.shown, seat, held, act, strength[0], face, rules.decks)
    state.shown[seat][face] = max(state.shown[seat][face], strength[0])
    if state.face is not None and act is not Act.A2_REINFORCE:
        state.overturns += 1  # R10.5
    if act is Act.A1_SINGLE:
        state.single = seat
    if act is not Act.A2_REINFORCE:
        state.changer = seat
    state.face, state.strength, state.owner = face, strength, seat
    if state.first is None:
        state.first = seat
    return act


def _label_copies(state: _Copies, seat: int, face: int, strength: tuple[int, int], reinforce: bool) -> Act:
    """R10.3's label of an accepted act on another table."""
    joker = {SMALL_JOKER: Act.A6_SMALL_JOKER_NT, BIG_JOKER: Act.A7_BIG_JOKER_NT}.get(face)
    if state.face is None:
        return joker or (Act.A1_SINGLE if strength[0] == 1 else Act.A5_DIRECT_PAIR)
    if reinforce:
        return Act.A2_REINFORCE
    if joker is not None:
        return Act.A4_SELF_OVERTURN if seat == state.single == state.owner else joker
    return Act.A4_SELF_OVERTURN if seat == state.owner else Act.A3_OVERTURN
