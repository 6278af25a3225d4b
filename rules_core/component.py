"""The component: one single, pair or tractor of a play (R3.1–R3.3), the unit every check reasons in.

Its own module so that the trump context (``rules_core.trump``) can hold every face's single and pair
component, built once per context, and ``rules_core.shapes`` can decompose plays into them.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules_core.cards import format_cards


@dataclass(frozen=True, slots=True)
class Component:
    """One single, pair or tractor inside a play (R3.1–R3.3).

    An immutable value (see ``rules_core.verdicts`` on why frozen, not ``Final`` fields). The single and
    pair components are shared, built once per context (``TrumpContext.singles``, ``.pairs``).
    """

    pairs: int
    """0 for a single, 1 for a pair, k for a k-tractor: the component's grade. On more decks (R14.3) the
    rungs of a tuple unit: 1 for a pair, triple or quadruple, k for a k-tractor of them; the width is
    the size over it (:func:`width`)."""
    top: int
    """Strength of its strongest rung (R3.7)."""
    order: int
    """The top face's total order, to break ties between equal components deterministically (R3.6)."""
    cards: tuple[int, ...]
    """Its faces with repeats, strongest first."""

    @property
    def kind(self) -> str:
        """'single', 'pair' or 'tractor'; on more decks 'triple' or 'quadruple' too (R14.3)."""
        if self.pairs == 1:
            return ("pair", "triple", "quadruple")[len(self.cards) - 2]
        return "single" if self.pairs == 0 else "tractor"

    @property
    def size(self) -> int:
        """Number of cards."""
        return len(self.cards)

    def describe(self) -> str:
        """Cards as text, e.g. ``'CQ CQ CJ CJ'``."""
        return format_cards(self.cards)


Grade = tuple[int, int]
"""(width, rungs) of a component: wider first, then longer (R3.6, R14.4). A pair is a tuple of width 2."""


def width(component: Component) -> int:
    """Copies per rung: 1 for a single, 2 for pairs and their tractors, 3 triples, 4 quadruples (R14.3)."""
    return len(component.cards) // component.pairs if component.pairs else 1


def grade(component: Component) -> Grade:
    """(width, rungs): the order of R3.6 and R14.4, highest first when sorted in reverse."""
    return width(component), max(component.pairs, 1)
