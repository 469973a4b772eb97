"""Yixin-Board's balanced openings: the move (``YXBALANCEONE <bias>``), or the pair of
moves (``YXBALANCETWO <bias>``: the side to move's, then the opponent's), after which the
score of the side to move in the given position is nearest ``bias``.

Yixin-Board uses them to make openings that neither side wins (bias 0) or that give one
side a chosen edge.  ``bias`` is in the engine's score units (the ``ev`` of the
``MESSAGE depth`` lines, for the side to move in the position given).  Rapfi's balance
modes define the same targets (its ``balancedValue``: ``-|value - bias| + bias`` ranks
the root moves); they re-rank the root moves inside its alpha-beta search.  Here the
engine's multi-PV search gives every root candidate its own exact score at the depth
reached (:meth:`gomoku_engine.engine.Engine.analyze`), and the nearest one is chosen.  A
pair is the nearest over a few first moves, each followed by the opponent's balancing
reply, searched the same way.  The first moves tried are those whose own score (the
opponent's best reply assumed) is nearest the bias: a weaker reply only gives the side
to move more, so a first move scoring far above the bias cannot be balanced by any
reply.  Only root candidates are weighed: the search's own move generator, at most
:data:`BALANCE_LINES`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..core.notation import Point
from ..engine import Engine, Limits, SearchResult

#: Lines of the multi-PV search weighed for one balancing move: the root's breadth limit
#: (the search has no more candidates to give).
BALANCE_LINES = 32
#: First moves of a pair tried, the nearest the bias first: each is followed by a search
#: for the opponent's balancing reply, so the time is shared among them.
PAIR_FIRST_MOVES = 6


@dataclass
class Balanced:
    """The answer to a balance command."""

    moves: list[Point]  #: the move, or the pair (ours, then the opponent's)
    #: after them, for the side to move in the position given (the engine's units)
    score: int
    result: SearchResult  #: the search that scored the last move, for the search line


def balanced_move(engine: Engine, limits: Limits, bias: int) -> Balanced:
    """The root move of ``engine.board`` after which the side to move's score is nearest
    ``bias`` (the better move first when two are as near).

    :param limits: the search's limits (:meth:`Engine.analyze`; ``excluded`` points are
        not weighed).
    :raises ValueError: if the board is full.
    """
    lines = engine.analyze(limits, multipv=BALANCE_LINES)
    best = min(lines, key=lambda line: abs(line.score - bias))  # the first of equals
    return Balanced([best.move], best.score, best)


def balanced_pair(engine: Engine, limits: Limits, bias: int,
                  stopped: Callable[[], bool] = lambda: False) -> Balanced:
    """The pair of moves, the side to move's and then the opponent's, after which the side
    to move's score is nearest ``bias``: for each of the :data:`PAIR_FIRST_MOVES` first
    moves whose own score is nearest ``bias``, the opponent's reply after which its own
    score is nearest ``-bias`` (:func:`balanced_move`).

    The time of ``limits`` (``hard_ms``, counted from ``limits.start``) is shared: two
    parts for scoring the first moves, then an equal part of what is left for each.  A first
    move that ends the game (a five, a full board) leaves no reply and is passed over;
    when every one does, the answer is the strongest alone.

    :param stopped: whether ``YXSTOP`` came (the searches already done then decide).
    :raises ValueError: if the board is full.
    """
    start = limits.start if limits.start is not None else time.perf_counter()
    scored = engine.analyze(_share(limits, start, 2, PAIR_FIRST_MOVES + 2),
                            multipv=BALANCE_LINES)
    firsts = sorted(scored, key=lambda line: abs(line.score - bias))[:PAIR_FIRST_MOVES]
    board = engine.board
    best: Balanced | None = None
    for done, first in enumerate(firsts):
        if best is not None and stopped():
            break
        board.play(*first.move)
        try:
            if board.winner or board.is_full:
                continue
            reply = balanced_move(engine, _share(limits, start, 1, len(firsts) - done),
                                  -bias)
        finally:
            board.undo()
        pair = Balanced([first.move, reply.moves[0]], -reply.score, reply.result)
        if best is None or abs(pair.score - bias) < abs(best.score - bias):
            best = pair
    if best is None:  # every first move ends the game: the nearest, and no reply
        return Balanced([firsts[0].move], firsts[0].score, firsts[0])
    return best


def _share(limits: Limits, start: float, parts: int, of: int) -> Limits:
    """``limits`` for ``parts`` of ``of`` equal parts of the time left since ``start``
    (the same limits when they have no time)."""
    if limits.hard_ms is None:
        return limits
    now = time.perf_counter()
    left = max(1.0, limits.hard_ms - (now - start) * 1000.0)
    hard = left * parts / of
    soft = hard if limits.soft_ms is None else min(hard, limits.soft_ms * parts / of)
    return dataclasses.replace(limits, hard_ms=hard, soft_ms=soft, start=now)


__all__ = ["BALANCE_LINES", "Balanced", "PAIR_FIRST_MOVES", "balanced_move", "balanced_pair"]
