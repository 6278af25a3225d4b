"""What a seat may be told when it asks for a suggestion (托管): its own cards and the table's public facts,
never another seat's private cards.

A suggestion must be one a player at the table could make, so its request may hold only what that seat
knows. A backend keeps whole records (every seat's received cards for ValidateDeclaration and AuditHand,
the bottom the dealer buried): forwarding one unstripped would let the auto-play see other hands, and the
service would be a different, cheating player. So a private field of another seat is refused, named by its
request path, rather than silently ignored:

* SuggestDeclaration: ``declarations[i].hand`` (the cards seat ``declarations[i].seat`` had received when
  it showed) is private to that seat. The asking seat may send its own; they must be among its
  ``received`` cards (R10.2: shown cards stay in the hand).
* SuggestPlay: ``hand_so_far.bottom`` (the 8 cards the dealer buried, R11) is the dealer's alone: only a
  seat that is ``hand_so_far.dealer`` may send it. Everything else there (the tricks, the points, what
  the bidding showed, who deals) is public.
* SuggestBury: every field is the dealer's own (its 33 cards and the bottom it picked up); nothing of
  another seat has a place there.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules_core.bidding import Shown
from rules_core.cards import COPIES, NUM_FACES, format_cards
from rules_core.errors import InvalidArgumentError, Problem


def refuse_other_hands(
    seat: int, acts: Sequence[Shown], received: Sequence[int], path: str = "declarations"
) -> None:
    """Refuse another seat's received cards in the acts (private to it); the asking seat's own must be
    among the cards it has received now."""
    have = [0] * NUM_FACES
    for face in received:
        if 0 <= face < NUM_FACES:
            have[face] += 1
    for index, (who, _cards, hand) in enumerate(acts):
        if hand is None:
            continue
        if who != seat:
            raise InvalidArgumentError(
                f"{path}[{index}].hand",
                Problem.INCONSISTENT,
                f"seat {who}'s received cards are private to it: a suggestion for seat {seat} may not be "
                f"told them; strip {path}[{index}].hand (send each act's seat and shown cards only)",
            )
        counts = [0] * NUM_FACES
        for face in hand:
            if 0 <= face < NUM_FACES and counts[face] < COPIES:
                counts[face] += 1
                if counts[face] > have[face]:
                    raise InvalidArgumentError(
                        f"{path}[{index}].hand",
                        Problem.INCONSISTENT,
                        f"seat {seat} had received {format_cards([face])} when it showed, but its received "
                        "cards now lack it: cards received stay in the hand",
                    )


def refuse_other_bottom(seat: int, dealer: int | None, bottom: Sequence[int], path: str) -> None:
    """The bottom the dealer buried is the dealer's alone (R11): refused from any other seat."""
    if bottom and dealer != seat:
        raise InvalidArgumentError(
            f"{path}.bottom",
            Problem.INCONSISTENT,
            "only the dealer knows the bottom: give dealer as this seat",
        )
