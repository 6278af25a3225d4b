"""Issue 25 item 5: every answer that cannot depend on the table is the same on every table.

Every worked case of the play areas (R3-R8 on the rulebooks' table) and every golden whose answer cannot
depend on the table is sent through the servicer in process under every preset x {4, 6 seats} x {fixed
partners, finding friends} x two seatings, with its options pinned and, as extra axes, the other values
of the options it depends on (``tests/table_invariance.py`` says what is added around each case and why it
cannot change the answer). The invariant parts of each answer must equal the rulebooks' table answer
(two decks, four seats, fixed partners) for the same preset and options; a refusal must be the same
refusal. A test id is the case (or golden) and the options that differ from its own.
"""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf import json_format
from prometheus_client import CollectorRegistry
from table_invariance import (
    PRESET_NAMES,
    REQUESTS,
    TABLES,
    Answer,
    Body,
    DoesNotFitError,
    Item,
    Refused,
    describe_diff,
    differences,
    items,
    project,
    ruleset,
    seat,
)

from loadtest.bench_servicer import StubContext
from services.errors import InvalidRequestError
from services.metrics import Metrics
from services.servicer import RulesServicer

_SERVICER = RulesServicer(Metrics(registry=CollectorRegistry()))
_CONTEXT: Any = StubContext()
ITEMS = items()


def call(method: str, body: Body) -> Answer:
    """One RPC through the servicer in process: its answer, or the fields INVALID_ARGUMENT names."""
    request = json_format.ParseDict(body, REQUESTS[method]())
    try:
        answer: Answer = getattr(_SERVICER, method)(request, _CONTEXT)
    except InvalidRequestError as error:
        return Refused(tuple(v.field for v in error.violations))
    return answer


@pytest.mark.parametrize("item", [pytest.param(i, id=i.id) for i in ITEMS])
def test_the_answer_is_the_rulebooks_tables(item: Item) -> None:
    """R14, R15: the invariant answer on 4 and 6 seats, fixed partners and finding friends, is the
    rulebooks' table answer, under every preset and these options."""
    found, sent = differences(item, call)
    assert not found, "\n".join(found)
    assert sent > 0


def test_most_cases_fit_six_seats() -> None:
    """The cut to six seats' 17-card hands and 6-card bottom leaves out only a few cases (they are
    counted here, never dropped silently)."""
    fit = unfit = 0
    for item in ITEMS:
        try:
            seat(item.method, item.body, (6, "FIXED"), "between", ruleset("default", item.combo, 6, "FIXED"))
            fit += 1
        except DoesNotFitError:
            unfit += 1
    assert unfit <= fit // 10, (fit, unfit)


def _refusals(item: Item, ruleset_body: Body) -> list[str]:
    """Each table's answer to ``item`` under ``ruleset_body`` plus the table: the fields it refuses."""
    found = []
    for seats, partners in TABLES:
        table = {**ruleset_body, "seats": seats}
        if partners == "FRIENDS":
            table["partners"] = "PARTNERS_FRIENDS"
        body, _ = seat(item.method, item.body, (seats, partners), "between", table)
        answer = call(item.method, body)
        found.append(f"{seats} {partners}: {answer.fields if isinstance(answer, Refused) else 'answered'}")
    return found


@pytest.mark.parametrize("decks", [3, 4])
@pytest.mark.parametrize(
    "ruleset_body",
    [
        {"preset": "rulebook-000"},
        {"preset": "rulebook-001"},
        {"preset": "rulebook-003"},
        {"preset": "default", "ruff_structure": "RUFF_STRUCTURE_COUNT"},
    ],
    ids=["rulebook-000", "rulebook-001", "rulebook-003", "default+RUFF_COUNT"],
)
def test_ruff_count_past_two_decks_is_refused_naming_it(decks: int, ruleset_body: Body) -> None:
    """R14.7: RUFF-COUNT counts pairs and has no reading for triples, so on more than two decks every
    play RPC refuses it on every seat count and partners, naming ``ruleset.ruff_structure`` (never an
    answer that silently reads RUFF-COVER instead)."""
    wanted = ("WC-078-own", "WC-100-own", "ValidatePlay/follow_tractor_legal-own")
    chosen = [i for i in ITEMS if i.id in wanted]
    assert len(chosen) == 3
    for item in chosen:
        got = _refusals(item, {**ruleset_body, "decks": decks})
        assert all(line.endswith("('ruleset.ruff_structure',)") for line in got), (item.id, got)


@pytest.mark.parametrize("compare", ["THROW_RUFF_COMPARE_ALL", "THROW_RUFF_COMPARE_TRICK_UNIT_LENGTH"])
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_throw_ruffs_unit_by_unit_with_ruff_count_are_refused_naming_it(preset: str, compare: str) -> None:
    """R16.7: ALL and TRICK_UNIT_LENGTH read a ruff as the lead, which RUFF-COUNT does not give; with
    RUFF-COUNT (the preset's or an override) every table refuses naming ``ruleset.throw_ruff_compare``."""
    item = next(i for i in ITEMS if i.id == "WC-189a-own")
    count = {"preset": preset, "ruff_structure": "RUFF_STRUCTURE_COUNT", "throw_ruff_compare": compare}
    got = _refusals(item, count)
    assert all(line.endswith("('ruleset.throw_ruff_compare',)") for line in got), got


THREE_DECKS = ((4, "FIXED"), (6, "FRIENDS"))
"""Three-deck tables for the tricks of two copies at most: their cards read as on two decks (R14)."""


@pytest.mark.parametrize(
    "item",
    [
        pytest.param(i, id=i.id)
        for i in ITEMS
        if i.method == "ResolveTrick" and i.area != "dig" and i.combo["RUFF"] == "COVER"
    ],
)
def test_three_decks_read_the_trick_options_or_refuse_them(item: Item) -> None:
    """R14.7, R14.8, R16.7: a trick of at most two copies of each face has the same winner and judgements
    on three decks (a third copy is nowhere, so every unit is a single, a pair or a tractor of pairs as on
    two decks). An option such as THROW-RUFF is read there, or refused naming its ruleset field: never
    accepted and ignored."""
    reference_body, seating = seat(
        item.method, item.body, (4, "FIXED"), "after", ruleset("default", item.combo, 4, "FIXED")
    )
    reference = project(item.method, call(item.method, reference_body), seating, item.body)
    found = []
    for table in THREE_DECKS:
        rules = {**ruleset("default", item.combo, *table), "decks": 3}
        body, seating = seat(item.method, item.body, table, "after", rules)
        got = project(item.method, call(item.method, body), seating, item.body)
        refused_here = isinstance(got, tuple) and got[1] == ("ruleset.throw_ruff_compare",)
        if got != reference and not refused_here:
            found.append(f"3 decks {table[0]} seats {table[1].lower()}: {describe_diff(reference, got)}")
    assert not found, "\n".join(found)
