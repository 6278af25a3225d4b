"""Forced quit (强退): the quitter's penalty and the system's automatic actions for him (R13, [003] only).

The penalty depends on the phase of the hand and the quitter's role (R13.2). It is capped at his balance,
and the system never covers a shortfall (R13.3). Where the coins go follows RULES.md's recommended
reading of R13.4: the hand is finished by auto-play and settled normally; if the quitter's side loses,
what he would owe the winners is paid out of the deducted coins; the rest is confiscated, and a quitter
whose side wins receives nothing.

If the dealer quits before burying, the system buries exactly the 8 bottom cards he received and then
leads the "rightmost smallest" card of his hand in the default (un-rearranged) layout (R13.6).

>>> from rules_core.rules import RULEBOOK_003
>>> quit_q2 = penalty(
...     rules=RULEBOOK_003, phase=Phase.Q2, role=Role.DEALER, base=100, dealer_level=7, overturn=2,
...     balance=10_000,
... )
>>> quit_q2.penalty, quit_q2.deducted, quit_q2.capped
(14000, 10000, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, TypeVar

from rules_core.cards import (
    BOTTOM_SIZE,
    DEALER_HAND_SIZE,
    HAND_SIZE,
    NUM_FACES,
    Hand,
    check_copies,
    check_size,
    contains,
    faces_of,
    format_card,
    hand_size,
    remove,
)
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.layout import LAYOUT_GROUPS, auto_lead, check_hand, default_layout
from rules_core.rules import Rules, require_rulebook_table
from rules_core.settlement import check_int, check_seat
from rules_core.taodou import check_overturn, check_stake
from rules_core.trump import TrumpContext

__all__ = [  # the R13.6 layout and automatic lead live in rules_core.layout; they are re-exported here
    "BASE_RATE",
    "DEALER_BURY_FACTOR",
    "LAYOUT_GROUPS",
    "PRE_DECLARATION_MULTIPLIER",
    "Penalty",
    "Phase",
    "Quit",
    "Role",
    "auto_bury",
    "auto_lead",
    "check_penalties_enabled",
    "default_layout",
    "forced_quit",
    "penalty",
    "penalty_amount",
]

E = TypeVar("E", bound=StrEnum)

BASE_RATE: Final = 5
"""R13.2: every penalty is B × DL × (a multiplier) × 5."""
PRE_DECLARATION_MULTIPLIER: Final = 8
"""R13.2 Q1: before trump is declared the multiplier is 8, the largest O, whatever O becomes."""
DEALER_BURY_FACTOR: Final = 2
"""R13.2 Q2: the dealer, who holds the bottom, pays double."""


class Phase(StrEnum):
    """When the player quit (R13.2)."""

    Q0 = "Q0"
    """Matching, character selection, before dealing: the game has not started."""
    Q1 = "Q1"
    """From the start of the deal until the first trump declaration (or the end of the deal, if none)."""
    Q2 = "Q2"
    """After the declaration, before burying is finished."""
    Q3 = "Q3"
    """After burying, before settlement."""


class Role(StrEnum):
    """The quitter's role in the hand (R0.4)."""

    DEALER = "dealer"
    PARTNER = "partner"
    """The dealer's partner: charged at the attacker rate in Q2 (R13.2 ambiguity, recommended)."""
    ATTACKER = "attacker"


@dataclass(frozen=True, slots=True)
class Penalty:
    """What a forced quit costs the quitter (R13.2–R13.5)."""

    penalty: int
    """R13.2: the charge for this phase and role."""
    deducted: int
    """R13.3: what is actually taken, ``min(penalty, balance)``; the system does not cover the rest."""
    capped: bool
    """Whether the balance was too small for the full penalty."""
    disconnects: int
    """R13.5: disconnects recorded, 1 in every phase."""
    paid_on_behalf: int | None
    """R13.4: the part of ``deducted`` paid to the winners for the quitter; None until the hand is settled."""
    confiscated: int | None
    """R13.4: the rest of ``deducted``, kept by the system; None until the hand is settled."""


def check_penalties_enabled(rules: Rules) -> None:
    """Reject a penalty request under a ruleset without coins (R13 exists only in [003])."""
    if not rules.coins:
        raise InvalidArgumentError(
            "ruleset",
            Problem.INCONSISTENT,
            "forced-quit penalties are off in this ruleset (Rules.coins is False)",
        )
    require_rulebook_table(rules, "the forced-quit penalty")


def penalty_amount(*, phase: Phase, role: Role, base: int, dealer_level: int, overturn: int) -> int:
    """R13.2: the charge before the balance cap; ``overturn`` is O at the moment of quitting.

    >>> penalty_amount(phase=Phase.Q1, role=Role.ATTACKER, base=100, dealer_level=2, overturn=1)
    8000
    """
    phase, role = _member(Phase, phase, "phase"), _member(Role, role, "role")
    check_stake(base=base, dealer_level=dealer_level, overturn=overturn)
    stake = base * dealer_level * BASE_RATE
    match phase:
        case Phase.Q0:
            return 0  # the game has not started
        case Phase.Q1:
            return stake * PRE_DECLARATION_MULTIPLIER
        case Phase.Q2 if role is Role.DEALER:
            return stake * overturn * DEALER_BURY_FACTOR
        case _:
            return stake * overturn  # Q2 attacker or partner, Q3 anyone


def penalty(
    *,
    rules: Rules,
    phase: Phase,
    role: Role,
    base: int,
    dealer_level: int,
    overturn: int,
    balance: int,
    quitter_side_lost: bool | None = None,
    owed: int | None = None,
) -> Penalty:
    """R13: what a quit costs, and, once the hand is settled, where the deducted coins go (R13.4).

    Give ``quitter_side_lost`` and ``owed`` (what the quitter would have owed the winners under R12)
    together, after the hand has been settled; a quitter whose side won owes nothing, so ``owed`` must
    then be 0. Without them ``paid_on_behalf`` and ``confiscated`` are None.
    """
    check_penalties_enabled(rules)
    charge = penalty_amount(phase=phase, role=role, base=base, dealer_level=dealer_level, overturn=overturn)
    check_int("balance", balance)
    deducted = min(charge, balance)  # R13.3: 不垫支
    paid_on_behalf = _paid_on_behalf(deducted=deducted, quitter_side_lost=quitter_side_lost, owed=owed)
    return Penalty(
        penalty=charge,
        deducted=deducted,
        capped=deducted < charge,
        disconnects=1,  # R13.5
        paid_on_behalf=paid_on_behalf,
        confiscated=None if paid_on_behalf is None else deducted - paid_on_behalf,  # R13.4: 系统没收
    )


def _paid_on_behalf(*, deducted: int, quitter_side_lost: bool | None, owed: int | None) -> int | None:
    """R13.4: the quitter's debt to the winners, paid from the deducted coins as far as they reach."""
    if quitter_side_lost is None and owed is None:
        return None
    if not isinstance(quitter_side_lost, bool) or owed is None:
        missing = "owed" if owed is None else "quitter_side_lost"
        raise InvalidArgumentError(
            missing, Problem.MISSING, "quitter_side_lost (a bool) and owed must be given together (R13.4)"
        )
    check_int("owed", owed)
    if not quitter_side_lost:
        if owed:
            raise InvalidArgumentError(
                "owed", Problem.INCONSISTENT, f"owed must be 0 when the quitter's side won, got {owed}"
            )
        return 0  # the quitter receives nothing
    return min(owed, deducted)


def _member(kind: type[E], value: str, argument: str) -> E:
    """A phase or role from its member or its value; anything else names the argument."""
    try:
        return kind(value)
    except ValueError:
        names = ", ".join(member.value for member in kind)
        raise InvalidArgumentError(
            argument, Problem.UNKNOWN_VALUE, f"unknown {kind.__name__} {value!r}; one of {names}"
        ) from None


def auto_bury(*, hand33: Hand, bottom: Sequence[int]) -> tuple[Hand, tuple[int, ...]]:
    """R13.6: a dealer who quits before burying buries exactly the 8 bottom cards he received.

    Returns his hand after burying (his original 25 cards) and the buried cards, in the order given.
    """
    check_hand(hand33)
    if hand_size(hand33) != DEALER_HAND_SIZE:
        raise InvalidArgumentError(
            "dealer_hand",
            Problem.BAD_SIZE,
            f"hand33 must hold {DEALER_HAND_SIZE} cards, got {hand_size(hand33)}",
        )
    buried = tuple(bottom)
    if len(buried) != BOTTOM_SIZE:
        raise InvalidArgumentError(
            "bottom", Problem.BAD_SIZE, f"bottom must hold {BOTTOM_SIZE} cards, got {len(buried)}"
        )
    for i, face in enumerate(buried):
        try:
            check_int("bottom card", face, high=NUM_FACES - 1)
        except InvalidArgumentError as error:
            raise InvalidArgumentError(f"bottom[{i}]", Problem.UNKNOWN_VALUE, error.message) from None
    if not contains(hand33, buried):
        missing = " ".join(
            format_card(face) for face in sorted(set(buried)) if buried.count(face) > hand33[face]
        )
        held = list(faces_of(hand33))
        for i, face in enumerate(buried):  # the first bottom card the dealer's 33 cards cannot account for
            if face not in held:
                raise InvalidArgumentError(
                    f"bottom[{i}]",
                    Problem.INCONSISTENT,
                    f"the bottom cards {missing} are not in the dealer's hand: "
                    "the bottom he received is part of the dealer's 33 cards",
                )
            held.remove(face)
    return remove(hand33, buried), buried


@dataclass(frozen=True, slots=True)
class Quit:
    """A forced quit as a request asks about it: the penalty, and the system's actions for a dealer."""

    penalty: Penalty
    auto_bury: tuple[int, ...]
    """R13.6: the 8 bottom cards buried for a dealer who quit before burying; () otherwise."""
    auto_lead: int | None
    """R13.6: the single card led for a quitting dealer, when his hand was given."""


def forced_quit(
    *,
    rules: Rules,
    phase: Phase,
    role: Role,
    seat: int,
    base: int,
    dealer_level: int,
    overturn: int,
    balance: int,
    quitter_side_lost: bool | None = None,
    owed: int | None = None,
    ctx: TrumpContext | None = None,
    dealer_hand: Sequence[int] = (),
    bottom: Sequence[int] = (),
) -> Quit:
    """R13: the request-level forced quit, its arguments named like the request's fields.

    ``dealer_hand`` (25 cards after burying, or 33 with the ``bottom`` he received) asks for the
    automatic bury and lead of a quitting dealer (R13.6), in the trump context ``ctx``.
    """
    check_penalties_enabled(rules)
    check_seat("seat", seat)
    check_overturn(overturn, "overturn_multiplier")
    result = penalty(
        rules=rules,
        phase=phase,
        role=role,
        base=base,
        dealer_level=dealer_level,
        overturn=overturn,
        balance=balance,
        quitter_side_lost=quitter_side_lost,
        owed=owed,
    )
    if not dealer_hand:
        if bottom:
            raise InvalidArgumentError(
                "bottom", Problem.INCONSISTENT, "the bottom goes with dealer_hand (R13.6)"
            )
        return Quit(result, (), None)
    if role is not Role.DEALER:
        raise InvalidArgumentError(
            "dealer_hand",
            Problem.INCONSISTENT,
            "the automatic bury and lead are for a quitting dealer (R13.6)",
        )
    if ctx is None:
        raise InvalidArgumentError("contract", Problem.MISSING, "the automatic lead needs the trump context")
    buried, hand = _dealer_cards(dealer_hand, bottom)
    return Quit(result, buried, auto_lead(ctx, hand))


def _dealer_cards(cards: Sequence[int], bottom: Sequence[int]) -> tuple[tuple[int, ...], Hand]:
    """R13.6 inputs: the cards buried for the dealer (the bottom he received) and his 25-card hand."""
    held = check_copies(cards, "dealer_hand")
    check_copies(bottom, "bottom")
    if len(cards) == HAND_SIZE:
        if bottom:
            raise InvalidArgumentError(
                "bottom", Problem.INCONSISTENT, "a dealer with 25 cards has buried already; omit bottom"
            )
        return (), held
    check_size(cards, "dealer_hand", DEALER_HAND_SIZE, DEALER_HAND_SIZE, "the dealer's hand (25 or 33 cards)")
    check_size(bottom, "bottom", BOTTOM_SIZE, BOTTOM_SIZE, "the bottom the dealer received")
    hand, buried = auto_bury(hand33=held, bottom=bottom)
    return buried, hand
