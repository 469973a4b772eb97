"""Strength levels 1..10: search budgets by depth and nodes, not by time.

A level caps the iterative deepening (``Limits.depth``) and the node count
(``Limits.nodes``), so a level plays the same moves on a busy machine as on an idle one,
and two levels' relative strength does not depend on the load.  Level 10 is full
strength: no cap, only the manager's time control.  The manager's time limits still apply
to every level (a level never thinks longer than the time it is given).  Depth 2 plays no
better than depth 1 (measured: 19-20-1), so level 1 is depth 1 that also blunders now and
then (half of its moves: a random point next to a stone, seeded per game).

Chosen from measured matches (README, "Strength levels"): each level scores more than
50% against the level below it.  ``INFO strength 0..100`` (Rapfi's key,
``docs/protocol.md`` section 4) maps to a level with :func:`level_for_strength`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

MIN_LEVEL = 1
MAX_LEVEL = 10


@dataclass(frozen=True)
class Level:
    depth: int | None  #: deepest iteration (None: no cap)
    nodes: int | None  #: node budget per move (None: no cap)
    #: chance of replacing the searched move by a random point next to a stone (unless
    #: the search saw a forced win or loss); seeded per game, so still reproducible
    blunder: float = 0.0


#: The presets; level 10 has no cap.
LEVELS: dict[int, Level] = {
    1: Level(depth=1, nodes=None, blunder=0.5),
    2: Level(depth=2, nodes=None),
    3: Level(depth=3, nodes=None),
    4: Level(depth=4, nodes=None),
    5: Level(depth=5, nodes=None),
    6: Level(depth=6, nodes=20_000),
    7: Level(depth=7, nodes=40_000),
    8: Level(depth=8, nodes=80_000),
    9: Level(depth=9, nodes=150_000),
    10: Level(depth=None, nodes=None),
}


def level_for_strength(strength: int) -> int:
    """Level for ``INFO strength`` (0..100, clamped): 0 -> 1, 50 -> 6, 100 -> 10."""
    strength = max(0, min(100, strength))
    return MIN_LEVEL + (strength * (MAX_LEVEL - MIN_LEVEL) + 50) // 100  # rounds half up


def combine(limit: int | None, cap: int | None) -> int | None:
    """The tighter of two optional limits (None is no limit)."""
    if limit is None:
        return cap
    if cap is None:
        return limit
    return min(limit, cap)


def blunder_move(stones: list[tuple[int, int]], is_empty, rng: random.Random,
                 width: int, height: int) -> tuple[int, int] | None:
    """A random empty point next to a stone (8 neighbours), or None if there is none.

    :param is_empty: ``is_empty(x, y)`` for a point on the board.
    """
    near = sorted({(x + dx, y + dy) for x, y in stones for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                   if 0 <= x + dx < width and 0 <= y + dy < height and is_empty(x + dx, y + dy)})
    return rng.choice(near) if near else None
