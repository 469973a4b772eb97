"""The defences of a four: the points where one stone stops every five point of a side.

Under freestyle, standard and renju that is the five point itself, and two five points
cannot be stopped.  Under caro (a five blocked by the opponent at both ends does not win)
a four blocked at one end is also stopped by the point just past its other end, and two
five points of one line may share that point (``o.xxxx.``).  Every kernel that answers a
four (the search's forced block, its quiescence and quick win, the VCF and VCT solvers,
the root's threat search) takes the defences from :func:`five_defences`, so the rule has
one owner: the line patterns (:mod:`gomoku_engine.core.patterns`), whose five points the
candidates are tried against.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..core.constants import EMPTY, FIVE, T_FIVE
from ..core.jit import njit
from .position import P_CARO, Position, Tables, find_threat, make_move, pattern_at, unmake_move

#: the most defences :func:`five_defences` writes: the five point and, per direction, the
#: two points past the ends of the five it completes
MAX_DEFENCES = 9


@njit(inline="always")
def five_defences(pos: Position, tab: Tables, attacker: int, out: npt.NDArray[np.int32],
                  row: int) -> int:
    """The points where the side to move (the defender) stops every five point of
    ``attacker`` (0 black, 1 white) with one stone, written to ``out[row]`` (``out``:
    int32[rows, at least :data:`MAX_DEFENCES`], flat cells; a row of the search's move
    buffers); returns how many (0: none, the five comes).

    The caller has checked that ``attacker`` has a five point.  Without caro: the one five
    point, or none for two (renju fouls are the caller's).  Under caro: each candidate (the
    first five point, and the empty points just past the ends of the five it completes on
    each of its lines) is played and kept if ``attacker`` has no five point after it, so
    that a defence is exactly what the line patterns say stops the five.  The board is
    restored.  Source of the rule: Gomocup's caro (``INFO rule`` 8), a five blocked at both
    ends does not win; the defence past the open end is the consequence.

    Inlined into its callers (the search answers a four at every forced node, where a call
    passing every array of the position cost more than the answer); caro's part is a
    call of its own, as only that rule pays for it (:data:`gomoku_engine.inlining.HOT_PATH`).
    """
    five = find_threat(pos, tab, attacker, T_FIVE)
    if tab.params[P_CARO] == 0:
        if pos.threat_count[attacker, T_FIVE] >= 2:
            return 0
        out[row, 0] = five
        return 1
    return _caro_five_defences(pos, tab, attacker, out, row, five)


@njit
def _caro_five_defences(pos: Position, tab: Tables, attacker: int,
                        out: npt.NDArray[np.int32], row: int, five: int) -> int:
    """:func:`five_defences` under caro, ``five`` the attacker's first five point."""
    colour = attacker + 1
    n = 0
    if _stops(pos, tab, attacker, five):
        out[row, n] = five
        n += 1
    for d in range(4):
        if pattern_at(pos, attacker, five, d) != FIVE:
            continue
        step = tab.directions[d]
        for sign in (-1, 1):
            cell = five + sign * step
            while pos.cells[cell] == colour:
                cell += sign * step
            if pos.cells[cell] == EMPTY and not _listed(out, row, n, cell) and _stops(
                    pos, tab, attacker, cell):
                out[row, n] = cell
                n += 1
    return n


@njit
def _stops(pos: Position, tab: Tables, attacker: int, cell: int) -> bool:
    """Does the side to move's stone on ``cell`` leave ``attacker`` no five point?"""
    make_move(pos, tab, cell)
    stopped = pos.threat_count[attacker, T_FIVE] == 0
    unmake_move(pos, tab)
    return stopped


@njit(inline="always")
def _listed(out: npt.NDArray[np.int32], row: int, n: int, cell: int) -> bool:
    for i in range(n):
        if out[row, i] == cell:
            return True
    return False


__all__ = ["MAX_DEFENCES", "five_defences"]
