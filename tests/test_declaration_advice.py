"""SuggestDeclaration's engine (rules_core.strategy.declaration): legal under R10 in every seeded deal and
preset, declares with a strong holding, never with nothing, overturns opponents and never the partner."""

from __future__ import annotations

import random

import pytest

from rules_core.bidding import Act, Declaration, resolve_declarations
from rules_core.cards import PLAYERS, Suit, hand_of, parse_cards, suit_of
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.rules import PRESETS, RULEBOOK_000
from rules_core.strategy.declaration import DeclarationAdvice, DeclarationPolicy, suggest_declaration

Acts = list[tuple[int, tuple[int, ...], tuple[int, ...] | None]]


def cards(names: str) -> tuple[int, ...]:
    return parse_cards(names.split())


def advise(
    received: str, acts: Acts | None = None, *, seat: int = 0, preset: str = "default"
) -> DeclarationAdvice:
    """The advice for ``seat`` at level 2 having received ``received``, after ``acts``."""
    return suggest_declaration(
        rules=PRESETS[preset], level=2, seat=seat, received=cards(received), acts=acts or []
    )


def deal_with_advice(seed: int, preset: str) -> tuple[int, Acts, list[DeclarationAdvice]]:
    """Deal 100 cards in order; after each card its seat asks for advice and makes any suggested act."""
    rng = random.Random(seed)
    level = rng.randint(2, 14)
    deck = [face for face in range(54) for _ in range(2)]
    rng.shuffle(deck)
    received: list[list[int]] = [[] for _ in range(PLAYERS)]
    acts: Acts = []
    advice: list[DeclarationAdvice] = []
    for i in range(100):
        seat = i % PLAYERS
        received[seat].append(deck[i])
        own = [(s, c, h if s == seat else None) for s, c, h in acts]  # others' hands are private
        given = suggest_declaration(
            rules=PRESETS[preset], level=level, seat=seat, received=received[seat], acts=own
        )
        advice.append(given)
        if given.cards:
            # R10: the act is the one ValidateDeclaration's engine accepts after the acts so far
            attempt = Declaration(seat=seat, cards=given.cards, hand=hand_of(received[seat]))
            before = [Declaration(s, c, hand_of(h) if h else None) for s, c, h in acts]
            replay = resolve_declarations(
                rules=PRESETS[preset], level=level, sequence=[*before, attempt], first_hand=True
            )
            assert replay.acts[-1] is given.act is not None, (seed, i, given)
            acts.append((seat, given.cards, tuple(received[seat])))
    return level, acts, advice


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_suggestion_is_legal_over_seeded_deals(preset: str) -> None:
    """R10 (R10.1–R10.4): over 25 whole deals per preset every suggested act is accepted, and the strong
    seats do declare in most deals (a policy that never declares would pass the legality check)."""
    declared = 0
    for seed in range(25):
        _, acts, advice = deal_with_advice(seed, preset)
        assert all(a.policy is DeclarationPolicy.STRONG for a in advice)
        declared += bool(acts)
    assert declared >= 15


def test_a_strong_holding_declares() -> None:
    """All 25 cards in, a level pair, both jokers and eight hearts: the seat shows its pair (A5, stage 2)."""
    hand = "H2 H2 BJ SJ HA HK HK HQ H10 H9 H7 H5 S3 S4 S6 S8 C3 C5 C7 C9 D3 D4 D6 D8 D9"
    given = advise(hand)
    assert given.cards == cards("H2 H2") and given.act is Act.A5_DIRECT_PAIR


def test_a_strong_holding_under_bid_set_000_shows_a_single_first() -> None:
    """BID-SET 000 has no direct pair (R10.3): the same holding declares with one H2 (A1)."""
    hand = "H2 H2 BJ SJ HA HK HK HQ H10 H9 H7 H5 S3 S4 S6 S8 C3 C5 C7 C9 D3 D4 D6 D8 D9"
    given = advise(hand, preset="rulebook-000")
    assert RULEBOOK_000 is PRESETS["rulebook-000"]
    assert given.cards == cards("H2") and given.act is Act.A1_SINGLE


def test_nothing_to_show_declares_nothing() -> None:
    """No level card and no joker pair: nothing, whatever else the hand holds."""
    given = advise("SA SA SK SK HA HA HK BJ SJ C3 C4 C5")
    assert given.cards == () and given.act is None
    assert "no level card" in given.reason


def test_a_weak_level_card_is_not_shown() -> None:
    """All 25 cards in and one S2 with no other spade and no joker: spades would be a poor contract."""
    given = advise("S2 HA HK HQ HJ H10 H9 H8 H7 C3 C4 C5 C6 C7 C8 C9 C10 D3 D4 D5 D6 D7 D8 D9 D10")
    assert given.cards == ()


def test_reinforces_its_own_single() -> None:
    """Seat 0's S2 stands and the second S2 arrives: A2 (stage 2 shuts out level-pair overturns, R10.4)."""
    acts: Acts = [(0, cards("S2"), None)]
    given = advise("S2 S2 SA SK S9 S8 S7 H3", acts)
    assert given.cards == cards("S2 S2") and given.act is Act.A2_REINFORCE


def test_overturns_an_opponent_with_a_better_pair() -> None:
    """Seat 1 (an opponent) declared S2; seat 0 holds D2 D2 and a long diamond suit: A3 to diamonds."""
    hand = "D2 D2 DA DK DK DQ DJ D10 D9 D8 D7 D5 H3 H4 C3 C4 C6 S3 S4 S6"
    given = advise(hand, [(1, cards("S2"), None)])
    assert given.act is Act.A3_OVERTURN and given.cards == cards("D2 D2")
    assert suit_of(given.cards[0]) is Suit.D


def test_never_overturns_the_partner() -> None:
    """The same holding over the partner's (seat 2's) S2: nothing."""
    hand = "D2 D2 DA DK DK DQ DJ D10 D9 D8 D7 D5 H3 H4 C3 C4 C6 S3 S4 S6"
    given = advise(hand, [(2, cards("S2"), None)])
    assert given.cards == () and "partner" in given.reason


def test_joker_pair_overturns_late_in_the_deal_only() -> None:
    """BJ BJ over an opponent's contract is kept for late in the deal (no stage can outrank it, R10.4)."""
    early = "BJ BJ SJ S2 H2 C2 HA CA"
    late = early + " SA DA HK CK SK DK H3 H4 H5 H6 C3 C4 C5 C6 D3 D4 D5"
    acts: Acts = [(1, cards("D2 D2"), None)]
    assert advise(early, acts).cards == ()
    given = advise(late, acts)
    assert given.cards == cards("BJ BJ") and given.act is Act.A7_BIG_JOKER_NT


def test_the_none_policy_never_declares() -> None:
    hand = "H2 H2 BJ SJ HA HK HK HQ H10 H9 H7 H5 S3 S4 S6 S8 C3 C5 C7 C9 D3 D4 D6 D8 D9"
    given = suggest_declaration(
        rules=PRESETS["default"],
        level=2,
        seat=0,
        received=cards(hand),
        acts=[],
        policy=DeclarationPolicy.NONE,
    )
    assert given.cards == () and given.policy is DeclarationPolicy.NONE


@pytest.mark.parametrize(
    ("received", "acts", "seat", "field", "problem"),
    [
        ("", [], 0, "received", Problem.BAD_SIZE),
        (
            "SA SK SQ SJack S10 S9 S8 S7 S6 S5 S4 S3 HA HK HQ HJ H10 H9 H8 H7 H6 H5 H4 H3 CA CK",
            [],
            0,
            "received",
            Problem.BAD_SIZE,
        ),
        ("S3 S3 S3", [], 0, "received[2]", Problem.TOO_MANY_COPIES),
        ("S2 H3", [(1, cards("S2 S2"), None)], 0, "received", Problem.INCONSISTENT),
        ("H3", [(0, cards("S2"), None)], 0, "declarations[0].cards", Problem.INCONSISTENT),
        ("H3", [(7, cards("S2"), None)], 0, "declarations[0].seat", Problem.OUT_OF_RANGE),
        ("H3", [], 4, "seat", Problem.OUT_OF_RANGE),
    ],
)
def test_malformed_requests_name_the_field(
    received: str, acts: Acts, seat: int, field: str, problem: Problem
) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        advise(received, acts, seat=seat)
    assert (caught.value.argument, caught.value.problem) == (field, problem)


def later(received: str, dealer: int, acts: Acts | None = None, *, seat: int = 0) -> DeclarationAdvice:
    """The advice in a later hand whose rotation dealer is ``dealer`` (R10.7)."""
    return suggest_declaration(
        rules=PRESETS["default"],
        level=2,
        seat=seat,
        received=cards(received),
        acts=acts or [],
        first_hand=False,
        dealer=dealer,
    )


HEARTS_096 = "H2 SJ HA HK H9 H7 H5 S3 S4 S6 S8 SK C3 C5 C7 C9 CK CA D3 D4 D6 D8 D9 DQ DA"
"""Hearts would be worth 0.96 of an average hand's trumps: under a first hand's late bar (1.0)."""
HEARTS_SHORT = "H2 SJ BJ HA HK H9 H5 S3 S4 S6 S8 SK SA C3 C5 C7 C9 CK D3 D4 D6 D8 D9 DQ DA"
"""Hearts worth 1.02 (the jokers count), from four hearts besides H2: not a long suit (an average 25
cards hold 5.6)."""
SPADES_LONG = "S2 SA SK SQ SJack S10 S9 S8 S7 S6 H3 H4 H5 C3 C4 C5 C6 C7 D3 D4 D5 D6 D7 D8 D9"
"""Nine spades besides S2 (worth 1.26): the seat's own long suit."""


def test_in_a_later_hand_the_dealers_side_declares_to_keep_the_bottom() -> None:
    """R10.7: the dealer is fixed, so declaring wins no deal; for the dealer's side the contract is the
    trump that defends the bottom it keeps, worth showing on a holding a first hand keeps hidden."""
    assert advise(HEARTS_096).cards == ()
    for dealer in (0, 2):  # the seat deals, or its partner does
        given = later(HEARTS_096, dealer)
        assert given.cards == cards("H2") and given.act is Act.A1_SINGLE
        assert "defends the bottom" in given.reason
    assert later(HEARTS_096, 1).cards == ()  # an attacker with the same cards stays silent


def test_in_a_later_hand_the_attackers_declare_only_their_own_long_suit() -> None:
    """A first hand shows H2 on four hearts and two jokers (declaring wins the deal, R10.6); an attacker
    in a later hand does not (R10.7: no deal to win, and four hearts is no long suit: the jokers would
    serve the dealer's side), but names its nine spades."""
    first = advise(HEARTS_SHORT)
    assert first.cards == cards("H2") and "wins the deal" in first.reason
    assert later(HEARTS_SHORT, 1).cards == ()
    assert later(HEARTS_SHORT, 0).cards == cards("H2")
    attack = later(SPADES_LONG, 3)
    assert attack.cards == cards("S2") and "long suit" in attack.reason


def test_the_deal_context_is_checked_as_validate_declaration_checks_it() -> None:
    """A first hand names no dealer (R10.6); a later hand must name one, 0..3 (R10.7)."""
    base = {"rules": PRESETS["default"], "level": 2, "seat": 0, "received": cards("H3"), "acts": []}
    for first_hand, dealer, problem in (
        (True, 1, Problem.INCONSISTENT),
        (False, None, Problem.MISSING),
        (False, 4, Problem.OUT_OF_RANGE),
    ):
        with pytest.raises(InvalidArgumentError) as caught:
            suggest_declaration(**base, first_hand=first_hand, dealer=dealer)  # type: ignore[arg-type]
        assert (caught.value.argument, caught.value.problem) == ("dealer", problem)


def test_another_seats_received_cards_are_refused_and_the_seats_own_checked() -> None:
    """Privacy (rules_core.strategy.privacy): an act's ``hand`` is its seat's private cards."""
    with pytest.raises(InvalidArgumentError) as caught:
        advise("H2 C3 S4", [(0, cards("H2"), cards("H2 C3")), (1, cards("S2 S2"), cards("S2 S2 D5"))])
    assert (caught.value.argument, caught.value.problem) == ("declarations[1].hand", Problem.INCONSISTENT)
    with pytest.raises(InvalidArgumentError) as caught:
        advise("H2 D9", [(0, cards("H2"), cards("H2 C3"))])  # C3 was received, so it is still held
    assert caught.value.argument == "declarations[0].hand"
    assert advise("H2 C3 D9", [(0, cards("H2"), cards("H2 C3"))]).policy is DeclarationPolicy.STRONG
