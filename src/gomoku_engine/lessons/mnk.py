"""The game-theoretic value of an (m,n,k) game: a jitted alpha-beta solver.

An (m,n,k) game is played on an ``m`` x ``n`` board (``m`` columns, ``n`` rows); the
players place stones in turn and the first to have ``k`` (or more) in a row, column or
diagonal wins; a full board without one is a draw.  Tic-tac-toe is (3,3,3); gomoku is
(15,15,5) (Wikipedia, "m,n,k-game").

The solver is built like the engine's search (:mod:`gomoku_engine.search.alphabeta`), on a board
small enough to search to the end:

* a flat ``int8`` board padded with ``WALL`` cells (one cell wide), row by row;
* line tables: every ``k``-cell window of the board and, per cell, the windows through it
  (CSR), with the stone count of each side per window kept incrementally, so "can the side
  to move make ``k`` now?" and "must it block?" are scans of the windows;
* negamax alpha-beta over the values -1 (loss), 0 (draw), +1 (win) for the side to move;
* a transposition table keyed by Zobrist hashing, with the key of every image of the
  position under the board's symmetries (8 on a square board, 4 else) kept incrementally
  and the least of them as the key, so symmetric positions share one entry (two-entry
  buckets: one kept for the larger subtree, one always replaced);
* node rules: a ``k``-th stone wins at once; an opponent's open ``k-1`` is the only move
  (two of them lose); a side with no window left that it can fill in its remaining moves
  cannot win (its value is at most a draw: a bound, and a draw when neither side can);
* move order: the TT move, then by the windows still open through the point (weighted by
  the stones already in them), the centre first among equals; near the root the moves
  that give a symmetric image of an earlier sibling are skipped.

Typed numpy arrays cross the boundary (:class:`MnkTables`, :class:`MnkState`); the kernels
are compiled with ``cache=True`` (:data:`gomoku_engine.core.jit.njit`).  This module is
self-contained (no kernel calls into other files), so numba's own cache check of this
file suffices.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ..core.jit import njit

EMPTY, WALL = 0, 3
LOSS, DRAW, WIN = -1, 0, 1
TT_EXACT, TT_LOWER, TT_UPPER = 1, 2, 3
MAX_CELLS = 64  #: largest board (m * n) the solver accepts
SYMMETRY_PLIES = 4  #: plies at which symmetric siblings are skipped
ZOBRIST_SEED = 20261125
#: move-ordering weight of an open window holding j stones of one side
WINDOW_WEIGHT = np.array([1, 4, 16, 64, 256, 1024, 4096, 16384, 65536], np.int64)

# counters[] indices
NODES = 0
TT_HITS = 1
BEST_MOVE = 2  #: flat cell of the best root move, -1 if none
N_COUNTERS = 4


class MnkTables(NamedTuple):
    """Constant arrays of one (m,n,k) board (read-only in the kernels)."""

    points: npt.NDArray[np.int32]  #: int32[m*n] flat cells of the points, centre first
    windows: npt.NDArray[np.int32]  #: int32[n_windows, k] cells of every k-cell window
    cell_window_start: npt.NDArray[np.int32]  #: int32[n_cells+1] CSR offsets
    cell_window_list: npt.NDArray[np.int32]  #: int32[...] windows through each cell
    zobrist: npt.NDArray[np.uint64]  #: uint64[2, n_cells] key of a stone per side and cell
    #: int32[n_symmetries, n_cells]: image of each cell under each symmetry (walls: -1)
    symmetry: npt.NDArray[np.int32]
    inverse: npt.NDArray[np.int32]  #: int32[n_symmetries, n_cells]: the inverse maps
    weight: npt.NDArray[np.int64]  #: int64[k+1] ordering weight by stones in a window


class MnkState(NamedTuple):
    """Arrays the solver mutates."""

    cells: npt.NDArray[np.int8]  #: int8[n_cells] EMPTY, 1 (first player), 2, or WALL
    count: npt.NDArray[np.int8]  #: int8[n_windows, 2] stones of each side per window
    keys: npt.NDArray[np.uint64]  #: uint64[n_symmetries] Zobrist key of each image
    tt_key: npt.NDArray[np.uint64]  #: uint64[tt_size] canonical key (0: empty slot)
    tt_value: npt.NDArray[np.int8]  #: int8[tt_size] -1, 0, +1
    tt_flag: npt.NDArray[np.int8]  #: int8[tt_size] TT_EXACT / TT_LOWER / TT_UPPER
    tt_ply: npt.NDArray[np.int8]  #: int8[tt_size] stones on the board when stored
    tt_move: npt.NDArray[np.int16]  #: int16[tt_size] best move in the canonical image, -1
    move_buf: npt.NDArray[np.int32]  #: int32[m*n+1, m*n] candidate moves per ply
    score_buf: npt.NDArray[np.int64]  #: int64[m*n+1, m*n] their ordering scores
    child_keys: npt.NDArray[np.uint64]  #: uint64[SYMMETRY_PLIES, m*n] searched children
    counters: npt.NDArray[np.int64]  #: int64[N_COUNTERS], see the index constants


def make_tables(m: int, n: int, k: int) -> MnkTables:
    """Line tables, Zobrist keys and symmetry maps of the (m,n,k) board.

    :raises ValueError: unless ``1 <= k <= max(m, n)`` and ``m * n <= MAX_CELLS``.
    """
    if not (m >= 1 and n >= 1 and 1 <= k <= max(m, n) and m * n <= MAX_CELLS):
        raise ValueError(f"({m},{n},{k}): need 1 <= k <= max(m, n) and m*n <= {MAX_CELLS}")
    stride = m + 2
    n_cells = (n + 2) * stride

    def index(x: int, y: int) -> int:
        return (y + 1) * stride + x + 1

    cx, cy = (m - 1) / 2, (n - 1) / 2
    order = sorted(((x, y) for y in range(n) for x in range(m)),
                   key=lambda p: ((p[0] - cx) ** 2 + (p[1] - cy) ** 2, p[1], p[0]))
    points = np.array([index(x, y) for x, y in order], np.int32)
    windows = []
    for dx, dy in ((1, 0), (0, 1), (1, 1), (-1, 1)):
        for y in range(n):
            for x in range(m):
                ex, ey = x + (k - 1) * dx, y + (k - 1) * dy
                if 0 <= ex < m and 0 <= ey < n:
                    windows.append([index(x + j * dx, y + j * dy) for j in range(k)])
    per_cell: list[list[int]] = [[] for _ in range(n_cells)]
    for w, row in enumerate(windows):
        for c in row:
            per_cell[c].append(w)
    start = np.zeros(n_cells + 1, np.int32)
    start[1:] = np.cumsum([len(p) for p in per_cell])
    flat = np.array([w for p in per_cell for w in p], np.int32)
    rng = np.random.default_rng(ZOBRIST_SEED)
    zobrist = rng.integers(1, 2**63 - 1, size=(2, n_cells), dtype=np.int64).astype(np.uint64)
    swaps = (0, 1) if m == n else (0,)
    symmetry = np.full((len(swaps) * 4, n_cells), -1, np.int32)
    row = 0
    for swap in swaps:
        for flip_x in (0, 1):
            for flip_y in (0, 1):
                for y in range(n):
                    for x in range(m):
                        ix, iy = (m - 1 - x if flip_x else x), (n - 1 - y if flip_y else y)
                        if swap:
                            ix, iy = iy, ix
                        symmetry[row, index(x, y)] = index(ix, iy)
                row += 1
    inverse = np.full_like(symmetry, -1)
    for s, image in enumerate(symmetry):
        inverse[s, image[points]] = points
    window_array = np.array(windows, np.int32).reshape(-1, k)
    return MnkTables(points, window_array, start, flat, zobrist, symmetry, inverse,
                     WINDOW_WEIGHT[: k + 1].copy())


def new_state(m: int, n: int, tables: MnkTables, tt_bits: int = 22) -> MnkState:
    """An empty board and a cleared transposition table of ``2**tt_bits`` entries
    (12 bytes each: 48 MiB at the default 22)."""
    n_cells = tables.zobrist.shape[1]
    cells = np.full(n_cells, WALL, np.int8)
    cells[tables.points] = EMPTY
    size = 1 << tt_bits
    n_points = m * n
    return MnkState(
        cells=cells,
        count=np.zeros((tables.windows.shape[0], 2), np.int8),
        keys=np.zeros(tables.symmetry.shape[0], np.uint64),
        tt_key=np.zeros(size, np.uint64),
        tt_value=np.zeros(size, np.int8),
        tt_flag=np.zeros(size, np.int8),
        tt_ply=np.zeros(size, np.int8),
        tt_move=np.full(size, -1, np.int16),
        move_buf=np.zeros((n_points + 1, n_points), np.int32),
        score_buf=np.zeros((n_points + 1, n_points), np.int64),
        child_keys=np.zeros((SYMMETRY_PLIES, n_points), np.uint64),
        counters=np.zeros(N_COUNTERS, np.int64),
    )


@njit
def _make(st: MnkState, tab: MnkTables, cell: int, side: int) -> None:
    """Place ``side``'s (0 or 1) stone on ``cell``: board, window counts, symmetric keys."""
    st.cells[cell] = side + 1
    for i in range(tab.cell_window_start[cell], tab.cell_window_start[cell + 1]):
        st.count[tab.cell_window_list[i], side] += 1
    for s in range(st.keys.shape[0]):
        st.keys[s] ^= tab.zobrist[side, tab.symmetry[s, cell]]


@njit
def _unmake(st: MnkState, tab: MnkTables, cell: int, side: int) -> None:
    st.cells[cell] = EMPTY
    for i in range(tab.cell_window_start[cell], tab.cell_window_start[cell + 1]):
        st.count[tab.cell_window_list[i], side] -= 1
    for s in range(st.keys.shape[0]):
        st.keys[s] ^= tab.zobrist[side, tab.symmetry[s, cell]]


@njit
def _canonical(st: MnkState) -> tuple[np.uint64, int]:
    """The least key over the symmetric images, and the symmetry that gives it."""
    best = st.keys[0]
    which = 0
    for s in range(1, st.keys.shape[0]):
        if st.keys[s] < best:
            best = st.keys[s]
            which = s
    return best, which


@njit
def _empty_of(st: MnkState, tab: MnkTables, w: int) -> int:
    for j in range(tab.windows.shape[1]):
        c = tab.windows[w, j]
        if st.cells[c] == EMPTY:
            return c
    return -1


@njit
def negamax(st: MnkState, tab: MnkTables, ply: int, alpha: int, beta: int) -> int:
    """Value (-1, 0, +1) of the position for the side to move, within ``(alpha, beta)``
    (fail-hard bounds outside it); ``ply`` stones are on the board and the first player
    (side 0) moves at even plies.  At ply 0 the best move goes to ``counters[BEST_MOVE]``.
    """
    st.counters[NODES] += 1
    n_points = tab.points.shape[0]
    empties = n_points - ply
    if empties == 0:
        return DRAW
    us = ply & 1
    them = 1 - us
    k = tab.windows.shape[1]
    our_moves = (empties + 1) // 2  # stones each side can still place
    their_moves = empties // 2
    we_can_win = False
    they_can_win = False
    block1 = -1
    block2 = -1
    for w in range(tab.windows.shape[0]):
        a = st.count[w, us]
        b = st.count[w, them]
        if b == 0:
            if a == k - 1:
                if ply == 0:
                    st.counters[BEST_MOVE] = _empty_of(st, tab, w)
                return WIN  # our k-th stone
            if k - a <= our_moves:
                we_can_win = True
        if a == 0:
            if b == k - 1:
                c = _empty_of(st, tab, w)
                if block1 < 0:
                    block1 = c
                elif c != block1:
                    block2 = c
            if k - b <= their_moves:
                they_can_win = True
    if block2 >= 0:
        if ply == 0:
            st.counters[BEST_MOVE] = block1
        return LOSS  # two points that make k: one block is not enough
    if not we_can_win and not they_can_win and block1 < 0:
        if ply == 0:
            st.counters[BEST_MOVE] = tab.points[0] if st.cells[tab.points[0]] == EMPTY \
                else -1
        return DRAW
    alpha0 = alpha
    if not we_can_win and beta > DRAW:
        beta = DRAW  # at best a draw
    if not they_can_win and block1 < 0 and alpha < DRAW:
        alpha = DRAW  # at worst a draw
    if alpha >= beta and ply > 0:
        return alpha

    key, sym = _canonical(st)
    mask = st.tt_key.shape[0] - 1
    slot = int(key & np.uint64(mask)) & ~1  # buckets of two entries
    tt_move = -1
    for e in range(slot, slot + 2):
        if st.tt_key[e] == key:
            st.counters[TT_HITS] += 1
            value = st.tt_value[e]
            flag = st.tt_flag[e]
            if st.tt_move[e] >= 0:
                tt_move = tab.inverse[sym, st.tt_move[e]]
            if ply > 0:
                if flag == TT_EXACT:
                    return value
                if flag == TT_LOWER and value > alpha:
                    alpha = value
                elif flag == TT_UPPER and value < beta:
                    beta = value
                if alpha >= beta:
                    return value
            break

    # candidates
    moves = st.move_buf[ply]
    scores = st.score_buf[ply]
    n = 0
    if block1 >= 0:
        moves[0] = block1
        n = 1
    else:
        for c in tab.points:
            if st.cells[c] != EMPTY:
                continue
            score = 0
            if c == tt_move:
                score = 1 << 50
            else:
                for i in range(tab.cell_window_start[c], tab.cell_window_start[c + 1]):
                    w = tab.cell_window_list[i]
                    a = st.count[w, us]
                    b = st.count[w, them]
                    if b == 0:
                        score += tab.weight[a]
                    if a == 0:
                        score += tab.weight[b]
            j = n  # insertion sort, stable: the centre first among equals
            while j > 0 and scores[j - 1] < score:
                moves[j] = moves[j - 1]
                scores[j] = scores[j - 1]
                j -= 1
            moves[j] = c
            scores[j] = score
            n += 1

    best = -2
    best_move = -1
    n_children = 0
    for i in range(n):
        c = moves[i]
        _make(st, tab, c, us)
        if ply < SYMMETRY_PLIES:
            child, _ = _canonical(st)
            seen = False
            for j in range(n_children):
                if st.child_keys[ply, j] == child:
                    seen = True
                    break
            if seen:
                _unmake(st, tab, c, us)
                continue  # a symmetric image of a move already searched
            st.child_keys[ply, n_children] = child
            n_children += 1
        value = -negamax(st, tab, ply + 1, -beta, -alpha)
        _unmake(st, tab, c, us)
        if value > best:
            best = value
            best_move = c
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    if ply == 0:
        st.counters[BEST_MOVE] = best_move

    if best <= alpha0:
        flag = TT_UPPER
    elif best >= beta:
        flag = TT_LOWER
    else:
        flag = TT_EXACT
    stored = -1
    if best_move >= 0:
        stored = tab.symmetry[sym, best_move]
    # slot: the entry of this key, else the depth-preferred one if it holds a smaller
    # subtree (more stones), else the always-replace one
    e = slot + 1
    if st.tt_key[slot] == key or st.tt_key[slot] == 0 or st.tt_ply[slot] >= ply:
        e = slot
    st.tt_key[e] = key
    st.tt_value[e] = best
    st.tt_flag[e] = flag
    st.tt_ply[e] = ply
    st.tt_move[e] = stored
    return best


@dataclass
class MnkResult:
    """Answer of :func:`solve`."""

    m: int
    n: int
    k: int
    value: int  #: for the first player: 1 win, 0 draw, -1 loss
    move: tuple[int, int]  #: a best first move ``(x, y)``
    nodes: int  #: nodes searched
    tt_hits: int  #: transposition-table hits
    seconds: float

    @property
    def outcome(self) -> str:
        return {1: "first-player win", 0: "draw", -1: "first-player loss"}[self.value]


def warmup() -> None:
    """Load (or compile) the kernel: solve the (1,1,1) game."""
    tables = make_tables(1, 1, 1)
    negamax(new_state(1, 1, tables, 10), tables, 0, LOSS, WIN)


def solve(m: int, n: int, k: int, tt_bits: int = 22) -> MnkResult:
    """Solve the (m,n,k) game from the empty board (``m`` columns, ``n`` rows, ``k`` in
    a row wins).

    :param tt_bits: the transposition table has ``2**tt_bits`` entries (12 bytes each).
    :raises ValueError: for a board over ``MAX_CELLS`` points or ``k`` longer than a side.
    """
    tables = make_tables(m, n, k)
    state = new_state(m, n, tables, tt_bits)
    warmup()  # the time below is the search's, not the kernel's loading or compiling
    began = time.perf_counter()
    value = int(negamax(state, tables, 0, LOSS, WIN))
    seconds = time.perf_counter() - began
    cell = int(state.counters[BEST_MOVE])
    y, x = divmod(cell, m + 2)
    return MnkResult(m, n, k, value, (x - 1, y - 1), int(state.counters[NODES]),
                     int(state.counters[TT_HITS]), seconds)
