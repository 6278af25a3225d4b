"""Trump declaration (R10): the worked cases, every rejection reason, the presets and the invariants; on other
tables (R14.11) up to D copies through the same entry."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from worked_cases import Case, cards, cases, rules_for, seat, table_of

from rules_core.bidding import (
    MAX_OVERTURN_MULTIPLIER,
    Act,
    Bidding,
    BidRejection,
    Declaration,
    declare,
    resolve_declarations,
)
from rules_core.bidding import Shown as RequestAct
from rules_core.cards import (
    BIG_JOKER,
    SMALL_JOKER,
    Suit,
    face_of,
    hand_of,
    parse_cards,
    parse_rank,
    suit_of,
)
from rules_core.errors import InvalidArgumentError
from rules_core.rules import (
    DEFAULT_RULES,
    PRESETS,
    RULEBOOK_000,
    RULEBOOK_003,
    BidSet,
    BidStages,
    FirstDealer,
    JokerOverturn,
    NoBid,
    Partners,
    Rules,
)

UNLIMITED = dataclasses.replace(DEFAULT_RULES, bid_stages=BidStages.UNLIMITED)
OTHERS = dataclasses.replace(DEFAULT_RULES, joker_overturn=JokerOverturn.OTHERS)
BASIC_UNLIMITED = dataclasses.replace(RULEBOOK_000, bid_stages=BidStages.UNLIMITED)

Shown = tuple[int, str] | tuple[int, str, str]
"""A test act: (seat, "cards") or (seat, "cards", "the seat's hand so far")."""


def declaration(act: Shown) -> Declaration:
    """A Declaration from (seat, "H2 H2"[, "hand so far"])."""
    hand = hand_of(parse_cards(act[2].split())) if len(act) == 3 else None
    return Declaration(seat=act[0], cards=parse_cards(act[1].split()), hand=hand)


def resolve(acts: list[Shown], *, rules: Rules = DEFAULT_RULES, level: int = 2, **kwargs: Any) -> Bidding:
    """Resolve a first hand (unless kwargs say otherwise) from test acts."""
    kwargs.setdefault("first_hand", True)
    sequence = [declaration(act) for act in acts]
    return resolve_declarations(rules=rules, level=level, sequence=sequence, **kwargs)


def labels(result: Bidding) -> list[str]:
    """The CASES.md labels of the acts."""
    return [str(act) if act is not None else "REJECTED" for act in result.acts]


def contract_label(result: Bidding) -> str:
    return "NT" if result.contract is None else result.contract.name


# ---------------------------------------------------------------------------------------------- worked cases


@pytest.mark.parametrize("case", cases("declare"))
def test_worked_case(case: Case) -> None:
    given_ = case["input"]
    sequence = [Declaration(seat=seat(act["seat"]), cards=cards(act["cards"])) for act in given_["sequence"]]
    result = resolve_declarations(
        rules=rules_for(case),
        level=parse_rank(case["level"]),
        sequence=sequence,
        first_hand=given_["first_hand"],
        first_seated=seat(given_["first_seated"]),
        bottom=cards(given_["bottom"]) if "bottom" in given_ else None,  # R16.6
    )
    dealer = f"P{result.dealer + 1}" if given_["first_hand"] and result.dealer is not None else None
    got = {
        "contract": contract_label(result),
        "O": result.overturn_multiplier,
        "dealer": dealer,
        "rejected": list(result.rejected),
        "acts": labels(result),
    }
    if "bottom_revealed" in case["expect"]:
        got["bottom_revealed"] = result.bottom_revealed
    assert got == case["expect"]


def test_worked_cases_are_present() -> None:
    assert len(cases("declare")) == 26


# ---------------------------------------------------------------------------------------------- rejections

REJECTIONS: list[tuple[str, Rules, list[Shown], BidRejection]] = [
    ("three-cards", DEFAULT_RULES, [(0, "H2 H2 S2")], BidRejection.WRONG_CARD_COUNT),
    ("two-faces", DEFAULT_RULES, [(0, "H2 S2")], BidRejection.NOT_A_PAIR),
    ("two-jokers", DEFAULT_RULES, [(0, "SJ BJ")], BidRejection.NOT_A_PAIR),
    ("off-level-single", DEFAULT_RULES, [(0, "H3")], BidRejection.NOT_LEVEL_CARDS),
    ("off-level-pair", DEFAULT_RULES, [(0, "H2"), (1, "S3 S3")], BidRejection.NOT_LEVEL_CARDS),
    ("single-joker", DEFAULT_RULES, [(0, "BJ")], BidRejection.NOT_LEVEL_CARDS),
    ("000-joker-nt", RULEBOOK_000, [(0, "H2"), (1, "SJ SJ")], BidRejection.NOT_IN_RULESET),
    ("000-direct-nt", RULEBOOK_000, [(0, "BJ BJ")], BidRejection.NOT_IN_RULESET),
    ("000-direct-pair", RULEBOOK_000, [(0, "C2 C2")], BidRejection.NOT_IN_RULESET),
    ("000-self-overturn-nt", RULEBOOK_000, [(0, "H2"), (0, "SJ SJ")], BidRejection.NOT_IN_RULESET),
    ("second-single", DEFAULT_RULES, [(0, "H2"), (1, "S2")], BidRejection.STAGE_USED),
    ("second-pair", DEFAULT_RULES, [(0, "H2"), (1, "S2 S2"), (2, "D2 D2")], BidRejection.STAGE_USED),
    ("pair-after-reinforce", RULEBOOK_000, [(0, "H2"), (0, "H2"), (1, "S2 S2")], BidRejection.STAGE_USED),
    ("single-after-pair", DEFAULT_RULES, [(0, "H2"), (1, "S2 S2"), (2, "C2")], BidRejection.STAGE_NOT_HIGHER),
    ("sj-after-bj", DEFAULT_RULES, [(0, "BJ BJ"), (1, "SJ SJ")], BidRejection.STAGE_NOT_HIGHER),
    ("pair-after-nt", DEFAULT_RULES, [(0, "SJ SJ"), (1, "H2 H2")], BidRejection.STAGE_NOT_HIGHER),
    ("unlimited-pair-after-nt", UNLIMITED, [(0, "SJ SJ"), (1, "H2 H2")], BidRejection.STAGE_NOT_HIGHER),
    ("unlimited-second-single", UNLIMITED, [(0, "H2"), (1, "S2")], BidRejection.ALREADY_DECLARED),
    ("same-suit-pair", DEFAULT_RULES, [(0, "H2"), (1, "H2 H2")], BidRejection.SAME_SUIT),
    ("unlimited-same-suit", UNLIMITED, [(0, "H2"), (1, "S2 S2"), (2, "S2 S2")], BidRejection.SAME_SUIT),
    ("others-reinforce", DEFAULT_RULES, [(0, "H2"), (1, "H2")], BidRejection.NOT_THE_DECLARER),
    (
        "reinforce-twice",
        DEFAULT_RULES,
        [(0, "H2"), (0, "H2"), (0, "H2 H2")],
        BidRejection.NOTHING_TO_REINFORCE,
    ),
    (
        "reinforce-overturned",
        DEFAULT_RULES,
        [(0, "H2"), (1, "S2 S2"), (0, "H2")],
        BidRejection.NOTHING_TO_REINFORCE,
    ),
    ("reinforce-a-pair", DEFAULT_RULES, [(0, "C2 C2"), (1, "C2")], BidRejection.NOTHING_TO_REINFORCE),
    ("own-nt", OTHERS, [(0, "SJ SJ"), (0, "BJ BJ")], BidRejection.OWN_CONTRACT),
    ("own-overturn", OTHERS, [(0, "H2"), (1, "S2 S2"), (1, "SJ SJ")], BidRejection.OWN_CONTRACT),
    ("own-direct-pair-nt", OTHERS, [(1, "C2 C2"), (1, "SJ SJ")], BidRejection.OWN_CONTRACT),
    (
        "own-overturn-level-pair",
        UNLIMITED,
        [(0, "H2"), (1, "S2 S2"), (1, "D2 D2")],
        BidRejection.OWN_CONTRACT,
    ),
    ("own-direct-pair", UNLIMITED, [(0, "C2 C2"), (0, "H2 H2")], BidRejection.OWN_CONTRACT),
    ("not-received", DEFAULT_RULES, [(0, "H2", "S2 S3 HA")], BidRejection.CARDS_NOT_HELD),
    (
        "reinforce-without-copy",
        DEFAULT_RULES,
        [(0, "H2", "H2 SA"), (0, "H2", "H2 SA SK")],
        BidRejection.CARDS_NOT_HELD,
    ),
    ("pair-of-one", DEFAULT_RULES, [(0, "H2"), (1, "S2 S2", "S2 HA")], BidRejection.CARDS_NOT_HELD),
    (
        "copy-shown-by-other",
        DEFAULT_RULES,
        [(0, "H2"), (1, "S2 S2"), (2, "H2 H2")],
        BidRejection.CARD_SHOWN_ELSEWHERE,
    ),
    (
        "jokers-shown-by-other",
        DEFAULT_RULES,
        [(0, "SJ SJ"), (1, "BJ BJ"), (2, "SJ SJ")],
        BidRejection.CARD_SHOWN_ELSEWHERE,
    ),
]


@pytest.mark.parametrize(
    ("rules", "acts", "reason"), [pytest.param(*row[1:], id=row[0]) for row in REJECTIONS]
)
def test_rejection_reason(rules: Rules, acts: list[Shown], reason: BidRejection) -> None:
    result = resolve(acts, rules=rules)
    last = len(acts) - 1
    assert None not in result.acts[:last]
    assert result.acts[last] is None
    assert result.rejected == (last,)
    rejection = result.rejections[0]
    assert rejection.reason is reason
    assert rejection.message.startswith(f"seat {acts[last][0]} shows {acts[last][1]}: ")


def test_every_rejection_reason_is_tested() -> None:
    assert {row[3] for row in REJECTIONS} == set(BidRejection)


@pytest.mark.parametrize(("rules", "acts"), [pytest.param(*row[1:3], id=row[0]) for row in REJECTIONS])
def test_rejected_act_changes_nothing(rules: Rules, acts: list[Shown]) -> None:
    with_it = resolve(acts, rules=rules)
    without = resolve(acts[:-1], rules=rules)
    assert dataclasses.replace(with_it, acts=with_it.acts[:-1], rejections=()) == without


def test_stage_message_names_the_stages() -> None:
    result = resolve([(0, "BJ BJ"), (1, "SJ SJ")])
    assert "SJ SJ (stage 3) cannot follow BJ BJ (stage 4)" in result.rejections[0].message


# ---------------------------------------------------------------------------------------------- acts


@pytest.mark.parametrize(
    ("acts", "labelled", "overturns", "dealer"),
    [
        ([(1, "C2 C2"), (1, "SJ SJ")], ["A5", "A6"], 1, 1),  # WC-167a's shape: his own direct pair
        ([(0, "H2"), (0, "S2 S2"), (0, "BJ BJ")], ["A1", "A4", "A4"], 2, 0),  # WC-167b's shape
        ([(0, "H2"), (1, "S2 S2"), (1, "SJ SJ")], ["A1", "A3", "A6"], 2, 1),  # over his own overturn
        ([(0, "SJ SJ"), (0, "BJ BJ")], ["A6", "A7"], 1, 0),  # NT -> NT counts, as in WC-143a (R10.5)
        ([(0, "H2"), (0, "SJ SJ"), (0, "BJ BJ")], ["A1", "A4", "A4"], 2, 0),
    ],
)
def test_a_joker_pair_may_overturn_its_own_seat(
    acts: list[Shown], labelled: list[str], overturns: int, dealer: int
) -> None:
    """R10.4's ruling: A6/A7 name no seat; a change of contract counts as an overturn (R10.5)."""
    result = resolve(acts)
    assert labels(result) == labelled
    assert (result.overturns, result.overturn_multiplier) == (overturns, 2**overturns)
    assert (result.contract, result.dealer) == (None, dealer)
    others = resolve(acts, rules=OTHERS)  # the literal [003] reading refuses the same seat's joker pair
    assert others.rejected == (len(acts) - 1,)


def test_direct_pair_and_skipped_stages() -> None:
    result = resolve([(0, "C2 C2"), (1, "BJ BJ")])
    assert labels(result) == ["A5", "A7"]
    assert (result.contract, result.overturns, result.overturn_multiplier) == (None, 1, 2)
    assert (result.first_declarer, result.last_changer, result.dealer, result.stage) == (0, 1, 1, 4)


def test_single_then_big_jokers_skips_two_stages() -> None:
    result = resolve([(2, "DQ"), (3, "BJ BJ")], level=12)
    assert labels(result) == ["A1", "A7"]
    assert result.overturn_multiplier == 2


def test_reinforce_may_be_sent_as_the_whole_pair() -> None:
    result = resolve([(0, "H2"), (0, "H2 H2"), (1, "S2 S2")])
    assert labels(result) == ["A1", "A2", "REJECTED"]
    assert (result.contract, result.overturn_multiplier, result.dealer, result.stage) == (Suit.H, 1, 0, 2)


def test_reinforce_does_not_change_the_last_changer() -> None:
    result = resolve([(0, "H2"), (0, "H2")], rules=RULEBOOK_003)
    assert (result.first_declarer, result.last_changer, result.dealer) == (0, 0, 0)
    assert result.overturns == 0


def test_declarer_may_self_overturn_a_reinforced_single_with_jokers() -> None:
    result = resolve([(0, "H2"), (0, "H2"), (0, "SJ SJ"), (1, "BJ BJ")])
    assert labels(result) == ["A1", "A2", "A4", "A7"]
    assert (result.contract, result.overturns, result.overturn_multiplier, result.dealer) == (None, 2, 4, 1)


def test_the_overturned_declarer_may_overturn_again_with_jokers() -> None:
    result = resolve([(0, "H2"), (1, "S2 S2"), (0, "SJ SJ")])
    assert labels(result) == ["A1", "A3", "A6"]
    assert result.overturn_multiplier == 4


def test_first_act_joker_pair_is_the_declaration() -> None:
    result = resolve(
        [(3, "SJ SJ"), (0, "BJ BJ")],
        rules=dataclasses.replace(DEFAULT_RULES, first_dealer=FirstDealer.FIRST_DECLARER),
    )
    assert labels(result) == ["A6", "A7"]
    assert (result.overturns, result.dealer) == (1, 3)


def test_level_a_uses_aces() -> None:
    result = resolve([(1, "SA"), (2, "DA DA")], level=14)
    assert labels(result) == ["A1", "A3"]
    assert result.contract is Suit.D


def test_spade_jack_is_a_level_card_at_level_j() -> None:
    result = resolve([(1, "SJack"), (1, "SJack")], level=11)
    assert labels(result) == ["A1", "A2"]
    assert result.contract is Suit.S


# ---------------------------------------------------------------------------------------------- presets

PRESET_SEQUENCE: list[Shown] = [(0, "H2"), (1, "S2 S2"), (2, "SJ SJ")]


@pytest.mark.parametrize(
    ("rules", "acts", "contract", "multiplier", "dealer"),
    [
        pytest.param(RULEBOOK_000, ["A1", "A3", "REJECTED"], Suit.S, 2, 0, id="rulebook-000"),
        pytest.param(PRESETS["rulebook-001"], ["A1", "A3", "REJECTED"], Suit.S, 2, 0, id="rulebook-001"),
        pytest.param(RULEBOOK_003, ["A1", "A3", "A6"], None, 4, 2, id="rulebook-003"),
        pytest.param(DEFAULT_RULES, ["A1", "A3", "A6"], None, 4, 2, id="default"),
    ],
)
def test_preset(rules: Rules, acts: list[str], contract: Suit | None, multiplier: int, dealer: int) -> None:
    result = resolve(PRESET_SEQUENCE, rules=rules)
    assert labels(result) == acts
    assert (result.contract, result.overturn_multiplier, result.dealer) == (contract, multiplier, dealer)


@pytest.mark.parametrize("rules", [RULEBOOK_000, RULEBOOK_003, DEFAULT_RULES], ids=["000", "003", "default"])
def test_nobody_declares_in_the_first_hand(rules: Rules) -> None:
    result = resolve([(0, "H3"), (1, "BJ")], rules=rules, first_seated=2)
    assert labels(result) == ["REJECTED", "REJECTED"]
    assert (result.contract, result.declared, result.overturn_multiplier, result.dealer) == (
        None,
        False,
        1,
        2,
    )
    assert (result.first_declarer, result.last_changer, result.stage) == (None, None, 0)


def test_rulebook_000_self_overturn_and_first_declarer_deals() -> None:
    result = resolve([(3, "C2"), (3, "D2 D2")], rules=RULEBOOK_000, first_seated=1)
    assert labels(result) == ["A1", "A4"]
    assert (result.contract, result.overturn_multiplier, result.dealer) == (Suit.D, 2, 3)


# ---------------------------------------------------------------------------------------------- unlimited


def test_unlimited_pairs_overturn_repeatedly_and_o_is_capped() -> None:
    acts: list[Shown] = [(0, "H2"), (1, "S2 S2"), (2, "C2 C2"), (3, "D2 D2"), (0, "H2 H2"), (1, "BJ BJ")]
    result = resolve(acts, rules=UNLIMITED)
    assert labels(result) == ["A1", "A3", "A3", "A3", "A3", "A7"]
    assert (result.overturns, result.overturn_multiplier) == (5, MAX_OVERTURN_MULTIPLIER)
    assert (result.contract, result.dealer) == (None, 1)


def test_unlimited_pair_overturns_a_reinforced_single() -> None:
    acts: list[Shown] = [(0, "H2"), (0, "H2"), (1, "S2 S2")]
    assert labels(resolve(acts, rules=BASIC_UNLIMITED)) == ["A1", "A2", "A3"]
    assert labels(resolve(acts, rules=RULEBOOK_000)) == ["A1", "A2", "REJECTED"]


def test_unlimited_declarer_may_self_overturn_after_reinforcing() -> None:
    result = resolve([(0, "H2"), (0, "H2"), (0, "S2 S2"), (1, "D2 D2")], rules=BASIC_UNLIMITED)
    assert labels(result) == ["A1", "A2", "A4", "A3"]
    assert (result.contract, result.overturn_multiplier, result.last_changer) == (Suit.D, 4, 1)
    assert result.dealer == 0  # RULEBOOK_000: the first declarer deals


def test_unlimited_joker_pairs_still_rise() -> None:
    result = resolve([(0, "SJ SJ"), (1, "BJ BJ"), (2, "H2 H2")], rules=UNLIMITED)
    assert labels(result) == ["A6", "A7", "REJECTED"]


# ---------------------------------------------------------------------------------------------- later hands


def test_later_hand_keeps_the_rotation_dealer() -> None:
    result = resolve([(0, "H2"), (1, "S2 S2")], first_hand=False, dealer=3)
    assert (result.contract, result.overturn_multiplier, result.dealer) == (Suit.S, 2, 3)


def test_later_hand_without_dealer_and_without_declaration() -> None:
    result = resolve([], first_hand=False, first_seated=2)
    assert (result.contract, result.declared, result.overturn_multiplier, result.dealer) == (
        None,
        False,
        1,
        None,
    )


def test_later_hand_ignores_first_dealer_option() -> None:
    rules = dataclasses.replace(DEFAULT_RULES, first_dealer=FirstDealer.FIRST_DECLARER)
    assert resolve([(0, "H2"), (1, "S2 S2")], rules=rules, first_hand=False, dealer=2).dealer == 2


# ---------------------------------------------------------------------------------------------- hand so far


def test_hand_so_far_accepts_held_cards() -> None:
    result = resolve([(0, "H2", "H2 SA"), (0, "H2", "H2 H2 SA"), (1, "BJ BJ", "BJ BJ C3")])
    assert labels(result) == ["A1", "A2", "A7"]


def test_self_reinforce_needs_both_copies_in_the_hand() -> None:
    result = resolve([(0, "H2", "H2"), (0, "H2", "H2 C9")])
    assert result.rejections[0].reason is BidRejection.CARDS_NOT_HELD
    assert "needs 2 H2" in result.rejections[0].message


def test_pair_form_reinforce_needs_both_copies_too() -> None:
    result = resolve([(0, "H2", "H2"), (0, "H2 H2", "H2 C9")])
    assert result.rejections[0].reason is BidRejection.CARDS_NOT_HELD


@pytest.mark.parametrize(
    "hand",
    [
        pytest.param((0,) * 53, id="short-vector"),
        pytest.param((3,) + (0,) * 53, id="three-copies"),
        pytest.param((-1,) + (0,) * 53, id="negative"),
        pytest.param((1,) * 26 + (0,) * 28, id="26-cards"),
    ],
)
def test_malformed_hand_raises(hand: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="hand"):
        Declaration(seat=0, cards=(face_of(Suit.H, 2),), hand=hand)


# ---------------------------------------------------------------------------------------------- malformed


@pytest.mark.parametrize(
    ("seat_", "faces", "match"),
    [
        pytest.param(-1, (0,), "seat", id="seat-negative"),
        pytest.param(4, (0,), "seat", id="seat-4"),
        pytest.param(True, (0,), "seat", id="seat-bool"),
        pytest.param(0, (), "no cards", id="empty"),
        pytest.param(0, (54,), "unknown face", id="face-54"),
        pytest.param(0, (-1,), "unknown face", id="face-negative"),
        pytest.param(0, (13, 13, 13), "copies", id="three-copies"),
    ],
)
def test_malformed_declaration_raises(seat_: int, faces: tuple[int, ...], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        Declaration(seat=seat_, cards=faces)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        pytest.param({"level": 1}, "level", id="level-1"),
        pytest.param({"level": 15}, "level", id="level-15"),
        pytest.param({"first_seated": 4}, "first_seated", id="first-seated"),
        pytest.param({"first_hand": False, "dealer": -1}, "dealer", id="dealer-range"),
        pytest.param({"first_hand": True, "dealer": 1}, "decided by the bidding", id="dealer-in-first-hand"),
    ],
)
def test_malformed_context_raises(kwargs: dict[str, Any], match: str) -> None:
    arguments: dict[str, Any] = {"rules": DEFAULT_RULES, "level": 2, "sequence": (), "first_hand": True}
    with pytest.raises(ValueError, match=match):
        resolve_declarations(**(arguments | kwargs))


# ---------------------------------------------------------------------------------------------- properties

CHANGING = {Act.A1_SINGLE, Act.A3_OVERTURN, Act.A4_SELF_OVERTURN, Act.A5_DIRECT_PAIR}
CHANGING |= {Act.A6_SMALL_JOKER_NT, Act.A7_BIG_JOKER_NT}
OVERTURNS = {Act.A3_OVERTURN, Act.A4_SELF_OVERTURN, Act.A6_SMALL_JOKER_NT, Act.A7_BIG_JOKER_NT}


@st.composite
def shown_cards(draw: st.DrawFn, level: int) -> tuple[int, ...]:
    """Mostly well-formed declarations, with some noise."""
    suit = draw(st.sampled_from(Suit))
    kind = draw(st.sampled_from(["single", "single", "pair", "pair", "sj", "bj", "noise"]))
    if kind == "single":
        return (face_of(suit, level),)
    if kind == "pair":
        return (face_of(suit, level),) * 2
    if kind in ("sj", "bj"):
        return (SMALL_JOKER if kind == "sj" else BIG_JOKER,) * 2
    noise = st.lists(st.integers(0, 53), min_size=1, max_size=3)
    return tuple(draw(noise.filter(lambda faces: all(faces.count(face) <= 2 for face in faces))))


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[Rules, int, list[Declaration], int]:
    rules = Rules(
        first_dealer=draw(st.sampled_from(FirstDealer)),
        bid_set=draw(st.sampled_from(BidSet)),
        bid_stages=draw(st.sampled_from(BidStages)),
    )
    level = draw(st.integers(2, 14))
    size = draw(st.integers(0, 10))
    acts = [Declaration(seat=draw(st.integers(0, 3)), cards=draw(shown_cards(level))) for _ in range(size)]
    return rules, level, acts, draw(st.integers(0, 3))


def stage_of(act: Act, faces: tuple[int, ...]) -> int:
    """R10.4 stage, computed independently of the engine."""
    if act is Act.A2_REINFORCE:
        return 2
    if len(faces) == 1:
        return 1
    return {SMALL_JOKER: 3, BIG_JOKER: 4}.get(faces[0], 2)


@given(scenarios())
def test_bidding_invariants(scenario: tuple[Rules, int, list[Declaration], int]) -> None:
    rules, level, sequence, first_seated = scenario
    result = resolve_declarations(
        rules=rules, level=level, sequence=sequence, first_hand=True, first_seated=first_seated
    )
    assert len(result.acts) == len(sequence)
    assert result.rejected == tuple(index for index, act in enumerate(result.acts) if act is None)
    accepted = [(act, sequence[index]) for index, act in enumerate(result.acts) if act is not None]

    overturns = sum(1 for position, (act, _) in enumerate(accepted) if act in OVERTURNS and position > 0)
    assert result.overturns == overturns
    assert result.overturn_multiplier in {1, 2, 4, 8}
    assert result.overturn_multiplier == min(MAX_OVERTURN_MULTIPLIER, 2**overturns)

    if rules.bid_stages is BidStages.STAGED:
        stages = [stage_of(act, shown.cards) for act, shown in accepted]
        assert stages == sorted(set(stages))
        assert overturns <= 3
    if rules.bid_set is BidSet.BASIC:
        assert all(
            act not in {Act.A5_DIRECT_PAIR, Act.A6_SMALL_JOKER_NT, Act.A7_BIG_JOKER_NT} for act, _ in accepted
        )
        assert all(shown.cards[0] < SMALL_JOKER for _, shown in accepted)

    changes = [shown for act, shown in accepted if act in CHANGING]
    assert result.declared == bool(accepted)
    assert result.contract == (suit_of(changes[-1].cards[0]) if changes else None)
    if not accepted:
        assert result.dealer == first_seated
    elif rules.first_dealer is FirstDealer.FIRST_DECLARER:
        assert result.dealer == accepted[0][1].seat
    else:
        assert result.dealer == changes[-1].seat

    only_accepted = resolve_declarations(
        rules=rules,
        level=level,
        sequence=[shown for _, shown in accepted],
        first_hand=True,
        first_seated=first_seated,
    )
    assert only_accepted.rejections == ()
    assert only_accepted.acts == tuple(act for act, _ in accepted)
    assert dataclasses.replace(only_accepted, acts=result.acts, rejections=result.rejections) == result

    for length in range(len(sequence)):
        prefix = resolve_declarations(rules=rules, level=level, sequence=sequence[:length], first_hand=True)
        assert prefix.acts == result.acts[:length]


# ------------------------------------------------------------------------------------------------
# Other tables (R14.11): up to D copies of a face, through the same entry

TABLE_DECLARE_CASES = [c for c in cases("declare", tables=True) if table_of(c.values[0]) != (2, 4)]


@pytest.mark.parametrize("case", TABLE_DECLARE_CASES)
def test_table_worked_case(case: Case) -> None:
    """WC-340 onwards: declarations of up to D copies (R14.11)."""
    given = case["input"]
    acts: list[RequestAct] = [(seat(a["seat"]), tuple(cards(a["cards"])), None) for a in given["sequence"]]
    rules = rules_for(case)
    if rules.seats % 2:
        rules = dataclasses.replace(rules, partners=Partners.FRIENDS)
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
        "acts": labels(result),
    }
    assert got == case["expect"]


def test_table_cases_are_present() -> None:
    assert len(TABLE_DECLARE_CASES) >= 7
    assert all(table_of(case.values[0]) != (2, 4) for case in TABLE_DECLARE_CASES)


def _random_acts(rng: random.Random, level: int, copies: int, seats: int) -> list[RequestAct]:
    faces = [suit * 13 + level - 2 for suit in range(4)] + [SMALL_JOKER, BIG_JOKER]
    acts: list[RequestAct] = []
    for _ in range(rng.randint(1, 6)):
        face = rng.choice(faces)
        shown = (face,) * rng.randint(1, copies)
        hand = None if rng.random() < 0.5 else (*shown, *(face,) * rng.randint(0, 1))[:copies]
        acts.append((rng.randrange(seats), shown, hand))
    return acts


def test_two_decks_is_r10() -> None:
    """R14.11 on two decks and four seats (finding friends there) is R10 exactly (contract, O, dealer, every
    act's label)."""
    rng = random.Random(1011)
    friends = dataclasses.replace(DEFAULT_RULES, partners=Partners.FRIENDS)
    for _ in range(1500):
        level = rng.randint(2, 14)
        acts = _random_acts(rng, level, 2, 4)
        ours = declare(rules=friends, level=level, acts=acts, first_hand=True)
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
    rules = dataclasses.replace(DEFAULT_RULES, decks=decks, seats=seats, partners=partners)
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


def test_table_rejections_and_bad_input() -> None:
    """Rejections have their reason; malformed acts are INVALID_ARGUMENT naming the field (R14.1)."""
    rules = dataclasses.replace(DEFAULT_RULES, decks=3, seats=6)
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
    bad: list[tuple[list[RequestAct], int, str]] = [
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


def test_holdings_are_r10s_on_every_table() -> None:
    """R10.1, R10.2 are one check on every table (R10's words): three decks hold three copies of a face,
    and copies one seat has shown stay shown."""
    rules = dataclasses.replace(DEFAULT_RULES, decks=3, seats=6)
    s2 = 0
    acts: list[RequestAct] = [
        (0, (BIG_JOKER,) * 2, None),
        (1, (s2,) * 3, None),
        (2, (BIG_JOKER,) * 3, None),
        (3, (SMALL_JOKER,) * 3, (SMALL_JOKER,) * 2),
    ]
    result = declare(rules=rules, level=2, acts=acts, first_hand=True)
    assert labels(result)[:2] == ["A7", "A3"]
    assert [(r.reason, r.message) for r in result.rejections] == [
        (
            BidRejection.CARD_SHOWN_ELSEWHERE,
            "seat 2 shows BJ BJ BJ: BJ has already been shown by seat 0 (R10.2)",
        ),
        (
            BidRejection.CARDS_NOT_HELD,
            "seat 3 shows SJ SJ SJ: A6 needs 3 SJ received so far, the seat holds 2 (R10.1)",
        ),
    ]


def test_the_bottom_names_trump_on_the_rulebooks_table_only() -> None:
    """R16.6 through the one entry: the rulebooks' table reads the bottom, another refuses it, naming it."""
    bottom = tuple(parse_cards(["BJ", "S9", "HA", "D7", "C7", "SK", "S3", "HQ"]))
    rules = dataclasses.replace(DEFAULT_RULES, no_bid=NoBid.BOTTOM_FIRST_CARD)
    assert (
        declare(rules=rules, level=7, acts=[], first_hand=False, dealer=0, bottom=bottom).contract is Suit.S
    )
    wide = dataclasses.replace(DEFAULT_RULES, seats=6)
    with pytest.raises(InvalidArgumentError) as caught:
        declare(rules=wide, level=7, acts=[], first_hand=False, dealer=0, bottom=bottom)
    assert caught.value.argument == "bottom"
