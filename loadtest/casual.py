"""A careful casual player: the opponent the strong auto-play must beat clearly (issue 16).

It plays as a reasonable human who watches the table, with no search: it counts the cards played, notes
the voids a seat has shown (it followed a lead with other cards, R5.2), knows who is winning the trick
(R7.1, judged by ``rules_core.trick``), feeds points to a partner who is winning safely, wins cheaply when
the trick is worth it, and otherwise follows low. It leads its masters (cards no unseen card beats) in
suits no opponent has shown void, then a low card of its shortest plain suit (towards a ruffing void),
and pulls trumps only with master trumps. It is deterministic: the same view gives the same play.

While the cards are dealt it declares as a casual player does (:func:`casual_declaration`, R10): with
nothing shown it shows a level card (the pair when it holds both) once that contract gives it clearly more
trumps than an average share of the cards it holds; it overturns an opponent's contract with a level pair
only for a suit that gives it more trumps than the standing one. It never shows a joker pair, never
overturns its partner or itself. Every act it makes is one R10 (``rules_core.bidding``) accepts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules_core.bidding import Declaration, resolve_declarations
from rules_core.cards import (
    COPIES,
    NUM_FACES,
    POINTS,
    Hand,
    Suit,
    contains,
    face_of,
    hand_of,
)
from rules_core.component import width
from rules_core.follow import check_follow
from rules_core.legal_plays import legal_plays
from rules_core.rules import FollowRule, Rules
from rules_core.shapes import decompose
from rules_core.strategy import SeatView
from rules_core.strategy.knowledge import sides
from rules_core.trick import Standing, advance, standing_of
from rules_core.trump import TRUMP, TrumpContext, trump_context
from rules_core.verdicts import Legal

LISTING = 40
"""The engine's weakest-first follows the player looks at (plus the ones it builds)."""
CASUAL_SHARE = 0.4
"""A casual declaration wants at least this share of its cards as trumps (an average hand has a third)."""
CASUAL_MIN_TRUMPS = 4
"""... and at least this many trumps."""


def casual_declaration(
    rules: Rules,
    level: int,
    seat: int,
    received: Sequence[int],
    acts: Sequence[Declaration],
    *,
    dealer: int | None = None,
) -> tuple[int, ...]:
    """The careful casual player's act now, having received ``received`` after the deal's ``acts``: the
    cards to show, or () for none. Only an act R10 accepts after ``acts`` is returned. A casual player
    declares the same whoever deals (``dealer`` is ignored)."""
    hand = hand_of(received)
    bidding = resolve_declarations(rules=rules, level=level, sequence=acts, first_hand=True)
    owner = bidding.last_changer
    if bidding.declared and (owner is None or owner % 2 == seat % 2):
        return ()  # its own side's contract (or a joker no-trump nobody owns): leave it
    standing = _trumps(level, hand, bidding.contract) if bidding.declared else 0
    wanted = max(CASUAL_MIN_TRUMPS, CASUAL_SHARE * len(received), standing + 1)
    options = []
    for suit in Suit:
        face = face_of(suit, level)
        copies = hand[face] if not bidding.declared else (COPIES if hand[face] == COPIES else 0)
        if copies and suit != bidding.contract and _trumps(level, hand, suit) >= wanted:
            options.append((_trumps(level, hand, suit), (face,) * copies))
    for _, cards in sorted(options, key=lambda option: -option[0]):
        attempt = Declaration(seat=seat, cards=cards, hand=hand)
        judged = resolve_declarations(rules=rules, level=level, sequence=[*acts, attempt], first_hand=True)
        if judged.acts[-1] is not None:
            return cards
    return ()


def _trumps(level: int, hand: Hand, trump: Suit | None) -> int:
    """The seat's trumps under contract ``trump`` (R2): jokers, level cards and the suit."""
    return sum(hand[face] for face in trump_context(level, trump).faces[TRUMP])


@dataclass(frozen=True, slots=True)
class Table:
    """What the careful player remembers of the hand: cards it has not seen, and shown voids."""

    unseen: tuple[int, ...]
    """Face → copies not in its hand and not yet played."""
    voids: frozenset[tuple[int, int]]
    """(seat, category) pairs: the seat followed that category with other cards once."""
    kin: list[list[float]]
    """Seat → seat → +1 same side, -1 opposite, between while friends are unknown (``strategy.knowledge``)."""


def remember(ctx: TrumpContext, rules: Rules, view: SeatView) -> Table:
    """Count the played cards of the table's decks and note voids from the finished tricks and the trick
    so far (R5.2); the sides as the seat knows them (R1.5, R14.9, R15)."""
    n = rules.seats
    unseen = [rules.decks - view.hand[f] for f in range(NUM_FACES)]
    voids: set[tuple[int, int]] = set()
    for leader, plays in (*view.tricks, (view.leader, view.plays)):
        if not plays:
            continue
        cat = ctx.category[plays[0][0]]
        for offset, play in enumerate(plays):
            for face in play:
                unseen[face] = max(0, unseen[face] - 1)
            if offset and sum(1 for f in play if ctx.category[f] == cat) < len(plays[0]):
                voids.add(((leader + offset) % n, cat))
    for face in view.bottom:
        unseen[face] = max(0, unseen[face] - 1)
    return Table(tuple(unseen), frozenset(voids), sides(rules, view, view.dealer)[0])


def _cost(ctx: TrumpContext, play: Sequence[int]) -> int:
    """What the cards are worth to keep: trumps dearer than plain cards, high dearer than low."""
    return sum(ctx.strength[f] + (30 if ctx.category[f] == TRUMP else 0) for f in play)


def _points(play: Sequence[int]) -> int:
    return sum(POINTS[f] for f in play)


def _is_master(ctx: TrumpContext, table: Table, play: Sequence[int]) -> bool:
    """No unseen card (pair, for a pair) of the play's category is stronger than its top."""
    shape = decompose(ctx, play)
    if len(shape.components) != 1 or shape.category is None:
        return False
    comp = shape.components[0]
    need = width(comp) if comp.pairs else 1  # R14.3: a tuple's copies
    return not any(table.unseen[f] >= need and ctx.strength[f] > comp.top for f in ctx.faces[shape.category])


@dataclass
class CarefulPlayer:
    """The careful casual player as a tournament seat (``loadtest.tournament.Player``), on every table:
    N seats, D decks, fixed partners or the sides as far as the seat knows them."""

    name: str = "careful"

    def __call__(self, ctx: TrumpContext, rules: Rules, view: SeatView, seed: int) -> tuple[int, ...]:
        table = remember(ctx, rules, view)
        if not view.plays:
            return self.lead(ctx, rules, view, table)
        return self.follow(ctx, rules, view, table)

    def lead(self, ctx: TrumpContext, rules: Rules, view: SeatView, table: Table) -> tuple[int, ...]:
        """Masters first (tractors, pairs, then singles) where no opponent can ruff, else low and short."""
        hand = view.hand
        opponents = [s for s in range(rules.seats) if table.kin[view.seat][s] <= 0.5]
        listed = legal_plays(ctx, hand=hand, limit=300, decks=rules.decks).plays
        leads = [p for p in listed if len(decompose(ctx, p).components) == 1]
        safe = [
            p
            for p in leads
            if _is_master(ctx, table, p)
            and (
                ctx.category[p[0]] == TRUMP
                or not any((s, ctx.category[p[0]]) in table.voids for s in opponents)
            )
        ]
        if safe:  # the biggest structure first, then plain before trump, then the most points
            return max(safe, key=lambda p: (len(p), ctx.category[p[0]] != TRUMP, _points(p), -_cost(ctx, p)))
        length = {cat: sum(hand[f] for f in ctx.faces[cat]) for cat in range(5)}
        plain = [p for p in leads if len(p) == 1 and ctx.category[p[0]] != TRUMP and not POINTS[p[0]]]
        if plain:  # a low card of the shortest plain suit: towards a void to ruff later
            return min(plain, key=lambda p: (length[ctx.category[p[0]]], ctx.strength[p[0]]))
        singles = [p for p in leads if len(p) == 1]
        return min(singles, key=lambda p: (POINTS[p[0]], ctx.category[p[0]] == TRUMP, ctx.strength[p[0]]))

    def follow(self, ctx: TrumpContext, rules: Rules, view: SeatView, table: Table) -> tuple[int, ...]:
        """Feed a partner who is winning safely, win cheaply when it is worth it, else follow low."""
        hand, lead = view.hand, view.plays[0]
        options = _options(ctx, rules, hand, lead)
        standing = standing_of(ctx, rules, view.plays)
        me = len(view.plays)
        shape = decompose(ctx, lead)
        n = rules.seats
        last = me == n - 1
        partner_winning = table.kin[view.seat][(view.leader + standing.best) % n] > 0.5
        on_table = sum(_points(p) for p in view.plays)
        if partner_winning and (last or _safe(ctx, n, view, table, standing)):
            return max(options, key=lambda p: (_points(p), -_cost(ctx, p)))
        winners = [p for p in options if advance(ctx, rules, shape, standing, p, index=me).best == me]
        if not last:  # a later opponent may still beat it: only a master (or a ruff) is a sure win
            winners = [
                p for p in winners if _is_master(ctx, table, p) or ctx.category[p[0]] != shape.category
            ]
        if winners and (on_table >= 10 or last or min(_cost(ctx, p) for p in winners) < 30):
            return min(winners, key=lambda p: (_cost(ctx, p), -_points(p)))
        return min(options, key=lambda p: (_points(p), _cost(ctx, p)))


def _safe(ctx: TrumpContext, seats: int, view: SeatView, table: Table, standing: Standing) -> bool:
    """Whether the partner's winning play will hold: it is a master, or a ruff the seat after cannot top
    (that seat has shown it holds the led suit)."""
    play = view.plays[standing.best]
    lead_cat = ctx.category[view.plays[0][0]]
    after = (view.seat + 1) % seats
    if standing.ruffed:
        return (after, lead_cat) not in table.voids
    return _is_master(ctx, table, play) and (lead_cat == TRUMP or (after, lead_cat) not in table.voids)


def _options(ctx: TrumpContext, rules: Rules, hand: Hand, lead: Sequence[int]) -> list[tuple[int, ...]]:
    """The engine's weakest-first follows plus a cheap and a strong ruff and the strongest in-suit play."""
    structure = rules.follow is FollowRule.STRUCTURE  # R16.3
    decks = rules.decks
    options = list(
        legal_plays(ctx, hand=hand, lead=lead, limit=LISTING, structure=structure, decks=decks).plays
    )
    n, cat = len(lead), ctx.category[lead[0]]
    own = [f for f in ctx.faces[cat] for _ in range(hand[f])]
    built: list[list[int]] = []
    if len(own) >= n:
        built.append(own[:n])
    elif not own:
        trumps = [f for f in ctx.faces[TRUMP] for _ in range(hand[f])]  # strongest first
        pairs = [f for f in reversed(ctx.faces[TRUMP]) if hand[f] >= 2]
        if len(trumps) >= n:
            built += [trumps[-n:], trumps[:n]]
            if n == 2 and pairs:
                built.append([pairs[0], pairs[0]])
    for play in built:
        verdict = check_follow(ctx, hand=hand, lead=lead, play=play, structure=structure, decks=decks)
        if contains(hand, play) and isinstance(verdict, Legal):
            options.append(tuple(play))
    return options
