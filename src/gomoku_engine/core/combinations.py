"""Threat classes and renju foul kinds of a point, from its four line patterns.

These are rules, the same for every evaluation: the threat class (``T_FIVE``,
``T_OPEN_FOUR``, ``T_FOUR_THREE``, ``T_FOUR``, ``T_DOUBLE_THREE``, ``T_OPEN_THREE``,
``T_THREE``, ``T_NONE``) drives forced replies and pruning, and the foul kind tells the
position whether renju black's point needs the recursive foul check of
:mod:`gomoku_engine.core.rules`.  :func:`class_tables` holds both for every 4-pattern code
``p0 | p1 << 4 | p2 << 8 | p3 << 12`` (the line pattern of each direction, see
:mod:`gomoku_engine.core.patterns`); the evaluation's values per code are
:mod:`gomoku_engine.eval`'s.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

from .constants import (
    DOUBLE_FOUR, FIVE, FOUR, N_PATTERNS, OPEN_FOUR, OPEN_THREE, OVERLINE, T_DOUBLE_THREE,
    T_FIVE, T_FOUR, T_FOUR_THREE, T_NONE, T_OPEN_FOUR, T_OPEN_THREE, T_THREE, THREE,
)
from .jit import cached_arrays


def threat_class(patterns: npt.ArrayLike) -> int:
    """Threat class of a point from its four line patterns (any order)."""
    p = list(np.asarray(patterns).ravel())
    fours = p.count(FOUR)
    open_threes = p.count(OPEN_THREE)
    if FIVE in p:
        return T_FIVE
    if OPEN_FOUR in p or DOUBLE_FOUR in p or fours >= 2:
        return T_OPEN_FOUR
    if fours and open_threes:
        return T_FOUR_THREE
    if fours:
        return T_FOUR
    if open_threes >= 2:
        return T_DOUBLE_THREE
    if open_threes:
        return T_OPEN_THREE
    if THREE in p:
        return T_THREE
    return T_NONE


# Renju black: what the four line patterns of a point say about a foul there.
FOUL_NO = 0  #: not a foul
FOUL_SURE = 1  #: an overline or a double four (decided by the lines alone)
FOUL_MAYBE = 2  #: two open threes: a double three unless a three is not real (recursive)


def foul_kind(patterns: npt.ArrayLike) -> int:
    """:data:`FOUL_NO`, :data:`FOUL_SURE` or :data:`FOUL_MAYBE` for renju black's patterns.

    A five at the same move overrides every foul; see :mod:`gomoku_engine.core.rules`.
    """
    p = list(np.asarray(patterns).ravel())
    if FIVE in p:
        return FOUL_NO
    fours = p.count(FOUR) + p.count(OPEN_FOUR) + 2 * p.count(DOUBLE_FOUR)
    if OVERLINE in p or fours >= 2:
        return FOUL_SURE
    if p.count(OPEN_THREE) >= 2:
        return FOUL_MAYBE
    return FOUL_NO


def combinations() -> Iterator[tuple[int, list[int]]]:
    """Every 4-pattern code a board can show, with its four pattern codes (direction 0
    first): ``(code, [p0, p1, p2, p3])``."""
    for code in range(1 << 16):
        p = [(code >> (4 * d)) & 15 for d in range(4)]
        if max(p) < N_PATTERNS:
            yield code, p


@cached_arrays("class_tables")  # plain Python, 0.1 s: built once, then read
def class_tables() -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8]]:
    """``(threat int8[65536], foul int8[65536])``: :func:`threat_class` and
    :func:`foul_kind` of every 4-pattern code (0 where no board shows the code);
    read-only."""
    threat = np.zeros(1 << 16, np.int8)
    foul = np.zeros(1 << 16, np.int8)
    for code, p in combinations():
        threat[code] = threat_class(p)
        foul[code] = foul_kind(p)
    return threat, foul
