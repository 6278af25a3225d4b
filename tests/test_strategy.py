"""The strong auto-play (rules_core.strategy): always legal, deterministic, bounded, and usable on less.

Positions come from seeded self-played hands (rules_core.selfplay), replayed trick by trick, so each
view is what a seat really saw at a real table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest
from replayed import positions

from rules_core.audit import audit_hand
from rules_core.cards import FULL_DECK, PLAYERS, Suit, hand_of, parse_cards
from rules_core.follow import check_follow
from rules_core.rules import DEFAULT_RULES, RULEBOOK_000, RULEBOOK_003, FollowRule, Rules
from rules_core.selfplay import Style, play_hand, strong_seat
from rules_core.shapes import Decomposition, decompose
from rules_core.strategy import (
    DEFAULT_BUDGET,
    MAX_BUDGET,
    MAX_CANDIDATES,
    MAX_WORK,
    TRICK_WORK,
    SeatView,
    rank_plays,
    search_plays,
    strong_play,
    winning_play,
)
from rules_core.strategy.endgame import SOLVE_CARDS
from rules_core.strategy.knowledge import POINT_FATE, VOIDING, cost, knowledge
from rules_core.strategy.model import model_follow
from rules_core.strategy.search import lead_candidates
from rules_core.throw import check_lead
from rules_core.trick import opening, resolve_trick
from rules_core.trump import TrumpContext, trump_context
from rules_core.verdicts import Legal


def assert_legal(ctx: TrumpContext, rules: Rules, view: SeatView, others: dict[int, tuple[int, ...]]) -> None:
    play = strong_play(ctx, rules, view)
    if view.plays:
        verdict = check_follow(ctx, hand=view.hand, lead=view.plays[0], play=play)
    else:
        verdict = check_lead(ctx, rules, hand=view.hand, lead=play, others=others)
    assert isinstance(verdict, Legal), (view, play, verdict)
    if not view.plays and verdict.throw is not None:
        assert verdict.throw.succeeded, "the strong player only throws what card counting proves safe"


HANDS = [
    (seed, rules, style)
    for seed in range(4)
    for rules, style in (
        (DEFAULT_RULES, Style()),
        (RULEBOOK_003, Style(throw_rate=0.6)),
        (RULEBOOK_000, Style(throw_rate=0.3)),
    )
]


@pytest.mark.parametrize(("seed", "rules", "style"), HANDS)
def test_every_suggestion_is_legal(seed: int, rules: Rules, style: Style) -> None:
    record = play_hand(seed=seed, rules=rules, level=2 + seed * 3, dealer=seed % PLAYERS, style=style)
    count = 0
    for ctx, view, others in positions(record, rules):
        assert_legal(ctx, rules, view, others)
        count += 1
    assert count == 4 * len(record.tricks)


@pytest.mark.parametrize("seed", range(3))
def test_legal_without_the_optional_fields(seed: int) -> None:
    """No dealer, no history, no points, no bottom: less information, still a legal play."""
    record = play_hand(seed=100 + seed, level=7, dealer=seed)
    for ctx, view, others in positions(record, DEFAULT_RULES):
        bare = SeatView(seat=view.seat, hand=view.hand, leader=view.leader, plays=view.plays)
        assert_legal(ctx, DEFAULT_RULES, bare, others)


def test_deterministic_for_the_same_view_seed_and_budget() -> None:
    record = play_hand(seed=11, level=9, dealer=1)
    views = [view for _, view, _ in positions(record, DEFAULT_RULES)][::7]
    ctx = next(positions(record, DEFAULT_RULES))[0]
    first = [strong_play(ctx, DEFAULT_RULES, v, seed=5, budget=8) for v in views]
    again = [strong_play(ctx, DEFAULT_RULES, v, seed=5, budget=8) for v in views]
    assert first == again
    ranked = rank_plays(ctx, DEFAULT_RULES, views[3], [first[3]], seed=2)
    assert ranked == rank_plays(ctx, DEFAULT_RULES, views[3], [first[3]], seed=2)


def test_budget_is_clamped() -> None:
    """A huge budget costs what MAX_BUDGET costs (no more layouts than fit every candidate within
    MAX_WORK); a budget below 1 still samples one layout."""
    record = play_hand(seed=12, level=4, dealer=0)
    ctx, view, others = next(positions(record, DEFAULT_RULES))  # the dealer's first lead
    huge = search_plays(ctx, DEFAULT_RULES, view, budget=10**9)
    assert search_plays(ctx, DEFAULT_RULES, view, budget=MAX_BUDGET) == huge
    assert 1 <= huge.layouts <= MAX_BUDGET and 0 < huge.simulations <= MAX_CANDIDATES * MAX_BUDGET
    assert huge.work <= MAX_WORK + len(huge.ranked) * (TRICK_WORK + max(len(p) for p, _ in huge.ranked))
    for budget in (0, -5):
        play = strong_play(ctx, DEFAULT_RULES, view, budget=budget)
        assert isinstance(check_lead(ctx, DEFAULT_RULES, hand=view.hand, lead=play, others=others), Legal)


def test_every_candidate_is_judged_in_the_same_layouts() -> None:
    """A call whose budget does not fit MAX_WORK samples fewer layouts, the same for every candidate,
    rather than scoring the last candidates on fewer (their luck would win the comparison): a lead's
    simulations are its candidates times its layouts, and the work stays within MAX_WORK."""
    cut = 0
    for seed in range(6):
        record = play_hand(seed=seed, level=6, dealer=seed % 4)
        for ctx, view, _ in list(positions(record, DEFAULT_RULES))[:40:4]:  # leads while hands are long
            if view.plays:
                continue
            found = search_plays(ctx, DEFAULT_RULES, view, budget=MAX_BUDGET)
            assert found.simulations == len(found.ranked) * found.layouts, (seed, view.seat)
            assert found.work <= MAX_WORK
            cut += found.layouts < MAX_BUDGET
    assert cut  # some budget did not fit: the case this test is about


def test_the_tricks_last_play_samples_no_layout() -> None:
    """The last seat of a trick has no unseen card to place in it: its search reports no layouts, and
    every earlier seat's reports the ones it sampled."""
    last = earlier = 0
    record = play_hand(seed=3, level=5, dealer=1)
    for ctx, view, _ in positions(record, DEFAULT_RULES):
        found = search_plays(ctx, DEFAULT_RULES, view)
        if len(found.ranked) == 1 or sum(view.hand) <= SOLVE_CARDS:
            continue  # a lone candidate, or the solved end of the hand (its worlds are sampled)
        if len(view.plays) == PLAYERS - 1:
            assert found.layouts == 0, view
            last += 1
        else:
            assert 1 <= found.layouts <= DEFAULT_BUDGET, view
            earlier += 1
    assert last and earlier


def test_winning_play_agrees_with_resolve_trick() -> None:
    """The strategy judges tricks (and unfinished tricks) as R7 does."""
    for seed in range(3):
        record = play_hand(seed=seed, rules=RULEBOOK_003, level=5, dealer=2, style=Style(throw_rate=0.5))
        leader = 2
        ctx = next(positions(record, RULEBOOK_003))[0]
        for trick in record.tricks:
            result = resolve_trick(ctx, RULEBOOK_003, leader=leader, plays=trick.plays, dealer=2)
            assert (leader + winning_play(ctx, RULEBOOK_003, trick.plays)) % PLAYERS == result.winner
            leader = result.winner


def _cards(text: str) -> tuple[int, ...]:
    return parse_cards(text.split())


ADVERSARIAL_TRUMPS = hand_of(
    _cards("BJ BJ SJ SJ H2 H2 S2 S2 C2 C2 D2 D2 HA HA HK HK HQ HQ HJ HJ H10 H10 H9 H9 H8")
)


@pytest.mark.parametrize(
    ("hand", "plays"),
    [
        (ADVERSARIAL_TRUMPS, ()),  # 12 trump pairs: a lead with tractors everywhere
        (ADVERSARIAL_TRUMPS, (_cards("H7 H7 H6 H6 H5 H5 H4 H4"),)),  # a 4-tractor of trumps to follow
        (ADVERSARIAL_TRUMPS, (_cards("SA SA SK SK SQ SQ SJack SJack S10 S9 S8 S7"),)),  # void: ruff a throw
        (
            hand_of(
                _cards("S3 S3 S4 S4 S5 S5 S6 S6 S7 S7 S8 S8 S9 S9 S10 S10 SJack SJack SQ SQ SK SK D3 D4 D5")
            ),
            (_cards("SA SA"), _cards("H3 H4")),  # a whole suit of pairs owes a pair to a pair lead
        ),
    ],
)
def test_work_is_bounded_on_adversarial_positions(
    hand: tuple[int, ...], plays: tuple[tuple[int, ...], ...]
) -> None:
    """Counted work, not time: the units spent stay within MAX_WORK, plus the first layout of each
    candidate, whatever the hand, the lead and the budget asked for."""
    ctx = trump_context(2, Suit.H)
    view = SeatView(seat=1, hand=hand, leader=(1 - len(plays)) % PLAYERS, plays=plays)
    found = search_plays(ctx, DEFAULT_RULES, view, budget=10**6)
    play = found.best
    size = len(plays[0]) if plays else max(len(p) for p, _ in found.ranked)
    assert found.work <= MAX_WORK + len(found.ranked) * (TRICK_WORK + size)
    if plays:
        assert isinstance(check_follow(ctx, hand=hand, lead=plays[0], play=play), Legal)
    else:
        assert isinstance(check_lead(ctx, DEFAULT_RULES, hand=hand, lead=play, others={}), Legal)


def test_a_sure_winner_is_played_on_points() -> None:
    """Last to play, an opponent winning a 20-point trick: the seat takes it with its master."""
    ctx = trump_context(2, Suit.H)
    hand = hand_of(_cards("SA S3 C4 C5 D6"))
    view = SeatView(seat=3, hand=hand, leader=0, plays=(_cards("SK"), _cards("S10"), _cards("S4")), dealer=1)
    assert strong_play(ctx, DEFAULT_RULES, view) == _cards("SA")
    ranked = rank_plays(ctx, DEFAULT_RULES, view, [_cards("S3"), _cards("SA")])
    assert ranked[0][0] == _cards("SA") and ranked[0][1] > ranked[1][1]


def test_feeds_points_to_a_partner_who_cannot_be_beaten() -> None:
    """Last to play with the partner holding the trick: the seat adds its 10 rather than a low card."""
    ctx = trump_context(2, Suit.H)
    hand = hand_of(_cards("S10 S3 C4"))
    view = SeatView(seat=3, hand=hand, leader=0, plays=(_cards("S6"), _cards("SA"), _cards("S4")), dealer=0)
    assert strong_play(ctx, DEFAULT_RULES, view) == _cards("S10")


def test_view_fields_default_to_unknown() -> None:
    view = SeatView(seat=0, hand=hand_of(_cards("S3")), leader=0)
    assert (view.plays, view.dealer, view.tricks, view.attacker_points, view.bottom) == (
        (),
        None,
        (),
        None,
        (),
    )
    assert replace(view, dealer=2).dealer == 2


@pytest.mark.parametrize(("seed", "dealer"), [(0, None), (1, 2), (2, 3)])
def test_self_play_seats_play_the_strong_policy_on_what_they_saw(seed: int, dealer: int | None) -> None:
    """selfplay's chooser hook: each strong seat's play (its attempt, for a lead) is strong_play on the
    view a table would give it, rebuilt here from the record; the hand is audited valid and the same
    seed plays it again card for card."""
    strong = {s for s in range(PLAYERS) if s != seed % PLAYERS}
    choosers = {s: strong_seat(seed, budget=3) for s in strong}
    record = play_hand(seed=seed, rules=RULEBOOK_003, level=6, dealer=dealer, choosers=choosers)
    assert audit_hand(RULEBOOK_003, record).valid
    turns = [(trick, offset) for trick in record.tricks for offset in range(PLAYERS)]
    checked = 0
    for (ctx, view, _), (trick, offset) in zip(positions(record, RULEBOOK_003), turns, strict=True):
        if view.seat in strong:
            played = (trick.attempted or trick.plays[0]) if offset == 0 else trick.plays[offset]
            chosen = strong_play(ctx, RULEBOOK_003, view, seed=seed, budget=3)
            assert sorted(played) == sorted(chosen)  # (a throw is recorded in the engine's card order)
            checked += 1
    assert checked == 3 * len(record.tricks)
    assert play_hand(seed=seed, rules=RULEBOOK_003, level=6, dealer=dealer, choosers=choosers) == record


def _model_answer(
    ctx: TrumpContext, hand: list[int], lead: Decomposition, *, outside: Sequence[int], last: bool
) -> list[int]:
    """The opponents' model following ``lead`` against an opponent, 10 points in the trick."""
    standing = opening(lead)
    return model_follow(
        ctx,
        DEFAULT_RULES,
        hand,
        lead,
        partner_winning=False,
        standing=standing,
        trick_points=10,
        outside=outside,
        last=last,
    )


def test_the_model_ruffs_a_throw_into_a_void() -> None:
    """R6: a follower void in the led suit ruffs a thrown lead with the lead's structure (a pair unit for
    the pair), so the search sees what a throw into a shown void costs."""
    ctx = trump_context(2, Suit.H)
    lead = decompose(ctx, _cards("SA SA SK"))
    hand = list(hand_of(_cards("H3 H3 H5 D4 D6")))
    play = _model_answer(ctx, hand, lead, outside=FULL_DECK, last=False)
    assert sorted(play) == sorted(_cards("H3 H3 H5"))
    judged = resolve_trick(
        ctx,
        DEFAULT_RULES,
        leader=0,
        plays=[_cards("SA SA SK"), tuple(play), *[_cards("D7 D8 D9")] * 2],
        dealer=0,
    )
    assert judged.winner == 1  # the ruff takes the throw (R6.4)


@pytest.mark.parametrize("last", [False, True])
def test_the_model_takes_a_single_with_a_master_unless_it_plays_last(last: bool) -> None:
    """The opponents' model as a careful player: short of the last seat, a follower beats an opponent's
    single only with a card nothing it cannot see tops (a later seat could top anything else); the
    last seat takes it with its cheapest winner (R7.1)."""
    ctx = trump_context(2, Suit.H)
    lead = decompose(ctx, _cards("S10"))
    hand = list(hand_of(_cards("SQ S3 D4")))
    unplayed = list(FULL_DECK)
    unplayed[_cards("S10")[0]] -= 1

    def answer(outside: list[int]) -> tuple[int, ...]:
        return tuple(_model_answer(ctx, hand, lead, outside=outside, last=last))

    assert answer(unplayed) == (_cards("SQ") if last else _cards("S3"))  # SA, SK unseen: SQ no master
    masters = list(unplayed)
    for face in _cards("SA SK"):
        masters[face] = 0  # both aces and kings played: SQ is the master
    assert answer(masters) == _cards("SQ")


def _pair_trick(second: str) -> tuple[tuple[int, tuple[tuple[int, ...], ...]], ...]:
    """A finished trick: seat 0 leads S4 S4, seat 1 follows ``second``, seats 2 and 3 follow spades."""
    return ((0, (_cards("S4 S4"), _cards(second), _cards("S8 S9"), _cards("S7 S7"))),)


def test_a_pair_followed_with_singles_shows_the_follower_holds_no_pair() -> None:
    """R5.3: a follower who plays the led category in full with fewer pairs than the lead held none
    left, and holds none later; a pair follow or a discard (a void, R5.2) shows no such thing, nor does
    a table where structure is not owed (R16.3 SUIT_ONLY) or a pair is not two copies (three decks)."""
    ctx = trump_context(2, Suit.H)
    spades = ctx.category[_cards("S4")[0]]
    hand = hand_of(_cards("C5 C6 D7 D8 H3 HK"))
    view = SeatView(seat=2, hand=hand, leader=2, dealer=0, tricks=_pair_trick("S5 S6"))
    info = knowledge(ctx, DEFAULT_RULES, view)
    assert info.unpaired[1][spades] and not info.voids[1][spades]
    assert info.unpaired[2][spades] and not info.unpaired[3][spades]  # S8 S9; the pair S7 S7
    assert not any(info.unpaired[1][c] for c in range(5) if c != spades)
    discard = knowledge(ctx, DEFAULT_RULES, replace(view, tricks=_pair_trick("S5 C4")))
    assert discard.voids[1][spades] and not discard.unpaired[1][spades]
    suit_only = replace(DEFAULT_RULES, follow=FollowRule.SUIT_ONLY)
    assert knowledge(ctx, suit_only, view).unpaired == []
    wide = replace(DEFAULT_RULES, decks=3, seats=6)
    assert knowledge(ctx, wide, replace(view, tricks=())).unpaired == []


def test_a_pair_no_other_seat_can_top_makes_a_sure_throw() -> None:
    """SA and SQ SQ with SK SK unseen: a throw of them can fail (R4.4: a seat may hold the kings' pair)
    until every other seat has shown it holds no spade pair (R5.3), and it is then a candidate lead."""
    ctx = trump_context(2, Suit.H)
    hand = hand_of(_cards("SA SQ SQ C5 C6 D7 D8 H3"))
    throw = tuple(sorted(_cards("SA SQ SQ")))
    open_view = SeatView(seat=0, hand=hand, leader=0, dealer=0)
    assert throw not in lead_candidates(knowledge(ctx, DEFAULT_RULES, open_view), hand)
    shown = ((0, (_cards("S3 S3"), _cards("S5 S6"), _cards("S7 S8"), _cards("S9 S10"))),)
    told = replace(open_view, tricks=shown)
    info = knowledge(ctx, DEFAULT_RULES, told)
    assert all(info.unpaired[s][ctx.category[_cards("SA")[0]]] for s in (1, 2, 3))
    assert throw in lead_candidates(info, hand)
    assert info.unseen[_cards("SK")[0]] == 2  # the kings are still unseen: only the inference made it sure


def test_a_lead_into_an_allys_void_offers_a_point_card_for_its_ruff() -> None:
    """The partner showed a void in spades (it followed S4 with C4, R5.2) and no opponent did: the
    candidate leads include a spade point card for the partner to ruff; not without the void."""
    ctx = trump_context(2, Suit.H)
    hand = hand_of(_cards("S10 S3 SK C5 C6 D7 D8 H3"))
    void = ((0, (_cards("S4"), _cards("S8"), _cards("S9"), _cards("C4"))),)
    followed = ((0, (_cards("S4"), _cards("S8"), _cards("S9"), _cards("S5"))),)
    view = SeatView(seat=1, hand=hand, leader=1, dealer=0, tricks=void)
    assert _cards("S10") in lead_candidates(knowledge(ctx, DEFAULT_RULES, view), hand)
    plain = replace(view, tricks=followed)
    assert _cards("S10") not in lead_candidates(knowledge(ctx, DEFAULT_RULES, plain), hand)


def test_the_dealers_side_sheds_points_on_its_own_sure_trick() -> None:
    """A defender last to play, its partner holding the trick: the trick scores nothing (R8.2), but a 10
    kept may reach the attackers later (POINT_FATE), so it sheds the 10 rather than a low card."""
    ctx = trump_context(2, Suit.H)
    hand = hand_of(_cards("S10 S3 C4 C5 D6 D7"))
    view = SeatView(seat=3, hand=hand, leader=0, plays=(_cards("S6"), _cards("SA"), _cards("S4")), dealer=1)
    assert strong_play(ctx, DEFAULT_RULES, view) == _cards("S10")


def test_a_kept_point_card_is_worth_more_to_the_attackers_than_to_the_dealers_side() -> None:
    """The same 10 costs an attacker more to give up than a defender (R8.2: only the attackers score)."""
    ctx = trump_context(2, Suit.H)
    hand = hand_of(_cards("S10 S3 C4 C5"))
    attacker = knowledge(ctx, DEFAULT_RULES, SeatView(seat=1, hand=hand, leader=1, dealer=0))
    defender = knowledge(ctx, DEFAULT_RULES, SeatView(seat=2, hand=hand, leader=2, dealer=0))
    ten = _cards("S10")
    assert cost(attacker, hand, ten) > cost(defender, hand, ten)
    assert cost(attacker, hand, ten) - cost(defender, hand, ten) == pytest.approx(2 * POINT_FATE * 10)
    assert cost(attacker, hand, _cards("S3")) == cost(defender, hand, _cards("S3"))


def test_a_void_to_ruff_with_is_worth_setting_up() -> None:
    """Leading the last card of a plain suit, with trumps in hand, costs VOIDING less than a card of a
    longer suit of the same worth would."""
    ctx = trump_context(2, Suit.H)
    hand = hand_of(_cards("C4 D4 D6 H3 H5"))
    info = knowledge(ctx, DEFAULT_RULES, SeatView(seat=1, hand=hand, leader=1, dealer=0))
    no_trumps = hand_of(_cards("C4 D4 D6 S3 S6"))
    plain = knowledge(ctx, DEFAULT_RULES, SeatView(seat=1, hand=no_trumps, leader=1, dealer=0))
    assert cost(info, hand, _cards("C4")) < info.value[_cards("C4")[0]]
    assert cost(info, hand, _cards("C4")) == pytest.approx(info.value[_cards("C4")[0]] - VOIDING)
    assert cost(plain, no_trumps, _cards("C4")) == pytest.approx(plain.value[_cards("C4")[0]])
