"""``tractor-rules demo``: one seeded hand through rules_core, printed: a look at the engine without a server.

Usage: ``make demo`` or ``tractor-rules demo --seed 7 --rules rulebook-003``. The hand is played by the
self-play seats and checked by the audit (AuditHand's engine), so what it prints is a legal hand.
"""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The demo's options."""
    parser.add_argument("--seed", type=int, default=7, help="the deal and every seat's choices")
    parser.add_argument("--level", type=int, choices=range(2, 15), default=2, help="the dealer team's level")
    parser.add_argument("--rules", default="default", help="a ruleset preset (default, rulebook-000, ...)")


def main(args: argparse.Namespace) -> int:
    """Play and print the hand; 0, 1 when the audit found a broken rule (an engine bug), 2 for an unknown
    preset. rules_core is imported here, not with the CLI: ``serve``'s supervisor must not load the engine
    before it forks its workers, which choose the build (rules_core.engine)."""
    from rules_core.audit import audit_hand  # noqa: PLC0415
    from rules_core.cards import format_cards, format_rank  # noqa: PLC0415
    from rules_core.rules import PRESETS  # noqa: PLC0415
    from rules_core.selfplay import play_hand  # noqa: PLC0415

    if args.rules not in PRESETS:
        print(f"tractor-rules demo: unknown preset {args.rules!r}; one of {', '.join(sorted(PRESETS))}")
        return 2
    rules = PRESETS[args.rules]
    record = play_hand(seed=args.seed, rules=rules, level=args.level)
    audit = audit_hand(rules, record)
    contract = audit.bidding.contract.name if audit.bidding.contract is not None else "NT"
    o = audit.bidding.overturn_multiplier
    print(f"level {format_rank(record.level)}, contract {contract}, dealer seat {audit.dealer}, O={o}")
    print(f"buried: {format_cards(record.buried)}")
    if audit.error is not None:
        print(f"the audit found a broken rule: {audit.error.finding.name}: {audit.error.message}")
        return 1
    for number, (trick, result) in enumerate(zip(record.tricks, audit.tricks, strict=True), start=1):
        plays = " | ".join(format_cards(play) for play in trick.plays)
        note = f"  (throw {format_cards(trick.attempted)} failed)" if trick.attempted else ""
        print(f"{number:2}. {plays}  -> seat {result.winner} by {result.won_by}, {result.points} pts{note}")
    s = audit.settlement
    assert s is not None  # a valid audit has its settlement
    print(f"attackers scored {audit.score}: {s.winner_side} win, +{s.g_eff} level(s)")
    print(f"next dealer: seat {s.next_dealer}")
    return 0
