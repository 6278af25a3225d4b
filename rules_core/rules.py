"""The ruleset: every VARIANT of RULES.md as one frozen value, with named presets.

Each field is a small policy enum (or set) with the recommended default of RULES.md's variant summary.
Override with ``dataclasses.replace(DEFAULT_RULES, throw=ThrowCheck.PAIRS_FIRST)``; the presets reproduce
the rulebooks: :data:`RULEBOOK_000` ([000] and the identical [001]) and :data:`RULEBOOK_003` ([003]).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from rules_core.cards import MAX_TABLE_DECKS, MAX_TABLE_SEATS
from rules_core.errors import InvalidArgumentError, Problem


class ThrowCheck(StrEnum):
    """THROW (R4.5, R4.6): how a failed throw's forced component is found."""

    TOP_DOWN = "000"
    """THROW-000: check every component type top-down (tractors first), weakest of each type."""
    PAIRS_FIRST = "003"
    """THROW-003: only singles and pairs are checked; the weakest beaten pair, else single, is forced."""


class RuffStructure(StrEnum):
    """RUFF-STRUCT (R6.2): what structure a ruff of a plain lead needs."""

    COVER = "COVER"
    """Each lead tractor gets a run of its length and each lead pair a further pair (mainstream)."""
    COUNT = "COUNT"
    """Literal: at least as many tractor components and as many pair units as the lead."""


class DigMultiplier(StrEnum):
    """DIG-MULT (R8.4): the bottom's multiplier on a successful dig."""

    DOUBLING = "000"
    """DIG-000: 2^(k+1) for a shape of k pairs, unbounded."""
    CAPPED = "003"
    """DIG-003: single ×2, pair ×4, any tractor ×8."""


class DigShape(StrEnum):
    """DIG-SHAPE (R8.5): which play's top component sets the multiplier."""

    LEAD = "LEAD"
    """The highest-grade component of the last trick's lead (recommended)."""
    WINNER = "WINNER"
    """The highest-grade component of the winning play's own decomposition."""


class FirstDealer(StrEnum):
    """FIRST-DEALER (R10.6): who deals the first hand."""

    FIRST_DECLARER = "000"
    """The first player to declare (A1, A5 or a first-act joker pair), even if overturned."""
    LAST_CHANGER = "003"
    """The player whose act last changed the contract (recommended)."""


class BidSet(StrEnum):
    """BID-SET (R10.3): which declaration acts exist."""

    BASIC = "000"
    """A1–A4 with level cards only: no joker-pair no-trump, no direct pair."""
    EXTENDED = "003"
    """Adds the direct pair (A5), joker-pair no-trump (A6, A7) and self-overturn to no-trump."""


class BidStages(StrEnum):
    """BID-STAGES (R10.4): limits on overturning."""

    STAGED = "STAGED"
    """Single < pair < SJ pair < BJ pair, each stage at most once (recommended, also for [000])."""
    UNLIMITED = "UNLIMITED"
    """Any pair of another suit may overturn the current contract, any number of times."""


class JokerOverturn(StrEnum):
    """Who may show a joker pair (R10.4, ruling of revision 2)."""

    ANY_SEAT = "ANY"
    """Any player, the one who set the current contract included; only the stage rule limits it."""
    OTHERS = "OTHERS"
    """[003]'s literal 自反/反主: a seat overturns its own contract only by the A1 declarer's self-overturn
    of his standing single; otherwise a joker pair must overturn someone else's contract."""


class EndRule(StrEnum):
    """END (R9.6): the end of the game."""

    DEALER_AT_ACE = "REC"
    """A is always must-play; a team at A wins the game by winning a hand as the dealer team."""
    PAST_ACE = "LITERAL"
    """END-LITERAL-000: any gain that carries a team past A ends the game."""


class MustPlaySet(StrEnum):
    """Named sets of must-play levels (R9.5, R16.5): the MUST-PLAY mechanism under a table's name."""

    DEFEND_POINTS = "DEFEND_POINTS"
    """5, 10 and K, the point ranks, must be played as the dealer team (rbtying/shengji's ``DefendPoints``);
    A follows END as always (R9.6)."""


MUST_PLAY_SETS: Final[dict[MustPlaySet, frozenset[int]]] = {
    MustPlaySet.DEFEND_POINTS: frozenset({5, 10, 13}),
}
"""R16.5: each named set's levels."""


class NoBid(StrEnum):
    """NO-BID (R10.8, R16.6): the contract when nobody declares."""

    NO_TRUMP = "NO_TRUMP"
    """R10.8: no-trump, O = 1 (every preset)."""
    BOTTOM_FIRST_CARD = "BOTTOM_FIRST_CARD"
    """The bottom is turned up in order; the first card with a suit names the trump suit."""
    BOTTOM_LEVEL_OR_HIGHEST = "BOTTOM_LEVEL_OR_HIGHEST"
    """The bottom is turned up in order until the first level card, whose suit is trump; without one, the
    suit of the highest card, the first of equal ones (rbtying/shengji's kitty bid)."""


class FollowRule(StrEnum):
    """FOLLOW (R16.3): what a follower owes beyond the count (R5.1) and the category (R5.2)."""

    STRUCTURE = "STRUCTURE"
    """R5.3: pairs and tractors are owed (every preset)."""
    SUIT_ONLY = "SUIT_ONLY"
    """Only the category is enforced: R5.3 is off (rbtying/shengji's ``NoFormatBasedDraw``)."""


class JackRule(StrEnum):
    """JACK (R16.4, 勾J): whether a single jack winning the last trick sends the dealer team back to 2."""

    NONE = "NONE"
    """No such rule (every preset)."""
    SINGLE_JACK = "SINGLE_JACK"
    """At level J, the attackers winning the last trick with a single jack reset the dealer team to 2
    before the hand's level changes apply (rbtying/shengji's ``BackToTwoSetting::SingleJack``)."""


class ThrowPenalty(StrEnum):
    """THROW-PENALTY (R16.2): what a failed throw (R4.7) costs the thrower's side."""

    NONE = "NONE"
    """R4.7: no point penalty (every preset)."""
    PER_ATTEMPT = "PER_ATTEMPT"
    """``throw_penalty_points`` for each failed throw (rbtying/shengji: 10)."""
    PER_CARD = "PER_CARD"
    """``throw_penalty_points`` for each card of each failed attempt."""


class ThrowRuffCompare(StrEnum):
    """THROW-RUFF (R16.7): how a later ruff of a throw is compared with the ruff holding the trick."""

    R6_6 = "R6_6"
    """R6.6: only the strongest unit of the lead's top grade counts; equal keys stay (every preset)."""
    ALL = "ALL"
    """Every unit of the later ruff must beat the unit of the standing ruff that serves the same lead
    unit, however the standing ruff is read (rbtying/shengji's ``ThrowEvaluationPolicy::All``)."""
    HIGHEST = "HIGHEST"
    """The ruffs' strongest cards decide (``ThrowEvaluationPolicy::Highest``)."""
    TRICK_UNIT_LENGTH = "TRICK_UNIT_LENGTH"
    """The units are compared longest first, strongest first within a length; the first unequal pair
    decides, singles only in a throw of singles (``ThrowEvaluationPolicy::TrickUnitLength``)."""


READS_UNITS: Final = frozenset({ThrowRuffCompare.ALL, ThrowRuffCompare.TRICK_UNIT_LENGTH})
"""R16.7: the policies that read a ruff unit for unit against the lead, which needs RUFF-COVER (R6.2)."""


MAX_PENALTY_POINTS: Final = 100
"""R16.2: the most one unit of a throw penalty may cost."""

MIN_DECKS: Final = 2
MAX_DECKS: Final = MAX_TABLE_DECKS
"""TABLE (R14): two to four decks (the deck counter's bound, ``cards.MAX_TABLE_DECKS``)."""
MIN_SEATS: Final = 4
MAX_SEATS: Final = MAX_TABLE_SEATS
"""TABLE (R14): four to eight seats."""


class Partners(StrEnum):
    """PARTNERS (R15.1): how the seats form the two sides of a hand."""

    FIXED = "FIXED"
    """Every other seat is the dealer's partner (R1.5 at four seats); an even table only (every preset)."""
    FRIENDS = "FRIENDS"
    """The dealer calls friend cards and whoever plays a called copy joins his side (找朋友)."""


class FriendLimit(StrEnum):
    """FRIEND-LIMITS (R15.4): a kind of card the dealer may not call as a friend card."""

    TRUMPS = "TRUMPS"
    """Jokers, level cards and the trump suit (rbtying/shengji's default)."""
    TOP = "TOP"
    """The strongest card of its category: a plain suit's A (K at level A), BJ among trumps."""
    POINTS = "POINTS"
    """5, 10 and K; a K stays callable at level A, where it tops its plain suit."""


class MultipleJoin(StrEnum):
    """MULTIPLE-JOIN (R15.6): a called copy played by a seat already on the dealer's side."""

    SPENT = "SPENT"
    """The copy uses the call up and nobody joins: the dealer's side stays smaller (rbtying's default)."""
    PASSES_ON = "PASSES_ON"
    """The call waits for the next copy played by a seat outside the side (rbtying's ``NoDoubleJoin``)."""


DEFAULT_FRIEND_LIMITS: Final = frozenset({FriendLimit.TRUMPS})
"""R15.4: trumps may not be called, everything else may (rbtying/shengji's default)."""

MAX_TABLE_POINTS: Final = 200
"""R8.1: the points in both decks; a take-over score above them only a dig could reach (LEVEL-TABLE)."""


@dataclass(frozen=True, slots=True)
class LevelTable:
    """LEVEL-TABLE (R9.1): the level table as three parameters; the seeds' table is 40, 2, 1.

    The take-over score is ``step_points * take_over_steps``; below it the dealer team gains one level
    per step short of it (and one more for a shut-out at 0); from it the attackers gain one level per
    full step above it, less the ``dead_zone_steps`` (0 or 1) where nobody gains.
    """

    step_points: int = 40
    """Points per level step: a multiple of 5 (R8.1), 5..200."""
    take_over_steps: int = 2
    """Steps from 0 to the take-over score, 1..40 (the product at most 200)."""
    dead_zone_steps: int = 1
    """Steps at the take-over where nobody gains a level: 0 or 1."""

    def __post_init__(self) -> None:
        _check_table_int("step_points", self.step_points, 5, MAX_TABLE_POINTS)
        if self.step_points % 5:
            raise InvalidArgumentError(
                "level_table.step_points",
                Problem.OUT_OF_RANGE,
                f"a step is a multiple of 5 points (R8.1), got {self.step_points}",
            )
        _check_table_int("take_over_steps", self.take_over_steps, 1, MAX_TABLE_POINTS // 5)
        _check_table_int("dead_zone_steps", self.dead_zone_steps, 0, 1)
        if self.take_over > MAX_TABLE_POINTS:
            raise InvalidArgumentError(
                "level_table.take_over_steps",
                Problem.INCONSISTENT,
                f"{self.take_over_steps} steps of {self.step_points} points put the take-over at "
                f"{self.take_over}, above the deck's {MAX_TABLE_POINTS} points",
            )

    @property
    def take_over(self) -> int:
        """R9.2: the attackers' score from which they win the hand (80 in the seeds' table)."""
        return self.step_points * self.take_over_steps


def _check_table_int(name: str, value: object, low: int, high: int) -> None:
    """One LEVEL-TABLE parameter: an int (not a bool) in ``low..high``, named as the request names it."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidArgumentError(
            f"level_table.{name}", Problem.OUT_OF_RANGE, f"{name} must be an int {low}..{high}, got {value!r}"
        )


SEEDS_TABLE: Final = LevelTable()
"""R9.1 as the three rulebooks write it: 40-point steps, take-over at 80, the 80-115 band a dead zone."""


@dataclass(frozen=True, slots=True)
class Rules:
    """Every rule option of RULES.md's variant summary, validated on construction."""

    throw: ThrowCheck = ThrowCheck.TOP_DOWN
    """THROW: the failed-throw procedure (R4.5/R4.6)."""
    ruff: RuffStructure = RuffStructure.COVER
    """RUFF-STRUCT: the structure a ruff needs (R6.2)."""
    dig_multiplier: DigMultiplier = DigMultiplier.DOUBLING
    """DIG-MULT: the bottom multiplier (R8.4)."""
    dig_shape: DigShape = DigShape.LEAD
    """DIG-SHAPE: the shape that sets the multiplier (R8.5)."""
    first_dealer: FirstDealer = FirstDealer.LAST_CHANGER
    """FIRST-DEALER: the dealer of the first hand (R10.6)."""
    bid_set: BidSet = BidSet.EXTENDED
    """BID-SET: the declaration acts (R10.3)."""
    bid_stages: BidStages = BidStages.STAGED
    """BID-STAGES: the overturn limits (R10.4)."""
    joker_overturn: JokerOverturn = JokerOverturn.ANY_SEAT
    """Who may show a joker pair (R10.4): any seat (RULES.md), or only over someone else's contract."""
    must_play: frozenset[int] = field(default_factory=frozenset)
    """MUST-PLAY: levels a team cannot jump past (R9.5). A is handled by ``end``."""
    end: EndRule = EndRule.DEALER_AT_ACE
    """END: how the game ends (R9.6)."""
    coins: bool = True
    """COINS: whether Tao Dou settlement and forced-quit penalties apply (R12, R13; [003] only)."""
    level_table: LevelTable = SEEDS_TABLE
    """LEVEL-TABLE: the level table's parameters (R9.1); every preset keeps the seeds' table."""
    throw_penalty: ThrowPenalty = ThrowPenalty.NONE
    """THROW-PENALTY: failed throws cost points (R16.2); NONE in every preset (R4.7)."""
    throw_penalty_points: int = 10
    """THROW-PENALTY: points per attempt or per card, a multiple of 5 (R8.1), 5..100; inert under NONE."""
    follow: FollowRule = FollowRule.STRUCTURE
    """FOLLOW: R5.3's structure obligations, or the category alone (R16.3)."""
    no_bid: NoBid = NoBid.NO_TRUMP
    """NO-BID: R10.8's no-trump, or trump from the bottom (R16.6)."""
    jack_rule: JackRule = JackRule.NONE
    """JACK (勾J, R16.4): the dealer team at J goes back to 2 when dug with a single jack."""
    throw_ruff_compare: ThrowRuffCompare = ThrowRuffCompare.R6_6
    """THROW-RUFF: how ruffs of a throw compare when over-ruffing (R16.7); R6.6 in every preset."""
    decks: int = 2
    """TABLE (R14): how many 54-card decks are shuffled together, 2..4; every preset plays two."""
    seats: int = 4
    """TABLE (R14): how many seats play, 4..8; every preset seats four."""
    partners: Partners = Partners.FIXED
    """PARTNERS (R15.1): fixed partners (every preset) or finding friends."""
    friend_calls: int | None = None
    """R15.2: how many friends the dealer calls under FRIENDS, 0..seats - 2; None: seats // 2 - 1."""
    friend_limits: frozenset[FriendLimit] = DEFAULT_FRIEND_LIMITS
    """FRIEND-LIMITS (R15.4): the kinds of card that may not be called."""
    multiple_join: MultipleJoin = MultipleJoin.SPENT
    """MULTIPLE-JOIN (R15.6): what a called copy does in the hand of a seat already on the dealer's side."""
    small_team_bonus: bool = True
    """SMALL-TEAM-BONUS (R15.12): a winning dealer's side smaller than called gains one more level."""

    @property
    def rulebook_table(self) -> bool:
        """R0-R13's own table: two decks, four seats, fixed partners. Read only where the rulebooks' answer
        has a shape of its own (no sides after a trick) and where R14.10 keeps a rule to it."""
        return self.decks == MIN_DECKS and self.seats == MIN_SEATS and self.partners is Partners.FIXED

    def __post_init__(self) -> None:
        for name, kind in _FIELD_TYPES.items():
            if not isinstance(getattr(self, name), kind):
                raise TypeError(f"{name} must be a {kind.__name__}")
        penalty = self.throw_penalty_points
        if isinstance(penalty, bool) or not 5 <= penalty <= MAX_PENALTY_POINTS or penalty % 5:
            raise InvalidArgumentError(
                "throw_penalty_points",
                Problem.OUT_OF_RANGE,
                f"a throw penalty is a multiple of 5 points, 5..{MAX_PENALTY_POINTS}, got {penalty!r}",
            )
        if self.throw_ruff_compare in READS_UNITS and self.ruff is RuffStructure.COUNT:
            raise InvalidArgumentError(
                "throw_ruff_compare",
                Problem.INCONSISTENT,
                f"{self.throw_ruff_compare.name} reads a ruff unit for unit against the lead, which needs "
                "ruff_structure COVER (R6.2, R16.7); RUFF-COUNT ruffs may have no such reading",
            )
        _check_shape("decks", self.decks, MIN_DECKS, MAX_DECKS)
        _check_shape("seats", self.seats, MIN_SEATS, MAX_SEATS)
        if self.decks > 2 and self.ruff is RuffStructure.COUNT:  # R14.7: a count of pairs, two decks only
            raise InvalidArgumentError(
                "ruff",
                Problem.INCONSISTENT,
                "RUFF-COUNT counts pairs: a table of more than two decks ruffs by COVER",
            )
        if self.decks > 2 and self.throw_ruff_compare in READS_UNITS:  # R14.7, R16.7
            raise InvalidArgumentError(
                "throw_ruff_compare",
                Problem.INCONSISTENT,
                f"{self.throw_ruff_compare.name} reads a ruff as the lead's pairs and tractors (R16.7): "
                "a table of more than two decks compares ruffs by R6_6 or HIGHEST",
            )
        if self.partners is Partners.FIXED and self.seats % 2:  # R15.1
            raise InvalidArgumentError(
                "partners",
                Problem.INCONSISTENT,
                f"{self.seats} seats cannot sit in fixed partners: call friends (PARTNERS_FRIENDS, R15.1)",
            )
        _check_friends(self)
        for level in self.must_play:
            if not isinstance(level, int) or not 2 <= level <= 14:
                raise InvalidArgumentError(
                    "must_play", Problem.OUT_OF_RANGE, f"must-play level {level!r} is not a level rank 2..14"
                )


_FIELD_TYPES: Final[dict[str, type]] = {
    "throw": ThrowCheck,
    "ruff": RuffStructure,
    "dig_multiplier": DigMultiplier,
    "dig_shape": DigShape,
    "first_dealer": FirstDealer,
    "bid_set": BidSet,
    "bid_stages": BidStages,
    "joker_overturn": JokerOverturn,
    "must_play": frozenset,
    "end": EndRule,
    "coins": bool,
    "level_table": LevelTable,
    "throw_penalty": ThrowPenalty,
    "throw_penalty_points": int,
    "follow": FollowRule,
    "jack_rule": JackRule,
    "no_bid": NoBid,
    "throw_ruff_compare": ThrowRuffCompare,
    "decks": int,
    "seats": int,
    "partners": Partners,
    "friend_limits": frozenset,
    "multiple_join": MultipleJoin,
    "small_team_bonus": bool,
}


def _check_shape(name: str, value: object, low: int, high: int) -> None:
    """TABLE (R14): a table-shape field is an int (not a bool) in ``low..high``."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidArgumentError(
            name, Problem.OUT_OF_RANGE, f"{name} must be an int {low}..{high}, got {value!r}"
        )


def _check_friends(rules: Rules) -> None:
    """R15.2, R15.4, R15.10: the finding-friends options fit the table, and the level table its decks."""
    calls = rules.friend_calls
    if calls is not None and (isinstance(calls, bool) or not isinstance(calls, int)):
        raise TypeError("friend_calls must be an int or None")
    if calls is not None and not 0 <= calls <= rules.seats - 2:
        raise InvalidArgumentError(
            "friend_calls",
            Problem.OUT_OF_RANGE,
            f"{rules.seats} seats call 0..{rules.seats - 2} friends (one seat at least attacks), got {calls}",
        )
    if not all(isinstance(limit, FriendLimit) for limit in rules.friend_limits):
        raise TypeError("friend_limits must hold FriendLimit values")
    deck_table(rules.level_table, rules.decks)


@dataclass(frozen=True, slots=True)
class DeckLevelTable(LevelTable):
    """R15.10: LEVEL-TABLE scaled to more than two decks; only :func:`deck_table` builds one.

    Its bounds are those of its decks' points (100 a deck, R8.1) instead of the two decks' 200.
    """

    decks: int = MIN_DECKS
    """The decks the table was scaled to, 3..4."""

    def __post_init__(self) -> None:
        points = DECK_POINTS * self.decks
        if self.step_points % 5 or not 5 <= self.step_points <= points or self.take_over > points:
            raise InvalidArgumentError(
                "level_table.step_points",
                Problem.INCONSISTENT,
                f"a step of {self.step_points} points does not fit {self.decks} decks",
            )


DECK_POINTS: Final = MAX_TABLE_POINTS // MIN_DECKS
"""R8.1: the points of one deck."""


def deck_table(table: LevelTable, decks: int) -> LevelTable:
    """R15.10: the level table for ``decks`` decks: every step scaled by decks / 2 (rbtying: 20 points a
    deck for the seeds' 40). Two decks give ``table`` itself, so today's answers cannot change.

    >>> deck_table(SEEDS_TABLE, 3).step_points, deck_table(SEEDS_TABLE, 4).take_over
    (60, 160)
    """
    if decks == MIN_DECKS:
        return table
    if table.step_points * decks % (2 * 5):
        raise InvalidArgumentError(
            "level_table.step_points",
            Problem.INCONSISTENT,
            f"a step of {table.step_points} points scaled to {decks} decks is "
            f"{table.step_points * decks / 2:g}, not a multiple of 5 (R8.1)",
        )
    return DeckLevelTable(
        step_points=table.step_points * decks // 2,
        take_over_steps=table.take_over_steps,
        dead_zone_steps=table.dead_zone_steps,
        decks=decks,
    )


def require_rulebook_table(rules: Rules, what: str) -> None:
    """R14.10: ``what`` is ruled for the rulebooks' table only (two decks, four seats, fixed partners); on
    another the one refusal every RPC gives, INVALID_ARGUMENT naming the request's ruleset field that
    differs: ``ruleset.decks``, then ``ruleset.seats``, then ``ruleset.partners``."""
    if rules.decks != MIN_DECKS:
        raise InvalidArgumentError(
            "ruleset.decks",
            Problem.INCONSISTENT,
            f"{what} is ruled for two decks only (R14.10), not {rules.decks}",
        )
    if rules.seats != MIN_SEATS:
        raise InvalidArgumentError(
            "ruleset.seats",
            Problem.INCONSISTENT,
            f"{what} is ruled for four seats only (R14.10), not {rules.seats}",
        )
    if rules.partners is not Partners.FIXED:
        raise InvalidArgumentError(
            "ruleset.partners", Problem.INCONSISTENT, f"{what} is ruled for fixed partners only (R14.10, R15)"
        )


DEFAULT_RULES: Final = Rules()
"""RULES.md's recommended defaults."""

RULEBOOK_000: Final = Rules(
    throw=ThrowCheck.TOP_DOWN,
    ruff=RuffStructure.COUNT,
    dig_multiplier=DigMultiplier.DOUBLING,
    dig_shape=DigShape.LEAD,
    first_dealer=FirstDealer.FIRST_DECLARER,
    bid_set=BidSet.BASIC,
    bid_stages=BidStages.STAGED,
    must_play=frozenset(),
    end=EndRule.PAST_ACE,
    coins=False,
)
"""[000] Rushi and the identical rules of [001] Lenovo: literal ruff count, first declarer deals, no NT."""

RULEBOOK_003: Final = Rules(
    throw=ThrowCheck.PAIRS_FIRST,
    ruff=RuffStructure.COUNT,
    dig_multiplier=DigMultiplier.CAPPED,
    dig_shape=DigShape.LEAD,
    first_dealer=FirstDealer.LAST_CHANGER,
    bid_set=BidSet.EXTENDED,
    bid_stages=BidStages.STAGED,
    must_play=frozenset({10}),
    end=EndRule.DEALER_AT_ACE,
    coins=True,
)
"""[003] Star Tractor: pairs-first throws, capped dig, 10 must-play, Tao Dou coins."""

PRESETS: Final[dict[str, Rules]] = {
    "default": DEFAULT_RULES,
    "rulebook-000": RULEBOOK_000,
    "rulebook-001": RULEBOOK_000,
    "rulebook-003": RULEBOOK_003,
}
"""Named presets, as a request names them."""
