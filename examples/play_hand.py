"""Play one seeded hand through rules_core and print it: a quick look at the engine without the service.

Usage: ``make demo`` or ``.venv/bin/python examples/play_hand.py --seed 7 --rules rulebook-003``.
"""

from __future__ import annotations

import argparse

from rules_core.audit import audit_hand
from rules_core.cards import format_cards, format_rank
from rules_core.rules import PRESETS
from rules_core.selfplay import play_hand


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--level", type=int, default=2, help="the dealer team's level, 2..14")
    parser.add_argument("--rules", choices=sorted(PRESETS), default="default")
    args = parser.parse_args()
    rules = PRESETS[args.rules]
    record = play_hand(seed=args.seed, rules=rules, level=args.level)
    audit = audit_hand(rules, record)
    contract = audit.bidding.contract.name if audit.bidding.contract is not None else "NT"
    o = audit.bidding.overturn_multiplier
    print(f"level {format_rank(record.level)}, contract {contract}, dealer seat {audit.dealer}, O={o}")
    print(f"buried: {format_cards(record.buried)}")
    for number, (trick, result) in enumerate(zip(record.tricks, audit.tricks, strict=True), start=1):
        plays = " | ".join(format_cards(play) for play in trick.plays)
        note = f"  (throw {format_cards(trick.attempted)} failed)" if trick.attempted else ""
        print(f"{number:2}. {plays}  -> seat {result.winner} by {result.won_by}, {result.points} pts{note}")
    assert audit.settlement is not None
    s = audit.settlement
    print(f"attackers scored {audit.score}: {s.winner_side} win, +{s.g_eff} level(s)")
    print(f"next dealer: seat {s.next_dealer}")


if __name__ == "__main__":
    main()
