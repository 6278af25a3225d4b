"""The duplicate tournament: a tiny real run, its report's shape, whole hands whose every declaration and
bury is a side's own policy, and that illegal play is caught; and the same through a live
``tractor-rules serve`` on loopback, whose strong side decides as in process through SuggestDeclaration,
SuggestBury and SuggestPlay."""

from __future__ import annotations

import functools
import re
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import pytest

from loadtest.casual import CarefulPlayer
from loadtest.server import ServerProcess, load_flags, settled
from loadtest.tournament import (
    HABITS,
    OPPONENTS,
    PHASES,
    Deal,
    GreedyPlayer,
    Habits,
    PairingResult,
    Player,
    RandomPlayer,
    RightmostSmallest,
    SeatDeclarer,
    ServicePlayer,
    StrongPlayer,
    main,
    make_deal,
    play_game,
    progress_line,
    run_pairing,
    service_stub,
)
from rules_core.audit import audit_hand
from rules_core.bidding import Declaration, resolve_declarations
from rules_core.cards import BOTTOM_SIZE, PLAYERS, Hand, add, contains, hand_of
from rules_core.rules import DEFAULT_RULES, Rules
from rules_core.seating import SeatCards
from rules_core.selfplay import IllegalPlayError
from rules_core.strategy import DEFAULT_BUDGET, SeatView, strong_play
from rules_core.strategy.shown import with_bidding
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
    assert [m.group("q") for m in pairings if m] == ["R13.6", "random", "greedy", "careful"], out
    for m in pairings:
        assert m is not None
        assert int(m.group("games")) == int(m.group("audited")) == 8  # 4 deals, each played twice
        low, mean, high = (float(m.group(k)) for k in ("low", "mean", "high"))
        assert low <= mean <= high
        assert 0 <= int(m.group("better")) <= 100
    for what in ("wall", "CPU", "SuggestDeclaration CPU", "SuggestBury CPU"):  # all three RPCs' costs
        pattern = rf"^strong latency per suggestion \({what}\): p50 [\d.]+ ms, p99 [\d.]+ ms, max [\d.]+ ms"
        assert any(re.match(pattern, line) for line in out), out
    replayed = (
        r"^the 10 slowest suggestions replayed 20 times each: the worst median [\d.]+ ms CPU \(\d+ cards"
    )
    assert any(re.match(replayed, line) for line in out), out
    assert re.match(r"^took [\d.]+ s$", out[-1])


def test_every_game_is_an_audited_legal_hand() -> None:
    spec = make_deal(17)
    seats: list[Player] = [StrongPlayer(), GreedyPlayer(), RandomPlayer(3), RightmostSmallest()]
    game = play_game(DEFAULT_RULES, spec, seats)
    audit = audit_hand(DEFAULT_RULES, game.record)
    assert audit.valid and audit.score == game.score
    assert game.record.deal == spec.hands and game.record.dealer == spec.dealer


@pytest.mark.parametrize("opponent", ["R13.6", "random"])
def test_strong_beats_the_weak_players_with_the_interval_above_zero(opponent: str) -> None:
    """A small seeded duplicate tournament (R13.6's auto-play and random play as the other team): the
    strong policy's mean gain per deal must stay clearly positive, its 95 % interval above zero."""
    result = run_pairing(DEFAULT_RULES, StrongPlayer(), OPPONENTS[opponent], 12, 7)
    assert result.games == result.audited == 24
    assert result.mean - result.half_width > 0, (result.mean, result.half_width, result.deltas)


def test_the_careful_player_plays_legal_audited_hands_and_beats_random() -> None:
    """The careful casual player (the strength yardstick) is legal in every position of whole hands and
    clearly better than random play, or it would be no yardstick."""
    result = run_pairing(DEFAULT_RULES, CarefulPlayer(), OPPONENTS["random"], 6, 3)
    assert result.games == result.audited == 12
    assert result.mean - result.half_width > 0, result.deltas


def test_declaration_and_bury_policies_are_pluggable() -> None:
    """No declaration makes the hand no-trump (R10.8); the dealer buries what the bury policy chose."""
    spec = make_deal(31)
    chosen: list[Hand] = []

    def no_declarations(
        rules: Rules, deal: Deal, policies: Sequence[SeatDeclarer]
    ) -> tuple[Declaration, ...]:
        return ()

    def bury_the_first_eight(ctx: TrumpContext, rules: Rules, hand33: Hand) -> tuple[int, ...]:
        chosen.append(hand33)
        return tuple(f for f in range(len(hand33)) for _ in range(hand33[f]))[:BOTTOM_SIZE]

    seats: list[Player] = [RightmostSmallest()] * 4
    game = play_game(DEFAULT_RULES, spec, seats, declarer=no_declarations, burier=bury_the_first_eight)
    assert game.record.declarations == ()
    first_eight = tuple(f for f in range(len(chosen[0])) for _ in range(chosen[0][f]))[:BOTTOM_SIZE]
    assert len(chosen) == 1 and game.record.buried == first_eight
    assert audit_hand(DEFAULT_RULES, game.record).bidding.contract is None


@dataclass
class Counted:
    """A player whose declaration and bury answers (its kind's habits) are counted and logged in
    ``log``, shared by the table: every act the table records must be one of these answers."""

    inner: Player
    log: list[Declaration]
    asked: int = 0
    buried: list[tuple[int, ...]] = field(default_factory=list)
    name: str = field(init=False)

    def __post_init__(self) -> None:
        self.name = self.inner.name

    @property
    def habits(self) -> Habits:
        return Habits(self.declare, self.bury)

    def declare(
        self,
        rules: Rules,
        level: int,
        seat: int,
        received: tuple[int, ...],
        acts: tuple[Declaration, ...],
        *,
        dealer: int,
    ) -> tuple[int, ...]:
        self.asked += 1
        cards = HABITS[self.name].declare(rules, level, seat, received, acts, dealer=dealer)
        if cards:
            self.log.append(Declaration(seat, cards, hand_of(received)))
        return cards

    def bury(self, ctx: TrumpContext, rules: Rules, hand33: Hand, bottom: tuple[int, ...]) -> tuple[int, ...]:
        cards = HABITS[self.name].bury(ctx, rules, hand33, bottom)
        self.buried.append(tuple(sorted(cards)))
        return cards

    def __call__(self, ctx: TrumpContext, rules: Rules, view: SeatView, seed: int) -> tuple[int, ...]:
        return self.inner(ctx, rules, view, seed)


@pytest.mark.parametrize("opponent", ["careful", "R13.6"])
def test_every_declaration_and_bury_is_a_sides_own_policy(opponent: str) -> None:
    """Whole hands: the cards are dealt one by one and every seat is asked; each recorded act is what its
    seat's policy answered (R10, shown from the cards received so far), the dealer's side buried (R11),
    and AuditHand's engine accepts the hand."""
    shown = {"strong": 0, opponent: 0}
    for seed in (40, 41, 42):
        spec = make_deal(seed)
        for p_seats in (0, 1):  # the duplicate pair: the strong policies move with the strong seats
            log: list[Declaration] = []
            strong, other = Counted(StrongPlayer(), log), Counted(OPPONENTS[opponent](seed), log)
            seats: list[Player] = [strong if (s - p_seats) % 2 == 0 else other for s in range(PLAYERS)]
            game = play_game(DEFAULT_RULES, spec, seats)
            assert audit_hand(DEFAULT_RULES, game.record).valid
            assert game.record.declarations == tuple(log)
            assert strong.asked >= 2 * 25 and other.asked >= 2 * 25  # at least once per card received
            for act in log:
                assert act.hand is not None and contains(act.hand, act.cards), act  # R10.1: cards it holds
                assert all(h <= d for h, d in zip(act.hand, spec.hands[act.seat], strict=True)), act
                shown[seats[act.seat].name] += 1
            dealer_side, other_side = (strong, other) if (spec.dealer - p_seats) % 2 == 0 else (other, strong)
            assert dealer_side.buried == [game.record.buried] and other_side.buried == []
            dealt = add(spec.hands[spec.dealer], spec.bottom)
            assert contains(dealt, game.record.buried) and len(game.record.buried) == BOTTOM_SIZE
            if opponent == "R13.6" and dealer_side is other:
                assert game.record.buried == spec.bottom  # R13.6's auto-bury: the bottom received
    assert shown["strong"] >= 1, shown  # the strong policy did declare in these deals
    if opponent == "R13.6":
        assert shown[opponent] == 0  # an away seat never declares


def test_the_strong_side_declares_at_every_card_and_buries_once_per_duplicate_pair() -> None:
    """In each duplicate pair the strong side deals exactly once: one strong bury per deal."""
    strong = StrongPlayer()
    result = run_pairing(DEFAULT_RULES, strong, OPPONENTS["careful"], 3, 9)
    assert result.games == result.audited == 6
    assert strong.asked["bury"] == 3
    assert strong.asked["declaration"] >= 6 * 2 * 25


def test_the_casual_declaration_is_legal_and_declares() -> None:
    """The careful player's own declaration policy: every act it shows over some deals R10 accepts, and it
    does show some."""
    acts = 0
    for seed in range(6):
        spec = make_deal(seed)
        seats: list[Player] = [CarefulPlayer()] * PLAYERS
        game = play_game(DEFAULT_RULES, spec, seats)
        bidding = resolve_declarations(
            rules=DEFAULT_RULES,
            level=spec.level,
            sequence=game.record.declarations,
            first_hand=False,
            dealer=spec.dealer,
        )
        assert None not in bidding.acts
        acts += len(game.record.declarations)
    assert acts >= 1


def test_the_progress_line_shows_deals_done_and_the_running_interval(
    capsys: pytest.CaptureFixture[str],
) -> None:
    show = progress_line(every=2)
    for n in (1, 2, 3, 4):
        show(PairingResult("strong", "careful", tuple(range(0, 10 * n, 10)), 2 * n, 2 * n))
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "  strong vs careful: 2 deals, +5.0 points/deal (95% CI -4.8 .. +14.8)",
        "  strong vs careful: 4 deals, +15.0 points/deal (95% CI +2.3 .. +27.7)",
    ]


def test_duplicate_games_share_the_deal_and_swap_the_teams() -> None:
    result = run_pairing(DEFAULT_RULES, StrongPlayer(), lambda seed: RightmostSmallest(), 2, 5)
    assert result.games == result.audited == 4 and len(result.deltas) == 2
    assert all(delta % 5 == 0 for delta in result.deltas)  # differences of two scores (R8.8)


class Cheater:
    """Plays one more card than was led: the table must refuse it."""

    name = "cheater"

    def __call__(self, ctx: TrumpContext, rules: Rules, view: SeatView, seed: int) -> tuple[int, ...]:
        play = RightmostSmallest()(ctx, rules, view, seed)
        if not view.plays:
            return play
        spare = [f for f in range(len(view.hand)) if view.hand[f] and f not in play]
        return (*play, spare[0]) if spare else play


def test_an_illegal_play_stops_the_game() -> None:
    seats: list[Player] = [RightmostSmallest(), Cheater(), RightmostSmallest(), Cheater()]
    with pytest.raises(IllegalPlayError, match="cheater followed illegally"):
        play_game(DEFAULT_RULES, make_deal(1), seats)


# --------------------------------------------------------------------------------------------------
# through the live service


@pytest.fixture(scope="module")
def service() -> Iterator[ServerProcess]:
    """The real server (one worker) on 127.0.0.1 with a free port, stopped after the module."""
    with ServerProcess(*load_flags()) as process:
        yield process
    assert process.proc.returncode == 0, process.errors()


@dataclass
class Recorder:
    """A player that keeps what it was asked and what it played."""

    inner: Player
    name: str = "strong"
    asked: list[tuple[TrumpContext, SeatView, int, tuple[int, ...]]] = field(default_factory=list)
    bidding: tuple[SeatCards, ...] = ()

    def hear_bidding(self, acts: tuple[SeatCards, ...]) -> None:
        """Told what the game's bidding showed, as the inner player is."""
        self.bidding = acts
        self.inner.hear_bidding(acts)  # type: ignore[attr-defined]

    def __call__(self, ctx: TrumpContext, rules: Rules, view: SeatView, seed: int) -> tuple[int, ...]:
        play = self.inner(ctx, rules, view, seed)
        self.asked.append((ctx, view, seed, play))
        return play


@pytest.mark.parametrize("seed", [21, 22])
def test_the_live_strong_player_plays_the_in_process_strong_players_cards(
    service: ServerProcess, seed: int
) -> None:
    spec = make_deal(seed)
    with service_stub(service.target) as stub:
        for p_seats in (0, 1):  # the strong side attacks in one game and deals in the other
            live = Recorder(ServicePlayer(stub))
            local = StrongPlayer()
            seats: list[Player] = [live if (s - p_seats) % 2 == 0 else GreedyPlayer() for s in range(4)]
            game = play_game(DEFAULT_RULES, spec, seats)  # every suggestion checked legal, the hand audited
            assert len(live.asked) == 2 * len(game.record.tricks)  # two seats play in every trick
            assert any(view.bottom for _, view, _, _ in live.asked) == ((spec.dealer - p_seats) % 2 == 0)
            for ctx, view, given, play in live.asked:  # the service is told the bidding, as local is
                assert given == spec.seed
                told = with_bidding(ctx, DEFAULT_RULES, view, live.bidding)
                assert play == strong_play(ctx, DEFAULT_RULES, told, seed=given, budget=DEFAULT_BUDGET)
            seats = [local if (s - p_seats) % 2 == 0 else GreedyPlayer() for s in range(4)]
            assert play_game(DEFAULT_RULES, spec, seats) == game


def _report(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("strong vs ")]


def test_a_tiny_live_tournament_reports_the_in_process_figures_and_round_trips(
    service: ServerProcess, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--target", service.target, "--deals", "2", "--seed", "4"]) == 0
    live = capsys.readouterr().out
    assert main(["--deals", "2", "--seed", "4"]) == 0
    local = capsys.readouterr().out
    assert _report(live) == _report(local) and len(_report(live)) == 4, live
    for line in _report(live):
        m = LINE.match(line)
        assert m is not None and int(m.group("games")) == int(m.group("audited")) == 4
    lines = live.splitlines()
    assert (
        f"strong side: SuggestDeclaration, SuggestBury and SuggestPlay at {service.target} (running)" in lines
    )
    pattern = r"^strong latency per suggestion \(round trip\): p50 ([\d.]+) ms, p99 ([\d.]+) ms, "
    timings = [re.match(pattern + r"max ([\d.]+) ms over (\d+) suggestions$", line) for line in lines]
    found = [m for m in timings if m]
    assert len(found) == 1, live
    p50, p99, top, count = (float(x) for x in found[0].groups())
    assert 0 < p50 <= p99 <= top
    assert 4 * 4 * 2 <= count <= 4 * 4 * 2 * 25  # 4 pairings of 4 games, two seats in 1 to 25 tricks
    assert "(wall)" not in live and "(CPU)" not in live


def test_service_starts_its_own_server(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--service", "--deals", "2", "--seed", "5", "--opponents", "R13.6"]) == 0
    out = capsys.readouterr().out
    started = (
        r"^strong side: SuggestDeclaration, SuggestBury and SuggestPlay at 127\.0\.0\.1:\d+ \(started here\)$"
    )
    assert re.search(started, out, re.M), out
    assert [m.group("games") for m in map(LINE.match, _report(out)) if m] == ["4"], out
    assert "suggestion (round trip): p50" in out


def _handled(url: str, method: str) -> float:
    """The server's count of answered ``method`` calls (``grpc_server_handled_total``, every code)."""
    with urllib.request.urlopen(url, timeout=10) as response:
        text = response.read().decode()
    pattern = rf'^grpc_server_handled_total\{{[^}}]*grpc_method="{method}"[^}}]*\}} ([\d.e+]+)$'
    return sum(float(m.group(1)) for m in re.finditer(pattern, text, re.M))


def test_a_live_whole_hand_tournament_declares_and_buries_through_the_service(
    service: ServerProcess, capsys: pytest.CaptureFixture[str]
) -> None:
    """With ``--target`` every strong declaration and bury is an RPC: the server's own metrics count the
    SuggestDeclaration and SuggestBury calls the run reports, and every game is audited."""
    methods = ("SuggestDeclaration", "SuggestBury")
    before = {m: settled(functools.partial(_handled, service.metrics_url, m)) for m in methods}
    assert main(["--target", service.target, "--deals", "2", "--seed", "8", "--opponents", "careful"]) == 0
    out = capsys.readouterr().out
    m = re.search(r"^strong decisions outside the play: (\d+) declarations asked, (\d+) buries$", out, re.M)
    assert m is not None, out
    asked, buried = int(m.group(1)), int(m.group(2))
    assert asked >= 4 * 2 * 25 and buried == 2  # 4 games, 2 strong seats, 25 cards; one strong bury per deal
    after = {m: settled(functools.partial(_handled, service.metrics_url, m)) for m in methods}
    assert after["SuggestDeclaration"] - before["SuggestDeclaration"] == asked
    assert after["SuggestBury"] - before["SuggestBury"] == buried
    assert [x.group("audited") for x in map(LINE.match, _report(out)) if x] == ["4"], out


@pytest.mark.parametrize("target", ["10.1.2.3:50051", "example.com:443", "127.0.0.1"])
def test_target_is_a_loopback_host_and_port(target: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--target", target, "--deals", "1"])
    assert exited.value.code == 2 and "on this machine" in capsys.readouterr().err


def test_points_by_phase_sum_to_each_deals_points_and_are_reported(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The phases (opening, middle, end game, last trick and dig) split every deal's delta exactly, and
    the report prints their means after each pairing."""
    result = run_pairing(DEFAULT_RULES, StrongPlayer(), OPPONENTS["careful"], 3, 5)
    assert len(result.phase_deltas) == len(result.deltas) == 3
    assert [sum(split) for split in result.phase_deltas] == list(result.deltas)
    assert len(result.phase_means) == len(PHASES)
    assert main(["--deals", "1", "--seed", "4", "--opponents", "careful", "--progress", "0"]) == 0
    out = capsys.readouterr().out
    assert any(line.startswith("  by phase of the hand (points/deal): opening ") for line in out.splitlines())


def test_the_strong_player_is_told_what_the_bidding_showed() -> None:
    """play_game tells every player that listens the game's acts; the strong player's views then pin them."""
    for seed in range(40):
        spec = make_deal(seed)
        strong = StrongPlayer()
        seats: list[Player] = [strong, CarefulPlayer(), strong, CarefulPlayer()]
        game = play_game(DEFAULT_RULES, spec, seats)
        if game.record.declarations:
            assert strong.bidding == tuple((d.seat, d.cards) for d in game.record.declarations)
            return
    raise AssertionError("no deal of 40 had a declaration")
