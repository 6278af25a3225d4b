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
from prometheus_client import CollectorRegistry
from table_invariance import REQUESTS, Answer, Body, Item, Refused, differences, items, seat, ruleset, Unfit

from loadtest.bench_servicer import StubContext
from services.errors import InvalidRequestError
from services.metrics import Metrics
from services.servicer import RulesServicer
from google.protobuf import json_format

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
            seat(item.method, item.body, 6, "FIXED", "between", ruleset("default", item.combo, 6, "FIXED"))
            fit += 1
        except Unfit:
            unfit += 1
    assert unfit <= fit // 10, (fit, unfit)
