"""A search score as a win probability: the logistic curve the evaluation was fitted with.

The learned point values (:mod:`gomoku_engine.training.tuning`) are fitted by logistic
regression of game results on the evaluation: ``P(win) = 1 / (1 + exp(-eval / scale))``,
``scale`` in evaluation units per logit.  Each shipped table
(``eval/data/eval_<rule>.npz``, :func:`gomoku_engine.eval.classical.learned_file`) stores
the ``scale`` of its fit, so the win rate is read from there: a refitted table brings its
own.  Forced results are certain: a mate score (:func:`gomoku_engine.core.constants.mate_in`)
is 1 or 0 exactly, as in Rapfi's ``Config::valueToWinRate``.

Yixin-Board shows the win rate of each analysed move (``INFO WINRATE``, read as a
fraction and shown as a percentage), and so do Rapfi-based web boards.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ..core.constants import MATE_BOUND, Rule
from .classical import learned_file


@lru_cache(maxsize=None)
def sigmoid_scale(rule: Rule) -> float:
    """Evaluation units per logit of the shipped table fitted for ``rule``; rules with no
    table of their own (caro) use freestyle's, the nearest rule (five or more wins).

    :raises FileNotFoundError: if neither ``rule``'s table nor freestyle's is installed.
    :raises KeyError: if the table has no ``scale`` entry.
    """
    path = learned_file(rule)
    if not path.exists():
        path = learned_file(Rule.FREESTYLE)
    with np.load(path) as data:
        scale = float(data["scale"])
    if not scale > 0:
        raise ValueError(f"{path}: scale must be positive, not {scale}")
    return scale


def win_rate(score: int, rule: Rule = Rule.FREESTYLE) -> float:
    """The probability (0..1) that the side to move wins, for a search ``score`` (eval
    units, or a mate score) under ``rule``: 0.5 at 0, increasing with the score, exactly
    1.0 for a forced win and 0.0 for a forced loss.

    :raises FileNotFoundError: see :func:`sigmoid_scale`.
    """
    if score > MATE_BOUND:
        return 1.0
    if score < -MATE_BOUND:
        return 0.0
    # |score| <= MATE_BOUND keeps the logit within a few hundred: exp cannot overflow
    return 1.0 / (1.0 + math.exp(-score / sigmoid_scale(rule)))


__all__ = ["sigmoid_scale", "win_rate"]
