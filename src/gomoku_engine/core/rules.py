"""Renju fouls: the points where black may not play.

Under renju (``INFO rule 4``) black loses by playing a *foul*: an **overline** (six or more
in a row), a **double four** (two fours at once, two fours on one line included) or a
**double three** (two threes at once), unless the same move makes exactly five, which
wins regardless.  A *four* is a line where one more stone makes exactly five; a *three*
is a line that one more stone turns into a *straight four* (four in a row with both ends
free, each making exactly five), **provided that stone is not itself a foul** -- the
recursive definition of the international renju rules (RIF), which makes a double three
depend on further double threes ("nested" fouls).

The checker follows the Piskvork referee's judge (``check_forbid`` of the ``renju`` PyPI
package is a port of it, and the tests compare the two on random positions): an
extension point that would make a five counts as unusable for a three, like a foul.

Kernels work on the padded flat board of :mod:`gomoku_engine.core.geometry` (``int8`` cells,
``WALL`` around the playing area, ``directions`` the four flat steps).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .constants import BLACK, EMPTY, Rule
from .jit import njit

# Foul types, numbered as Piskvork's judge and the ``renju`` package number them.
LEGAL = 0
DOUBLE_THREE = 1
DOUBLE_FOUR = 2
OVERLINE = 3
MAKES_FIVE = 4  #: only in nested checks: the extension point makes five (not a three)

FOUL_NAMES = {DOUBLE_THREE: "double three", DOUBLE_FOUR: "double four", OVERLINE: "overline"}

#: Renju games stop as a draw when this many empty points remain: GomocupJudge's rule (the
#: Gomocup's "draw after 200 moves" of 2016 on 15x15; docs/protocol.md section 7).
#: Without it a renju game can reach a board whose last empty points are all fouls
#: for black, who then has no legal move (the match referee and the self-play games both
#: stop there).
RENJU_DRAW_EMPTY = 25


def renju_cut_off(rule: int, empty: int, limit: int = RENJU_DRAW_EMPTY) -> bool:
    """Has a game under ``rule`` (an ``INFO rule`` code) with ``empty`` points left reached
    the renju cut-off (:data:`RENJU_DRAW_EMPTY`, or ``limit``): a draw?  Never under the
    other rules."""
    return rule == Rule.RENJU and empty <= limit


@njit
def _run(cells: npt.NDArray[np.int8], cell: int, step: int) -> int:
    """Length of the row of black stones through ``cell`` (which holds black) along ``step``."""
    n = 1
    other = cell - step
    while cells[other] == BLACK:
        n += 1
        other -= step
    other = cell + step
    while cells[other] == BLACK:
        n += 1
        other += step
    return n


@njit
def _five_points(cells: npt.NDArray[np.int8], cell: int, step: int) -> tuple[int, int]:
    """Empty points on the line that make exactly five with ``cell``: ``(count, span)``.

    ``span`` is the distance between the first and the last of them: two five points five
    cells apart are the ends of a straight four.
    """
    count = 0
    first = 0
    last = 0
    for k in range(-4, 5):
        other = cell + k * step
        if k == 0 or cells[other] != EMPTY:
            continue
        cells[other] = BLACK
        if _run(cells, cell, step) == 5:
            if count == 0:
                first = k
            last = k
            count += 1
        cells[other] = EMPTY
    return count, last - first


@njit
def _fours(cells: npt.NDArray[np.int8], cell: int, step: int) -> int:
    """Fours through ``cell`` along ``step``: 0, 1 (a four or a straight four) or 2 (a
    double four in one line: x_xxx_x, xx_xx_xx, xxx_x_xxx)."""
    count, span = _five_points(cells, cell, step)
    if count >= 2:
        return 1 if (count == 2 and span == 5) else 2
    return count


@njit
def _straight_four(cells: npt.NDArray[np.int8], cell: int, step: int) -> bool:
    """True if ``cell`` is part of a straight four along ``step``."""
    count, span = _five_points(cells, cell, step)
    return count == 2 and span == 5


@njit
def foul_type(cells: npt.NDArray[np.int8], directions: npt.NDArray[np.int32],
              cell: int) -> int:
    """Foul type of a black stone on the empty point ``cell`` (0 legal; see the constants).

    :param cells: the padded board, ``int8[n_cells]``; restored on return.
    :param directions: ``int32[4]`` flat steps of the four line directions.
    """
    # The recursive kernel sees int64 arguments only: a second specialisation of a
    # recursive kernel (an int32 cell, a literal) crashes numba's on-disk cache.
    return _foul_type(cells, directions, np.int64(cell), np.int64(0))


@njit
def _foul_type(cells: npt.NDArray[np.int8], directions: npt.NDArray[np.int32], cell: int,
               nested: int) -> int:
    """:func:`foul_type`, recursively: with ``nested`` 1 (inside the three test) a point
    that makes five is reported as ``MAKES_FIVE``, not legal (Piskvork's judge)."""
    cells[cell] = BLACK
    five = False
    over = False
    for d in range(4):
        run = _run(cells, cell, directions[d])
        if run == 5:
            five = True
        elif run > 5:
            over = True
    result = LEGAL
    if five:
        result = MAKES_FIVE if nested != 0 else LEGAL
    elif over:
        result = OVERLINE
    else:
        fours = 0
        four_lines = 0  # bit d: a four along direction d (a bit mask: no array to allocate)
        for d in range(4):
            f = _fours(cells, cell, directions[d])
            fours += f
            if f != 0:
                four_lines |= 1 << d
        if fours >= 2:
            result = DOUBLE_FOUR
        else:
            threes = 0
            inner = nested | 1
            for d in range(4):
                if four_lines & (1 << d):
                    continue
                step = directions[d]
                for k in range(-4, 5):
                    other = cell + k * step
                    if k == 0 or cells[other] != EMPTY:
                        continue
                    cells[other] = BLACK
                    straight = _straight_four(cells, cell, step)
                    cells[other] = EMPTY
                    if straight and _foul_type(cells, directions, other, inner) == LEGAL:
                        threes += 1
                        break
                if threes >= 2:
                    break
            if threes >= 2:
                result = DOUBLE_THREE
    cells[cell] = EMPTY
    return result


__all__ = ["DOUBLE_FOUR", "DOUBLE_THREE", "FOUL_NAMES", "LEGAL", "MAKES_FIVE", "OVERLINE",
           "foul_type"]
