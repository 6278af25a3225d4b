"""Loader for RULES.md's worked cases (``docs/rules/worked_cases.jsonl``, format in ``docs/rules/CASES.md``).

Each test module asks for the lines of one area and gets pytest params whose ids are the case ids.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from rules_core.cards import Suit, parse_cards, parse_rank
from rules_core.rules import (
    DEFAULT_RULES,
    MUST_PLAY_SETS,
    DigMultiplier,
    DigShape,
    EndRule,
    FirstDealer,
    FollowRule,
    FriendLimit,
    JackRule,
    LevelTable,
    MultipleJoin,
    MustPlaySet,
    NoBid,
    Partners,
    RuffStructure,
    Rules,
    ThrowCheck,
    ThrowPenalty,
    ThrowRuffCompare,
)
from rules_core.trump import TrumpContext, trump_context

RULES_DIR = Path(__file__).resolve().parents[1] / "docs" / "rules"
CASES_FILE = RULES_DIR / "worked_cases.jsonl"

Case = dict[str, Any]

_OPTION_FIELDS = {
    "THROW_PENALTY": ("throw_penalty", ThrowPenalty),
    "FOLLOW": ("follow", FollowRule),
    "JACK": ("jack_rule", JackRule),
    "NO_BID": ("no_bid", NoBid),
    "THROW_RUFF": ("throw_ruff_compare", ThrowRuffCompare),
    "THROW_PENALTY_POINTS": ("throw_penalty_points", int),
    "THROW": ("throw", ThrowCheck),
    "RUFF": ("ruff", RuffStructure),
    "DIG": ("dig_multiplier", DigMultiplier),
    "DIG_SHAPE": ("dig_shape", DigShape),
    "FIRST_DEALER": ("first_dealer", FirstDealer),
    "END": ("end", EndRule),
    "PARTNERS": ("partners", Partners),
    "FRIEND_CALLS": ("friend_calls", int),
    "MULTIPLE_JOIN": ("multiple_join", MultipleJoin),
    "SMALL_TEAM_BONUS": ("small_team_bonus", bool),
}


@cache
def all_cases() -> tuple[Case, ...]:
    """Every line of the file. A missing file fails the tests that need it: it is never a skip."""
    with CASES_FILE.open(encoding="utf-8") as lines:
        return tuple(json.loads(line) for line in lines if line.strip())


DEFAULT_TABLE = {"decks": 2, "seats": 4}
"""R14: the table of a line without ``table``: two decks, four seats (CASES.md)."""


def table_of(case: Case) -> tuple[int, int]:
    """A line's table shape (decks, seats), R14; two and four when it names none."""
    table = case.get("table", DEFAULT_TABLE)
    return table["decks"], table["seats"]


def cases(area: str, *, tables: bool = False) -> list[Any]:
    """pytest params for one area, with the case id as the test id. Lines of other tables (R14) only
    with ``tables``: a caller that can seat them asks for them."""
    return [
        pytest.param(case, id=case["id"])
        for case in all_cases()
        if case["area"] == area and (tables or table_of(case) == (2, 4))
    ]


def rules_for(case: Case) -> Rules:
    """The ruleset a line asks for: the defaults with its ``opts`` applied, on its table (R14)."""
    changes = _changes(case)
    decks, seats = table_of(case)
    if (decks, seats) != (2, 4):
        changes.update(decks=decks, seats=seats)  # R14
    if seats % 2:
        changes.setdefault("partners", Partners.FRIENDS)  # R15.1: an odd table finds its friends
    return dataclasses.replace(DEFAULT_RULES, **changes)


def table_rules_for(case: Case) -> Rules:
    """A ``friends`` line's ruleset (R15): its ``opts`` on its table's ``decks`` and ``seats``, in one go,
    so that an option checked against the table (FRIEND_CALLS, LEVEL_TABLE) meets the right one."""
    table = {"decks": case["input"]["decks"], "seats": case["input"]["seats"]}
    return dataclasses.replace(DEFAULT_RULES, **_changes(case), **table)


def _changes(case: Case) -> dict[str, Any]:
    """The ruleset fields a line's ``opts`` set."""
    changes: dict[str, Any] = {}
    for option, value in case["opts"].items():
        if option == "MUST_PLAY":
            changes["must_play"] = frozenset(parse_rank(level) for level in value)
        elif option == "MUST_PLAY_SET":
            changes["must_play"] = MUST_PLAY_SETS[MustPlaySet(value)]  # R16.5
        elif option == "LEVEL_TABLE":
            changes["level_table"] = LevelTable(**value)  # R16.1
        elif option == "FRIEND_LIMITS":
            changes["friend_limits"] = frozenset(FriendLimit(limit) for limit in value)  # R15.4
        else:
            name, kind = _OPTION_FIELDS[option]
            changes[name] = kind(value)
    return changes


FROM_DEALER = {"dealer": 0, "next": 1, "partner": 2, "previous": 3}
"""A settle line's seats, counted from the dealer (CASES.md)."""


def failed_throws(case: Case, dealer: int) -> list[tuple[int, int]]:
    """A settle line's failed throws (R16.2) as (seat, cards), for a dealer at ``dealer``."""
    return [
        ((dealer + FROM_DEALER[entry["seat"]]) % 4, entry["cards"])
        for entry in case["input"].get("failed_throws", [])
    ]


def last_trick_win(case: Case, dealer: int) -> tuple[int, tuple[int, ...]] | None:
    """A settle line's last-trick winner and winning cards (R16.4), for a dealer at ``dealer``."""
    win = case["input"].get("last_trick_win")
    if win is None:
        return None
    return (dealer + FROM_DEALER[win["seat"]]) % 4, parse_cards(win["cards"])


def context_for(case: Case) -> TrumpContext:
    """The trump context of a line (level and contract)."""
    trump = None if case["trump"] == "NT" else Suit[case["trump"]]
    return trump_context(parse_rank(case["level"]), trump)


def cards(names: list[str]) -> tuple[int, ...]:
    """Card names to faces."""
    return parse_cards(names)


def multiset(names: list[str]) -> Counter[int]:
    """Card names as a multiset of faces, for order-free comparison (CASES.md)."""
    return Counter(parse_cards(names))


def seat(label: str) -> int:
    """'P1'..'P8' to 0..7 (play order of the trick)."""
    return int(label[1:]) - 1


def attackers_of(case: Case) -> frozenset[int] | None:
    """A trick line's attacking seats (R14.9): given on odd tables, whose sides come from R15; else None
    (fixed partners). The winner and the points of a trick never depend on them."""
    labels = case["input"].get("attackers")
    return None if labels is None else frozenset(seat(label) for label in labels)
