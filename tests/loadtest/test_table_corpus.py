"""The ``friends`` corpus kind (``loadtest.table_corpus``): whole seeded hands of the three-deck, six-seat
finding-friends table (R14, R15), each call's answer computed by rules_core; the servicer, the code a
worker runs, gives every one of them, and the same seeds give the same bytes."""

from __future__ import annotations

from collections import Counter
from typing import Any

from prometheus_client import CollectorRegistry

from loadtest import table_corpus
from loadtest.bench_servicer import StubContext
from loadtest.replay import Script, check
from rules_core.cards import deal_sizes
from services.metrics import Metrics
from services.servicer import RulesServicer
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import types_pb2 as t

HANDS = 3


def _scripts() -> list[Script]:
    return table_corpus.table_scripts(HANDS)


def test_the_service_gives_every_scripted_answer() -> None:
    """Every call of three hands through the servicer in process: the answer is the one the corpus
    computed with rules_core (ValidatePlay, ResolveTrick with the sides, SettleHand per seat)."""
    servicer = RulesServicer(Metrics(registry=CollectorRegistry()))
    context: Any = StubContext()
    for script in _scripts():
        for call in script.calls:
            response = getattr(servicer, call.method)(call.message(), context)
            check(call.method, response, call.expect)


def test_a_hand_is_a_whole_friends_hand() -> None:
    """R14.2, R15.15: the bury first, every card of the 26-card hands played in tricks of six plays
    led by the last winner from the dealer on, the calls and the record in every ResolveTrick, and
    SettleHand last with six seat levels."""
    size, bottom = deal_sizes(table_corpus.DECKS, table_corpus.SEATS)
    for script in _scripts():
        methods = Counter(call.method for call in script.calls)
        assert script.calls[0].method == "ValidateBury" and script.calls[-1].method == "SettleHand"
        assert methods["SettleHand"] == methods["ValidateBury"] == 1
        bury = pb.ValidateBuryRequest.FromString(script.calls[0].request)
        assert len(bury.bury) == bottom and len(bury.hand) == size + bottom
        tricks = [
            pb.ResolveTrickRequest.FromString(call.request)
            for call in script.calls
            if call.method == "ResolveTrick"
        ]
        played = sum(len(play.cards) for trick in tricks for play in trick.plays)
        assert played == size * table_corpus.SEATS
        for i, trick in enumerate(tricks):
            assert len(trick.plays) == table_corpus.SEATS
            assert len(trick.tricks_before) == i
            assert len(trick.friend_calls) == table_corpus.SEATS // 2 - 1  # R15.2's default
            assert trick.last_trick == (i == len(tricks) - 1)
        settle = pb.SettleHandRequest.FromString(script.calls[-1].request)
        assert len(settle.seat_levels) == table_corpus.SEATS and len(settle.tricks) == len(tricks)
        legal = [call.expect["legal"] for call in script.calls if call.method == "ValidatePlay"]
        assert legal.count(True) == table_corpus.SEATS * len(tricks)


def test_the_corpus_has_ruffs_wide_leads_and_illegal_attempts() -> None:
    """The traffic is a game's: tricks won by a ruff, leads of singles, pairs and tractors (R14.4),
    throws that fail (the forced part led, the attempt in the record and in SettleHand's failed throws,
    R4.7, R16.2), a few illegal follows."""
    calls = [call for script in table_corpus.table_scripts(6) for call in script.calls]
    won_by = Counter(call.expect["won_by"] for call in calls if call.method == "ResolveTrick")
    assert won_by[pb.JUDGEMENT_RUFF] + won_by[pb.JUDGEMENT_OVER_RUFF] > 0
    leads = [
        pb.ValidatePlayRequest.FromString(call.request)
        for call in calls
        if call.method == "ValidatePlay" and call.expect["legal"]
    ]
    widths = Counter(len(lead.cards) for lead in leads if not lead.HasField("trick"))
    assert widths[1] > 0 and widths[2] > 0 and max(widths) >= 4  # singles, pairs and tractors
    assert any(call.expect.get("legal") is False for call in calls)
    throws = Counter(
        call.expect.get("throw_outcome.result") for call in calls if call.method == "ValidatePlay"
    )
    assert throws[t.THROW_RESULT_FAILED] > 0  # R4.7: the forced part is led, the attempt recorded
    settles = [pb.SettleHandRequest.FromString(c.request) for c in calls if c.method == "SettleHand"]
    for settle in settles:
        attempts = [trick for trick in settle.tricks if trick.attempted_lead]
        assert len(attempts) == len(settle.failed_throws)
        assert all(len(trick.attempted_lead) > len(trick.plays[0].cards) for trick in attempts)
    assert any(settle.failed_throws for settle in settles)


def test_the_same_seeds_give_the_same_bytes() -> None:
    first, second = _scripts(), _scripts()
    assert [call.request for s in first for call in s.calls] == [
        call.request for s in second for call in s.calls
    ]
    assert [dict(call.expect) for s in first for call in s.calls] == [
        dict(call.expect) for s in second for call in s.calls
    ]
