"""The jitted search: fail-soft negamax alpha-beta with PVS, a bucketed transposition
table, killers, counter moves, history, threat-driven forced replies, local candidates, a
breadth limit, and the selectivity of the strong alpha-beta engines (rapfi's
``search/ab/search.cpp`` and Stockfish): reverse futility pruning, razoring, internal
iterative reduction, move-count pruning and late-move reductions from a table in
log(depth) x log(move number).

One call of :func:`search_depth` searches the position to a fixed depth; iterative
deepening, time control and reporting live in :mod:`gomoku_engine.search.driver`, which calls it
with growing depths (the transposition table carries move ordering from one iteration to
the next).  The kernel never prints: it stops when the stop flag (``SearchState.stop[0]``,
read with an atomic load) is set by another thread, when it reaches its node limit, or
when the monotonic clock passes its deadline (all checked every 256 nodes).

Node order at every node (from the point of view of the side to move, "us"):

1. we can make five: a win in 1;
2. the opponent has a five point: the block is the only move (two five points, or a
   block that is a renju foul for black: a loss);
3. we can make an open four (or double four): a win in 3 (the opponent has no five point,
   so it cannot stop both ends); a win in 5 by rule (rapfi's ``quickWinCheck``,
   ``Rapfi/game/wincheck.h``): a four-three while the opponent cannot make a four, or one
   whose four's block makes no four for the opponent, or a double three while the
   opponent cannot make a four (not for renju black, whose straight four may be a foul);
4. depth exhausted: static evaluation (before it, if enabled, a short VCF for the side
   to move, a win scored as a mate; or, if enabled, the VCF quiescence of
   :func:`quiescence`);
5. the opponent threatens a forced win (it has a four-three or open-four point): only our
   four-making moves and the defences are searched: the points where the opponent would
   make a four, and those where our stone weakens the open three, four or open four that
   a threat point makes on its line (so the three of a four-three can be broken at its
   far end, not only the four blocked); the defence rule of rapfi's move picker,
   ``DEFENCE`` moves;
6. at a non-PV node whose opponent threatens nothing forced: reverse futility pruning
   (the static evaluation beats beta by a margin per ply of depth: return it) and
   razoring (at depth 1-2 it stays below alpha by a margin and we have no four to start a
   VCF: return it); without a TT move at depth 4 or more, one ply less (internal
   iterative reduction);
7. otherwise every empty point in the 5x5 neighbourhood of a stone, ordered by TT move,
   then one-ply priority (attack value + defence value, plus a bonus where the move makes
   or takes a double three, four-three or open four: the classes that win by rule, kept
   within the breadth limit whatever the fitted values say), killers, the counter move and
   history (depth^2 more for a move that cuts, as much less for each move ordered before
   it, bounded by gravity toward 0), and cut to the best ``breadth`` moves (the breadth
   limit on weak candidates).
   At non-PV nodes quiet moves past a count that grows with depth are pruned (move-count
   pruning); later moves are searched shallower first (late-move reduction: the table
   value, less for killers, the counter move, threats and defences and at PV nodes, more
   at expected cut nodes and when the evaluation is not improving), then at full depth if
   they beat alpha.  Off by default, as tunables: extensions in rapfi's form (the reply
   to a four, the TT move, a reduction below zero, a deeper or shallower re-search of a
   reduced move) and the singular extension of the TT move (Stockfish's and rapfi's:
   the other moves searched without it at about half the depth, below the TT score by a
   margin; see the tunables ``singular_*`` in params.py).

Mate scores are stored in the transposition table relative to the node (Stockfish's
``value_to_tt``/``value_from_tt``) so they stay correct at any depth.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ..core.constants import (
    EMPTY, INFINITY, MATE, MATE_BOUND, MAX_PLY, OPEN_FOUR, OPEN_THREE, PAD, T_FIVE, T_FOUR,
    T_DOUBLE_THREE, T_FOUR_THREE, T_OPEN_FOUR, T_OPEN_THREE,
)
from ..eval import evaluate, move_score
from ..core.jit import atomic_load, monotonic_ns, njit, unmanaged
from ..game.position import (
    P_CARO, P_HEIGHT, P_RENJU, P_STRIDE, P_WIDTH, PLY, TO_MOVE, X_MAX, X_MIN, Y_MAX, Y_MIN,
    Position, Tables, defends, find_threat, find_threat_near, four_points, line_index,
    make_move, pattern_at, unmake_move,
)
from ..game.defences import five_defences
# the tunables (``ss.tune[0].<name>``): why each has its value is said in params.py
from .params import (
    LMR_TABLE_SIZE, ONE_PLY, PARAMS_DTYPE, TT_BUCKET, make_params, params_record,
)
from .threats import ABORTED, LINE_LEN
from .threats import DEADLINE as VCF_DEADLINE
from .threats import NODE_LIMIT as VCF_NODE_LIMIT
from .threats import NODES as VCF_NODES
from .threats import ThreatState, vcf

# make/unmake (and generate_moves, _poll_stop below) inlined into negamax at numba's IR
# level: a call passes the arrays of Position and Tables by value (73 ns a call against
# 7.6 ns for three bare arrays).  The same tree in 0.94 of the CPU time, for 18% more
# compile time (docs/strength.md, "Search speed").
_make_move = njit(inline="always")(make_move.py_func)
_unmake_move = njit(inline="always")(unmake_move.py_func)

#: our evaluation units in one of rapfi's (its scores are about 1/20 of ours), to take its
#: margins over
RAPFI_UNIT = 20
#: the alpha-improvement reduction stops where a score is this decisive: rapfi's 2000 in
#: our units
ALPHA_REDUCTION_SCORE = 2000 * RAPFI_UNIT

#: ``score_buf`` mark of a candidate move-count pruning skipped
NOT_SEARCHED = -(2**31)

# counters[] indices
NODES = 0
STOPPED = 1
NODE_LIMIT = 2
SELDEPTH = 3
ALLOW_STOP = 4
# move + 1 of the TT move the next negamax call at the same ply leaves out (the singular
# extension's search; 0: none); read and cleared on the node's entry
EXCLUDED = 5
# 6 is free (the breadth limits were counters; they are tunables now)
DEADLINE = 7  # kernel_clock_ns() value at which to stop; 0: none
ROOT_FILTER = 8  # 1: only root moves with root_allowed[cell] != 0 are searched
HORIZON_VCF = 9  # node budget of the VCF at the horizon; 0: off
POLL = 10  # nodes left until the next stop check
GENERATION = 11  # age of this move's search in the transposition table (0..255)
ROOT_DONE = 12  # root moves fully searched in the running iteration
ROOT_CHANGED = 13  # times a root move other than the first raised alpha in it
ROOT_SCORE = 14  # score of the root's best completed move in it (with the PV in pv[0])
ROOT_MOVES = 15  # root candidates of the last iteration (1: the move is forced)
DEFENCE_STAMP = 16  # the stamp of the last ``_collect_moves`` call that marked defences
N_COUNTERS = 17
POLL_INTERVAL = 256

# transposition-table bound flags
TT_EXACT = 1
TT_LOWER = 2
TT_UPPER = 3

#: One transposition-table entry: the Zobrist key, the score (mates relative to the node),
#: the static evaluation (NO_EVAL: not stored), the best move (flat cell, -1: none), the
#: draft (in 1/ONE_PLY of a ply), the bound flag and the GENERATION of the search that
#: stored it.  One record array, not an array per field: a probe and a store then touch
#: one or two cache lines of the bucket instead of one line in each of seven arrays.
TT_DTYPE = np.dtype([("key", np.uint64), ("score", np.int32), ("eval", np.int32),
                     ("move", np.int16), ("depth", np.int16), ("flag", np.int8),
                     ("age", np.uint8)], align=True)
TT_ENTRY_BYTES = TT_DTYPE.itemsize  # 24
NO_EVAL = -(2**31) + 1  #: static evaluation not stored
NO_FIVE_POINT = -1  #: :func:`_forced_blocks`: the opponent has no five point
LOST_TO_FIVE = -2  #: :func:`_forced_blocks`: its five points cannot all be blocked
#: what every entry holds after clear_search_state: no key, no move, no evaluation
TT_EMPTY = np.array((0, 0, NO_EVAL, -1, 0, 0, 0), TT_DTYPE)


class SearchState(NamedTuple):
    """Arrays the search kernel mutates (one per engine; sized at creation)."""

    tt: npt.NDArray[np.void]  #: TT_DTYPE[tt_size] the transposition table
    killers: npt.NDArray[np.int32]  #: int32[MAX_PLY, 2]
    history: npt.NDArray[np.int32]  #: int32[2, n_cells]
    #: int32[2, n_cells] per side, the move that last refuted the opponent's move on a cell
    counter_moves: npt.NDArray[np.int32]
    eval_stack: npt.NDArray[np.int32]  #: int32[MAX_PLY + 1] static evaluation per ply
    #: float64[LMR_TABLE_SIZE, LMR_TABLE_SIZE] late-move reduction by depth and move number
    reductions: npt.NDArray[np.float64]
    pv: npt.NDArray[np.int32]  #: int32[MAX_PLY + 1, MAX_PLY + 1] triangular PV table
    pv_len: npt.NDArray[np.int32]  #: int32[MAX_PLY + 1]
    move_buf: npt.NDArray[np.int32]  #: int32[MAX_PLY, n_points] candidates per ply
    score_buf: npt.NDArray[np.int32]  #: int32[MAX_PLY, n_points] their priorities
    counters: npt.NDArray[np.int64]  #: int64[N_COUNTERS] see the index constants above
    stop: npt.NDArray[np.int64]  #: int64[1] set to 1 by another thread to stop
    root_allowed: npt.NDArray[np.int8]  #: int8[n_cells] root moves allowed by ROOT_FILTER
    #: int64[n_cells] scratch of ``_collect_moves``: the defences it found on the
    #: opponent's threat lines hold its call's stamp (``counters[DEFENCE_STAMP]``), so
    #: older marks need no clearing
    defence_mark: npt.NDArray[np.int64]
    #: PARAMS_DTYPE[1] the tunables (:data:`gomoku_engine.search.params.TUNABLES`), read by
    #: the kernel as ``ss.tune[0].<name>``; set with :func:`set_search_params`
    tune: npt.NDArray[np.void]
    #: int32[2, 8] move-ordering bonus by threat class (``T_NONE`` .. ``T_FIVE``): row 0 of
    #: the class a move makes for the side to move, row 1 of the class it takes from the
    #: opponent; derived from the tunables ``order_*``
    order_bonus: npt.NDArray[np.int32]


def tt_entries_for(megabytes: float) -> int:
    """Largest power-of-two entry count that fits ``megabytes`` MiB (at least 1024)."""
    entries = max(1024, int(megabytes * 2**20) // TT_ENTRY_BYTES)
    return 1 << (entries.bit_length() - 1)


def new_search_state(n_cells: int, n_points: int, tt_megabytes: float,
                     params: Mapping[str, float] | None = None) -> SearchState:
    """Allocate a :class:`SearchState` with a transposition table of ``tt_megabytes`` MiB.

    :param params: tunables' values by name (:func:`gomoku_engine.search.params.make_params`;
        those not given take their defaults).
    :raises ValueError: for an unknown tunable or a value outside its range.
    """
    size = tt_entries_for(tt_megabytes)
    counters = np.zeros(N_COUNTERS, np.int64)
    state = SearchState(
        tt=np.empty(size, TT_DTYPE),
        killers=np.empty((MAX_PLY, 2), np.int32),
        history=np.empty((2, n_cells), np.int32),
        counter_moves=np.empty((2, n_cells), np.int32),
        eval_stack=np.zeros(MAX_PLY + 1, np.int32),
        reductions=np.zeros((LMR_TABLE_SIZE, LMR_TABLE_SIZE), np.float64),
        pv=np.zeros((MAX_PLY + 1, MAX_PLY + 1), np.int32),
        pv_len=np.zeros(MAX_PLY + 1, np.int32),
        move_buf=np.zeros((MAX_PLY, n_points), np.int32),
        score_buf=np.zeros((MAX_PLY, n_points), np.int32),
        counters=counters,
        stop=np.zeros(1, np.int64),
        root_allowed=np.ones(n_cells, np.int8),
        defence_mark=np.zeros(n_cells, np.int64),
        tune=np.zeros(1, PARAMS_DTYPE),
        order_bonus=np.zeros((2, 8), np.int32),
    )
    set_search_params(state, make_params(params))
    # Writing every entry now makes the OS map the pages here, outside any timed move: a
    # fresh table's pages were otherwise faulted in one by one during the first searches,
    # which under load made 200 ms moves 50-100 ms late.
    clear_search_state(state)
    counters[NODE_LIMIT] = np.iinfo(np.int64).max
    return state


def set_search_params(ss: SearchState, values: Mapping[str, float]) -> None:
    """Write every tunable's value (``values``: name to value, all of
    :data:`~gomoku_engine.search.params.TUNABLES`, as ``make_params`` gives) into
    ``ss.tune`` and rebuild the tables derived from them (the late-move reductions, the
    threat classes' move-ordering bonus), in place: lazy-SMP helpers share these arrays."""
    ss.tune[:] = params_record(values)
    ss.reductions[:] = reduction_table(values["lmr_base"], values["lmr_divisor"])
    ss.order_bonus[:] = 0
    for row, prefix in ((0, "order_"), (1, "order_block_")):
        ss.order_bonus[row, T_DOUBLE_THREE] = values[prefix + "double_three"]
        ss.order_bonus[row, T_FOUR_THREE] = values[prefix + "four_three"]
        ss.order_bonus[row, T_OPEN_FOUR] = values[prefix + "open_four"]


def clear_search_state(ss: SearchState) -> None:
    """Forget everything learned (TT, killers, history): a new game or a bench position."""
    ss.tt[:] = TT_EMPTY
    clear_move_order(ss)


def clear_move_order(ss: SearchState) -> None:
    """Forget the killers, counter moves and history, and keep the TT (a lazy-SMP
    helper's own state, whose table is the main search's)."""
    ss.killers[:] = -1
    ss.history[:] = 0
    ss.counter_moves[:] = -1


def reduction_table(base: float, divisor: float) -> npt.NDArray[np.float64]:
    """``float64[LMR_TABLE_SIZE, LMR_TABLE_SIZE]``: the late-move reduction (plies) of the
    move numbered ``m`` (1-based) at depth ``d``: ``base + log(d) log(m) / divisor`` (the
    form of Stockfish's and rapfi's reduction tables; 0 where either is 0).  The tunables
    ``lmr_base`` and ``lmr_divisor`` give ``base`` and ``divisor``."""
    d = np.arange(LMR_TABLE_SIZE, dtype=np.float64)
    logs = np.log(np.maximum(d, 1.0))
    table = base + np.outer(logs, logs) / divisor
    table[0, :] = 0.0
    table[:, 0] = 0.0
    return table


@njit
def _score_to_tt(score: int, ply: int) -> int:
    if score > MATE_BOUND:
        return score + ply
    if score < -MATE_BOUND:
        return score - ply
    return score


@njit
def _score_from_tt(score: int, ply: int) -> int:
    if score > MATE_BOUND:
        return score - ply
    if score < -MATE_BOUND:
        return score + ply
    return score


@njit
def _pv_leaf(ss: SearchState, ply: int, move: int) -> None:
    ss.pv[ply, 0] = move
    ss.pv_len[ply] = 1


@njit
def _pv_extend(ss: SearchState, ply: int, move: int) -> None:
    ss.pv[ply, 0] = move
    n = ss.pv_len[ply + 1]
    for j in range(n):
        ss.pv[ply, j + 1] = ss.pv[ply + 1, j]
    ss.pv_len[ply] = n + 1


@njit(inline="always")
def generate_moves(pos: Position, tab: Tables, ss: SearchState, ply: int, tt_move: int,
                   breadth: int) -> int:
    """Fill ``ss.move_buf[ply]`` with the best ``breadth`` candidates, best first.

    :returns: the number of candidates (0 only on an empty board or a full one).  At the
        root, a filter that would leave no candidate is dropped.
    """
    n = _collect_moves(pos, tab, ss, ply, tt_move, breadth, True)
    if n == 0 and ply == 0 and ss.counters[ROOT_FILTER] != 0:
        # Every move proven to stop the opponent's VCF lies off its threat lines (the
        # line rule of step 5 drops them all): trust the filter alone, then nothing.
        n = _collect_moves(pos, tab, ss, ply, tt_move, breadth, False)
        if n == 0:
            ss.counters[ROOT_FILTER] = 0
            n = _collect_moves(pos, tab, ss, ply, tt_move, breadth, True)
    return n


# Without reference counting, as negamax (see there): it calls other kernels, so numba
# would keep an increment and a decrement of each of its 46 arrays per inner node.
@njit(_nrt=False)
def _collect_moves(pos: Position, tab: Tables, ss: SearchState, ply: int, tt_move: int,
                   breadth: int, line_rule: bool) -> int:
    us = pos.state[TO_MOVE] - 1
    them = 1 - us
    restricted = pos.threat_count[them, T_FOUR_THREE] + pos.threat_count[them, T_OPEN_FOUR] > 0
    if not line_rule:
        restricted = False
    stamp = 0
    if restricted:
        ss.counters[DEFENCE_STAMP] += 1
        stamp = ss.counters[DEFENCE_STAMP]
        _mark_threat_line_defences(pos, tab, ss, them, stamp)
    moves = ss.move_buf[ply]
    scores = ss.score_buf[ply]
    k0 = ss.killers[ply, 0]
    k1 = ss.killers[ply, 1]
    counter = _counter_move(pos, ss, us)
    tp = ss.tune[0]
    killer_bonus = tp.killer_bonus
    counter_bonus = tp.counter_bonus
    history_shift = tp.history_shift
    history_cap = tp.history_cap
    n = 0
    # the points within two of a stone, in board order (as tab.points): the stones'
    # bounding box grown by two, clipped to the board
    stride = tab.params[P_STRIDE]
    row0 = max(pos.state[Y_MIN] - 2, PAD)
    row1 = min(pos.state[Y_MAX] + 2, PAD + tab.params[P_HEIGHT] - 1)
    col0 = max(pos.state[X_MIN] - 2, PAD)
    col1 = min(pos.state[X_MAX] + 2, PAD + tab.params[P_WIDTH] - 1)
    for row in range(row0, row1 + 1):
        for cell in range(row * stride + col0, row * stride + col1 + 1):
            if (pos.cells[cell] != EMPTY or pos.near[cell] == 0
                    or (us == 0 and pos.foul[cell] != 0)):  # renju: black may not play a foul
                continue
            if (restricted and pos.threat[us, cell] < T_FOUR and not defends(pos, them, cell)
                    and ss.defence_mark[cell] != stamp):
                continue
            if ply == 0 and ss.counters[ROOT_FILTER] != 0 and ss.root_allowed[cell] == 0:
                continue
            if cell == tt_move:
                score = 1 << 30
            else:
                score = (move_score(pos, us, cell) + ss.order_bonus[0, pos.threat[us, cell]]
                         + ss.order_bonus[1, pos.threat[them, cell]])
                if cell == k0 or cell == k1:
                    score += killer_bonus
                elif cell == counter:
                    score += counter_bonus
                h = ss.history[us, cell] >> history_shift
                score += min(max(h, -history_cap), history_cap)
            # insertion into the sorted top-``breadth`` prefix
            if n < breadth:
                i = n
                n += 1
            elif score > scores[n - 1]:
                i = n - 1
            else:
                continue
            while i > 0 and scores[i - 1] < score:
                moves[i] = moves[i - 1]
                scores[i] = scores[i - 1]
                i -= 1
            moves[i] = cell
            scores[i] = score
    return n


@njit
def _mark_threat_line_defences(pos: Position, tab: Tables, ss: SearchState, them: int,
                               stamp: int) -> None:
    """Set ``ss.defence_mark`` to ``stamp`` on the empty points where our stone weakens
    what one of the opponent's threat points (four-three or open four) makes on a line
    where it makes an open three, a four or an open four: the three half of a four-three
    broken, or the three that would become an open four shortened.  Read from the point's
    line key with our stone added.  (``defends`` only sees the points where the opponent
    would make a four now, which misses the ends of a four-three's three.)"""
    ours = 2 - them  # our stone's code in a line key: 1 black, 2 white
    for point in tab.points:
        t = pos.threat[them, point]
        if pos.cells[point] != EMPTY or (t != T_FOUR_THREE and t != T_OPEN_FOUR):
            continue
        for d in range(4):
            before = pattern_at(pos, them, point, d)
            if before < OPEN_THREE or before > OPEN_FOUR:
                continue
            step = tab.directions[d]
            key = pos.keys[point, d]
            for k in range(-5, 6):
                cell = point + k * step
                if k == 0 or pos.cells[cell] != EMPTY:
                    continue
                slot = k + 5 if k < 0 else k + 4
                after = (tab.line_pair[line_index(tab, key | (ours << (2 * slot)))]
                         >> (4 * them)) & 15
                if after < before:
                    ss.defence_mark[cell] = stamp


@njit(inline="always")
def _quick_win(pos: Position, tab: Tables, us: int, them: int, buf: npt.NDArray[np.int32],
               row: int) -> int:
    """A point where ``us`` (0 black, 1 white; the side to move) wins in 5 plies whatever
    the opponent does, by rule alone, or -1 (rapfi's ``quickWinCheck``,
    ``Rapfi/game/wincheck.h``).  The caller has found no five point for either side and no
    open-four point for ``us``.

    - A four-three while the opponent has no four point: the four must be blocked, the
      block cannot touch the three's line (two lines meet only at our stone) nor make a
      four, so the three becomes an open four.
    - A four-three whose four's block makes no four for the opponent: the same, even when
      the opponent has four points elsewhere (a four of theirs after our open four comes
      too late; before it, the block is forced).  Under caro every block of the four
      counts (the point past its open end too).
    - A double three while the opponent has no four point: one stone blocks one line
      only, and the opponent can make no four to gain a tempo.

    Not sound for renju black (the caller's condition): the straight four's point may be
    a foul.  ``buf[row]`` (int32, at least
    :data:`gomoku_engine.game.defences.MAX_DEFENCES` long) is scratch space.
    """
    no_fours = four_points(pos, them) == 0
    if pos.threat_count[us, T_FOUR_THREE] > 0:
        if no_fours:
            return find_threat(pos, tab, us, T_FOUR_THREE)
        for cell in tab.points:
            if pos.cells[cell] != EMPTY or pos.threat[us, cell] != T_FOUR_THREE:
                continue
            _make_move(pos, tab, cell)
            if tab.params[P_CARO] != 0:
                held = _a_block_makes_four(pos, tab, us, them, buf, row)
            else:
                block = find_threat_near(pos, tab, us, T_FIVE, cell)
                held = block < 0 or pos.threat[them, block] >= T_FOUR
            _unmake_move(pos, tab)
            if not held:
                return cell
    if no_fours and pos.threat_count[us, T_DOUBLE_THREE] > 0:
        return find_threat(pos, tab, us, T_DOUBLE_THREE)
    return -1


@njit
def _a_block_makes_four(pos: Position, tab: Tables, us: int, them: int,
                        buf: npt.NDArray[np.int32], row: int) -> bool:
    """``them`` to move after our four: does one of its blocks (or, with none, nothing)
    make a four for ``them``?  (Caro's second clause of :func:`_quick_win`, where the
    four has a block past its open end besides its five point; the blocks go to
    ``buf[row]``.)"""
    if pos.threat_count[us, T_FIVE] == 0:
        return True  # no four after all: claim nothing
    for i in range(five_defences(pos, tab, us, buf, row)):
        if pos.threat[them, buf[row, i]] >= T_FOUR:
            return True
    return False


@njit(inline="always")
def _improving(ss: SearchState, ply: int, static_eval: int) -> bool:
    """Is the static evaluation better than two plies ago (same side to move)?  At ply 0
    and 1 there is none: counted as improving, as Stockfish counts a missing one (a root
    move and its refutation were otherwise reduced one ply more and pruned more)."""
    return ply < 2 or static_eval > ss.eval_stack[ply - 2]


@njit
def _counter_move(pos: Position, ss: SearchState, us: int) -> int:
    """The move that last refuted the opponent's last move (counter-move heuristic), or -1."""
    ply = pos.state[PLY]
    return ss.counter_moves[us, pos.moves[ply - 1]] if ply > 0 else -1


@njit(inline="always")
def _is_quiet(pos: Position, us: int, move: int) -> bool:
    """A quiet move makes no open three or more for ``us`` and stops none of the
    opponent's (the moves that history, move-count pruning and the forcing-move relief
    of late-move reductions tell apart)."""
    return pos.threat[us, move] < T_OPEN_THREE and pos.threat[1 - us, move] < T_OPEN_THREE


@njit(inline="always")
def _history_bonus(ss: SearchState, plies: float) -> int:
    """The history a move that cuts gains at a node of ``plies`` plies of depth:
    history_bonus x plies^2, at most history_max."""
    return min(int(ss.tune[0].history_bonus * plies * plies), ss.tune[0].history_max)


@njit
def _history_update(ss: SearchState, us: int, move: int, bonus: int) -> None:
    """Add ``bonus`` (negative: a malus) to ``move``'s history, with gravity toward 0."""
    h = ss.history[us, move]
    ss.history[us, move] = h + bonus - h * abs(bonus) // ss.tune[0].history_max


@njit
def _history_reward(ss: SearchState, ply: int, us: int, index: int, bonus: int) -> None:
    """The move at ``index`` of the ply's candidates gains ``bonus`` of history
    (:func:`_history_bonus`), those ordered before it lose as much (with the tunable
    history_searched_only, only those that were searched, not those move-count pruning
    skipped)."""
    _history_update(ss, us, ss.move_buf[ply, index], bonus)
    searched_only = ss.tune[0].history_searched_only != 0
    for j in range(index):
        if not searched_only or ss.score_buf[ply, j] != NOT_SEARCHED:
            _history_update(ss, us, ss.move_buf[ply, j], -bonus)


@njit
def _history_tt_move(pos: Position, ss: SearchState, us: int, move: int, depth: int,
                     cut: bool) -> None:
    """A TT cutoff's quiet move gains history when its score cut, loses it when it failed
    low (rapfi's ``updateTTMoveStats``)."""
    if not _is_quiet(pos, us, move):
        return
    bonus = _history_bonus(ss, depth / ONE_PLY)
    _history_update(ss, us, move, bonus if cut else -bonus)


@njit(inline="always")
def _poll_stop(ss: SearchState) -> bool:
    c = ss.counters
    c[NODES] += 1
    if c[STOPPED] != 0:
        return True
    c[POLL] -= 1  # a countdown, not NODES % 256: solver nodes are added to NODES in bulk
    if c[POLL] <= 0:
        c[POLL] = POLL_INTERVAL
        if c[ALLOW_STOP] != 0 and (
                atomic_load(ss.stop) != 0 or c[NODES] >= c[NODE_LIMIT]
                or (c[DEADLINE] != 0 and monotonic_ns() >= c[DEADLINE])):
            c[STOPPED] = 1
            return True
    return False


@njit
def kernel_clock_ns() -> int:
    """The clock the kernel checks its deadline against (0 where it has none)."""
    return monotonic_ns()


@njit
def _tt_probe(ss: SearchState, key: np.uint64) -> int:
    """Index of ``key``'s entry in its bucket, or -1."""
    base = (key & np.uint64(ss.tt.shape[0] - 1)) & ~np.uint64(TT_BUCKET - 1)
    for j in range(TT_BUCKET):
        if ss.tt[base + j].key == key:
            return int(base) + j
    return -1


@njit
def _tt_store(ss: SearchState, key: np.uint64, move: int, score: int, static_eval: int,
              depth: int, flag: int) -> None:
    """Store a search result in ``key``'s bucket: over its own entry if there is one (an
    unknown move keeps the old one; a bound searched more than the tunable
    ``tt_keep_depth`` units shallower than the entry is dropped, an exact score never:
    rapfi's rule), else over the entry of least depth, older entries counting the tunable
    ``tt_age_weight`` plies less per search since they were stored."""
    base = int((key & np.uint64(ss.tt.shape[0] - 1)) & ~np.uint64(TT_BUCKET - 1))
    generation = ss.counters[GENERATION]
    slot = -1
    worst = 1 << 30
    for j in range(TT_BUCKET):
        i = base + j
        e = ss.tt[i]
        if e.key == key:
            if flag != TT_EXACT and depth + ss.tune[0].tt_keep_depth < e.depth:
                return
            slot = i
            if move < 0:
                move = e.move
            break
        age = (generation - e.age) & 255
        weight = e.depth - ss.tune[0].tt_age_weight * ONE_PLY * age
        if weight < worst:
            worst = weight
            slot = i
    e = ss.tt[slot]
    e.key = key
    e.move = move
    e.score = score
    e.eval = static_eval
    e.depth = depth
    e.flag = flag
    e.age = generation


@njit(_nrt=False)
def _enter_node(ss: SearchState, ply: int) -> bool:
    """Open a node at ``ply``: its PV emptied, the node counted, the selective depth
    raised; True when the search must stop (see :func:`_poll_stop`)."""
    ss.pv_len[ply] = 0
    if _poll_stop(ss):
        return True
    if ply > ss.counters[SELDEPTH]:
        ss.counters[SELDEPTH] = ply
    return False


@njit(_nrt=False)
def _forced_blocks(pos: Position, tab: Tables, ss: SearchState, us: int, ply: int) -> int:
    """The blocks ``us`` must choose from, the defences of the opponent's five points
    (:func:`gomoku_engine.game.defences.five_defences`: the five point, under caro also
    the point past a four's open end), into ``ss.move_buf[ply]``: returns their number,
    or ``NO_FIVE_POINT`` (the opponent has none), or ``LOST_TO_FIVE`` (no defence, or a
    block that is a renju foul for black: lost, the PV leaf set)."""
    them = 1 - us
    if pos.threat_count[them, T_FIVE] == 0:
        return NO_FIVE_POINT
    n = five_defences(pos, tab, them, ss.move_buf, ply)
    if n == 0 or (us == 0 and pos.foul[ss.move_buf[ply, 0]] != 0):
        _pv_leaf(ss, ply, find_threat(pos, tab, them, T_FIVE))
        return LOST_TO_FIVE
    return n


@njit(_nrt=False)
def _in_buf(ss: SearchState, ply: int, n: int, cell: int) -> bool:
    """True if ``cell`` is among the first ``n`` moves of ``ss.move_buf[ply]``."""
    for i in range(n):
        if ss.move_buf[ply, i] == cell:
            return True
    return False


@njit(inline="always")
def _quiescence_four(pos: Position, us: int, cell: int, least: int, renju_black: bool) -> bool:
    """Is the point ``cell`` one of the quiescence's fours: empty, a four of class
    ``least`` or more for ``us`` short of a five, and no foul when ``renju_black``?"""
    t = pos.threat[us, cell]
    return (pos.cells[cell] == EMPTY and least <= t < T_FIVE
            and not (renju_black and pos.foul[cell] != 0))


@njit(_nrt=False)
def quiescence(pos: Position, tab: Tables, ss: SearchState, alpha: int, beta: int, ply: int,
               fours: int) -> int:
    """Fail-soft value of the position at the horizon: a VCF quiescence.

    The side to move may stand pat on the static evaluation or make one of its fours
    (at most ``fours`` more along the line); the opponent's only reply to a four is its
    block, searched at no cost, and a block that makes a four of its own is answered by
    the forced block in turn.  Five points, an open four and the forced blocks are scored
    as in :func:`negamax`.  The form is rapfi's leaves (its ``vcfsearch``: stand pat on
    the evaluation, only the side to move's fours, the forced block free).  Rapfi keeps
    its fours near the last moves and prunes them far below alpha; here the tunables
    ``quiescence_near`` (only the fours on the lines through the side to move's last
    stones, 4 cells either way) and ``quiescence_delta`` (at that distance below alpha,
    only four-threes) do the same when set.  ``ss.move_buf[ply]`` holds the fours.
    Same conventions as :func:`negamax` (ints passed as int64 variables; the PV in
    ``ss.pv[ply]``; after a stop the value is meaningless).
    """
    if _enter_node(ss, ply):
        return 0
    us = pos.state[TO_MOVE] - 1
    if pos.threat_count[us, T_FIVE] > 0:
        _pv_leaf(ss, ply, find_threat(pos, tab, us, T_FIVE))
        return MATE - ply - 1
    blocks = _forced_blocks(pos, tab, ss, us, ply)
    if blocks == LOST_TO_FIVE:
        return -(MATE - ply - 2)
    if blocks > 0:  # its blocks (one but under caro), the only moves
        if ply >= MAX_PLY - 2:
            return evaluate(pos, tab)
        best = -INFINITY
        for i in range(blocks):
            block = ss.move_buf[ply, i]
            _make_move(pos, tab, block)
            score = -quiescence(pos, tab, ss, -beta, -alpha, ply + 1, fours)
            _unmake_move(pos, tab)
            if score > best:
                best = score
                _pv_extend(ss, ply, block)
                if score > alpha:
                    alpha = score
            if alpha >= beta or (i > 0 and ss.counters[STOPPED] != 0):
                break
        return best
    if pos.threat_count[us, T_OPEN_FOUR] > 0:
        _pv_leaf(ss, ply, find_threat(pos, tab, us, T_OPEN_FOUR))
        return MATE - ply - 3
    if pos.state[PLY] >= tab.points.shape[0]:
        return 0
    best = evaluate(pos, tab)
    if best >= beta or fours <= 0 or ply >= MAX_PLY - 2 or four_points(pos, us) == 0:
        return best
    if best > alpha:
        alpha = best
    renju_black = us == 0 and tab.params[P_RENJU] != 0
    tp = ss.tune[0]
    # Delta pruning (rapfi's vcfsearch): far below alpha, a four that does not make a
    # four-three cannot raise the score enough; only the fours that win by rule are tried.
    least = T_FOUR
    if tp.quiescence_delta > 0 and best + tp.quiescence_delta <= alpha:
        least = T_FOUR_THREE
    n = 0
    if tp.quiescence_near != 0:
        # only the fours on the lines through the side to move's last stones (rapfi keeps
        # its quiescence's fours near the last moves): 40 cells each instead of the board
        for back in range(2, 2 + 2 * tp.quiescence_near, 2):
            if pos.state[PLY] < back:
                break
            origin = pos.moves[pos.state[PLY] - back]
            for d in range(4):
                step = tab.directions[d]
                for k in range(-4, 5):
                    cell = origin + k * step
                    if (k != 0 and _quiescence_four(pos, us, cell, least, renju_black)
                            and not _in_buf(ss, ply, n, cell)):
                        ss.move_buf[ply, n] = cell
                        n += 1
    else:
        for cell in tab.points:
            if _quiescence_four(pos, us, cell, least, renju_black):
                ss.move_buf[ply, n] = cell
                n += 1
    for i in range(n):
        move = ss.move_buf[ply, i]
        _make_move(pos, tab, move)
        score = -quiescence(pos, tab, ss, -beta, -alpha, ply + 1, np.int64(fours - 1))
        _unmake_move(pos, tab)
        if ss.counters[STOPPED] != 0:
            return 0
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                _pv_extend(ss, ply, move)
                if score >= beta:
                    break
    return best


# Compiled without numba's reference counting (its ``_nrt`` compile flag): numba
# increments every array argument on entry and decrements it on each return, and its
# pruning pass drops those pairs only in a kernel that calls no other kernel (a call to any
# jitted function, this kernel's own recursion included, keeps them all).  With the 63
# arrays of Position, Tables, SearchState and ThreatState that was 126 calls to
# NRT_incref/NRT_decref a node; without them the same tree takes 0.75 of the CPU time
# (docs/strength.md, "Search speed").  Safe because the kernel allocates nothing (numba
# refuses to compile an allocation without it) and its arrays outlive every call: the
# Python caller holds them (``_negamax_root``).
@njit(_nrt=False)
def negamax(pos: Position, tab: Tables, ss: SearchState, ts: ThreatState, depth: int,
            alpha: int, beta: int, ply: int, cut_node: int) -> int:
    """Fail-soft alpha-beta value of the position for the side to move.

    ``depth`` counts fractional plies: ``ONE_PLY`` units a ply (rapfi's float depth, in
    integers).  ``beta - alpha > 1`` makes a PV node; ``cut_node`` (1 or 0) says a
    null-window node is expected to fail high (its reductions are larger).  Every int argument is passed as an
    int64 variable, never a literal: a literal makes numba compile a second specialisation
    of this recursive kernel, which crashes when loaded back from the on-disk cache.  The board is restored on return.  After a
    stop (``ss.counters[STOPPED]``) the returned value is meaningless and the caller must
    discard it.  ``ss.pv[ply, :ss.pv_len[ply]]`` holds the principal variation from this
    node.
    """
    # the singular extension's search of this node without its TT move: no TT cutoff, no
    # store, no move of the entry (read first, so that no other node sees it)
    excluded = ss.counters[EXCLUDED] - 1
    ss.counters[EXCLUDED] = 0
    if _enter_node(ss, ply):
        return 0
    us = pos.state[TO_MOVE] - 1
    them = 1 - us

    if pos.threat_count[us, T_FIVE] > 0:  # 1. five now
        _pv_leaf(ss, ply, find_threat(pos, tab, us, T_FIVE))
        return MATE - ply - 1
    # 2. block the opponent's five point (two of them, or a block that is a renju foul
    # for black: lost)
    blocks = _forced_blocks(pos, tab, ss, us, ply)
    if blocks == LOST_TO_FIVE:
        return -(MATE - ply - 2)
    if blocks > 0:
        if ply >= MAX_PLY - 2:
            return evaluate(pos, tab)
        # the only moves (one but under caro, whose four blocked at one end is also
        # stopped past its open end): searched at the same depth (the extension of the
        # reply to a four), or deeper by the tunable four_reply_extension above the horizon
        ss.eval_stack[ply] = -ss.eval_stack[ply - 1] if ply > 0 else evaluate(pos, tab)
        if ply == 0:
            ss.counters[ROOT_MOVES] = blocks
        child_depth = depth + ss.tune[0].four_reply_extension if depth > 0 else depth
        best = -INFINITY
        for i in range(blocks):
            block = ss.move_buf[ply, i]
            _make_move(pos, tab, block)
            score = -negamax(pos, tab, ss, ts, child_depth, -beta, -alpha, ply + 1,
                             np.int64(1 - cut_node))
            _unmake_move(pos, tab)
            if score > best:
                best = score
                _pv_extend(ss, ply, block)
                if score > alpha:
                    alpha = score
            if alpha >= beta or (i > 0 and ss.counters[STOPPED] != 0):
                break
        return best
    if pos.threat_count[us, T_OPEN_FOUR] > 0:  # 3. open four: five next move
        _pv_leaf(ss, ply, find_threat(pos, tab, us, T_OPEN_FOUR))
        return MATE - ply - 3
    if us == 1 or tab.params[P_RENJU] == 0:
        # 3b. a win in 5 by rule.  Not for renju black: the point that makes the straight
        # four may be a foul by then.
        win = _quick_win(pos, tab, us, them, ss.move_buf, ply)
        if win >= 0:
            _pv_leaf(ss, ply, win)
            return MATE - ply - 5
    if pos.state[PLY] >= tab.points.shape[0]:
        return 0  # board full: draw
    if (depth <= 0 and ss.tune[0].threat_leaf_search > 0 and ply < MAX_PLY - 8
            and (pos.threat_count[them, T_FOUR_THREE] > 0
                 or (ss.tune[0].threat_leaf_search > 1
                     and pos.threat_count[them, T_OPEN_FOUR] > 0))):
        # a threatened horizon node: its defences are searched, not judged statically
        depth = np.int64(ONE_PLY)
    if depth <= 0 and ss.tune[0].horizon_quiescence > 0 and ply < MAX_PLY - 2:
        return quiescence(pos, tab, ss, alpha, beta, ply,
                          np.int64(ss.tune[0].horizon_quiescence))
    if depth <= 0 or ply >= MAX_PLY - 2:
        fours = ss.tune[0].horizon_vcf_depth
        if (ss.counters[HORIZON_VCF] > 0 and four_points(pos, us) > 0
                and ply + 2 * fours + 2 < MAX_PLY):
            ts.counters[VCF_NODES] = 0
            ts.counters[VCF_NODE_LIMIT] = ss.counters[HORIZON_VCF]
            ts.counters[ABORTED] = 0
            ts.counters[VCF_DEADLINE] = 0
            # np.int64(): a literal argument would make numba compile a second
            # specialisation of the recursive solver, which crashes when cached.
            won = vcf(pos, tab, ts, np.int64(fours), np.int64(0))
            ss.counters[NODES] += ts.counters[VCF_NODES]
            if won:
                n = ts.counters[LINE_LEN]
                for j in range(n):
                    ss.pv[ply, j] = ts.line[j]
                ss.pv_len[ply] = n
                return MATE - ply - n
        return evaluate(pos, tab)

    pv_node = beta - alpha > 1
    key = pos.key[0]
    entry = _tt_probe(ss, key) if excluded < 0 and ss.tune[0].tt_reads != 0 else -1
    tt_move = -1
    tt_flag = 0
    tt_depth = 0
    tt_value = 0
    static_eval = NO_EVAL
    if entry >= 0:
        e = ss.tt[entry]
        tt_move = e.move
        static_eval = e.eval
        tt_flag = e.flag
        tt_depth = e.depth
        tt_value = _score_from_tt(e.score, ply)
        if ply > 0 and tt_depth >= depth:
            if (tt_flag == TT_EXACT or (tt_flag == TT_LOWER and tt_value >= beta)
                    or (tt_flag == TT_UPPER and tt_value <= alpha)):
                if tt_move >= 0:
                    _pv_leaf(ss, ply, tt_move)
                    if ss.tune[0].history_tt != 0:
                        _history_tt_move(pos, ss, us, tt_move, depth, tt_value >= beta)
                return tt_value
    if static_eval == NO_EVAL:
        static_eval = evaluate(pos, tab)
    tp = ss.tune[0]
    ss.eval_stack[ply] = static_eval
    improving = _improving(ss, ply, static_eval)
    # the opponent threatens a forced win (four-three or open-four points): only fours
    # and defences are searched, and nothing is pruned unless the tunable
    # threatened_pruning says so (rapfi prunes there too)
    threatened = pos.threat_count[them, T_FOUR_THREE] + pos.threat_count[them, T_OPEN_FOUR] > 0
    prunable = not threatened or tp.threatened_pruning != 0

    if not pv_node and prunable and -MATE_BOUND < beta < MATE_BOUND:
        # Reverse futility pruning (rapfi "futility pruning: child node", ~121 Elo).
        if (depth <= tp.futility_depth * ONE_PLY
                and static_eval - tp.futility_margin
                * (depth - (tp.futility_improving if improving else 0)) // ONE_PLY >= beta):
            return static_eval
        # Razoring (rapfi's ~68 Elo step drops into a VCF search; we have no four to
        # start one, so the static evaluation stands).
        if (depth <= tp.razor_depth * ONE_PLY
                and static_eval + tp.razor_margin * depth // ONE_PLY <= alpha):
            if tp.razor_quiescence != 0 and tp.horizon_quiescence > 0:
                # rapfi's razoring: a null-window VCF quiescence at alpha decides
                value = quiescence(pos, tab, ss, alpha, alpha + 1, ply,
                                   np.int64(tp.horizon_quiescence))
                if value <= alpha:
                    return value
            elif four_points(pos, us) == 0:
                return static_eval
    # Internal iterative reduction: no TT move to search first, so likely a poor order.
    if (tt_move < 0 and excluded < 0 and depth >= tp.iir_depth * ONE_PLY
            and (pv_node or cut_node != 0)):
        depth -= tp.iir_reduction
    # units of depth added to the TT move: rapfi's TT-move extension, unless the singular
    # extension (Stockfish; rapfi ~52 Elo) tests whether it is the only good move
    tt_extension = tp.tt_move_extension_pv if pv_node else tp.tt_move_extension
    if (tp.singular_depth > 0 and ply > 0 and tt_move >= 0
            and depth >= tp.singular_depth * ONE_PLY
            and (tt_flag == TT_LOWER or tt_flag == TT_EXACT)
            and tt_depth >= depth - tp.singular_tt_depth and abs(tt_value) < MATE_BOUND):
        singular_beta = tt_value - tp.singular_margin * depth // ONE_PLY
        ss.counters[EXCLUDED] = tt_move + 1
        value = negamax(pos, tab, ss, ts, depth * 15 // 32, singular_beta - 1, singular_beta,
                        ply, cut_node)
        if ss.counters[STOPPED] != 0:
            return 0
        ss.eval_stack[ply] = static_eval
        ss.pv_len[ply] = 0  # the PV that search left here is not this node's
        if value < singular_beta:
            tt_extension = tp.singular_extension
        elif singular_beta >= beta:
            return singular_beta  # multi-cut: another move beats beta too
        elif tt_value >= beta:
            tt_extension = -tp.singular_negative
        else:
            tt_extension = 0

    breadth = tp.root_breadth if ply == 0 else tp.breadth
    n = generate_moves(pos, tab, ss, ply, tt_move, breadth)
    if n == 0:
        return static_eval
    if ply == 0:
        ss.counters[ROOT_MOVES] = n
    alpha_orig = alpha
    best = -INFINITY
    best_move = -1
    k0 = ss.killers[ply, 0]
    k1 = ss.killers[ply, 1]
    counter = _counter_move(pos, ss, us)
    prev = pos.moves[pos.state[PLY] - 1] if pos.state[PLY] > 0 else -1
    plies = depth / ONE_PLY  # float: the formulas below are in plies
    move_limit = tp.move_count_base + int(plies ** tp.move_count_exponent)
    if not improving:
        move_limit = move_limit // 2 + 1
    # Fail-high reduction (rapfi): an expected cut node whose evaluation is well above beta
    # will most likely cut anyway, so every move but a four is searched shallower.
    fail_high = 0
    if tp.fail_high_reduction > 0 and not pv_node and cut_node != 0:
        margin = tp.fail_high_bias + tp.fail_high_margin * (depth // ONE_PLY)
        if threatened:
            margin += tp.fail_high_threatened
        if static_eval >= beta + margin:
            fail_high = tp.fail_high_reduction
    for i in range(n):
        move = ss.move_buf[ply, i]
        quiet = _is_quiet(pos, us, move)
        # at a threatened node every move is a four or a defence; with
        # threatened_move_count the defences count as quiet for move-count pruning (rapfi
        # prunes by move count there too), our fours never
        countable = quiet or (threatened and tp.threatened_move_count != 0
                              and pos.threat[us, move] < T_FOUR)
        # Move-count pruning (rapfi ~107 Elo): once a move has been searched, quiet late
        # moves at shallow non-PV nodes are not tried.
        if (countable and not pv_node and prunable and depth <= tp.move_count_depth * ONE_PLY
                and i >= move_limit and best > -MATE_BOUND):
            ss.score_buf[ply, i] = NOT_SEARCHED  # (the priorities are not read again)
            continue
        if move == excluded:
            continue
        new_depth = depth - ONE_PLY
        if move == tt_move:
            new_depth += tt_extension
        if fail_high != 0 and pos.threat[us, move] < T_FOUR:
            new_depth -= fail_high
        _make_move(pos, tab, move)
        if i == 0:
            score = -negamax(pos, tab, ss, ts, new_depth, -beta, -alpha, ply + 1,
                             np.int64(0 if pv_node or cut_node != 0 else 1))
        else:
            # Late-move reduction (rapfi ~59 Elo), from the table, adjusted per move.
            r = 0
            lmr = depth >= tp.lmr_min_depth * ONE_PLY and (ply > 0 or i >= tp.lmr_root_skip)
            if lmr:
                table = ss.reductions[min(depth // ONE_PLY, LMR_TABLE_SIZE - 1),
                                      min(i + 1, LMR_TABLE_SIZE - 1)]
                # whole plies, or the table's fraction of a ply too (rapfi's float depth)
                r = int(ONE_PLY * table) if tp.lmr_fraction != 0 else ONE_PLY * int(table)
                if pv_node:
                    r -= tp.lmr_pv
                if cut_node != 0:
                    r += tp.lmr_cut
                if not improving:
                    r += tp.lmr_not_improving
                if move == k0 or move == k1 or move == counter:
                    r -= tp.lmr_killer
                if not quiet and (not threatened or tp.threatened_relief != 0):
                    # makes an open three or more, or stops one of theirs (at a threatened
                    # node every move does, unless threatened_relief is 0)
                    r -= tp.lmr_threat
                if ss.history[us, move] > tp.lmr_history_threshold * plies * plies:
                    r -= tp.lmr_history
                if r > new_depth - ONE_PLY:
                    r = new_depth - ONE_PLY
                # below zero (a ply deeper at most) only with lmr_extend
                least = -ONE_PLY if tp.lmr_extend != 0 else 0
                if r < least:
                    r = least
            # the reduced search's child is expected to cut; a child searched without the
            # reductions' rule (too shallow for it) is the opposite of this node (rapfi)
            reduced = new_depth - r
            score = -negamax(pos, tab, ss, ts, reduced, -alpha - 1, -alpha, ply + 1,
                              np.int64(1 if lmr else 1 - cut_node))
            if r > 0 and score > alpha:
                if tp.lmr_deeper > 0:
                    # rapfi's lmrExtension: far above alpha a ply deeper, barely above the
                    # node's best a ply shallower
                    if score > alpha + tp.lmr_deeper + tp.lmr_deeper_slope * r // ONE_PLY:
                        new_depth += ONE_PLY
                    elif score < best + RAPFI_UNIT * new_depth // ONE_PLY:
                        new_depth -= ONE_PLY
                if new_depth > reduced:
                    score = -negamax(pos, tab, ss, ts, new_depth, -alpha - 1, -alpha, ply + 1,
                                     np.int64(1 - cut_node))
            if pv_node and alpha < score < beta:
                score = -negamax(pos, tab, ss, ts, new_depth, -beta, -alpha, ply + 1,
                                 np.int64(0))
        _unmake_move(pos, tab)
        if ss.counters[STOPPED] != 0:
            return 0
        if ply == 0:
            ss.counters[ROOT_DONE] += 1
        if score > best:
            best = score
            # only a move that raised alpha is the node's move: a fail-low node keeps the
            # TT move it had (Stockfish, rapfi), not its highest upper bound, unless the
            # tunable fail_low_move says so
            if score > alpha or tp.fail_low_move != 0:
                best_move = move
            if score > alpha:
                alpha = score
                _pv_extend(ss, ply, move)
                if ply == 0:
                    ss.counters[ROOT_SCORE] = score
                    if i > 0:
                        ss.counters[ROOT_CHANGED] += 1
                if score >= beta:
                    if move != ss.killers[ply, 0]:
                        ss.killers[ply, 1] = ss.killers[ply, 0]
                        ss.killers[ply, 0] = move
                    if prev >= 0:
                        ss.counter_moves[us, prev] = move
                    # the move that cut gains, the moves ordered before it lose (those
                    # move-count pruning skipped too, unless history_searched_only)
                    _history_reward(ss, ply, us, i, _history_bonus(ss, plies))
                    break
                # Alpha-improvement reduction (rapfi, ~26 Elo there): once a move raised
                # alpha at a PV node, the later ones are searched shallower.
                if (pv_node and 2 * ONE_PLY < depth < 12 * ONE_PLY
                        and abs(score) < ALPHA_REDUCTION_SCORE):
                    depth -= tp.alpha_reduction
    if excluded >= 0:
        return alpha if best == -INFINITY else best  # nothing stored
    if best >= beta:
        flag = TT_LOWER
    elif best > alpha_orig:
        flag = TT_EXACT
        if tp.history_pv != 0:  # rapfi: the best move's stats at every node that has one
            for i in range(n):
                if ss.move_buf[ply, i] == best_move:
                    _history_reward(ss, ply, us, i, _history_bonus(ss, plies))
                    break
    else:
        flag = TT_UPPER
    _tt_store(ss, key, best_move, _score_to_tt(best, ply), static_eval, depth, flag)
    return best


def search_depth(pos: Position, tab: Tables, ss: SearchState, ts: ThreatState, depth: int,
                 alpha: int, beta: int) -> int:
    """One iteration of iterative deepening: :func:`negamax` from the root at ``depth``
    (whole plies).

    A plain Python function on purpose: a jitted caller of the recursive kernel passes a
    literal ``ply`` and makes numba compile a second, mutually recursive specialisation,
    which crashed when loaded back from the on-disk cache (numba 0.68).

    :returns: the root score; the principal variation is ``ss.pv[0, :ss.pv_len[0]]``.
    """
    ss.counters[SELDEPTH] = 0
    ss.counters[ROOT_DONE] = 0
    ss.counters[ROOT_CHANGED] = 0
    return int(_negamax_root(pos, tab, ss, ts, depth * ONE_PLY, alpha, beta, 0))


@njit
def _negamax_root(pos: Position, tab: Tables, ss: SearchState, ts: ThreatState, depth: int,
                  alpha: int, beta: int, ply: int) -> int:
    """:func:`negamax` without numba's reference counting of the arrays (see
    :func:`gomoku_engine.core.jit.unmanaged`; the Python caller holds them)."""
    return negamax(unmanaged(pos), unmanaged(tab), unmanaged(ss), unmanaged(ts), depth, alpha,
                   beta, ply, np.int64(0))


__all__ = ["SearchState", "clear_move_order", "clear_search_state", "find_threat",
           "generate_moves", "negamax", "new_search_state", "search_depth", "tt_entries_for",
           "MATE", "MATE_BOUND"]
