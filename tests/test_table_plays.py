"""Legal-play listing on three and four decks (R14.4–R14.6) against brute force.

Random positions concentrate a small hand in one suit so that every play of the lead's size can be
enumerated; the follow check (:func:`rules_core.follow.check_follow`, R14.6's ladder) is the reference.
Every listed follow must be legal, and an untruncated listing must be every legal follow.
"""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from rules_core.cards import NUM_FACES, Suit, hand_of
from rules_core.errors import InvalidArgumentError
from rules_core.follow import check_follow
from rules_core.legal_plays import legal_plays
from rules_core.rules import DEFAULT_RULES
from rules_core.throw import check_lead
from rules_core.trump import TrumpContext, trump_context
from rules_core.verdicts import Legal


def _position(rng: random.Random, decks: int) -> tuple[TrumpContext, list[int], list[int]]:
    """A trump context, a hand of up to 12 cards mostly of one suit, and a lead of that suit."""
    ctx = trump_context(rng.randint(2, 14), rng.choice([Suit.S, Suit.H, Suit.C, Suit.D]))
    suit = rng.choice([c for c in range(5) if len(ctx.faces[c]) >= 2])
    others = [f for c in range(5) if c != suit for f in ctx.faces[c] for _ in range(decks)]
    near = ctx.faces[suit][: rng.randint(2, len(ctx.faces[suit]))]  # neighbouring rungs: tractors
    faces = rng.sample(near, k=min(len(near), rng.randint(2, 5)))
    dense = [f for f in faces for _ in range(rng.randint(1, decks))]
    hand = dense[:10] + rng.sample(others, k=rng.randint(0, 3))
    left = [f for f in ctx.faces[suit] for _ in range(decks - hand.count(f))]
    lead = _wide_lead(ctx, rng, left, min(6, len(left)))
    return ctx, hand, lead


def _wide_lead(ctx: TrumpContext, rng: random.Random, left: list[int], size: int) -> list[int]:
    """A lead of ``size`` cards of one suit, built of tuples where it can be."""
    lead: list[int] = []
    faces = sorted(set(left), key=lambda f: ctx.strength[f], reverse=True)
    start = rng.randrange(len(faces))
    for face in faces[start:] + faces[:start]:
        take = min(rng.randint(1, 4), left.count(face), size - len(lead))
        lead += [face] * take
    return lead


def _all_plays(hand: list[int], n: int) -> set[tuple[int, ...]]:
    return {tuple(sorted(c)) for c in combinations(sorted(hand), n)}


def _counts(faces: list[int]) -> tuple[int, ...]:
    return hand_of(faces, 4)


@pytest.mark.parametrize("decks", [3, 4])
def test_follow_listing_is_the_legal_follows(decks: int) -> None:
    """R14.6: every listed follow legal; an untruncated listing holds every legal follow."""
    rng = random.Random(1400 + decks)
    checked = 0
    for _ in range(150):
        ctx, hand, lead = _position(rng, decks)
        if not lead:
            continue
        held = _counts(hand)
        n = len(lead)
        legal = {
            play
            for play in _all_plays(hand, n)
            if isinstance(check_follow(ctx, hand=held, lead=lead, play=play, decks=decks), Legal)
        }
        listing = legal_plays(ctx, hand=held, lead=lead, limit=1000, decks=decks)
        listed = set(listing.plays)
        assert listed <= legal, (hand, lead, listed - legal)
        assert bool(listed) == bool(legal)  # a legal follow exists: one is listed
        if not listing.truncated:
            assert listed == legal, (hand, lead, legal - listed)
        checked += 1
    assert checked > 100


@pytest.mark.parametrize("decks", [3, 4])
def test_lead_listing_is_legal(decks: int) -> None:
    """R4.2, R14.4: each listed lead is legal; every tuple held is listed as a lead."""
    rng = random.Random(1500 + decks)
    for _ in range(60):
        ctx, hand, _lead = _position(rng, decks)
        held = _counts(hand)
        listing = legal_plays(ctx, hand=held, limit=1000, decks=decks)
        for play in listing.plays:
            others = {1: (0,) * NUM_FACES}
            assert isinstance(check_lead(ctx, DEFAULT_RULES, hand=held, lead=play, others=others), Legal)
        for face in set(hand):
            assert (face,) * hand.count(face) in listing.plays or listing.truncated


def test_listing_is_bounded() -> None:
    """The work ceiling and the limit bound the costliest four-deck hand (a long run of quadruples)."""
    ctx = trump_context(2, Suit.S)
    hand = [f for f in ctx.faces[Suit.H][:13] for _ in range(4)]
    lead = [ctx.faces[Suit.D][0]] * 4  # none held: any four cards follow (R5.2)
    held = hand_of(hand, 4)
    assert len(legal_plays(ctx, hand=held, limit=1000, decks=4).plays) <= 1000
    listing = legal_plays(ctx, hand=held, lead=lead, limit=5, decks=4)
    assert listing.truncated and len(listing.plays) == 5
    with pytest.raises(InvalidArgumentError, match="max_plays"):
        legal_plays(ctx, hand=held, limit=0, decks=4)
