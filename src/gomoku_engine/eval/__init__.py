"""The static evaluation, behind one interface: its tables, its incremental values and the
move-ordering scores the search, the threat solver and Swap2 read.

The position (:mod:`gomoku_engine.game.position`) keeps the board, the line patterns, the
threat classes and the renju fouls (rules, not evaluation); everything else it knows of
the evaluation goes through the names exported here:

* :func:`eval_tables` builds, for a rule and an evaluation name (:data:`EVALUATIONS`, the
  ``INFO evaluation`` setting), the constant tables (:class:`EvalTables`, fields of
  ``Tables``), and :func:`new_eval_state` allocates the incremental arrays
  (:class:`EvalState`, fields of ``Position``);
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

Two evaluations, one set of kernels.  The classical evaluation (a table of values per
4-pattern code: ``"classical"``, fitted to games, or ``"handset"``) and the network
(:mod:`.network`: embeddings of each point's combination summed into accumulators, then a
small MLP) are kept in the same make/unmake pass and chosen at run time: the network's
tables are empty under the classical evaluation, so its loops run zero times and
:func:`evaluate` reads the value sums.  Numba cannot cache a kernel that takes a jitted
function as an argument, so one set of kernels holding both is what keeps a single cache
(keyed on this folder's sources with the rest, :mod:`gomoku_engine.core.jit`) and lets
``INFO evaluation`` switch without compiling.  The move order and the threat solvers read
the classical values under either evaluation.  Another table of the same form is a new
name in :data:`EVALUATIONS` and a branch of
:func:`gomoku_engine.eval.classical.combination_tables`; no code outside this folder
indexes the evaluation's arrays.
"""

from .evaluator import (
    DEFAULT_EVALUATION, EVAL_SAVED_FIELDS, EVAL_UNDO_FIELDS, EVALUATIONS, EvalState,
    EvalTables, clear_point, defer_network, eval_table, eval_tables, evaluate, log_point,
    move_score, network_accumulators, network_available, network_scale, network_tables,
    new_eval_state, place_stone, point_priorities, point_priority, rebuild_network, reset_eval,
    restore_point, restore_state, save_state, sync_network, update_point,
)
from .network import NetworkFileError
from .win_rate import sigmoid_scale, win_rate

__all__ = [
    "DEFAULT_EVALUATION", "EVALUATIONS", "EVAL_SAVED_FIELDS", "EVAL_UNDO_FIELDS", "EvalState",
    "EvalTables", "NetworkFileError", "clear_point", "defer_network", "eval_table",
    "eval_tables", "evaluate", "log_point", "move_score", "network_accumulators",
    "network_available", "network_scale", "network_tables", "new_eval_state", "place_stone",
    "point_priorities", "point_priority", "rebuild_network", "reset_eval", "restore_point",
    "restore_state", "save_state", "sigmoid_scale", "sync_network", "update_point", "win_rate",
]
