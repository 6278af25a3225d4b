"""rules_core: the pure-Python Tractor (拖拉机) rules engine. Standard library only; no I/O.

Glossary (one term per idea, used across modules; rule ids refer to RULES.md):

- **face**: one of the 54 card faces, an int 0..53 (``cards``). Two copies of each face exist (R1.2).
- **hand**: a count vector of 54 ints (``cards.Hand``).
- **level** (级) L: the rank the dealer team is playing, 2..14 (R2.1).
- **contract**: the trump suit T, or no-trump (R2.2, R2.10).
- **category**: TRUMP or a plain suit; "suit" in following and ruffing means category (R2.11).
- **strength**: a face's rung on its category's ladder, 0 = weakest (``trump``).
- **component**: a single, pair or tractor (拖拉机); its grade is its number of pairs (``shapes``, R3).
- **throw** (甩牌): a lead of several components of one category (R3.5, R4).
- **ruff** (毙牌) / **over-ruff** (盖毙): trumps played on a plain lead by a void follower (R6).
- **bottom** / kitty (底牌): the 8 cards the dealer buries (R11); **dig** (抠底): winning them (R8.3).
- **attackers** (闲家): the side collecting points; **dealer team** (庄家方): the other side (R0.4).
- **Tao Dou** (淘豆): coin settlement (R12); **forced quit** (强退): leaving a hand early (R13).

Every function is ``f(state, action) -> result`` over immutable values; illegal plays come back as
``verdicts.Illegal``, never as exceptions. Malformed input (an unknown card, a third copy) raises
``errors.InvalidArgumentError`` (a ValueError) naming the argument, which the service passes on as
INVALID_ARGUMENT.
"""

from rules_core import engine as _engine

ENGINE, ENGINE_REASON = _engine.choose(__path__)
"""The build this process runs, ``"compiled"`` or ``"python"``, and why (``rules_core.engine``)."""
