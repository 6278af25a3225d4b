"""``tractor-rules demo`` (``make demo``): one seeded hand through the engine, printed by the console
script a user runs. The printed hand must be a whole, legal hand: every dealt card played once, every
point either in a trick or in the bottom."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from rules_core.cards import parse_cards, points_of
from rules_core.rules import PRESETS

SCRIPT = Path(sys.executable).with_name("tractor-rules")
TRICK = re.compile(r"^\s*\d+\. (?P<plays>.+?)  -> seat (?P<winner>\d) by \w+, (?P<points>\d+) pts")
TOTAL_POINTS = 200  # R8: two decks of 5s, 10s and Ks
DEALT = 100  # R1: four hands of 25


def demo(*args: str) -> str:
    done = subprocess.run([SCRIPT, "demo", *args], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize(("seed", "preset"), [(7, "default"), (11, sorted(PRESETS)[-1])])
def test_the_demo_prints_a_whole_hand(seed: int, preset: str) -> None:
    out = demo("--seed", str(seed), "--rules", preset, "--level", "9")
    lines = out.splitlines()
    assert lines[0].startswith("level 9, contract ")
    buried = parse_cards(lines[1].removeprefix("buried: ").split())
    tricks = [match for line in lines if (match := TRICK.match(line))]
    played = [card for trick in tricks for play in trick["plays"].split(" | ") for card in play.split()]
    assert len(buried) == 8
    assert len(played) == DEALT  # R1: every card dealt to the four hands is played once
    assert sum(int(trick["points"]) for trick in tricks) + points_of(buried) == TOTAL_POINTS
    assert re.match(r"attackers scored -?\d+: (dealer_team|attackers) win", lines[-2]), lines[-2]


def test_a_level_out_of_range_or_an_unknown_preset_is_a_usage_error() -> None:
    done = subprocess.run([SCRIPT, "demo", "--level", "15"], capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "--level" in done.stderr
    done = subprocess.run([SCRIPT, "demo", "--rules", "nope"], capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "unknown preset 'nope'" in done.stdout
