"""Auditing a whole hand record: deal, declarations, bury and every trick, replayed and settled.

A backend that keeps its own game state can hand a finished hand to :func:`audit_hand` and get back
either the settlement the rules give, or the first step where the record breaks a rule, typed. The
record holds what happened on the table; the audit holds nothing of its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from rules_core.bidding import Bidding, Declaration, Shown, declarations_of, resolve_declarations
from rules_core.cards import (
    BOTTOM_SIZE,
    FULL_DECK,
    HAND_SIZE,
    PLAYERS,
    Deck,
    Hand,
    add,
    check_copies,
    check_size,
    format_cards,
    hand_of,
    remove,
)
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.follow import check_follow
from rules_core.kitty import check_bury
from rules_core.rules import FollowRule, NoBid, Rules, require_rulebook_table
from rules_core.seating import SeatCards, by_seat, in_turn, seat_in_range
from rules_core.settlement import FailedThrow, Settlement, check_level, check_seat
from rules_core.taodou import CoinSettlement, Stake, check_coins_enabled, settle
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

    @property
    def valid(self) -> bool:
        """Whether the record keeps every rule."""
        return self.error is None

    @property
    def leaders(self) -> tuple[int, ...]:
        """The seat that led each resolved trick: the dealer, then each trick's winner (R4.1, R7.4)."""
        if self.dealer is None:
            return ()
        return (self.dealer, *(result.winner for result in self.tricks))[: len(self.tricks)]


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
    deal_error = _check_deal(record)
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

    def stop(error: AuditError, tricks: Sequence[TrickResult] = (), score: int = 0) -> Audit:
        return Audit(error, bidding, dealer, tuple(tricks), score, None)

    if deal_error:
        return stop(AuditError(Finding.DEAL_NOT_A_DECK, deal_error))
    if dealer is None:
        return stop(AuditError(Finding.NO_DEALER, "a hand after the first must name its dealer"))
    hands = list(record.deal)
    bury = check_bury(hand=add(hands[dealer], record.bottom), bury=record.buried)
    if not bury.legal or bury.remaining is None:
        return stop(AuditError(Finding.ILLEGAL_BURY, bury.message, seat=dealer, violation=bury.reason))
    hands[dealer] = bury.remaining
    ctx = trump_context(record.level, bidding.contract)
    results: list[TrickResult] = []
    leader, score = dealer, 0
    failed: list[FailedThrow] = []  # R16.2: what THROW-PENALTY charges
    for index, trick in enumerate(record.tricks):
        if trick.leader is not None and trick.leader != leader:
            message = (
                f"trick {index} is recorded as led by seat {trick.leader}; "
                f"the lead belongs to seat {leader} (R4.1, R7.4)"
            )
            return stop(AuditError(Finding.PLAY_OUT_OF_TURN, message, index, trick.leader), results, score)
        if not any(sum(hand) for hand in hands):
            break  # R8.3: the hands emptied in an earlier trick
        error = _check_trick(ctx, rules, hands=hands, leader=leader, trick=trick, index=index)
        if error:
            return stop(error, results, score)
        for offset, play in enumerate(trick.plays):
            seat = (leader + offset) % PLAYERS
            hands[seat] = remove(hands[seat], play)
        last = not any(sum(hand) for hand in hands)
        result = resolve_trick(
            ctx, rules, leader=leader, plays=trick.plays, dealer=dealer, last=last, bottom=record.buried
        )
        results.append(result)
        score += result.attacker_points
        if trick.attempted:
            failed.append(FailedThrow(leader, len(trick.attempted)))
        leader = result.winner
    played = len(results)
    if any(sum(hand) for hand in hands) or played != len(record.tricks):
        left = "cards are still in hand" if any(sum(hand) for hand in hands) else "tricks follow the last one"
        return stop(AuditError(Finding.HAND_NOT_FINISHED, f"after {played} tricks {left}"), results, score)
    settled = settle(
        rules=rules,
        dealer_seat=dealer,
        dealer_level=record.level,
        attacker_level=record.attacker_level,
        score=score,
        stake=stake,
        declared_overturn=bidding.overturn_multiplier,
        failed_throws=failed,
        last_trick_win=_last_win(results, record.tricks, dealer),
    )
    return Audit(None, bidding, dealer, tuple(results), score, settled.settlement, settled.coins)


def _last_win(
    results: Sequence[TrickResult], tricks: Sequence[TrickRecord], dealer: int
) -> tuple[int, tuple[int, ...]] | None:
    """The last trick's winner and the cards he won with (R16.4's single jack is read off them)."""
    if not results:
        return None
    leaders = (dealer, *(result.winner for result in results))
    winner = results[-1].winner
    return winner, tricks[len(results) - 1].plays[(winner - leaders[len(results) - 1]) % PLAYERS]


def _check_deal(record: HandRecord) -> str | None:
    """None when the deal and bottom are exactly two decks split 25/25/25/25/8 (R1.1, R1.6)."""
    if len(record.deal) != PLAYERS:
        return f"the deal has {len(record.deal)} hands, not {PLAYERS}"
    for seat, hand in enumerate(record.deal):
        if sum(hand) != HAND_SIZE:
            return f"seat {seat} was dealt {sum(hand)} cards, not {HAND_SIZE}"
    if len(record.bottom) != BOTTOM_SIZE:
        return f"the bottom has {len(record.bottom)} cards, not {BOTTOM_SIZE}"
    total = Counter(record.bottom)
    for hand in record.deal:
        total.update({face: count for face, count in enumerate(hand) if count})
    if any(total[face] != FULL_DECK[face] for face in range(len(FULL_DECK))):
        return "the hands and the bottom are not two full decks"
    return None


def _check_trick(
    ctx: TrumpContext, rules: Rules, *, hands: list[Hand], leader: int, trick: TrickRecord, index: int
) -> AuditError | None:
    """The first rule this trick breaks, judged against the hands before it (R4, R5)."""
    if len(trick.plays) != PLAYERS:
        return AuditError(Finding.ILLEGAL_FOLLOW, f"trick {index} has {len(trick.plays)} plays", trick=index)
    lead = trick.plays[0]
    others = {seat: hands[seat] for seat in range(PLAYERS) if seat != leader}
    attempt = trick.attempted or lead
    verdict = check_lead(ctx, rules, hand=hands[leader], lead=attempt, others=others)
    if isinstance(verdict, Illegal):
        return AuditError(Finding.ILLEGAL_LEAD, verdict.message, index, leader, verdict.reason)
    led = verdict.throw.led if verdict.throw else attempt
    if Counter(led) != Counter(lead) or (
        trick.attempted and not (verdict.throw and not verdict.throw.succeeded)
    ):
        should = format_cards(led)
        return AuditError(
            Finding.THROW_MISRECORDED,
            f"the rules lead {should}; the record leads {format_cards(lead)}",
            index,
            leader,
        )
    for offset in (1, 2, 3):
        seat = (leader + offset) % PLAYERS
        play = trick.plays[offset]
        follow = check_follow(
            ctx, hand=hands[seat], lead=lead, play=play, structure=rules.follow is FollowRule.STRUCTURE
        )  # R16.3
        if isinstance(follow, Illegal):
            return AuditError(Finding.ILLEGAL_FOLLOW, follow.message, index, seat, follow.reason)
    return None


def audit(
    rules: Rules,
    *,
    level: int,
    attacker_level: int,
    hands: Sequence[SeatCards],
    bottom: Sequence[int],
    declarations: Sequence[Shown],
    buried: Sequence[int],
    tricks: Sequence[tuple[Sequence[SeatCards], Sequence[int]]],
    first_hand: bool = False,
    first_seated: int = 0,
    dealer: int | None = None,
    stake: Stake | None = None,
) -> Audit:
    """The request-level :func:`audit_hand`: a hand record as a request lists it (seated hands and plays,
    each trick with its attempted lead), its arguments named like the request's fields."""
    deck = Deck()
    dealt = by_seat(hands, "hands", seats=range(PLAYERS), deck=deck, low=HAND_SIZE, high=HAND_SIZE)
    check_size(bottom, "bottom", BOTTOM_SIZE, BOTTOM_SIZE, "the bottom")
    deck.add(bottom, "bottom")
    sequence = declarations_of(declarations)
    check_seat("first_seated", first_seated)
    if dealer is not None:
        check_seat("dealer", dealer)
        if first_hand:
            raise InvalidArgumentError(
                "dealer",
                Problem.INCONSISTENT,
                "the first hand's dealer is decided by the bidding (R10.6); omit it",
            )
    check_copies(buried, "buried")
    record = HandRecord(
        level=level,
        attacker_level=attacker_level,
        deal=tuple(hand_of(dealt[seat]) for seat in range(PLAYERS)),
        bottom=tuple(bottom),
        declarations=sequence,
        buried=tuple(buried),
        tricks=_recorded_tricks(tricks),
        first_hand=first_hand,
        first_seated=first_seated,
        dealer=dealer,
    )
    return audit_hand(rules, record, stake=stake)


def _recorded_tricks(tricks: Sequence[tuple[Sequence[SeatCards], Sequence[int]]]) -> tuple[TrickRecord, ...]:
    """At most 25 tricks, each four plays whose seats follow the turn order from its recorded leader."""
    if len(tricks) > MAX_TRICKS:
        raise InvalidArgumentError(
            "tricks", Problem.BAD_SIZE, f"a hand has at most {MAX_TRICKS} tricks, got {len(tricks)}"
        )
    found = []
    for i, (plays, attempted) in enumerate(tricks):
        where = f"tricks[{i}]"
        if len(plays) != PLAYERS:
            raise InvalidArgumentError(
                f"{where}.plays", Problem.BAD_SIZE, f"a trick has {PLAYERS} plays, got {len(plays)}"
            )
        leader = seat_in_range(plays[0][0], f"{where}.plays[0].seat")
        cards = in_turn(plays, f"{where}.plays", leader=leader)
        for j, play in enumerate(cards):
            check_copies(play, f"{where}.plays[{j}].cards")
        check_copies(attempted, f"{where}.attempted_lead")
        found.append(TrickRecord(plays=cards, attempted=tuple(attempted), leader=leader))
    return tuple(found)
