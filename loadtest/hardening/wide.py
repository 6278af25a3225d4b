"""The worst legal-size requests on other tables (R14: three and four decks, up to eight seats), for the
hostile suite.

rbtying/shengji's server hung on four-deck throws of three or more tractors (its issue #411). These are
such requests, all of legal size and with every card count possible on the table: throws of many
triple and quadruple tractors against hands full of them, follows of them by the R14.6 ladder, and whole
tricks of N such plays (resolved, and checked against every hand). Each must be answered (OK, or
INVALID_ARGUMENT ``OUT_OF_RANGE`` past the rules' work ceiling, RULES.md R14.6) well inside the RPC
deadline; ``hostile`` sends them and prints the slowest.

The hands are dealt here only as card lists that fit the table (R14.1, R14.2); every verdict is the
service's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from google.protobuf.message import Message

from rules_core.cards import NUM_FACES, deal_sizes, parse_cards
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import types_pb2 as t

PLAIN: Final = ("S3", "S4", "S5", "S6", "S7", "S8", "S9", "S10", "SJack", "SQ", "SK", "SA")
"""The spades below the level 2, weakest first: a plain suit under hearts trumps."""
HEARTS: Final = ("H3", "H4", "H5", "H6", "H7", "H8", "H9", "H10", "HJ", "HQ", "HK", "HA")
FILL: Final = tuple(f"{suit}{rank}" for suit in "CD" for rank in (*"3456789", "10", "J", "Q", "K", "A"))
"""Clubs and diamonds: what fills a hand past the cards a case is about."""


@dataclass(frozen=True, slots=True)
class WideCase:
    """One request on another table: its name, RPC and message."""

    name: str
    method: str
    request: Message


def _cards(spec: str) -> list[int]:
    """``"S3*3 S4*3 SA"``: cards in RULES.md notation, each with an optional copy count."""
    out: list[str] = []
    for token in spec.split():
        card, _, copies = token.partition("*")
        out += [card] * int(copies or 1)
    return list(parse_cards(out))


def _wire(faces: Sequence[int]) -> list[t.Card.ValueType]:
    return [t.Card.ValueType(face + 1) for face in faces]


class Deal:
    """The hands of one table: some seats' cards given, the rest filled from clubs and diamonds, every
    card at most ``decks`` times (R14.1) and every hand the table's size (R14.2)."""

    def __init__(self, decks: int, seats: int, given: dict[int, str]) -> None:
        self.decks, self.seats = decks, seats
        self.size = deal_sizes(decks, seats)[0]
        left = Counter(dict.fromkeys(range(NUM_FACES), decks))
        self.hands: dict[int, list[int]] = {}
        for seat, spec in given.items():
            self.hands[seat] = _cards(spec)
            left.subtract(self.hands[seat])
        order = [*_cards(" ".join(FILL + HEARTS)), *range(NUM_FACES)]  # then the rest: spades, trumps
        fill = [face for face in dict.fromkeys(order) for _ in range(left[face])]
        for seat in range(seats):
            hand = self.hands.setdefault(seat, [])
            need = self.size - len(hand)
            hand += fill[:need]
            fill = fill[need:]
        self.bottom = fill  # the cards no hand holds: the bottom (R14.2) when every card is dealt
        used = Counter(face for hand in self.hands.values() for face in hand)
        assert all(used[face] <= decks for face in used), "a case holds more copies than the decks"
        assert all(len(hand) == self.size for hand in self.hands.values()), "a hand is not the table's size"

    def ruleset(self) -> t.Ruleset:
        return t.Ruleset(preset="default", decks=self.decks, seats=self.seats)

    def lead(self, seat: int, spec: str) -> pb.ValidatePlayRequest:
        """ValidatePlay: ``seat`` leads ``spec`` against every other hand (R14.5)."""
        others = [t.SeatCards(seat=s, cards=_wire(self.hands[s])) for s in range(self.seats) if s != seat]
        return pb.ValidatePlayRequest(
            ruleset=self.ruleset(),
            level=t.RANK_2,
            contract=t.CONTRACT_HEARTS,
            seat=seat,
            hand=_wire(self.hands[seat]),
            cards=_wire(_cards(spec)),
            other_hands=others,
        )

    def follow(self, seat: int, led: str, spec: str) -> pb.ValidatePlayRequest:
        """ValidatePlay: ``seat`` plays ``spec`` on the lead ``led`` of the seat before it (R14.6)."""
        leader = (seat - 1) % self.seats
        return pb.ValidatePlayRequest(
            ruleset=self.ruleset(),
            level=t.RANK_2,
            contract=t.CONTRACT_HEARTS,
            seat=seat,
            hand=_wire(self.hands[seat]),
            cards=_wire(_cards(spec)),
            trick=pb.Trick(leader=leader, plays=[t.SeatCards(seat=leader, cards=_wire(_cards(led)))]),
        )

    def trick(self, plays: Sequence[str], *, checked: bool) -> pb.ResolveTrickRequest:
        """ResolveTrick: seat 0 leads, every seat plays its spec (a number: that many of its first cards);
        ``checked`` sends every hand, so each play is judged too (R4, R5, R14.5, R14.6)."""
        cards = [
            self.hands[s][: int(spec)] if spec.isdigit() else _cards(spec) for s, spec in enumerate(plays)
        ]
        hands = [t.SeatCards(seat=s, cards=_wire(self.hands[s])) for s in range(self.seats)]
        return pb.ResolveTrickRequest(
            ruleset=self.ruleset(),
            level=t.RANK_2,
            contract=t.CONTRACT_HEARTS,
            leader=0,
            dealer=0,
            plays=[t.SeatCards(seat=s, cards=_wire(c)) for s, c in enumerate(cards)],
            hands=hands if checked else [],
        )


SIX_TRIPLES: Final = "S3*3 S5*3 S7*3 S9*3 SJack*3 SK*3"
"""Six triples, none adjacent: the R14.6 ladder's worst lead (tests/test_tables.py)."""
LOW_TRACTOR: Final = "S3*3 S4*3 S5*3 S6*3 S7*3 S8*3"
"""A six-rung triple tractor: one component (R4.2), so a whole trick of it is resolved."""
HIGH_TRACTOR: Final = "S9*3 S10*3 SJack*3 SQ*3 SK*3 SA*3"
THREE_TRIPLE_TRACTORS: Final = "S3*3 S4*3 S6*3 S7*3 S9*3 S10*3"


def four_decks() -> list[WideCase]:
    """Four decks, eight seats (hands of 26, R14.2), level 2, hearts trumps."""
    throw = Deal(4, 8, {0: f"{THREE_TRIPLE_TRACTORS} S5 S8", 1: "SJack*4 SQ*4 SK*4 SA*4 S5*3 S8*3"})
    mixed = "S3*2 S4*2 S5*2 S6 S7 S8*2 S9*2 S10*2 SJack*2 SQ*3 SK*3 SA*4"  # every width, 26 cards
    wide = Deal(4, 8, {0: mixed, 1: "S3*2 S4*2 S5*2 S6*3 S7*3 S8*2 S9*2 S10*2 SJack*2 SQ SK"})
    quads = Deal(4, 8, {0: "S3*4 S4*4 S6*4 S7*4 S9*4 S10*4 S5 S8", 1: "SJack*4 SQ*4 SK*4 SA*4 S5*3 S8*3"})
    ladder = Deal(4, 8, {0: SIX_TRIPLES, 1: "S4*4 S6*4 S8*4 S10*4 SQ*4 SA*4 S3 S5"})
    trick = Deal(
        4,
        8,
        {
            0: LOW_TRACTOR,
            1: "S9*4 S10*4 SJack*4 SQ*4 SK*4 SA*4",
            2: "S3 S4 S5 S6 S7 S8",
            3: "H3*3 H4*3 H5*3 H6*3 H7*3 H8*3",
            4: "H9*3 H10*3 HJ*3 HQ*3 HK*3 HA*3",
            5: "BJ*3 SJ*3 H2*3 S2*3 C2*3 D2*3",
            6: " ".join(HEARTS) + " BJ SJ H2 S2 C2 D2",
        },
    )
    tractors = Deal(4, 8, {0: THREE_TRIPLE_TRACTORS, 1: "SJack*4 SQ*4 SK*4 SA*4 S5*4 S8*4 S3 S4"})
    whole = [LOW_TRACTOR, HIGH_TRACTOR, *["18"] * 6]  # the others follow suit, ruff or discard
    return [
        WideCase(
            "4-deck 8-seat throw: 3 triple tractors vs a quadruple tractor",
            "ValidatePlay",
            throw.lead(0, f"{THREE_TRIPLE_TRACTORS} S5 S8"),
        ),
        WideCase("4-deck 8-seat throw: 26 spades of every width", "ValidatePlay", wide.lead(0, mixed)),
        WideCase(
            "4-deck 8-seat throw: 3 quadruple tractors + 2 singles",
            "ValidatePlay",
            quads.lead(0, "S3*4 S4*4 S6*4 S7*4 S9*4 S10*4 S5 S8"),
        ),
        WideCase(
            "4-deck 8-seat follow: 6 triples from 6 quadruples",
            "ValidatePlay",
            ladder.follow(1, SIX_TRIPLES, "S4*3 S6*3 S8*3 S10*3 SQ*3 SA*3"),
        ),
        WideCase(
            "4-deck 8-seat follow: 6 triples with 4 quadruples",
            "ValidatePlay",
            ladder.follow(1, SIX_TRIPLES, "S4*4 S6*4 S8*4 S10*4 S3 S5"),
        ),
        WideCase(
            "4-deck 8-seat follow: 3 triple tractors by quadruples",
            "ValidatePlay",
            tractors.follow(1, THREE_TRIPLE_TRACTORS, "SJack*3 SQ*3 SK*3 SA*3 S5*3 S8*3"),
        ),
        WideCase(
            "4-deck 8-seat trick of 8 18-card plays, 4 ruffs",
            "ResolveTrick",
            trick.trick(whole, checked=False),
        ),
        WideCase(
            "4-deck 8-seat trick of 8 18-card plays, every hand checked",
            "ResolveTrick",
            trick.trick(whole, checked=True),
        ),
    ]


def three_decks() -> list[WideCase]:
    """Three decks at six seats (hands of 26) and at four (hands of 38), level 2, hearts trumps."""
    six = Deal(3, 6, {0: f"{THREE_TRIPLE_TRACTORS} S5 S8", 1: "SJack*3 SQ*3 SK*3 SA*3 S5*2 S8*2"})
    four = Deal(
        3,
        4,
        {
            0: f"{THREE_TRIPLE_TRACTORS} S5 S8 SQ*2 SK*2 H3*3 H4*3 H6*3 H7*3",
            1: "SJack*3 SQ SK SA*3 S5*2 S8*2 H9*3 H10*3 HQ*3 HK*3",
        },
    )
    ladder = Deal(3, 6, {0: SIX_TRIPLES, 1: "S4*3 S6*3 S8*3 S10*3 SQ*3 SA*3"})
    trick = Deal(
        3,
        6,
        {
            0: LOW_TRACTOR,
            1: HIGH_TRACTOR,
            2: "H3*3 H4*3 H5*3 H6*3 H7*3 H8*3",
            3: "H9*3 H10*3 HJ*3 HQ*3 HK*3 HA*3",
            4: "BJ*3 SJ*3 H2*3 S2*3 C2*3 D2*3",
        },
    )
    whole = [LOW_TRACTOR, HIGH_TRACTOR, *["18"] * 4]
    return [
        WideCase(
            "3-deck 6-seat throw: 3 triple tractors vs a triple tractor",
            "ValidatePlay",
            six.lead(0, f"{THREE_TRIPLE_TRACTORS} S5 S8"),
        ),
        WideCase(
            "3-deck 4-seat throw: 26 spades of tractors and pairs",
            "ValidatePlay",
            four.lead(0, f"{THREE_TRIPLE_TRACTORS} S5 S8 SQ*2 SK*2"),
        ),
        WideCase(
            "3-deck 6-seat follow: 6 triples by the ladder",
            "ValidatePlay",
            ladder.follow(1, SIX_TRIPLES, "S4*3 S6*3 S8*3 S10*3 SQ*3 SA*3"),
        ),
        WideCase(
            "3-deck 6-seat trick of 6 18-card plays, every hand checked",
            "ResolveTrick",
            trick.trick(whole, checked=True),
        ),
    ]


def friends_record() -> list[WideCase]:
    """Four decks, eight seats, finding friends (R15): the longest hand record a table has (26 tricks of
    eight single cards, R15.15), replayed for the last trick's sides and for the settlement. The record's
    winners are an input (R15.15), so they are drawn here: each trick's winner leads the next."""
    deal = Deal(4, 8, {})
    ruleset = t.Ruleset(preset="default", decks=4, seats=8, partners=t.PARTNERS_FRIENDS)
    calls = [
        t.FriendCall(card=_wire(_cards(card))[0], copy=copy)
        for card, copy in (("SA", 4), ("HA", 3), ("CA", 2))
    ]
    record: list[pb.RecordedTrick] = []
    leader = 0  # the dealer leads the first trick
    for i in range(deal.size):
        plays = [
            t.SeatCards(seat=(leader + k) % 8, cards=_wire([deal.hands[(leader + k) % 8][i]]))
            for k in range(8)
        ]
        record.append(pb.RecordedTrick(plays=plays, winner=(leader + 3 * i + 1) % 8))
        leader = record[-1].winner
    last = record.pop()
    trick = pb.ResolveTrickRequest(
        ruleset=ruleset,
        level=t.RANK_2,
        contract=t.CONTRACT_DIAMONDS,
        leader=last.plays[0].seat,
        plays=last.plays,
        last_trick=True,
        bottom=_wire(deal.bottom),
        dealer=0,
        friend_calls=calls,
        tricks_before=record,
    )
    settle = pb.SettleHandRequest(
        ruleset=ruleset,
        dealer=0,
        contract=t.CONTRACT_DIAMONDS,
        seat_levels=[t.RANK_2] * 8,
        friend_calls=calls,
        tricks=[*record, last],
    )
    return [
        WideCase("4-deck 8-seat friends: the 26th trick after 25 recorded", "ResolveTrick", trick),
        WideCase("4-deck 8-seat friends: settling a 26-trick record", "SettleHand", settle),
    ]


def cases() -> list[WideCase]:
    """Every worst request on other tables."""
    return four_decks() + three_decks() + friends_record()


def reached(request: Message, response: Any) -> bool:
    """An OK answer did the work: a throw was judged (R14.5), a follow got its verdict, a trick was
    resolved seat by seat (every play of a checked one legal, as each case deals it)."""
    if isinstance(request, pb.ValidatePlayRequest):
        if request.other_hands:
            return bool(response.throw_outcome.result != t.THROW_RESULT_UNSPECIFIED)
        return bool(response.legal or response.violation != t.VIOLATION_UNSPECIFIED)
    if isinstance(request, pb.ResolveTrickRequest):
        seated = len(response.plays) == request.ruleset.seats
        sides = len(response.calls) == len(request.friend_calls)  # R15.8: every call's state
        return seated and sides and (response.legal or not request.hands)
    if isinstance(request, pb.SettleHandRequest):
        return len(response.seats) == request.ruleset.seats and len(response.calls) == len(
            request.friend_calls
        )
    return False
