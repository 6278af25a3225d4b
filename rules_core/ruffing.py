"""Ruffing (毙牌) and over-ruffing (盖毙): when trumps on a plain lead count, and how ruffs compare (R6).

A ruff needs at least the lead's structure (R6.2). Under RUFF-COVER its pair units must be assignable,
without overlap, to runs matching each lead tractor and to one pair per lead pair; under RUFF-COUNT it
needs as many tractor components and as many pair units as the lead. Ruffs compare by a *key*: the
strongest unit of the lead's top grade τ that the ruff can field (R6.6); lower grades never break ties.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules_core.component import grade
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.follow import MAX_WORK, unit_ways
from rules_core.rules import RuffStructure, Rules
from rules_core.shapes import Decomposition, counts_of, decompose, run_tops
from rules_core.trump import TRUMP, TrumpContext

NO_KEY = -1
"""The key of a play that is not a valid ruff."""


def ruff_key(ctx: TrumpContext, rules: Rules, lead: Decomposition, play: Sequence[int]) -> int:
    """The R6.6 key of ``play`` as a ruff of the plain ``lead``, or NO_KEY when it is not a valid ruff.

    A ruff is all trumps (R6.1; a player who follows this way was void in the led suit, R5.2) with at
    least the lead's structure (R6.2). Anything else is a discard (R6.3).
    """
    if lead.category is None or lead.category == TRUMP or len(play) != lead.size:
        return NO_KEY
    if any(ctx.category[face] != TRUMP for face in play):
        return NO_KEY
    ruff = decompose(ctx, play)
    if lead.top_grade == 0:  # a lead of singles asks for no structure; the key is the strongest card
        return max(c.top for c in ruff.components)
    if rules.ruff is RuffStructure.COUNT:  # two decks only (Rules refuses it on more, R14.7)
        return _count_key(lead, ruff)
    if _wider(lead) or _wider(ruff):  # R14.7: tuples of three or four copies
        return _tuple_cover_key(ctx, lead, play)
    return _cover_key(lead, ruff)


def _wider(shape: Decomposition) -> bool:
    """Whether a component holds more than two copies of a rung (a triple or quadruple, R14.3)."""
    return any(c.pairs and len(c.cards) > 2 * c.pairs for c in shape.components)


def _pair_strengths(ruff: Decomposition) -> list[int]:
    """Strengths of every pair unit of the ruff, those inside tractors included."""
    strengths: list[int] = []
    for c in ruff.components:
        strengths.extend(range(c.top, c.top - c.pairs, -1))
    return strengths


def _cover_key(lead: Decomposition, ruff: Decomposition) -> int:
    """RUFF-COVER: the best τ-unit over all valid assignments of the ruff's pairs to the lead's needs."""
    tau = lead.top_grade
    tractors = tuple(c.pairs for c in lead.components if c.pairs >= 2)
    pairs_owed = sum(1 for c in lead.components if c.pairs == 1)
    units = _pair_strengths(ruff)
    if not units:
        return NO_KEY
    size = max(units) + 1
    counts = [0] * size
    for s in units:
        counts[s] += 1
    memo: dict[tuple[int, tuple[int, ...]], int | None] = {}

    def best(i: int, free: tuple[int, ...]) -> int | None:
        """Best τ-top over completions from tractor step i with ``free`` units left; None if none fits."""
        if (i, free) not in memo:
            memo[i, free] = fit(i, free)
        return memo[i, free]

    def fit(i: int, free: tuple[int, ...]) -> int | None:
        if i == len(tractors):
            if sum(free) < pairs_owed:
                return None
            # with no lead tractor (τ = pair) the key is the strongest pair; else it came from the runs
            return max(s for s, c in enumerate(free) if c) if tau == 1 else NO_KEY
        k = tractors[i]
        result: int | None = None
        for top in run_tops(free, k):
            rest = list(free)
            for s in range(top, top - k, -1):
                rest[s] -= 1
            below = best(i + 1, tuple(rest))
            if below is not None:
                candidate = max(below, top) if k == tau else below
                result = candidate if result is None else max(result, candidate)
        return result

    found = best(0, tuple(counts))
    return NO_KEY if found is None else found


def _count_key(lead: Decomposition, ruff: Decomposition) -> int:
    """RUFF-COUNT: enough tractor components and pair units; the key per R6.6's literal reading."""
    lead_tractors = sum(1 for c in lead.components if c.pairs >= 2)
    ruff_tractors = sum(1 for c in ruff.components if c.pairs >= 2)
    lead_pairs = sum(c.pairs for c in lead.components)
    ruff_pairs = sum(c.pairs for c in ruff.components)
    if ruff_tractors < lead_tractors or ruff_pairs < lead_pairs:
        return NO_KEY
    tau = lead.top_grade
    exact = [c.top for c in ruff.components if c.pairs == tau]
    if exact:
        return max(exact)
    longer = [c.top for c in ruff.components if c.pairs > tau]
    if longer:  # cut a τ-unit from the top of a longer one
        return max(longer)
    return ruff.components[0].top  # the strongest of the ruff's highest grade


def _tuple_cover_key(ctx: TrumpContext, lead: Decomposition, play: Sequence[int]) -> int:
    """RUFF-COVER on tuples (R14.7): the best top a unit given to a component of the lead's top grade
    can have, over every assignment of the ruff's cards to the lead's units. :func:`_cover_key` is the
    same rule for units of two copies, read off pair units."""
    strength = ctx.strength
    needs = [grade(c) for c in lead.components if c.pairs >= 1]
    tau = needs[0]
    counts = counts_of(play)
    faces = sorted(counts)
    ranks = [strength[f] for f in faces]
    memo: dict[tuple[int, tuple[int, ...]], int | None] = {}
    work = [0]

    def best(i: int, free: tuple[int, ...]) -> int | None:
        """The best τ-top over completions from need i with ``free`` left; None if none fits."""
        if (i, free) not in memo:
            work[0] += 1
            if work[0] > MAX_WORK:
                raise InvalidArgumentError(
                    "plays",
                    Problem.OUT_OF_RANGE,
                    f"the ruff check passed its work ceiling ({MAX_WORK}, R14.7)",
                )
            memo[i, free] = fit(i, free)
        return memo[i, free]

    def fit(i: int, free: tuple[int, ...]) -> int | None:
        if i == len(needs):
            return NO_KEY
        result: int | None = None
        for taken in unit_ways(ranks, free, needs[i]):
            below = best(i + 1, tuple(taken))
            if below is None:
                continue
            top = max(ranks[j] for j in range(len(free)) if free[j] != taken[j])
            candidate = max(below, top) if needs[i] == tau else below
            result = candidate if result is None else max(result, candidate)
        return result

    found = best(0, tuple(counts[f] for f in faces))
    return NO_KEY if found is None else found
