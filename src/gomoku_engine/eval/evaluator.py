"""The evaluation's kernels: per-point values and the network's accumulators, kept in the
make/unmake pass.

Every empty point has a value per colour, looked up in ``Tables.eval_table`` by the
point's 4-pattern code (:func:`gomoku_engine.eval.classical.combination_tables`), and the
sum of those values per colour; the classical static evaluation and the move-ordering
scores read them.  The network evaluation (:mod:`gomoku_engine.eval.network`) keeps, in
the same pass, each point's canonical combination per colour (``Position.eval_canon``)
and two integer accumulators (``Position.net_acc``), saved per ply in
``Position.net_stack``.  Both run in one set of kernels, chosen at run time by the shape of
the network's tables: under the classical evaluation they are empty (``D = 0``), the
accumulator loops run zero times and :func:`evaluate` reads the value sums.

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

from ..core.constants import EVAL_LIMIT, Rule
from ..core.jit import njit
from .classical import (
    DEFENCE_DIV, DEFENCE_NUM, EVAL_DIV, EVAL_OPP, EVAL_OWN, canon_table, combination_tables,
)
from .network import ABSENT, QUANT, NetworkWeights, has_network, shipped_network
from .win_rate import sigmoid_scale

#: ``Position.state`` index of the side to move (1 black, 2 white), as in
#: :data:`gomoku_engine.game.position.TO_MOVE` (a test checks they agree)
TO_MOVE = 1
#: ``Position.state`` index of the stones on the board (:data:`gomoku_engine.game.position.PLY`)
PLY = 0
#: ``INFO evaluation`` / ``Engine(evaluation=...)`` choices: the fitted classical table,
#: the network (:mod:`.network`), the hand-set classical table; ``"learned"`` is still
#: read as ``"classical"``
EVALUATIONS = ("classical", "network", "handset")
#: the evaluation an engine plays with unless told otherwise
DEFAULT_EVALUATION = "classical"

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
    #: int32[2, N_CANON + 1, D] the network's embeddings (D = 0: the classical evaluation)
    net_embed: npt.NDArray[np.int32]
    #: float64[3 + D + 2DH + 2H]: the MLP in one array (:func:`pack_mlp`): the output bias
    #: (logit), the score units per logit, H, then bias1[D], w2's H columns one after the
    #: other (each 2D long), b2[H], w3[H].  One array, not six: every call between kernels
    #: passes each array of ``Tables``, and the classical search pays for the network's
    #: arrays in each call
    net_mlp: npt.NDArray[np.float64]


def eval_tables(rule: Rule, evaluation: str) -> EvalTables:
    """The constant tables of ``evaluation`` under ``rule``.

    ``"network"`` reads the package's network for ``rule`` (:mod:`.network`) and keeps
    the learned classical values for the move order; under a rule the package has no
    network for, it is the classical evaluation (so that a rule changed during a game
    never leaves the engine without one).  The others are classical tables
    (:func:`gomoku_engine.eval.classical.combination_tables`) with an empty network.

    :param evaluation: a name of :data:`gomoku_engine.eval.EVALUATIONS`.
    :raises ValueError: for an unknown ``evaluation``;
        :class:`~gomoku_engine.eval.network.NetworkFileError` (a ValueError) if the
        network's file is missing or damaged.
    """
    if evaluation == "network":
        if has_network(Rule(rule)):
            return network_tables(shipped_network(Rule(rule)), rule)
        evaluation = "classical"
    if evaluation not in EVALUATIONS and evaluation != "learned":
        raise ValueError(f"unknown evaluation {evaluation!r}: expected one of "
                         + ", ".join(EVALUATIONS))
    values = combination_tables(rule, evaluation)[1]
    return EvalTables(values, canon_table(), np.zeros((2, ABSENT + 1, 0), np.int32),
                      np.zeros(_MLP_HEAD, np.float64))


def network_tables(weights: NetworkWeights, rule: Rule) -> EvalTables:
    """:func:`eval_tables` for the network ``weights`` (one not shipped, say, in tests
    and training), with the classical values of ``rule`` for the move order."""
    weights.check()
    return EvalTables(combination_tables(rule, "classical")[1], canon_table(),
                      np.ascontiguousarray(weights.embed, np.int32),
                      pack_mlp(weights, sigmoid_scale(Rule(rule))))


#: ``Tables.net_mlp``'s head: the output bias, the scale, H
_MLP_HEAD = 3


def pack_mlp(weights: NetworkWeights, scale: float) -> npt.NDArray[np.float64]:
    """``float64[3 + D + 2DH + 2H]``: the MLP of ``weights`` as ``Tables.net_mlp`` holds it
    (the output bias ``b3``, ``scale`` score units per logit, ``H``, ``bias1``, ``w2``
    column by column, ``b2``, ``w3``).  ``w2`` by columns: each hidden unit's weights lie
    together, so the kernel's dot products read memory in order and vectorise."""
    head = np.array([weights.b3, scale, weights.b2.shape[0]], np.float64)
    return np.concatenate([head, weights.bias1, np.ravel(np.asarray(weights.w2).T),
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
    net_acc: npt.NDArray[np.int32]  #: int32[2, D] the accumulator of each perspective
    net_stack: npt.NDArray[np.int32]  #: int32[plies + 1, 2, D] net_acc before each ply
    net_x: npt.NDArray[np.float64]  #: float64[2D] scratch: the hidden layer's inputs


def new_eval_state(n_cells: int, plies: int, tables: Any) -> EvalState:
    """The evaluation's incremental arrays for a board of ``n_cells`` padded cells and at
    most ``plies`` moves, under ``tables`` (a ``Tables`` or :class:`EvalTables`), zeroed."""
    d = tables.net_embed.shape[2]
    return EvalState(np.zeros((2, n_cells), np.int32), np.zeros(2, np.int64),
                     np.full((2, n_cells), ABSENT, np.int16), np.zeros((2, d), np.int32),
                     np.zeros((plies + 1, 2, d), np.int32), np.zeros(2 * d, np.float64))


@njit(inline="always")
def _set_value(pos: Any, side: int, cell: int, v: int) -> None:
    pos.eval_sum[side] += v - pos.eval_value[side, cell]
    pos.eval_value[side, cell] = v


@njit(inline="always")
def _set_canon(pos: Any, tab: Any, side: int, cell: int, new: int) -> None:
    """``cell``'s combination for ``side`` becomes ``new``: both accumulators follow (the
    side's own row leaves and enters ``acc[side]``, the opponent's row ``acc[1 - side]``)."""
    old = pos.eval_canon[side, cell]
    if old != new:
        pos.eval_canon[side, cell] = new
        emb = tab.net_embed
        acc = pos.net_acc
        for k in range(acc.shape[1]):
            acc[side, k] += emb[0, new, k] - emb[0, old, k]
            acc[1 - side, k] += emb[1, new, k] - emb[1, old, k]


@njit(inline="always")
def _has_network(pos: Any) -> bool:
    """Does this position keep the network's state (``D > 0``)?  Under the classical
    evaluation the canonical combinations are neither kept nor logged: the make/unmake
    pass then does the classical work alone (a board switched to the network is built
    afresh, :meth:`gomoku_engine.engine.Engine.set_evaluation`)."""
    return pos.net_acc.shape[1] != 0


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
def reset_eval(pos: Any, tab: Any) -> None:
    """Empty board, before its points are added with :func:`update_point`."""
    pos.eval_value[:] = 0
    pos.eval_sum[:] = 0
    pos.eval_canon[:] = ABSENT
    pos.net_acc[:] = 0


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
    accumulators into ``net_stack`` at the current ply."""
    row[col] = pos.eval_sum[0]
    row[col + 1] = pos.eval_sum[1]
    ply = pos.state[PLY]
    for side in range(2):  # loops, not slices: the search's kernels run without numba's NRT
        for k in range(pos.net_acc.shape[1]):
            pos.net_stack[ply, side, k] = pos.net_acc[side, k]


@njit(inline="always")
def restore_state(pos: Any, row: Any, col: int, ply: int) -> None:
    """Undo of the move played at ``ply``: the position-wide state back from a row written
    by :func:`save_state`, and the accumulators from ``net_stack``."""
    pos.eval_sum[0] = row[col]
    pos.eval_sum[1] = row[col + 1]
    for side in range(2):
        for k in range(pos.net_acc.shape[1]):
            pos.net_acc[side, k] = pos.net_stack[ply, side, k]


@njit(fastmath=True)
def _network_logit(acc: Any, x: Any, mlp: Any, side: int) -> float:
    """The network's logit of ``side``'s win with ``side`` to move
    (:func:`gomoku_engine.eval.network.forward`), from the accumulators ``acc``
    (int32[2, D]) and the MLP packed in ``mlp`` (:func:`pack_mlp`); ``x`` (float64[2D]) is
    scratch.  Takes the network's arrays alone, not the position's tuples: a call with
    every array of ``Position`` and ``Tables`` cost more than this MLP's arithmetic.
    ``fastmath``: the sums may be reordered, so that LLVM vectorises the dot products (the
    result moves in the last bits; the tests hold it to the numpy forward pass)."""
    d = acc.shape[1]
    h = int(mlp[2])
    bias1 = _MLP_HEAD
    w2 = bias1 + d
    b2 = w2 + 2 * d * h
    w3 = b2 + h
    for k in range(d):
        a = acc[side, k] / QUANT + mlp[bias1 + k]
        b = acc[1 - side, k] / QUANT + mlp[bias1 + k]
        x[k] = a if a > 0.0 else 0.0
        x[d + k] = b if b > 0.0 else 0.0
    logit = mlp[0]
    for j in range(h):
        hidden = mlp[b2 + j]
        column = w2 + j * 2 * d
        for k in range(2 * d):
            hidden += x[k] * mlp[column + k]
        if hidden > 0.0:
            logit += hidden * mlp[w3 + j]
    return logit


@njit(inline="always")
def evaluate(pos: Any, tab: Any) -> int:
    """Static evaluation for the side to move (int, clamped to +-EVAL_LIMIT): the network's
    logit times its scale where ``tab`` holds a network, else the classical formula
    (:func:`gomoku_engine.eval.classical.static_score`).

    Inlined into the search's leaves: the classical formula is a few loads, less than a
    call would cost; the network's MLP is a call with its own arrays only."""
    side = pos.state[TO_MOVE] - 1
    if pos.net_acc.shape[1] != 0:
        logit = _network_logit(pos.net_acc, pos.net_x, tab.net_mlp, side)
        score = int(round(logit * tab.net_mlp[1]))
    else:
        score = (EVAL_OWN * pos.eval_sum[side] - EVAL_OPP * pos.eval_sum[1 - side]) // EVAL_DIV
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
