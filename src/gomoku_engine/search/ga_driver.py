"""One move of the genetic algorithm (``Engine(algorithm="ga")``): the limits and settings
packed for :func:`gomoku_engine.search.ga.ga_search`, and its answer read back.

Imported only when the algorithm is chosen: a default game never loads the GA's kernels.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..core.constants import MATE
from ..game.board import Board
from . import ga
from .alphabeta import SearchState, kernel_clock_ns
from .driver import fallback_move, start_clock
from .limits import UNCAPPED, Limits, SearchInfo, SearchResult, ms_since


def _config(board: Board, cfg: ga.GAConfig, seed: int, limits: Limits) -> np.ndarray:
    """``int64[ga.N_CONFIG]``: :func:`ga.ga_search`'s settings (its hard deadline is set by
    the caller, who owns the stop timer)."""
    config = np.zeros(ga.N_CONFIG, np.int64)
    config[ga.C_POP_INIT] = cfg.pop_init
    config[ga.C_ELITE] = cfg.elite
    config[ga.C_CAP] = cfg.cap
    config[ga.C_STALL] = cfg.stall
    config[ga.C_MAX_GEN] = cfg.max_generations
    config[ga.C_MAX_EVALS] = limits.nodes if limits.nodes else UNCAPPED
    config[ga.C_SEED] = (seed * 1_000_003 + board.ply) % 2**32
    return config


def search_ga(board: Board, ss: SearchState, seed: int, ga_config: ga.GAConfig | None,
              limits: Limits, start: float,
              on_iteration: Callable[[SearchInfo], None] | None,
              ) -> tuple[SearchResult, dict[str, int | str]]:
    """The genetic algorithm of Wang and Huang (:func:`gomoku_engine.search.ga.ga_search`).

    Limits: ``hard_ms`` stops it at once (a generation is abandoned), after ``soft_ms``
    no generation starts, ``nodes`` caps the fitness evaluations; ``depth`` is not
    used (the sequences are ``ga.N_GENES`` moves long).  The random numbers are seeded
    from ``seed`` and the number of stones, so a seed replays a game whenever time
    does not cut a search short.

    :param ss: the engine's search state: its stop flag stops the GA (its move buffers
        serve the fallback move).
    :param ga_config: population sizes and stopping rules (``None``: the defaults).
    :returns: the result (``depth`` is the sequence length, ``nodes`` the fitness
        evaluations, ``score`` the fittest sequence's tendency (a win in 1 for our
        five), ``pv`` that sequence) and the search's figures (generations,
        evaluations, how it chose).
    """
    cfg = ga_config or ga.GAConfig()
    n_genes = min(ga.N_GENES, board.width * board.height - board.ply)
    config = _config(board, cfg, seed, limits)
    config[ga.C_HARD_NS], timer = start_clock(limits, start, ss.stop)
    now = kernel_clock_ns()
    if limits.soft_ms is not None and now:
        config[ga.C_SOFT_NS] = now + int(max(0.0, limits.soft_ms - ms_since(start)) * 1e6)
    genes = np.zeros(n_genes, np.int32)
    stats = np.zeros(ga.N_STATS, np.int64)
    try:
        cell = int(ga.ga_search(board.position, board.tables, config, ss.stop, genes, stats))
    finally:
        if timer is not None:
            timer.cancel()
    kind = int(stats[ga.S_KIND])
    g = board.geometry
    move = g.xy(cell)
    if kind in (ga.K_GA, ga.K_GA_DEFEND):
        pv = [g.xy(int(c)) for c in genes]
        score = int(stats[ga.S_FITNESS])
    else:
        pv = [move]
        score = MATE - 1 if kind == ga.K_FIVE else 0
    figures: dict[str, int | str] = {"generations": int(stats[ga.S_GENERATIONS]),
                                     "evaluations": int(stats[ga.S_EVALUATIONS]),
                                     "kind": ga.KIND_NAMES[kind]}
    if not board.is_legal(*move):  # never expected: every gene is an empty point
        return fallback_move(board, ss, start), figures
    result = SearchResult(move, score, n_genes, n_genes, int(stats[ga.S_EVALUATIONS]),
                          ms_since(start), pv)
    if on_iteration is not None:
        on_iteration(SearchInfo(n_genes, n_genes, score, result.nodes, result.time_ms, pv))
    return result, figures
