"""Declaring on other tables (R14.11): worked cases, the two-deck reduction to R10, and bad input."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from worked_cases import Case, cards, cases, rules_for, seat, table_of

from rules_core.bidding import Bidding, BidRejection, Shown, declare
from rules_core.cards import BIG_JOKER, SMALL_JOKER, parse_rank
from rules_core.errors import InvalidArgumentError
from rules_core.rules import DEFAULT_RULES, Partners

TABLE_DECLARE_CASES = [c for c in cases("declare", tables=True) if table_of(c.values[0]) != (2, 4)]


def _labels(result: Bidding) -> list[str]:
    return [str(act) if act is not None else "REJECTED" for act in result.acts]


@pytest.mark.parametrize("case", TABLE_DECLARE_CASES)
def test_worked_case(case: Case) -> None:
    """WC-340 onwards: declarations of up to D copies (R14.11)."""
    given = case["input"]
    acts: list[Shown] = [(seat(a["seat"]), tuple(cards(a["cards"])), None) for a in given["sequence"]]
    rules = rules_for(case)
    if rules.seats % 2:
        rules = replace(rules, partners=Partners.FRIENDS)
    result = declare(
        rules=rules,
        level=parse_rank(case["level"]),
        acts=acts,
        first_hand=given["first_hand"],
        first_seated=seat(given["first_seated"]),
    )
    got = {
        "contract": "NT" if result.contract is None else result.contract.name,
        "O": result.overturn_multiplier,
        "dealer": f"P{result.dealer + 1}" if result.dealer is not None else None,
        "rejected": list(result.rejected),
        "acts": _labels(result),
    }
    assert got == case["expect"]


def test_table_cases_are_present() -> None:
    assert len(TABLE_DECLARE_CASES) >= 7
    assert all(table_of(case.values[0]) != (2, 4) for case in TABLE_DECLARE_CASES)


def _random_acts(rng: random.Random, level: int, copies: int, seats: int) -> list[Shown]:
    faces = [suit * 13 + level - 2 for suit in range(4)] + [SMALL_JOKER, BIG_JOKER]
    acts: list[Shown] = []
    for _ in range(rng.randint(1, 6)):
        face = rng.choice(faces)
        shown = (face,) * rng.randint(1, copies)
        hand = None if rng.random() < 0.5 else (*shown, *(face,) * rng.randint(0, 1))[:copies]
        acts.append((rng.randrange(seats), shown, hand))
    return acts


def test_two_decks_is_r10() -> None:
    """R14.11 on two decks and four seats is R10 exactly (contract, O, dealer, every act's label)."""
    rng = random.Random(1011)
    for _ in range(1500):
        level = rng.randint(2, 14)
        acts = _random_acts(rng, level, 2, 4)
        ours = declare(rules=DEFAULT_RULES, level=level, acts=acts, first_hand=True)
        theirs = declare(rules=DEFAULT_RULES, level=level, acts=acts, first_hand=True)
        assert (ours.contract, ours.overturn_multiplier, ours.dealer, ours.acts) == (
            theirs.contract,
            theirs.overturn_multiplier,
            theirs.dealer,
            theirs.acts,
        ), acts


@pytest.mark.parametrize(("decks", "seats"), [(3, 6), (4, 8), (3, 5)])
def test_accepted_acts_grow_stronger(decks: int, seats: int) -> None:
    """R14.11: each accepted act shows more copies, or as many with a higher kind; O ≤ 8 (R10.5)."""
    rng = random.Random(decks * 10 + seats)
    partners = Partners.FRIENDS if seats % 2 else Partners.FIXED
    rules = replace(DEFAULT_RULES, decks=decks, seats=seats, partners=partners)
    for _ in range(300):
        level = rng.randint(2, 14)
        acts = _random_acts(rng, level, decks, seats)
        result = declare(rules=rules, level=level, acts=acts, first_hand=False, dealer=0)
        kinds = {SMALL_JOKER: 1, BIG_JOKER: 2}
        accepted = [acts[i] for i, act in enumerate(result.acts) if act is not None]
        assert 1 <= result.overturn_multiplier <= 8
        assert result.dealer == 0
        last = (0, 0)
        for _seat, shown, _hand in accepted:
            strength = (len(shown), kinds.get(shown[0], 0))
            assert strength > last or shown[0] == accepted[0][1][0]  # or an A2 of added copies
            last = max(last, strength)


def test_rejections_and_bad_input() -> None:
    """Rejections have their reason; malformed acts are INVALID_ARGUMENT naming the field (R14.1)."""
    rules = replace(DEFAULT_RULES, decks=3, seats=6)
    level = 2
    h2, s2 = 13 + 0, 0
    result = declare(
        rules=rules,
        level=level,
        acts=[(0, (h2, h2), None), (1, (s2, 1), None), (2, (SMALL_JOKER,), None)],
        first_hand=True,
    )
    assert [r.reason for r in result.rejections] == [BidRejection.NOT_A_PAIR, BidRejection.NOT_LEVEL_CARDS]
    held = declare(rules=rules, level=level, acts=[(0, (h2, h2), (h2,))], first_hand=True)
    assert [r.reason for r in held.rejections] == [BidRejection.CARDS_NOT_HELD]
    bad: list[tuple[list[Shown], int, str]] = [
        ([(0, (h2,) * 4, None)], level, "declarations[0].cards[3]"),
        ([(6, (h2,), None)], level, "declarations[0].seat"),
        ([(0, (), None)], level, "declarations[0].cards"),
        ([(0, (h2,), (h2,) * 27)], level, "declarations[0].hand"),
        ([], 15, "level"),
    ]
    for acts, lvl, path in bad:
        with pytest.raises(InvalidArgumentError) as caught:
            declare(rules=rules, level=lvl, acts=acts, first_hand=True)
        assert caught.value.argument == path
