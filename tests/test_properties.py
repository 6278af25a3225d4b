"""Property tests: random positions against a slow reference, and whole random hands played out (R3–R9).

The reference throw check applies R4.4–R4.6 to every component by brute force; the fast one
(``check_lead``) tests one component per grade and reads each hand only from its top down.

The reference follow checker below is the R5 procedure written literally: every choice it allows is
tried on concrete cards, filler included, and the set of plays it can produce *is* the legal set. The
fast checker (``check_follow``) and the generator (``legal_plays``) must agree with it exactly, and with
each other both ways: both are derived from one R5.3 procedure (``rules_core.obligations``).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from itertools import combinations, pairwise
from math import comb

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rules_core.autoplay import suggest_play
from rules_core.cards import (
    BOTTOM_SIZE,
    FULL_DECK,
    HAND_SIZE,
    NUM_FACES,
    TOTAL_POINTS,
    Hand,
    Suit,
    hand_of,
    parse_cards,
)
from rules_core.component import Component
from rules_core.follow import check_follow
from rules_core.kitty import check_bury
from rules_core.legal_plays import MAX_LIMIT, legal_plays
from rules_core.obligations import first_way, profile, structures
from rules_core.rules import DEFAULT_RULES, RULEBOOK_000, RULEBOOK_003, Rules, ThrowCheck
from rules_core.settlement import settle_hand
from rules_core.shapes import decompose
from rules_core.throw import check_lead
from rules_core.trick import Judgement, is_attacker, resolve_trick
from rules_core.trump import TrumpContext, trump_context
from rules_core.verdicts import Beat, Illegal, Legal, ThrowResult, Violation

contexts = st.builds(trump_context, st.integers(2, 14), st.sampled_from([*Suit, None]))
rulesets = st.sampled_from([DEFAULT_RULES, RULEBOOK_000, RULEBOOK_003])
DECK = [face for face in range(NUM_FACES) for _ in range(2)]


def _sub_multisets(cards: list[int], k: int) -> set[tuple[int, ...]]:
    return {tuple(sorted(c)) for c in combinations(sorted(cards), k)}


def _is_run(ctx: TrumpContext, faces: tuple[int, ...]) -> bool:
    strengths = sorted(ctx.strength[f] for f in faces)
    return all(b - a == 1 for a, b in pairwise(strengths))


def reference_follows(ctx: TrumpContext, hand: Hand, lead: tuple[int, ...]) -> set[tuple[int, ...]]:
    """Every play R5.1–R5.3 can produce, by brute force over concrete cards."""
    return _reference(ctx, hand, lead)[0]


def reference_obligations(ctx: TrumpContext, hand: Hand, lead: tuple[int, ...]) -> set[Violation]:
    """The kinds of structure some run of the literal R5.3 procedure owes: a tractor, pairs, or none."""
    return _reference(ctx, hand, lead)[1]


def _reference(
    ctx: TrumpContext, hand: Hand, lead: tuple[int, ...]
) -> tuple[set[tuple[int, ...]], set[Violation]]:
    category = ctx.category[lead[0]]
    n = len(lead)
    mine = [f for f in range(NUM_FACES) if ctx.category[f] == category for _ in range(hand[f])]
    rest = [f for f in range(NUM_FACES) if ctx.category[f] != category for _ in range(hand[f])]
    if len(mine) <= n:  # R5.2
        return {tuple(sorted(mine + list(extra))) for extra in _sub_multisets(rest, n - len(mine))}, set()
    steps = [c.pairs for c in decompose(ctx, lead).components if c.pairs >= 1]  # grade order (R5.3 rule 4)
    produced: set[tuple[int, ...]] = set()
    owes: set[Violation] = set()

    def go(i: int, left: Counter[int], chosen: list[int]) -> None:
        if i == len(steps):  # rule 4.5: fill with any remaining cards of the category
            for filler in _sub_multisets(list(left.elements()), n - len(chosen)):
                produced.add(tuple(sorted(chosen + list(filler))))
            return
        k = steps[i]
        pairs = sorted(f for f, c in left.items() if c == 2)
        if k >= 2:
            runs = [r for r in combinations(pairs, k) if _is_run(ctx, r)]
            options = runs or list(combinations(pairs, min(k, len(pairs))))
            padding = 0 if runs else 2 * (k - min(k, len(pairs)))
        else:
            options = [(p,) for p in pairs] or [()]
            padding = 0 if pairs else 2
        if pairs:
            owes.add(Violation.MUST_PLAY_TRACTOR if k >= 2 and runs else Violation.MUST_PLAY_PAIR)
        for option in options:
            after = left - Counter(f for f in option for _ in (0, 1))
            taken = [f for f in option for _ in (0, 1)]
            for extra in _sub_multisets(list(after.elements()), padding):  # rule 3: "the rest … any cards"
                go(i + 1, after - Counter(extra), chosen + taken + list(extra))

    go(0, Counter(mine), [])
    return produced, owes


@st.composite
def positions(draw: st.DrawFn) -> tuple[TrumpContext, Hand, tuple[int, ...]]:
    """A lead of one category (often with pairs and tractors) and a follower rich in that category."""
    ctx = draw(contexts)
    category = draw(st.sampled_from([c for c in range(5) if ctx.faces[c]]))
    faces = list(ctx.faces[category])  # strongest first: neighbours here are often adjacent rungs
    npairs = draw(st.integers(0, min(3, len(faces) - 1)))
    if draw(st.booleans()):
        start = draw(st.integers(0, len(faces) - npairs))
        paired = faces[start : start + npairs]
    else:
        paired = draw(st.permutations(faces))[:npairs]
    unpaired = [f for f in faces if f not in paired]
    singles = draw(st.permutations(unpaired))[: draw(st.integers(0 if npairs else 1, 2))]
    lead = tuple(sorted(paired * 2 + singles))
    left = Counter(DECK) - Counter(lead)
    mine: list[int] = []
    rich = draw(st.booleans())  # pairs wherever the lead left two: which pairs go where then matters
    for face in draw(st.permutations([f for f in faces if left[f]])):
        if len(mine) < 12:
            mine += [face] * (left[face] if rich else draw(st.integers(1, left[face])))
    low = 0 if draw(st.integers(0, 3)) == 0 else min(len(mine), len(lead) + 1)  # mostly owes structure
    mine = mine[: draw(st.integers(low, len(mine)))]
    others = sorted(f for f in (left - Counter(mine)).elements() if ctx.category[f] != category)
    least = max(0, len(lead) - len(mine))
    extra = draw(st.permutations(others))[: draw(st.integers(least, least + 3))]
    return ctx, hand_of(mine + extra), lead


@given(positions())
@settings(max_examples=1000)
def test_fast_follow_check_matches_reference(position: tuple[TrumpContext, Hand, tuple[int, ...]]) -> None:
    ctx, hand, lead = position
    legal, owes = _reference(ctx, hand, lead)
    cards = [f for f in range(NUM_FACES) for _ in range(hand[f])]
    accepted: set[tuple[int, ...]] = set()
    for play in _sub_multisets(cards, len(lead)):
        verdict = check_follow(ctx, hand=hand, lead=lead, play=play)
        assert isinstance(verdict, Legal) == (play in legal), (lead, play, verdict)
        if isinstance(verdict, Legal):
            accepted.add(play)
        else:
            _assert_names_an_obligation(verdict, owes, legal)
    listing = legal_plays(ctx, hand=hand, lead=lead, limit=1000)
    assert listing.truncated or set(listing.plays) == legal
    _assert_listing_matches_check(ctx, hand, lead, accepted)


def _assert_names_an_obligation(verdict: Illegal, owes: set[Violation], legal: set[tuple[int, ...]]) -> None:
    """An R5.3 rejection names a kind of structure the procedure owes, and its example can be played."""
    if verdict.reason in (Violation.MUST_PLAY_PAIR, Violation.MUST_PLAY_TRACTOR):
        assert verdict.reason in owes, (verdict, owes)
        owed = Counter(face for component in verdict.required for face in component.cards)
        assert all(c.pairs >= 1 for c in verdict.required)  # only pairs and tractors are owed
        assert any(owed <= Counter(play) for play in legal), verdict  # the example, plus filler, is legal
        if verdict.reason is Violation.MUST_PLAY_TRACTOR:
            assert any(c.pairs >= 2 for c in verdict.required)


def _assert_listing_matches_check(
    ctx: TrumpContext, hand: Hand, lead: tuple[int, ...], accepted: set[tuple[int, ...]] | None
) -> None:
    """Both directions: every listed follow passes the check, and every follow the check accepts is listed
    unless the listing says it is truncated (``accepted``: all of them, or None when too many to enumerate).
    """
    for limit in (MAX_LIMIT, 7, 1):
        listing = legal_plays(ctx, hand=hand, lead=lead, limit=limit)
        assert len(listing.plays) == len(set(listing.plays)) <= limit
        for play in listing.plays:
            assert isinstance(check_follow(ctx, hand=hand, lead=lead, play=play), Legal), (lead, play)
        if accepted is not None:
            assert listing.truncated or set(listing.plays) == accepted, (lead, limit)
    assert legal_plays(ctx, hand=hand, lead=lead, limit=1).plays[0] == suggest_play(ctx, hand=hand, lead=lead)


@st.composite
def dealt_positions(draw: st.DrawFn) -> tuple[TrumpContext, Hand, tuple[int, ...]]:
    """A follower's whole 25-card hand from a random deal, and a lead of one category from another hand:
    a single, a pair, a tractor, or a throw of up to four pairs or tractors and singles."""
    ctx = draw(contexts)
    rng = random.Random(draw(st.integers(0, 2**32)))
    deck = DECK[:]
    rng.shuffle(deck)
    leader, follower = hand_of(deck[:HAND_SIZE]), hand_of(deck[HAND_SIZE : 2 * HAND_SIZE])
    categories = [c for c in range(5) if any(leader[f] for f in ctx.faces[c])]
    category = draw(st.sampled_from(categories))
    pairs = [f for f in ctx.faces[category] if leader[f] == 2]
    singles = [f for f in ctx.faces[category] if leader[f]]
    paired = draw(st.permutations(pairs))[: draw(st.integers(0, min(4, len(pairs))))]
    if draw(st.booleans()) and pairs:  # a run of neighbouring pairs: often a tractor
        start = draw(st.integers(0, len(pairs) - 1))
        paired = pairs[start : start + draw(st.integers(1, 3))]
    loose = [f for f in singles if f not in paired]
    alone = draw(st.permutations(loose))[: draw(st.integers(0 if paired else 1, min(2, len(loose))))]
    return ctx, follower, tuple(sorted([*paired, *paired, *alone]))


@given(dealt_positions())
@settings(max_examples=300)
def test_listing_and_check_agree_both_ways(position: tuple[TrumpContext, Hand, tuple[int, ...]]) -> None:
    """The R5.3 procedure's two readings, on whole dealt hands: the listing by construction, the check
    by search. Each follow the check accepts is listed (or the listing says it stopped); each listed one
    passes."""
    ctx, hand, lead = position
    n, category = len(lead), ctx.category[lead[0]]
    mine = [f for f in range(NUM_FACES) if ctx.category[f] == category for _ in range(hand[f])]
    rest = [f for f in range(NUM_FACES) if ctx.category[f] != category for _ in range(hand[f])]
    if len(mine) > n:  # R5.2: every follow is n cards of the category
        candidates = _sub_multisets(mine, n)
    elif comb(len(rest), n - len(mine)) <= 5000:  # all of the category, and any filler
        candidates = {tuple(sorted(mine + list(extra))) for extra in _sub_multisets(rest, n - len(mine))}
    else:
        candidates = None
    accepted = None
    if candidates is not None:
        verdicts = {play: check_follow(ctx, hand=hand, lead=lead, play=play) for play in candidates}
        accepted = {play for play, verdict in verdicts.items() if isinstance(verdict, Legal)}
        assert accepted, "a follower always has a legal play"
        for verdict in verdicts.values():
            if isinstance(verdict, Illegal) and verdict.reason is not Violation.MUST_FOLLOW_SUIT:
                assert verdict.reason in (Violation.MUST_PLAY_PAIR, Violation.MUST_PLAY_TRACTOR)
                owed = Counter(face for component in verdict.required for face in component.cards)
                assert any(owed <= Counter(play) for play in accepted), verdict
    _assert_listing_matches_check(ctx, hand, lead, accepted)


def test_the_example_owed_is_the_procedures_first_strongest_way() -> None:
    """``first_way`` is what ``structures`` yields first, without the search (R5.3, for messages)."""
    rng = random.Random(11)
    for _ in range(300):
        ctx = trump_context(rng.randint(2, 14), rng.choice([*Suit, None]))
        category = rng.randrange(5)
        faces = list(ctx.faces[category])
        pairs = rng.sample(faces, rng.randint(0, min(8, len(faces))))
        pairs.sort(key=ctx.order.__getitem__, reverse=True)  # strongest first
        steps = tuple(sorted(rng.choices([1, 1, 2, 3], k=rng.randint(1, 4)), reverse=True))
        held = profile(ctx.rungs(category), (ctx.strength[f] for f in pairs))
        first = next(structures(ctx, steps, pairs))
        assert first_way(ctx, steps, held, pairs) == first
        assert all(len(way) == need.pairs for need, way in first)


def _deal(rng: random.Random) -> tuple[list[Hand], list[int]]:
    deck = DECK[:]
    rng.shuffle(deck)
    hands = [hand_of(deck[i * HAND_SIZE : (i + 1) * HAND_SIZE]) for i in range(4)]
    return hands, deck[4 * HAND_SIZE :]


def _play_hand(ctx: TrumpContext, rules: Rules, rng: random.Random) -> Iterator[tuple[str, object]]:
    """Play one whole random hand with the engine's own enumeration, checking invariants as it goes."""
    hands, bottom = _deal(rng)
    dealer = rng.randrange(4)
    big = hand_of([*bottom, *(f for f in range(NUM_FACES) for _ in range(hands[dealer][f]))])
    buried = rng.sample([f for f in range(NUM_FACES) for _ in range(big[f])], BOTTOM_SIZE)
    bury = check_bury(hand=big, bury=buried)
    assert bury.legal and bury.remaining is not None
    hands[dealer] = bury.remaining
    leader, score, taken = dealer, 0, 0
    while sum(hands[leader]):
        leads = legal_plays(ctx, hand=hands[leader], limit=1000).plays
        attempt = rng.choice(leads)
        others = {s: hands[s] for s in range(4) if s != leader}
        verdict = check_lead(ctx, rules, hand=hands[leader], lead=attempt, others=others)
        assert isinstance(verdict, Legal), verdict
        lead = verdict.throw.led if verdict.throw else attempt
        plays = [lead]
        for offset in (1, 2, 3):
            seat = (leader + offset) % 4
            options = legal_plays(ctx, hand=hands[seat], lead=lead, limit=30)
            assert options.plays, "a follower always has a legal play"
            for option in options.plays[:5]:
                assert isinstance(check_follow(ctx, hand=hands[seat], lead=lead, play=option), Legal)
            plays.append(rng.choice(options.plays))
        for offset, play in enumerate(plays):
            seat = (leader + offset) % 4
            hands[seat] = tuple(c - d for c, d in zip(hands[seat], hand_of(play), strict=True))
            assert min(hands[seat]) >= 0
        last = sum(hands[leader]) == 0  # R8.3: the trick that empties every hand
        result = resolve_trick(
            ctx, rules, leader=leader, plays=plays, dealer=dealer, last=last, bottom=buried
        )
        assert 0 <= result.winner < 4
        assert result.won_by in {Judgement.LEAD, Judgement.BEAT, Judgement.RUFF, Judgement.OVER_RUFF}
        assert sum(j is result.won_by for j in result.judgements) >= 1
        taken += result.points
        score += result.attacker_points
        if last and result.dig is not None:
            taken += result.dig.bottom_points
            assert (result.dig.multiplier is None) == (not is_attacker(result.winner, dealer))
        leader = result.winner
    assert all(sum(h) == 0 for h in hands), "every hand empties in the same trick"
    assert taken == TOTAL_POINTS, "the 200 points are all in tricks or the bottom"
    assert score % 5 == 0 and score >= 0
    yield "score", score
    yield "dealer", dealer


@given(st.integers(0, 2**32), contexts, rulesets)
@settings(max_examples=60)
def test_random_hands_play_to_the_end(seed: int, ctx: TrumpContext, rules: Rules) -> None:
    facts = dict(_play_hand(ctx, rules, random.Random(seed)))
    score, dealer = facts["score"], facts["dealer"]
    assert isinstance(score, int) and isinstance(dealer, int)
    here = settle_hand(rules=rules, dealer_seat=dealer, dealer_level=ctx.level, attacker_level=2, score=score)
    better = settle_hand(
        rules=rules, dealer_seat=dealer, dealer_level=ctx.level, attacker_level=2, score=score + 5
    )
    if here.winner_side == better.winner_side and not here.game_over:
        assert (better.g <= here.g) if here.take_over is False else (better.g >= here.g)


def test_full_deck_constant() -> None:
    assert sum(FULL_DECK) == len(DECK) == 108


def _cards(names: str) -> list[int]:
    return list(parse_cards(names.split()))


def test_follow_search_tries_every_tractor_choice() -> None:
    """R5.3 rule 4: taking SK SQ SJack for the 3-tractor leaves no 2-tractor owed, so SA + S5 may pair up.

    Taking SA SK SQ first would leave SJack S10 owed; the play is legal because *some* choice produces it.
    """
    ctx = trump_context(2, Suit.H)
    lead = tuple(_cards("S8 S8 S7 S7 S6 S6 S4 S4 S3 S3"))
    hand = hand_of(_cards("SA SA SK SK SQ SQ SJack SJack S10 S10 S5 S5 D3 D4"))
    play = tuple(_cards("SA SA SK SK SQ SQ SJack SJack S5 S5"))
    assert tuple(sorted(play)) in reference_follows(ctx, hand, lead)
    assert isinstance(check_follow(ctx, hand=hand, lead=lead, play=play), Legal)
    short = tuple(_cards("SA SA SK SK SQ SQ S10 S10 S5 S5"))  # no tractor choice leaves this possible
    assert tuple(sorted(short)) not in reference_follows(ctx, hand, lead)
    assert not isinstance(check_follow(ctx, hand=hand, lead=lead, play=short), Legal)


def test_follow_search_tries_every_pair_choice() -> None:
    """R5.3 rule 3 then 4: with no 3-tractor held, which 3 pairs go first decides what is owed next."""
    ctx = trump_context(2, Suit.H)
    lead = tuple(_cards("S8 S8 S7 S7 S6 S6 S4 S4 S3 S3"))
    hand = hand_of(_cards("SA SA SK SK S10 S10 S9 S9 SJack SJack S5 S5 D3"))
    legal = reference_follows(ctx, hand, lead)
    cards = [f for f in range(NUM_FACES) for _ in range(hand[f])]
    verdicts = {
        p: isinstance(check_follow(ctx, hand=hand, lead=lead, play=p), Legal)
        for p in _sub_multisets(cards, len(lead))
    }
    assert {p for p, ok in verdicts.items() if ok} == legal
    assert 0 < len(legal) < len(verdicts)


def test_follow_search_tries_a_stronger_tractor_when_the_weakest_fails() -> None:
    """R5.3 rule 4: taking C5 C4 for the first 2-tractor leaves C7 C6 owed; taking C6 C5 leaves no run, so
    C4 + C9 may follow as pairs. The play is legal because *some* choice produces it."""
    ctx = trump_context(11, None)
    lead = tuple(_cards("CK CK CQ CQ C3 C3 C2 C2"))
    hand = hand_of(_cards("C4 C4 C5 C5 C6 C6 C7 C7 C9 C9 D3"))
    play = tuple(sorted(_cards("C4 C4 C5 C5 C6 C6 C9 C9")))
    assert play in reference_follows(ctx, hand, lead)
    assert isinstance(check_follow(ctx, hand=hand, lead=lead, play=play), Legal)
    assert play in legal_plays(ctx, hand=hand, lead=lead, limit=MAX_LIMIT).plays


def _beats_literally(ctx: TrumpContext, hand: Hand, component: Component) -> tuple[int, ...]:
    """R4.4 by brute force: every single, pair or k-run of pairs the hand holds in the component's
    category that is strictly stronger; of those, the strongest (top rung, then suit order on each
    rung), as cards. () when none beats."""
    category = ctx.category[component.cards[0]]
    held = [f for f in range(NUM_FACES) if ctx.category[f] == category and hand[f]]
    units = [f for f in held if hand[f] == 2] if component.pairs else held
    k = max(component.pairs, 1)
    beating = [
        way
        for way in combinations(units, k)
        if (k == 1 or _is_run(ctx, way)) and max(ctx.strength[f] for f in way) > component.top
    ]
    if not beating:
        return ()
    best = max(beating, key=lambda way: sorted((ctx.order[f] for f in way), reverse=True))
    faces = sorted(best, key=ctx.order.__getitem__, reverse=True)
    return tuple(f for face in faces for f in [face] * (2 if component.pairs else 1))


def reference_throw(
    ctx: TrumpContext, rules: Rules, lead: tuple[int, ...], others: dict[int, Hand]
) -> ThrowResult:
    """R4.4–R4.7 as written: THROW-000 checks the weakest component of each grade, top grade first;
    THROW-003 finds every beaten single and pair and forces the weakest pair, else the weakest single."""
    components = decompose(ctx, lead).components

    def weakest(group: list[Component]) -> Component:
        return min(group, key=lambda c: (c.top, c.order))

    def beaten(component: Component) -> bool:
        return any(_beats_literally(ctx, hand, component) for hand in others.values())

    forced = None
    if rules.throw is ThrowCheck.TOP_DOWN:
        for grade in sorted({c.pairs for c in components}, reverse=True):
            if beaten(m := weakest([c for c in components if c.pairs == grade])):
                forced = m
                break
    else:
        found = [c for c in components if c.pairs <= 1 and beaten(c)]
        pairs = [c for c in found if c.pairs == 1]
        forced = weakest(pairs or found) if found else None
    if forced is None:
        return ThrowResult(True, tuple(f for c in components for f in c.cards), None, (), ())
    evidence = tuple(
        Beat(seat, forced, cards)
        for seat, hand in sorted(others.items())
        if (cards := _beats_literally(ctx, hand, forced))
    )
    returned = tuple(f for c in components if c is not forced for f in c.cards)
    return ThrowResult(False, forced.cards, forced, returned, evidence)


@st.composite
def throw_positions(draw: st.DrawFn) -> tuple[TrumpContext, Hand, tuple[int, ...], dict[int, Hand]]:
    """A throw of several components from one category, the category's other cards spread over three
    hands; both copies of a face often go to one hand, so the others hold pairs and tractors."""
    ctx = draw(contexts)
    category = draw(st.sampled_from([c for c in range(5) if len(ctx.faces[c]) >= 2]))
    owners: list[list[int]] = [[], [], [], []]
    for face in ctx.faces[category]:
        first = draw(st.integers(0, 3))
        owners[first].append(face)
        owners[first if draw(st.integers(0, 2)) else draw(st.integers(0, 3))].append(face)
    mine = owners[0]
    assume(len(mine) >= 2)
    size = draw(st.integers(2, len(mine)))
    lead = tuple(sorted(draw(st.permutations(mine))[:size]))
    return ctx, hand_of(mine), lead, {seat: hand_of(owners[seat]) for seat in (1, 2, 3)}


@given(throw_positions(), rulesets)
@settings(max_examples=400)
def test_throw_check_matches_the_literal_rule(
    position: tuple[TrumpContext, Hand, tuple[int, ...], dict[int, Hand]], rules: Rules
) -> None:
    """R4.4–R4.7: the fast check (each grade's weakest component, hands read from the top down) gives
    the same outcome, forced component and evidence as the rule applied to every component."""
    ctx, hand, lead, others = position
    verdict = check_lead(ctx, rules, hand=hand, lead=lead, others=others)
    assert isinstance(verdict, Legal)
    if len(verdict.play.components) > 1:
        assert verdict.throw == reference_throw(ctx, rules, lead, others)
