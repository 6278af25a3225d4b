"""The last two tricks solved exactly in every sampled world (rules_core.strategy.endgame), and a throw
judged in every layout (R4.4-R4.7, R16.2).

The solve is checked against an independent min-max written here with the engine's public calls
(legal_plays, check_lead, resolve_trick with the real bottom, so the dig is R8.3-R8.5's own, and
settlement.throw_penalty), in the same worlds; and on a position where the one-trick search spends the
master trump the last trick needs.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import replace

import pytest
from replayed import positions

from rules_core.cards import Suit, hand_of, parse_cards, remove
from rules_core.legal_plays import legal_plays
from rules_core.rules import DEFAULT_RULES, RULEBOOK_003, Partners, Rules, ThrowPenalty
from rules_core.selfplay import Style, play_hand
from rules_core.settlement import FailedThrow, throw_penalty
from rules_core.strategy import MAX_WORK, TRICK_WORK, SeatView, search_plays, strong_play
from rules_core.strategy.endgame import SOLVE_CARDS, solvable, solve
from rules_core.strategy.knowledge import knowledge
from rules_core.strategy.sampling import sample
from rules_core.strategy.search import _score
from rules_core.throw import check_lead
from rules_core.trick import resolve_trick
from rules_core.trump import TrumpContext, trump_context
from rules_core.verdicts import Legal

Hands = dict[int, tuple[int, ...]]


def _cards(text: str) -> tuple[int, ...]:
    return parse_cards(text.split())


def _exact(  # noqa: PLR0917 (the position's parts, each once)
    ctx: TrumpContext,
    rules: Rules,
    hands: Hands,
    leader: int,
    plays: Sequence[tuple[int, ...]],
    view: SeatView,
    fixed: tuple[int, ...] | None = None,
) -> float:
    """The rest of the hand's worth for ``view.seat``'s side (the dealer's: minus the attackers' points),
    every seat playing its best legal play; ``fixed`` is the next seat's play when given."""
    seat = (leader + len(plays)) % rules.seats
    if fixed is not None:
        options: Sequence[tuple[int, ...]] = [fixed]
    elif plays:
        options = legal_plays(ctx, hand=hands[seat], lead=plays[0], limit=100).plays
    else:
        options = legal_plays(ctx, hand=hands[seat], limit=100).plays
    worths = []
    for play in options:
        fine = 0.0  # the points a failed throw moves, for the dealer's side (R16.2)
        if not plays:
            others = {s: h for s, h in hands.items() if s != seat}
            verdict = check_lead(ctx, rules, hand=hands[seat], lead=play, others=others)
            assert isinstance(verdict, Legal)
            if verdict.throw is not None and not verdict.throw.succeeded:  # R4.7, R16.2
                assert view.dealer is not None
                side = frozenset(s for s in range(rules.seats) if (s - view.dealer) % 2 == 0)
                fine = -float(throw_penalty(rules, side, [FailedThrow(seat, len(play))]))
                play = tuple(verdict.throw.led)  # noqa: PLW2901
        rest = {**hands, seat: remove(hands[seat], play)}
        trick = (*plays, play)
        if len(trick) < rules.seats:
            worths.append(fine + _exact(ctx, rules, rest, leader, trick, view))
            continue
        last = not any(rest[view.seat])
        assert view.dealer is not None
        result = resolve_trick(
            ctx, rules, leader=leader, plays=trick, dealer=view.dealer, last=last, bottom=view.bottom
        )
        worth = fine - float(result.attacker_points)
        worths.append(worth if last else worth + _exact(ctx, rules, rest, result.winner, (), view))
    ours = (seat - view.seat) % 2 == 0
    return max(worths) if ours else min(worths)


FINED = replace(RULEBOOK_003, throw_penalty=ThrowPenalty.PER_CARD, throw_penalty_points=15)


@pytest.mark.parametrize(
    ("rules", "style"),
    [(DEFAULT_RULES, Style()), (RULEBOOK_003, Style(throw_rate=0.6)), (FINED, Style(throw_rate=0.6))],
    ids=["000", "003", "003-fined"],
)
def test_the_solve_is_the_exact_min_max_of_each_world(rules: Rules, style: Style) -> None:
    """In the dealer's last two tricks of self-played hands (he knows the bottom, so the dig is exact),
    every legal play's score is the mean, over the worlds the solve drew, of the independent min-max: a
    failed throw leads its forced component and, under THROW-PENALTY (R16.2), costs the dealer's side."""
    checked = throws = fined = 0
    for seed in range(40):
        record = play_hand(seed=seed, rules=rules, level=2 + seed % 13, dealer=seed % 4, style=style)
        for ctx, view, _ in positions(record, rules):
            if view.seat != view.dealer or sum(view.hand) != SOLVE_CARDS:
                continue
            info = knowledge(ctx, rules, view)
            assert solvable(info, view)
            lead = view.plays[0] if view.plays else ()
            candidates = list(legal_plays(ctx, hand=view.hand, lead=lead, limit=100).plays)
            throws += sum(1 for p in candidates if not view.plays and len(set(p)) > 1)
            solved = solve(info, view, candidates, random.Random(seed), 3, ceiling=MAX_WORK)
            assert solved is not None
            others = [s for s in range(rules.seats) if s != view.seat]
            draws = random.Random(seed)
            worlds = [sample(info, draws, others) for _ in range(3)]
            for play, score in zip(candidates, solved[0], strict=True):
                exact = []
                for world in worlds:
                    hands = {s: tuple(world[s]) for s in others} | {view.seat: view.hand}
                    exact.append(_exact(ctx, rules, hands, view.leader, view.plays, view, fixed=play))
                assert math.isclose(score, sum(exact) / len(exact), abs_tol=1e-9), (view, play)
            if rules.throw_penalty is not ThrowPenalty.NONE:
                free = replace(rules, throw_penalty=ThrowPenalty.NONE)
                plain = solve(
                    knowledge(ctx, free, view), view, candidates, random.Random(seed), 3, ceiling=MAX_WORK
                )
                assert plain is not None
                fined += plain[0] != solved[0]
            checked += 1
    assert checked >= 20 and throws >= 1
    assert rules.throw_penalty is ThrowPenalty.NONE or fined  # some failed throw was charged


CLUB_TRICK = (_cards("CA"), _cards("CK"), _cards("C10"))
"""A trick of 20 points in clubs so far, led by CA: the fourth seat, void in clubs, may ruff it."""


DIG_VIEW = SeatView(
    seat=0,
    hand=hand_of(_cards("BJ D3")),
    leader=1,
    plays=CLUB_TRICK,
    dealer=0,
    bottom=_cards("BJ HK HK DK DK H10 H10 D10"),
)
"""The dealer, last to play to the club trick, with 70 points and the other BJ in the bottom."""


def test_the_solve_keeps_the_master_trump_for_the_dig() -> None:
    """R8.3-R8.4: the dealer, void in clubs, last to play to CA CK C10 (20 points), holds BJ and D3 with 70
    points buried and the other BJ among them. Ruffing takes 20 points now, but then D3 leads the last
    trick and the attackers dig the bottom twice over wherever they hold a diamond above it or a trump.
    Discarding gives the 20 points and keeps BJ, which nothing can beat, for the last trick: -20 in every
    world. The one-trick search, valuing the trick and the cards kept, ruffs."""
    ctx = trump_context(2, Suit.S)
    view = DIG_VIEW
    found = search_plays(ctx, DEFAULT_RULES, view)
    scores = dict(found.ranked)
    assert found.best == _cards("D3")
    assert scores[_cards("D3")] == -20.0
    assert -140.0 - 40.0 < scores[_cards("BJ")] < -20.0  # in some worlds the attackers dig 70 twice
    one_trick, _, _ = _score(
        knowledge(ctx, DEFAULT_RULES, view), view, [_cards("BJ"), _cards("D3")], random.Random(0), 10
    )
    assert one_trick[0] > one_trick[1]


def test_the_solve_needs_two_cards_and_both_sides_known() -> None:
    """Under finding friends with a friend still to come the sides are shares, not two sides of a
    min-max, and with three cards the tree is past the bound: the one-trick search decides both."""
    ctx = trump_context(2, Suit.S)
    view = DIG_VIEW
    assert solvable(knowledge(ctx, DEFAULT_RULES, view), view)
    friends = replace(DEFAULT_RULES, partners=Partners.FRIENDS)
    assert not solvable(knowledge(ctx, friends, view), view)
    three = replace(view, hand=hand_of(_cards("BJ D3 D4")))
    assert not solvable(knowledge(ctx, DEFAULT_RULES, three), three)


def test_a_wide_tables_solve_is_bounded_and_legal() -> None:
    """Eight seats, four decks: a world's tree can hold 2^7 follows. The solve stops at its ceiling of
    plays, the world under way dropped (with none solved the one-trick search would decide); the play is
    legal and the work within the search's bound."""
    rules = replace(DEFAULT_RULES, decks=4, seats=8)
    ctx = trump_context(2, Suit.S)
    hand = hand_of(_cards("S3 S4"))
    view = SeatView(seat=0, hand=hand, leader=0, dealer=0)
    info = knowledge(ctx, rules, view)
    solved = solve(info, view, [_cards("S3"), _cards("S4")], random.Random(1), 24, ceiling=MAX_WORK)
    assert solved is not None  # some worlds fit; the plays stop at the one past the ceiling
    assert solved[1] == MAX_WORK + 1
    found = search_plays(ctx, rules, view, budget=24)
    assert found.work <= MAX_WORK + len(found.ranked) * (TRICK_WORK + 1)
    assert strong_play(ctx, rules, view) in (_cards("S3"), _cards("S4"))


FAILING_THROW = SeatView(
    seat=0,
    hand=hand_of(_cards("SK SQ S3 S4 H3 H4 H5 H6 H7 H8 H9 C3 C4 C5 C6 C7 D3 D4 D5 D6 D7 D8 D9 HJ HQ")),
    leader=0,
    dealer=0,
    bottom=_cards("C8 C9 D10 DJ H10 S5 S6 S7"),
)
"""The dealer's first lead, the bottom known: both copies of SA are in the other hands in every layout."""


@pytest.mark.parametrize(
    ("rules", "fine"),
    [(DEFAULT_RULES, 0.0), (replace(DEFAULT_RULES, throw_penalty=ThrowPenalty.PER_ATTEMPT), 10.0)],
    ids=["none", "per-attempt"],
)
def test_a_throw_that_fails_in_every_layout_scores_its_forced_lead(rules: Rules, fine: float) -> None:
    """R4.4-R4.7: SK SQ fails against SA wherever it lies, and SQ (the weakest single, R4.5) is led
    instead, SK staying in the hand: the throw scores what leading SQ scores, less the table's penalty
    for a failed throw (R16.2)."""
    ctx = trump_context(2, Suit.H)
    throw, forced = _cards("SK SQ"), _cards("SQ")
    scores = dict(search_plays(ctx, rules, FAILING_THROW, [throw, forced], seed=3).ranked)
    assert math.isclose(scores[throw], scores[forced] - fine, abs_tol=1e-9)
