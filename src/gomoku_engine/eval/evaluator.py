"""The classical evaluation's kernels: per-point values kept in the make/unmake pass.

Every empty point has a value per colour, looked up in ``Tables.eval_table`` by the
point's 4-pattern code (:func:`gomoku_engine.eval.classical.combination_tables`), and the
sum of those values per colour; the static evaluation and the move-ordering scores read
them.  The arrays live in the position's named tuples (``Position.eval_value``,
``Position.eval_sum``, ``Tables.eval_table``, the ``EVAL_UNDO_FIELDS`` columns of
``Position.undo`` from the offset the position gives, the ``EVAL_SAVED_FIELDS`` columns of
``Position.count_stack``), but only this module reads or writes them.  Numba duck-types
the named tuples, so this module needs no import of :mod:`gomoku_engine.game`.

The hooks are ``inline="always"``: they run inside :func:`make_move`'s single pass over
the changed points (as Rapfi's ``Board::move`` keeps its classical values), where a call
per point, with every array of the position, would cost more than the update.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.constants import EVAL_LIMIT, Rule
from ..core.jit import njit
from .classical import DEFENCE_DIV, DEFENCE_NUM, EVAL_DIV, EVAL_OPP, EVAL_OWN, combination_tables

#: ``Position.state`` index of the side to move (1 black, 2 white), as in
#: :data:`gomoku_engine.game.position.TO_MOVE` (a test checks they agree)
TO_MOVE = 1
#: columns of one ``Position.undo`` row the evaluation uses: a point's two values
EVAL_UNDO_FIELDS = 2
#: columns of one ``Position.count_stack`` row the evaluation uses: the two value sums
EVAL_SAVED_FIELDS = 2


def eval_table(rule: Rule, evaluation: str) -> npt.NDArray[np.int32]:
    """``int32[65536]`` read-only: a point's value for one colour per 4-pattern code
    ``p0 | p1 << 4 | p2 << 8 | p3 << 12`` (``Tables.eval_table``).

    :param evaluation: a name of :data:`gomoku_engine.eval.classical.EVALUATIONS`.
    :raises ValueError: for an unknown ``evaluation``.
    """
    return combination_tables(rule, evaluation)[1]


def new_eval_state(n_cells: int) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]]:
    """The evaluation's incremental arrays for a board of ``n_cells`` padded cells, zeroed:
    ``(Position.eval_value int32[2, n_cells], Position.eval_sum int64[2])``."""
    return np.zeros((2, n_cells), np.int32), np.zeros(2, np.int64)


@njit(inline="always")
def _set_value(pos: Any, side: int, cell: int, v: int) -> None:
    pos.eval_sum[side] += v - pos.eval_value[side, cell]
    pos.eval_value[side, cell] = v


@njit(inline="always")
def update_point(pos: Any, tab: Any, side: int, cell: int, code: int) -> None:
    """An empty point's patterns for ``side`` (0 black, 1 white) changed to the 4-pattern
    ``code``: its value and the colour's sum follow."""
    _set_value(pos, side, cell, tab.eval_table[code])


@njit(inline="always")
def clear_point(pos: Any, side: int, cell: int) -> None:
    """``cell`` is worth nothing to ``side`` any more: occupied, or a renju foul for black."""
    _set_value(pos, side, cell, 0)


@njit(inline="always")
def reset_eval(pos: Any, tab: Any) -> None:
    """Empty board, before its points are added with :func:`update_point`."""
    pos.eval_value[:] = 0
    pos.eval_sum[:] = 0


@njit(inline="always")
def log_point(pos: Any, row: Any, col: int, cell: int) -> None:
    """Save ``cell``'s evaluation state into ``row[col:col + EVAL_UNDO_FIELDS]`` (an undo
    log row, written before a move changes the point)."""
    row[col] = pos.eval_value[0, cell]
    row[col + 1] = pos.eval_value[1, cell]


@njit(inline="always")
def restore_point(pos: Any, row: Any, col: int, cell: int) -> None:
    """Undo: ``cell``'s evaluation state back from a row written by :func:`log_point`."""
    pos.eval_value[0, cell] = row[col]
    pos.eval_value[1, cell] = row[col + 1]


@njit(inline="always")
def save_state(pos: Any, row: Any, col: int) -> None:
    """Before a move: the evaluation's position-wide state into
    ``row[col:col + EVAL_SAVED_FIELDS]`` (the ply's ``int64`` count-stack row)."""
    row[col] = pos.eval_sum[0]
    row[col + 1] = pos.eval_sum[1]


@njit(inline="always")
def restore_state(pos: Any, row: Any, col: int) -> None:
    """Undo: the position-wide state back from a row written by :func:`save_state`."""
    pos.eval_sum[0] = row[col]
    pos.eval_sum[1] = row[col + 1]


@njit
def evaluate(pos: Any) -> int:
    """Static evaluation for the side to move (int, clamped to +-EVAL_LIMIT).

    See :func:`gomoku_engine.eval.classical.static_score` for the formula.
    """
    side = pos.state[TO_MOVE] - 1
    own = pos.eval_sum[side]
    opp = pos.eval_sum[1 - side]
    score = (EVAL_OWN * own - EVAL_OPP * opp) // EVAL_DIV
    if score > EVAL_LIMIT:
        return EVAL_LIMIT
    if score < -EVAL_LIMIT:
        return -EVAL_LIMIT
    return score


@njit(inline="always")
def move_score(pos: Any, side: int, cell: int) -> int:
    """The search's one-ply order of a move of ``side`` on the empty ``cell``: its attack
    value plus ``DEFENCE_NUM / DEFENCE_DIV`` of its defence value (the other side's)."""
    return pos.eval_value[side, cell] + DEFENCE_NUM * pos.eval_value[1 - side, cell] // DEFENCE_DIV


@njit(inline="always")
def point_priority(pos: Any, side: int, cell: int) -> int:
    """A point's attack plus defence value for ``side`` (int64), the tie-break of the
    threat solver's order after the threat class."""
    return pos.eval_value[side, cell] + pos.eval_value[1 - side, cell]


def point_priorities(pos: Any, side: int,
                     cells: npt.NDArray[np.int32]) -> npt.NDArray[np.int64]:
    """``int64[len(cells)]``: :func:`point_priority` of each of ``cells`` (numpy, outside
    the kernels: the root's VCF-defence order)."""
    return pos.eval_value[side, cells].astype(np.int64) + pos.eval_value[1 - side, cells]
