"""A move chosen without any compiled kernel, for when the kernels are still compiling.

On an install whose numba cache was never warmed, the core kernels take about a minute to
compile; a manager's move request cannot wait that long.  The protocol loop then answers
from this module: plain Python over a dictionary of stones, with the line patterns of
:func:`gomoku_engine.core.patterns.classify_line` (the slow reference classifier, memoised)
and a one-ply choice:

1. a point that makes five for the side to move (it wins);
2. else a point where the opponent would make five (the only defence; under caro, where a
   five blocked at both ends does not win, the point past a four's open end stops it
   too, and a point that stops every five point of the opponent is preferred);
3. else the point with the highest sum of pattern values for both colours over the four
   directions (attack counts a little more than defence), among the empty points within
   two of a stone; on an empty board the centre (or, under an opening rule, the allowed
   point nearest to it).

With a deadline (the move's hard budget: with the classifier's memo still empty, the
second move of a process, scored in full while the kernel loader's thread was loading the
kernels, took 181-279 ms at a 200 ms turn on a loaded machine; issue 58, code of commit
25aea8b), the points are scored nearest the
last two stones first, where new threats are, and the best scored by the deadline is
played; the fives of steps 1 and 2 are looked for before, in every case, by counting the
stones in a row (the classifier only confirms a row of five), and at least one legal point
is always scored.

It is weak, but it is legal: under renju black never plays a foul, because a point is
refused when it makes an overline, two fours, or two lines classified ``OPEN_THREE``.
The classifier's open three does not ask whether the point that would make the straight
four is itself a foul, so it counts at least every real three: the test refuses every
real double three (and some legal points, which costs nothing here).
"""

from __future__ import annotations

import time
from collections.abc import Collection, Iterable, Sequence

from ..core.constants import (BLACK, DEAD, DOUBLE_FOUR, EMPTY, FIVE, FOUR, ONE, OPEN_FOUR,
                              OPEN_THREE, OPEN_TWO, OVERLINE, THREE, TWO, WALL, Rule)
from ..core.notation import Point
from ..core.opening_rules import allowed_first_moves
from ..core.patterns import LINE_CENTRE, classify_line

#: The four line directions ``(dx, dy)``: row, column and the two diagonals.
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))
#: Points within this distance of a stone (either axis) are candidates.
CANDIDATE_DISTANCE = 2
#: Value of a pattern a stone makes along one line (hand-set; attack and defence alike).
PATTERN_VALUE = {DEAD: 0, ONE: 1, TWO: 4, OPEN_TWO: 12, THREE: 30, OPEN_THREE: 200,
                 FOUR: 250, OPEN_FOUR: 5000, FIVE: 100000, OVERLINE: 0, DOUBLE_FOUR: 0}
#: Weight of the side to move's own patterns against the opponent's (which a stone blocks).
ATTACK_WEIGHT = 1.2

Stones = dict[Point, int]


def line_at(stones: Stones, width: int, height: int, x: int, y: int,
            direction: tuple[int, int]) -> list[int]:
    """The 11 cell codes centred on ``(x, y)`` along ``direction`` (off the board:
    ``WALL``), as :func:`gomoku_engine.core.patterns.classify_line` reads them."""
    dx, dy = direction
    cells = []
    for i in range(-LINE_CENTRE, LINE_CENTRE + 1):
        px, py = x + i * dx, y + i * dy
        cells.append(stones.get((px, py), EMPTY) if 0 <= px < width and 0 <= py < height
                     else WALL)
    return cells


def patterns_at(stones: Stones, width: int, height: int, rule: Rule, x: int, y: int,
                colour: int) -> list[int]:
    """The pattern a stone of ``colour`` on the empty ``(x, y)`` makes in each of the four
    directions (codes of :mod:`gomoku_engine.core.constants`)."""
    return [classify_line(line_at(stones, width, height, x, y, d), rule, colour)
            for d in DIRECTIONS]


def makes_five(patterns: list[int]) -> bool:
    """Does a stone with these four patterns win?"""
    return FIVE in patterns


def may_be_foul(patterns: list[int]) -> bool:
    """Could a black stone with these four patterns be a renju foul?  Exact for overlines
    and double fours, and true for every double three (see the module docstring)."""
    if makes_five(patterns):
        return False  # five wins, whatever else the stone makes
    fours = sum(p in (FOUR, OPEN_FOUR) for p in patterns)
    return (OVERLINE in patterns or DOUBLE_FOUR in patterns or fours >= 2
            or sum(p == OPEN_THREE for p in patterns) >= 2)


def candidates(stones: Stones, width: int, height: int) -> list[Point]:
    """Empty points within :data:`CANDIDATE_DISTANCE` of a stone, row by row."""
    near: set[Point] = set()
    reach = range(-CANDIDATE_DISTANCE, CANDIDATE_DISTANCE + 1)
    for sx, sy in stones:
        for dy in reach:
            for dx in reach:
                point = (sx + dx, sy + dy)
                if 0 <= point[0] < width and 0 <= point[1] < height and point not in stones:
                    near.add(point)
    return sorted(near, key=lambda p: (p[1], p[0]))


def _first_stone(width: int, height: int, opening_rule: str,
                 excluded: Collection[Point]) -> Point | None:
    allowed = [p for p in allowed_first_moves(opening_rule, width, height)
               if p not in excluded]
    if not allowed:
        return None
    cx, cy = width // 2, height // 2
    return min(allowed, key=lambda p: (abs(p[0] - cx) + abs(p[1] - cy), p[1], p[0]))


def kernel_free_move(width: int, height: int, rule: Rule,
                     stones: Iterable[tuple[int, int, int]], to_move: int,
                     excluded: Collection[Point] = frozenset(),
                     opening_rule: str = "none", deadline: float | None = None) -> Point:
    """A legal move for ``to_move`` chosen in plain Python (see the module docstring).

    :param stones: ``(x, y, colour)`` of every stone (colour 1 black, 2 white), in the
        order they were placed (the last ones are scored first).
    :param excluded: points to avoid (``YXBLOCK``) while another legal point is left.
    :param opening_rule: a name of :data:`gomoku_engine.core.opening_rules.OPENING_RULES`,
        which places black's first stone.
    :param deadline: ``time.perf_counter()`` seconds by which to return the best point
        scored so far (None: every candidate is scored); a five of ours, or the point
        that blocks the opponent's, is played whatever the deadline.
    :returns: ``(x, y)``, 0-based column and row.
    :raises ValueError: if the board is full (or, under renju, black has no legal point).
    """
    placed = list(stones)
    board: Stones = {(x, y): colour for x, y, colour in placed}
    rule = Rule(rule)
    if not board and to_move == BLACK:
        first = _first_stone(width, height, opening_rule, excluded)
        if first is not None:
            return first
    near = candidates(board, width, height)
    forced = _forced_point(board, width, height, rule, to_move, excluded, near)
    if forced is not None:
        return forced
    recent = [(x, y) for x, y, _ in placed[-2:]]
    best = _best_point(board, width, height, rule, to_move, excluded,
                       _nearest_first(near, recent), deadline)
    if best is None:  # no stone near (or, renju, every near point may be a foul)
        everywhere = [(x, y) for y in range(height) for x in range(width)
                      if (x, y) not in board]
        best = _best_point(board, width, height, rule, to_move, excluded, everywhere,
                           deadline)
    if best is None:
        raise ValueError("no legal point left for the side to move")
    return best


def _run_through(board: Stones, width: int, height: int, x: int, y: int,
                 colour: int) -> int:
    """The longest row of ``colour`` a stone on the empty ``(x, y)`` would be part of."""
    longest = 0
    for dx, dy in DIRECTIONS:
        run = 1
        for sign in (1, -1):
            px, py = x + sign * dx, y + sign * dy
            while 0 <= px < width and 0 <= py < height and board.get((px, py)) == colour:
                run += 1
                px, py = px + sign * dx, py + sign * dy
        longest = max(longest, run)
    return longest


def _forced_point(board: Stones, width: int, height: int, rule: Rule, to_move: int,
                  excluded: Collection[Point], points: list[Point]) -> Point | None:
    """A point of ``points`` (not excluded) where ``to_move`` makes five, else one where
    the opponent would (unless it is a renju foul for ``to_move``), else None.  A five
    needs a row of five stones (:func:`gomoku_engine.core.patterns.classify_line` says so
    first of all), so only the points with one are classified."""
    for colour in (to_move, 3 - to_move):
        fives = _five_points(board, width, height, rule, colour, points)
        if colour != to_move and rule.caro and fives:
            return _caro_block(board, width, height, rule, to_move, excluded, points, fives)
        for x, y in fives:
            if (x, y) in excluded:
                continue
            if (colour != to_move and rule == Rule.RENJU and to_move == BLACK
                    and may_be_foul(patterns_at(board, width, height, rule, x, y, BLACK))):
                continue
            return x, y
    return None


def _five_points(board: Stones, width: int, height: int, rule: Rule, colour: int,
                 points: list[Point]) -> list[Point]:
    """The points of ``points`` where ``colour`` makes five."""
    return [(x, y) for x, y in points
            if _run_through(board, width, height, x, y, colour) >= 5
            and makes_five(patterns_at(board, width, height, rule, x, y, colour))]


def _caro_block(board: Stones, width: int, height: int, rule: Rule, to_move: int,
                excluded: Collection[Point], points: list[Point],
                fives: list[Point]) -> Point:
    """Caro: a point of ``points`` (not excluded) after which the opponent has none of its
    five points ``fives`` left, the five points first; else the first five point (the game
    is lost)."""
    for point in fives + [p for p in points if p not in fives]:
        if point in excluded:
            continue
        board[point] = to_move
        stopped = not _five_points(board, width, height, rule, 3 - to_move,
                                   [f for f in fives if f != point])
        del board[point]
        if stopped:
            return point
    return fives[0]


def _nearest_first(points: list[Point], recent: Sequence[Point]) -> list[Point]:
    """``points`` by their distance (either axis) to the nearest of the ``recent`` stones,
    the nearest first; in their own order at equal distance."""
    if not recent:
        return points
    return sorted(points, key=lambda p: min(max(abs(p[0] - sx), abs(p[1] - sy))
                                            for sx, sy in recent))


def _best_point(board: Stones, width: int, height: int, rule: Rule, to_move: int,
                excluded: Collection[Point], points: list[Point],
                deadline: float | None = None) -> Point | None:
    """The highest valued of ``points`` that is legal for ``to_move`` (None: none is),
    scored in their order until ``deadline`` (``perf_counter`` seconds; once one legal
    point is scored); at equal value the first in row order, as without a deadline."""
    best: tuple[float, int, Point] | None = None
    for x, y in points:
        if best is not None and deadline is not None and time.perf_counter() >= deadline:
            break
        own = patterns_at(board, width, height, rule, x, y, to_move)
        if rule == Rule.RENJU and to_move == BLACK and may_be_foul(own):
            continue
        theirs = patterns_at(board, width, height, rule, x, y, 3 - to_move)
        value = (ATTACK_WEIGHT * sum(PATTERN_VALUE[p] for p in own)
                 + sum(PATTERN_VALUE[p] for p in theirs))
        if makes_five(own):
            value += 1e9  # our five first, ...
        elif makes_five(theirs):
            value += 1e8  # ... then the block of theirs
        if (x, y) in excluded:
            value -= 1e12  # only when nothing else is left
        rank = -(y * width + x)  # ties: the first in row order
        if best is None or (value, rank) > best[:2]:
            best = (value, rank, (x, y))
    return None if best is None else best[2]


__all__ = ["kernel_free_move", "line_at", "makes_five", "may_be_foul", "patterns_at"]
