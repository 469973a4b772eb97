"""Position kernels: the flat int8 board with incremental line keys, patterns and threats.

A :class:`Position` is a bundle of typed numpy arrays (numba receives it as a named
tuple); :class:`Tables` holds what never changes during a game (line tables, pattern
tables, Zobrist keys).  :func:`make_move` and :func:`unmake_move` update, for the at most
40 points within five cells of the move along its four lines, the line keys, the line
patterns of both colours, the points' threat classes and the per-class counts, and call
the evaluation's hooks (:mod:`gomoku_engine.eval`) for the points whose patterns changed,
in the same pass; plus the stone counts of the (at most 20) five-cell windows through the
move, which tell in O(1) whether the move made five, and the 64-bit Zobrist key.  The
move history (moves and previous keys) is the per-ply state stack; ``make_move`` also logs
each point it changes (``Position.undo``) and copies the counts per ply
(``count_stack``), and ``unmake_move`` restores them from there instead of recomputing.

Every helper of ``make_move`` and ``unmake_move`` that runs per point or per move is
``@njit(inline="always")``: numba inlines it into its caller in its own IR, so the hot path
no longer depends on LLVM's judgement.  A call between kernels passes every array of
``Position`` and ``Tables`` (about 57), which costs more than a point's update; when the
network's loops made ``update_point`` larger (e9a2ce0), LLVM stopped inlining
``_refresh_line`` and ``_classify_point`` and the whole search ran 7.5 times slower with
the same tree.  Only the rule-specific helpers (``_wins``: exact five and caro;
``_renju_update``) stay calls, paid under their rules alone.
:mod:`gomoku_engine.inlining` lists the hot helpers and the calls each hot kernel may
make, and ``tests/test_inlining.py`` reads the compiled code to check it.

Contract of every kernel: the caller passes a legal move (an empty on-board point) for
``make_move``, and ``unmake_move`` undoes the last ``make_move`` exactly; nothing is
checked here (the checked API is :class:`gomoku_engine.game.board.Board`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ..core.constants import (
    BLACK, EMPTY, FIVE, FOUR, N_THREATS, OPEN_FOUR, PAD, T_FOUR, T_FOUR_THREE,
    T_NONE, T_OPEN_FOUR, WALL, Rule,
)
from ..eval import (
    EVAL_SAVED_FIELDS, EVAL_UNDO_FIELDS, EvalTables, clear_point, eval_tables, log_point,
    defer_network, new_eval_state, place_stone, rebuild_network, reset_eval, restore_point,
    restore_state, save_state, update_point,
)
from ..core.combinations import FOUL_MAYBE, FOUL_NO, class_tables
from ..core.geometry import Geometry
from ..core.jit import njit
from ..core.patterns import line_table
from ..core.rules import foul_type

ZOBRIST_SEED = 20261121  # fixed: keys (and so the bench signature) are the same every run


class Tables(NamedTuple):
    """Constant arrays of one board size and rule (read-only inside the kernels)."""

    #: uint8[2**20] both colours' line patterns per line key, black's in the low four bits
    #: and white's in the high four: one load (one cache line) per point instead of two,
    #: in a table half the size of int8[2, 2**20], which did not fit in a core's L2 cache.
    #: Freestyle's is uint8[2**16], indexed by the key without its two outer cells
    #: (:func:`line_index`)
    line_pair: npt.NDArray[np.uint8]
    combo_threat: npt.NDArray[np.int8]  #: int8[65536] threat class per 4-pattern code
    combo_foul: npt.NDArray[np.int8]  #: int8[65536] renju black's foul kind per code
    #: uint64[3, n_cells]; [0, 0] is the side-to-move key (in the key when white is to move)
    zobrist: npt.NDArray[np.uint64]
    directions: npt.NDArray[np.int32]  #: int32[4]
    neighbourhood: npt.NDArray[np.int32]  #: int32[24]
    points: npt.NDArray[np.int32]  #: int32[width*height] playable cells
    windows: npt.NDArray[np.int32]  #: int32[n_windows, 5]
    window_dir: npt.NDArray[np.int32]  #: int32[n_windows]
    cell_window_start: npt.NDArray[np.int32]  #: int32[n_cells+1]
    cell_window_list: npt.NDArray[np.int32]  #: int32[...]
    params: npt.NDArray[np.int64]  #: int64[9]: see the P_* indices
    #: the evaluation's constant tables, read only by :mod:`gomoku_engine.eval`
    #: (:class:`gomoku_engine.eval.EvalTables`: a point's value per 4-pattern code, and
    #: the network's combination index, embeddings and layers)
    eval_table: npt.NDArray[np.int32]
    net_canon: npt.NDArray[np.int16]
    net_embed: npt.NDArray[np.int32]
    net_linear: npt.NDArray[np.int32]
    net_conv: npt.NDArray[np.int32]
    net_mlp: npt.NDArray[np.float64]


class Position(NamedTuple):
    """Mutable state of one game (index 0 of a colour axis is black, 1 is white)."""

    cells: npt.NDArray[np.int8]  #: int8[n_cells]: EMPTY / BLACK / WHITE / WALL
    keys: npt.NDArray[np.int32]  #: int32[n_cells, 4] line key per point and direction
    #: uint32[n_cells]: the line patterns of both colours, one byte per direction ``d`` (bits
    #: 8d to 8d+7) laid out as ``Tables.line_pair`` (black's in the low four bits): a line
    #: re-read compares one byte, and a point's 4-pattern code is one load (:func:`pattern_at`)
    patterns: npt.NDArray[np.uint32]
    threat: npt.NDArray[np.int8]  #: int8[2, n_cells] threat class (0 on occupied points)
    #: the evaluation's state, read and written only by :mod:`gomoku_engine.eval`:
    #: int32[2, n_cells] point values (0 on occupied points), int64[2] their sums
    eval_value: npt.NDArray[np.int32]
    #: int8[n_cells] renju: black's foul type on an empty point (rules.py codes), else 0
    foul: npt.NDArray[np.int8]
    #: int8[n_cells] renju: 1 where black's lines show two open threes (a foul only if
    #: both threes are real, which depends on other points: rechecked after every move)
    maybe_foul: npt.NDArray[np.int8]
    near: npt.NDArray[np.int8]  #: int8[n_cells] stones in the 5x5 square around a point
    threat_count: npt.NDArray[np.int32]  #: int32[2, N_THREATS] empty points per class
    eval_sum: npt.NDArray[np.int64]
    window_count: npt.NDArray[np.int8]  #: int8[2, n_windows] stones per window and colour
    #: int64[N_STATE]: stones, side to move, winner, maybe fouls, undo entries, and the
    #: stones' bounding box (padded columns and rows, the X_MIN..Y_MAX indices)
    state: npt.NDArray[np.int64]
    key: npt.NDArray[np.uint64]  #: uint64[1] Zobrist key of the position
    moves: npt.NDArray[np.int32]  #: int32[width*height] move stack
    key_stack: npt.NDArray[np.uint64]  #: uint64[width*height] key before each move
    #: int32[n_undo, UNDO_FIELDS] undo log: a point's state before a move changed it (see
    #: _log_point); unmake_move restores these instead of recomputing the patterns
    undo: npt.NDArray[np.int32]
    undo_start: npt.NDArray[np.int32]  #: int32[width*height+1] first undo entry per ply
    #: int64[width*height+1, COUNT_FIELDS] per ply, before the move: the per-class counts
    #: of both colours, the evaluation's saved state and state[MAYBE_FOULS]
    count_stack: npt.NDArray[np.int64]
    #: the network's incremental state (:class:`gomoku_engine.eval.EvalState`), read and
    #: written only by :mod:`gomoku_engine.eval`: each point's canonical combination per
    #: colour, the points' embedding rows, the convolution's outputs, the accumulators and
    #: their linear channels per ply, scratch rows, the deferred points
    eval_canon: npt.NDArray[np.int16]
    net_rows: npt.NDArray[np.int16]
    net_spatial: npt.NDArray[np.int32]
    net_acc: npt.NDArray[np.int64]
    net_linear: npt.NDArray[np.int32]
    net_stack: npt.NDArray[np.int32]
    net_x: npt.NDArray[np.float64]
    net_scratch: npt.NDArray[np.int32]
    net_dirty: npt.NDArray[np.int32]
    net_mark: npt.NDArray[np.int8]


# state[] indices
PLY = 0
TO_MOVE = 1
WINNER = 2
MAYBE_FOULS = 3  # empty points with maybe_foul set
UNDO_LEN = 4  # entries in Position.undo
# the stones' bounding box in padded columns and rows (empty board: min > max), so that a
# scan for candidates near stones reads that rectangle and not the whole board
X_MIN, X_MAX, Y_MIN, Y_MAX = 5, 6, 7, 8
# the stones the network's state was last brought up to (eval.evaluator.sync_network): it
# follows the moves lazily, only where a position is evaluated
NET_PLY = 9
N_STATE = 10

# Position.undo columns: the point, the direction whose patterns changed (-1: none), the
# old patterns word of the point (Position.patterns, all directions), the old threat
# classes, the evaluation's columns (its point state), foul and maybe_foul
U_CELL, U_DIR, U_PATTERN, U_THREAT, U_EVAL = 0, 1, 2, 3, 5
U_FOUL = U_EVAL + EVAL_UNDO_FIELDS
U_MAYBE = U_FOUL + 1
UNDO_FIELDS = U_MAYBE + 1
# Position.count_stack columns: both colours' per-class counts (side * N_THREATS + class),
# then the evaluation's saved state, then state[MAYBE_FOULS], then the bounding box
CS_EVAL = 2 * N_THREATS
CS_MAYBE_FOULS = CS_EVAL + EVAL_SAVED_FIELDS
CS_BOX = CS_MAYBE_FOULS + 1
COUNT_FIELDS = CS_BOX + 4
#: undo entries a move may write besides renju's: its own point and the 40 of its lines
UNDO_PER_MOVE = 41

# params[] indices
P_EXACT_BLACK = 0  # 1: an overline of black is no five
P_WIDTH = 1
P_HEIGHT = 2
P_STRIDE = 3
P_EXACT_WHITE = 4
P_CARO = 5  # 1: a five blocked at both ends by the opponent does not win
P_RENJU = 6  # 1: black's fouls are kept in Position.foul
# a line key's index into Tables.line_pair: (key >> P_KEY_SHIFT) & P_KEY_MASK
P_KEY_SHIFT = 7
P_KEY_MASK = 8
#: freestyle's line table, indexed by the eight cells within four of the point: a five
#: through the point lies within them, so the cells five away change no pattern (a test
#: checks the full table), and the table shrinks from 1 MiB to 64 KiB, which stays in a
#: core's L2 cache beside the evaluation's tables
_FREESTYLE_KEY_SHIFT, _FREESTYLE_KEY_MASK = 2, (1 << 16) - 1


def make_tables(geometry: Geometry, rule: Rule, evaluation: str | EvalTables = "classical"
                ) -> Tables:
    """Build the constant tables for a board size and rule (line tables are cached per rule).

    :param evaluation: the evaluation's tables, a name of
        :data:`gomoku_engine.eval.EVALUATIONS` (:func:`gomoku_engine.eval.eval_tables`), or
        the tables themselves (a network not shipped, say).
    :raises ValueError: for an unknown ``evaluation``, or a missing or damaged network file
        (:class:`gomoku_engine.eval.NetworkFileError`).
    """
    if isinstance(evaluation, str):
        evaluation = eval_tables(rule, evaluation, geometry.width, geometry.height)
    threat, foul = class_tables()
    rng = np.random.default_rng(ZOBRIST_SEED)
    zobrist = rng.integers(0, 2**63 - 1, size=(3, geometry.n_cells), dtype=np.int64)
    zobrist = zobrist.astype(np.uint64) * np.uint64(2) + np.uint64(1)
    line = line_table(rule).astype(np.uint8)
    line_pair = line[0] | (line[1] << 4)
    shift, mask = 0, line_pair.shape[0] - 1
    if rule == Rule.FREESTYLE:
        shift, mask = _FREESTYLE_KEY_SHIFT, _FREESTYLE_KEY_MASK
        line_pair = np.ascontiguousarray(line_pair[np.arange(mask + 1) << shift])
    params = np.array([int(rule.exact_five(BLACK)), geometry.width, geometry.height,
                       geometry.stride, int(rule.exact_five(3 - BLACK)), int(rule.caro),
                       int(rule == Rule.RENJU), shift, mask], np.int64)
    return Tables(line_pair, threat, foul, zobrist, geometry.directions,
                  geometry.neighbourhood, geometry.points, geometry.windows,
                  geometry.window_dir, geometry.cell_window_start, geometry.cell_window_list,
                  params, *evaluation)


def new_position(geometry: Geometry, tables: Tables) -> Position:
    """An empty board: allocate the arrays and fill them with :func:`reset_position`."""
    n, nw, npts = geometry.n_cells, geometry.n_windows, geometry.width * geometry.height
    state = new_eval_state(n, npts, tables)
    position = Position(
        cells=np.full(n, WALL, np.int8),
        keys=np.zeros((n, 4), np.int32),
        patterns=np.zeros(n, np.uint32),
        threat=np.zeros((2, n), np.int8),
        foul=np.zeros(n, np.int8),
        maybe_foul=np.zeros(n, np.int8),
        near=np.zeros(n, np.int8),
        threat_count=np.zeros((2, N_THREATS), np.int32),
        window_count=np.zeros((2, nw), np.int8),
        state=np.zeros(N_STATE, np.int64),
        key=np.zeros(1, np.uint64),
        moves=np.zeros(npts + 1, np.int32),
        key_stack=np.zeros(npts + 1, np.uint64),
        undo=np.zeros(((npts + 1) * _undo_per_move(tables, npts), UNDO_FIELDS), np.int32),
        undo_start=np.zeros(npts + 2, np.int32),
        count_stack=np.zeros((npts + 1, COUNT_FIELDS), np.int64),
        **state._asdict(),  # the evaluation's arrays, by their names (eval.EvalState)
    )
    reset_position(position, tables)
    return position


def _undo_per_move(tables: Tables, n_points: int) -> int:
    """Most undo entries one move writes: its point and its lines' 40, and under renju
    black's points on those lines again plus every possible double three (any point)."""
    if tables.params[P_RENJU] == 0:
        return UNDO_PER_MOVE
    return UNDO_PER_MOVE + 40 + n_points


@njit
def _slot_shift(offset: int) -> int:
    """Bit shift of the neighbour at signed distance ``offset`` in a line key."""
    return 2 * (offset + 5) if offset < 0 else 2 * (offset + 4)


@njit(inline="always")
def pattern_at(pos: Position, side: int, cell: int, d: int) -> int:
    """The line pattern of ``side`` (0 black, 1 white) at ``cell`` in direction ``d``."""
    return (pos.patterns[cell] >> (8 * d + 4 * side)) & 15


@njit(inline="always")
def line_index(tab: Tables, key: int) -> int:
    """The index of a line key (``Position.keys``) into ``tab.line_pair``."""
    return (key >> tab.params[P_KEY_SHIFT]) & tab.params[P_KEY_MASK]


@njit(inline="always")
def _combine(pos: Position, tab: Tables, side: int, cell: int) -> int:
    """The 4-pattern code ``p0 | p1 << 4 | p2 << 8 | p3 << 12`` of ``side`` at ``cell``,
    gathered from the point's patterns word (one nibble of each byte)."""
    x = (pos.patterns[cell] >> (4 * side)) & 0x0F0F0F0F
    y = x | (x >> 4)
    return (y & 0xFF) | ((y >> 8) & 0xFF00)


def point_patterns(pos: Position, side: int) -> npt.NDArray[np.int8]:
    """``int8[n_cells, 4]``: the line pattern of ``side`` (0 black, 1 white) per point and
    direction, unpacked from ``Position.patterns`` (numpy, outside the kernels)."""
    shifts = 8 * np.arange(4, dtype=np.uint32) + np.uint32(4 * side)
    return ((pos.patterns[:, None] >> shifts) & np.uint32(15)).astype(np.int8)


@njit(inline="always")
def _classify_point(pos: Position, tab: Tables, side: int, cell: int) -> None:
    """Recompute a counted empty point's threat class for ``side`` from its patterns (the
    tables only), keeping the per-class counts, and tell the evaluation.

    No renju test here, not even a branch: a branch in this kernel, which runs 80 times
    per move, stopped numba from pruning its reference counting and made make/unmake 25
    times slower under every rule.  Renju fouls are applied afterwards by
    :func:`_renju_black_point`.
    """
    code = _combine(pos, tab, side, cell)
    _set_class(pos, side, cell, tab.combo_threat[code])
    update_point(pos, tab, side, cell, code)


@njit(inline="always")
def _set_class(pos: Position, side: int, cell: int, t: int) -> None:
    pos.threat_count[side, pos.threat[side, cell]] -= 1
    pos.threat_count[side, t] += 1
    pos.threat[side, cell] = t


@njit
def _renju_black_point(pos: Position, tab: Tables, cell: int) -> None:
    """Renju: black's class and value of an empty point, fouls included.

    A black foul is worth nothing and threatens nothing (``T_NONE``): black may not play
    it.  Overlines and double fours show in the lines; a possible double three is decided
    by the recursive check of :mod:`gomoku_engine.core.rules`.
    """
    code = _combine(pos, tab, 0, cell)
    kind = tab.combo_foul[code]
    maybe = 1 if kind == FOUL_MAYBE else 0
    pos.state[MAYBE_FOULS] += maybe - pos.maybe_foul[cell]
    pos.maybe_foul[cell] = maybe
    foul = 0
    if kind != FOUL_NO:
        foul = foul_type(pos.cells, tab.directions, cell)
    pos.foul[cell] = foul
    if foul != 0:
        _set_class(pos, 0, cell, T_NONE)
        clear_point(pos, tab, 0, cell)
    else:
        _set_class(pos, 0, cell, tab.combo_threat[code])
        update_point(pos, tab, 0, cell, code)


@njit
def _renju_update(pos: Position, tab: Tables) -> None:
    """Renju, after a move: black's fouls on the points of its lines whose
    black patterns changed, and on every possible double three anywhere (whether a three
    is real depends on its extension points, whose lines the move may change).  An
    overline or a double four depends on the patterns alone, so a point whose patterns
    stayed keeps its mark.  Each point is logged first."""
    foul = pos.foul
    maybe_foul = pos.maybe_foul
    combo_foul = tab.combo_foul
    # The points whose patterns changed are this move's undo entries with a direction
    # (after the first, the move's own point).
    for i in range(pos.undo_start[pos.state[PLY]] + 1, pos.state[UNDO_LEN]):
        u = pos.undo[i]
        d = u[U_DIR]
        other = u[U_CELL]
        if d < 0 or ((u[U_PATTERN] >> (8 * d)) & 15) == pattern_at(pos, 0, other, d):
            continue  # only white's pattern changed there
        code = _combine(pos, tab, 0, other)
        # The usual case, no foul before or now: _classify_point has set the class
        # already, and a call per point (with every array of pos and tab) costs more
        # than the whole check.
        if combo_foul[code] != FOUL_NO or foul[other] != 0 or maybe_foul[other] != 0:
            _log_point(pos, other, -1)
            _renju_black_point(pos, tab, other)
    if pos.state[MAYBE_FOULS] != 0:
        for other in tab.points:
            if pos.maybe_foul[other] != 0:
                _log_point(pos, other, -1)
                _renju_black_point(pos, tab, other)


@njit(inline="always")
def _refresh_line(pos: Position, tab: Tables, cell: int, d: int) -> None:
    """Re-read the patterns of an empty, counted point whose line ``d`` changed."""
    shift = 8 * d
    word = pos.patterns[cell]
    changed = (tab.line_pair[line_index(tab, pos.keys[cell, d])] ^ (word >> shift)) & 0xFF
    if changed == 0:
        return  # often: a stone four or five cells away changes nothing
    _log_point(pos, cell, d)
    pos.patterns[cell] = word ^ (changed << shift)
    if changed & 15:
        _classify_point(pos, tab, 0, cell)
    if changed >> 4:
        _classify_point(pos, tab, 1, cell)


@njit(inline="always")
def _log_point(pos: Position, cell: int, d: int) -> None:
    """Append ``cell``'s state to the undo log, before the move changes it: the line ``d``
    whose patterns change (-1: none), its patterns word, classes, evaluation state and foul
    marks."""
    i = pos.state[UNDO_LEN]
    pos.state[UNDO_LEN] = i + 1
    u = pos.undo[i]
    u[U_CELL] = cell
    u[U_DIR] = d
    u[U_PATTERN] = pos.patterns[cell]
    u[U_THREAT] = pos.threat[0, cell]
    u[U_THREAT + 1] = pos.threat[1, cell]
    log_point(pos, u, U_EVAL, cell)
    u[U_FOUL] = pos.foul[cell]
    u[U_MAYBE] = pos.maybe_foul[cell]


@njit(inline="always")
def _restore_points(pos: Position, start: int) -> None:
    """Undo the log's entries from ``start`` on, newest first (a point logged twice in one
    move gets its oldest state back)."""
    for i in range(pos.state[UNDO_LEN] - 1, start - 1, -1):
        u = pos.undo[i]
        cell = u[U_CELL]
        pos.patterns[cell] = u[U_PATTERN]
        pos.threat[0, cell] = u[U_THREAT]
        pos.threat[1, cell] = u[U_THREAT + 1]
        restore_point(pos, u, U_EVAL, cell)
        pos.foul[cell] = u[U_FOUL]
        pos.maybe_foul[cell] = u[U_MAYBE]
    pos.state[UNDO_LEN] = start


@njit
def _add_point(pos: Position, tab: Tables, cell: int) -> None:
    """Compute all patterns of an empty point and count it (:func:`reset_position`)."""
    word = 0
    for d in range(4):
        word |= tab.line_pair[line_index(tab, pos.keys[cell, d])] << (8 * d)
    pos.patterns[cell] = word
    for side in range(2):
        pos.threat_count[side, T_NONE] += 1  # counted as an empty T_NONE point, then
        _classify_point(pos, tab, side, cell)  # moved to its class


@njit(inline="always")
def _remove_point(pos: Position, tab: Tables, cell: int) -> None:
    """Stop counting a point that has just been occupied."""
    for side in range(2):
        pos.threat_count[side, pos.threat[side, cell]] -= 1
        pos.threat[side, cell] = 0
        clear_point(pos, tab, side, cell)
    pos.state[MAYBE_FOULS] -= pos.maybe_foul[cell]
    pos.maybe_foul[cell] = 0
    pos.foul[cell] = 0


@njit
def _wins(pos: Position, tab: Tables, colour: int, w: int) -> bool:
    """Does the full window ``w`` of ``colour`` win under the exactly-five or caro rule?"""
    step = tab.directions[tab.window_dir[w]]
    first = tab.windows[w, 0]
    last = tab.windows[w, 4]
    while pos.cells[first - step] == colour:
        first -= step
    while pos.cells[last + step] == colour:
        last += step
    exact = tab.params[P_EXACT_BLACK] if colour == BLACK else tab.params[P_EXACT_WHITE]
    if exact != 0 and last - first > 4 * step:
        return False  # an overline
    other = 3 - colour
    if (tab.params[P_CARO] != 0 and pos.cells[first - step] == other
            and pos.cells[last + step] == other):
        return False  # blocked at both ends
    return True


@njit
def reset_position(pos: Position, tab: Tables) -> None:
    """Empty the board and recompute every incremental array from scratch."""
    pos.cells[:] = WALL
    for cell in tab.points:
        pos.cells[cell] = EMPTY
    n = pos.cells.shape[0]
    for cell in range(n):
        for d in range(4):
            step = tab.directions[d]
            key = 0
            for k in range(-5, 6):
                if k == 0:
                    continue
                other = cell + k * step
                code = WALL if (other < 0 or other >= n) else pos.cells[other]
                key |= code << _slot_shift(k)
            pos.keys[cell, d] = key
    pos.patterns[:] = 0
    pos.threat[:] = 0
    pos.foul[:] = 0
    pos.maybe_foul[:] = 0
    pos.near[:] = 0
    pos.threat_count[:] = 0
    reset_eval(pos, tab)
    pos.window_count[:] = 0
    pos.state[MAYBE_FOULS] = 0
    pos.state[UNDO_LEN] = 0
    for cell in tab.points:
        _add_point(pos, tab, cell)
    rebuild_network(pos, tab, tab.params[P_STRIDE])
    pos.state[NET_PLY] = 0
    pos.state[PLY] = 0
    pos.state[TO_MOVE] = BLACK
    pos.state[WINNER] = 0
    pos.state[X_MIN] = pos.state[Y_MIN] = n
    pos.state[X_MAX] = pos.state[Y_MAX] = -1
    pos.key[0] = 0


@njit(inline="always")
def _grow_box(pos: Position, tab: Tables, saved: npt.NDArray[np.int64], cell: int) -> None:
    """Save the stones' bounding box into the ply's ``saved`` row, then add ``cell``."""
    for i in range(4):
        saved[CS_BOX + i] = pos.state[X_MIN + i]
    row, col = divmod(cell, tab.params[P_STRIDE])
    pos.state[X_MIN] = min(pos.state[X_MIN], col)
    pos.state[X_MAX] = max(pos.state[X_MAX], col)
    pos.state[Y_MIN] = min(pos.state[Y_MIN], row)
    pos.state[Y_MAX] = max(pos.state[Y_MAX], row)


@njit
def make_move(pos: Position, tab: Tables, cell: int) -> bool:
    """Play the side to move's stone on ``cell``; returns True if it made a winning five.

    Mutates every array of ``pos``; :func:`unmake_move` restores them.
    """
    colour = pos.state[TO_MOVE]
    side = colour - 1
    ply = pos.state[PLY]
    saved = pos.count_stack[ply]
    for s in range(2):
        for t in range(N_THREATS):
            saved[s * N_THREATS + t] = pos.threat_count[s, t]
    save_state(pos, saved, CS_EVAL)
    saved[CS_MAYBE_FOULS] = pos.state[MAYBE_FOULS]
    _grow_box(pos, tab, saved, cell)
    pos.undo_start[ply] = pos.state[UNDO_LEN]
    _log_point(pos, cell, -1)
    _remove_point(pos, tab, cell)
    pos.cells[cell] = colour
    place_stone(pos, tab, side)
    won = False
    plain = (tab.params[P_CARO] == 0
             and tab.params[P_EXACT_BLACK if colour == BLACK else P_EXACT_WHITE] == 0)
    for i in range(tab.cell_window_start[cell], tab.cell_window_start[cell + 1]):
        w = tab.cell_window_list[i]
        pos.window_count[side, w] += 1
        if pos.window_count[side, w] == 5 and (plain or _wins(pos, tab, colour, w)):
            won = True
    for off in tab.neighbourhood:
        pos.near[cell + off] += 1
    for d in range(4):
        step = tab.directions[d]
        for k in range(1, 6):
            ahead = cell + k * step
            pos.keys[ahead, d] |= colour << _slot_shift(-k)
            if pos.cells[ahead] == EMPTY:
                _refresh_line(pos, tab, ahead, d)
            behind = cell - k * step
            pos.keys[behind, d] |= colour << _slot_shift(k)
            if pos.cells[behind] == EMPTY:
                _refresh_line(pos, tab, behind, d)
    if tab.params[P_RENJU] != 0:
        _renju_update(pos, tab)
    pos.moves[ply] = cell
    pos.key_stack[ply] = pos.key[0]
    pos.key[0] ^= tab.zobrist[colour, cell] ^ tab.zobrist[0, 0]
    pos.state[PLY] = ply + 1
    pos.state[TO_MOVE] = 3 - colour
    if won:
        pos.state[WINNER] = colour
    return won


@njit
def unmake_move(pos: Position, tab: Tables) -> None:
    """Take back the last move played with :func:`make_move`.

    The points' patterns, classes, evaluation state and foul marks come back from the undo
    log and the counts and the evaluation's sums from the per-ply copy: nothing is looked
    up or recomputed (which made a take-back cost as much as the move).
    """
    ply = pos.state[PLY] - 1
    cell = pos.moves[ply]
    colour = pos.cells[cell]
    side = colour - 1
    pos.cells[cell] = EMPTY
    for i in range(tab.cell_window_start[cell], tab.cell_window_start[cell + 1]):
        pos.window_count[side, tab.cell_window_list[i]] -= 1
    for off in tab.neighbourhood:
        pos.near[cell + off] -= 1
    for d in range(4):
        step = tab.directions[d]
        for k in range(1, 6):
            pos.keys[cell + k * step, d] &= ~(3 << _slot_shift(-k))
            pos.keys[cell - k * step, d] &= ~(3 << _slot_shift(k))
    logged = pos.state[UNDO_LEN]
    _restore_points(pos, pos.undo_start[ply])
    if pos.state[NET_PLY] > ply:  # the network saw this move: its points are set aside
        defer_network(pos, pos.undo_start[ply], logged, U_CELL)
        pos.state[NET_PLY] = ply
    saved = pos.count_stack[ply]
    for s in range(2):
        for t in range(N_THREATS):
            pos.threat_count[s, t] = saved[s * N_THREATS + t]
    restore_state(pos, saved, CS_EVAL, ply)
    pos.state[MAYBE_FOULS] = saved[CS_MAYBE_FOULS]
    for i in range(4):
        pos.state[X_MIN + i] = saved[CS_BOX + i]
    pos.key[0] = pos.key_stack[ply]
    pos.state[PLY] = ply
    pos.state[TO_MOVE] = colour
    pos.state[WINNER] = 0


@njit
def find_threat(pos: Position, tab: Tables, side: int, threat: int) -> int:
    """First empty point (in board order) where ``side`` (0 black, 1 white) has ``threat``."""
    for cell in tab.points:
        if pos.cells[cell] == EMPTY and pos.threat[side, cell] == threat:
            return cell
    return -1


@njit
def defends(pos: Position, them: int, cell: int) -> bool:
    """True if ``cell`` lies on a line where the opponent would make a four or five."""
    for d in range(4):
        p = pattern_at(pos, them, cell, d)
        if p == FOUR or p == OPEN_FOUR or p == FIVE:
            return True
    return False


@njit
def four_points(pos: Position, side: int) -> int:
    """Empty points where ``side`` (0 black, 1 white) would make at least a four, five
    points excluded (the per-class counts only)."""
    return (pos.threat_count[side, T_FOUR] + pos.threat_count[side, T_FOUR_THREE]
            + pos.threat_count[side, T_OPEN_FOUR])


@njit
def find_threat_near(pos: Position, tab: Tables, side: int, threat: int, cell: int) -> int:
    """Like :func:`find_threat`, looking only along the four lines through ``cell``.

    Enough for the threats a move on ``cell`` has just created (a new five point lies
    within four cells of it on one of its lines); 40 cells instead of the whole board.
    """
    for d in range(4):
        step = tab.directions[d]
        for k in range(-4, 5):
            other = cell + k * step
            if k != 0 and pos.cells[other] == EMPTY and pos.threat[side, other] == threat:
                return other
    return -1


def set_to_move(pos: Position, tab: Tables, colour: int) -> None:
    """Make ``colour`` (1 black, 2 white) the side to move, the Zobrist key with it.

    The key is the stones' keys plus the side-to-move key (``tab.zobrist[0, 0]``) when
    white is to move: :func:`make_move` flips that key because it passes the move, and
    whoever sets the side to move otherwise (a composed position, a stone of a given
    colour, a take-back off the middle of a game) goes through here, so the same stones
    with the other side to move never share an entry of a table keyed by the position.
    Plain Python (called from the checked API, never inside a search).
    """
    if int(pos.state[TO_MOVE]) != colour:
        pos.state[TO_MOVE] = colour
        pos.key[0] ^= tab.zobrist[0, 0]


@njit
def pass_move(pos: Position, tab: Tables) -> None:
    """Give the move to the other side without playing (a null move); its own inverse.

    Used to ask "what if the opponent were to move now?" (the opponent's threats).
    """
    pos.state[TO_MOVE] = 3 - pos.state[TO_MOVE]
    pos.key[0] ^= tab.zobrist[0, 0]


__all__ = ["PAD", "Position", "Tables", "defends", "find_threat", "find_threat_near",
           "four_points", "make_move", "pattern_at", "point_patterns",
           "make_tables", "new_position", "pass_move", "reset_position", "set_to_move",
           "unmake_move"]
