"""Auditing a whole hand record: deal, declarations, bury and every trick, replayed and settled.

:func:`audit_request` is AuditHand's one entry for every table: the rulebooks' table replays R0-R13
(:func:`audit_hand`), any other (:func:`audit_table`) the deal of D decks to N seats, the declarations
(R14.11), the bury (R14.2), every trick by R14's lead and follow rules against the hands, the sides
replayed from the friend calls (R15.5-R15.8) and the per-seat settlement (R15.10-R15.13). The findings
are the same on every table; malformed values are InvalidArgumentError naming the request's field.

A backend that keeps its own game state can hand a finished hand to :func:`audit_hand` and get back
either the settlement the rules give, or the first step where the record breaks a rule, typed. The
record holds what happened on the table; the audit holds nothing of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Protocol

from rules_core.bidding import Bidding, Declaration, Shown, declarations_of, declare, resolve_declarations
from rules_core.cards import (
    HAND_SIZE,
    NUM_FACES,
    Deck,
    Hand,
    check_size,
    deal_sizes,
    faces_of,
    format_cards,
    hand_of,
    remove,
)
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.follow import check_follow
from rules_core.friends import (
    ACE,
    FriendCall,
    Play,
    SidesAfter,
    TableSettlement,
    Trick,
    check_calls,
    replay_sides,
    settle_table,
)
from rules_core.kitty import validate_bury
from rules_core.rules import FollowRule, NoBid, Rules, require_rulebook_table
from rules_core.seating import SeatCards, by_seat, in_turn, seat_in_range
from rules_core.settlement import FailedThrow, Settlement, check_int, check_level, check_seat, hand_size
from rules_core.taodou import CoinSettlement, Stake, check_coins_enabled, refuse_stake, settle
from rules_core.throw import check_lead
from rules_core.trick import TrickResult, resolve_trick
from rules_core.trump import TrumpContext, trump_context
from rules_core.verdicts import Illegal, Violation

MAX_TRICKS = HAND_SIZE
"""A hand has at most 25 tricks: every trick takes at least one card from each hand."""


class Finding(StrEnum):
    """Why a hand record fails its audit."""

    DEAL_NOT_A_DECK = "DEAL_NOT_A_DECK"
    """The four hands and the bottom are not the 108 cards of two decks, 25 + 25 + 25 + 25 + 8 (R1)."""
    NO_DEALER = "NO_DEALER"
    """A later hand names no dealer (R10.7)."""
    ILLEGAL_BURY = "ILLEGAL_BURY"
    """The dealer did not bury exactly 8 of his 33 cards (R11.2)."""
    ILLEGAL_LEAD = "ILLEGAL_LEAD"
    """A lead the leader could not make (R4)."""
    THROW_MISRECORDED = "THROW_MISRECORDED"
    """A throw's recorded outcome differs from the rules': it should have failed, or not, or forced
    another component (R4.4–R4.7)."""
    ILLEGAL_FOLLOW = "ILLEGAL_FOLLOW"
    """A follow the follower could not make (R5)."""
    HAND_NOT_FINISHED = "HAND_NOT_FINISHED"
    """The record ends with cards still in hand, or goes on after the hands are empty (R8.3)."""
    PLAY_OUT_OF_TURN = "PLAY_OUT_OF_TURN"
    """A trick is recorded as led by a seat whose lead it is not: the dealer leads the first trick,
    each trick's winner the next (R4.1, R7.4)."""


@dataclass(frozen=True, slots=True)
class TrickRecord:
    """One trick as played: four plays in play order from the leader, and a failed throw's attempt."""

    plays: tuple[tuple[int, ...], ...]
    """plays[0] is what was actually led: the whole throw, or its forced component."""
    attempted: tuple[int, ...] = ()
    """The whole attempt when the leader tried a throw that failed (R4.7); empty otherwise."""
    leader: int | None = None
    """The seat the record says led the trick; None when the record does not say (it is then taken to
    be the seat whose lead it is)."""


@dataclass(frozen=True, slots=True)
class HandRecord:
    """Everything needed to replay one hand (R0.5: the engine sees all four hands)."""

    level: int
    """The dealer team's level, which is the hand's level rank L (R2.1)."""
    attacker_level: int
    """The attacking team's level (R9)."""
    deal: tuple[Hand, ...]
    """The four 25-card hands as dealt, by seat."""
    bottom: tuple[int, ...]
    """The 8 cards the dealer picks up (R11.1)."""
    declarations: tuple[Declaration, ...]
    """The declaration acts in time order (R10)."""
    buried: tuple[int, ...]
    """The 8 cards the dealer buried (R11.2)."""
    tricks: tuple[TrickRecord, ...]
    """Every trick in order (R4.1: the dealer leads the first, each winner the next)."""
    first_hand: bool = False
    """The first hand of a game: the declarations decide the dealer (R10.6, R10.8)."""
    first_seated: int = 0
    """The first hand's dealer when nobody declares (R10.8)."""
    dealer: int | None = None
    """A later hand's dealer, fixed by rotation (R9.3, R10.7)."""


@dataclass(frozen=True, slots=True)
class AuditError:
    """The first rule a hand record breaks."""

    finding: Finding
    message: str
    trick: int | None = None
    """Index of the trick, when the error is in one."""
    seat: int | None = None
    """The seat at fault, when there is one."""
    violation: Violation | None = None
    """The play's violation, for ILLEGAL_LEAD, ILLEGAL_FOLLOW and ILLEGAL_BURY."""


@dataclass(frozen=True, slots=True)
class Audit:
    """The outcome of an audit: valid with a settlement, or the first error and how far it got."""

    error: AuditError | None
    bidding: Bidding
    dealer: int | None
    tricks: tuple[TrickResult, ...]
    """The tricks resolved before any error."""
    score: int
    """The attackers' points from those tricks, dig included (R8)."""
    settlement: Settlement | None
    """The settlement (R9), when the record is valid."""
    coins: CoinSettlement | None = None
    """The Tao Dou settlement (R12), when the record is valid and a stake was given."""
    leaders: tuple[int, ...] = ()
    """The seat that led each resolved trick: the dealer, then each trick's winner (R4.1, R7.4)."""

    @property
    def valid(self) -> bool:
        """Whether the record keeps every rule."""
        return self.error is None


def audit_hand(rules: Rules, record: HandRecord, *, stake: Stake | None = None) -> Audit:
    """Replay ``record`` step by step, stopping at the first broken rule. Raises InvalidArgumentError only for
    malformed values (a level out of range, an unknown card); rule breaks come back as findings."""
    require_rulebook_table(rules, "auditing a hand")  # R14.10
    check_level("level", record.level)
    check_level("attacker_level", record.attacker_level)
    check_seat("first_seated", record.first_seated)
    if record.dealer is not None:
        check_seat("dealer", record.dealer)
        if record.first_hand:
            raise InvalidArgumentError(
                "dealer",
                Problem.INCONSISTENT,
                "the first hand's dealer is decided by the bidding (R10.6); omit it",
            )
    if stake is not None:
        check_coins_enabled(rules)
    deal_error = _deal_error(rules, record.deal, record.bottom)
    shown = tuple(  # R10.1: what a seat shows must be in its hand; the full deal bounds what it had
        d if d.hand is not None or deal_error else replace(d, hand=record.deal[d.seat])
        for d in record.declarations
    )
    bidding = resolve_declarations(
        rules=replace(rules, no_bid=NoBid.NO_TRUMP) if deal_error else rules,  # R16.6 needs a real bottom
        level=record.level,
        sequence=shown,
        first_hand=record.first_hand,
        first_seated=record.first_seated,
        dealer=None if record.first_hand else record.dealer,
        bottom=None if deal_error else record.bottom,  # R16.6: the bottom as the dealer picks it up
    )
    dealer = bidding.dealer

    def stop(error: AuditError, played: _Played | None = None, score: int = 0) -> Audit:
        results, leaders = (played.results, played.leaders) if played else ((), ())
        return Audit(error, bidding, dealer, results, score, None, leaders=leaders)

    if deal_error:
        return stop(AuditError(Finding.DEAL_NOT_A_DECK, deal_error))
    if dealer is None:
        return stop(AuditError(Finding.NO_DEALER, "a hand after the first must name its dealer"))
    ctx = trump_context(record.level, bidding.contract)
    played = _play(rules, ctx, dealer, record.deal, record.bottom, record.buried, record.tricks)
    score = sum(result.attacker_points for result in played.results)
    if played.error:
        return stop(played.error, played, score)
    settled = settle(
        rules=rules,
        dealer_seat=dealer,
        dealer_level=record.level,
        attacker_level=record.attacker_level,
        score=score,
        stake=stake,
        declared_overturn=bidding.overturn_multiplier,
        failed_throws=played.failed,
        last_trick_win=_last_win(rules, played, record.tricks),
    )
    coins, leaders = settled.coins, played.leaders
    return Audit(None, bidding, dealer, played.results, score, settled.settlement, coins, leaders)


def _last_win(
    rules: Rules, played: _Played, tricks: Sequence[TrickRecord]
) -> tuple[int, tuple[int, ...]] | None:
    """The last trick's winner and the cards he won with (R16.4's single jack is read off them)."""
    if not played.results:
        return None
    winner, leader = played.results[-1].winner, played.leaders[-1]
    return winner, tricks[len(played.results) - 1].plays[(winner - leader) % rules.seats]


_DECKS = ("no", "one", "two", "three", "four")


def _deal_error(rules: Rules, deal: Sequence[Hand], bottom: Sequence[int]) -> str | None:
    """None when the hands (count vectors) and the bottom are exactly D whole decks dealt in N hands of
    R14.2's size and its bottom (R1.1, R1.6, R14.1, R14.2)."""
    n, (size, bottom_size) = rules.seats, deal_sizes(rules.decks, rules.seats)
    if len(deal) != n:
        return f"the deal has {len(deal)} hands, not {n}"
    for seat, hand in enumerate(deal):
        if sum(hand) != size:
            return f"seat {seat} was dealt {sum(hand)} cards, not {size}"
    if len(bottom) != bottom_size:
        return f"the bottom has {len(bottom)} cards, not {bottom_size}"
    total = list(map(sum, zip(*deal, strict=True))) if deal else [0] * NUM_FACES
    for face in bottom:
        total[face] += 1
    if any(count != rules.decks for count in total):
        return f"the hands and the bottom are not {_DECKS[rules.decks]} full decks"
    return None


@dataclass(frozen=True, slots=True)
class _Played:
    """How far the bury and the tricks got on any table: the first error, or None when the hand finished."""

    error: AuditError | None
    results: tuple[TrickResult, ...]
    leaders: tuple[int, ...]
    sides: tuple[SidesAfter, ...]
    """The sides after each trick (R15.8), when the calls were given."""
    done: tuple[Trick, ...]
    failed: tuple[FailedThrow, ...]
    """R16.2: the failed throws THROW-PENALTY charges."""


def _play(  # noqa: PLR0917 (the record's parts, each once)
    rules: Rules,
    ctx: TrumpContext,
    dealer: int,
    deal: Sequence[Hand],
    bottom: Sequence[int],
    buried: Sequence[int],
    tricks: Sequence[TrickRecord],
    calls: Sequence[FriendCall] | None = None,
) -> _Played:
    """R11 then every trick (R4-R8, R14.4-R14.9) against the hands as they stand, on every table; with
    ``calls`` the sides after each trick (R15.8) are replayed and make its attackers."""
    n = rules.seats
    hands = list(deal)
    bury = validate_bury(rules, hand=[*faces_of(hands[dealer]), *bottom], bury=buried)  # R11, R14.2
    results: list[TrickResult] = []
    leaders: list[int] = []
    sides: list[SidesAfter] = []
    done: list[Trick] = []
    failed: list[FailedThrow] = []

    def stop(error: AuditError | None) -> _Played:
        return _Played(error, tuple(results), tuple(leaders), tuple(sides), tuple(done), tuple(failed))

    if not bury.legal or bury.remaining is None:
        return stop(AuditError(Finding.ILLEGAL_BURY, bury.message, seat=dealer, violation=bury.reason))
    hands[dealer] = bury.remaining
    leader = dealer
    for index, trick in enumerate(tricks):
        if trick.leader is not None and trick.leader != leader:
            message = (
                f"trick {index} is recorded as led by seat {trick.leader}; "
                f"the lead belongs to seat {leader} (R4.1, R7.4)"
            )
            return stop(AuditError(Finding.PLAY_OUT_OF_TURN, message, index, trick.leader))
        if not any(map(sum, hands)):
            break  # R8.3: the hands emptied in an earlier trick
        error = _check_trick(ctx, rules, hands, leader, trick, index)
        if error:
            return stop(error)
        for offset, play in enumerate(trick.plays):
            seat = (leader + offset) % n
            hands[seat] = remove(hands[seat], play)
        attackers = None
        if calls is not None:  # R15.8: the sides after this trick, which its winner may join
            probe = resolve_trick(
                ctx, rules, leader=leader, plays=trick.plays, dealer=dealer, attackers=frozenset()
            )
            done.append(
                Trick(tuple(Play((leader + i) % n, p) for i, p in enumerate(trick.plays)), probe.winner)
            )
            sides.append(replay_sides(rules, ctx, dealer, calls, done)[-1])  # bounded: at most 52 tricks
            attackers = frozenset(range(n)) - sides[-1].dealer_side
        last = not any(map(sum, hands))
        result = resolve_trick(  # R7, R8 (R14.8, R14.9): the dig on the last trick
            ctx,
            rules,
            leader=leader,
            plays=trick.plays,
            dealer=dealer,
            last=last,
            bottom=buried if last else (),
            attackers=attackers,
        )
        results.append(result)
        leaders.append(leader)
        if trick.attempted:
            failed.append(FailedThrow(leader, len(trick.attempted)))
        leader = result.winner
    if any(map(sum, hands)) or len(results) != len(tricks):
        left = "cards are still in hand" if any(map(sum, hands)) else "tricks follow the last one"
        return stop(AuditError(Finding.HAND_NOT_FINISHED, f"after {len(results)} tricks {left}"))
    return stop(None)


def _check_trick(  # noqa: PLR0917 (one private step of _play)
    ctx: TrumpContext,
    rules: Rules,
    hands: Sequence[Hand],
    leader: int,
    trick: TrickRecord,
    index: int,
) -> AuditError | None:
    """The first rule this trick breaks, judged against the hands before it (R4, R5; R14.5, R14.6)."""
    n = rules.seats
    if len(trick.plays) != n:
        return AuditError(Finding.ILLEGAL_FOLLOW, f"trick {index} has {len(trick.plays)} plays", trick=index)
    lead = trick.plays[0]
    attempt = trick.attempted or lead
    others = {seat: hands[seat] for seat in range(n) if seat != leader}
    verdict = check_lead(ctx, rules, hand=hands[leader], lead=attempt, others=others)  # R4, R14.5
    if isinstance(verdict, Illegal):
        return AuditError(Finding.ILLEGAL_LEAD, verdict.message, index, leader, verdict.reason)
    led = verdict.throw.led if verdict.throw else attempt
    failed = bool(verdict.throw and not verdict.throw.succeeded)
    if sorted(led) != sorted(lead) or (bool(trick.attempted) and not failed):
        message = f"the rules lead {format_cards(led)}; the record leads {format_cards(lead)}"
        return AuditError(Finding.THROW_MISRECORDED, message, index, leader)
    structure = rules.follow is FollowRule.STRUCTURE  # R16.3
    for offset in range(1, n):
        seat = (leader + offset) % n
        play = trick.plays[offset]
        follow = check_follow(  # R5, R14.6
            ctx, hand=hands[seat], lead=lead, play=play, structure=structure, decks=rules.decks
        )
        if isinstance(follow, Illegal):
            return AuditError(Finding.ILLEGAL_FOLLOW, follow.message, index, seat, follow.reason)
    return None


def _audit_teams(rules: Rules, request: TeamsRecord) -> Audit:
    """AuditHand on the rulebooks' table: the record as a request lists it (seated hands and plays, each
    trick with its attempted lead) checked and named like the request's fields, then :func:`audit_hand`."""
    dealt, dealer = _dealt(rules, request.hands, request.bottom), request.dealer
    sequence = declarations_of(request.declarations)
    check_seat("first_seated", request.first_seated)
    if dealer is not None:
        check_seat("dealer", dealer)
        if request.first_hand:
            raise InvalidArgumentError(
                "dealer",
                Problem.INCONSISTENT,
                "the first hand's dealer is decided by the bidding (R10.6); omit it",
            )
    _copies(rules).add(request.buried, "buried")
    record = HandRecord(
        level=request.level,
        attacker_level=request.attacker_level,
        deal=tuple(map(hand_of, dealt)),
        bottom=tuple(request.bottom),
        declarations=sequence,
        buried=tuple(request.buried),
        tricks=_recorded_tricks(rules, request.tricks),
        first_hand=request.first_hand,
        first_seated=request.first_seated,
        dealer=dealer,
    )
    return audit_hand(rules, record, stake=request.stake)


def _copies(rules: Rules) -> Deck:
    """A request's copy counter, D copies a face (R1.2, R14.1), naming the fields holding the others."""
    return Deck(rules.decks)


def _dealt(rules: Rules, hands: Sequence[SeatCards], bottom: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    """R1.6, R14.2: one hand of the table's size for each seat and its bottom, no face past D copies."""
    n, (size, bottom_size) = rules.seats, deal_sizes(rules.decks, rules.seats)
    deck = _copies(rules)
    dealt = by_seat(hands, "hands", seats=range(n), deck=deck, low=size, high=size, table=n)
    check_size(bottom, "bottom", bottom_size, bottom_size, "the bottom")
    deck.add(bottom, "bottom")
    return tuple(dealt[seat] for seat in range(n))


def _recorded_tricks(
    rules: Rules, tricks: Sequence[tuple[Sequence[SeatCards], Sequence[int]]]
) -> tuple[TrickRecord, ...]:
    """At most a hand of tricks (R14.2), each N plays whose seats follow the turn order from its recorded
    leader (R4.1, R14.4), no face past D copies in a play or an attempted lead."""
    n, most = rules.seats, hand_size(rules)
    if len(tricks) > most:
        raise InvalidArgumentError(
            "tricks", Problem.BAD_SIZE, f"a hand has at most {most} tricks, got {len(tricks)}"
        )
    found = []
    for i, (plays, attempted) in enumerate(tricks):
        where = f"tricks[{i}]"
        if len(plays) != n:
            raise InvalidArgumentError(
                f"{where}.plays", Problem.BAD_SIZE, f"a trick has {n} plays, got {len(plays)}"
            )
        leader = seat_in_range(plays[0][0], f"{where}.plays[0].seat", n)
        cards = in_turn(plays, f"{where}.plays", leader=leader, seats=n)
        for j, play in enumerate(cards):
            _copies(rules).add(play, f"{where}.plays[{j}].cards")
        _copies(rules).add(attempted, f"{where}.attempted_lead")
        found.append(TrickRecord(plays=cards, attempted=tuple(attempted), leader=leader))
    return tuple(found)


# ------------------------------------------------------------------------------------------------
# Any other table (R14, R15)


@dataclass(frozen=True, slots=True)
class TableAudit:
    """The outcome of an audit on another table: valid with a per-seat settlement, or the first error."""

    error: AuditError | None
    bidding: Bidding
    dealer: int | None
    tricks: tuple[TrickResult, ...]
    """The tricks resolved before any error; each trick's attacker points by the sides after it."""
    sides: tuple[SidesAfter, ...]
    """The sides and the calls after each resolved trick (R15.8)."""
    leaders: tuple[int, ...]
    """The seat that led each resolved trick (R4.1, R7.4)."""
    score: int
    """The attackers' points from those tricks by the latest sides, dig included (R15.8, R15.9), without
    the failed-throw penalty (R16.2), which the settlement's score adds."""
    settlement: TableSettlement | None
    """The per-seat settlement (R15.10-R15.13), when the record is valid."""

    @property
    def valid(self) -> bool:
        """Whether the record keeps every rule."""
        return self.error is None


def audit_table(rules: Rules, request: SeatsRecord) -> TableAudit:
    """Replay a hand on another table step by step, stopping at the first broken rule (R14, R15)."""
    if rules.rulebook_table:  # its audit is audit(): audit_request picks it
        raise InvalidArgumentError("ruleset", Problem.INCONSISTENT, "the rulebooks' table has its own audit")
    dealt = _dealt(rules, request.hands, request.bottom)
    deal = tuple(Deck(rules.decks).counted(hand, "hands") for hand in dealt)
    _copies(rules).add(request.buried, "buried")
    tricks = _recorded_tricks(rules, request.tricks)
    level, seat_levels, calls = request.level, request.seat_levels, request.calls
    if len(seat_levels) != rules.seats:
        raise InvalidArgumentError(
            "seat_levels", Problem.BAD_SIZE, f"one level for each of the {rules.seats} seats (R15.11)"
        )
    for seat, value in enumerate(seat_levels):
        check_int(f"seat_levels[{seat}]", value, low=2, high=ACE)
    deal_error = _deal_error(rules, deal, request.bottom)
    shown = tuple(
        (
            seat,
            cards,
            held if held is not None or deal_error or not 0 <= seat < rules.seats else faces_of(deal[seat]),
        )
        for seat, cards, held in request.declarations
    )
    bidding = declare(  # R14.11 (R10.1: what a seat shows is in its dealt hand)
        rules=rules,
        level=level,
        acts=shown,
        first_hand=request.first_hand,
        first_seated=request.first_seated,
        dealer=request.dealer,
    )
    empty = TableAudit(None, bidding, bidding.dealer, (), (), (), 0, None)
    if deal_error:
        return replace(empty, error=AuditError(Finding.DEAL_NOT_A_DECK, deal_error))
    if bidding.dealer is None:
        return replace(
            empty, error=AuditError(Finding.NO_DEALER, "a hand after the first must name its dealer")
        )
    ctx = trump_context(level, bidding.contract)
    try:  # R15.1-R15.4, named friend_calls[i] (a table its partners cannot seat: ruleset.partners)
        check_calls(rules, ctx, calls)
    except InvalidArgumentError as error:
        if error.argument == "partners":
            raise InvalidArgumentError("ruleset.partners", error.problem, error.message) from None
        raise
    if seat_levels[bidding.dealer] != level:
        raise InvalidArgumentError(
            f"seat_levels[{bidding.dealer}]", Problem.INCONSISTENT, "the hand is played at the dealer's level"
        )
    dealer = bidding.dealer
    played = _play(rules, ctx, dealer, deal, request.bottom, request.buried, tricks, calls)
    score = played.sides[-1].attackers_points if played.sides else 0
    audit = TableAudit(
        played.error, bidding, dealer, played.results, played.sides, played.leaders, score, None
    )
    if played.error:
        return audit
    dig = played.results[-1].dig
    settled = settle_table(
        rules,
        ctx,
        dealer=dealer,
        levels=seat_levels,
        calls=calls,
        tricks=played.done,
        dig_points=dig.added if dig else 0,
        failed_throws=played.failed,
    )
    score = settled.score - settled.throw_penalty  # R16.2's penalty is the settlement's, as on two decks
    return replace(audit, score=score, settlement=settled)


class HandToAudit(Protocol):
    """An AuditHand request as the shell decodes it: each table's fields decoded only when that table
    reads them (``teams`` on the rulebooks' table, ``record`` elsewhere: :func:`audit_request`)."""

    @property
    def staked(self) -> bool: ...
    def teams(self) -> TeamsRecord: ...
    def record(self) -> SeatsRecord: ...


@dataclass(frozen=True, slots=True)
class TeamsRecord:
    """AuditHand's arguments on the rulebooks' table: :func:`audit`'s."""

    level: int
    attacker_level: int
    hands: tuple[SeatCards, ...]
    bottom: tuple[int, ...]
    declarations: tuple[Shown, ...]
    buried: tuple[int, ...]
    tricks: tuple[tuple[Sequence[SeatCards], Sequence[int]], ...]
    first_hand: bool
    first_seated: int
    dealer: int | None
    stake: Stake | None


@dataclass(frozen=True, slots=True)
class SeatsRecord:
    """AuditHand's arguments on any other table: :func:`audit_table`'s."""

    level: int
    seat_levels: tuple[int, ...]
    hands: tuple[SeatCards, ...]
    bottom: tuple[int, ...]
    declarations: tuple[Shown, ...]
    buried: tuple[int, ...]
    tricks: tuple[tuple[Sequence[SeatCards], Sequence[int]], ...]
    calls: tuple[FriendCall, ...]
    first_hand: bool = False
    first_seated: int = 0
    dealer: int | None = None


def audit_request(rules: Rules, hand: HandToAudit) -> Audit | TableAudit:
    """AuditHand on every table: R0-R13 on the rulebooks' table, R14 and R15 on any other, where a Tao Dou
    stake is refused naming the ruleset field (R14.10)."""
    if rules.rulebook_table:
        return _audit_teams(rules, hand.teams())
    if hand.staked:
        refuse_stake(rules)
    return audit_table(rules, hand.record())
