"""The game-move policy: how a game move is searched and chosen at a strength level.

One owner for what the protocol loop (:mod:`gomoku_engine.protocol.loop`) and the human
game (:mod:`gomoku_engine.play.human`, a layer above the protocol) both do for each move of
a game:

* the move's soft and hard budget, computed once when the move is asked for
  (:meth:`gomoku_engine.search.timeman.TimeControl.budget`);
* the strength level's depth and node caps (:data:`gomoku_engine.search.levels.LEVELS`),
  combined with the caller's own caps (``INFO max_depth`` / ``INFO max_node``): the tighter
  of each pair applies;
* the blunder rule: a level with a blunder rate replaces the searched move, with that
  chance, by a random empty point next to a stone, unless the search saw a forced win or
  loss (:func:`gomoku_engine.core.constants.mate_in`).

The time used is charged to the clock by the caller
(:meth:`gomoku_engine.search.timeman.TimeControl.charge`), since only the protocol has a
match clock.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..core.constants import mate_in
from ..core.notation import Point
from ..search.levels import LEVELS, MAX_LEVEL, blunder_move, combine
from ..search.limits import Limits, SearchResult


def move_limits(budget: tuple[float, float], level: int = MAX_LEVEL, *,
                max_depth: int | None = None, max_nodes: int | None = None,
                start: float | None = None, threats: bool = True, vct: bool = False,
                horizon_vcf: bool = False) -> Limits:
    """The :class:`Limits` of one game move.

    :param budget: ``(soft_ms, hard_ms)`` of the move, counted from ``start``
        (:meth:`gomoku_engine.search.timeman.TimeControl.budget`).
    :param level: strength level 1..10; its depth (plies) and node caps apply.
    :param max_depth: the caller's depth cap in plies (``None``: none).
    :param max_nodes: the caller's node cap (``None``: none).
    :param start: ``time.perf_counter()`` when the move was asked for (``None``: when the
        search begins).
    :param threats: root threat-space search (:attr:`Limits.threats`); ``vct`` and
        ``horizon_vcf`` as in :class:`Limits`.
    :raises KeyError: for a level outside 1..10.
    """
    caps = LEVELS[level]
    soft, hard = budget
    return Limits(hard_ms=hard, soft_ms=soft, depth=combine(max_depth, caps.depth),
                  nodes=combine(max_nodes, caps.nodes), start=start, threats=threats,
                  vct=vct, horizon_vcf=horizon_vcf)


def apply_blunder(result: SearchResult, level: int, rng: random.Random, stones: list[Point],
                  is_empty: Callable[[int, int], bool], width: int,
                  height: int) -> SearchResult:
    """The blunder rule of ``level``: maybe replace the searched move (in place).

    With the level's blunder chance, and only if the score is not a forced result, the
    move and principal variation become one random empty point next to a stone
    (:func:`gomoku_engine.search.levels.blunder_move`).  ``rng`` is drawn from only when the
    level blunders at all, so a full-strength game's random numbers are untouched.

    :param stones: the stones on the board, ``(x, y)`` points.
    :param is_empty: ``is_empty(x, y)`` for a point on the board (a legal move).
    :returns: ``result`` itself.
    :raises KeyError: for a level outside 1..10.
    """
    chance = LEVELS[level].blunder
    if chance and mate_in(result.score) is None and rng.random() < chance:
        move = blunder_move(stones, is_empty, rng, width, height)
        if move is not None:
            result.move, result.pv = move, [move]
    return result


__all__ = ["apply_blunder", "move_limits"]
