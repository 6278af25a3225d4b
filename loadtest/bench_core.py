"""rules_core speed: medians of the hot-path calls against the targets of the rules-core issue.

Every figure is the median of several timed batches, in microseconds per call, next to its ratio to a
baseline measured in the same run (checking that two cards are in a hand: the least work any validation
does), so runs on different or busy machines stay comparable. The adversarial section times the worst
inputs of legal size we know (25-card throws full of pairs and tractors, hands of one rank) and reports
the slowest. The seeded section times the kinds of position loadtest/README.md compares with the Python
peer engine (random deals: throws that succeed, throws that fail, legal follows, whole tricks) and
reports the median over positions. Run: ``make bench-core`` (``--strict`` exits non-zero when a target is
missed).
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from loadtest.stats import median, median_micros, quick_micros
from rules_core.autoplay import suggest_play
from rules_core.cards import HAND_SIZE, NUM_FACES, Hand, Suit, contains, hand_of, parse_cards
from rules_core.follow import check_follow
from rules_core.legal_plays import legal_plays
from rules_core.ruffing import ruff_key
from rules_core.rules import DEFAULT_RULES, RULEBOOK_000
from rules_core.settlement import settle_hand
from rules_core.shapes import decompose
from rules_core.throw import check_lead
from rules_core.trick import resolve_trick
from rules_core.trump import TrumpContext, trump_context
from rules_core.verdicts import Legal

CTX = trump_context(5, Suit.H)
CTX_2H = trump_context(2, Suit.H)


@dataclass(frozen=True)
class Figure:
    name: str
    micros: float
    target: float


def cards(text: str) -> tuple[int, ...]:
    return parse_cards(text.split())


def hand(text: str) -> Hand:
    return hand_of(cards(text))


# A 25-card follower who owes structure: a tractor lead in spades, spades with pairs and a tractor.
FOLLOWER = hand("BJ H5 HA HK HQ HQ H9 SA SA SK SQ SQ SJack SJack S10 S9 S9 S7 S3 S3 CA CK C9 D8 D7")
TRACTOR_LEAD = cards("S8 S8 S6 S6")
TRACTOR_FOLLOW = cards("SQ SQ SJack SJack")
# A throw lead against three full hands.
LEADER = hand("SA SA SK SQ SQ S8 S8 S7 S7 S4 BJ SJ H5 HA HK HQ CA CK CQ C9 DA DK DQ D9 D3")
THROW = cards("SA SA SK SQ SQ S8 S8 S7 S7")
OTHERS = {
    1: hand("SJ S5 HJ HJ H10 H9 H8 H8 H7 H4 S2 S2 CQ C8 C4 C3 DA DQ D10 D9 D7 D6 D4 D3 D2"),
    2: hand("BJ C5 C5 D5 D5 HA H7 H6 S6 S6 S10 CJ CJ C9 C4 C2 DJ DQ D10 D8 D8 D7 D4 S3 S3"),
    3: hand("H5 HK H10 H6 H4 H3 H2 S9 S9 SJack S10 CA C10 C8 C7 C3 C2 DK DK DJ D6 D2 S5 S4 H3"),
}
TRICK = [cards("S8 S8 S7 S7"), cards("HQ HQ HK HK"), cards("S9 S9 S10 S10"), cards("C2 C3 C4 C5")]
# The same throw with one card more: S3 is beaten by every other hand's spades (R4.5: forced S3).
FAILING_THROW = cards("SA SA SK SQ SQ S8 S8 S7 S7 S4")


def seeded_hand(seed: int) -> list[tuple[int, list[tuple[int, ...]], dict[int, Hand], list[Hand]]]:
    """Self-play one seeded deal by auto-play, recording each trick (leader, plays, other hands, hands)."""
    rng = random.Random(seed)
    deck = [face for face in range(NUM_FACES) for _ in range(2)]
    rng.shuffle(deck)
    hands = [hand_of(deck[i * HAND_SIZE : (i + 1) * HAND_SIZE]) for i in range(4)]
    record = []
    leader = 0
    while sum(hands[leader]):
        lead = suggest_play(CTX, hand=hands[leader])  # auto-play leads singles: 25 tricks, 100 plays
        verdict = check_lead(CTX, DEFAULT_RULES, hand=hands[leader], lead=lead, others={})
        assert isinstance(verdict, Legal)
        plays = [lead]
        for offset in (1, 2, 3):
            plays.append(suggest_play(CTX, hand=hands[(leader + offset) % 4], lead=lead))
        record.append((leader, plays, {s: hands[s] for s in range(4) if s != leader}, list(hands)))
        for offset, play in enumerate(plays):
            seat = (leader + offset) % 4
            hands[seat] = tuple(a - b for a, b in zip(hands[seat], hand_of(play), strict=True))
        leader = resolve_trick(CTX, DEFAULT_RULES, leader=leader, plays=plays, dealer=0).winner
    return record


def whole_hand(record: list[tuple[int, list[tuple[int, ...]], dict[int, Hand], list[Hand]]]) -> int:
    """Validate every play of a recorded hand, resolve every trick, settle: what an audit costs."""
    score = 0
    for i, (leader, plays, others, hands) in enumerate(record):
        check_lead(CTX, DEFAULT_RULES, hand=hands[leader], lead=plays[0], others=others)
        for offset in (1, 2, 3):
            seat = (leader + offset) % 4
            check_follow(CTX, hand=hands[seat], lead=plays[0], play=plays[offset])
        result = resolve_trick(
            CTX, DEFAULT_RULES, leader=leader, plays=plays, dealer=0, last=i == len(record) - 1
        )
        score += result.attacker_points
    settle_hand(rules=DEFAULT_RULES, dealer_seat=0, dealer_level=5, attacker_level=2, score=score)
    return score


def seeded_positions(seed: int, count: int) -> dict[str, list[Callable[[], object]]]:
    """Calls on random deals, ``count`` of each kind: throws that succeed and that fail (a random part of
    one category of the leader's hand, of two or more components), a legal follow, a trick of legal plays.
    The kinds and the generator are those of the comparison with the peer in loadtest/README.md."""
    rng = random.Random(seed)
    deck = [face for face in range(NUM_FACES) for _ in range(2)]
    found: dict[str, list[Callable[[], object]]] = {
        "throw ok": [],
        "throw failing": [],
        "follow": [],
        "trick": [],
    }
    contexts = [trump_context(5, Suit.H), trump_context(2, Suit.S), trump_context(10, Suit.D)]
    contexts += [trump_context(14, None), trump_context(7, Suit.C)]
    while min(len(calls) for calls in found.values()) < count:
        ctx = rng.choice(contexts)
        rng.shuffle(deck)
        hands = [hand_of(deck[i * HAND_SIZE : (i + 1) * HAND_SIZE]) for i in range(4)]
        leader = rng.randrange(4)
        hand, others = hands[leader], {s: hands[s] for s in range(4) if s != leader}
        by_category: dict[int, list[int]] = {}
        for face in range(NUM_FACES):
            by_category.setdefault(ctx.category[face], []).extend([face] * hand[face])
        pool = rng.choice([faces for faces in by_category.values() if len(faces) >= 3] or [[0]])
        lead = tuple(rng.sample(pool, rng.randint(min(2, len(pool)), len(pool))))
        if len(pool) >= 3 and len(decompose(ctx, lead).components) >= 2:
            verdict = check_lead(ctx, DEFAULT_RULES, hand=hand, lead=lead, others=others)
            assert isinstance(verdict, Legal) and verdict.throw is not None
            found["throw ok" if verdict.throw.succeeded else "throw failing"].append(
                partial(check_lead, ctx, DEFAULT_RULES, hand=hand, lead=lead, others=others)
            )
        first = rng.choice(legal_plays(ctx, hand=hand, limit=200).plays)
        plays = [first]
        for offset in (1, 2, 3):
            seat = (leader + offset) % 4
            plays.append(rng.choice(legal_plays(ctx, hand=hands[seat], lead=first, limit=50).plays))
        follower = hands[(leader + 1) % 4]
        found["follow"].append(partial(check_follow, ctx, hand=follower, lead=first, play=plays[1]))
        found["trick"].append(
            partial(resolve_trick, ctx, DEFAULT_RULES, leader=leader, plays=plays, dealer=0)
        )
    return {kind: calls[:count] for kind, calls in found.items()}


def adversarial(ctx: TrumpContext) -> list[tuple[str, Callable[[], object]]]:
    """The costliest inputs of legal size we know (found by random search), each as a ready call."""
    trump_faces = list(ctx.faces[4])  # 18 trump faces at L=5, T=H
    big_throw = (*(f for f in trump_faces[:12] for _ in (0, 1)), trump_faces[12])  # 25 cards, 12 pairs
    leader = hand_of(big_throw)
    rest = [f for f in range(NUM_FACES) for _ in range(2 - leader[f])]
    others = {s: hand_of(rest[(s - 1) * 25 : s * 25]) for s in (1, 2, 3)}
    everyone = [
        big_throw,
        *(tuple(f for f in range(NUM_FACES) for _ in range(others[s][f])) for s in (1, 2, 3)),
    ]
    four_tractors = cards("BJ BJ SJ SJ HK HK HQ HQ H9 H9 H8 H8 H4 H4 H3 H3")  # four 2-tractors in trumps
    ten_pairs = hand("H5 H5 S5 S5 C5 C5 D5 D5 HA HA HJ HJ H10 H10 H7 H7 H6 H6 H2 H2 SA SK SQ D2 D3")
    eight_pairs = cards("H5 H5 S5 S5 C5 C5 D5 D5 HA HA HJ HJ H10 H10 H7 H7")
    spade_tractors = decompose(CTX_2H, cards("SA SA SK SK SJack SJack S10 S10 S8 S8 S7 S7 S4 S4 S3 S3"))
    long_ruff = cards("BJ BJ SJ SJ H2 H2 S2 S2 HA HA HK HK HQ HQ HJ HJ")
    all_trumps = hand_of([*[f for f in trump_faces for _ in (0, 1)][:24], ctx.faces[0][0]])
    cases: list[tuple[str, Callable[[], object]]] = [
        (
            "25-card trump throw of 12 pairs vs 3 hands",
            lambda: check_lead(ctx, RULEBOOK_000, hand=leader, lead=big_throw, others=others),
        ),
        (
            "follow four 2-tractors holding ten trump pairs",
            lambda: check_follow(ctx, hand=ten_pairs, lead=four_tractors, play=eight_pairs),
        ),
        (
            "ruff four 2-tractors with an 8-pair run (cover search)",
            lambda: ruff_key(CTX_2H, DEFAULT_RULES, spade_tractors, long_ruff),
        ),
        (
            "list follows of four 2-tractors (ten pairs held)",
            lambda: legal_plays(ctx, hand=ten_pairs, lead=four_tractors, limit=1000),
        ),
        ("list leads of a 24-trump hand", lambda: legal_plays(ctx, hand=all_trumps, limit=1000)),
        ("auto-play a follow of a 25-card throw", lambda: suggest_play(ctx, hand=others[1], lead=big_throw)),
        (
            "resolve a 25-card trick",
            lambda: resolve_trick(ctx, DEFAULT_RULES, leader=0, plays=everyone, dealer=0),
        ),
    ]
    return cases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--strict", action="store_true", help="exit 1 when a median misses its target")
    parser.add_argument("--json", action="store_true", help="print the medians as one JSON object instead")
    parser.add_argument(
        "--cpu-time", action="store_true", help="time this process's CPU, not the wall clock (busy machines)"
    )
    parser.add_argument(
        "--engines", action="store_true", help="pure vs compiled engine side by side (loadtest.bench_engines)"
    )
    parser.add_argument(
        "--against", metavar="REV", help="this tree against an earlier commit (loadtest.bench_ab)"
    )
    args = parser.parse_args()
    if args.engines:
        from loadtest import bench_engines  # noqa: PLC0415

        return bench_engines.main([])
    if args.against:
        from loadtest import bench_ab  # noqa: PLC0415

        return bench_ab.main(["--against", args.against])
    clock = time.process_time if args.cpu_time else time.perf_counter
    measure = functools.partial(median_micros, clock=clock)
    quick = functools.partial(quick_micros, clock=clock)
    two = cards("SA SK")
    baseline = measure(lambda: contains(FOLLOWER, two))
    record = seeded_hand(7)
    validations = sum(len(r[1]) for r in record)
    figures = [
        Figure(
            "follow a tractor lead, 25-card hand",
            measure(lambda: check_follow(CTX, hand=FOLLOWER, lead=TRACTOR_LEAD, play=TRACTOR_FOLLOW)),
            15,
        ),
        Figure(
            "succeeding throw lead vs three 25-card hands",
            measure(lambda: check_lead(CTX, DEFAULT_RULES, hand=LEADER, lead=THROW, others=OTHERS)),
            40,
        ),
        Figure(
            "failing throw lead vs three 25-card hands (R4.5: S4 forced)",
            measure(lambda: check_lead(CTX, DEFAULT_RULES, hand=LEADER, lead=FAILING_THROW, others=OTHERS)),
            40,
        ),
        Figure(
            "resolve a trick",
            measure(lambda: resolve_trick(CTX, DEFAULT_RULES, leader=0, plays=TRICK, dealer=0)),
            25,
        ),
        Figure(
            f"whole seeded hand ({validations} validations, {len(record)} tricks, 1 settlement)",
            measure(lambda: whole_hand(record), repeat=5),
            5000,
        ),
    ]
    seeded = [
        Figure(
            f"seeded {kind} (median of {len(calls)} random positions)",
            median(quick(call) for call in calls),
            target,
        )
        for (kind, calls), target in zip(
            seeded_positions(20260301, 25).items(), (40, 40, 15, 25), strict=True
        )
    ]
    worst = [Figure(name, measure(call, repeat=3, budget=0.05), 1000) for name, call in adversarial(CTX)]
    if args.json:
        print(
            json.dumps(
                {"baseline (2-card hand membership)": baseline}
                | {f.name: f.micros for f in figures + seeded + worst}
            )
        )
        return 0
    print(f"baseline (2-card hand membership): {baseline:.2f} µs\n")
    print(f"{'measure':62} {'median µs':>10} {'× base':>8} {'target':>8}")
    missed = 0
    sections = (
        ("hot path", figures),
        ("seeded positions (the kinds compared with the peer in loadtest/README.md)", seeded),
        ("adversarial (worst inputs of legal size)", worst),
    )
    for section, rows in sections:
        print(f"-- {section}")
        for f in rows:
            ok = f.micros <= f.target
            missed += not ok
            verdict = "ok" if ok else "MISSED"
            print(f"{f.name:62} {f.micros:10.1f} {f.micros / baseline:8.1f} {f.target:8.0f} {verdict}")
    print(f"\nslowest adversarial input: {max(w.micros for w in worst):.0f} µs (target ≤ 1000 µs)")
    return 1 if missed and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
