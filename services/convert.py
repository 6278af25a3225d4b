"""Proto <-> domain: the single place where wire types meet rules_core types.

Inbound, every field is validated before rules_core sees it, and a bad field raises
``InvalidRequestError`` naming its path in the request (``trick.plays[1].cards[0]``), so rules_core's
own ValueErrors are never the first line of defence. Outbound, domain values become messages; cards
travel as ``Card`` enum numbers, which are face + 1.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Final, TypeVar

from rules_core.audit import MAX_TRICKS, Audit, Finding, TrickRecord
from rules_core.bidding import Act, Bidding, BidRejection, Declaration
from rules_core.cards import (
    COPIES,
    HAND_SIZE,
    NUM_FACES,
    PLAYERS,
    Suit,
    format_card,
    hand_of,
)
from rules_core.forced_quit import Penalty, Phase, Role
from rules_core.rules import (
    PRESETS,
    BidSet,
    BidStages,
    DigMultiplier,
    DigShape,
    EndRule,
    FirstDealer,
    JokerOverturn,
    RuffStructure,
    Rules,
    ThrowCheck,
)
from rules_core.seating import SeatCards
from rules_core.settlement import Settlement, Side
from rules_core.shapes import Component, Decomposition, Shape, decompose
from rules_core.taodou import CoinSettlement
from rules_core.trick import Judgement, TrickResult
from rules_core.trump import TrumpContext, trump_context
from rules_core.turn import Listing, PlayVerdict, Suggestion
from rules_core.verdicts import Illegal, Legal, ThrowResult, Violation
from services.errors import Reason, invalid
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import types_pb2 as t

DEFAULT_PRESET: Final = "default"
MAX_DECLARATIONS: Final = 100
"""Far more acts than a deal allows (4 stages, a few rejected tries each): bounds a request's work."""
MAX_CARDS: Final = COPIES * NUM_FACES
"""The most cards any one field can hold: both decks (108). Checked by length before any card is read."""
MAX_LEVELS: Final = 13
"""The most ranks a list of levels can name (2 .. A)."""
MAX_ECHO: Final = 40
"""Characters of a caller's string repeated in an error message: details and logs stay small."""
MIN_LEVEL: Final = 2
MAX_LEVEL: Final = 14

E = TypeVar("E", bound=Enum)

# --------------------------------------------------------------------------------------------------
# Inbound: scalars and enums
# --------------------------------------------------------------------------------------------------


def seat(value: int, path: str) -> int:
    """A seat 0..3."""
    if not 0 <= value < PLAYERS:
        raise invalid(path, Reason.OUT_OF_RANGE, f"seat {value} is out of range; seats are 0..{PLAYERS - 1}")
    return value


def level(value: int, path: str) -> int:
    """A required rank (2..14) from a ``Rank`` enum number."""
    if value == t.RANK_UNSPECIFIED:
        raise invalid(path, Reason.MISSING, "a rank is required (RANK_2 .. RANK_A)")
    if not MIN_LEVEL <= value <= MAX_LEVEL:
        raise invalid(path, Reason.UNKNOWN_VALUE, f"unknown rank {value}; ranks are RANK_2 .. RANK_A (2..14)")
    return value


_SUITS: Final = {
    t.CONTRACT_SPADES: Suit.S,
    t.CONTRACT_HEARTS: Suit.H,
    t.CONTRACT_CLUBS: Suit.C,
    t.CONTRACT_DIAMONDS: Suit.D,
}


def contract(value: t.Contract.ValueType, path: str) -> Suit | None:
    """The trump suit, or None for no-trump, from a required ``Contract``."""
    if value == t.CONTRACT_UNSPECIFIED:
        raise invalid(path, Reason.MISSING, "a contract is required (a trump suit or CONTRACT_NO_TRUMP)")
    if value == t.CONTRACT_NO_TRUMP:
        return None
    if value not in _SUITS:
        raise invalid(path, Reason.UNKNOWN_VALUE, f"unknown contract {value}")
    return _SUITS[value]


def trump(level_value: int, contract_value: t.Contract.ValueType) -> TrumpContext:
    """The trump context of a request's ``level`` and ``contract`` fields."""
    return trump_context(level(level_value, "level"), contract(contract_value, "contract"))


def _enum(value: int, wrapper: Any, prefix: str, domain: type[E], path: str) -> E:
    """A domain enum member from a proto enum number whose name is ``prefix`` + the member's name."""
    try:
        name = wrapper.Name(value)
    except ValueError:
        raise invalid(path, Reason.UNKNOWN_VALUE, f"unknown value {value}") from None
    try:
        return domain[name.removeprefix(prefix)]
    except KeyError:
        raise invalid(path, Reason.UNKNOWN_VALUE, f"{name} is not an option") from None


_OVERRIDES: Final[tuple[tuple[str, str, Any, str, type[Enum]], ...]] = (
    # (proto field, Rules field, proto enum, value prefix, domain enum)
    ("throw_check", "throw", t.ThrowCheck, "THROW_CHECK_", ThrowCheck),
    ("ruff_structure", "ruff", t.RuffStructure, "RUFF_STRUCTURE_", RuffStructure),
    ("dig_multiplier", "dig_multiplier", t.DigMultiplier, "DIG_MULTIPLIER_", DigMultiplier),
    ("dig_shape", "dig_shape", t.DigShape, "DIG_SHAPE_", DigShape),
    ("first_dealer", "first_dealer", t.FirstDealer, "FIRST_DEALER_", FirstDealer),
    ("bid_set", "bid_set", t.BidSet, "BID_SET_", BidSet),
    ("bid_stages", "bid_stages", t.BidStages, "BID_STAGES_", BidStages),
    ("end_rule", "end", t.EndRule, "END_RULE_", EndRule),
    ("joker_overturn", "joker_overturn", t.JokerOverturn, "JOKER_OVERTURN_", JokerOverturn),
)


def echo(text: str) -> str:
    """A caller's string for an error message, cut to ``MAX_ECHO`` characters.

    >>> echo("house"), echo("x" * 100)[-12:]
    ("'house'", "… (100 chars)")
    """
    if len(text) <= MAX_ECHO:
        return repr(text)
    return f"{text[:MAX_ECHO]!r}… ({len(text)} chars)"


_OVERRIDE_FIELDS: Final = tuple(field for field, *_ in _OVERRIDES)


def ruleset(message: t.Ruleset, path: str = "ruleset") -> tuple[Rules, str]:
    """The ``Rules`` a request asks for (its preset, then its overrides) and the preset's name."""
    preset = message.preset or DEFAULT_PRESET
    if preset not in PRESETS:
        names = ", ".join(sorted(PRESETS))
        raise invalid(
            f"{path}.preset", Reason.UNKNOWN_VALUE, f"unknown preset {echo(preset)}; one of {names}"
        )
    overridden = any(getattr(message, field) for field in _OVERRIDE_FIELDS)
    if not (overridden or message.HasField("must_play") or message.HasField("coins")):
        return PRESETS[preset], preset  # the common case, a preset alone: no replace() to pay for
    changes: dict[str, Any] = {}
    for field, attribute, wrapper, prefix, domain in _OVERRIDES:
        value = getattr(message, field)
        if value:
            changes[attribute] = _enum(value, wrapper, prefix, domain, f"{path}.{field}")
    if message.HasField("must_play"):
        if len(message.must_play.levels) > MAX_LEVELS:
            raise invalid(
                f"{path}.must_play.levels",
                Reason.BAD_SIZE,
                f"at most {MAX_LEVELS} levels (2 .. A), got {len(message.must_play.levels)}",
            )
        changes["must_play"] = frozenset(
            level(value, f"{path}.must_play.levels[{i}]") for i, value in enumerate(message.must_play.levels)
        )
    if message.HasField("coins"):
        changes["coins"] = message.coins
    return dataclasses.replace(PRESETS[preset], **changes), preset


# --------------------------------------------------------------------------------------------------
# Inbound: cards, hands and tricks
# --------------------------------------------------------------------------------------------------


def faces(values: Sequence[int], path: str) -> tuple[int, ...]:
    """Card enum numbers to faces; rejects unknown cards and a face more than twice in the list.

    A list longer than both decks is refused by its length alone, before a card is read.
    """
    if len(values) > MAX_CARDS:
        raise invalid(
            path,
            Reason.BAD_SIZE,
            f"a card list holds at most {MAX_CARDS} cards (two decks), got {len(values)}",
        )
    result: list[int] = []
    counts = [0] * NUM_FACES
    for i, value in enumerate(values):
        if not 1 <= value <= NUM_FACES:
            raise invalid(
                f"{path}[{i}]",
                Reason.UNKNOWN_VALUE,
                f"unknown card {value}; cards are CARD_S2 (1) .. CARD_BJ (54)",
            )
        face = value - 1
        counts[face] += 1
        if counts[face] > COPIES:
            raise invalid(
                f"{path}[{i}]",
                Reason.TOO_MANY_COPIES,
                f"a third {format_card(face)}: two decks hold only {COPIES} of each card",
            )
        result.append(face)
    return tuple(result)


def cards(values: Sequence[int], path: str) -> tuple[int, ...]:
    """Card enum numbers to faces: the wire-level check only (a number the Card enum does not define,
    a list longer than both decks). Copies, sizes and everything else about the cards are rules_core's."""
    if len(values) > MAX_CARDS:
        raise invalid(
            path,
            Reason.BAD_SIZE,
            f"a card list holds at most {MAX_CARDS} cards (two decks), got {len(values)}",
        )
    for i, value in enumerate(values):
        if not 1 <= value <= NUM_FACES:
            raise invalid(
                f"{path}[{i}]",
                Reason.UNKNOWN_VALUE,
                f"unknown card {value}; cards are CARD_S2 (1) .. CARD_BJ (54)",
            )
    return tuple(value - 1 for value in values)


def seated(messages: Sequence[t.SeatCards], path: str) -> tuple[SeatCards, ...]:
    """Seat-and-cards entries as (seat, faces); their seats and sizes are judged by rules_core."""
    if len(messages) > PLAYERS:
        raise invalid(path, Reason.BAD_SIZE, f"at most one entry per seat ({PLAYERS}), got {len(messages)}")
    return tuple((m.seat, cards(m.cards, f"{path}[{i}].cards")) for i, m in enumerate(messages))


def trick_leader(
    request: pb.ValidatePlayRequest | pb.ListLegalPlaysRequest | pb.SuggestPlayRequest,
) -> int | None:
    """The trick's leader, or None when the request has no trick (the seat leads)."""
    return request.trick.leader if request.HasField("trick") else None


def sized(cards: tuple[int, ...], path: str, low: int, high: int, what: str) -> tuple[int, ...]:
    """Reject a card list whose size is outside ``low..high``."""
    if not low <= len(cards) <= high:
        bounds = f"exactly {low}" if low == high else f"{low} to {high}"
        raise invalid(path, Reason.BAD_SIZE, f"{what} holds {bounds} cards, got {len(cards)}")
    return cards


class Deck:
    """Counts the cards of one request across its fields: all of them come from the same two decks."""

    def __init__(self) -> None:
        self._counts = [0] * NUM_FACES
        self._fields: list[tuple[str, Sequence[int]]] = []

    def add(self, cards: Sequence[int], path: str) -> None:
        """Add a field's cards; a card seen a third time across the request is named by its path."""
        counts = self._counts
        for i, face in enumerate(cards):
            counts[face] += 1
            if counts[face] > COPIES:
                earlier = " and ".join(where for where, field in self._fields if face in field)
                raise invalid(
                    f"{path}[{i}]",
                    Reason.TOO_MANY_COPIES,
                    f"a third {format_card(face)} (also in {earlier}): two decks hold only {COPIES}",
                )
        self._fields.append((path, cards))


def seat_cards(
    messages: Sequence[t.SeatCards],
    path: str,
    *,
    seats: Iterable[int],
    low: int = 0,
    high: int = HAND_SIZE,
    deck: Deck,
) -> dict[int, tuple[int, ...]]:
    """Cards per seat for exactly ``seats`` (each once), each of ``low..high`` cards, added to ``deck``."""
    wanted = sorted(set(seats))
    if len(messages) > PLAYERS:
        raise invalid(path, Reason.BAD_SIZE, f"at most one entry per seat ({PLAYERS}), got {len(messages)}")
    found: dict[int, tuple[int, ...]] = {}
    for i, message in enumerate(messages):
        where = f"{path}[{i}]"
        number = seat(message.seat, f"{where}.seat")
        if number in found:
            raise invalid(f"{where}.seat", Reason.OUT_OF_ORDER, f"seat {number} is listed twice")
        if number not in wanted:
            expected = ", ".join(map(str, wanted))
            raise invalid(
                f"{where}.seat", Reason.INCONSISTENT, f"seat {number} does not belong here; seats {expected}"
            )
        found[number] = sized(faces(message.cards, f"{where}.cards"), f"{where}.cards", low, high, "a hand")
        deck.add(found[number], f"{where}.cards")
    missing = [number for number in wanted if number not in found]
    if missing:
        raise invalid(path, Reason.MISSING, f"seats {', '.join(map(str, missing))} are missing")
    return found


@dataclass(frozen=True, slots=True)
class Turn:
    """A seat about to play: its hand, and the trick so far (no plays: it leads)."""

    seat: int
    cards: tuple[int, ...]
    """The seat's hand as faces."""
    leader: int
    plays: tuple[tuple[int, ...], ...]
    """The plays so far in play order, validated as a trick: one category lead, equal sizes."""

    @property
    def lead(self) -> tuple[int, ...]:
        """The cards actually led, or () when this seat leads."""
        return self.plays[0] if self.plays else ()


def turn(
    ctx: TrumpContext,
    *,
    seat_value: int,
    hand_values: Sequence[int],
    trick: pb.Trick,
    has_trick: bool,
    deck: Deck,
) -> Turn:
    """Validate a seat, its hand (1..25 cards) and the trick so far, and add their cards to ``deck``."""
    player = seat(seat_value, "seat")
    cards = sized(faces(hand_values, "hand"), "hand", 1, HAND_SIZE, "a hand")
    deck.add(cards, "hand")
    leader = seat(trick.leader, "trick.leader")
    plays = tuple(trick.plays)
    if not plays:
        if has_trick and leader != player:
            raise invalid(
                "trick.leader",
                Reason.OUT_OF_ORDER,
                f"seat {player} leads, but the trick's leader is {leader}",
            )
        return Turn(player, cards, player, ())
    if len(plays) >= PLAYERS:
        raise invalid("trick.plays", Reason.BAD_SIZE, f"the trick is complete: it has {len(plays)} plays")
    played = table_plays(ctx, plays, "trick.plays", leader=leader, deck=deck)
    expected = (leader + len(plays)) % PLAYERS
    if player != expected:
        raise invalid("seat", Reason.OUT_OF_ORDER, f"seat {expected} plays next, not seat {player}")
    if len(cards) < len(played[0]):
        raise invalid(
            "hand",
            Reason.BAD_SIZE,
            f"a follower holds at least as many cards as were led ({len(played[0])}), got {len(cards)}",
        )
    return Turn(player, cards, leader, played)


def seated_plays(messages: Sequence[t.SeatCards], path: str, *, leader: int) -> tuple[tuple[int, ...], ...]:
    """Plays whose seats follow the turn order from ``leader``, as faces (their shapes are not judged)."""
    plays: list[tuple[int, ...]] = []
    for i, message in enumerate(messages):
        where = f"{path}[{i}]"
        expected = (leader + i) % PLAYERS
        if seat(message.seat, f"{where}.seat") != expected:
            raise invalid(
                f"{where}.seat",
                Reason.OUT_OF_ORDER,
                f"play {i} of a trick led by seat {leader} is seat {expected}'s, not seat {message.seat}'s",
            )
        plays.append(faces(message.cards, f"{where}.cards"))
    return tuple(plays)


def table_plays(
    ctx: TrumpContext, messages: Sequence[t.SeatCards], path: str, *, leader: int, deck: Deck
) -> tuple[tuple[int, ...], ...]:
    """Plays taken as they lie on the table: in turn order, a one-category lead, follows of its size.

    Their cards are added to ``deck``.
    """
    plays = seated_plays(messages, path, leader=leader)
    for i, play in enumerate(plays):
        deck.add(play, f"{path}[{i}].cards")
    lead = plays[0] if plays else ()
    if not lead or decompose(ctx, lead).category is None:
        raise invalid(
            f"{path}[0].cards",
            Reason.INCONSISTENT,
            "a lead on the table is one or more cards of one category",
        )
    for i, play in enumerate(plays[1:], start=1):
        if len(play) != len(lead):
            raise invalid(
                f"{path}[{i}].cards",
                Reason.BAD_SIZE,
                f"every play has the lead's {len(lead)} cards, got {len(play)}",
            )
    return plays


def declarations(messages: Sequence[pb.Declaration], path: str) -> list[Declaration]:
    """Declaration acts: a seat, one or more shown cards, and optionally the cards received so far."""
    if len(messages) > MAX_DECLARATIONS:
        raise invalid(path, Reason.BAD_SIZE, f"a deal has at most {MAX_DECLARATIONS} declaration acts")
    sequence = []
    for i, message in enumerate(messages):
        where = f"{path}[{i}]"
        player = seat(message.seat, f"{where}.seat")
        cards = faces(message.cards, f"{where}.cards")
        if not cards:
            raise invalid(f"{where}.cards", Reason.MISSING, "a declaration shows at least one card")
        held = None
        if message.hand:
            held = sized(
                faces(message.hand, f"{where}.hand"), f"{where}.hand", 1, HAND_SIZE, "a hand during the deal"
            )
        sequence.append(Declaration(seat=player, cards=cards, hand=hand_of(held) if held else None))
    return sequence


def recorded_tricks(messages: Sequence[pb.RecordedTrick], path: str) -> tuple[TrickRecord, ...]:
    """A hand's tricks: at most 25, each four plays whose seats follow the turn order."""
    if len(messages) > MAX_TRICKS:
        raise invalid(path, Reason.BAD_SIZE, f"a hand has at most {MAX_TRICKS} tricks, got {len(messages)}")
    tricks = []
    for i, message in enumerate(messages):
        where = f"{path}[{i}]"
        if len(message.plays) != PLAYERS:
            raise invalid(
                f"{where}.plays", Reason.BAD_SIZE, f"a trick has {PLAYERS} plays, got {len(message.plays)}"
            )
        leader = seat(message.plays[0].seat, f"{where}.plays[0].seat")
        plays = seated_plays(message.plays, f"{where}.plays", leader=leader)
        attempted = faces(message.attempted_lead, f"{where}.attempted_lead")
        tricks.append(TrickRecord(plays=plays, attempted=attempted))
    return tuple(tricks)


# --------------------------------------------------------------------------------------------------
# Outbound
# --------------------------------------------------------------------------------------------------


def cards_out(values: Iterable[int]) -> list[t.Card.ValueType]:
    """Faces to Card enum numbers."""
    return [t.Card.ValueType(face + 1) for face in values]


def card_out(face: int) -> t.Card.ValueType:
    """One face as a Card enum number."""
    return t.Card.ValueType(face + 1)


_COMPONENT_TYPES: Final = {0: t.COMPONENT_TYPE_SINGLE, 1: t.COMPONENT_TYPE_PAIR}
_SHAPES: Final = {
    Shape.SINGLE: t.SHAPE_SINGLE,
    Shape.PAIR: t.SHAPE_PAIR,
    Shape.TRACTOR: t.SHAPE_TRACTOR,
    Shape.THROW: t.SHAPE_THROW,
    Shape.MIXED: t.SHAPE_MIXED,
}


def component(value: Component) -> t.Component:
    """A component message."""
    return t.Component(
        type=_COMPONENT_TYPES.get(value.pairs, t.COMPONENT_TYPE_TRACTOR),
        pairs=value.pairs,
        cards=cards_out(value.cards),
    )


def shape(value: Decomposition | None) -> t.Shape.ValueType:
    """The wire shape of a decomposition (UNSPECIFIED for no cards)."""
    if value is None or (value.category is not None and not value.components):
        return t.SHAPE_UNSPECIFIED
    return _SHAPES[value.shape]


def _by_name(domain: type[Enum], wrapper: Any, prefix: str) -> dict[Any, Any]:
    """Map each domain member to the proto value named ``prefix + member name`` (those that exist)."""
    names = set(wrapper.keys())
    return {member: wrapper.Value(prefix + member.name) for member in domain if prefix + member.name in names}


VIOLATIONS: Final = _by_name(Violation, t.Violation, "VIOLATION_")
JUDGEMENTS: Final = _by_name(Judgement, pb.Judgement, "JUDGEMENT_")
REJECTIONS: Final = _by_name(BidRejection, pb.DeclarationRejection, "DECLARATION_REJECTION_")
FINDINGS: Final = _by_name(Finding, pb.AuditFinding, "AUDIT_FINDING_")
ACTS: Final = {
    Act.A1_SINGLE: pb.DECLARATION_ACT_A1_SINGLE,
    Act.A2_REINFORCE: pb.DECLARATION_ACT_A2_REINFORCE,
    Act.A3_OVERTURN: pb.DECLARATION_ACT_A3_OVERTURN,
    Act.A4_SELF_OVERTURN: pb.DECLARATION_ACT_A4_SELF_OVERTURN,
    Act.A5_DIRECT_PAIR: pb.DECLARATION_ACT_A5_DIRECT_PAIR,
    Act.A6_SMALL_JOKER_NT: pb.DECLARATION_ACT_A6_SMALL_JOKER_NO_TRUMP,
    Act.A7_BIG_JOKER_NT: pb.DECLARATION_ACT_A7_BIG_JOKER_NO_TRUMP,
}
SIDES: Final = {Side.DEALER_TEAM: t.SIDE_DEALER_TEAM, Side.ATTACKERS: t.SIDE_ATTACKERS}
PHASES: Final = {
    pb.QUIT_PHASE_Q0_BEFORE_DEALING: Phase.Q0,
    pb.QUIT_PHASE_Q1_BEFORE_DECLARATION: Phase.Q1,
    pb.QUIT_PHASE_Q2_BEFORE_BURYING: Phase.Q2,
    pb.QUIT_PHASE_Q3_BEFORE_SETTLEMENT: Phase.Q3,
}
ROLES: Final = {pb.ROLE_DEALER: Role.DEALER, pb.ROLE_PARTNER: Role.PARTNER, pb.ROLE_ATTACKER: Role.ATTACKER}
CONTRACTS: Final = {suit: value for value, suit in _SUITS.items()}


def _required(value: int, table: Mapping[Any, E], path: str, what: str, choices: str) -> E:
    """A required enum field looked up in ``table``: 0 (``*_UNSPECIFIED``) is MISSING, a number the
    table lacks UNKNOWN_VALUE."""
    if value == 0:
        raise invalid(path, Reason.MISSING, f"a {what} is required ({choices})")
    if value not in table:
        raise invalid(path, Reason.UNKNOWN_VALUE, f"unknown {what} {value}")
    return table[value]


def phase(value: pb.QuitPhase.ValueType, path: str) -> Phase:
    """A required quit phase."""
    return _required(value, PHASES, path, "phase", "QUIT_PHASE_Q0_BEFORE_DEALING .. Q3")


def role(value: pb.Role.ValueType, path: str) -> Role:
    """A required quitter role."""
    return _required(value, ROLES, path, "role", "ROLE_DEALER, ROLE_PARTNER or ROLE_ATTACKER")


def throw_outcome(result: ThrowResult) -> t.ThrowOutcome:
    """A throw's outcome with its evidence."""
    return t.ThrowOutcome(
        result=t.THROW_RESULT_SUCCEEDED if result.succeeded else t.THROW_RESULT_FAILED,
        led=cards_out(result.led),
        forced=component(result.forced) if result.forced is not None else None,
        returned=cards_out(result.returned),
        evidence=[
            t.ThrowEvidence(seat=beat.seat, component=component(beat.component), cards=cards_out(beat.cards))
            for beat in result.evidence
        ],
    )


def play_response(result: PlayVerdict) -> pb.ValidatePlayResponse:
    """The verdict on a play, with the play's own shape whether it is legal or not."""
    verdict, decomposition = result.verdict, result.shape
    response = pb.ValidatePlayResponse(
        shape=shape(decomposition),
        components=[component(c) for c in decomposition.components] if decomposition else [],
    )
    if isinstance(verdict, Legal):
        response.legal = True
        if verdict.throw is not None:
            response.throw_outcome.CopyFrom(throw_outcome(verdict.throw))
        return response
    response.violation = VIOLATIONS[verdict.reason]
    response.message = verdict.message
    response.required.extend(component(c) for c in verdict.required)
    return response


def listing_response(result: Listing) -> pb.ListLegalPlaysResponse:
    """A bounded listing of legal plays with their shapes."""
    return pb.ListLegalPlaysResponse(
        plays=[pb.CandidatePlay(cards=cards_out(play), shape=shape(value)) for play, value in result.plays],
        truncated=result.truncated,
    )


def suggestion_response(result: Suggestion) -> pb.SuggestPlayResponse:
    """The auto-play and why."""
    return pb.SuggestPlayResponse(
        cards=cards_out(result.cards), shape=shape(result.shape), reason=result.reason
    )


def reason_label(verdict: Legal | Illegal) -> str:
    """A bounded metric label for a verdict: "legal" or the violation in lower case."""
    return "legal" if isinstance(verdict, Legal) else verdict.reason.name.lower()


def trick_response(result: TrickResult, leader: int) -> pb.ResolveTrickResponse:
    """A resolved trick; ``plays`` get their judgements (checks are filled in by the caller)."""
    dig = result.dig
    return pb.ResolveTrickResponse(
        legal=True,
        winner=result.winner,
        won_by=JUDGEMENTS[result.won_by],
        trick_points=result.points,
        attacker_points=result.attacker_points,
        dig_multiplier=(dig.multiplier or 0) if dig else 0,
        bottom_points=dig.bottom_points if dig else 0,
        bottom_added=dig.added if dig else 0,
        plays=[
            pb.PlayJudgement(seat=(leader + i) % PLAYERS, judgement=JUDGEMENTS[judgement])
            for i, judgement in enumerate(result.judgements)
        ],
    )


def rank_out(value: int | None) -> t.Rank.ValueType:
    """A level as a Rank (UNSPECIFIED for None: past A, or no next hand)."""
    return t.Rank.ValueType(value or 0)


def coins_out(coins: CoinSettlement) -> pb.CoinSettlement:
    """A Tao Dou settlement."""
    return pb.CoinSettlement(
        score_coefficient=coins.K,
        total=coins.total,
        winners=SIDES[coins.winners],
        winner_gain=coins.winner_gain,
        loser_loss=coins.loser_loss,
        deltas=list(coins.deltas),
        rake=coins.rake,
    )


def settlement_response(result: Settlement, coins: CoinSettlement | None) -> pb.SettleHandResponse:
    """A hand's settlement, with its coins when a stake was given."""
    return pb.SettleHandResponse(
        winner=SIDES[result.winner_side],
        levels_gained=result.g,
        effective_levels_gained=result.g_eff,
        take_over=result.take_over,
        dealer_team_level_after=rank_out(result.dealer_level_after),
        attacker_level_after=rank_out(result.attacker_level_after),
        next_dealer=result.next_dealer,
        next_level=rank_out(result.next_level),
        game_over=result.game_over,
        game_winner=SIDES[result.game_winner] if result.game_winner else t.SIDE_UNSPECIFIED,
        score_coefficient=result.K,
        coins=coins_out(coins) if coins is not None else None,
    )


def penalty_response(
    result: Penalty, auto_bury: Sequence[int] = (), auto_lead: int | None = None
) -> pb.CalculatePenaltyResponse:
    """A forced quit's price, with the system's actions for a quitting dealer."""
    response = pb.CalculatePenaltyResponse(
        penalty=result.penalty,
        deducted=result.deducted,
        capped=result.capped,
        disconnects=result.disconnects,
        auto_bury=cards_out(auto_bury),
        auto_lead=card_out(auto_lead) if auto_lead is not None else t.CARD_UNSPECIFIED,
    )
    if result.paid_on_behalf is not None:
        response.paid_on_behalf = result.paid_on_behalf
    if result.confiscated is not None:
        response.confiscated = result.confiscated
    return response


def bidding_response(result: Bidding) -> pb.ValidateDeclarationResponse:
    """The outcome of a deal's declarations, one verdict per act."""
    rejections = {rejection.index: rejection for rejection in result.rejections}
    verdicts = []
    for index, act in enumerate(result.acts):
        if act is not None:
            verdicts.append(pb.DeclarationVerdict(accepted=True, act=ACTS[act]))
            continue
        rejection = rejections[index]
        verdicts.append(
            pb.DeclarationVerdict(rejection=REJECTIONS[rejection.reason], message=rejection.message)
        )
    response = pb.ValidateDeclarationResponse(
        accepted=bool(verdicts) and verdicts[-1].accepted,
        verdicts=verdicts,
        contract=t.CONTRACT_NO_TRUMP if result.contract is None else CONTRACTS[result.contract],
        declared=result.declared,
        overturns=result.overturns,
        overturn_multiplier=result.overturn_multiplier,
    )
    if result.dealer is not None:
        response.dealer = result.dealer
    return response


def audit_response(audit: Audit, recorded_leaders: Sequence[int]) -> pb.AuditHandResponse:
    """A hand's audit. The engine replays leaders itself (the dealer, then each winner), so a record
    whose seats disagree is cut at the first trick led out of turn, unless an earlier finding stands."""
    leaders = [audit.dealer] + [result.winner for result in audit.tricks] if audit.dealer is not None else []
    wrong = next(
        (
            i
            for i, (recorded, due) in enumerate(zip(recorded_leaders, leaders, strict=False))
            if recorded != due
        ),
        None,
    )
    error = audit.error
    before_tricks = (
        error is not None and error.trick is None and error.finding is not Finding.HAND_NOT_FINISHED
    )
    if (
        wrong is not None
        and not before_tricks
        and (error is None or error.trick is None or wrong <= error.trick)
    ):
        results = audit.tricks[:wrong]
        response = pb.AuditHandResponse(
            finding=pb.AUDIT_FINDING_PLAY_OUT_OF_TURN,
            message=f"trick {wrong} is recorded as led by seat {recorded_leaders[wrong]}; "
            f"the lead belongs to seat {leaders[wrong]} (R4.1, R7.4)",
            trick=wrong,
            seat=recorded_leaders[wrong],
        )
    else:
        results = audit.tricks
        response = pb.AuditHandResponse(valid=error is None)
        if error is not None:
            response.finding = FINDINGS[error.finding]
            response.message = error.message
            response.violation = VIOLATIONS[error.violation] if error.violation else t.VIOLATION_UNSPECIFIED
            if error.trick is not None:
                response.trick = error.trick
            if error.seat is not None:
                response.seat = error.seat
    bidding = audit.bidding
    response.contract = t.CONTRACT_NO_TRUMP if bidding.contract is None else CONTRACTS[bidding.contract]
    response.overturn_multiplier = bidding.overturn_multiplier
    if audit.dealer is not None:
        response.dealer = audit.dealer
    score = 0
    for index, result in enumerate(results):
        score += result.attacker_points
        response.tricks.append(
            pb.TrickAudit(index=index, result=trick_response(result, leaders[index]), score_after=score)
        )
    response.score = score
    return response
