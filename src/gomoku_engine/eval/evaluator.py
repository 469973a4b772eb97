"""The evaluation's kernels: per-point values and the network's accumulators, kept in the
make/unmake pass.

Every empty point has a value per colour, looked up in ``Tables.eval_table`` by the
point's 4-pattern code (:func:`gomoku_engine.eval.classical.combination_tables`), and the
sum of those values per colour; the classical static evaluation and the move-ordering
scores read them.  The network evaluation (:mod:`gomoku_engine.eval.network`) keeps, in
the same pass, each point's canonical combination per colour (``Position.eval_canon``,
logged and restored with the point) and the accumulators' linear channels
(``Position.net_linear``, int32), saved per ply in ``Position.net_stack``.  The spatial
channels (``Position.net_acc``) follow lazily: :func:`sync_network`, called by
:func:`evaluate`, brings them up to the position for the points logged since it last did
and those :func:`defer_network` set aside when a move it saw was taken back: each
point's embedding rows per perspective (``Position.net_rows``), the convolution's output
around it (``Position.net_spatial``) and the spatial sums.  The state is integer, so any path to a
position lands exactly on the state a recomputation gives.  Both evaluations run in one
set of kernels, chosen at run time by the shape of the network's tables: under the
classical evaluation they are empty (``D = 0``), nothing of the network is kept and
:func:`evaluate` reads the value sums.

The arrays live in the position's named tuples (``Position.eval_value``,
``Position.eval_sum``, ``Position.eval_canon``, ``Position.net_*``, ``Tables.eval_table``,
``Tables.net_*``, the ``EVAL_UNDO_FIELDS`` columns of ``Position.undo`` from the offset the
position gives, the ``EVAL_SAVED_FIELDS`` columns of ``Position.count_stack``), but only
this module reads or writes them.  Numba duck-types the named tuples, so this module needs
no import of :mod:`gomoku_engine.game`.

The hooks are ``inline="always"``: they run inside :func:`make_move`'s single pass over
the changed points (as Rapfi's ``Board::move`` keeps its classical values), where a call
per point, with every array of the position, would cost more than the update.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from ..core.constants import EVAL_LIMIT, N_THREATS, Rule
from ..core.jit import njit
from .classical import (
    DEFENCE_DIV, DEFENCE_NUM, EVAL_DIV, EVAL_OPP, EVAL_OWN, canon_table, combination_tables,
)
from .network import (ABSENT, NETWORK_SIZE, OUTPUT_BOUND, QCONV, QUANT, ROWS, STONE_OPP,
                      STONE_OWN, VARIANTS, NetworkWeights, has_network, shipped_network)
from .win_rate import sigmoid_scale

#: ``Position.state`` index of the side to move (1 black, 2 white), as in
#: :data:`gomoku_engine.game.position.TO_MOVE` (a test checks they agree)
TO_MOVE = 1
#: ``Position.state`` index of the stones on the board (:data:`gomoku_engine.game.position.PLY`)
PLY = 0
#: ``Position.state`` indices of the undo log's length and of the stones the network's state
#: was brought up to, ``Position.undo``'s column of the point and ``Tables.params``' index of
#: the padded row length (:mod:`gomoku_engine.game.position`'s ``UNDO_LEN``, ``NET_PLY``,
#: ``U_CELL``, ``P_STRIDE``; a test checks they agree)
UNDO_LEN = 4
NET_PLY = 9
U_CELL = 0
P_STRIDE = 3
#: ``INFO evaluation`` / ``Engine(evaluation=...)`` choices: the fitted classical table,
#: the network (:mod:`.network`), the hand-set classical table; ``"learned"`` is still
#: read as ``"classical"``
EVALUATIONS = ("classical", "network", "spatial", "handset")
#: the evaluation an engine plays with unless told otherwise: the network where the
#: package ships one (freestyle, standard and renju on 15x15), the classical table
#: elsewhere (silently; a network named with ``INFO evaluation`` says it falls back).  It
#: led the classical table in self-play at 200 ms a move (+123 Elo by pairs, SPRT H1,
#: 0e12e7f) and against Rapfi at 1000 ms a move, over 200 paired openings, by 3.5 points a
#: game (95%: -0.5 to +7.5; d410cea, 88a57ef, 0e12e7f): docs/evaluation.md, "The
#: default"; the standard and renju networks: "Standard and renju"
DEFAULT_EVALUATION = "network"

#: an int32 zero, so that the convolution's ReLUs stay in int32 (:func:`_refresh_point`)
_ZERO = np.int32(0)
#: columns of one ``Position.undo`` row the evaluation uses: a point's two values and its
#: two canonical combinations
EVAL_UNDO_FIELDS = 4
#: columns of one ``Position.count_stack`` row the evaluation uses: the two value sums
EVAL_SAVED_FIELDS = 2


class EvalTables(NamedTuple):
    """The evaluation's constant arrays, fields of ``Tables`` under the same names."""

    #: int32[65536] a point's classical value per 4-pattern code
    eval_table: npt.NDArray[np.int32]
    #: int16[65536] the canonical combination of each 4-pattern code
    net_canon: npt.NDArray[np.int16]
    #: int32[2, ROWS, D] the network's embeddings (D = 0: the classical evaluation)
    net_embed: npt.NDArray[np.int32]
    #: int32[2, ROWS, 2 Dl] the embeddings' linear channels as the updates add them
    #: (:func:`linear_rows`): row ``r`` of side ``s`` is the change a combination ``r`` of
    #: ``s`` brings to both perspectives' linear channels, laid out as
    #: ``Position.net_linear``; row ``STONE_OWN`` the change a stone of ``s`` brings
    net_linear: npt.NDArray[np.int32]
    #: int32[4, 6 Ds] the convolution (:func:`conv_rows`): per row of the 3x3 square
    #: around a point whose features changed (above, its own, below), the taps by which
    #: the square's three points of that row read it, laid out as those points' outputs
    #: are in ``Position.net_spatial``; then the bias in ``[3, :Ds]``
    net_conv: npt.NDArray[np.int32]
    #: float64[5 + D + (2D + 2 N_THREATS + 2) H]: the MLP in one array (:func:`pack_mlp`):
    #: the output bias (logit), the score units per logit, H, Ds, N_THREATS, then bias1[D],
    #: w2's rows one after the other (2D + 2 N_THREATS of them, each H long), b2[H], w3[H].  One
    #: array, not six: every call between kernels passes each array of ``Tables``, and the
    #: classical search pays for the network's arrays in each call
    net_mlp: npt.NDArray[np.float64]


def network_available(rule: Rule, width: int | None = None, height: int | None = None,
                      variant: str = "network") -> bool:
    """Does the evaluation ``variant`` (``"network"`` or ``"spatial"``) play with a network
    under ``rule`` on a ``width`` x ``height`` board (None: any)?  The package ships them
    trained on 15x15 (:data:`NETWORK_SIZE`): ``"network"`` for freestyle, standard and
    renju, ``"spatial"`` for freestyle; elsewhere they are the classical evaluation."""
    on_board = width is None or width == height == NETWORK_SIZE
    return has_network(Rule(rule), variant) and on_board


def eval_tables(rule: Rule, evaluation: str, width: int | None = None,
                height: int | None = None) -> EvalTables:
    """The constant tables of ``evaluation`` under ``rule`` on a ``width`` x ``height``
    board (None: any).

    ``"network"`` reads the package's network for ``rule`` (:mod:`.network`) and keeps
    the learned classical values for the move order; where :func:`network_available`
    says there is none, it is the classical evaluation (so that a rule or size changed
    during a game never leaves the engine without one).  The others are classical tables
    (:func:`gomoku_engine.eval.classical.combination_tables`) with an empty network.

    :param evaluation: a name of :data:`gomoku_engine.eval.EVALUATIONS`.
    :raises ValueError: for an unknown ``evaluation``;
        :class:`~gomoku_engine.eval.network.NetworkFileError` (a ValueError) if the
        network's file is missing or damaged.
    """
    if evaluation in VARIANTS:
        if network_available(rule, width, height, evaluation):
            return network_tables(shipped_network(Rule(rule), evaluation), rule)
        evaluation = "classical"
    if evaluation not in EVALUATIONS and evaluation != "learned":
        raise ValueError(f"unknown evaluation {evaluation!r}: expected one of "
                         + ", ".join(EVALUATIONS))
    values = combination_tables(rule, evaluation)[1]
    return EvalTables(values, canon_table(), np.zeros((2, ROWS, 0), np.int32),
                      np.zeros((2, ROWS, 0), np.int32), np.zeros((4, 0), np.int32),
                      np.zeros(_MLP_HEAD, np.float64))


def network_tables(weights: NetworkWeights, rule: Rule) -> EvalTables:
    """:func:`eval_tables` for the network ``weights`` (one not shipped, say, in tests
    and training), with the classical values of ``rule`` for the move order."""
    weights.check()
    return EvalTables(combination_tables(rule, "classical")[1], canon_table(),
                      np.ascontiguousarray(weights.embed, np.int32), linear_rows(weights),
                      conv_rows(weights), pack_mlp(weights, sigmoid_scale(Rule(rule))))


def linear_rows(weights: NetworkWeights) -> npt.NDArray[np.int32]:
    """``int32[2, ROWS, 2 Dl]``: the linear channels of ``weights``' embeddings (its last
    ``Dl = D - Ds``) as ``Tables.net_linear`` holds them.  Row ``r`` of side ``s``: the
    change to ``Position.net_linear`` (perspective ``c``'s channels at ``c Dl``) when a
    point's combination for ``s`` gains ``r``: ``embed[0, r]`` for ``s``'s perspective,
    ``embed[1, r]`` for the other's.  Row ``STONE_OWN`` of side ``s`` is instead the change a
    stone of ``s`` brings (``embed[0, STONE_OWN]`` for ``s``'s perspective,
    ``embed[0, STONE_OPP]`` for the other's; no combination has that row).  One update is
    then one loop over ``2 Dl`` consecutive values, whatever the side, which LLVM
    vectorises."""
    e = np.asarray(weights.embed, np.int64)[:, :, weights.spatial:]
    dl = e.shape[2]
    rows = np.zeros((2, ROWS, 2, dl), np.int32)
    for s in range(2):
        rows[s, :, s] = e[0]
        rows[s, :, 1 - s] = e[1]
        rows[s, STONE_OWN, s] = e[0, STONE_OWN]
        rows[s, STONE_OWN, 1 - s] = e[0, STONE_OPP]
    return rows.reshape(2, ROWS, 2 * dl)


def conv_rows(weights: NetworkWeights) -> npt.NDArray[np.int32]:
    """``int32[4, 6 Ds]``: the convolution of ``weights`` as ``Tables.net_conv`` holds it.
    Row ``r`` (0 above, 1 level with, 2 below a point whose features changed) gives, for
    each of the three points of that row (left to right), both perspectives' Ds taps by
    which that point reads the changed one, laid out as the three points' outputs lie in
    ``Position.net_spatial`` (point, perspective, channel): one update of a row is one
    loop over ``6 Ds`` consecutive values, which LLVM vectorises.  Row 3 holds the bias
    in its first Ds values."""
    ds = weights.spatial
    rows = np.zeros((4, 3, 2, ds), np.int32)
    for r in range(3):
        for j in range(3):
            # the point (dy, dx) = (r - 1, j - 1) from the changed one reads it through
            # the tap at (-dy, -dx) from its centre: tap index 3 (1 - dy) + (1 - dx)
            rows[r, j, :, :] = weights.conv[3 * (2 - r) + 2 - j]
    rows[3, 0, 0, :] = weights.conv_bias
    return rows.reshape(4, 6 * ds)


#: ``Tables.net_mlp``'s head: the output bias, the scale, H, Ds, N_THREATS
_MLP_HEAD = 5
#: the value of one unit of the accumulators' spatial and linear channels
_SPATIAL_UNIT = 1.0 / (QUANT * QCONV)
_LINEAR_UNIT = 1.0 / QUANT


def pack_mlp(weights: NetworkWeights, scale: float) -> npt.NDArray[np.float64]:
    """``float64[5 + D + (2D + 2 N_THREATS + 2) H]``: the MLP of ``weights`` as
    ``Tables.net_mlp`` holds it (the output bias ``b3``, ``scale`` score units per logit,
    ``H``, ``Ds``, ``N_THREATS``, ``bias1``, ``w2`` row by row, ``b2``, ``w3``).
    ``w2`` by rows: each input's weights lie together, so the kernel adds an input to the
    hidden layer in one vectorised loop, and skips the inputs that are zero.  A network
    whose threat-mask weights are all zero (a format-1 file) is packed without them
    (``N_THREATS`` 0 in the head), so the kernel does not read them."""
    w2 = np.asarray(weights.w2)
    d = weights.width
    n_threats = N_THREATS if w2[2 * d:].any() else 0
    head = np.array([weights.b3, scale, weights.b2.shape[0], weights.spatial, n_threats],
                    np.float64)
    return np.concatenate([head, weights.bias1, np.ravel(w2[: 2 * d + 2 * n_threats]),
                           weights.b2, weights.w3]).astype(np.float64)


def network_scale(tables: Any) -> float:
    """Score units per logit of the network in ``tables`` (a ``Tables`` or
    :class:`EvalTables`)."""
    return float(tables.net_mlp[1])


def eval_table(rule: Rule, evaluation: str) -> npt.NDArray[np.int32]:
    """``int32[65536]`` read-only: a point's value for one colour per 4-pattern code
    ``p0 | p1 << 4 | p2 << 8 | p3 << 12`` (``Tables.eval_table``).

    :param evaluation: a name of :data:`gomoku_engine.eval.EVALUATIONS`.
    :raises ValueError: for an unknown ``evaluation``.
    """
    return eval_tables(rule, evaluation).eval_table


class EvalState(NamedTuple):
    """The evaluation's incremental arrays, fields of ``Position`` under the same names."""

    eval_value: npt.NDArray[np.int32]  #: int32[2, n_cells] point values (0 if occupied)
    eval_sum: npt.NDArray[np.int64]  #: int64[2] their sums
    #: int16[2, n_cells] each point's canonical combination per colour (ABSENT if occupied)
    eval_canon: npt.NDArray[np.int16]
    #: int16[2, n_cells, 2] the two embedding rows of each point's features per
    #: perspective colour (ABSENT, ABSENT: zero, as off the board)
    net_rows: npt.NDArray[np.int16]
    #: int32[n_cells * 2 * Ds] the convolution's output at each point, bias included:
    #: point ``cell``'s for perspective ``c``, channel ``k`` at ``(2 cell + c) Ds + k``;
    #: off the board held below ``-OUTPUT_BOUND``, so never rectified above zero (the
    #: updates then need no test of the board's edge)
    net_spatial: npt.NDArray[np.int32]
    #: int64[2, Ds] the accumulators' spatial channels (sums of rectified outputs)
    net_acc: npt.NDArray[np.int64]
    #: int32[2 Dl] the accumulators' linear channels: perspective ``c``'s channel ``k`` at
    #: ``c Dl + k`` (int32: :meth:`NetworkWeights.check` bounds the sums)
    net_linear: npt.NDArray[np.int32]
    #: int32[plies + 1, 2 Dl] net_linear before each ply
    net_stack: npt.NDArray[np.int32]
    #: float64[H] scratch: the hidden layer
    net_x: npt.NDArray[np.float64]
    #: int32[2, 6 Ds] scratch of the refresh: a point's rectified change (both
    #: perspectives, three times over), the rectified outputs' change along a row
    net_scratch: npt.NDArray[np.int32]
    #: int32[n_cells + 1] the deferred points (their number first): points of moves taken
    #: back whose state the next evaluation brings up (:func:`defer_network`)
    net_dirty: npt.NDArray[np.int32]
    net_mark: npt.NDArray[np.int8]  #: int8[n_cells] 1 on the points in ``net_dirty``


def new_eval_state(n_cells: int, plies: int, tables: Any) -> EvalState:
    """The evaluation's incremental arrays for a board of ``n_cells`` padded cells and at
    most ``plies`` moves, under ``tables`` (a ``Tables`` or :class:`EvalTables`), zeroed."""
    d, ds = tables.net_embed.shape[2], tables.net_conv.shape[1] // 6
    linear = tables.net_linear.shape[2]  # 2 Dl
    return EvalState(np.zeros((2, n_cells), np.int32), np.zeros(2, np.int64),
                     np.full((2, n_cells), ABSENT, np.int16),
                     np.full((2, n_cells if d else 0, 2), ABSENT, np.int16),
                     np.zeros(n_cells * 2 * ds if d else 0, np.int32),
                     np.zeros((2, ds), np.int64), np.zeros(linear, np.int32),
                     np.zeros((plies + 1, linear), np.int32),
                     np.zeros(int(tables.net_mlp[2]) if d else 0, np.float64),
                     np.zeros((2, 6 * ds), np.int32), np.zeros(n_cells + 1 if d else 0, np.int32),
                     np.zeros(n_cells if d else 0, np.int8))


@njit(inline="always")
def _set_value(pos: Any, side: int, cell: int, v: int) -> None:
    pos.eval_sum[side] += v - pos.eval_value[side, cell]
    pos.eval_value[side, cell] = v


@njit(inline="always")
def _has_network(pos: Any) -> bool:
    """Does this position keep the network's state (``D > 0``)?  Under the classical
    evaluation the canonical combinations are neither kept nor logged: the make/unmake
    pass then does the classical work alone (a board switched to the network is built
    afresh, :meth:`gomoku_engine.engine.Engine.set_evaluation`)."""
    return pos.net_x.shape[0] != 0  # the hidden layer: empty without a network


@njit(inline="always")
def _has_spatial(pos: Any) -> bool:
    """Does this position keep a network with spatial channels (``Ds > 0``)?"""
    return pos.net_spatial.shape[0] != 0


@njit(inline="always")
def update_point(pos: Any, tab: Any, side: int, cell: int, code: int) -> None:
    """An empty point's patterns for ``side`` (0 black, 1 white) changed to the 4-pattern
    ``code``: its value, the colour's sum and the accumulators follow."""
    _set_value(pos, side, cell, tab.eval_table[code])
    if _has_network(pos):
        _set_canon(pos, tab, side, cell, tab.net_canon[code])


@njit(inline="always")
def clear_point(pos: Any, tab: Any, side: int, cell: int) -> None:
    """``cell`` is worth nothing to ``side`` any more: occupied, or a renju foul for black."""
    _set_value(pos, side, cell, 0)
    if _has_network(pos):
        _set_canon(pos, tab, side, cell, ABSENT)


@njit(inline="always")
def _set_canon(pos: Any, tab: Any, side: int, cell: int, new: int) -> None:
    """``cell``'s combination for ``side`` becomes ``new``: the linear channels of both
    perspectives follow at once, one row of ``Tables.net_linear`` out and one in; the
    spatial channels wait for :func:`sync_network`.  A pure addition, undone by the
    per-ply copy (:func:`save_state`)."""
    old = pos.eval_canon[side, cell]
    if old != new:
        pos.eval_canon[side, cell] = new
        _add_linear(pos.net_linear, tab.net_linear, side, new, old)


@njit(inline="always")
def _add_linear(linear: Any, rows: Any, side: int, new: int, old: int) -> None:
    """``linear += rows[side, new] - rows[side, old]`` (int32; ``old`` = ABSENT, a zero
    row, to add one row).  Unsigned indices and int32 arithmetic: numba would otherwise
    emit the wrap-around of negative indices and widen the sums to int64, and LLVM would
    leave the loop scalar (it runs for most points a move changes, in the threat solvers'
    moves too: docs/evaluation.md, "The linear channels in int32")."""
    s = np.uint64(side)
    n = np.uint64(new)
    o = np.uint64(old)
    for m in range(np.uint64(linear.shape[0])):
        linear[m] += np.int32(rows[s, n, m] - rows[s, o, m])


@njit(inline="always")
def place_stone(pos: Any, tab: Any, side: int) -> None:
    """A stone of ``side`` was placed (its point already cleared): the linear channels
    gain the stones' embeddings, its own for ``side``'s perspective and the opponent's
    for the other.  Nothing under the classical evaluation."""
    if _has_network(pos):
        _add_linear(pos.net_linear, tab.net_linear, side, STONE_OWN, ABSENT)


@njit(inline="always")
def reset_eval(pos: Any, tab: Any) -> None:
    """Empty board, before its points are added with :func:`update_point`."""
    pos.eval_value[:] = 0
    pos.eval_sum[:] = 0
    pos.eval_canon[:] = ABSENT
    pos.net_acc[:] = 0
    pos.net_linear[:] = 0


@njit(inline="always")
def log_point(pos: Any, row: Any, col: int, cell: int) -> None:
    """Save ``cell``'s evaluation state into ``row[col:col + EVAL_UNDO_FIELDS]`` (an undo
    log row, written before a move changes the point)."""
    row[col] = pos.eval_value[0, cell]
    row[col + 1] = pos.eval_value[1, cell]
    if _has_network(pos):
        row[col + 2] = pos.eval_canon[0, cell]
        row[col + 3] = pos.eval_canon[1, cell]


@njit(inline="always")
def restore_point(pos: Any, row: Any, col: int, cell: int) -> None:
    """Undo: ``cell``'s evaluation state back from a row written by :func:`log_point`."""
    pos.eval_value[0, cell] = row[col]
    pos.eval_value[1, cell] = row[col + 1]
    if _has_network(pos):
        pos.eval_canon[0, cell] = row[col + 2]
        pos.eval_canon[1, cell] = row[col + 3]


@njit(inline="always")
def save_state(pos: Any, row: Any, col: int) -> None:
    """Before a move: the evaluation's position-wide state into
    ``row[col:col + EVAL_SAVED_FIELDS]`` (the ply's ``int64`` count-stack row) and the
    accumulators' linear channels into ``net_stack`` at the current ply."""
    row[col] = pos.eval_sum[0]
    row[col + 1] = pos.eval_sum[1]
    ply = np.uint64(pos.state[PLY])
    # a loop, not a slice: the search's kernels run without numba's NRT
    for m in range(np.uint64(pos.net_linear.shape[0])):
        pos.net_stack[ply, m] = pos.net_linear[m]


@njit(inline="always")
def restore_state(pos: Any, row: Any, col: int, ply: int) -> None:
    """Undo of the move played at ``ply``: the position-wide state back from a row written
    by :func:`save_state`, and the linear channels from ``net_stack`` (the spatial ones
    follow lazily, :func:`defer_network`)."""
    pos.eval_sum[0] = row[col]
    pos.eval_sum[1] = row[col + 1]
    at = np.uint64(ply)
    for m in range(np.uint64(pos.net_linear.shape[0])):
        pos.net_linear[m] = pos.net_stack[at, m]


@njit(inline="always")
def _refresh_point(cell: int, cells: Any, canon: Any, rows: Any, spatial: Any, acc: Any,
                   embed: Any, conv: Any, stride: int, scratch: Any) -> None:
    """Bring the spatial channels of ``cell`` up to date with its stone or combinations:
    the convolution's outputs at the nine points around it and their rectified sums
    (:mod:`.network`).  A point's features are two rows of the embeddings, kept in
    ``rows``; when neither changed there is nothing to do (a point logged twice, or
    changed and changed back).  The square's three rows are three runs of ``6 Ds``
    consecutive outputs (:func:`conv_rows`), each updated in one loop that LLVM
    vectorises; off-board outputs take the update too and stay below zero."""
    # unsigned indices (each product of two np.uint64: numba types a literal times one as
    # int64): numba then emits no wrap-around of negative ones, and LLVM vectorises
    ds = np.uint64(conv.shape[1] // 6)
    w = np.uint64(2) * ds  # one point's outputs, both perspectives
    width = np.uint64(3) * w  # a row of the square
    stone = cells[cell]
    changed = False
    for c in range(2):
        if stone == 0:
            own = np.uint64(canon[c, cell])
            other = np.uint64(canon[1 - c, cell])
        else:
            own = np.uint64(STONE_OWN if stone == c + 1 else STONE_OPP)
            other = np.uint64(ABSENT)
        own_old = np.uint64(rows[c, cell, 0])
        other_old = np.uint64(rows[c, cell, 1])
        at = np.uint64(c) * ds
        if own == own_old and other == other_old:
            for k in range(ds):
                scratch[0, at + k] = 0
            continue
        changed = True
        rows[c, cell, 0] = own
        rows[c, cell, 1] = other
        # no views of the arrays here: a view costs a reference count taken and dropped
        for k in range(ds):
            new = np.int32(embed[0, own, k] + embed[1, other, k])
            old = np.int32(embed[0, own_old, k] + embed[1, other_old, k])
            scratch[0, at + k] = ((new if new > _ZERO else _ZERO)
                                  - (old if old > _ZERO else _ZERO))
    if not changed:
        return
    for m in range(w, width):
        scratch[0, m] = scratch[0, m - w]
    for m in range(width):
        scratch[1, m] = 0
    for r in range(3):
        base = np.uint64(cell + (r - 1) * stride - 1) * w
        ru = np.uint64(r)
        for m in range(width):
            before = spatial[base + m]
            # int32 throughout (numba would widen the product and the ReLUs to int64,
            # which LLVM leaves scalar); the outputs' bound keeps them exact
            after = np.int32(before + conv[ru, m] * scratch[0, m])
            spatial[base + m] = after
            scratch[1, m] += (after if after > _ZERO else _ZERO) - (before if before > _ZERO
                                                                   else _ZERO)
    for c in range(2):
        for k in range(ds):
            m = np.uint64(c) * ds + k
            acc[c, k] += scratch[1, m] + scratch[1, m + w] + scratch[1, m + np.uint64(2) * w]


@njit
def _refresh(undo: Any, start: int, end: int, cell_col: int, dirty: Any, mark: Any,
             cells: Any, canon: Any, rows: Any, spatial: Any, acc: Any, embed: Any, conv: Any,
             stride: int, scratch: Any) -> None:
    """:func:`_refresh_point` for every point of the deferred list ``dirty`` (emptied) and
    of the undo log's rows ``start:end``.  A call with the network's arrays alone, never
    reached under the classical evaluation."""
    for j in range(1, dirty[0] + 1):
        cell = dirty[j]
        mark[cell] = 0
        _refresh_point(cell, cells, canon, rows, spatial, acc, embed, conv, stride, scratch)
    dirty[0] = 0
    for i in range(start, end):
        _refresh_point(undo[i, cell_col], cells, canon, rows, spatial, acc, embed, conv,
                       stride, scratch)


@njit(inline="always")
def defer_network(pos: Any, start: int, end: int, cell_col: int) -> None:
    """A take-back of a move the network saw: the points in rows ``start:end`` of
    ``pos.undo`` (their cell in column ``cell_col``) join the deferred list, to be brought
    up at the next evaluation (:func:`sync_network`).  A search evaluates the next sibling
    soon after, and a point both moves changed is then brought from one to the other in
    one step, not back and forth.  Nothing under the classical evaluation."""
    if _has_spatial(pos):
        dirty = pos.net_dirty
        mark = pos.net_mark
        for i in range(start, end):
            cell = pos.undo[i, cell_col]
            if mark[cell] == 0:
                mark[cell] = 1
                dirty[0] += 1
                dirty[dirty[0]] = cell


@njit(inline="always")
def sync_network(pos: Any, tab: Any) -> None:
    """Bring the network's state up to the position's stones: the deferred points of moves
    taken back, and the points of the moves played since it was last brought up (the undo
    log from that ply on).  make_move keeps only the linear channels and the evaluation
    calls this, so that a move never evaluated (the threat solvers', a cut-off's) costs
    the spatial channels nothing.  Nothing without spatial channels."""
    if _has_spatial(pos):
        synced = pos.state[NET_PLY]
        ply = pos.state[PLY]
        if synced < ply or pos.net_dirty[0] != 0:
            _refresh(pos.undo, pos.undo_start[synced], pos.state[UNDO_LEN], U_CELL,
                     pos.net_dirty, pos.net_mark, pos.cells, pos.eval_canon, pos.net_rows,
                     pos.net_spatial, pos.net_acc, tab.net_embed, tab.net_conv,
                     tab.params[P_STRIDE], pos.net_scratch)
            pos.state[NET_PLY] = ply


@njit
def _rebuild(points: Any, cells: Any, canon: Any, rows: Any, spatial: Any, acc: Any,
             embed: Any, conv: Any, stride: int, scratch: Any, dirty: Any, mark: Any) -> None:
    rows[:] = ABSENT  # both rows absent: every feature zero
    dirty[0] = 0
    mark[:] = 0
    ds = conv.shape[1] // 6
    acc[:] = 0
    spatial[:] = -2 * OUTPUT_BOUND  # off the board: never above zero
    for cell in points:
        for c in range(2):
            for k in range(ds):
                b = conv[3, k]
                spatial[(2 * cell + c) * ds + k] = b
                acc[c, k] += max(b, 0)
    for cell in points:
        _refresh_point(cell, cells, canon, rows, spatial, acc, embed, conv, stride, scratch)


@njit(inline="always")
def rebuild_network(pos: Any, tab: Any, stride: int) -> None:
    """The spatial channels' state from scratch, once every point's combinations are set
    (a cleared board): every feature zero, every convolution output its bias (off the
    board ``-2 OUTPUT_BOUND``), then each point refreshed."""
    if _has_spatial(pos):
        _rebuild(tab.points, pos.cells, pos.eval_canon, pos.net_rows, pos.net_spatial,
                 pos.net_acc, tab.net_embed, tab.net_conv, stride, pos.net_scratch,
                 pos.net_dirty, pos.net_mark)


@njit(fastmath=True)
def _network_logit(acc: Any, linear: Any, threat_count: Any, hidden: Any, mlp: Any,
                   side: int) -> float:
    """The network's logit of ``side``'s win with ``side`` to move
    (:func:`gomoku_engine.eval.network.forward`), from the accumulators' spatial channels
    ``acc`` (int64[2, Ds]) and linear ones ``linear`` (int32[2 Dl], perspective ``c`` at
    ``c Dl``), the threat classes' counts (int32[2, N_THREATS]) and the MLP packed in
    ``mlp`` (:func:`pack_mlp`); ``hidden`` (float64[H]) is scratch.  Takes the network's
    arrays alone, not the position's tuples: a call with every array of ``Position`` and
    ``Tables`` cost more than this MLP's arithmetic.

    The hidden layer is summed input by input, each a vectorised add of its row of
    ``w2`` times its value, and only for the inputs that are not zero: about half of the
    rectified accumulators and most of the threat mask.  ``fastmath``: the sums may be
    reordered (the result moves in the last bits; the tests hold it to the numpy forward
    pass)."""
    d = acc.shape[1] + linear.shape[0] // 2  # Ds + Dl
    h = int(mlp[2])
    ds = int(mlp[3])
    nt = int(mlp[4])
    bias1 = _MLP_HEAD
    w2 = bias1 + d
    b2 = w2 + (2 * d + 2 * nt) * h
    w3 = b2 + h
    for j in range(h):
        hidden[j] = mlp[b2 + j]
    dl = d - ds
    for k in range(d):
        for p in range(2):
            c = side if p == 0 else 1 - side
            # the accumulators' units are powers of two: a product, exact, not a division
            if k < ds:
                value = acc[c, k] * _SPATIAL_UNIT + mlp[bias1 + k]
            else:
                value = linear[c * dl + k - ds] * _LINEAR_UNIT + mlp[bias1 + k]
            if value > 0.0:
                row = w2 + (p * d + k) * h
                for j in range(h):
                    hidden[j] += value * mlp[row + j]
    for t in range(1, nt):  # class 0 (none) is never an input
        for p in range(2):
            if threat_count[side if p == 0 else 1 - side, t] > 0:
                row = w2 + (2 * d + p * nt + t) * h
                for j in range(h):
                    hidden[j] += mlp[row + j]
    logit = mlp[0]
    for j in range(h):
        if hidden[j] > 0.0:
            logit += hidden[j] * mlp[w3 + j]
    return logit


@njit(inline="always")
def evaluate(pos: Any, tab: Any) -> int:
    """Static evaluation for the side to move (int, clamped to +-EVAL_LIMIT): the network's
    logit times its scale where ``tab`` holds a network, else the classical formula
    (:func:`gomoku_engine.eval.classical.static_score`).

    Inlined into the search's leaves: the classical formula is a few loads, less than a
    call would cost; the network's MLP is a call with its own arrays only."""
    side = pos.state[TO_MOVE] - 1
    if _has_network(pos):
        sync_network(pos, tab)
        logit = _network_logit(pos.net_acc, pos.net_linear, pos.threat_count, pos.net_x,
                               tab.net_mlp, side)
        score = int(round(logit * tab.net_mlp[1]))
    else:
        score = (EVAL_OWN * pos.eval_sum[side] - EVAL_OPP * pos.eval_sum[1 - side]) // EVAL_DIV
    if score > EVAL_LIMIT:
        return EVAL_LIMIT
    if score < -EVAL_LIMIT:
        return -EVAL_LIMIT
    return score


def network_accumulators(pos: Any) -> npt.NDArray[np.int64]:
    """``int64[2, D]``: both perspectives' accumulators (black's, then white's) as the
    network reads them, spatial channels then linear ones (numpy, outside the kernels:
    tests and tools compare them with a recomputation).  Call :func:`sync_network` first
    for the spatial channels to be up to date."""
    linear = pos.net_linear.astype(np.int64).reshape(2, -1)
    return np.concatenate([pos.net_acc, linear], axis=1)


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
