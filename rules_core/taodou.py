"""Tao Dou (淘豆) coin settlement of a hand: Total = B × DL × O × K (R12, [003] only).

RULES.md's recommended readings of R12.6:

* **Per player.** Each loser owes Total; each winner gains Total minus the rake ⌊Total × r⌋.
* **Integer coins.** The rake is ``total * rake_bp // 10_000`` (``rake_bp`` in basis points, so a rake of
  12.5 % is exact: R12.6 does not ask for a whole percentage), rounded down in the winners' favour.
* **Short losers** (only when ``balances`` are given). A loser pays ``min(Total, balance)``. The two
  payments form a pot that is split equally between the two winners, and each winner's share is then
  raked. If the pot is odd, the indivisible coin stays with the house, so the winners always get the
  same amount and the house never pays out more than it collected. When nobody is short, the result is
  the same as the plain rule.

The house's take, :attr:`CoinSettlement.rake`, is exactly what the four seats lose in total:
``sum(deltas) == -rake``.

Coins exist only in rulesets with ``Rules.coins`` (R12.7); any other ruleset gets an InvalidArgumentError,
because asking for a coin settlement there is a malformed request, not a rule outcome.

>>> from rules_core.rules import RULEBOOK_003
>>> coins = settle_coins(
...     rules=RULEBOOK_003, base=100, dealer_level=5, overturn=2, score=0, rake_bp=500, dealer_seat=0
... )
>>> coins.K, coins.total, coins.winner_gain, coins.deltas, coins.rake
(4, 4000, 3800, (3800, -4000, 3800, -4000), 400)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from rules_core.cards import PLAYERS, Suit
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.friends import CallState, FriendCall, TableSettlement, replay_sides, settle_table
from rules_core.rules import Rules, require_rulebook_table
from rules_core.settlement import (
    FailedThrow,
    Settlement,
    Side,
    check_int,
    check_level,
    check_score,
    check_seat,
    final_coefficient,
    score_coefficient,
    settle_hand,
)
from rules_core.trick import RecordedTrick, as_tricks, renamed
from rules_core.trump import TrumpContext, trump_context

__all__ = [
    "BASIS_POINTS",
    "OVERTURN_MULTIPLIERS",
    "CoinSettlement",
    "HandSettlement",
    "Stake",
    "check_coins_enabled",
    "check_overturn",
    "check_stake",
    "score_coefficient",
    "settle",
    "settle_coins",
]

BASIS_POINTS: Final = 10_000
"""R12.6: the rake r is given in basis points, 1/10,000 of the pot, so a fractional percentage is exact."""
OVERTURN_MULTIPLIERS: Final = frozenset({1, 2, 4, 8})
"""R10.5: O = 2^(number of overturns), 1 to 8."""


@dataclass(frozen=True, slots=True)
class CoinSettlement:
    """The coins that change hands after one hand (R12)."""

    K: int
    """R12.5: the attackers' score coefficient, 1..12, limited by the must-play cap."""
    total: int
    """R12.1: B × DL × O × K, what each loser owes."""
    winners: Side
    """R12.6: the attackers from 80 points, else the dealer team."""
    winner_gain: int
    """What each winner actually gains: their equal share of the collected coins, less the rake."""
    loser_loss: int
    """What each loser owes (Total); with ``balances`` a short loser pays less, as ``deltas`` show."""
    deltas: tuple[int, int, int, int]
    """The coin change of each seat 0..3."""
    rake: int
    """Coins the house keeps: the rake of both winners plus any indivisible coin of the split."""


def check_coins_enabled(rules: Rules) -> None:
    """Reject a coin request under a ruleset without Tao Dou (R12.7: [000]/[001] have no coins)."""
    if not rules.coins:
        raise InvalidArgumentError(
            "tao_dou", Problem.INCONSISTENT, "Tao Dou is off in this ruleset (Rules.coins is False)"
        )
    require_rulebook_table(rules, "Tao Dou")


def check_stake(*, base: int, dealer_level: int, overturn: int) -> None:
    """Validate the stake B, DL and O shared by Tao Dou and the forced-quit penalty (R12.2–R12.4)."""
    check_int("base", base)
    check_level("dealer_level", dealer_level)
    check_overturn(overturn)


def settle_coins(
    *,
    rules: Rules,
    base: int,
    dealer_level: int,
    overturn: int,
    score: int,
    rake_bp: int,
    dealer_seat: int,
    g_eff: int | None = None,
    balances: Sequence[int] | None = None,
    throw_penalty: int = 0,
) -> CoinSettlement:
    """R12: the coin settlement of a hand at the stake B (``base``), DL, O and the attackers' score.

    ``dealer_level`` is the level the hand was played at (R12.3), ``g_eff`` is ``Settlement.g_eff`` (None:
    no must-play cap) and ``rake_bp`` is the rake r in basis points, 0..10,000 (1250 is 12.5 %).
    ``balances`` are the four seats' coins before settlement; without them every loser pays in full.
    ``throw_penalty`` is ``Settlement.throw_penalty`` (R16.2): K and the winners follow the moved score.
    """
    check_coins_enabled(rules)
    check_stake(base=base, dealer_level=dealer_level, overturn=overturn)
    check_seat("dealer_seat", dealer_seat)
    check_int("rake_bp", rake_bp, high=BASIS_POINTS)
    wallets = _check_balances(balances)
    check_score(score)
    final = score + throw_penalty  # R16.2
    coefficient = final_coefficient(final, g_eff, rules.level_table)
    total = base * dealer_level * overturn * coefficient  # R12.1
    winners = Side.DEALER_TEAM if final < rules.level_table.take_over else Side.ATTACKERS  # R12.6
    dealer_team = {dealer_seat, (dealer_seat + 2) % PLAYERS}
    winner_seats = [seat for seat in range(PLAYERS) if (seat in dealer_team) == (winners is Side.DEALER_TEAM)]
    paid = {
        seat: total if wallets is None else min(total, wallets[seat])  # R12.6: the system does not cover
        for seat in range(PLAYERS)
        if seat not in winner_seats
    }
    share, odd_coin = divmod(sum(paid.values()), len(winner_seats))
    cut = share * rake_bp // BASIS_POINTS  # R12.6: ⌊Total × r⌋
    deltas = tuple(share - cut if seat in winner_seats else -paid[seat] for seat in range(PLAYERS))
    return CoinSettlement(
        K=coefficient,
        total=total,
        winners=winners,
        winner_gain=share - cut,
        loser_loss=total,
        deltas=(deltas[0], deltas[1], deltas[2], deltas[3]),
        rake=cut * len(winner_seats) + odd_coin,
    )


def _check_balances(balances: Sequence[int] | None) -> tuple[int, ...] | None:
    """Four non-negative coin balances, or None."""
    if balances is None:
        return None
    wallets = tuple(balances)
    if len(wallets) != PLAYERS:
        raise InvalidArgumentError(
            "balances", Problem.BAD_SIZE, f"balances must hold {PLAYERS} seats, got {len(wallets)}"
        )
    for seat, coins in enumerate(wallets):
        check_int(f"balances[{seat}]", coins)
    return wallets


@dataclass(frozen=True, slots=True)
class Stake:
    """What a table plays for (R12.2–R12.4, R12.6), as a request gives it."""

    base: int
    """B, the base coins."""
    overturn: int
    """O as the stake states it; 0 where the declarations give it (an audited hand)."""
    rake_bp: int
    """The rake r in basis points, 0..10,000."""
    balances: tuple[int, ...] | None = None
    """The four seats' coins before settlement, or None (every loser pays in full)."""


@dataclass(frozen=True, slots=True)
class HandSettlement:
    """A hand's settlement (R9) and, with a stake, its coins (R12)."""

    settlement: Settlement
    coins: CoinSettlement | None


def settle(
    *,
    rules: Rules,
    dealer_seat: int,
    dealer_level: int,
    attacker_level: int,
    score: int,
    stake: Stake | None = None,
    declared_overturn: int | None = None,
    failed_throws: Sequence[FailedThrow] = (),
    last_trick_win: tuple[int, Sequence[int]] | None = None,
) -> HandSettlement:
    """R9, and R12 for a ``stake``: the request-level settlement, its arguments named like the request's
    fields (``dealer``, ``score``, ``tao_dou.overturn_multiplier``).

    ``declared_overturn`` is O as the declarations give it (an audited hand): the stake's O must then be
    0 or that value.
    """
    check_seat("dealer", dealer_seat)
    check_score(score)
    if stake is not None:
        check_coins_enabled(rules)
        overturn = _stake_overturn(stake, declared_overturn)
        check_int("tao_dou.rake_basis_points", stake.rake_bp, high=BASIS_POINTS)
        if stake.balances is not None and len(stake.balances) != PLAYERS:
            raise InvalidArgumentError(
                "tao_dou.balances", Problem.BAD_SIZE, f"give all {PLAYERS} seats' balances, or none"
            )
        for seat, amount in enumerate(stake.balances or ()):
            check_int(f"tao_dou.balances[{seat}]", amount)
    settlement = settle_hand(
        rules=rules,
        dealer_seat=dealer_seat,
        dealer_level=dealer_level,
        attacker_level=attacker_level,
        score=score,
        failed_throws=failed_throws,
        last_trick_win=last_trick_win,
    )
    if stake is None:
        return HandSettlement(settlement, None)
    coins = settle_coins(
        rules=rules,
        base=stake.base,
        dealer_level=dealer_level,
        overturn=overturn,
        score=score,
        rake_bp=stake.rake_bp,
        dealer_seat=dealer_seat,
        g_eff=settlement.g_eff,
        balances=stake.balances,
        throw_penalty=settlement.throw_penalty,
    )
    return HandSettlement(settlement, coins)


def _stake_overturn(stake: Stake, declared: int | None) -> int:
    """O for the coins: the declarations' when known (the stake may repeat it), else the stake's."""
    if declared is not None:
        if stake.overturn and stake.overturn != declared:
            raise InvalidArgumentError(
                "tao_dou.overturn_multiplier",
                Problem.INCONSISTENT,
                f"the declarations give O = {declared}: send 0 or {declared}",
            )
        return declared
    check_overturn(stake.overturn, "tao_dou.overturn_multiplier")
    return stake.overturn


def check_overturn(overturn: int, path: str = "overturn") -> None:
    """O is 1, 2, 4 or 8 (R10.5)."""
    if isinstance(overturn, bool) or overturn not in OVERTURN_MULTIPLIERS:
        raise InvalidArgumentError(
            path, Problem.OUT_OF_RANGE, f"the overturn multiplier O is 1, 2, 4 or 8 (R10.5), got {overturn!r}"
        )


@dataclass(frozen=True, slots=True)
class TeamsHand:
    """What SettleHand reads on the rulebooks' table (R9, R12): the teams' levels and the final score."""

    dealer_level: int
    attacker_level: int
    score: int
    stake: Stake | None
    failed_throws: tuple[FailedThrow, ...]
    last_trick_win: tuple[int, tuple[int, ...]] | None


@dataclass(frozen=True, slots=True)
class RecordHand:
    """What SettleHand reads on any other table (R15.8-R15.13): every seat's level and the trick record."""

    levels: tuple[int, ...]
    contract: Suit | None
    calls: tuple[FriendCall, ...]
    tricks: tuple[RecordedTrick, ...]
    dig_points: int
    failed_throws: tuple[FailedThrow, ...]


class HandToSettle(Protocol):
    """A SettleHand request as the shell decodes it: the fields a table reads are decoded only when the
    table reads them (``teams`` on the rulebooks' table, ``record`` elsewhere), so a field another table
    reads is never judged (:func:`settle_request`)."""

    @property
    def dealer(self) -> int: ...
    @property
    def staked(self) -> bool: ...
    def teams(self) -> TeamsHand: ...
    def record(self) -> RecordHand: ...


SettledHand = HandSettlement | tuple[TableSettlement, tuple[CallState, ...]]
"""SettleHand's answer: the teams' (with coins), or every seat's with the calls' states at the end."""


def refuse_stake(rules: Rules) -> None:
    """R14.10: a Tao Dou stake on another table, refused naming the ruleset field (SettleHand, AuditHand)."""
    require_rulebook_table(rules, "A Tao Dou stake")


def settle_request(rules: Rules, hand: HandToSettle) -> SettledHand:
    """SettleHand on every table: R9 (and R12 with a stake) on the rulebooks' table, R15.8-R15.13 from the
    whole trick record on any other, where a Tao Dou stake is refused naming the ruleset field (R14.10)."""
    if rules.rulebook_table:
        teams = hand.teams()
        return settle(
            rules=rules,
            dealer_seat=hand.dealer,
            dealer_level=teams.dealer_level,
            attacker_level=teams.attacker_level,
            score=teams.score,
            stake=teams.stake,
            failed_throws=teams.failed_throws,
            last_trick_win=teams.last_trick_win,
        )
    if hand.staked:
        refuse_stake(rules)
    record = hand.record()
    dealer, levels = hand.dealer, record.levels
    level = levels[dealer] if 0 <= dealer < len(levels) else 2  # settle_table judges both
    return settle_table_hand(
        rules,
        trump_context(level, record.contract),
        dealer=dealer,
        levels=levels,
        calls=record.calls,
        tricks=record.tricks,
        dig_points=record.dig_points,
        failed_throws=record.failed_throws,
    )


def settle_table_hand(
    rules: Rules,
    ctx: TrumpContext,
    *,
    dealer: int,
    levels: Sequence[int],
    calls: Sequence[FriendCall],
    tricks: Sequence[RecordedTrick],
    dig_points: int,
    failed_throws: Sequence[FailedThrow],
) -> tuple[TableSettlement, tuple[CallState, ...]]:
    """R15.8–R15.13 for a SettleHand request on any table, and every call's state at the end; the seats'
    levels are ``seat_levels``."""
    played = as_tricks(tricks, "tricks")
    try:
        settled = settle_table(
            rules,
            ctx,
            dealer=dealer,
            levels=levels,
            calls=calls,
            tricks=played,
            dig_points=dig_points,
            failed_throws=failed_throws,
        )
    except InvalidArgumentError as error:
        raise renamed(renamed(error, "levels", "seat_levels"), "partners", "ruleset.partners") from None
    return settled, replay_sides(rules, ctx, dealer, calls, played)[-1].calls
