"""The static evaluation, behind one interface: its tables, its incremental values and the
move-ordering scores the search, the threat solver and Swap2 read.

The position (:mod:`gomoku_engine.game.position`) keeps the board, the line patterns, the
threat classes and the renju fouls (rules, not evaluation); everything else it knows of
the evaluation goes through the names exported here:

* :func:`eval_table` builds, for a rule and an evaluation name (:data:`EVALUATIONS`, the
  ``INFO evaluation`` setting), the constant table ``Tables.eval_table``, and
  :func:`new_eval_state` allocates the incremental arrays ``Position.eval_value`` and
  ``Position.eval_sum``;
* the hooks that :func:`~gomoku_engine.game.position.make_move` and
  :func:`~gomoku_engine.game.position.unmake_move` call inline in their single pass over
  the changed points: :func:`reset_eval`, :func:`update_point` (a point's patterns
  changed), :func:`clear_point` (occupied, or a renju foul), :func:`log_point` /
  :func:`restore_point` (the undo log's ``EVAL_UNDO_FIELDS`` columns) and
  :func:`save_state` / :func:`restore_state` (the ply's ``EVAL_SAVED_FIELDS`` columns);
* what the search reads: :func:`evaluate` (the static value for the side to move),
  :func:`move_score` (the alpha-beta move order), :func:`point_priority` (the threat
  solver's order) and :func:`point_priorities` (the root's VCF-defence order);
* what the analysis shows: :func:`win_rate`, a score as the probability of a win (the
  logistic scale the shipped tables were fitted with, :mod:`.win_rate`).

Plugging in a new evaluation.  Another table of the same form (values per 4-pattern
code) is a new name in :data:`EVALUATIONS` and a branch of
:func:`gomoku_engine.eval.classical.combination_tables`: no kernel changes.  Another form
(other tables, a small network with its own incremental state) is one new module in this
folder defining the same hooks and functions as :mod:`gomoku_engine.eval.evaluator` (it
chooses the shapes and dtypes of its ``eval_*`` arrays in ``Position`` and ``Tables``;
a third array would be one new field there), and the import below switched to it:
numba cannot cache a kernel that takes a jitted function as an argument, so the
evaluation is chosen at compile time by this import, and among tables of one form at run
time by name.  No code outside this folder indexes the evaluation's arrays.
"""

from .classical import EVALUATIONS
from .evaluator import (
    EVAL_SAVED_FIELDS, EVAL_UNDO_FIELDS, clear_point, eval_table, evaluate, log_point,
    move_score, new_eval_state, point_priorities, point_priority, reset_eval, restore_point,
    restore_state, save_state, update_point,
)
from .win_rate import sigmoid_scale, win_rate

__all__ = [
    "EVALUATIONS", "EVAL_SAVED_FIELDS", "EVAL_UNDO_FIELDS", "clear_point", "eval_table",
    "evaluate", "log_point", "move_score", "new_eval_state", "point_priorities",
    "point_priority", "reset_eval", "restore_point", "restore_state", "save_state",
    "sigmoid_scale", "update_point", "win_rate",
]
