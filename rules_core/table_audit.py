"""Auditing a whole hand record on any other table (R14, R15): the deal of D decks to N seats, the
declarations (R14.11), the bury (R14.2), every trick judged by R14's lead and follow rules against the
hands, the sides replayed from the friend calls (R15.5-R15.8), points and dig (R14.9), and the per-seat
settlement on the deck-scaled table (R15.10-R15.13).

The rulebooks' table keeps :mod:`rules_core.audit`; this module never runs there. Findings are those of
the two-deck audit (:class:`rules_core.audit.Finding`); malformed values are InvalidArgumentError naming
the request's field. Cost is bounded: at most ``MAX_TABLE_TRICKS`` tricks of N plays, each judged once
by R14's bounded lead and follow checks, and the sides replayed once per trick from the calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from rules_core.audit import AuditError, Finding, TrickRecord
from rules_core.bidding import Bidding, Shown, declare
from rules_core.cards import NUM_FACES, faces_of, format_cards
from rules_core.errors import InvalidArgumentError, Problem
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
from rules_core.rules import Rules, on_rulebook_table
from rules_core.seating import SeatCards
from rules_core.settlement import FailedThrow, check_int
from rules_core.table import Counter, table_bury, table_follow, table_lead, table_sizes, table_trick
from rules_core.table_turn import MAX_TABLE_TRICKS
from rules_core.trick import TrickResult
from rules_core.trump import TrumpContext, trump_context
from rules_core.verdicts import Illegal


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


@dataclass(frozen=True, slots=True)
class _Record:
    """A checked record: the table's hands, bottom, declarations, bury and tricks."""

    deal: tuple[tuple[int, ...], ...]
    """Each seat's dealt faces, in face order."""
    bottom: tuple[int, ...]
    declarations: tuple[Shown, ...]
    buried: tuple[int, ...]
    tricks: tuple[TrickRecord, ...]


def audit_table(
    rules: Rules,
    *,
    level: int,
    seat_levels: Sequence[int],
    hands: Sequence[SeatCards],
    bottom: Sequence[int],
    declarations: Sequence[Shown],
    buried: Sequence[int],
    tricks: Sequence[tuple[Sequence[SeatCards], Sequence[int]]],
    calls: Sequence[FriendCall],
    first_hand: bool = False,
    first_seated: int = 0,
    dealer: int | None = None,
) -> TableAudit:
    """Replay a hand on another table step by step, stopping at the first broken rule (R14, R15)."""
    if on_rulebook_table(rules):
        raise InvalidArgumentError("ruleset", Problem.INCONSISTENT, "the rulebooks' table has its own audit")
    record = _checked(
        rules, hands=hands, bottom=bottom, declarations=declarations, buried=buried, tricks=tricks
    )
    if len(seat_levels) != rules.seats:
        raise InvalidArgumentError(
            "seat_levels", Problem.BAD_SIZE, f"one level for each of the {rules.seats} seats (R15.11)"
        )
    for seat, value in enumerate(seat_levels):
        check_int(f"seat_levels[{seat}]", value, low=2, high=ACE)
    deal_error = _deal_error(rules, record)
    shown = tuple(
        (
            seat,
            cards,
            held if held is not None or deal_error or not 0 <= seat < rules.seats else record.deal[seat],
        )
        for seat, cards, held in record.declarations
    )
    bidding = declare(  # R14.11 (R10.1: what a seat shows is in its dealt hand)
        rules=rules, level=level, acts=shown, first_hand=first_hand, first_seated=first_seated, dealer=dealer
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
    return _play(rules, ctx=ctx, bidding=bidding, record=record, calls=calls, levels=seat_levels)


def _checked(
    rules: Rules,
    *,
    hands: Sequence[SeatCards],
    bottom: Sequence[int],
    declarations: Sequence[Shown],
    buried: Sequence[int],
    tricks: Sequence[tuple[Sequence[SeatCards], Sequence[int]]],
) -> _Record:
    """R14.1, R14.2: N hands of the table's size, its bottom, no face past D copies in any argument."""
    n = rules.seats
    size, bottom_size = table_sizes(rules.decks, n)
    deal: list[tuple[int, ...] | None] = [None] * n
    counter = Counter(rules.decks)
    if len(hands) != n:
        raise InvalidArgumentError("hands", Problem.BAD_SIZE, f"one hand for each of the {n} seats")
    for i, (seat, cards) in enumerate(hands):
        if not 0 <= seat < n or deal[seat] is not None:
            raise InvalidArgumentError(
                f"hands[{i}].seat", Problem.OUT_OF_RANGE, f"one hand per seat 0..{n - 1}"
            )
        if len(cards) != size:
            raise InvalidArgumentError(f"hands[{i}].cards", Problem.BAD_SIZE, f"a hand is dealt {size} cards")
        deal[seat] = faces_of(counter.add(cards, f"hands[{i}].cards"))
    if len(bottom) != bottom_size:
        raise InvalidArgumentError(
            "bottom", Problem.BAD_SIZE, f"the bottom holds {bottom_size} cards (R14.2)"
        )
    counter.add(bottom, "bottom")
    Counter(rules.decks).add(buried, "buried")
    if len(tricks) > MAX_TABLE_TRICKS:
        raise InvalidArgumentError(
            "tricks", Problem.BAD_SIZE, f"a hand has at most {MAX_TABLE_TRICKS} tricks"
        )
    return _Record(
        deal=tuple(hand for hand in deal if hand is not None),
        bottom=tuple(bottom),
        declarations=tuple(declarations),
        buried=tuple(buried),
        tricks=tuple(_trick(rules, i, plays, attempted) for i, (plays, attempted) in enumerate(tricks)),
    )


def _trick(rules: Rules, index: int, plays: Sequence[SeatCards], attempted: Sequence[int]) -> TrickRecord:
    """One recorded trick: N non-empty plays in turn order from its leader (R14.4)."""
    n, where = rules.seats, f"tricks[{index}]"
    if len(plays) != n:
        raise InvalidArgumentError(
            f"{where}.plays", Problem.BAD_SIZE, f"a trick has {n} plays, got {len(plays)}"
        )
    leader = plays[0][0]
    if not 0 <= leader < n:
        raise InvalidArgumentError(f"{where}.plays[0].seat", Problem.OUT_OF_RANGE, f"seats are 0..{n - 1}")
    for j, (seat, cards) in enumerate(plays):
        if seat != (leader + j) % n:
            raise InvalidArgumentError(
                f"{where}.plays[{j}].seat", Problem.OUT_OF_ORDER, f"seat {(leader + j) % n} plays here"
            )
        if not cards:
            raise InvalidArgumentError(f"{where}.plays[{j}].cards", Problem.MISSING, "a play has cards")
        Counter(rules.decks).add(cards, f"{where}.plays[{j}].cards")
    Counter(rules.decks).add(attempted, f"{where}.attempted_lead")
    return TrickRecord(tuple(tuple(cards) for _, cards in plays), tuple(attempted), leader)


def _deal_error(rules: Rules, record: _Record) -> str | None:
    """None when the hands and the bottom are exactly D whole decks (R14.1)."""
    total = [0] * NUM_FACES
    for faces in (*record.deal, record.bottom):
        for face in faces:
            total[face] += 1
    if any(count != rules.decks for count in total):
        return f"the hands and the bottom are not {rules.decks} full decks"
    return None


def _play(
    rules: Rules,
    *,
    ctx: TrumpContext,
    bidding: Bidding,
    record: _Record,
    calls: Sequence[FriendCall],
    levels: Sequence[int],
) -> TableAudit:
    """R11 then every trick (R14.4-R14.9, R15.8), then the settlement (R15.10-R15.13)."""
    dealer, n = bidding.dealer, rules.seats
    assert dealer is not None
    hands = [list(faces) for faces in record.deal]
    bury = table_bury(rules, hand=hands[dealer] + list(record.bottom), bury=record.buried)
    base = TableAudit(None, bidding, dealer, (), (), (), 0, None)
    if not bury.legal:
        bad = AuditError(Finding.ILLEGAL_BURY, bury.message, seat=dealer, violation=bury.reason)
        return replace(base, error=bad)
    hands[dealer] = _minus(hands[dealer] + list(record.bottom), record.buried)
    results: list[TrickResult] = []
    done: list[Trick] = []
    sides: list[SidesAfter] = []
    leaders: list[int] = []
    failed: list[FailedThrow] = []
    leader = dealer

    def stop(error: AuditError) -> TableAudit:
        score = sides[-1].attackers_points if sides else 0
        return TableAudit(error, bidding, dealer, tuple(results), tuple(sides), tuple(leaders), score, None)

    for index, trick in enumerate(record.tricks):
        if trick.leader is not None and trick.leader != leader:
            message = f"trick {index} is recorded as led by seat {trick.leader}; the lead is seat {leader}'s"
            return stop(AuditError(Finding.PLAY_OUT_OF_TURN, message, index, trick.leader))
        if not any(hands):
            break  # R8.3: the hands emptied in an earlier trick
        error = _check_trick(ctx, rules, hands, leader, trick, index)
        if error:
            return stop(error)
        for offset, play in enumerate(trick.plays):
            seat = (leader + offset) % n
            hands[seat] = _minus(hands[seat], play)
        probe = table_trick(
            ctx, rules, leader=leader, plays=trick.plays, dealer=dealer, attackers=frozenset()
        )
        done.append(Trick(tuple(Play((leader + i) % n, p) for i, p in enumerate(trick.plays)), probe.winner))
        after = replay_sides(rules, ctx, dealer, calls, done)[-1]  # R15.8: bounded, at most 52 tricks
        last = not any(hands)
        result = table_trick(
            ctx,
            rules,
            leader=leader,
            plays=trick.plays,
            dealer=dealer,
            last=last,
            bottom=record.buried if last else (),
            attackers=frozenset(range(n)) - after.dealer_side,
        )
        results.append(result)
        sides.append(after)
        leaders.append(leader)
        if trick.attempted:
            failed.append(FailedThrow(leader, len(trick.attempted)))
        leader = result.winner
    if any(hands) or len(results) != len(record.tricks):
        left = "cards are still in hand" if any(hands) else "tricks follow the last one"
        return stop(AuditError(Finding.HAND_NOT_FINISHED, f"after {len(results)} tricks {left}"))
    dig = results[-1].dig
    settled = settle_table(
        rules,
        ctx,
        dealer=dealer,
        levels=levels,
        calls=calls,
        tricks=done,
        dig_points=dig.added if dig else 0,
        failed_throws=failed,
    )
    score = settled.score - settled.throw_penalty  # R16.2's penalty is the settlement's, as on two decks
    return TableAudit(None, bidding, dealer, tuple(results), tuple(sides), tuple(leaders), score, settled)


def _check_trick(  # noqa: PLR0917 (one private step of _play)
    ctx: TrumpContext,
    rules: Rules,
    hands: Sequence[Sequence[int]],
    leader: int,
    trick: TrickRecord,
    index: int,
) -> AuditError | None:
    """The first rule this trick breaks, judged against the hands before it (R4, R5 as R14.5, R14.6 rule)."""
    n = rules.seats
    lead = trick.plays[0]
    attempt = trick.attempted or lead
    others = {seat: hands[seat] for seat in range(n) if seat != leader}
    verdict = table_lead(ctx, rules, hand=hands[leader], lead=attempt, others=others)
    if isinstance(verdict, Illegal):
        return AuditError(Finding.ILLEGAL_LEAD, verdict.message, index, leader, verdict.reason)
    led = verdict.throw.led if verdict.throw else attempt
    failed = bool(verdict.throw and not verdict.throw.succeeded)
    if sorted(led) != sorted(lead) or (bool(trick.attempted) and not failed):
        message = f"the rules lead {format_cards(led)}; the record leads {format_cards(lead)}"
        return AuditError(Finding.THROW_MISRECORDED, message, index, leader)
    for offset in range(1, n):
        seat = (leader + offset) % n
        follow = table_follow(ctx, rules, hand=hands[seat], lead=lead, play=trick.plays[offset])
        if isinstance(follow, Illegal):
            return AuditError(Finding.ILLEGAL_FOLLOW, follow.message, index, seat, follow.reason)
    return None


def _minus(faces: Sequence[int], taken: Sequence[int]) -> list[int]:
    """``faces`` less ``taken`` (already checked to be held), in face order."""
    counts = [0] * NUM_FACES
    for face in faces:
        counts[face] += 1
    for face in taken:
        counts[face] -= 1
    return [face for face in range(NUM_FACES) for _ in range(counts[face])]
