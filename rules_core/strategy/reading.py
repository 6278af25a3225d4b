"""Reading the follows: what the way a seat followed a single lead shows it does not hold.

The search models every other seat as a careful follower (:mod:`~rules_core.strategy.model`); read
backwards, that model says which cards a seat did not hold when it played. A layout that gives a seat such
a card is one where it would have played otherwise, so the sampling deals it elsewhere
(:mod:`~rules_core.strategy.sampling`), as it does for a void (R5.2). Each read is of one follow of a single
lead, at the moment it was played, the trick judged by :mod:`rules_core.trick` (R7.1). Hands only shrink,
so a card not held then is not held now:

- *No master.* Against an opponent's unruffed card worth taking (a plain lead, a trump lead with
  :data:`WORTH_TAKING` points on the table, any lead for the last seat, which takes whatever it can with
  its cheapest winner), a follower that stayed in the suit and did not beat it holds
  no copy of the strongest rung of the suit not yet played, when that rung beats the card: that card was a
  master for it. Playing last, it holds nothing that beats the card at all.
- *No cheaper winner.* Playing last, a follower that took an opponent's card in the suit holds nothing
  between that card and its own: it took with its cheapest winner.
- *No cheaper card.* A follower that stayed in the suit and gave points to an opponent's trick holds no
  card of the suit with fewer points: it would have played that.
- *Nothing richer.* Playing last on its partner's winning card, a follower that stayed in the suit holds
  no card of the suit with more points: it would have fed that.
- *No trump.* A follower void in a plain suit that discarded, not ruffing, an opponent's trick of
  :data:`WORTH_TAKING` points (or, playing last, of :data:`WORTH_RUFFING`) holds no trump that would
  have taken it.

Only under fixed partners (R1.5, R14.9): under finding friends (R15) a follower may not have known then
which side the winning seat was on. These are reads of play, not rules: a seat may play against its
interest, so when a layout cannot keep every read the sampling keeps the voids alone
(:class:`~rules_core.strategy.sampling.Sampler`). What they are worth: ``python -m loadtest.tournament
--opponents careful`` with and without them, on the same seeds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from rules_core.cards import NUM_FACES, POINTS
from rules_core.rules import Partners, Rules
from rules_core.shapes import decompose
from rules_core.trick import advance, opening
from rules_core.trump import TRUMP, TrumpContext

WORTH_TAKING: Final[int] = 10
"""The points on the table at which a careful follower spends a trump to take a trick (a plain card it
spends on any trick it can take)."""
WORTH_RUFFING: Final[int] = 5
"""The points at which the last seat, void in the suit, ruffs."""

BELOW: Final[int] = -1
"""Below every rung and every card's points (an open bound)."""
ABOVE: Final[int] = 1000
"""Above every rung and every card's points."""

Absent = list[list[bool]]
"""Seat → face → shown not to be held (no copy)."""


def read_follows(
    ctx: TrumpContext, rules: Rules, tricks: Sequence[tuple[int, Sequence[Sequence[int]]]]
) -> Absent:
    """Seat → face → the seat's follows of single leads in ``tricks`` ((leader, plays in play order):
    the finished ones in order, then the trick so far) show it holds no copy; empty when nothing is
    read (finding friends)."""
    if rules.partners is not Partners.FIXED:
        return []
    absent = [[False] * NUM_FACES for _ in range(rules.seats)]
    played = [0] * NUM_FACES  # face → copies played before the trick
    for leader, plays in tricks:
        if not plays or not plays[0]:
            continue
        if len(plays[0]) == 1:
            _read_trick(ctx, rules, (leader, plays), seen=list(played), absent=absent)
        for play in plays:
            for face in play:
                played[face] += 1
    return absent


def _read_trick(
    ctx: TrumpContext,
    rules: Rules,
    trick: tuple[int, Sequence[Sequence[int]]],
    *,
    seen: list[int],
    absent: Absent,
) -> None:
    """Mark in ``absent`` what each follow of one single lead shows (``seen``: face → copies played before
    the trick; updated card by card)."""
    leader, plays = trick
    category, strength, faces = ctx.category, ctx.strength, ctx.faces
    n = rules.seats
    lead = plays[0][0]
    cat = category[lead]
    shape = decompose(ctx, plays[0])
    standing = opening(shape)  # R7.1, judged by rules_core.trick
    points = POINTS[lead]
    seen[lead] += 1
    for offset in range(1, len(plays)):
        if len(plays[offset]) != 1:
            return  # an inconsistent record: read no further
        face = plays[offset][0]
        seat = (leader + offset) % n
        last = offset == n - 1
        opponent = (seat - leader - standing.best) % 2 == 1
        best, ruffed = plays[standing.best][0], standing.ruffed
        in_suit = category[face] == cat
        after = advance(ctx, rules, shape, standing, plays[offset], index=offset)
        beats = after.best == offset
        mark = absent[seat]
        if not opponent:
            if in_suit and last:  # nothing richer: it fed what it had
                _by_points(mark, faces[cat], POINTS[face], ABOVE)
        elif in_suit and not beats:
            if not ruffed and (cat != TRUMP or points >= WORTH_TAKING or last):
                _no_master(mark, ctx, seen, (cat, strength[best]), decks=rules.decks, last=last)
            if POINTS[face]:  # no cheaper card
                _by_points(mark, faces[cat], BELOW, POINTS[face])
        elif in_suit and last:  # no cheaper winner
            _by_strength(mark, ctx, cat, strength[best], strength[face])
        elif (
            not in_suit
            and category[face] != TRUMP
            and cat != TRUMP
            and (points >= WORTH_TAKING or (last and points >= WORTH_RUFFING))
        ):  # a discard: no trump that would have taken the trick
            _by_strength(mark, ctx, TRUMP, strength[best] if ruffed else BELOW, ABOVE)
        standing = after
        points += POINTS[face]
        seen[face] += 1


def _no_master(
    mark: list[bool],
    ctx: TrumpContext,
    seen: Sequence[int],
    beaten: tuple[int, int],
    *,
    decks: int,
    last: bool,
) -> None:
    """A follower that did not beat the card ``beaten`` (its category and rung): holds no card of the
    category above it when it played ``last``, else none of the strongest rung not yet played (``seen``:
    face → copies played), when that rung is above it."""
    cat, beat = beaten
    if last:
        _by_strength(mark, ctx, cat, beat, ABOVE)
        return
    top = next((g for g in ctx.faces[cat] if seen[g] < decks), None)  # strongest first
    if top is not None and ctx.strength[top] > beat:
        rung = ctx.strength[top]
        _by_strength(mark, ctx, cat, rung - 1, rung + 1)


def _by_points(mark: list[bool], faces: Sequence[int], low: int, high: int) -> None:
    """Mark the ``faces`` whose points lie strictly between ``low`` and ``high``."""
    for g in faces:
        if low < POINTS[g] < high:
            mark[g] = True


def _by_strength(mark: list[bool], ctx: TrumpContext, cat: int, low: int, high: int) -> None:
    """Mark the faces of ``cat`` whose rung (R2) lies strictly between ``low`` and ``high``."""
    strength = ctx.strength
    for g in ctx.faces[cat]:
        if low < strength[g] < high:
            mark[g] = True
