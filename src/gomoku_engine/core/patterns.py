"""Line patterns: what one stone on an empty point makes along one line, as lookup tables.

For every empty point and each of the four directions the board keeps a 20-bit *line key*:
the ten neighbours at distances 1..5 on both sides, two bits each (0 empty, 1 black,
2 white, 3 wall).  A table indexed by that key gives the line pattern (``FIVE``,
``OPEN_FOUR``, ``FOUR``, ``OPEN_THREE``, ``THREE``, ``OPEN_TWO``, ``TWO``, ``ONE``, ``DEAD``,
``OVERLINE``) that a stone of the table's colour would make there.  This is rapfi's design
(``game/pattern.h``: per-direction pattern codes looked up from line bit-keys, half-length
5 so that the exactly-five rule can see an overline); the definitions here are recursive:

* ``FIVE``: the run through the point is five long (or longer, where the rule allows an
  overline for that colour) and, under caro, not blocked by the opponent at both ends;
* ``OPEN_FOUR`` / ``FOUR``: two or more / exactly one further point on the line makes five
  (for renju black, ``OPEN_FOUR`` is a straight four, the two five points at the ends of
  four stones in a row; any other pair is ``DOUBLE_FOUR``, a double four in one line);
  under caro an ``OPEN_FOUR`` is also one that no single opponent stone stops, else it
  is a ``FOUR`` (``o.xxxx.``: the stone past the right five point stops both fives);
* ``OPEN_THREE`` / ``THREE``: some further point makes an ``OPEN_FOUR`` / a ``FOUR``;
* ``OPEN_TWO`` / ``TWO``: some further point makes an ``OPEN_THREE`` / a ``THREE``;
* ``ONE``: some further point makes a two; ``DEAD``: no five can pass through the point.

Only fives *through the point* count, so every table entry depends on the eleven cells of
the key alone.  :func:`classify_line` is the slow, obviously correct reference that the
tests compare the table against; :func:`build_line_table` fills the 2^20-entry table with
the same recursion, memoised by processing keys with more own stones first.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np
import numpy.typing as npt

from .constants import (
    BLACK, DEAD, DOUBLE_FOUR, FIVE, FOUR, N_PATTERNS, ONE, OPEN_FOUR, OPEN_THREE, OPEN_TWO,
    OVERLINE, THREE, TWO, WHITE, Rule,
)
from .jit import cache_path, njit

KEY_BITS = 20
N_KEYS = 1 << KEY_BITS
LINE_CENTRE = 5  # index of the point itself in an 11-cell line

# What the best "one more stone" outcome on a line makes of the line now.
# A double four in one line is a renju foul: it promotes nothing.
_PROMOTE = np.array(
    # DEAD ONE  TWO  OPEN_TWO THREE OPEN_THREE FOUR   OPEN_FOUR   FIVE OVERLINE DOUBLE_FOUR
    [DEAD, ONE, ONE, ONE, TWO, OPEN_TWO, THREE, OPEN_THREE, DEAD, DEAD, DEAD],
    np.int8,
)


def key_slot(offset: int) -> int:
    """Slot (0..9) of the neighbour at signed distance ``offset`` (-5..-1, 1..5) in a line key."""
    if offset == 0 or not -5 <= offset <= 5:
        raise ValueError(f"line-key offset must be in -5..-1 or 1..5, not {offset}")
    return offset + 5 if offset < 0 else offset + 4


def line_to_key(line: Sequence[int]) -> int:
    """Line key of an 11-cell line (cell codes 0..3, centre ignored), as stored on the board."""
    key = 0
    for i, cell in enumerate(line):
        if i != LINE_CENTRE:
            key |= int(cell) << (2 * key_slot(i - LINE_CENTRE))
    return key


def classify_line(line: Sequence[int], rule: Rule = Rule.FREESTYLE, colour: int = 1) -> int:
    """Reference classifier: the pattern a stone of ``colour`` makes at the centre of ``line``.

    :param line: 11 cell codes (0 empty, 1 black, 2 white, 3 wall); index 5 is the point.
    :param rule: the win condition (overlines, caro blocks, renju's straight fours).
    :param colour: 1 (black) or 2 (white): whose stone is placed.
    :returns: one of the pattern codes of :mod:`gomoku_engine.core.constants`.
    """
    if len(line) != 11:
        raise ValueError("a line has 11 cells")
    # normalised: 1 own stone, 0 empty, 2 opponent stone, 3 wall
    own = tuple(1 if (c == colour or i == LINE_CENTRE) else (c if c in (0, 3) else 2)
                for i, c in enumerate(line))
    return _classify(own, rule.exact_five(colour), rule.caro,
                     rule == Rule.RENJU and colour == BLACK)


@lru_cache(maxsize=None)
def _classify(line: tuple[int, ...], exact_five: bool, caro: bool, renju_black: bool) -> int:
    left, right = _run_ends(line, LINE_CENTRE)
    run = right - left - 1
    if run >= 5:
        if exact_five and run > 5:
            return OVERLINE
        # Beyond the eleven cells the end is unknown: counted as not blocked.
        if caro and left >= 0 and right < 11 and line[left] == 2 and line[right] == 2:
            return DEAD
        return FIVE
    five_points, best = [], DEAD
    for j in range(1, 10):  # further stones within distance 4 of the point
        if line[j] == 0:
            sub = _classify(line[:j] + (1,) + line[j + 1:], exact_five, caro, renju_black)
            if sub == FIVE:
                five_points.append(j)
            elif sub not in (OVERLINE, DOUBLE_FOUR):
                best = max(best, sub)
    if len(five_points) >= 2:
        if caro and set.intersection(*(caro_stoppers(line, j) for j in five_points)):
            return FOUR  # one stone stops every five: a four, not an open four
        straight = len(five_points) == 2 and five_points[1] - five_points[0] == 5
        return DOUBLE_FOUR if renju_black and not straight else OPEN_FOUR
    if five_points:
        return FOUR
    return int(_PROMOTE[best])


def _run_ends(line: Sequence[int], i: int) -> tuple[int, int]:
    """The cells just outside the run of own stones (1) through cell ``i`` of an 11-cell
    line (-1 or 11 beyond it)."""
    left = i - 1
    while left >= 0 and line[left] == 1:
        left -= 1
    right = i + 1
    while right < 11 and line[right] == 1:
        right += 1
    return left, right


def caro_stoppers(line: Sequence[int], j: int) -> set[int]:
    """Caro: the cells of ``line`` where an opponent stone stops the five that an own stone
    on the empty cell ``j`` would complete: ``j`` itself, and the cell just past the
    five's open end when its other end is an opponent stone (a five blocked at both ends
    does not win).  The cells of the five's line are all the stoppers there are.

    An overline (rule 8) may end beyond the eleven cells, where the end is unknown: the
    end inside them, if empty, counts as a stopper then (it is one if the unknown end is
    the opponent's), so that an open four is never claimed on what the line cannot show.

    :param line: 11 normalised cells (1 own, 0 empty, 2 opponent, 3 wall), the centre own.
    """
    filled = list(line)
    filled[j] = 1
    left, right = _run_ends(filled, j)
    ends = [filled[i] if 0 <= i < 11 else 2 for i in (left, right)]  # unknown: maybe his
    stoppers = {j}
    if ends[0] == 2 and ends[1] == 0:
        stoppers.add(right)
    if ends[1] == 2 and ends[0] == 0:
        stoppers.add(left)
    return stoppers


@njit
def _key_cell(key: int, i: int, j: int) -> int:
    """Cell ``i`` (0..10, the point at 5) of a black line key, the point and ``j`` black."""
    if i == 5 or i == j:
        return 1
    return (key >> (2 * (i if i < 5 else i - 1))) & 3


@njit
def _caro_stopper_mask(key: int, j: int) -> int:
    """:func:`caro_stoppers` of a black line key as a bit mask over the eleven cells."""
    left = j - 1
    while left >= 0 and _key_cell(key, left, j) == 1:
        left -= 1
    right = j + 1
    while right < 11 and _key_cell(key, right, j) == 1:
        right += 1
    mask = 1 << j
    a = _key_cell(key, left, j) if left >= 0 else 2  # beyond the cells: maybe his
    b = _key_cell(key, right, j) if right < 11 else 2
    if a == 2 and b == 0:
        mask |= 1 << right
    if b == 2 and a == 0:
        mask |= 1 << left
    return mask


@njit
def _fill_line_table(exact_five: bool, caro: bool, renju_black: bool,
                     promote: npt.NDArray[np.int8]) -> npt.NDArray[np.int8]:
    """Black's table: entry ``key`` is the pattern a black stone makes with neighbours ``key``.

    Keys are visited in decreasing number of black stones, so the table entry of every
    "one more stone" key is final before it is read.  Same definitions as
    :func:`classify_line` (which the tests compare it with).
    """
    own_count = np.zeros(N_KEYS, np.int8)
    for key in range(N_KEYS):
        n = 0
        for s in range(10):
            if (key >> (2 * s)) & 3 == 1:
                n += 1
        own_count[key] = n
    order = np.argsort(-own_count, kind="mergesort")
    table = np.zeros(N_KEYS, np.int8)
    for key in order:
        left = 4  # slot of offset -1, walking left
        while left >= 0 and (key >> (2 * left)) & 3 == 1:
            left -= 1
        right = 5  # slot of offset +1, walking right
        while right <= 9 and (key >> (2 * right)) & 3 == 1:
            right += 1
        run = right - left  # the point itself plus (4 - left) + (right - 5) stones
        if run >= 5:
            if exact_five and run > 5:
                table[key] = OVERLINE
            elif (caro and left >= 0 and right <= 9 and (key >> (2 * left)) & 3 == 2
                    and (key >> (2 * right)) & 3 == 2):
                table[key] = DEAD
            else:
                table[key] = FIVE
            continue
        fives = 0
        first_five = 0
        last_five = 0
        stoppers = (1 << 11) - 1  # caro: the cells where one stone stops every five
        best = DEAD
        for s in range(1, 9):  # slots of offsets -4..-1 and 1..4
            if (key >> (2 * s)) & 3 == 0:
                sub = table[key | (1 << (2 * s))]
                if sub == FIVE:
                    offset = s - 5 if s < 5 else s - 4
                    if fives == 0:
                        first_five = offset
                    last_five = offset
                    fives += 1
                    if caro:
                        stoppers &= _caro_stopper_mask(key, offset + 5)
                elif sub != OVERLINE and sub != DOUBLE_FOUR and sub > best:
                    best = sub
        if fives >= 2 and caro and stoppers != 0:
            table[key] = FOUR  # one stone stops every five: a four, not an open four
        elif fives >= 2:
            straight = fives == 2 and last_five - first_five == 5
            table[key] = DOUBLE_FOUR if (renju_black and not straight) else OPEN_FOUR
        elif fives == 1:
            table[key] = FOUR
        else:
            table[key] = promote[best]
    return table


def _swap_colours(keys: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Exchange codes 1 and 2 in every two-bit field of the keys (3, the wall, stays)."""
    low = keys & 0x55555
    high = (keys >> 1) & 0x55555
    return (low << 1) | high


_TABLES: dict[Rule, npt.NDArray[np.int8]] = {}


def line_table(rule: Rule) -> npt.NDArray[np.int8]:
    """Pattern tables of both colours for ``rule``: ``int8[2, 2**20]`` (row 0 black, row 1 white).

    Built once per rule and kept beside numba's cache (building takes about 0.2 s).
    """
    if rule not in _TABLES:
        path = cache_path(f"line_table_{rule.name.lower()}.npy")
        try:
            table = np.load(path)
        except (OSError, ValueError):
            table = _build_line_table(rule)
            try:
                tmp = path.with_suffix(".tmp.npy")
                np.save(tmp, table)
                tmp.replace(path)
            except OSError:
                pass  # read-only install: rebuild in every process (about 0.2 s)
        if table.shape != (2, N_KEYS) or table.dtype != np.int8:
            raise RuntimeError(f"corrupt pattern table cache {path}: delete it")
        _TABLES[rule] = table
    return _TABLES[rule]


def _build_line_table(rule: Rule) -> npt.NDArray[np.int8]:
    all_keys = np.arange(N_KEYS, dtype=np.int64)
    rows = []
    for colour in (BLACK, WHITE):
        # Built from black's point of view, then read with the colours exchanged for white.
        own = _fill_line_table(rule.exact_five(colour), rule.caro,
                               rule == Rule.RENJU and colour == BLACK, _PROMOTE)
        rows.append(own if colour == BLACK else own[_swap_colours(all_keys)])
    return np.ascontiguousarray(np.stack(rows))


def pattern_counts(table: npt.NDArray[np.int8]) -> npt.NDArray[np.int64]:
    """Histogram of a line table over the patterns (for tests and documentation)."""
    return np.bincount(table.ravel(), minlength=N_PATTERNS)
