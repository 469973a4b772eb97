"""Fitting the point-value table to game results (the "Texel" method).

The static evaluation (:func:`gomoku_engine.eval.evaluate`) is linear in the point
values: with ``n_own[c]`` / ``n_opp[c]`` the empty points whose four line patterns form the
canonical combination ``c`` (:func:`gomoku_engine.eval.classical.canon_table`) for the side to move /
the opponent,

    eval = sum_c value[c] * (EVAL_OWN * n_own[c] - EVAL_OPP * n_opp[c]) / EVAL_DIV.

So the value table is fitted by logistic regression of the game result (1 win, 1/2 draw,
0 loss for the side to move) on the features ``x[c] = (EVAL_OWN n_own[c] - EVAL_OPP
n_opp[c]) / EVAL_DIV``: ``P(win) = sigmoid(x . w)``, the evaluation's value being
``w * scale``.  ``scale`` is the one sigmoid scale that best maps the hand-set
evaluation to results, so the learned values keep the units the search's margins were
set in.  The penalty ``l2 * |w - w_handset|^2`` pulls each value towards the hand-set
one, which therefore stays for combinations the games rarely or never show (a five, an
open four: positions with a four on the board are not quiet and not used).

Source of the method: Peter Osterlund's tuning of Texel's evaluation (the "Texel tuning
method", chessprogramming wiki); rapfi's classical evaluation is a table of the same
kind (per pattern code) fitted by its own tools.

Positions: every position of a game after its random opening at which neither side has
a five point and the side to move has no open four or four-three point (such positions
are decided by force, not by the evaluation).  Held-out positions are whole games
(every ``holdout``-th game), so no game is on both sides of the split.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ..game.board import Board
from ..game.position import point_patterns
from ..core.constants import BLACK, EMPTY, Rule
from ..eval.classical import (
    EVAL_DIV, EVAL_OPP, EVAL_OWN, N_CANON, canon_table, handset_canonical_values,
)
from .positions import is_training_position

if TYPE_CHECKING:
    from scipy import sparse

    from .labelling import Labels

DEFAULT_L2 = 1e-4
HOLDOUT_EVERY = 10


@dataclass
class Dataset:
    """Training positions: features and targets."""

    #: float32[n, N_CANON] the x of the module docstring: a ``scipy.sparse`` CSR matrix as
    #: built here (a position shows a few dozen of the 1,001 combinations; the whole fit
    #: of 303,562 positions peaks at 0.64 GB instead of 5.8 GB dense), or a dense array
    features: sparse.csr_matrix | npt.NDArray[np.float32]
    #: float64[n] what is fitted: the result, or a probability from an engine's score
    target: npt.NDArray[np.float64]
    game: npt.NDArray[np.int32]  #: int32[n] index of the position's game
    #: float64[n] 1 win, 0.5 draw, 0 loss for the side to move (the held-out losses' truth)
    result: npt.NDArray[np.float64]


@dataclass
class Fit:
    """A fitted value table and how well it predicts."""

    values: npt.NDArray[np.int32]  #: int32[N_CANON] evaluation units
    scale: float  #: eval units per logit (the hand-set evaluation's best scale)
    #: held-out log-loss of the results under the hand-set evaluation at ``scale``
    handset_loss: float
    learned_loss: float  #: held-out log-loss of the results under the learned values
    train_positions: int
    test_positions: int


def side_result(outcome: int, to_move: int) -> float:
    """A game's result for the side to move: 1 win, 0.5 draw, 0 loss.

    :param outcome: the game's winner (1 black, 2 white) or 0 for a draw.
    :param to_move: the colour to move (1 black, 2 white).
    """
    return 0.5 if outcome == 0 else float(outcome == to_move)


def position_features(board: Board) -> npt.NDArray[np.float32] | None:
    """The feature row of ``board``'s position, or None when it is not quiet.

    :returns: ``float32[N_CANON]`` (see the module docstring).
    """
    if not is_training_position(board):
        return None
    pos, points = board.position, board.geometry.points
    us = board.to_move - 1
    them = 1 - us
    empty = points[pos.cells[points] == EMPTY]
    row = np.zeros(N_CANON, np.float64)
    for side, weight in ((us, EVAL_OWN / EVAL_DIV), (them, -EVAL_OPP / EVAL_DIV)):
        cells = empty
        if side == BLACK - 1 and board.rule == Rule.RENJU:
            cells = cells[pos.foul[cells] == 0]  # a foul is worth nothing to black
        p = point_patterns(pos, side)[cells].astype(np.int64)
        codes = p[:, 0] | (p[:, 1] << 4) | (p[:, 2] << 8) | (p[:, 3] << 12)
        row += weight * np.bincount(canon_table()[codes], minlength=N_CANON)
    return row.astype(np.float32)


def build_dataset(games: dict) -> Dataset:
    """Replay the games of :func:`gomoku_engine.training.selfplay.load` into training positions."""
    size, rule = games["size"], games["rule"]
    rows, target, game_index = [], [], []
    board = Board(size, rule=rule)
    for g in range(len(games["length"])):
        board.clear()
        result = int(games["result"][g])
        moves = games["moves"][g, : games["length"][g]]
        for ply, cell in enumerate(moves):
            if ply >= games["opening"][g]:
                row = position_features(board)
                if row is not None:
                    rows.append(_nonzeros(row))
                    target.append(side_result(result, board.to_move))
                    game_index.append(g)
            board.play(int(cell) % size, int(cell) // size)
    results = np.array(target, np.float64)
    return Dataset(_stack(rows), results, np.array(game_index, np.int32), results)


def _nonzeros(row: npt.NDArray[np.float32]
              ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float32]]:
    """A feature row (float32[N_CANON]) as its nonzero columns and their values."""
    cols = np.flatnonzero(row)
    return cols, row[cols]


def _stack(rows: Sequence[tuple[npt.NDArray[np.intp], npt.NDArray[np.float32]]]
           ) -> sparse.csr_matrix:
    """The rows of :func:`_nonzeros` as one float32[len(rows), N_CANON] CSR matrix."""
    from scipy import sparse

    indptr = np.zeros(len(rows) + 1, np.int64)
    indptr[1:] = np.cumsum([len(cols) for cols, _ in rows])
    cols = np.concatenate([c for c, _ in rows]) if rows else np.zeros(0, np.intp)
    vals = np.concatenate([v for _, v in rows]) if rows else np.zeros(0, np.float32)
    return sparse.csr_matrix((vals, cols, indptr), shape=(len(rows), N_CANON))


def build_labelled_dataset(games: dict, labels: Labels, mix: float = 1.0
                           ) -> tuple[Dataset, float]:
    """The positions of ``labels`` (an engine's scores of positions of ``games``, see
    :mod:`gomoku_engine.training.labelling`) with the target ``mix * sigmoid(score / s) + (1 - mix)
    * result`` (a forced win 1, a forced loss 0): Stockfish's NNUE trainers mix search
    score and game result the same way ("lambda").  ``s`` is the scale that best maps the
    engine's scores to the results.

    :returns: the data set and ``s`` (the engine's score units per logit).
    :raises ValueError: if a label names a position that is not a training position.
    """
    size, rule = games["size"], games["rule"]
    n = len(labels.game)
    rows = [_nonzeros(np.zeros(N_CANON, np.float32))] * n
    result = np.zeros(n, np.float64)
    board = Board(size, rule=rule)
    order = np.lexsort((labels.ply, labels.game))
    k = 0
    while k < n:
        g = int(labels.game[order[k]])
        outcome = int(games["result"][g])
        moves = games["moves"][g, : games["length"][g]]
        board.clear()
        for ply, cell in enumerate(moves):
            while k < n and labels.game[order[k]] == g and labels.ply[order[k]] == ply:
                row = position_features(board)
                if row is None:
                    raise ValueError(f"game {g} ply {ply} is not a training position")
                rows[order[k]] = _nonzeros(row)
                result[order[k]] = side_result(outcome, board.to_move)
                k += 1
            board.play(int(cell) % size, int(cell) // size)
        if k < n and labels.game[order[k]] == g:
            raise ValueError(f"game {g} has no ply {labels.ply[order[k]]}")
    score = labels.score.astype(np.float64)
    plain = labels.mate == 0
    scale = best_scale(score[plain], result[plain])
    soft = np.where(labels.mate > 0, 1.0,
                    np.where(labels.mate < 0, 0.0, 1.0 / (1.0 + np.exp(-score / scale))))
    target = mix * soft + (1.0 - mix) * result
    return Dataset(_stack(rows), target, labels.game.astype(np.int32), result), scale


def log_loss(logits: npt.NDArray[np.float64], target: npt.NDArray[np.float64]) -> float:
    """Mean binary cross-entropy of ``sigmoid(logits)`` against ``target`` (nats)."""
    return float(np.mean(np.logaddexp(0.0, logits) - target * logits))


def best_scale(evals: npt.NDArray[np.float64], target: npt.NDArray[np.float64]) -> float:
    """The ``s`` minimising the log-loss of ``sigmoid(evals / s)`` (a golden-section
    search over log s, scipy's ``minimize_scalar``)."""
    from scipy.optimize import minimize_scalar

    res = minimize_scalar(lambda t: log_loss(evals / np.exp(t), target),
                          bounds=(np.log(10.0), np.log(1e6)), method="bounded")
    return float(np.exp(res.x))


def fit(data: Dataset, l2: float = DEFAULT_L2, holdout: int = HOLDOUT_EVERY) -> Fit:
    """Fit the value table by regularised logistic regression (scipy's L-BFGS-B).

    :param l2: weight of the pull towards the hand-set values (per value, in logits^2).
    :param holdout: every ``holdout``-th game is held out for the reported losses, which
        are those of the game results (whatever the target).
    :raises ValueError: if there are no training or no held-out positions.
    """
    from scipy import sparse
    from scipy.optimize import minimize

    test = data.game % holdout == holdout - 1
    features = sparse.csr_matrix(data.features, dtype=np.float64)
    x_train, y_train = features[np.flatnonzero(~test)], data.target[~test]
    x_test, y_test = features[np.flatnonzero(test)], data.result[test]
    if len(y_train) == 0 or len(y_test) == 0:
        raise ValueError("need positions of at least two games on each side of the split")
    prior_values = handset_canonical_values().astype(np.float64)
    scale = best_scale(x_train @ prior_values, y_train)
    prior = prior_values / scale
    n = len(y_train)

    def loss_and_grad(w: npt.NDArray[np.float64]) -> tuple[float, npt.NDArray[np.float64]]:
        z = x_train @ w
        p = 0.5 * (1.0 + np.tanh(0.5 * z))  # sigmoid without overflow
        d = w - prior
        loss = log_loss(z, y_train) + l2 * float(d @ d)
        grad = x_train.T @ (p - y_train) / n + 2.0 * l2 * d
        return loss, grad

    res = minimize(loss_and_grad, prior.copy(), jac=True, method="L-BFGS-B",
                   options={"maxiter": 500})
    values = np.round(res.x * scale).astype(np.int32)
    return Fit(values, scale, log_loss(x_test @ prior, y_test),
               log_loss(x_test @ values.astype(np.float64) / scale, y_test),
               int(len(y_train)), int(len(y_test)))


def save_fit(path: Path | str, result: Fit, rule: Rule) -> None:
    """Write the fitted table as the engine's package data (see
    :func:`gomoku_engine.eval.classical.learned_values`)."""
    np.savez_compressed(path, values=result.values, rule=np.int16(int(rule)),
                        scale=np.float64(result.scale),
                        handset_loss=np.float64(result.handset_loss),
                        learned_loss=np.float64(result.learned_loss),
                        train_positions=np.int64(result.train_positions),
                        test_positions=np.int64(result.test_positions))


__all__ = ["Dataset", "Fit", "best_scale", "build_dataset", "build_labelled_dataset", "fit",
           "is_training_position", "log_loss", "position_features", "save_fit", "side_result"]
