"""THROW-RUFF (R16.7): how a later ruff of a throw is compared with the ruff that holds the trick.

R6.6 compares two ruffs by one number, the strongest unit of the lead's top grade. The house rules of
rbtying/shengji compare them through *readings*: a ruff read as the lead's units, each unit of the lead
(R3.6: a k-tractor, a pair, a single) served by a unit of the same kind of the ruff (a run of k pair units,
a pair unit, one card), no card twice. Under RUFF-COVER every valid ruff has a reading (R6.2). A reading is
kept as a *profile*: for each kind of lead unit, in grade order, the tops of the units serving it, strongest
first, so the lead's units of one kind are matched strongest with strongest.

A later ruff takes the trick when, however the standing ruff is read, the later one can be read to beat it.
HIGHEST needs no reading (the strongest card); TRICK_UNIT_LENGTH is a total order, so each ruff's best
profile is packed into an int key; ALL is a partial order, so the standing ruff's key is its cards, packed,
and both ruffs' readings are compared when a later ruff comes.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules_core.ruffing import NO_KEY, ruff_key
from rules_core.rules import Rules, ThrowRuffCompare
from rules_core.shapes import Decomposition, decompose, run_tops
from rules_core.trump import TrumpContext

Profile = tuple[tuple[int, ...], ...]
"""Per kind of lead unit (grade order), the tops of the ruff's units that serve it, strongest first."""

_DIGIT = 16
"""Strengths are 0..15 (the trump ladder's 16 rungs, R2.5): one base-16 digit each in a packed key."""
_FACE = 64
"""Faces are 0..53: one base-64 digit each when cards are packed into a key."""


def throw_ruff_key(ctx: TrumpContext, rules: Rules, lead: Decomposition, play: Sequence[int]) -> int:
    """The R16.7 key of ``play`` as a ruff of the thrown plain ``lead`` (two or more components), or
    NO_KEY when it is no valid ruff (R6.1–R6.3). Larger keys win under HIGHEST and TRICK_UNIT_LENGTH;
    under ALL the key is the ruff's cards, compared only through :func:`beats`."""
    if ruff_key(ctx, rules, lead, play) == NO_KEY:
        return NO_KEY
    policy = rules.throw_ruff_compare
    if policy is ThrowRuffCompare.HIGHEST:
        return max(ctx.strength[face] for face in play)
    if policy is ThrowRuffCompare.TRICK_UNIT_LENGTH:
        return max(_packed_units(lead, profile) for profile in readings(ctx, lead, play))
    return pack_cards(play)


def beats(ctx: TrumpContext, rules: Rules, lead: Decomposition, key: int, standing: int) -> bool:
    """Whether a valid ruff with ``key`` takes the trick from the standing ruff's key (R16.7, R6.5)."""
    if rules.throw_ruff_compare is not ThrowRuffCompare.ALL:
        return key > standing
    mine = _maximal(readings(ctx, lead, unpack_cards(key)))
    theirs = _maximal(readings(ctx, lead, unpack_cards(standing)))
    return all(any(_dominates(a, b) for a in mine) for b in theirs)


def readings(ctx: TrumpContext, lead: Decomposition, play: Sequence[int]) -> set[Profile]:
    """Every profile of ``play`` read as the lead's units (empty when it has no reading).

    Tractors are placed first (longest first; runs for equal needs in non-increasing order), then the
    lead's pairs take pair units (non-increasing), and the singles take every card left. The ruff holds
    at most 25 cards, so the choices stay few: the lead's pairs and tractors fix how many units are taken.
    """
    ruff = decompose(ctx, play)
    tops = [c.top - i for c in ruff.components for i in range(c.pairs)]
    counts = [0] * (max(tops, default=0) + 1)
    for top in tops:
        counts[top] += 1
    loose = [c.top for c in ruff.components if c.pairs == 0]
    needs = [c.pairs for c in lead.components if c.pairs >= 2]
    pairs = sum(1 for c in lead.components if c.pairs == 1)
    kinds = sorted({c.pairs for c in lead.components}, reverse=True)
    found: set[Profile] = set()
    placed: list[tuple[int, int]] = []  # (length, top) of each tractor need served so far

    def finish(chosen: list[int]) -> None:
        left = sorted([s for s, n in enumerate(counts) for _ in range(2 * n)] + loose, reverse=True)
        by_kind: dict[int, list[int]] = {k: [] for k in kinds}
        for k, top in placed:
            by_kind[k].append(top)
        by_kind.setdefault(1, []).extend(chosen)
        by_kind.setdefault(0, []).extend(left)
        found.add(tuple(tuple(sorted(by_kind[k], reverse=True)) for k in kinds))

    def take_pairs(need: int, below: int, chosen: list[int]) -> None:
        if need == 0:
            finish(chosen)
            return
        for s in range(min(below, len(counts) - 1), -1, -1):
            if counts[s]:
                counts[s] -= 1
                chosen.append(s)
                take_pairs(need - 1, s, chosen)
                chosen.pop()
                counts[s] += 1

    def place(i: int) -> None:
        if i == len(needs):
            take_pairs(pairs, len(counts), [])
            return
        k = needs[i]
        bound = placed[-1][1] if i and needs[i - 1] == k else len(counts)
        for top in run_tops(counts, k):
            if top > bound:
                continue
            for s in range(top, top - k, -1):
                counts[s] -= 1
            placed.append((k, top))
            place(i + 1)
            placed.pop()
            for s in range(top, top - k, -1):
                counts[s] += 1

    place(0)
    return found


def _packed_units(lead: Decomposition, profile: Profile) -> int:
    """TRICK_UNIT_LENGTH: a profile as one int whose order is the policy's: the units longest first,
    strongest first within a length, singles only when the lead has nothing but singles."""
    key = 1
    skip_singles = lead.top_grade > 0
    for kind in profile[:-1] if skip_singles and lead.components[-1].pairs == 0 else profile:
        for top in kind:
            key = key * _DIGIT + top
    return key


def _dominates(mine: Profile, theirs: Profile) -> bool:
    """ALL: every unit of ``mine`` strictly stronger than the unit serving the same lead unit."""
    return all(
        a > b
        for kind_a, kind_b in zip(mine, theirs, strict=True)
        for a, b in zip(kind_a, kind_b, strict=True)
    )


def _maximal(profiles: set[Profile]) -> list[Profile]:
    """The profiles no other profile is at least as strong as in every unit (the rest never matter)."""
    flat = {p: [t for kind in p for t in kind] for p in profiles}
    return [
        p
        for p in profiles
        if not any(q != p and all(a >= b for a, b in zip(flat[q], flat[p], strict=True)) for q in profiles)
    ]


def pack_cards(play: Sequence[int]) -> int:
    """A ruff's cards as one positive int (ALL's standing key); :func:`unpack_cards` reverses it."""
    key = 1
    for face in sorted(play):
        key = key * _FACE + face
    return key


def unpack_cards(key: int) -> list[int]:
    """The cards :func:`pack_cards` packed."""
    faces: list[int] = []
    while key > 1:
        key, face = divmod(key, _FACE)
        faces.append(face)
    return faces
