"""Pattern evaluation: point values from the four line patterns.

Every empty point has, for each colour, four line patterns (one per direction, see
:mod:`gomoku_engine.core.patterns`).  Combined they give

* the point's **threat class** (``T_FIVE``, ``T_OPEN_FOUR``, ``T_FOUR_THREE``, ``T_FOUR``,
  ``T_DOUBLE_THREE``, ``T_OPEN_THREE``, ``T_THREE``, ``T_NONE``), which drives forced replies
  and pruning: a rule, the same for every evaluation (:mod:`gomoku_engine.core.combinations`),
  and
* the point's **value** for that colour: what a stone there is worth (the sum of its line
  values plus a bonus for a double threat).  The one-ply priority of a move is its attack
  value plus its defence value (the opponent's value of the same point).

The static evaluation of a position is the sum of the values of all empty points for the
side to move minus the same sum for the opponent, kept incrementally by the make/unmake
kernels through the hooks of :mod:`gomoku_engine.eval.evaluator`.  Line values start from the seed scoring of a published
alpha-beta gomoku engine (five 99999, four 3800, three 680, two 110, single 20, see the
issue tracker) shifted by one shape: an empty point whose line pattern is ``FIVE`` is what
an existing four looks like from the board, so it carries the four's value, and so on.

:func:`reference_point_patterns` and :func:`reference_evaluation` recompute everything
from scratch in plain Python; the tests compare them with the incremental kernels.
"""

from __future__ import annotations

import itertools
from functools import lru_cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ..core.constants import BLACK, EMPTY, EVAL_LIMIT, N_PATTERNS, Rule
from ..core.geometry import Geometry
from ..core.combinations import class_tables, combinations, threat_class
from ..core.jit import cached_arrays
from ..core.patterns import classify_line
from ..core.rules import foul_type

_DATA_DIR = Path(__file__).resolve().parent / "data"

# Value of a point per line pattern it would make (index = pattern code).  A double four
# in one line only exists for renju black, where it is a foul (the point is worth nothing).
#                   DEAD ONE TWO OPEN_TWO THREE OPEN_THREE FOUR OPEN_FOUR FIVE OVERLINE 44
LINE_VALUE = np.array([0, 4, 20, 40, 110, 260, 680, 1600, 3800, 0, 0], np.int32)

# Extra value of a point that makes two threats at once (threat class index).
THREAT_BONUS = np.array([0, 0, 0, 900, 0, 2400, 3000, 20000], np.int32)

# Static evaluation = (EVAL_OWN * own sum - EVAL_OPP * opponent sum) // EVAL_DIV: the side to
# move's threats are worth more because it moves first.
EVAL_OWN = 6
EVAL_OPP = 5
EVAL_DIV = 5

# Move ordering: priority = attack value + DEFENCE_NUM * defence value // DEFENCE_DIV.
DEFENCE_NUM = 4
DEFENCE_DIV = 5


def point_value(patterns: npt.ArrayLike) -> int:
    """Value of a point for one colour from its four line patterns."""
    p = np.asarray(patterns).ravel()
    return int(LINE_VALUE[p].sum() + THREAT_BONUS[threat_class(p)])


@cached_arrays("combination_values")  # plain Python, 0.1 s: built once, then read
def _base_tables() -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int16]]:
    """``(value int32[65536], canon int16[65536])`` per 4-pattern code: the hand-set
    point value and the canonical combination's index (0 where no board shows the code)."""
    value = np.zeros(1 << 16, np.int32)
    canon = np.zeros(1 << 16, np.int16)
    index = {combo: i for i, combo in enumerate(_COMBOS)}
    for code, p in combinations():
        value[code] = point_value(p)
        canon[code] = index[tuple(sorted(p))]
    for table in (value, canon):
        table.flags.writeable = False
    return value, canon


#: the canonical combinations: the multisets of four line patterns (a point's value does
#: not depend on which direction holds which pattern), sorted
_COMBOS = sorted({tuple(sorted(c)) for c in itertools.combinations_with_replacement(
    range(N_PATTERNS), 4)})
N_CANON = len(_COMBOS)  #: 1001 multisets of 4 of the 11 patterns


def combination_tables(rule: Rule = Rule.FREESTYLE, evaluation: str = "classical"
                       ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int32],
                                  npt.NDArray[np.int8]]:
    """Threat class, value and renju foul kind of every combination of four line patterns.

    :param evaluation: ``"classical"`` (the values fitted to games for ``rule``, shipped as
        package data, where there are any; see :mod:`gomoku_engine.training.tuning`;
        ``"learned"`` is its earlier name) or ``"handset"`` (:data:`LINE_VALUE` and
        :data:`THREAT_BONUS`).
    :returns: ``(threat int8[65536], value int32[65536], foul int8[65536])`` indexed by
        ``p0 | p1 << 4 | p2 << 8 | p3 << 12`` (pattern code of each direction); read-only.
    :raises ValueError: for an unknown ``evaluation``.
    """
    if evaluation not in CLASSICAL_EVALUATIONS:
        raise ValueError(f"unknown classical evaluation {evaluation!r}: expected one of "
                         + ", ".join(CLASSICAL_EVALUATIONS))
    threat, foul = class_tables()
    value, _ = _base_tables()
    if evaluation in ("classical", "learned"):
        learned = learned_values(rule)
        if learned is not None:
            value = canonical_values(learned)
    return threat, value, foul


#: the tables of this form: the fitted values (``"learned"`` is their earlier name) and
#: the hand-set ones
CLASSICAL_EVALUATIONS = ("classical", "learned", "handset")


def canon_table() -> npt.NDArray[np.int16]:
    """``int16[65536]``: the canonical combination (index into ``N_CANON``) of each
    pattern code; codes that no board can show map to 0."""
    return _base_tables()[1]


def handset_canonical_values() -> npt.NDArray[np.int32]:
    """``int32[N_CANON]``: the hand-set value of each canonical combination."""
    return np.array([point_value(c) for c in _COMBOS], np.int32)


def canonical_values(values: npt.NDArray[np.int32]) -> npt.NDArray[np.int32]:
    """Expand ``int32[N_CANON]`` values per canonical combination to the ``int32[65536]``
    table per pattern code (codes that no board can show get 0).

    :raises ValueError: if ``values`` is not ``N_CANON`` long.
    """
    values = np.asarray(values, np.int32)
    if values.shape != (N_CANON,):
        raise ValueError(f"expected {N_CANON} values, got shape {values.shape}")
    table = values[canon_table()]
    invalid = np.ones(1 << 16, bool)
    invalid[_valid_codes()] = False
    table[invalid] = 0
    table.flags.writeable = False
    return table


@lru_cache(maxsize=None)
def _valid_codes() -> npt.NDArray[np.int64]:
    codes = np.arange(1 << 16)
    ok = np.ones(1 << 16, bool)
    for d in range(4):
        ok &= ((codes >> (4 * d)) & 15) < N_PATTERNS
    return codes[ok]


def learned_file(rule: Rule) -> Path:
    """Where the package keeps the fitted values of ``rule`` (may not exist)."""
    return _DATA_DIR / f"eval_{Rule(rule).name.lower()}.npz"


@lru_cache(maxsize=None)
def learned_values(rule: Rule) -> npt.NDArray[np.int32] | None:
    """The shipped ``int32[N_CANON]`` values fitted for ``rule``, or None if none ship.

    :raises ValueError: if the file is there but not a value table for ``rule``.
    """
    path = learned_file(rule)
    if not path.exists():
        return None
    with np.load(path) as data:
        values = data["values"]
        if values.shape != (N_CANON,) or values.dtype != np.int32 or int(data["rule"]) != rule:
            raise ValueError(f"{path} is not a value table for {Rule(rule).name}")
        return values


def static_score(own_sum: int, opp_sum: int) -> int:
    """The static evaluation formula, shared with the kernel (clamped to +-EVAL_LIMIT)."""
    score = (EVAL_OWN * own_sum - EVAL_OPP * opp_sum) // EVAL_DIV
    return max(-EVAL_LIMIT, min(EVAL_LIMIT, score))


# --- Slow reference recomputation (for tests) ---------------------------------------------

def _line_around(cells: npt.NDArray[np.int8], cell: int, step: int) -> list[int]:
    return [int(cells[cell + k * step]) for k in range(-5, 6)]


def reference_point_patterns(geometry: Geometry, cells: npt.NDArray[np.int8], rule: Rule,
                             cell: int, colour: int) -> list[int]:
    """The four line patterns of ``colour`` at ``cell``, recomputed with :func:`classify_line`."""
    return [classify_line(_line_around(cells, cell, int(step)), rule, colour)
            for step in geometry.directions]


def reference_evaluation(geometry: Geometry, cells: npt.NDArray[np.int8], rule: Rule,
                         to_move: int, evaluation: str = "classical") -> tuple[int, int, int]:
    """Recompute the value sums of both colours and the static score from scratch.

    Under renju a black foul point is worth nothing to black.

    :param cells: the padded ``int8[geometry.n_cells]`` board.
    :param evaluation: whose point values (see :func:`combination_tables`).
    :returns: ``(black_sum, white_sum, score for to_move)``.
    """
    values = combination_tables(rule, evaluation)[1]
    sums = [0, 0]
    board = cells.copy()
    for cell in geometry.points:
        if cells[cell] != EMPTY:
            continue
        for colour in (1, 2):
            if (rule == Rule.RENJU and colour == BLACK
                    and foul_type(board, geometry.directions, int(cell)) != 0):
                continue  # black may not play there: the point is worth nothing to black
            p = reference_point_patterns(geometry, cells, rule, int(cell), colour)
            sums[colour - 1] += int(values[p[0] | p[1] << 4 | p[2] << 8 | p[3] << 12])
    own, opp = (sums[0], sums[1]) if to_move == BLACK else (sums[1], sums[0])
    return sums[0], sums[1], static_score(own, opp)


__all__ = [
    "CLASSICAL_EVALUATIONS", "LINE_VALUE", "N_CANON", "THREAT_BONUS", "canon_table", "canonical_values",
    "combination_tables", "handset_canonical_values", "learned_file", "learned_values",
    "point_value", "reference_evaluation",
    "reference_point_patterns", "static_score",
]
