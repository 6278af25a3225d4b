"""A strong auto-play (智能出牌): card counting plus a determinized search of the current trick.

:func:`suggest_play <rules_core.autoplay.suggest_play>` plays "rightmost smallest" (R13.6), the weakest
legal play. This module plays to win points for the seat's side with what a seat at a real table knows
(:class:`SeatView`): its hand, the cards already played, who is void in which category, the trick so far,
its side versus the others, who deals (attackers collect points, R8.2) and, for the dealer, the bottom
(dig at the last trick, R8.3–R8.5).

One policy for every table (R14, R15): the seats N, the copies D, the hand and bottom sizes
(``cards.deal_sizes``) come from the ``Rules``. Fixed partners are every other seat (R1.5, R14.9). Under
finding friends (R15) the sides are as far as the seat knows them (``SeatView.allies``, ``unfound``,
``settled``): the dealer and the friends who joined are on the dealer's side, every other seat holds an
equal share of the friends still to come, and the scores weigh each trick's points by those chances
(:func:`~rules_core.strategy.knowledge.sides`). A request's ``HandSoFar`` carries no friend calls, so
there only the dealer (and the seat itself, when it deals) is known. On the rulebooks' table every
figure is the one the four-seat policy computed before the table became a parameter.

How a play is chosen:

1. *Candidates*: a few plays worth comparing, never the exponential set: per category the top and the
   lowest single, the highest and lowest pair, each tractor, a throw of cards that no unseen card can
   beat (so it cannot fail, R4.4–R4.7), and a point card of a plain suit an ally has shown void in and
   no opponent has (the ally's ruff takes the points: a lead planned for the partner); for a follow,
   the rule engine's own listing (weakest first) plus the cheapest winning, the point-feeding and the
   ruffing plays, each checked with ``check_follow``.
2. *Layouts*: ``budget`` seeded deals of the unseen cards to the other seats, consistent with the voids
   the finished tricks revealed (R5.2), on two decks with the pairs a seat showed it lacks (it followed
   a pair or tractor lead in the suit with fewer pairs, R5.3), with every hand's size, and with what
   the bidding showed: each shown card stays with its seat until it plays it (R10.2; the dealer's may
   be in the bottom, R11; :mod:`~rules_core.strategy.shown`, which also rules that nothing is inferred
   from an act not made). Under fixed partners the follows of single leads are read too, as the
   opponents' model below would have played them: a follower that did not take an opponent's card holds
   no master of the suit, one that gave it points no cheaper card, the last seat fed its partner its
   richest card, a void seat that discarded on a rich trick holds no trump that takes it
   (:mod:`~rules_core.strategy.reading`). A draw that breaks one of these is mended by a chain of swaps,
   so late in a hand, when the voids leave little room, the layouts stay true to the table; the reads
   are habits, not rules, and yield to the voids when a layout cannot keep them all.
3. *Evaluation*: in each layout the seats still to play answer with a fixed model of a careful player
   (take an opponent's single or pair with a master, or with the cheapest winner when it plays last;
   feed a winning partner, ruff points, discard low), the trick is judged as R7 judges it, and the play
   scores the attackers' points it brings (signed for the seat's side, the dig included at the last
   trick), a small bonus for taking the lead, minus what the cards spent were worth for later tricks
   (masters, trumps and pairs are worth more than low cards, and a master is worth less once an
   opponent is void in its suit; a point card kept is worth a share of its points to the attackers and
   costs the dealer's side as much, and emptying a plain suit while holding trumps sets up a ruff), plus
   what the other seats' cards no longer do later (an opponent's trump spent cannot ruff, a point card
   shed no longer reaches the attackers).
4. *The end of the hand*: with two cards left and both sides known, the last two tricks are solved
   exactly in each layout (every seat's best legal play for its side, a min-max, the dig included), so
   a master kept for the last trick is weighed against the trick under way
   (:mod:`~rules_core.strategy.endgame`).

The work per call is bounded whatever the position: a call samples only as many layouts as fit every
candidate within :data:`MAX_WORK` units, the same layouts for each (a simulated trick costs
:data:`TRICK_WORK` plus its lead's cards, and its time is linear in the hands), at most
:data:`MAX_CANDIDATES` plays are simulated in every one of at most :data:`MAX_BUDGET` layouts, a solved
end judges at most MAX_WORK plays, and every listing is limited.
The count is part of the answer (:func:`search_plays`).

A suggestion's request holds no other seat's private cards (:mod:`~rules_core.strategy.privacy`).

The package: :mod:`~rules_core.strategy.knowledge` (what the seat knows), :mod:`~rules_core.strategy.reading`
(what the follows show a seat does not hold), :mod:`~rules_core.strategy.sampling` (layouts of the unseen
cards), :mod:`~rules_core.strategy.model` (the opponents' model),
:mod:`~rules_core.strategy.search` (candidates, simulation, scores) and :mod:`~rules_core.strategy.endgame`
(the last two tricks solved). Tricks are judged by :mod:`rules_core.trick` (R7 is written once).
"""

from rules_core.strategy.knowledge import SeatView
from rules_core.strategy.search import (
    DEFAULT_BUDGET,
    FOLLOW_LISTING,
    MAX_BUDGET,
    MAX_CANDIDATES,
    MAX_WORK,
    TEMPO,
    TRICK_WORK,
    Search,
    rank_plays,
    search_plays,
    strong_play,
    winning_play,
)

__all__ = [
    "DEFAULT_BUDGET",
    "FOLLOW_LISTING",
    "MAX_BUDGET",
    "MAX_CANDIDATES",
    "MAX_WORK",
    "TEMPO",
    "TRICK_WORK",
    "Search",
    "SeatView",
    "rank_plays",
    "search_plays",
    "strong_play",
    "winning_play",
]
