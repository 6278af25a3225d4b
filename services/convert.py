"""Proto <-> domain: the single place where wire types meet rules_core types.

Inbound, only what the wire alone knows is checked here (an enum number the contract does not define, a
card number outside the Card enum, a list longer than both decks, an int64 overflow); a bad field raises
``InvalidRequestError`` naming its path. Every game fact (copies across fields, sizes, seats, turn order,
scores, O, coins) is rules_core's, which names the same paths. Outbound, responses are built from domain
results only; cards travel as ``Card`` enum numbers, which are face + 1.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from enum import Enum
from typing import Any, Final, NoReturn, TypeVar, cast

from rules_core.audit import MAX_TRICKS, Audit, Finding, SeatsRecord, TableAudit, TeamsRecord
from rules_core.bidding import Act, Bidding, BidRejection, Shown
from rules_core.cards import (
    COPIES,
    MAX_TABLE_BOTTOM,
    MAX_TABLE_CARDS,
    MAX_TABLE_HAND,
    MAX_TABLE_SEATS,
    MAX_TABLE_TRICKS,
    NUM_FACES,
    PLAYERS,
    Suit,
    deal_sizes,
)
from rules_core.component import Component, width
from rules_core.errors import InvalidArgumentError
from rules_core.forced_quit import Phase, Quit, Role
from rules_core.friends import CallState, FriendCall, TableSettlement
from rules_core.kitty import BuryResult
from rules_core.rules import (
    MUST_PLAY_SETS,
    PRESETS,
    BidSet,
    BidStages,
    DigMultiplier,
    DigShape,
    EndRule,
    FirstDealer,
    FollowRule,
    FriendLimit,
    JackRule,
    JokerOverturn,
    LevelTable,
    MultipleJoin,
    MustPlaySet,
    NoBid,
    Partners,
    RuffStructure,
    Rules,
    ThrowCheck,
    ThrowPenalty,
    ThrowRuffCompare,
)
from rules_core.seating import SeatCards
from rules_core.settlement import MAX_FAILED_THROWS, FailedThrow, Side
from rules_core.shapes import Decomposition, Shape
from rules_core.strategy.bury import BuryAdvice, BuryPolicy
from rules_core.strategy.declaration import DeclarationAdvice, DeclarationPolicy
from rules_core.taodou import CoinSettlement, HandSettlement, RecordHand, SettledHand, Stake, TeamsHand
from rules_core.trick import JudgedTrick, Judgement, RecordedTrick, TrickResult
from rules_core.trump import TrumpContext, trump_context
from rules_core.turn import NOTHING_KNOWN, HandSoFar, Listing, PlayVerdict, Policy, Suggestion
from rules_core.verdicts import Illegal, Legal, ThrowResult, Violation
from services.errors import Reason, from_engine, invalid
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import types_pb2 as t

DEFAULT_PRESET: Final = "default"
MAX_DECLARATIONS: Final = 100
"""Far more acts than a deal allows (4 stages, a few rejected tries each): bounds a request's work."""
MAX_CARDS: Final = COPIES * NUM_FACES
"""The most cards any one field can hold: both decks (108). Checked by length before any card is read."""
MAX_LEVELS: Final = 13
"""The most ranks a list of levels can name (2 .. A)."""
MAX_FRIEND_CALLS: Final = MAX_TABLE_SEATS - 2
"""R15.2: the most friends any table calls (eight seats, one seat at least attacking)."""
MAX_ECHO: Final = 40
"""Characters of a caller's string repeated in an error message: details and logs stay small."""
MAX_BASE: Final = 10**12
"""The largest Tao Dou base accepted: keeps every coin amount inside the responses' int64 fields
(B x 14 x 8 x 12 x 10)."""
MAX_COINS: Final = 2**63 - 1
"""The largest balance or debt accepted. A client that encodes a negative int64 into these uint64 fields
sends 2**64 - n: refused as out of range rather than read as a fortune."""
MIN_LEVEL: Final = 2
MAX_LEVEL: Final = 14

E = TypeVar("E", bound=Enum)
K = TypeVar("K", bound=int)
P = TypeVar("P")

# --------------------------------------------------------------------------------------------------
# Inbound: scalars and enums
# --------------------------------------------------------------------------------------------------


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
    ("throw_penalty", "throw_penalty", t.ThrowPenalty, "THROW_PENALTY_", ThrowPenalty),
    ("follow_rule", "follow", t.FollowRule, "FOLLOW_RULE_", FollowRule),
    ("jack_rule", "jack_rule", t.JackRule, "JACK_RULE_", JackRule),
    ("no_bid", "no_bid", t.NoBid, "NO_BID_", NoBid),
    ("throw_ruff_compare", "throw_ruff_compare", t.ThrowRuffCompare, "THROW_RUFF_COMPARE_", ThrowRuffCompare),
    ("partners", "partners", t.Partners, "PARTNERS_", Partners),
    ("multiple_join", "multiple_join", t.MultipleJoin, "MULTIPLE_JOIN_", MultipleJoin),
)
_ENGINE_NAMES: Final = {"ruff": "ruff_structure"}
"""Rules fields whose ruleset field is spelled otherwise on the wire."""


def echo(text: str) -> str:
    """A caller's string for an error message, cut to ``MAX_ECHO`` characters.

    >>> echo("house"), echo("x" * 100)[-13:]
    ("'house'", '… (100 chars)')
    """
    if len(text) <= MAX_ECHO:
        return repr(text)
    return f"{text[:MAX_ECHO]!r}… ({len(text)} chars)"


def ruleset(message: t.Ruleset, path: str = "ruleset") -> tuple[Rules, str]:
    """The ``Rules`` a request asks for (its preset, then its overrides) and the preset's name."""
    preset = message.preset or DEFAULT_PRESET
    if preset not in PRESETS:
        names = ", ".join(sorted(PRESETS))
        raise invalid(
            f"{path}.preset", Reason.UNKNOWN_VALUE, f"unknown preset {echo(preset)}; one of {names}"
        )
    fields = message.ListFields()  # one C call: only what is set (proto3 leaves defaults unset)
    if not fields or (len(fields) == 1 and fields[0][0].name == "preset"):
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
        if message.must_play.named:
            changes["must_play"] = must_play_set(message.must_play, f"{path}.must_play")
    if message.HasField("coins"):
        changes["coins"] = message.coins
    if message.HasField("level_table"):
        changes["level_table"] = level_table(message.level_table, PRESETS[preset].level_table, path)
    if message.throw_penalty_points:
        changes["throw_penalty_points"] = message.throw_penalty_points
    changes.update(_table_options(message, path))
    try:
        rules = dataclasses.replace(PRESETS[preset], **changes)
    except InvalidArgumentError as error:
        error.argument = _ENGINE_NAMES.get(error.argument, error.argument)
        raise from_engine(error, path) from None
    if message.throw_penalty_points and rules.throw_penalty is ThrowPenalty.NONE:
        raise invalid(
            f"{path}.throw_penalty_points",
            Reason.INCONSISTENT,
            "a throw penalty amount needs a throw_penalty other than NONE (R16.2)",
        )
    return rules, preset


def _table_options(message: t.Ruleset, path: str) -> dict[str, Any]:
    """TABLE (R14) and the finding-friends options (R15) a ruleset sets; rules_core judges them."""
    changes: dict[str, Any] = {}
    if message.decks:
        changes["decks"] = message.decks
    if message.seats:
        changes["seats"] = message.seats
    if message.HasField("friend_calls"):
        changes["friend_calls"] = message.friend_calls
    if message.HasField("friend_limits"):
        limits = message.friend_limits.limits
        if len(limits) > len(FriendLimit):
            raise invalid(
                f"{path}.friend_limits.limits", Reason.BAD_SIZE, f"at most {len(FriendLimit)} limits"
            )
        changes["friend_limits"] = frozenset(
            _enum(value, t.FriendLimit, "FRIEND_LIMIT_", FriendLimit, f"{path}.friend_limits.limits[{i}]")
            for i, value in enumerate(limits)
        )
    if message.HasField("small_team_bonus"):
        changes["small_team_bonus"] = message.small_team_bonus
    return changes


def must_play_set(message: t.MustPlay, path: str) -> frozenset[int]:
    """R16.5: a named must-play set's levels; a named set and levels together are a conflict."""
    named = _enum(message.named, t.MustPlaySet, "MUST_PLAY_SET_", MustPlaySet, f"{path}.named")
    if message.levels:
        raise invalid(
            f"{path}.named",
            Reason.INCONSISTENT,
            f"give the must-play levels or a named set ({named.name}), not both",
        )
    return MUST_PLAY_SETS[named]


def failed_throws(values: Sequence[Any], most: int = MAX_FAILED_THROWS) -> tuple[FailedThrow, ...]:
    """R16.2: a hand's failed throws; their count is checked before any is read (a hand has 25 tricks;
    ``most``: other tables' longest hand, R14.2)."""
    if len(values) > most:
        raise invalid("failed_throws", Reason.BAD_SIZE, f"a hand has at most {most} failed throws")
    return tuple(FailedThrow(value.seat, value.cards) for value in values)


def last_trick_winner(message: t.SeatCards, path: str = "last_trick_winner") -> tuple[int, tuple[int, ...]]:
    """R16.4: the last trick's winner and his winning cards; their game checks are rules_core's."""
    return message.seat, cards(message.cards, f"{path}.cards")


def level_table(message: t.LevelTable, preset: LevelTable, path: str) -> LevelTable:
    """LEVEL-TABLE (R9.1): the preset's table with the set parameters replaced; rules_core judges them
    and names the field (``ruleset.level_table.step_points``)."""
    changes: dict[str, int] = {}
    if message.step_points:
        changes["step_points"] = message.step_points
    if message.take_over_steps:
        changes["take_over_steps"] = message.take_over_steps
    if message.HasField("dead_zone_steps"):
        changes["dead_zone_steps"] = message.dead_zone_steps
    try:
        return dataclasses.replace(preset, **changes)
    except InvalidArgumentError as error:
        raise from_engine(error, path) from None


# --------------------------------------------------------------------------------------------------
# Inbound: cards, hands and tricks
# --------------------------------------------------------------------------------------------------


def cards(
    values: Sequence[int], path: str, limit: int = MAX_CARDS, entry: int | None = None
) -> tuple[int, ...]:
    """Card enum numbers to faces: the wire-level check only (a number the Card enum does not define,
    a list longer than both decks, or than ``limit``: the largest hand or bottom of other tables,
    R14.2). Copies, sizes and everything else about the cards are rules_core's. With ``entry``, the
    cards are ``path[entry].cards`` (that path is spelled out only for an error)."""
    if len(values) <= limit:
        try:  # ``[:]`` copies a protobuf list out in one call; then one C pass maps every number
            faces = bytes(values[:]).translate(_FACES)
        except ValueError:  # a number below 0 or above 255
            faces = _UNKNOWN
        if _UNKNOWN not in faces:
            return tuple(faces)
    _refuse_cards(values, path if entry is None else f"{path}[{entry}].cards", limit)


def _refuse_cards(values: Sequence[int], path: str, limit: int) -> NoReturn:
    """The INVALID_ARGUMENT of a card list that is too long or holds a number that is not a card."""
    if len(values) > limit:
        what = "two decks" if limit == MAX_CARDS else "the largest table's"
        raise invalid(
            path, Reason.BAD_SIZE, f"a card list holds at most {limit} cards ({what}), got {len(values)}"
        )
    i, value = next((i, v) for i, v in enumerate(values) if not 1 <= v <= NUM_FACES)
    raise invalid(
        f"{path}[{i}]", Reason.UNKNOWN_VALUE, f"unknown card {value}; cards are CARD_S2 (1) .. CARD_BJ (54)"
    )


_UNKNOWN: Final = b"\xff"
"""What :data:`_FACES` maps every number that is not a card to."""
_FACES: Final = bytes([255, *range(NUM_FACES)]).ljust(256, _UNKNOWN)
"""Card enum number (1..54) -> face (``value - 1``), as a ``bytes.translate`` table: half the cost of
a Python-level map over the protobuf list, and the unknown numbers are found by one ``in``."""


def table_cards(rules: Rules) -> int:
    """The most cards one field of the ruleset's table can hold: all its decks (108 for two, R14.1)."""
    return NUM_FACES * rules.decks


def seated(
    messages: Sequence[t.SeatCards], path: str, rules: Rules | None = None, *, table: bool = False
) -> tuple[SeatCards, ...]:
    """Seat-and-cards entries as (seat, faces); their seats and sizes are judged by rules_core. At most
    one entry per seat of the ruleset's table and its decks' cards in each (two decks and four seats
    without ``rules``; the largest table's bounds with ``table``, R14)."""
    if rules is not None:
        most, limit = rules.seats, table_cards(rules)
    else:
        most, limit = (MAX_TABLE_SEATS, MAX_TABLE_HAND) if table else (PLAYERS, MAX_CARDS)
    if len(messages) > most:
        raise invalid(path, Reason.BAD_SIZE, f"at most one entry per seat ({most}), got {len(messages)}")
    if not messages:
        return ()
    return tuple([(m.seat, cards(m.cards, path, limit, i)) for i, m in enumerate(messages)])


def table_tricks(messages: Sequence[pb.RecordedTrick], path: str) -> list[RecordedTrick]:
    """Other tables (R15.15): recorded tricks as (seated plays, winner or None); rules_core judges them.
    The whole record holds at most four decks' cards, counted by lengths before a card is read."""
    if len(messages) > MAX_TABLE_TRICKS:
        raise invalid(
            path, Reason.BAD_SIZE, f"a hand has at most {MAX_TABLE_TRICKS} tricks, got {len(messages)}"
        )
    total = 0
    for i, message in enumerate(messages):
        if len(message.attempted_lead) > MAX_TABLE_HAND:
            raise invalid(f"{path}[{i}].attempted_lead", Reason.BAD_SIZE, f"at most {MAX_TABLE_HAND} cards")
        total += sum(len(play.cards) for play in message.plays[: MAX_TABLE_SEATS + 1])
        if total > MAX_TABLE_CARDS:
            raise invalid(
                f"{path}[{i}]",
                Reason.BAD_SIZE,
                f"a hand's tricks hold at most {MAX_TABLE_CARDS} cards (R14.1)",
            )
    return [
        (
            seated(message.plays, f"{path}[{i}].plays", table=True),
            message.winner if message.HasField("winner") else None,
        )
        for i, message in enumerate(messages)
    ]


def table_recorded_tricks(
    messages: Sequence[pb.RecordedTrick], path: str
) -> list[tuple[tuple[SeatCards, ...], tuple[int, ...]]]:
    """AuditHand on other tables: a hand's tricks as (seated plays, attempted lead), bounded as
    :func:`table_tricks` bounds them (R14.1); rules_core judges their seats, sizes and cards."""
    table_tricks(messages, path)  # the bounds; the winners are the audit's to find
    return [
        (
            seated(message.plays, f"{path}[{i}].plays", table=True),
            cards(message.attempted_lead, f"{path}[{i}].attempted_lead", MAX_TABLE_HAND),
        )
        for i, message in enumerate(messages)
    ]


class SettleArguments:
    """A SettleHand request as :func:`rules_core.taodou.settle_request` reads it: the fields of the
    rulebooks' table (:meth:`teams`) or of another (:meth:`record`) decoded only when the table reads them."""

    __slots__ = ("_request",)

    def __init__(self, request: pb.SettleHandRequest) -> None:
        self._request = request

    @property
    def dealer(self) -> int:
        """The hand's dealer seat."""
        return self._request.dealer

    @property
    def staked(self) -> bool:
        """Whether a Tao Dou stake is given."""
        return self._request.HasField("tao_dou")

    def teams(self) -> TeamsHand:
        """R9, R12: the teams' levels, the score, the stake and the house-rule records."""
        request = self._request
        return TeamsHand(
            dealer_level=level(request.dealer_team_level, "dealer_team_level"),
            attacker_level=level(request.attacker_level, "attacker_level"),
            score=request.score,
            stake=stake(request.tao_dou) if request.HasField("tao_dou") else None,
            failed_throws=failed_throws(request.failed_throws),
            last_trick_win=(
                last_trick_winner(request.last_trick_winner)
                if request.HasField("last_trick_winner")
                else None
            ),
        )

    def record(self) -> RecordHand:
        """R15.8-R15.13: every seat's level, the calls and the whole trick record."""
        request = self._request
        levels = seat_levels(request.seat_levels)
        friends = bool(request.friend_calls) or request.contract
        return RecordHand(
            levels=levels,
            contract=contract(request.contract, "contract") if friends else None,
            calls=friend_calls(request.friend_calls),
            tricks=tuple(table_tricks(request.tricks, "tricks")),
            dig_points=request.dig_points,
            failed_throws=failed_throws(request.failed_throws, MAX_TABLE_TRICKS),
        )


class AuditArguments:
    """An AuditHand request as :func:`rules_core.audit.audit_request` reads it: the fields of the
    rulebooks' table (:meth:`teams`) or of another (:meth:`record`) decoded only when the table reads them."""

    __slots__ = ("_request",)

    def __init__(self, request: pb.AuditHandRequest) -> None:
        self._request = request

    @property
    def staked(self) -> bool:
        """Whether a Tao Dou stake is given."""
        return self._request.HasField("tao_dou")

    def _dealer(self) -> int | None:
        return self._request.dealer if self._request.HasField("dealer") else None

    def teams(self) -> TeamsRecord:
        """R0-R13: the four hands, the teams' levels and the stake."""
        request = self._request
        return TeamsRecord(
            level=level(request.level, "level"),
            attacker_level=level(request.attacker_level, "attacker_level"),
            hands=seated(request.hands, "hands"),
            bottom=cards(request.bottom, "bottom"),
            declarations=tuple(declarations(request.declarations, "declarations")),
            buried=cards(request.buried, "buried"),
            tricks=tuple(recorded_tricks(request.tricks, "tricks")),
            first_hand=request.first_hand,
            first_seated=request.first_seated,
            dealer=self._dealer(),
            stake=stake(request.tao_dou) if request.HasField("tao_dou") else None,
        )

    def record(self) -> SeatsRecord:
        """R14, R15: N hands, every seat's level and the friend calls."""
        request = self._request
        return SeatsRecord(
            level=level(request.level, "level"),
            seat_levels=seat_levels(request.seat_levels),
            hands=seated(request.hands, "hands", table=True),
            bottom=cards(request.bottom, "bottom", MAX_TABLE_BOTTOM),
            declarations=tuple(declarations(request.declarations, "declarations")),
            buried=cards(request.buried, "buried", MAX_TABLE_HAND),
            tricks=tuple(table_recorded_tricks(request.tricks, "tricks")),
            calls=friend_calls(request.friend_calls),
            first_hand=request.first_hand,
            first_seated=request.first_seated,
            dealer=self._dealer(),
        )


def friend_calls(messages: Sequence[t.FriendCall], path: str = "friend_calls") -> tuple[FriendCall, ...]:
    """R15.3: the dealer's calls as (face, copy); the copy and the limits are rules_core's."""
    if len(messages) > MAX_FRIEND_CALLS:
        raise invalid(path, Reason.BAD_SIZE, f"at most {MAX_FRIEND_CALLS} calls, got {len(messages)}")
    calls = []
    for i, message in enumerate(messages):
        if message.card == t.CARD_UNSPECIFIED:
            raise invalid(f"{path}[{i}].card", Reason.MISSING, "a call names a card")
        calls.append(FriendCall(cards([message.card], f"{path}[{i}].card")[0], message.copy))
    return tuple(calls)


def seat_levels(values: Sequence[int], path: str = "seat_levels") -> tuple[int, ...]:
    """R15.11: one level per seat; how many the table needs is rules_core's."""
    if len(values) > MAX_TABLE_SEATS:
        raise invalid(path, Reason.BAD_SIZE, f"at most {MAX_TABLE_SEATS} seats, got {len(values)}")
    return tuple(level(value, f"{path}[{i}]") for i, value in enumerate(values))


def trick_leader(
    request: pb.ValidatePlayRequest | pb.ListLegalPlaysRequest | pb.SuggestPlayRequest,
) -> int | None:
    """The trick's leader, or None when the request has no trick (the seat leads)."""
    return request.trick.leader if request.HasField("trick") else None


def deal_context(request: pb.SuggestDeclarationRequest) -> tuple[bool, int | None]:
    """SuggestDeclaration's ``first_hand`` and ``dealer``: an unset ``first_hand`` is a first hand unless a
    dealer is given (rules_core checks the pair as ValidateDeclaration does)."""
    dealer = request.dealer if request.HasField("dealer") else None
    first_hand = request.first_hand if request.HasField("first_hand") else dealer is None
    return first_hand, dealer


def hand_so_far(message: pb.HandSoFar, rules: Rules, path: str = "hand_so_far") -> HandSoFar:
    """What the seat knows of the hand so far, bounded by the ruleset's table (R14.2: a hand of H cards
    has at most H tricks of N plays); rules_core checks it is a history a hand can have."""
    if not message.ByteSize():
        return NOTHING_KNOWN
    most, _ = deal_sizes(rules.decks, rules.seats)
    if len(message.tricks) > most:
        raise invalid(f"{path}.tricks", Reason.BAD_SIZE, f"a hand has at most {most} tricks")
    return HandSoFar(
        dealer=message.dealer if message.HasField("dealer") else None,
        tricks=tuple(
            seated(trick.plays, f"{path}.tricks[{i}].plays", rules) for i, trick in enumerate(message.tricks)
        ),
        attacker_points=message.attacker_points if message.HasField("attacker_points") else None,
        bottom=cards(message.bottom, f"{path}.bottom", table_cards(rules)),  # its size is rules_core's
        declarations=shown_acts(message.declarations, f"{path}.declarations"),
    )


def shown_acts(messages: Sequence[t.SeatCards], path: str) -> tuple[SeatCards, ...]:
    """What the bidding showed: each act's seat and cards (bounded like a request's declarations);
    rules_core judges them as ValidateDeclaration would."""
    if len(messages) > MAX_DECLARATIONS:
        raise invalid(path, Reason.BAD_SIZE, f"a deal has at most {MAX_DECLARATIONS} declaration acts")
    return tuple((m.seat, cards(m.cards, path, MAX_CARDS, i)) for i, m in enumerate(messages))


_POLICIES: Final = {
    pb.PLAY_POLICY_UNSPECIFIED: Policy.STRONG,
    pb.PLAY_POLICY_STRONG: Policy.STRONG,
    pb.PLAY_POLICY_RIGHTMOST_SMALLEST: Policy.RIGHTMOST_SMALLEST,
}
POLICIES_OUT: Final = {
    Policy.STRONG: pb.PLAY_POLICY_STRONG,
    Policy.RIGHTMOST_SMALLEST: pb.PLAY_POLICY_RIGHTMOST_SMALLEST,
}


def _chosen(table: Mapping[K, P], value: K, path: str) -> P:
    """A policy enum's engine value (unspecified is in each table: the strong one); unknown numbers are
    INVALID_ARGUMENT naming ``path``."""
    if value not in table:
        raise invalid(path, Reason.UNKNOWN_VALUE, f"unknown policy {value}")
    return table[value]


def policy(value: pb.PlayPolicy.ValueType, path: str = "policy") -> Policy:
    """The auto-play policy; unspecified is the strong one."""
    return _chosen(_POLICIES, value, path)


_DECLARATION_POLICIES: Final = {
    pb.DECLARATION_POLICY_UNSPECIFIED: DeclarationPolicy.STRONG,
    pb.DECLARATION_POLICY_STRONG: DeclarationPolicy.STRONG,
    pb.DECLARATION_POLICY_NONE: DeclarationPolicy.NONE,
}
DECLARATION_POLICIES_OUT: Final = {
    DeclarationPolicy.STRONG: pb.DECLARATION_POLICY_STRONG,
    DeclarationPolicy.NONE: pb.DECLARATION_POLICY_NONE,
}
_BURY_POLICIES: Final = {
    pb.BURY_POLICY_UNSPECIFIED: BuryPolicy.STRONG,
    pb.BURY_POLICY_STRONG: BuryPolicy.STRONG,
    pb.BURY_POLICY_AUTO_BURY: BuryPolicy.AUTO_BURY,
}
BURY_POLICIES_OUT: Final = {
    BuryPolicy.STRONG: pb.BURY_POLICY_STRONG,
    BuryPolicy.AUTO_BURY: pb.BURY_POLICY_AUTO_BURY,
}


def declaration_policy(value: pb.DeclarationPolicy.ValueType, path: str = "policy") -> DeclarationPolicy:
    """SuggestDeclaration's policy; unspecified is the strong one."""
    return _chosen(_DECLARATION_POLICIES, value, path)


def bury_policy(value: pb.BuryPolicy.ValueType, path: str = "policy") -> BuryPolicy:
    """SuggestBury's policy; unspecified is the strong one."""
    return _chosen(_BURY_POLICIES, value, path)


def declarations(messages: Sequence[pb.Declaration], path: str) -> list[Shown]:
    """Declaration acts as (seat, shown cards, cards received so far or None); rules_core judges them."""
    if len(messages) > MAX_DECLARATIONS:
        raise invalid(path, Reason.BAD_SIZE, f"a deal has at most {MAX_DECLARATIONS} declaration acts")
    return [
        (
            message.seat,
            cards(message.cards, f"{path}[{i}].cards"),
            cards(message.hand, f"{path}[{i}].hand") if message.hand else None,
        )
        for i, message in enumerate(messages)
    ]


def recorded_tricks(
    messages: Sequence[pb.RecordedTrick], path: str
) -> list[tuple[tuple[SeatCards, ...], tuple[int, ...]]]:
    """A hand's tricks as (seated plays, attempted lead); rules_core judges their seats and sizes."""
    if len(messages) > MAX_TRICKS:
        raise invalid(path, Reason.BAD_SIZE, f"a hand has at most {MAX_TRICKS} tricks, got {len(messages)}")
    return [
        (
            seated(message.plays, f"{path}[{i}].plays"),
            cards(message.attempted_lead, f"{path}[{i}].attempted_lead"),
        )
        for i, message in enumerate(messages)
    ]


# --------------------------------------------------------------------------------------------------
# Outbound
# --------------------------------------------------------------------------------------------------


def cards_out(values: Iterable[int]) -> list[t.Card.ValueType]:
    """Faces to Card enum numbers (face + 1, by a C-level map: every response carries cards)."""
    return cast("list[t.Card.ValueType]", list(map(_CARD, values)))


_CARD: Final = (1).__add__
"""Face -> Card enum number."""


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
    Shape.TUPLE: t.SHAPE_TUPLE,
}


def component(value: Component, wide: bool = False) -> t.Component:
    """A component message; ``wide`` (more than two decks, R14.3) adds its width."""
    if wide:
        return t.Component(**_wide(value))
    return t.Component(
        type=_COMPONENT_TYPES.get(value.pairs, t.COMPONENT_TYPE_TRACTOR),
        pairs=value.pairs,
        cards=cards_out(value.cards),
    )


_UNITS: Final = {1: t.COMPONENT_TYPE_SINGLE, 2: t.COMPONENT_TYPE_PAIR, 3: t.COMPONENT_TYPE_TRIPLE}


def _wide(value: Component) -> dict[str, Any]:
    """R14.3: a component of a table of more decks: its type by width and rungs, and the width."""
    w = width(value)
    kind = t.COMPONENT_TYPE_TRACTOR if value.pairs > 1 else _UNITS.get(w, t.COMPONENT_TYPE_QUADRUPLE)
    return {"type": kind, "pairs": value.pairs, "cards": cards_out(value.cards), "width": w}


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


def coins_amount(value: int, path: str, high: int = MAX_COINS) -> int:
    """A coin amount within the wire's int64 (larger values are negative numbers encoded by mistake)."""
    if value > high:
        what = f"base is at most {high}" if high != MAX_COINS else f"at most {MAX_COINS} coins"
        raise invalid(
            path,
            Reason.OUT_OF_RANGE,
            f"{what}, got {value}"
            + (": a negative amount sent as int64 arrives this way" if high == MAX_COINS else ""),
        )
    return value


def stake(message: pb.TaoDouStake, path: str = "tao_dou") -> Stake:
    """A Tao Dou stake. The rake arrives as a percentage or in basis points (one of them): which one,
    and the percentage's range, are the wire's; everything about the coins is rules_core's."""
    coins_amount(message.base, f"{path}.base", MAX_BASE)
    if message.rake_percent > 100:
        raise invalid(f"{path}.rake_percent", Reason.OUT_OF_RANGE, "the rake is a percentage 0..100")
    if message.HasField("rake_basis_points") and message.rake_percent:
        raise invalid(
            f"{path}.rake_basis_points",
            Reason.INCONSISTENT,
            "give the rake as rake_percent or as rake_basis_points, not both",
        )
    for i, balance in enumerate(message.balances):
        coins_amount(balance, f"{path}.balances[{i}]")
    return Stake(
        base=message.base,
        overturn=message.overturn_multiplier,
        rake_bp=message.rake_basis_points
        if message.HasField("rake_basis_points")
        else message.rake_percent * 100,
        balances=tuple(message.balances) or None,
    )


def throw_outcome(result: ThrowResult, wide: bool = False) -> t.ThrowOutcome:
    """A throw's outcome with its evidence (``wide``: more than two decks)."""
    return t.ThrowOutcome(
        result=t.THROW_RESULT_SUCCEEDED if result.succeeded else t.THROW_RESULT_FAILED,
        led=cards_out(result.led),
        forced=component(result.forced, wide) if result.forced is not None else None,
        returned=cards_out(result.returned),
        evidence=[
            t.ThrowEvidence(
                seat=beat.seat, component=component(beat.component, wide), cards=cards_out(beat.cards)
            )
            for beat in result.evidence
        ],
    )


def play_response(result: PlayVerdict) -> pb.ValidatePlayResponse:
    """The verdict on a play, with the play's own shape whether it is legal or not; on more decks each
    component names its width (R14.3)."""
    verdict, decomposition, wide = result.verdict, result.shape, result.wide
    response = pb.ValidatePlayResponse(shape=shape(decomposition))
    if decomposition:
        add_components(response.components, decomposition.components, wide)
    if isinstance(verdict, Legal):
        response.legal = True
        if verdict.throw is not None:
            response.throw_outcome.CopyFrom(throw_outcome(verdict.throw, wide))
        return response
    response.violation = VIOLATIONS[verdict.reason]
    response.message = verdict.message
    add_components(response.required, verdict.required, wide)
    return response


def add_components(field: Any, values: Iterable[Component], wide: bool = False) -> None:
    """Append component messages to a repeated field in place (twice as fast as building each message
    and copying it in: this runs for every verdict)."""
    if wide:
        for value in values:
            field.add(**_wide(value))
        return
    types = _COMPONENT_TYPES
    for value in values:
        field.add(
            type=types.get(value.pairs, t.COMPONENT_TYPE_TRACTOR),
            pairs=value.pairs,
            cards=cards_out(value.cards),
        )


def listing_response(result: Listing) -> pb.ListLegalPlaysResponse:
    """A bounded listing of legal plays with their shapes (and their scores, when ranked)."""
    response = pb.ListLegalPlaysResponse(
        plays=[pb.CandidatePlay(cards=cards_out(play), shape=shape(value)) for play, value in result.plays],
        truncated=result.truncated,
    )
    if result.scores is not None:
        for candidate, score in zip(response.plays, result.scores, strict=True):
            candidate.score = score
    return response


def suggestion_response(result: Suggestion) -> pb.SuggestPlayResponse:
    """The auto-play, why, and the policy that chose it."""
    return pb.SuggestPlayResponse(
        cards=cards_out(result.cards),
        shape=shape(result.shape),
        reason=result.reason,
        policy=POLICIES_OUT[result.policy],
    )


def declaration_advice_response(advice: DeclarationAdvice) -> pb.SuggestDeclarationResponse:
    """The declaration to make now (or none), its R10.3 act, why, and the policy."""
    return pb.SuggestDeclarationResponse(
        cards=cards_out(advice.cards),
        act=ACTS[advice.act] if advice.act is not None else pb.DECLARATION_ACT_UNSPECIFIED,
        reason=advice.reason,
        policy=DECLARATION_POLICIES_OUT[advice.policy],
    )


def bury_advice_response(advice: BuryAdvice) -> pb.SuggestBuryResponse:
    """The 8 cards to bury, their points, why, and the policy."""
    return pb.SuggestBuryResponse(
        cards=cards_out(advice.cards),
        bottom_points=advice.bottom_points,
        reason=advice.reason,
        policy=BURY_POLICIES_OUT[advice.policy],
    )


def reason_label(verdict: Legal | Illegal) -> str:
    """A bounded metric label for a verdict: "legal" or the violation in lower case."""
    return "legal" if isinstance(verdict, Legal) else verdict.reason.name.lower()


def trick_response(result: TrickResult, leader: int, seats: int = PLAYERS) -> pb.ResolveTrickResponse:
    """A resolved trick; ``plays`` get their judgements."""
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
            pb.PlayJudgement(seat=(leader + i) % seats, judgement=JUDGEMENTS[judgement])
            for i, judgement in enumerate(result.judgements)
        ],
    )


def judged_trick_response(judged: JudgedTrick) -> pb.ResolveTrickResponse:
    """A trick, resolved or (a checked trick with an illegal play or a failed throw) not, with each
    play's check when hands were given, for the table's seats (R14.1, R14.3, R14.8), and the sides and
    calls after it where the trick has them (R15.8)."""
    seats, wide = judged.seats, judged.wide
    if judged.result is not None:
        response = trick_response(judged.result, judged.leader, seats)
    else:
        response = pb.ResolveTrickResponse(
            legal=False,
            message=judged.problem,
            plays=[pb.PlayJudgement(seat=(judged.leader + i) % seats) for i in range(seats)],
        )
    for judgement, verdict in zip(response.plays, judged.checks, strict=False):
        judgement.checked = True
        if isinstance(verdict, Legal):
            judgement.legal = True
            if verdict.throw is not None:
                judgement.throw_outcome.CopyFrom(throw_outcome(verdict.throw, wide))
            continue
        judgement.violation = VIOLATIONS[verdict.reason]
        judgement.message = verdict.message
    if judged.sides is not None:
        response.dealer_side.extend(sorted(judged.sides.dealer_side))
        response.calls.extend(call_state(state) for state in judged.sides.calls)
    return response


def bury_response(result: BuryResult) -> pb.ValidateBuryResponse:
    """The verdict on a bury."""
    if result.legal:
        return pb.ValidateBuryResponse(legal=True, bottom_points=result.bottom_points)
    return pb.ValidateBuryResponse(
        violation=VIOLATIONS[result.reason] if result.reason else t.VIOLATION_UNSPECIFIED,
        message=result.message,
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


def settlement_response(result: HandSettlement) -> pb.SettleHandResponse:
    """A hand's settlement, with its coins when a stake was given."""
    settled, coins = result.settlement, result.coins
    return pb.SettleHandResponse(
        winner=SIDES[settled.winner_side],
        levels_gained=settled.g,
        effective_levels_gained=settled.g_eff,
        take_over=settled.take_over,
        dealer_team_level_after=rank_out(settled.dealer_level_after),
        attacker_level_after=rank_out(settled.attacker_level_after),
        next_dealer=settled.next_dealer,
        next_level=rank_out(settled.next_level),
        game_over=settled.game_over,
        game_winner=SIDES[settled.game_winner] if settled.game_winner else t.SIDE_UNSPECIFIED,
        score_coefficient=settled.K,
        coins=coins_out(coins) if coins is not None else None,
        throw_penalty=settled.throw_penalty,
        back_to_two=settled.back_to_two,
    )


def settled_response(result: SettledHand) -> pb.SettleHandResponse:
    """SettleHand's answer on every table: the teams' (R9, R12) or every seat's (R15.8-R15.13)."""
    if isinstance(result, HandSettlement):
        return settlement_response(result)
    return table_settlement_response(*result)


def settled_band(result: SettledHand) -> tuple[Side, int]:
    """The settlements metric's winning side and levels gained, on every table."""
    if isinstance(result, HandSettlement):
        return result.settlement.winner_side, result.settlement.g_eff
    return result[0].winner_side, result[0].g


def penalty_response(result: Quit) -> pb.CalculatePenaltyResponse:
    """A forced quit's price, with the system's actions for a quitting dealer."""
    price = result.penalty
    response = pb.CalculatePenaltyResponse(
        penalty=price.penalty,
        deducted=price.deducted,
        capped=price.capped,
        disconnects=price.disconnects,
        auto_bury=cards_out(result.auto_bury),
        auto_lead=card_out(result.auto_lead) if result.auto_lead is not None else t.CARD_UNSPECIFIED,
    )
    if price.paid_on_behalf is not None:
        response.paid_on_behalf = price.paid_on_behalf
    if price.confiscated is not None:
        response.confiscated = price.confiscated
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
        bottom_revealed=result.bottom_revealed,
    )
    if result.dealer is not None:
        response.dealer = result.dealer
    return response


def audited_response(audit: Audit | TableAudit, seats: int) -> pb.AuditHandResponse:
    """AuditHand's answer on every table: the teams' settlement (R9, R12) or every seat's (R15)."""
    if isinstance(audit, Audit):
        return audit_response(audit)
    return table_audit_response(audit, seats)


def audited_band(audit: Audit | TableAudit) -> tuple[Side, int] | None:
    """The settlements metric's winning side and levels gained of a valid audit, on every table."""
    if isinstance(audit, Audit):
        settled = audit.settlement
        return None if settled is None else (settled.winner_side, settled.g_eff)
    return None if audit.settlement is None else (audit.settlement.winner_side, audit.settlement.g)


def _audit_head(audit: Audit | TableAudit) -> pb.AuditHandResponse:
    """What an audit answers on every table: valid or the first finding, and the bidding's outcome."""
    error = audit.error
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
    return response


def audit_response(audit: Audit) -> pb.AuditHandResponse:
    """A hand's audit: valid with its settlement (and coins), or the first finding and how far it got."""
    response = _audit_head(audit)
    score = 0
    for index, (result, leader) in enumerate(zip(audit.tricks, audit.leaders, strict=True)):
        score += result.attacker_points
        response.tricks.append(
            pb.TrickAudit(index=index, result=trick_response(result, leader), score_after=score)
        )
    response.score = score
    if audit.settlement is not None:
        response.settlement.CopyFrom(settlement_response(HandSettlement(audit.settlement, audit.coins)))
    return response


def table_audit_response(audit: TableAudit, seats: int) -> pb.AuditHandResponse:
    """A hand's audit on another table (R14, R15): as :func:`audit_response`, with the sides after each
    trick and at the end, and SettleHand's per-seat settlement there."""
    response = _audit_head(audit)
    for index, (result, leader, sides) in enumerate(
        zip(audit.tricks, audit.leaders, audit.sides, strict=True)
    ):
        trick = pb.TrickAudit(index=index, result=trick_response(result, leader, seats))
        trick.score_after = sides.attackers_points + (result.dig.added if result.dig else 0)
        trick.dealer_side.extend(sorted(sides.dealer_side))
        trick.calls.extend(call_state(state) for state in sides.calls)
        response.tricks.append(trick)
    response.score = max(0, audit.score)
    if audit.sides:
        response.dealer_side.extend(sorted(audit.sides[-1].dealer_side))
        response.calls.extend(call_state(state) for state in audit.sides[-1].calls)
    if audit.settlement is not None:
        final = audit.sides[-1].calls if audit.sides else ()
        response.settlement.CopyFrom(table_settlement_response(audit.settlement, final))
    return response


# --------------------------------------------------------------------------------------------------
# Outbound: other tables (R14, R15)
# --------------------------------------------------------------------------------------------------


def call_state(state: CallState) -> t.FriendCallState:
    """Where one friend call stands (R15.5, R15.6)."""
    message = t.FriendCallState(
        call=t.FriendCall(card=card_out(state.call.face), copy=state.call.copy),
        played=state.played,
        joined=state.joined,
    )
    if state.met_by is not None:
        message.met_by = state.met_by
    if state.trick is not None:
        message.trick = state.trick
    return message


def table_settlement_response(settled: TableSettlement, calls: Sequence[CallState]) -> pb.SettleHandResponse:
    """A hand settled on another table (R15.8-R15.13): each seat's level change, the sides, the calls."""
    return pb.SettleHandResponse(
        winner=SIDES[settled.winner_side],
        levels_gained=settled.g,
        take_over=settled.winner_side is Side.ATTACKERS,
        next_dealer=settled.next_dealer,
        next_level=rank_out(settled.next_level),
        game_over=settled.game_over,
        throw_penalty=settled.throw_penalty,
        back_to_two=settled.back_to_two,
        seats=[
            pb.SeatLevel(
                seat=seat,
                side=SIDES[result.side],
                level_before=rank_out(result.level_before),
                gain=result.gain,
                level_after=rank_out(result.level_after),
                gained=result.gained,
            )
            for seat, result in enumerate(settled.seats)
        ],
        dealer_side=sorted(settled.dealer_side),
        calls=[call_state(state) for state in calls],
        small_team=settled.small_team,
        small_team_bonus=settled.bonus,
        table_score=settled.score,
    )
