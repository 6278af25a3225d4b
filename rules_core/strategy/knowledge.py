"""What the seat knows: its view of the table (SeatView) and what card counting derives from it once per
call: the unseen cards, the voids shown (R5.2), every seat's hand size, the sides, the bottom's worth,
and what each held card is worth for later tricks; and what a trick's points and a failed throw are worth
to the seat's side (the one-trick search and the solved end value them alike)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from rules_core.cards import NUM_FACES, POINTS, Hand, deal_sizes
from rules_core.component import width
from rules_core.friends import call_count
from rules_core.rules import DigShape, FollowRule, Partners, Rules
from rules_core.settlement import FailedThrow, throw_penalty
from rules_core.shapes import Decomposition, decompose
from rules_core.strategy.reading import read_follows
from rules_core.trick import dig_multiplier
from rules_core.trump import TRUMP, TrumpContext

MASTER: Final = 1.5
"""What a plain master (no unseen card of its suit beats it) is worth for later tricks, in points."""
DECAY: Final = 1.0
"""A plain card with k stronger unseen cards is worth MASTER / (1 + k) ** DECAY."""
TRUMP_BASE: Final = 2.0
"""Any trump is worth this much: it can ruff a plain lead later."""
TRUMP_TOP: Final = 20.0
"""A trump with k stronger unseen trumps is worth TRUMP_BASE + TRUMP_TOP / (1 + k)."""
PAIR_BONUS: Final = 1.0
"""Each copy of a held pair is worth this much more: pairs win and meet pair leads (R5.3)."""
SPLIT: Final = 1.0
"""Playing one copy of a pair costs this much more."""
POINT_FATE: Final = 0.2
"""A point card kept goes to the attackers later with about this chance: keeping it is worth its points
times this for the attackers, and costs as much for the dealer's side."""
VOIDING: Final = 5.0
"""Playing the last cards of a plain suit while holding trumps costs this much less: a void to ruff with."""


@dataclass(frozen=True, slots=True)
class SeatView:
    """What one seat at a real table knows when it is its turn to play."""

    seat: int
    """0..N-1, the seat to play (N = ``rules.seats``)."""
    hand: Hand
    """Its count vector (``rules_core.cards.Hand``)."""
    leader: int
    """The leader of the current trick."""
    plays: tuple[tuple[int, ...], ...] = ()
    """The current trick so far, in play order (empty: the seat leads). plays[0] is what was led."""
    dealer: int | None = None
    """The dealer seat, when known."""
    tricks: tuple[tuple[int, tuple[tuple[int, ...], ...]], ...] = ()
    """Finished tricks: (leader, one play per seat in play order)."""
    attacker_points: int | None = None
    """The attackers' points so far, when known."""
    bottom: tuple[int, ...] = ()
    """The buried cards (the table's bottom size, R11, R14.2), when the seat is the dealer."""
    shown: tuple[tuple[int, tuple[int, ...]], ...] = ()
    """What the bidding showed that other seats still hold: (seat, faces once per copy), shown and not
    yet played (R10.2; ``rules_core.strategy.shown``). The dealer's may be in the bottom instead (R11)."""
    allies: frozenset[int] = frozenset()
    """Finding friends (R15): seats besides the dealer known to be on the dealer's side (friends who
    joined, R15.5-R15.6, and the seat itself when it holds a called copy it will play). Ignored under
    fixed partners, where every other seat is a partner (R1.5, R14.9)."""
    unfound: int | None = None
    """Finding friends: how many friends may still join (None: the ruleset's call count less the allies);
    0 makes every seat outside the dealer's side a known attacker (R15.8)."""
    settled: bool = False
    """Finding friends: the seat knows its own side (on it when in ``allies``, else an attacker: it holds
    no called copy that can still make it a friend)."""


@dataclass(slots=True)
class Knowledge:
    """Everything derived from a view once per call: unseen cards, voids, sizes, sides, card values."""

    ctx: TrumpContext
    rules: Rules
    seat: int
    dealer: int | None
    unseen: list[int]
    """Face → copies the seat has not seen (in the other hands, the bottom, or unrecorded tricks)."""
    voids: list[list[bool]]
    """Seat → category → known void (it once followed that category with other cards, R5.2)."""
    sizes: list[int]
    """Seat → cards it holds now."""
    bottom_points: float
    """The bottom's points: exact for the dealer, else the unseen points' share of the bottom."""
    value: list[float]
    """Face → what one copy in the seat's hand is worth for later tricks, in points."""
    bottom_known: bool = False
    """Whether the seat is the dealer and knows the bottom (so no unseen card is in it)."""
    pinned: dict[int, list[int]] = field(default_factory=dict)
    """Seat → count vector of unseen cards the bidding showed it holds (R10.2), within ``unseen``."""
    loose: int | None = None
    """The seat whose pinned cards may be in the bottom instead (the dealer, when another seat asks: he
    may have buried them, R11); every other seat holds its pinned cards."""
    seats: int = 4
    """N, the table's seats (R14.1)."""
    bottom_size: int = 8
    """The bottom's size (R1.6, R14.2)."""
    kin: list[list[float]] = field(default_factory=list)
    """Seat → seat → +1 same side, -1 opposite sides, between for sides not yet known (finding friends:
    2 P(same side) - 1). Under fixed partners exactly ±1 (R1.5, R14.9)."""
    dealer_side: list[float] = field(default_factory=list)
    """Seat → the chance it is on the dealer's side (1 or 0 under fixed partners with the dealer known)."""
    exact: bool = True
    """Every side is known (fixed partners, or finding friends with every friend found and the seat's own
    side known): the scores read the sides as certain."""
    unpaired: list[list[bool]] = field(default_factory=list)
    """Seat → category → known to hold no pair of it (R5.3, see :func:`pair_units`); empty off the
    two-deck structure rule, where nothing is inferred."""
    barred: list[list[bool]] = field(default_factory=list)
    """Seat → face → known to hold no copy: it is void in the face's category (R5.2), or its follows
    show it does not hold the card (:mod:`~rules_core.strategy.reading`)."""


def partners(a: int, b: int) -> bool:
    """Fixed partners are every other seat (R1.5, R14.9: opposite on four seats)."""
    return (a - b) % 2 == 0


def allied(info: Knowledge, a: int, b: int) -> bool:
    """Whether seats ``a`` and ``b`` are on one side as far as the seat knows (fixed partners: every
    other seat; finding friends: both known on the dealer's side, or both known attackers)."""
    return info.kin[a][b] > 0.5


def infer_dealer(view: SeatView, cards_left: int, hand_size: int = 25) -> int | None:
    """The dealer when the view names it, else the first trick's leader (R4.1: the dealer leads it)."""
    if view.dealer is not None:
        return view.dealer
    if view.tricks:
        return view.tricks[0][0]
    if cards_left == hand_size:  # nothing played by this seat yet: this is the first trick
        return view.leader
    return None


def sides(rules: Rules, view: SeatView, dealer: int | None) -> tuple[list[list[float]], list[float], bool]:
    """The kinship matrix, each seat's chance of the dealer's side, and whether every side is known.

    Fixed partners: every other seat (R1.5, R14.9). Finding friends (R15): the dealer and ``view.allies``
    are on the dealer's side; the seat itself when ``view.settled`` says so; each other seat with an
    equal share of the friends still to join (R15.2, R15.5); none left, every other seat attacks."""
    n = rules.seats
    if rules.partners is Partners.FIXED:
        kin = [[1.0 if (a - b) % 2 == 0 else -1.0 for b in range(n)] for a in range(n)]
        if dealer is None:
            return kin, [0.5] * n, False
        return kin, [1.0 if (s - dealer) % 2 == 0 else 0.0 for s in range(n)], True
    known = set(view.allies)
    if dealer is not None:
        known.add(dealer)
    unfound = view.unfound
    if unfound is None:
        unfound = max(0, call_count(rules) - len(known - {dealer}))
    open_seats = [s for s in range(n) if s not in known and not (view.settled and s == view.seat)]
    share = min(1.0, unfound / len(open_seats)) if open_seats else 0.0
    side = [1.0 if s in known else share if s in open_seats else 0.0 for s in range(n)]
    if dealer is None:
        side = [0.5] * n
    kin = [
        [1.0 if a == b else 2 * (side[a] * side[b] + (1 - side[a]) * (1 - side[b])) - 1 for b in range(n)]
        for a in range(n)
    ]
    exact = dealer is not None and all(p in (0.0, 1.0) for p in side)
    return kin, side, exact


def knowledge(ctx: TrumpContext, rules: Rules, view: SeatView) -> Knowledge:
    """Card counting over the view: unseen cards, voids, hand sizes and card values."""
    hand = view.hand
    n_seats, copies = rules.seats, rules.decks
    hand_size, bottom_size = deal_sizes(copies, n_seats)
    unseen = [copies - hand[f] for f in range(NUM_FACES)]
    voids, unpaired = _shown_shape(ctx, rules, view, unseen)
    my_size = sum(hand)
    dealer = infer_dealer(view, my_size, hand_size)
    known = dealer == view.seat and len(view.bottom) == bottom_size
    if known:
        for face in view.bottom:
            if unseen[face] > 0:
                unseen[face] -= 1
    played_now = {(view.leader + i) % n_seats for i in range(len(view.plays))}
    n_now = len(view.plays[0]) if view.plays else 0
    sizes = [my_size - (n_now if s in played_now else 0) for s in range(n_seats)]
    sizes[view.seat] = my_size
    pinned: dict[int, list[int]] = {}
    if view.shown:  # R10.2: shown cards stay with their seat until it plays them
        free = list(unseen)
        for who, faces in view.shown:
            if who == view.seat:
                continue
            counts = pinned.setdefault(who, [0] * NUM_FACES)
            for face in faces:
                if free[face] > 0:
                    free[face] -= 1
                    counts[face] += 1
    loose = dealer if dealer is not None and dealer != view.seat else None
    if known:
        bottom_points = float(sum(POINTS[f] for f in view.bottom))
    else:
        held = [0] * NUM_FACES  # cards known to be in a hand, so not in the bottom
        for who, counts in pinned.items():
            if who != loose:
                for face in range(NUM_FACES):
                    held[face] += counts[face]
        pool = sum(unseen) - sum(held)
        pool_points = sum(POINTS[f] * (unseen[f] - held[f]) for f in range(NUM_FACES))
        bottom_points = pool_points * bottom_size / pool if pool > 0 else 0.0
    kin, dealer_side, exact = sides(rules, view, dealer)
    absent = read_follows(ctx, rules, (*view.tricks, (view.leader, view.plays)))
    info = Knowledge(
        ctx,
        rules,
        view.seat,
        dealer,
        unseen,
        voids,
        sizes,
        bottom_points,
        [],
        known,
        pinned,
        loose,
        n_seats,
        bottom_size,
        kin,
        dealer_side,
        exact,
        unpaired,
        _barred(ctx, voids, absent),
    )
    info.value = values(info, hand)
    return info


def _barred(ctx: TrumpContext, voids: list[list[bool]], absent: list[list[bool]]) -> list[list[bool]]:
    """Seat → face → no copy held: a void (R5.2) or what its follows show (``absent``, empty for none:
    ``reading.read_follows``)."""
    category = ctx.category
    if not absent:
        return [[void[category[f]] for f in range(NUM_FACES)] for void in voids]
    return [
        [void[category[f]] or read[f] for f in range(NUM_FACES)]
        for void, read in zip(voids, absent, strict=True)
    ]


def _shown_shape(
    ctx: TrumpContext, rules: Rules, view: SeatView, unseen: list[int]
) -> tuple[list[list[bool]], list[list[bool]]]:
    """Walk the recorded tricks and the trick so far: take their cards out of ``unseen``, and note each
    seat's voids (it followed a category with other cards, R5.2) and, on two decks under R5.3, the
    categories it holds no pair of (:func:`pair_units`)."""
    n_seats = rules.seats
    category = ctx.category
    voids = [[False] * 5 for _ in range(n_seats)]
    infer_pairs = rules.decks == 2 and rules.follow is FollowRule.STRUCTURE
    unpaired = [[False] * 5 for _ in range(n_seats)] if infer_pairs else []
    for leader, plays in (*view.tricks, (view.leader, view.plays)):
        if not plays or not plays[0]:
            continue
        cat = category[plays[0][0]]
        n = len(plays[0])
        owed = pair_units(plays[0]) if infer_pairs else 0
        for offset, play in enumerate(plays):
            for face in play:
                if unseen[face] > 0:
                    unseen[face] -= 1
            if offset and sum(1 for face in play if category[face] == cat) < n:
                voids[(leader + offset) % n_seats][cat] = True
            elif offset and owed and pair_units(play) < owed:
                unpaired[(leader + offset) % n_seats][cat] = True
    return voids, unpaired


def pair_units(play: Sequence[int]) -> int:
    """The pairs in a two-deck play (two copies of one face). A follower that played the led category
    in full with fewer pairs than the lead's held no pair of it left (R5.3: a pair step owes a pair
    while one is left, a tractor step as many pairs as it has), and will hold none."""
    seen: set[int] = set()
    pairs = 0
    for face in play:
        if face in seen:
            pairs += 1
            seen.discard(face)
        else:
            seen.add(face)
    return pairs


def values(info: Knowledge, hand: Hand) -> list[float]:
    """What one copy of each held face is worth for later tricks (in points): masters and trumps most."""
    ctx, unseen = info.ctx, info.unseen
    value = [0.0] * NUM_FACES
    opponents = [s for s in range(info.seats) if not allied(info, s, info.seat)]
    for cat in range(5):
        faces = ctx.faces[cat]  # strongest first
        left = sum(unseen[f] for f in faces)
        risk = 0.0
        if cat != TRUMP:
            risk = 0.35 * sum(1 for s in opponents if info.voids[s][cat])
            if left <= 3:
                risk += 0.3
            risk = min(risk, 0.8)
        higher = 0
        i = 0
        while i < len(faces):  # walk rung by rung: equal cards (off-suit level cards) share a rung
            rung = ctx.strength[faces[i]]
            j = i
            while j < len(faces) and ctx.strength[faces[j]] == rung:
                j += 1
            for face in faces[i:j]:
                if hand[face]:
                    if cat == TRUMP:
                        v = TRUMP_BASE + TRUMP_TOP / (1 + higher)
                    else:
                        v = MASTER / (1 + higher) ** DECAY * (1 - risk)
                    if hand[face] >= 2:
                        v += PAIR_BONUS  # a pair wins pair leads and meets follow obligations
                    value[face] = v
            higher += sum(unseen[f] for f in faces[i:j])
            i = j
    if POINT_FATE and info.dealer is not None:
        sign = POINT_FATE * (1 - 2 * info.dealer_side[info.seat])  # +: an attacker, -: the dealer's side
        for face in range(NUM_FACES):
            if hand[face] and POINTS[face]:
                value[face] += sign * POINTS[face]
    return value


def cost(info: Knowledge, hand: Hand, play: Sequence[int]) -> float:
    """What the cards of ``play`` were worth for later tricks; splitting a pair costs a little more."""
    value = info.value
    total = 0.0
    seen: dict[int, int] = {}
    for face in play:
        seen[face] = seen.get(face, 0) + 1
        total += value[face]
    for face, count in seen.items():
        if count < hand[face]:
            total += SPLIT
    if VOIDING and play:
        category = info.ctx.category
        cat = category[play[0]]
        if cat != TRUMP and all(category[f] == cat for f in play):
            held = sum(hand[f] for f in info.ctx.faces[cat])
            if held == len(play) and any(hand[f] for f in info.ctx.faces[TRUMP]):
                total -= VOIDING
    return total


def trick_worth(
    info: Knowledge,
    leader: int,
    plays: Sequence[Sequence[int]],
    lead: Decomposition,
    *,
    best: int,
    last: bool,
) -> tuple[float, float]:
    """A finished trick's points for the seat's side (the attackers' points signed, R8.2, R15.8; the dig
    at the last trick, R8.4, R14.9), and what one more point in it would be worth to the side (+1, -1 or
    0; ±0.5 with the dealer unknown; the expected share while friends are unknown)."""
    winner = (leader + best) % info.seats
    points = 0.0
    for play in plays:
        for f in play:
            points += POINTS[f]
    if info.dealer is None:
        coef = 0.5 if allied(info, winner, info.seat) else -0.5
        return points * coef, coef
    side = info.dealer_side
    attacking = 1.0 - side[winner]  # R8.2, R15.8: the attackers score what they win
    if last and attacking:
        rules = info.rules
        shape = lead if rules.dig_shape is DigShape.LEAD else decompose(info.ctx, plays[best])
        top = shape.components[0] if shape.components else None  # R8.4, R14.9: k rungs of w copies
        grade = (top.pairs, width(top)) if top is not None else (0, 2)
        points += info.bottom_points * dig_multiplier(rules, *grade)
    if info.exact:
        sign = 1.0 if side[info.seat] == 0.0 else -1.0
        coef = sign if attacking else 0.0
    else:  # finding friends with sides still open: the expected share, signed by the seat's own chance
        coef = (1.0 - 2.0 * side[info.seat]) * attacking
    return points * coef, coef


def failed_throw_cost(info: Knowledge, cards: int) -> float:
    """What a failed throw of ``cards`` cards by the seat costs its side (R16.2, the table's
    THROW-PENALTY, 0 under NONE): the attackers' total falls by it when the seat attacks and rises by it
    when the seat is of the dealer's side, so the seat's side pays it either way."""
    return float(abs(throw_penalty(info.rules, frozenset(), [FailedThrow(info.seat, cards)])))
