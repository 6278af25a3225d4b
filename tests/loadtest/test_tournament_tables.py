"""The tournament on other tables (R14, R15): ``--decks``, ``--seats``, ``--partners``.

Whole hands of N seats, every play checked as it is made and every record audited by
``rules_core.audit.audit_table``; the strong policy against the table's careful, random and R13.6 players.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from loadtest.casual import CarefulPlayer
from loadtest.tournament import (
    TABLE_OPPONENTS,
    Player,
    RandomPlayer,
    StrongPlayer,
    TableR136,
    habits_of,
    main,
    make_table_deal,
    play_table_game,
    run_table_pairing,
    table_calls,
)
from rules_core.autoplay import suggest_table_bury
from rules_core.cards import NUM_FACES, deal_sizes, faces_of, hand_of
from rules_core.friends import FriendCall, call_count, check_calls
from rules_core.rules import DEFAULT_RULES, Partners, Rules
from rules_core.selfplay import side_view
from rules_core.strategy.bury import suggest_bury
from rules_core.trump import trump_context

TABLES = [(3, 6, Partners.FRIENDS), (4, 8, Partners.FIXED), (2, 5, Partners.FRIENDS)]


def _rules(decks: int, seats: int, partners: Partners) -> Rules:
    return replace(DEFAULT_RULES, decks=decks, seats=seats, partners=partners)


@pytest.mark.parametrize(("decks", "seats", "partners"), TABLES)
def test_a_table_deal_is_the_tables_deal(decks: int, seats: int, partners: Partners) -> None:
    """R14.2: N hands of the table's size and its bottom, D copies of every face in all."""
    rules = _rules(decks, seats, partners)
    spec = make_table_deal(rules, 11)
    size, bottom = deal_sizes(decks, seats)
    assert [sum(h) for h in spec.hands] == [size] * seats and len(spec.bottom) == bottom
    total = [sum(h[f] for h in spec.hands) + spec.bottom.count(f) for f in range(54)]
    assert total == [decks] * 54
    assert 0 <= spec.dealer < seats


@pytest.mark.parametrize(("decks", "seats", "partners"), TABLES)
def test_every_table_game_is_audited_and_mixes_every_player(
    decks: int, seats: int, partners: Partners
) -> None:
    """Strong, careful, random and R13.6 seats at one table: the hand is played to its end (every play
    checked) and the table audit agrees with the score (play_table_game raises otherwise)."""
    rules = _rules(decks, seats, partners)
    kinds: list[Player] = [StrongPlayer(), CarefulPlayer(), RandomPlayer(5), TableR136()]
    seats_of = [kinds[s % len(kinds)] for s in range(seats)]
    for seed in (1, 2):
        game = play_table_game(rules, make_table_deal(rules, seed), seats_of)
        assert game.score >= 0
        assert game.attackers and len(game.attackers) < seats


@pytest.mark.parametrize(("decks", "seats", "partners"), TABLES)
def test_the_dealer_buries_by_his_kind(decks: int, seats: int, partners: Partners) -> None:
    """R14.2: each kind's bury habit works on the table (his hand and the bottom together): the strong
    dealer's is SuggestBury's strong policy, every other kind's the plain table bury; on some deal the two
    differ."""
    rules = _rules(decks, seats, partners)
    differ = 0
    for seed in range(6):
        spec = make_table_deal(rules, seed)
        ctx = trump_context(spec.level, None)
        held = [f for f in range(NUM_FACES) for _ in range(spec.hands[spec.dealer][f])] + list(spec.bottom)
        counts = hand_of(held, decks)
        strong = habits_of(StrongPlayer()).bury(ctx, rules, counts, ())
        assert strong == suggest_bury(ctx, rules, hand=held).cards
        table = suggest_table_bury(ctx, rules, hand=faces_of(counts))
        for other in (CarefulPlayer(), RandomPlayer(seed), TableR136()):
            assert habits_of(other).bury(ctx, rules, counts, ()) == table
        differ += sorted(strong) != sorted(table)
    assert differ > 0


def test_the_dealers_calls_are_legal_calls_of_cards_he_lacks() -> None:
    """R15.2-R15.4: as many calls as the ruleset asks, none a trump (the default limits), none a card
    the dealer holds."""
    rules = _rules(3, 6, Partners.FRIENDS)
    spec = make_table_deal(rules, 4)
    ctx = trump_context(spec.level, None)
    calls = table_calls(rules, ctx, spec.hands[spec.dealer])
    assert len(calls) == call_count(rules) == 2
    check_calls(rules, ctx, calls)
    assert all(spec.hands[spec.dealer][c.face] == 0 for c in calls)


def test_a_seat_knows_its_side_from_the_called_copies_it_holds() -> None:
    """R15.5: before any trick, a seat holding the called card's first copy will join (it knows), a seat
    holding no called card attacks (it knows), and the dealer's side is the dealer alone otherwise."""
    rules = _rules(3, 6, Partners.FRIENDS)
    call = FriendCall(12, 1)  # the first SA played
    holder = tuple(1 if f == 12 else 0 for f in range(54))
    empty = (0,) * 54
    assert side_view(rules, [call], None, dealer=0, seat=3, hand=holder) == (frozenset({3}), 0, True)
    assert side_view(rules, [call], None, dealer=0, seat=2, hand=empty) == (frozenset(), 1, True)
    assert side_view(rules, [call], None, dealer=0, seat=0, hand=empty) == (frozenset(), 1, True)
    fixed = _rules(4, 8, Partners.FIXED)
    assert side_view(fixed, [], None, dealer=0, seat=3, hand=empty) == (frozenset(), None, False)


@pytest.mark.parametrize(("decks", "seats", "partners"), [(4, 8, Partners.FIXED), (2, 6, Partners.FIXED)])
def test_strong_beats_random_on_other_tables(decks: int, seats: int, partners: Partners) -> None:
    """A small seeded duplicate tournament: the strong policy's mean gain over random play per deal is
    positive on wide fixed-partners tables (finding friends mixes both players on each side, so a few
    deals do not measure it: ``make tournament`` with ``--partners FRIENDS`` does, over hundreds)."""
    result = run_table_pairing(
        _rules(decks, seats, partners), StrongPlayer(), TABLE_OPPONENTS["random"], 8, 3
    )
    assert result.games == result.audited == 16
    assert result.mean > 0, result.deltas


def test_the_table_flags_run_a_tournament(capsys: pytest.CaptureFixture[str]) -> None:
    """``--decks 3 --seats 6 --partners FRIENDS`` plays that table; a four-seat-only opponent or the
    live service is refused there, and a table R15.1 cannot seat is a usage error."""
    argv = ["--decks", "3", "--seats", "6", "--partners", "FRIENDS", "--deals", "2", "--progress", "0"]
    assert main([*argv, "--opponents", "careful,random"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("duplicate tournament on 3 decks, 6 seats, FRIENDS partners")
    lines = [line for line in out if line.startswith("strong vs ")]
    assert [line.split(":")[0] for line in lines] == ["strong vs careful", "strong vs random"]
    assert all(re.search(r"4 games, 4 audited legal$", line) for line in lines), lines
    assert any(line.startswith("strong latency per suggestion (CPU)") for line in out)
    for bad in (["--opponents", "greedy"], ["--service"], ["--plays-only"]):
        with pytest.raises(SystemExit):
            main([*argv, *bad])
    with pytest.raises(SystemExit):
        main(["--seats", "5", "--partners", "FIXED", "--deals", "1"])
