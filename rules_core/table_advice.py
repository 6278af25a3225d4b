"""Advice on other tables (R14, R15): a play, a bury and a declaration that are legal and bounded.

These are simple policies, not the strong search of :mod:`rules_core.strategy` (which is ruled and
measured on the rulebooks' table only). What they promise on every table shape is legality and cost:

* **Play:** from the bounded listing (:mod:`rules_core.table_plays`, at most :data:`CONSIDERED` plays),
  the cheapest play that takes the trick when the seat's side is not already winning it, else the
  lowest-value play. "Value" is (points, trumps, strength): give away as little as possible. The side is
  known under fixed partners (every other seat, R14.9); under finding friends only the seat itself is.
* **Bury:** the bottom's size (R14.2) from the plain suits' short, pointless singles first, keeping trumps
  and tuples longest; checked by :func:`rules_core.table.table_bury`.
* **Declaration:** the strongest declaration held (R14.11) whose trumps would be at least a third of the
  cards received; checked by replaying it with :func:`rules_core.bidding.declare`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from rules_core.bidding import Act, Shown, declare, strength_of
from rules_core.cards import BIG_JOKER, NUM_FACES, POINTS, SMALL_JOKER, format_cards, rank_of
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.legal_plays import PlayList
from rules_core.rules import Partners, Rules
from rules_core.seating import SeatCards, check_next
from rules_core.shapes import Decomposition, decompose
from rules_core.strategy.bury import BuryAdvice, BuryPolicy
from rules_core.strategy.declaration import DeclarationAdvice, DeclarationPolicy
from rules_core.table import Counter, judge_wide, table_bury, table_sizes
from rules_core.table_plays import table_legal_plays
from rules_core.table_turn import _renamed, validate_table_play
from rules_core.trump import TRUMP, TrumpContext
from rules_core.tuples import decompose_wide
from rules_core.turn import DEFAULT_LIMIT, Listing, Policy, Suggestion
from rules_core.verdicts import Legal

__all__ = [
    "CONSIDERED",
    "PlayAdvice",
    "bury_on_table",
    "declaration_on_table",
    "list_table_plays",
    "suggest_on_table",
    "suggest_table_bury",
    "suggest_table_declaration",
    "suggest_table_play",
]

CONSIDERED: Final = 64
"""The most candidate plays one suggestion judges: its cost is this many trick judgements at most."""


@dataclass(frozen=True, slots=True)
class PlayAdvice:
    """A suggested play, why, and how many candidates were judged (≤ :data:`CONSIDERED`)."""

    cards: tuple[int, ...]
    reason: str
    considered: int


def _listing(
    ctx: TrumpContext, rules: Rules, hand: Sequence[int], lead: Sequence[int], limit: int
) -> PlayList:
    """The bounded listing, its lead named as the request spells it (``trick.plays[0].cards``)."""
    try:
        return table_legal_plays(ctx, rules, hand=hand, lead=lead, limit=limit)
    except InvalidArgumentError as error:
        raise _renamed(error, "lead", "trick.plays[0].cards") from None


def _value(ctx: TrumpContext, play: Sequence[int]) -> tuple[int, int, int]:
    """What a play gives away: points, then trumps, then strength (lower is cheaper)."""
    points = sum(POINTS[f] for f in play)
    trumps = sum(1 for f in play if ctx.category[f] == TRUMP)
    return points, trumps, sum(ctx.strength[f] for f in play)


def _partners(rules: Rules, seat: int) -> frozenset[int]:
    """The seats known to be on ``seat``'s side: every other seat under fixed partners (R14.9); under
    finding friends (R15) the seat alone."""
    if rules.partners is Partners.FIXED and rules.seats % 2 == 0:
        return frozenset(s for s in range(rules.seats) if (s - seat) % 2 == 0)
    return frozenset({seat})


def suggest_table_play(
    ctx: TrumpContext,
    rules: Rules,
    *,
    seat: int,
    hand: Sequence[int],
    trick_leader: int | None,
    trick_plays: Sequence[SeatCards],
) -> PlayAdvice:
    """A legal play for the seat whose turn it is (checked as ValidatePlay checks it)."""
    lead = trick_plays[0][1] if trick_plays else ()
    listing = _listing(ctx, rules, hand, lead, CONSIDERED)
    plays = listing.plays
    if not trick_plays:
        singles = [p for p in plays if len(decompose_wide(ctx, p).components) == 1]
        choice = min(singles or plays, key=lambda p: _value(ctx, p))
        return _checked(
            ctx,
            rules,
            seat,
            hand,
            trick_leader,
            trick_plays,
            choice,
            "lead: the cheapest one-component lead",
            len(plays),
        )
    led = decompose_wide(ctx, lead)
    cards = [tuple(c) for _, c in trick_plays]
    _, best = judge_wide(ctx, led, cards)
    winner = trick_plays[best][0]
    if winner in _partners(rules, seat):
        choice = min(plays, key=lambda p: _value(ctx, p))
        why = f"follow: seat {winner} of this side is winning; the lowest-value play"
        return _checked(ctx, rules, seat, hand, trick_leader, trick_plays, choice, why, len(plays))
    winning = [p for p in plays if judge_wide(ctx, led, [*cards, p])[1] == len(cards)]
    if winning:
        choice = min(winning, key=lambda p: _value(ctx, p)[1:] + _value(ctx, p)[:1])
        why = "follow: the cheapest play that takes the trick"
    else:
        choice = min(plays, key=lambda p: _value(ctx, p))
        why = "follow: nothing listed takes the trick; the lowest-value play"
    return _checked(ctx, rules, seat, hand, trick_leader, trick_plays, choice, why, len(plays))


def _checked(  # noqa: PLR0917 (the request's arguments, passed through to the check)
    ctx: TrumpContext,
    rules: Rules,
    seat: int,
    hand: Sequence[int],
    trick_leader: int | None,
    trick_plays: Sequence[SeatCards],
    choice: tuple[int, ...],
    why: str,
    considered: int,
) -> PlayAdvice:
    """The advice, judged by ValidatePlay's own check (R14.5, R14.6): also checks the request's turn."""
    others: list[SeatCards] = [(s, ()) for s in range(rules.seats) if s != seat] if not trick_plays else []
    verdict = validate_table_play(
        ctx,
        rules,
        seat=seat,
        hand=hand,
        trick_leader=trick_leader,
        trick_plays=trick_plays,
        cards=choice,
        others=others,
    ).verdict
    if not isinstance(verdict, Legal):  # pragma: no cover - the listing holds legal plays only
        raise AssertionError(f"an illegal suggestion {format_cards(choice)}: {verdict.message}")
    return PlayAdvice(choice, why, considered)


def suggest_table_bury(ctx: TrumpContext, rules: Rules, *, hand: Sequence[int]) -> tuple[int, ...]:
    """R11 with R14.2: the bottom's size of the dealer's hand-plus-bottom ``hand``, short plain suits'
    pointless singles first; trumps and tuples last."""
    size, bottom = table_sizes(rules.decks, rules.seats)
    if len(hand) != size + bottom:
        raise InvalidArgumentError(
            "hand", Problem.BAD_SIZE, f"the dealer holds {size} + {bottom} cards here, got {len(hand)}"
        )
    counts = Counter(rules.decks).add(hand, "hand")
    length = [sum(counts[f] for f in ctx.faces[c]) for c in range(5)]

    def keep(face: int) -> tuple[bool, bool, bool, int, int]:
        category = ctx.category[face]
        return (category == TRUMP, counts[face] >= 2, POINTS[face] > 0, length[category], ctx.strength[face])

    buried = tuple(sorted(hand, key=keep)[:bottom])
    result = table_bury(rules, hand=hand, bury=buried)
    if not result.legal:  # pragma: no cover - the bottom's size of the dealer's own cards
        raise AssertionError(f"an illegal bury {format_cards(buried)}")
    return buried


def suggest_table_declaration(
    rules: Rules, *, level: int, seat: int, received: Sequence[int], acts: Sequence[Shown]
) -> tuple[tuple[int, ...], Act | None, str]:
    """R14.11: the declaration to show now (cards, its act), or ((), None) with why not."""
    if not 0 <= seat < rules.seats:
        raise InvalidArgumentError("seat", Problem.OUT_OF_RANGE, f"seat must be 0..{rules.seats - 1}")
    size = table_sizes(rules.decks, rules.seats)[0]
    if not 1 <= len(received) <= size:
        raise InvalidArgumentError(
            "received", Problem.BAD_SIZE, f"1 to {size} cards received, got {len(received)}"
        )
    counts = Counter(rules.decks).add(received, "received")
    declare(rules=rules, level=level, acts=acts, first_hand=False)  # the acts so far, checked
    candidates = []
    for face in range(NUM_FACES):
        level_card = face < SMALL_JOKER and rank_of(face) == level
        if counts[face] == 0 or not (level_card or face in (SMALL_JOKER, BIG_JOKER)):
            continue
        strength = strength_of(level, (face,) * counts[face])
        if isinstance(strength, tuple) and _worth(counts, level, face, len(received)):
            candidates.append((strength, face))
    for _strength, face in sorted(candidates, reverse=True):
        cards = (face,) * counts[face]
        trial = declare(
            rules=rules, level=level, acts=[*acts, (seat, cards, tuple(received))], first_hand=False
        )
        if trial.acts[-1] is not None:
            return (
                cards,
                trial.acts[-1],
                f"{trial.acts[-1]} {format_cards(cards)}: trumps are a third of the hand",
            )
    return (), None, "none: no declaration held is stronger and worth it"


def _worth(counts: Sequence[int], level: int, face: int, received: int) -> bool:
    """Trumps under the declaration (its suit, every level card, the jokers) are a third of the cards."""
    trumps = counts[SMALL_JOKER] + counts[BIG_JOKER]
    trumps += sum(counts[f] for f in range(SMALL_JOKER) if rank_of(f) == level)
    if face < SMALL_JOKER:
        suit = face // 13
        trumps += sum(counts[f] for f in range(suit * 13, suit * 13 + 13) if rank_of(f) != level)
    return 3 * trumps >= received


# ------------------------------------------------------------------------------------------------
# Request-level entry points (ListLegalPlays, SuggestPlay, SuggestBury, SuggestDeclaration)


def _check_turn(rules: Rules, seat: int, trick_leader: int | None, trick_plays: Sequence[SeatCards]) -> None:
    """R14.1: the seat whose turn it is after ``trick_plays`` from ``trick_leader`` (N seats)."""
    n = rules.seats
    for path, value in (("seat", seat), ("trick.leader", trick_leader or 0)):
        if isinstance(value, bool) or not 0 <= value < n:
            raise InvalidArgumentError(path, Problem.OUT_OF_RANGE, f"seat {value} is out of range 0..{n - 1}")
    leader = trick_leader or 0
    if len(trick_plays) >= n:
        raise InvalidArgumentError("trick.plays", Problem.BAD_SIZE, "the trick is complete")
    if not trick_plays and trick_leader is not None and leader != seat:
        raise InvalidArgumentError("trick.leader", Problem.OUT_OF_ORDER, f"seat {seat} leads, not {leader}")
    for i, (played, faces) in enumerate(trick_plays):
        if played != (leader + i) % n:
            raise InvalidArgumentError(
                f"trick.plays[{i}].seat", Problem.OUT_OF_ORDER, f"seat {(leader + i) % n} plays here"
            )
        if not faces or len(faces) != len(trick_plays[0][1]):
            raise InvalidArgumentError(
                f"trick.plays[{i}].cards", Problem.BAD_SIZE, "every play has the lead's size"
            )
    if trick_plays:
        check_next(seat, leader, len(trick_plays), n)


def list_table_plays(
    ctx: TrumpContext,
    rules: Rules,
    *,
    seat: int,
    hand: Sequence[int],
    trick_leader: int | None,
    trick_plays: Sequence[SeatCards],
    limit: int = 0,
) -> Listing:
    """ListLegalPlays on another table (R14.4–R14.6): up to ``limit`` (0: the default) legal plays."""
    _check_turn(rules, seat, trick_leader, trick_plays)
    lead = trick_plays[0][1] if trick_plays else ()
    listing = _listing(ctx, rules, hand, lead, limit or DEFAULT_LIMIT)
    return Listing(tuple((play, _shape(ctx, rules, play)) for play in listing.plays), listing.truncated)


def _shape(ctx: TrumpContext, rules: Rules, play: Sequence[int]) -> Decomposition:
    return decompose(ctx, play) if rules.decks == 2 else decompose_wide(ctx, play)


def suggest_on_table(
    ctx: TrumpContext,
    rules: Rules,
    *,
    seat: int,
    hand: Sequence[int],
    trick_leader: int | None,
    trick_plays: Sequence[SeatCards],
) -> Suggestion:
    """SuggestPlay on another table: :func:`suggest_table_play`, reported as the simple policy."""
    _check_turn(rules, seat, trick_leader, trick_plays)
    advice = suggest_table_play(
        ctx, rules, seat=seat, hand=hand, trick_leader=trick_leader, trick_plays=trick_plays
    )
    shape = _shape(ctx, rules, advice.cards)
    return Suggestion(advice.cards, shape, f"table: {advice.reason}", Policy.RIGHTMOST_SMALLEST)


def bury_on_table(ctx: TrumpContext, rules: Rules, *, hand: Sequence[int], policy: BuryPolicy) -> BuryAdvice:
    """SuggestBury on another table (R14.2): ``hand`` is the dealer's hand plus the bottom."""
    if policy is BuryPolicy.AUTO_BURY:  # R13.6's auto-bury is a forced-quit rule: R14.10 keeps it two-deck
        raise InvalidArgumentError(
            "policy",
            Problem.INCONSISTENT,
            "AUTO_BURY (R13.6) is ruled for the rulebooks' table only (R14.10)",
        )
    buried = suggest_table_bury(ctx, rules, hand=hand)
    why = "table: short plain suits' pointless singles first; trumps and tuples kept"
    return BuryAdvice(buried, sum(POINTS[f] for f in buried), why, policy)


def declaration_on_table(
    rules: Rules,
    *,
    level: int,
    seat: int,
    received: Sequence[int],
    acts: Sequence[Shown],
    policy: DeclarationPolicy,
) -> DeclarationAdvice:
    """SuggestDeclaration on another table (R14.11)."""
    if policy is DeclarationPolicy.NONE:
        suggest_table_declaration(rules, level=level, seat=seat, received=received, acts=acts)  # checks
        return DeclarationAdvice((), None, "none: this policy never declares", policy)
    cards, act, why = suggest_table_declaration(rules, level=level, seat=seat, received=received, acts=acts)
    return DeclarationAdvice(cards, act, f"table: {why}", policy)
