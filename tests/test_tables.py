"""Tables of three and four decks (R14): the engine against brute force on random positions.

The reference follow check is R14.6 written literally on concrete cards: every choice of every ladder
rung is tried from the follower's hand, and a play is legal exactly when it holds the cards some path
took (the rest is filler). The reference trick tries every mapping of a ruff onto the lead's format
(R14.7) and the literal R14.8 format test. On two decks the wide functions must agree with the two-deck
engine, which is how R14 says it reduces to R3–R8.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from itertools import combinations, pairwise

import pytest

from rules_core.cards import NUM_FACES, Deck, Suit, check_copies, deal_sizes, hand_of, parse_cards
from rules_core.component import grade
from rules_core.errors import InvalidArgumentError
from rules_core.follow import MAX_WORK, _Search, check_follow, follow_verdict
from rules_core.kitty import validate_bury
from rules_core.ruffing import ruff_key
from rules_core.rules import (
    DEFAULT_RULES,
    DigMultiplier,
    DigShape,
    FollowRule,
    JackRule,
    Partners,
    RuffStructure,
    Rules,
    ThrowCheck,
    ThrowPenalty,
    ThrowRuffCompare,
)
from rules_core.settlement import settle_hand
from rules_core.shapes import Decomposition, decompose
from rules_core.throw import judge_throw
from rules_core.trick import resolve_trick
from rules_core.trump import TRUMP, TrumpContext, trump_context
from rules_core.verdicts import Illegal, Violation

Unit = tuple[int, ...]
REF_LADDER = {
    2: [[(2, 1)]],
    3: [[(3, 1)], [(2, 1)]],
    4: [[(4, 1)], [(3, 1)], [(2, 2)], [(2, 1), (2, 1)], [(2, 1)]],
}
"""R14.6's ladders as RULES.md writes them (an independent transcription of ``tuples.LADDER``)."""


def _units(ctx: TrumpContext, cards: Counter[int], w: int, k: int) -> list[Unit]:
    """Every (w, k) unit in ``cards``: k faces held ≥ w times on k distinct consecutive rungs."""
    faces = [f for f, c in cards.items() if c >= w]
    found = []
    for chosen in combinations(sorted(faces), k):
        strengths = sorted(ctx.strength[f] for f in chosen)
        if all(b - a == 1 for a, b in pairwise(strengths)):
            found.append(tuple(sorted(f for f in chosen for _ in range(w))))
    return found


def _rung_ways(ctx: TrumpContext, cards: Counter[int], rung: list[tuple[int, int]]) -> list[Unit]:
    """Every way of taking all the units of a ladder rung from ``cards``, without overlap."""
    if not rung:
        return [()]
    ways = []
    for unit in _units(ctx, cards, *rung[0]):
        for more in _rung_ways(ctx, cards - Counter(unit), rung[1:]):
            ways.append(tuple(sorted(unit + more)))
    return ways


def reference_taken(ctx: TrumpContext, own: Counter[int], led: Decomposition) -> set[Unit]:
    """What each path of the R14.6 procedure takes from the follower's cards of the category."""
    found: set[Unit] = set()

    def walk(pending: list[tuple[int, int]], left: Counter[int], taken: Unit) -> None:
        if not pending:
            found.add(tuple(sorted(taken)))
            return
        (w, k), rest = pending[0], pending[1:]
        if k >= 2:
            units = _units(ctx, left, w, k)
            if not units:
                walk([(w, 1)] * k + rest, left, taken)
            for unit in units:
                walk(rest, left - Counter(unit), taken + unit)
            return
        for rung in REF_LADDER[w]:
            ways = _rung_ways(ctx, left, rung)
            if ways:
                for way in ways:
                    walk(rest, left - Counter(way), taken + way)
                return
        walk(rest, left, taken)

    walk([grade(c) for c in led.components if c.pairs >= 1], own, ())
    return found


def random_rules(
    rng: random.Random,
    decks: int,
    seats: int,
    *,
    compares: tuple[ThrowRuffCompare, ...] = tuple(ThrowRuffCompare),
) -> Rules:
    """A random valid ruleset of this table (issue 25: the checks run with options, not only the defaults):
    every play option (THROW, RUFF, FOLLOW, THROW-RUFF, DIG, DIG-SHAPE), partners, and options that must
    not change a play (JACK, THROW-PENALTY). RUFF-COUNT and the unit-by-unit THROW-RUFF readings only on
    two decks (R14.7, R16.7), never together; an odd table finds friends (R15.1)."""
    ruff = rng.choice(list(RuffStructure)) if decks == 2 else RuffStructure.COVER
    by_units = decks == 2 and ruff is RuffStructure.COVER
    allowed = [c for c in compares if by_units or c in READ_AS_ONE]
    return Rules(
        throw=rng.choice(list(ThrowCheck)),
        ruff=ruff,
        follow=rng.choice(list(FollowRule)),
        throw_ruff_compare=rng.choice(allowed),
        dig_multiplier=rng.choice(list(DigMultiplier)),
        dig_shape=rng.choice(list(DigShape)),
        jack_rule=rng.choice(list(JackRule)),
        throw_penalty=rng.choice(list(ThrowPenalty)),
        decks=decks,
        seats=seats,
        partners=Partners.FRIENDS if seats % 2 else rng.choice(list(Partners)),
    )


READ_AS_ONE = (ThrowRuffCompare.R6_6, ThrowRuffCompare.HIGHEST)
"""R16.7's comparisons that need no reading of the ruff unit by unit (the only ones RUFF-COUNT allows)."""


def _deal_category(rng: random.Random, decks: int, faces: list[int], size: int) -> Counter[int]:
    """``size`` cards from a few adjacent faces, heaped so that tuples and tractors are common."""
    cards: Counter[int] = Counter()
    assert size <= decks * len(faces)
    while sum(cards.values()) < size:
        face = rng.choice(faces)
        if cards[face] < decks:
            cards[face] += 1
    return cards


def _position(rng: random.Random, decks: int) -> tuple[TrumpContext, Counter[int], tuple[int, ...]]:
    ctx = trump_context(rng.randint(2, 14), rng.choice([Suit.H, Suit.D, None]))
    category = rng.choice([0, TRUMP])
    window = list(ctx.faces[category])
    start = rng.randrange(max(1, len(window) - 5))
    faces = window[start : start + 5]
    total = _deal_category(rng, decks, faces, rng.randint(6, min(11, decks * len(faces))))
    lead_size = rng.randint(2, min(6, sum(total.values()) - 1))
    lead: list[int] = []
    for face in rng.sample(list(total.elements()), lead_size):
        lead.append(face)
    hand = total - Counter(lead)
    return ctx, hand, tuple(sorted(lead))


@pytest.mark.parametrize("decks", [3, 4])
def test_follow_check_matches_the_literal_ladder(decks: int) -> None:
    """R14.6: on random D-deck positions every play of the category is legal exactly when brute force says."""
    rng = random.Random(1400 + decks)
    checked = illegal = 0
    for _ in range(400):
        ctx, own, lead = _position(rng, decks)
        led = decompose(ctx, lead)
        n = len(lead)
        if sum(own.values()) <= n or led.category is None:
            continue
        hand = tuple(own[f] for f in range(NUM_FACES))
        taken = reference_taken(ctx, own, led)
        for play in {tuple(sorted(p)) for p in combinations(sorted(own.elements()), n)}:
            expected = any(Counter(t) <= Counter(play) for t in taken)
            verdict = check_follow(ctx, hand=hand, lead=lead, play=play, decks=decks)
            assert verdict.__class__.__name__ == ("Legal" if expected else "Illegal"), (ctx.level, lead, play)
            if isinstance(verdict, Illegal):  # the example owed is one way the procedure can go
                assert tuple(sorted(f for c in verdict.required for f in c.cards)) in taken
            checked += 1
            illegal += not expected
    assert checked > 1000
    assert illegal > 100


@pytest.mark.parametrize("decks", [2, 3, 4])
def test_follow_check_with_random_options_matches_the_literal_ladder(decks: int) -> None:
    """R14.6 and R16.3 under random options: with one off-category card in the hand, a play holding it is
    illegal (the hand can follow suit, R5.1); any other play is legal exactly when the ladder says
    (FOLLOW-STRUCTURE) or always (FOLLOW-SUIT-ONLY, only the count and the category); no other option
    changes a follow."""
    rng = random.Random(1600 + decks)
    checked = dict.fromkeys(FollowRule, 0)
    for _ in range(250):
        ctx, own, lead = _position(rng, decks)
        led = decompose(ctx, lead)
        n = len(lead)
        if sum(own.values()) <= n or led.category is None:
            continue
        rules = random_rules(rng, decks, rng.choice([4, 5, 6]))
        other = next(f for f in range(NUM_FACES) if ctx.category[f] != led.category)
        hand = Counter(own) + Counter({other: 1})
        taken = reference_taken(ctx, own, led)
        for play in {tuple(sorted(p)) for p in combinations(sorted(hand.elements()), n)}:
            if other in play:
                expected = False
            elif rules.follow is FollowRule.SUIT_ONLY:
                expected = True
            else:
                expected = any(Counter(t) <= Counter(play) for t in taken)
            verdict = follow_verdict(
                ctx,
                rules,
                hand=hand_of(hand.elements(), decks),
                led=led,
                play=play,
                shape=decompose(ctx, play),
            )
            assert isinstance(verdict, Illegal) is not expected, (rules, ctx.level, lead, play, verdict)
            checked[rules.follow] += 1
    assert min(checked.values()) > 500, checked


def reference_ruff_key(ctx: TrumpContext, lead: Decomposition, play: tuple[int, ...]) -> int:
    """R14.7 by brute force: every assignment of ruff units to the lead's components; -1 if none fits."""
    if any(ctx.category[f] != TRUMP for f in play):
        return -1
    if lead.components[0].pairs == 0:
        return max(ctx.strength[f] for f in play)
    needs = [grade(c) for c in lead.components if c.pairs >= 1]
    best = -1
    fits = False

    def assign(i: int, left: Counter[int], key: int) -> None:
        nonlocal best, fits
        if i == len(needs):
            fits = True
            best = max(best, key)
            return
        for unit in _units(ctx, left, *needs[i]):
            top = max(ctx.strength[f] for f in unit)
            assign(i + 1, left - Counter(unit), max(key, top) if needs[i] == needs[0] else key)

    assign(0, Counter(play), -1)
    return best if fits else -1


def reference_winner(ctx: TrumpContext, plays: list[tuple[int, ...]], rules: Rules = DEFAULT_RULES) -> int:
    """R7.1 with R14.8 literally: the format test on the cards, the ruff key by brute force; a later
    ruff of a throw under THROW-RUFF HIGHEST by its strongest card (R16.7)."""
    lead = decompose(ctx, plays[0])
    highest = rules.throw_ruff_compare is ThrowRuffCompare.HIGHEST and len(lead.components) > 1
    top = 0
    category = lead.category
    one = len(lead.components) == 1
    w, k = grade(lead.components[0])
    best, key, ruffed = 0, lead.components[0].top if one else 0, False
    for i, play in enumerate(plays[1:], start=1):
        counts = Counter(play)
        if all(ctx.category[f] == category for f in play):
            strengths = sorted(ctx.strength[f] for f in counts)
            same = (
                one
                and len(counts) == k
                and set(counts.values()) == {w}
                and all(b - a == 1 for a, b in pairwise(strengths))
            )
            if same and not ruffed and strengths[-1] > key:
                best, key = i, strengths[-1]
        elif category != TRUMP:
            ruff = reference_ruff_key(ctx, lead, play)
            strongest = max(ctx.strength[f] for f in play)
            beats = strongest > top if highest else ruff > key
            if ruff >= 0 and (not ruffed or beats):
                best, key, ruffed, top = i, ruff, True, strongest
    return best


def _trick(rng: random.Random, decks: int, seats: int) -> tuple[TrumpContext, list[tuple[int, ...]]]:
    ctx = trump_context(rng.randint(2, 14), rng.choice([Suit.H, Suit.C]))
    left = Counter(dict.fromkeys(range(NUM_FACES), decks))
    spades = list(ctx.faces[0])
    start = rng.randrange(len(spades) - 4)
    lead = _deal_category(rng, decks, spades[start : start + 4], rng.randint(1, 6))
    left -= lead
    plays = [tuple(sorted(lead.elements()))]
    n = len(plays[0])
    for _ in range(seats - 1):
        source = rng.choice([0, TRUMP, TRUMP, None])
        pool = [f for f in range(NUM_FACES) if left[f] and (source is None or ctx.category[f] == source)]
        window = rng.sample(pool, min(len(pool), 4))
        play: Counter[int] = Counter()
        for _ in range(200):
            if sum(play.values()) == n:
                break
            face = rng.choice(window if rng.random() < 0.8 else pool)
            if play[face] < left[face]:
                play[face] += 1
        if sum(play.values()) != n:
            play = Counter(rng.sample(list(left.elements()), n))
        left -= play
        plays.append(tuple(sorted(play.elements())))
    return ctx, plays


@pytest.mark.parametrize("options", ["default", "random"])
@pytest.mark.parametrize(("decks", "seats"), [(3, 5), (3, 6), (4, 8), (4, 4)])
def test_trick_winner_matches_every_mapping(decks: int, seats: int, options: str) -> None:
    """R14.7–R14.8: the winner of random N-play tricks is brute force's, ruffs mapped every way; with
    ``random`` options each trick under its own ruleset (R16.7's HIGHEST read literally as well)."""
    rng = random.Random(decks * 10 + seats)
    rules = Rules(decks=decks, seats=seats, partners=Partners.FRIENDS if seats % 2 else Partners.FIXED)
    ruffs = 0
    for _ in range(250):
        ctx, plays = _trick(rng, decks, seats)
        if options == "random":
            rules = random_rules(rng, decks, seats, compares=READ_AS_ONE)
        attackers = frozenset(range(1, seats, 2))
        result = resolve_trick(ctx, rules, leader=0, plays=plays, dealer=0, attackers=attackers)
        assert result.winner == reference_winner(ctx, plays, rules), (rules, plays)
        ruffs += result.won_by.name.endswith("RUFF")
    assert ruffs > 20


@pytest.mark.parametrize("options", ["default", "random"])
def test_two_decks_reduce_to_the_two_deck_engine(options: str) -> None:
    """R14: on cards of at most two copies the wide follow check and trick are R5 and R7 exactly; with
    ``random`` options on two decks and four seats, fixed partners or finding friends, every option
    (RUFF-COUNT, every THROW-RUFF, FOLLOW) is read as the two-deck engine reads it (issue 25)."""
    if options == "random":
        _two_decks_with_random_options(random.Random(25))
        return
    rng = random.Random(2)
    for _ in range(300):
        ctx, own, lead = _position(rng, 2)
        led = decompose(ctx, lead)
        if led.category is None or sum(own.values()) <= len(lead):
            continue
        hand = hand_of(own.elements())
        for play in list({tuple(sorted(p)) for p in combinations(sorted(own.elements()), len(lead))})[:30]:
            wide = check_follow(ctx, hand=hand, lead=lead, play=play, decks=3)  # the R14.6 ladder
            two = check_follow(ctx, hand=hand, lead=lead, play=play)  # R5.3
            assert type(wide) is type(two), (lead, play)
    for _ in range(300):
        ctx, plays = _trick(rng, 2, 4)
        sides = frozenset({0, 2})
        trick = resolve_trick(ctx, Rules(seats=4), leader=1, plays=plays, dealer=1, attackers=sides)
        known = resolve_trick(ctx, DEFAULT_RULES, leader=1, plays=plays, dealer=1)
        assert (trick.winner, trick.judgements, trick.attacker_points) == (
            known.winner,
            known.judgements,
            known.attacker_points,
        )


def _two_decks_with_random_options(rng: random.Random) -> None:
    """The wide follow and trick on the rulebooks' deck count, four seats, random options, against the
    two-deck engine under the same options with fixed partners."""
    differ = []
    for _ in range(300):
        ctx, own, lead = _position(rng, 2)
        led = decompose(ctx, lead)
        if led.category is None or sum(own.values()) <= len(lead):
            continue
        rules = random_rules(rng, 2, 4)
        hand = hand_of(own.elements())
        structure = rules.follow is FollowRule.STRUCTURE
        for play in sorted({tuple(sorted(p)) for p in combinations(sorted(own.elements()), len(lead))})[:30]:
            wide = check_follow(ctx, hand=hand, lead=lead, play=play, structure=structure, decks=3)  # R14.6
            two = check_follow(ctx, hand=hand, lead=lead, play=play, structure=structure)
            assert type(wide) is type(two), (rules, lead, play)
    for _ in range(600):
        ctx, plays = _trick(rng, 2, 4)
        rules = random_rules(rng, 2, 4)
        trick = resolve_trick(ctx, rules, leader=1, plays=plays, dealer=1, attackers=frozenset({0, 2}))
        fixed = dataclasses.replace(rules, partners=Partners.FIXED)
        known = resolve_trick(ctx, fixed, leader=1, plays=plays, dealer=1)
        if (trick.winner, trick.judgements) != (known.winner, known.judgements):
            differ.append(f"{rules.ruff.name} {rules.throw_ruff_compare.name} {rules.partners.name}: {plays}")
    assert not differ, f"{len(differ)} of 600 tricks differ:\n" + "\n".join(differ[:20])


def test_ruff_key_tries_every_mapping() -> None:
    """R14.7 (rbtying #397): a ruff whose greedy reading misses the lead's format still fits another way."""
    ctx = trump_context(5, Suit.H)
    lead = decompose(ctx, parse_cards(["S9", "S9", "S9", "S3"]))  # a triple and a single
    ruff = parse_cards(["HA", "HA", "HA", "HA"])  # a quadruple: a triple cut from it, the fourth card free
    assert ruff_key(ctx, DEFAULT_RULES, lead, ruff) == ctx.strength[parse_cards(["HA"])[0]]
    assert reference_ruff_key(ctx, lead, tuple(ruff)) == ruff_key(ctx, DEFAULT_RULES, lead, ruff)


def test_table_sizes_follow_the_stated_rule() -> None:
    """R14.2: every table's hands are equal, the bottom at least 5, and two decks four seats is R1.6."""
    assert deal_sizes(2, 4) == (25, 8)
    for decks in (2, 3, 4):
        for seats in range(4, 9):
            hand, bottom = deal_sizes(decks, seats)
            assert hand * seats + bottom == 54 * decks
            assert 5 <= bottom < 5 + seats


def test_copies_past_the_decks_are_refused() -> None:
    """R14.1: a fourth copy on three decks is INVALID_ARGUMENT naming where it appears."""
    counter = Deck(3)
    counter.add(parse_cards(["SA", "SA"]), "hand")
    with pytest.raises(InvalidArgumentError) as raised:
        counter.add(parse_cards(["SK", "SA", "SA"]), "lead")
    assert raised.value.argument == "lead[2]"
    with pytest.raises(InvalidArgumentError):
        check_copies([0] * 40, "hand", 3)


def test_ruff_count_is_two_deck_only() -> None:
    """R14.7: RUFF-COUNT counts pairs, so a three-deck ruleset with it is refused, naming ``ruff``."""
    with pytest.raises(InvalidArgumentError) as raised:
        Rules(decks=3, ruff=RuffStructure.COUNT)
    assert raised.value.argument == "ruff"


def _vector(cards: Counter[int]) -> tuple[int, ...]:
    return tuple(cards[f] for f in range(NUM_FACES))


def test_the_worst_four_deck_throws_stay_far_inside_the_work_ceiling() -> None:
    """R14.5–R14.7 (rbtying #411): six triple steps, three tractors against quadruples, and a ruff mapped
    onto six pairs each take a small fraction of MAX_WORK."""
    ctx = trump_context(5, Suit.C)
    hearts, trumps = list(ctx.faces[1]), list(ctx.faces[TRUMP])
    lead = Counter({hearts[i]: 3 for i in range(0, 12, 2)})  # six triples, none adjacent
    hand = Counter({hearts[i]: 4 for i in range(1, 12, 2)}) + Counter({hearts[i]: 1 for i in range(0, 12, 2)})
    play = Counter({hearts[i]: 3 for i in range(1, 12, 2)})
    led = decompose(ctx, tuple(lead.elements()))
    faces = [f for f in ctx.faces[1] if hand[f]]
    search = _Search(ctx, faces, [hand[f] for f in faces], [play[f] for f in faces])
    assert search.run(tuple(grade(c) for c in led.components)) is None
    assert search.work < MAX_WORK // 100
    throw = Counter({hearts[0]: 2, hearts[1]: 2, hearts[4]: 2, hearts[5]: 2, hearts[8]: 2, hearts[9]: 2})
    others = {1: _vector(Counter({hearts[2]: 4, hearts[3]: 4, hearts[6]: 2, hearts[7]: 2}))}
    outcome = judge_throw(ctx, DEFAULT_RULES, decompose(ctx, tuple(throw.elements())), others)
    assert outcome.forced is not None and outcome.forced.top == ctx.strength[hearts[8]]  # R14.5: the weakest
    pairs_and_singles = Counter({hearts[i]: 2 for i in range(0, 12, 2)}) + Counter(
        {hearts[i]: 1 for i in range(1, 12, 2)}
    )
    ruff = tuple(Counter({trumps[i]: 2 for i in range(9)}).elements())
    lead_decomposition = decompose(ctx, tuple(pairs_and_singles.elements()))
    expected = reference_ruff_key(ctx, lead_decomposition, ruff)
    assert ruff_key(ctx, DEFAULT_RULES, lead_decomposition, ruff) == expected


def test_bury_takes_the_tables_bottom() -> None:
    """R14.2 with R11.2: on three decks and five seats the dealer holds 31 + 7 and buries exactly 7."""
    rules = Rules(decks=3, seats=5, partners=Partners.FRIENDS)
    hand = list(range(38))
    assert validate_bury(rules, hand=hand, bury=hand[:7]).legal
    short = validate_bury(rules, hand=hand, bury=hand[:6])
    assert not short.legal and short.reason is Violation.WRONG_CARD_COUNT
    with pytest.raises(InvalidArgumentError) as raised:
        validate_bury(rules, hand=hand[:33], bury=hand[:7])
    assert raised.value.argument == "hand"


def test_what_stays_two_deck_four_seat_is_refused_elsewhere() -> None:
    """R14.10: settlement on another table is INVALID_ARGUMENT naming the table field that differs."""
    for rules, field in ((Rules(decks=3), "ruleset.decks"), (Rules(seats=6), "ruleset.seats")):
        with pytest.raises(InvalidArgumentError) as raised:
            settle_hand(rules=rules, dealer_seat=0, dealer_level=2, attacker_level=2, score=0)
        assert raised.value.argument == field
    assert settle_hand(rules=DEFAULT_RULES, dealer_seat=0, dealer_level=2, attacker_level=2, score=0).g == 3


def reference_forced(
    ctx: TrumpContext, rules: Rules, throw: Decomposition, others: dict[int, Counter[int]]
) -> tuple[int, ...] | None:
    """R14.5 literally: every component against every hand; of the beaten ones (THROW-003: tuples and
    singles only) the highest grade, weakest within it, is forced; None when none is beaten."""
    beaten = []
    for c in throw.components:
        if rules.throw is ThrowCheck.PAIRS_FIRST and c.pairs > 1:
            continue
        w, k = grade(c)
        for hand in others.values():
            tops = [max(ctx.strength[f] for f in unit) for unit in _units(ctx, hand, w, k)]
            if any(top > c.top for top in tops):
                beaten.append(c)
                break
    if not beaten:
        return None
    forced = max(beaten, key=lambda c: (*grade(c), -c.order))
    return tuple(sorted(forced.cards))


@pytest.mark.parametrize("decks", [2, 3, 4])
@pytest.mark.parametrize(
    "rules",
    [DEFAULT_RULES, Rules(throw=ThrowCheck.PAIRS_FIRST), None],
    ids=["default", "pairs-first", "random"],
)
def test_throw_check_matches_every_component_against_every_hand(decks: int, rules: Rules | None) -> None:
    """R14.5: only the weakest of each grade is tested, and each hand is read once: the literal check of
    every component against every hand forces the same component (on two decks: R4.5/R4.6 exactly);
    ``random``: each throw under its own random ruleset of this deck count (only THROW may matter)."""
    rng = random.Random(500 + decks)
    failed = 0
    given = rules
    for _ in range(300):
        rules = given or random_rules(rng, decks, rng.choice([4, 5, 6]))
        ctx = trump_context(rng.randint(2, 14), rng.choice([Suit.H, None]))
        spades = list(ctx.faces[0])
        cards = _deal_category(rng, decks, spades[:9], rng.randint(12, 9 * decks - 2))
        thrown = Counter(rng.sample(list(cards.elements()), rng.randint(3, 8)))
        rest = list((cards - thrown).elements())
        rng.shuffle(rest)
        others = {1: Counter(rest[::3]), 2: Counter(rest[1::3]), 3: Counter(rest[2::3])}
        throw = decompose(ctx, tuple(sorted(thrown.elements())))
        if len(throw.components) < 2:
            continue
        vectors = {s: _vector(h) for s, h in others.items()}
        outcome = judge_throw(ctx, rules, throw, vectors)
        expected = reference_forced(ctx, rules, throw, others)
        got = None if outcome.forced is None else tuple(sorted(outcome.forced.cards))
        assert got == expected, (thrown, others)
        if decks == 2:
            two = judge_throw(ctx, rules, decompose(ctx, tuple(sorted(thrown.elements()))), vectors)
            assert (two.succeeded, two.led) == (outcome.succeeded, outcome.led)
        failed += got is not None
    assert failed > 50
