"""Auditing whole hands on other tables (R14, R15): random hands played by the engine's advice, audited
against the engine's own per-trick functions (R14.5 leads, R14.6 follows, R14.8 winners, R15.8 sides,
R15.10-R15.13 settlement); tampered records are flagged with the first broken rule."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from rules_core.audit import Finding, SeatsRecord, TableAudit, audit_table
from rules_core.autoplay import suggest_table_bury
from rules_core.cards import NUM_FACES, SMALL_JOKER, Suit, deal_sizes, hand_of, rank_of
from rules_core.errors import InvalidArgumentError
from rules_core.follow import check_follow
from rules_core.friends import (
    FriendCall,
    Play,
    TableSettlement,
    Trick,
    call_count,
    check_calls,
    replay_sides,
    settle_table,
)
from rules_core.rules import DEFAULT_RULES, Partners, Rules
from rules_core.seating import SeatCards
from rules_core.throw import check_lead
from rules_core.trick import resolve_trick, standing_of
from rules_core.trump import TrumpContext, trump_context
from rules_core.turn import Policy, suggest
from rules_core.verdicts import Legal

TABLES = [(3, 6, Partners.FRIENDS), (4, 8, Partners.FIXED), (2, 5, Partners.FRIENDS)]
Recorded = list[tuple[list[SeatCards], list[int]]]


def _rules(decks: int, seats: int, partners: Partners) -> Rules:
    return replace(DEFAULT_RULES, decks=decks, seats=seats, partners=partners)


class PlayedHand:
    """One random hand played by the advice, with what the audit is given and what the engine ruled."""

    def __init__(self, rules: Rules, seed: int, policy: Policy = Policy.STRONG) -> None:
        rng = random.Random(seed)
        n = rules.seats
        size, _ = deal_sizes(rules.decks, n)
        self.level = rng.randint(2, 14)
        deck = [f for f in range(NUM_FACES) for _ in range(rules.decks)]
        rng.shuffle(deck)
        self.dealt = [deck[i * size : (i + 1) * size] for i in range(n)]
        self.bottom = deck[n * size :]
        self.dealer = rng.randrange(n)
        self.declarations, suit = self._declare(rng)
        self.ctx = trump_context(self.level, suit)
        self.calls = self._calls(rules, rng)
        self.levels = [rng.randint(2, 14) for _ in range(n)]
        self.levels[self.dealer] = self.level
        self._play(rules, policy)

    def _declare(self, rng: random.Random) -> tuple[list[tuple[int, tuple[int, ...], None]], Suit | None]:
        """R14.11: one seat shows a level card it was dealt, or nobody declares (no-trump)."""
        for seat in rng.sample(range(len(self.dealt)), len(self.dealt)):
            held = [f for f in self.dealt[seat] if f < SMALL_JOKER and rank_of(f) == self.level]
            if held and rng.random() < 0.7:
                return [(seat, (held[0],), None)], Suit(held[0] // 13)
        return [], None

    def _calls(self, rules: Rules, rng: random.Random) -> tuple[FriendCall, ...]:
        """R15.3: calls the ruleset's limits allow, drawn at random."""
        while True:
            calls = tuple(
                FriendCall(rng.randrange(NUM_FACES), rng.randint(1, rules.decks))
                for _ in range(call_count(rules))
            )
            try:
                check_calls(rules, self.ctx, calls)
            except InvalidArgumentError:
                continue
            return calls

    def _play(self, rules: Rules, policy: Policy) -> None:
        n = rules.seats
        held = self.dealt[self.dealer] + self.bottom
        self.buried = suggest_table_bury(self.ctx, rules, hand=held)
        for face in self.buried:
            held.remove(face)
        hands = [list(h) for h in self.dealt]
        hands[self.dealer] = held
        self.tricks: Recorded = []
        self.winners: list[int] = []
        leader = self.dealer
        while any(hands):
            plays: list[SeatCards] = []
            for i in range(n):
                seat = (leader + i) % n
                advice = suggest(
                    self.ctx,
                    rules,
                    seat=seat,
                    hand=hands[seat],
                    trick_leader=leader,
                    trick_plays=plays,
                    policy=policy,
                )
                for face in advice.cards:
                    hands[seat].remove(face)
                plays.append((seat, advice.cards))
            leader = plays[standing_of(self.ctx, rules, [p for _, p in plays]).best][0]
            self.tricks.append((plays, []))
            self.winners.append(leader)

    def played(self) -> list[Trick]:
        """The hand's tricks as R15's settlement reads them: each play and the trick's winner."""
        return [
            Trick(tuple(Play(s, c) for s, c in plays), w)
            for (plays, _), w in zip(self.tricks, self.winners, strict=True)
        ]

    def settled(self, rules: Rules, dig_points: int) -> TableSettlement:
        """R15.8-R15.13 for the hand as played, computed apart from the audit."""
        return settle_table(
            rules,
            self.ctx,
            dealer=self.dealer,
            levels=self.levels,
            calls=self.calls,
            tricks=self.played(),
            dig_points=dig_points,
        )

    def audit(self, rules: Rules, tricks: Recorded | None = None) -> TableAudit:
        record = SeatsRecord(
            level=self.level,
            seat_levels=tuple(self.levels),
            hands=tuple((seat, tuple(cards)) for seat, cards in enumerate(self.dealt)),
            bottom=tuple(self.bottom),
            declarations=tuple(self.declarations),
            buried=tuple(self.buried),
            tricks=tuple(self.tricks if tricks is None else tricks),
            calls=tuple(self.calls),
            dealer=self.dealer,
        )
        return audit_table(rules, record)


def _expected_dig(rules: Rules, ctx: TrumpContext, hand: PlayedHand, done: list[Trick]) -> int:
    """R14.9 by the engine's trick judge: the last trick with the final sides and the bottom."""
    final = replay_sides(rules, ctx, hand.dealer, hand.calls, done)[-1]
    plays, _ = hand.tricks[-1]
    result = resolve_trick(
        ctx,
        rules,
        leader=plays[0][0],
        plays=[cards for _, cards in plays],
        dealer=hand.dealer,
        last=True,
        bottom=hand.buried,
        attackers=frozenset(range(rules.seats)) - final.dealer_side,
    )
    return result.dig.added if result.dig else 0


@pytest.mark.parametrize(("decks", "seats", "partners"), TABLES)
def test_whole_hands_audit_as_the_engine_rules(decks: int, seats: int, partners: Partners) -> None:
    """R14, R15: a hand played legally is valid; its winners, sides and settlement are the engine's."""
    rules = _rules(decks, seats, partners)
    for seed in range(2):
        hand = PlayedHand(rules, decks * 100 + seats * 10 + seed)
        audit = hand.audit(rules)
        assert audit.valid, audit.error
        assert [r.winner for r in audit.tricks] == hand.winners  # R14.8
        for (plays, _), leader in zip(hand.tricks, audit.leaders, strict=True):  # R14.5, R14.6
            assert plays[0][0] == leader
        done = hand.played()
        sides = replay_sides(rules, hand.ctx, hand.dealer, hand.calls, done)
        assert audit.sides == sides  # R15.8
        expected = hand.settled(rules, _expected_dig(rules, hand.ctx, hand, done))
        assert audit.settlement == expected  # R15.10-R15.13
        assert audit.score == expected.score - expected.throw_penalty


def _foreign(hand: PlayedHand, rules: Rules, trick: int, offset: int) -> tuple[int, list[int]]:
    """The seat at ``offset`` in ``trick`` and a play of its size holding a face it has not got then."""
    plays, _ = hand.tricks[trick]
    seat, cards = plays[offset]
    left = list(hand.dealt[seat] + (hand.bottom if seat == hand.dealer else []))
    for t in range(trick):
        for s, c in hand.tricks[t][0]:
            if s == seat:
                for face in c:
                    left.remove(face)
    missing = next(f for f in range(NUM_FACES) if f not in left)
    return seat, [missing, *cards[1:]]


@pytest.mark.parametrize(("decks", "seats", "partners"), TABLES)
def test_tampered_records_are_flagged(decks: int, seats: int, partners: Partners) -> None:
    """A follow of a card not held (R5, R14.6), a trick led out of turn (R4.1) and a cut record (R8.3)."""
    rules = _rules(decks, seats, partners)
    hand = PlayedHand(rules, decks + seats)
    trick = len(hand.tricks) // 2
    seat, bad = _foreign(hand, rules, trick, 1)
    plays, attempted = hand.tricks[trick]
    tampered = list(hand.tricks)
    tampered[trick] = ([plays[0], (seat, tuple(bad)), *plays[2:]], attempted)
    audit = hand.audit(rules, tampered)
    assert audit.error is not None
    assert (audit.error.finding, audit.error.trick, audit.error.seat) == (Finding.ILLEGAL_FOLLOW, trick, seat)
    assert len(audit.tricks) == trick
    rotated = list(hand.tricks)
    rotated[trick] = ([*plays[1:], plays[0]], attempted)
    audit = hand.audit(rules, rotated)
    assert audit.error is not None and audit.error.finding is Finding.PLAY_OUT_OF_TURN
    audit = hand.audit(rules, hand.tricks[:-1])
    assert audit.error is not None and audit.error.finding is Finding.HAND_NOT_FINISHED


def test_bad_fields_are_named() -> None:
    """Malformed records are InvalidArgumentError naming the field (seat_levels, friend_calls, hands)."""
    rules = _rules(3, 6, Partners.FRIENDS)
    hand = PlayedHand(rules, 7)
    hand.levels = hand.levels[:-1]
    with pytest.raises(InvalidArgumentError) as caught:
        hand.audit(rules)
    assert caught.value.argument == "seat_levels"
    hand = PlayedHand(rules, 7)
    hand.calls = ()
    with pytest.raises(InvalidArgumentError) as caught:
        hand.audit(rules)
    assert caught.value.argument == "friend_calls"
    hand = PlayedHand(rules, 7)
    hand.dealt[0] = hand.dealt[0][:-1]
    with pytest.raises(InvalidArgumentError) as caught:
        hand.audit(rules)
    assert caught.value.argument == "hands[0].cards"


def test_leads_and_follows_are_the_engine_checks() -> None:
    """R14.5, R14.6: every play of a valid audit passes the engine's own lead and follow checks."""
    rules = _rules(2, 5, Partners.FRIENDS)
    hand = PlayedHand(rules, 3)
    audit = hand.audit(rules)
    assert audit.valid
    hands = [list(h) for h in hand.dealt]
    hands[hand.dealer] = [*hands[hand.dealer], *hand.bottom]
    for face in hand.buried:
        hands[hand.dealer].remove(face)
    for plays, _ in hand.tricks:
        leader = plays[0][0]
        others = {s: hands[s] for s in range(rules.seats) if s != leader}
        assert isinstance(
            check_lead(
                hand.ctx,
                rules,
                hand=hand_of(hands[leader], rules.decks),
                lead=plays[0][1],
                others={s: hand_of(c, rules.decks) for s, c in others.items()},
            ),
            Legal,
        )
        for seat, cards in plays[1:]:
            assert isinstance(
                check_follow(
                    hand.ctx,
                    hand=hand_of(hands[seat], rules.decks),
                    lead=plays[0][1],
                    play=cards,
                    decks=rules.decks,
                ),
                Legal,
            )
        for seat, cards in plays:
            for face in cards:
                hands[seat].remove(face)


def test_misrecorded_throw_and_bad_bury_are_flagged() -> None:
    """R4.7: an attempted lead recorded on a lead that stands is THROW_MISRECORDED; R14.2: burying a card
    the dealer does not hold is ILLEGAL_BURY."""
    rules = _rules(3, 6, Partners.FRIENDS)
    hand = PlayedHand(rules, 11)
    plays, _ = hand.tricks[0]
    misrecorded = [(plays, list(plays[0][1])), *hand.tricks[1:]]
    audit = hand.audit(rules, misrecorded)
    assert audit.error is not None
    assert (audit.error.finding, audit.error.trick) == (Finding.THROW_MISRECORDED, 0)
    held = hand.dealt[hand.dealer] + hand.bottom
    hand.buried = (next(f for f in range(NUM_FACES) if f not in held), *hand.buried[1:])
    audit = hand.audit(rules)
    assert audit.error is not None
    assert (audit.error.finding, audit.error.seat) == (Finding.ILLEGAL_BURY, hand.dealer)


def test_longest_hand_is_bounded() -> None:
    """R14.2, R15.15: the longest hand (four decks, four seats, 52 tricks of single leads: R13.6's
    auto-play) audits valid, well within time."""
    rules = _rules(4, 4, Partners.FRIENDS)
    hand = PlayedHand(rules, 5, Policy.RIGHTMOST_SMALLEST)
    audit = hand.audit(rules)
    assert audit.valid and len(audit.tricks) == 52 == len(audit.sides)


def test_rulebook_table_keeps_its_own_audit() -> None:
    """R14.10: two decks, four seats, fixed partners are rules_core.audit's; this module refuses them."""
    with pytest.raises(InvalidArgumentError) as caught:
        audit_table(DEFAULT_RULES, SeatsRecord(2, (2,) * 4, (), (), (), (), (), (), dealer=0))
    assert caught.value.argument == "ruleset"
