"""The duplicate tournament: a tiny real run, its report's shape, and that illegal play is caught."""

from __future__ import annotations

import re

import pytest

from loadtest.tournament import (
    GreedyPlayer,
    IllegalPlayError,
    Player,
    RandomPlayer,
    RightmostSmallest,
    StrongPlayer,
    main,
    make_deal,
    play_game,
    run_pairing,
)
from rules_core.audit import audit_hand
from rules_core.rules import DEFAULT_RULES, Rules
from rules_core.strategy import SeatView
from rules_core.trump import TrumpContext

LINE = re.compile(
    r"^strong vs (?P<q>\S+): (?P<mean>[+-]\d+\.\d) points/deal \(95% CI (?P<low>[+-]\d+\.\d) \.\. "
    r"(?P<high>[+-]\d+\.\d)\), better in (?P<better>\d+)% of deals, equal in \d+%; "
    r"(?P<games>\d+) games, (?P<audited>\d+) audited legal$"
)


def test_a_tiny_tournament_reports_every_pairing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--deals", "4", "--seed", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    pairings = [LINE.match(line) for line in out if line.startswith("strong vs ")]
    assert [m.group("q") for m in pairings if m] == ["R13.6", "random", "greedy"], out
    for m in pairings:
        assert m is not None
        assert int(m.group("games")) == int(m.group("audited")) == 8  # 4 deals, each played twice
        low, mean, high = (float(m.group(k)) for k in ("low", "mean", "high"))
        assert low <= mean <= high
        assert 0 <= int(m.group("better")) <= 100
    for what in ("wall", "CPU"):
        pattern = rf"^strong latency per suggestion \({what}\): p50 [\d.]+ ms, p99 [\d.]+ ms, max [\d.]+ ms"
        assert any(re.match(pattern, line) for line in out), out
    assert re.match(r"^took [\d.]+ s$", out[-1])


def test_every_game_is_an_audited_legal_hand() -> None:
    spec = make_deal(17)
    seats: list[Player] = [StrongPlayer(), GreedyPlayer(), RandomPlayer(3), RightmostSmallest()]
    game = play_game(DEFAULT_RULES, spec, seats)
    audit = audit_hand(DEFAULT_RULES, game.record)
    assert audit.valid and audit.score == game.score
    assert game.record.deal == spec.hands and game.record.dealer == spec.dealer


def test_duplicate_games_share_the_deal_and_swap_the_teams() -> None:
    result = run_pairing(DEFAULT_RULES, StrongPlayer(), lambda seed: RightmostSmallest(), 2, 5)
    assert result.games == result.audited == 4 and len(result.deltas) == 2
    assert all(delta % 5 == 0 for delta in result.deltas)  # differences of two scores (R8.8)


class Cheater:
    """Plays one more card than was led: the table must refuse it."""

    name = "cheater"

    def __call__(self, ctx: TrumpContext, rules: Rules, view: SeatView) -> tuple[int, ...]:
        play = RightmostSmallest()(ctx, rules, view)
        if not view.plays:
            return play
        spare = [f for f in range(len(view.hand)) if view.hand[f] and f not in play]
        return (*play, spare[0]) if spare else play


def test_an_illegal_play_stops_the_game() -> None:
    seats: list[Player] = [RightmostSmallest(), Cheater(), RightmostSmallest(), Cheater()]
    with pytest.raises(IllegalPlayError, match="cheater followed illegally"):
        play_game(DEFAULT_RULES, make_deal(1), seats)
