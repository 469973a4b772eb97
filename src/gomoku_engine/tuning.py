"""Fitting the point-value table to game results (the "Texel" method).

The static evaluation (:func:`gomoku_engine.position.evaluate`) is linear in the point
values: with ``n_own[c]`` / ``n_opp[c]`` the empty points whose four line patterns form the
canonical combination ``c`` (:func:`gomoku_engine.evaluation.canon_table`) for the side to move /
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

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from .board import Board
from .constants import BLACK, EMPTY, T_FIVE, T_FOUR_THREE, T_OPEN_FOUR, Rule
from .evaluation import (
    EVAL_DIV, EVAL_OPP, EVAL_OWN, N_CANON, canon_table, handset_canonical_values,
)

DEFAULT_L2 = 1e-4
HOLDOUT_EVERY = 10


@dataclass
class Dataset:
    """Training positions: features and targets."""

    features: npt.NDArray[np.float32]  #: float32[n, N_CANON] the x of the module docstring
    target: npt.NDArray[np.float64]  #: float64[n] 1 win, 0.5 draw, 0 loss for the side to move
    game: npt.NDArray[np.int32]  #: int32[n] index of the position's game


@dataclass
class Fit:
    """A fitted value table and how well it predicts."""

    values: npt.NDArray[np.int32]  #: int32[N_CANON] evaluation units
    scale: float  #: eval units per logit (the hand-set evaluation's best scale)
    handset_loss: float  #: held-out log-loss of the hand-set evaluation at ``scale``
    learned_loss: float  #: held-out log-loss of the learned values
    train_positions: int
    test_positions: int


def position_features(board: Board) -> npt.NDArray[np.float32] | None:
    """The feature row of ``board``'s position, or None when it is not quiet.

    :returns: ``float32[N_CANON]`` (see the module docstring).
    """
    pos, points = board.position, board.geometry.points
    us = board.to_move - 1
    them = 1 - us
    tc = pos.threat_count
    if (tc[us, T_FIVE] or tc[them, T_FIVE] or tc[us, T_OPEN_FOUR]
            or tc[us, T_FOUR_THREE]):
        return None
    empty = points[pos.cells[points] == EMPTY]
    row = np.zeros(N_CANON, np.float64)
    for side, weight in ((us, EVAL_OWN / EVAL_DIV), (them, -EVAL_OPP / EVAL_DIV)):
        cells = empty
        if side == BLACK - 1 and board.rule == Rule.RENJU:
            cells = cells[pos.foul[cells] == 0]  # a foul is worth nothing to black
        p = pos.patterns[side, cells].astype(np.int64)
        codes = p[:, 0] | (p[:, 1] << 4) | (p[:, 2] << 8) | (p[:, 3] << 12)
        row += weight * np.bincount(canon_table()[codes], minlength=N_CANON)
    return row.astype(np.float32)


def build_dataset(games: dict) -> Dataset:
    """Replay the games of :func:`gomoku_engine.selfplay.load` into training positions."""
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
                    rows.append(row)
                    target.append(0.5 if result == 0 else float(result == board.to_move))
                    game_index.append(g)
            board.play(int(cell) % size, int(cell) // size)
    return Dataset(np.array(rows, np.float32).reshape(-1, N_CANON),
                   np.array(target, np.float64), np.array(game_index, np.int32))


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
    :param holdout: every ``holdout``-th game is held out for the reported losses.
    :raises ValueError: if there are no training or no held-out positions.
    """
    from scipy.optimize import minimize

    test = data.game % holdout == holdout - 1
    x_train, y_train = data.features[~test].astype(np.float64), data.target[~test]
    x_test, y_test = data.features[test].astype(np.float64), data.target[test]
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
    :func:`gomoku_engine.evaluation.learned_values`)."""
    np.savez_compressed(path, values=result.values, rule=np.int16(int(rule)),
                        scale=np.float64(result.scale),
                        handset_loss=np.float64(result.handset_loss),
                        learned_loss=np.float64(result.learned_loss),
                        train_positions=np.int64(result.train_positions),
                        test_positions=np.int64(result.test_positions))


__all__ = ["Dataset", "Fit", "best_scale", "build_dataset", "fit",
           "log_loss", "position_features", "save_fit"]
