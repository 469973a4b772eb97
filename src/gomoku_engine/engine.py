"""The engine facade: a board plus a searcher with iterative deepening and time control.

This is the API the protocol loop, the CLI and user code drive; it knows nothing of text.

>>> engine = Engine(15)
>>> engine.board.play(7, 7)
>>> result = engine.search(Limits(depth=2))
>>> engine.board.is_legal(*result.move)
True
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from .game.board import Board
from .core.constants import BLACK, EMPTY, INFINITY, MATE, MAX_PLY, T_FOUR, Rule, mate_in
from .core.notation import Point
from .game.position import make_move, pass_move, unmake_move
from .search.alphabeta import (
    ALLOW_STOP, DEADLINE, GENERATION, HORIZON_VCF, HORIZON_VCF_NODES, NODE_LIMIT, NODES, POLL,
    POLL_INTERVAL, ROOT_CHANGED, ROOT_DONE, ROOT_FILTER, ROOT_MOVES, ROOT_SCORE, SELDEPTH,
    STOPPED, SearchState, clear_search_state, generate_moves, kernel_clock_ns,
    new_search_state, search_depth,
)
from .search import threats
from .search.limits import Limits, SearchInfo, SearchResult, SolveResult
from .core.opening_rules import OPENING_RULES, distinct_first_moves
from .search.smp import HelperPool
from .search.threats import ThreatState, clear_threat_state, new_threat_state

if TYPE_CHECKING:  # the genetic algorithm's module is imported when it is first used
    from .search.ga import GAConfig

# Root threat-space search (:mod:`gomoku_engine.search.threats`): fours and node budgets, and the
# share of the soft time limit the VCT may use.
#: most fours of a VCF, at the root and in ``solve``: as many as the solver's line holds
#: (renju puzzles have VCFs of over 70 fours; time and node budgets bound the work)
ROOT_VCF_DEPTH = (threats.MAX_LINE - 2) // 2
ROOT_VCF_NODES = 200_000
REFUTE_VCF_NODES = 5_000
ROOT_VCT_DEPTH = 12
SOLVE_VCT_DEPTH = 40  #: most threats of :meth:`Engine.solve` (quintet's long benchmarks need 16)
ROOT_VCT_NODES = 300_000
REFUTE_VCT_NODES = 20_000
MAX_VCT_CHECKED = 8  # filtered root moves checked against the opponent's VCT
ROOT_VCT_SHARE = 0.6  # cumulative: our VCF until 5%, theirs 10%, the filter 30%, their
#                       VCT through the filtered moves 45%

DEFAULT_HASH_MB = 64.0
#: most search threads (:meth:`Engine.set_threads`): Rapfi's MAX_THREAD_NUM is 256; more
#: threads than cores only share them
MAX_THREADS = 64

# Aspiration windows (rapfi ``aspirationSearch``): from this depth on, an iteration first
# searches a window of +-ASPIRATION_DELTA around the previous score, widened on a fail.
ASPIRATION_DEPTH = 5
ASPIRATION_DELTA = 600

# Time use: after an iteration, another starts while the elapsed time is under the soft
# budget times a factor (Stockfish's and rapfi's time managers): more when the best move
# changed or the score fell, less when the move stayed the same for several iterations.
# An iteration that the hard limit interrupts still counts when a root move finished in it.
TIME_UNSTABLE = 0.6  #: added to the factor per best-move change in the last iteration
TIME_STABLE = 0.85  #: the factor when the best move has not changed for STABLE_ITERATIONS
STABLE_ITERATIONS = 4
TIME_SCORE_DROP = 1000  #: a score drop of this much (eval units) adds 0.5 to the factor
TIME_FACTOR_MAX = 2.0

#: Search algorithms :meth:`Engine.search` can run (``INFO algorithm``, ``--algorithm``).
ALGORITHMS = ("alphabeta", "ga")
DEFAULT_ALGORITHM = "alphabeta"

#: Black's first stone under an opening rule (:meth:`Engine.search` on an empty board):
#: every allowed point (one per symmetry class) is played and white's best reply searched
#: to this depth, within an equal share of the time.
FIRST_MOVE_DEPTH = 4


class Engine:
    """A board and its searcher.

    :param width: board columns (5..32).
    :param height: board rows; defaults to ``width``.
    :param rule: win condition.
    :param hash_mb: transposition-table size in MiB.
    :param algorithm: ``"alphabeta"`` (iterative-deepening alpha-beta, the default) or
        ``"ga"`` (the genetic algorithm of :mod:`gomoku_engine.search.ga`).
    :param seed: seed of the genetic algorithm's random numbers (alpha-beta uses none).
    :param ga_config: population sizes and stopping rules of the genetic algorithm
        (``None``: :class:`gomoku_engine.search.ga.GAConfig`'s defaults).
    :param evaluation: the static evaluation's point values, ``"learned"`` (the default)
        or ``"handset"`` (:func:`gomoku_engine.eval.classical.combination_tables`).
    :param opening_rule: a name of :data:`gomoku_engine.core.opening_rules.OPENING_RULES`:
        where black's first stone may go (``"lin"``: Lin's rule).
    :raises ValueError: on an unsupported size, an unknown algorithm, evaluation or
        opening rule.
    """

    def __init__(self, width: int = 15, height: int | None = None,
                 rule: Rule = Rule.FREESTYLE, hash_mb: float = DEFAULT_HASH_MB,
                 algorithm: str = DEFAULT_ALGORITHM, seed: int = 0,
                 ga_config: GAConfig | None = None, evaluation: str = "learned",
                 opening_rule: str = "none") -> None:
        self.hash_mb = hash_mb
        self.opening_rule = "none"
        self.set_opening_rule(opening_rule)
        self.algorithm = DEFAULT_ALGORITHM
        self.set_algorithm(algorithm)
        self.seed = seed
        self.ga_config = ga_config
        #: figures of the last genetic search: generations, evaluations, how it chose
        self.last_ga: dict[str, int | str] = {}
        self.board = Board(width, height, rule, evaluation)
        self._state = self._new_state()
        self._lock = threading.Lock()
        #: search threads: the main one and ``threads - 1`` lazy-SMP helpers (:mod:`.smp`)
        self.threads = 1
        self._helpers = HelperPool()

    def _new_state(self) -> SearchState:
        g = self.board.geometry
        state = new_search_state(g.n_cells, g.width * g.height, self.hash_mb)
        self._threats: ThreatState = new_threat_state(g.width * g.height, state.stop, g.n_cells)
        return state

    # --- set-up ----------------------------------------------------------------------------
    def new_game(self, width: int | None = None, height: int | None = None,
                 rule: Rule | None = None) -> None:
        """Start a new game, optionally with another size or rule; the TT is cleared."""
        if width is None:
            width, height = self.board.width, self.board.height
        elif height is None:
            height = width
        rule = self.board.rule if rule is None else rule
        if (width, height, rule) == (self.board.width, self.board.height, self.board.rule):
            self.board.clear()
        else:
            resized = (width, height) != (self.board.width, self.board.height)
            self.board = Board(width, height, rule, self.board.evaluation)
            if resized:
                self._state = self._new_state()
        self.clear_hash()

    def set_rule(self, rule: Rule) -> None:
        """Change the rule, keeping the stones."""
        if rule != self.board.rule:
            self._rebuild_board(rule, self.board.evaluation)

    def set_evaluation(self, name: str) -> None:
        """Choose the static evaluation's point values, keeping the stones: ``"learned"``
        (fitted to games, :mod:`gomoku_engine.training.tuning`) or ``"handset"``.

        :raises ValueError: for an unknown name (the evaluation is then unchanged).
        """
        if name != self.board.evaluation:
            self._rebuild_board(self.board.rule, name)

    def _rebuild_board(self, rule: Rule, evaluation: str) -> None:
        """A board of the same size with another rule or evaluation and the same stones;
        the TT is cleared (its scores came from the old one).

        :raises ValueError: for an unknown evaluation (the board is then unchanged).
        """
        board = Board(self.board.width, self.board.height, rule, evaluation)
        board.set_stones(self.board.stones(), self.board.to_move)
        self.board = board
        self.clear_hash()

    def set_algorithm(self, name: str) -> None:
        """Choose the search algorithm by name (see :data:`ALGORITHMS`).

        :raises ValueError: for an unknown name (the algorithm is then unchanged).
        """
        if name not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {name!r}: expected one of "
                             + ", ".join(ALGORITHMS))
        self.algorithm = name

    def set_opening_rule(self, name: str) -> None:
        """Choose the opening rule by name (see :mod:`gomoku_engine.core.opening_rules`); it
        decides black's first stone of :meth:`search` on an empty board.

        :raises ValueError: for an unknown name (the rule is then unchanged).
        """
        if name not in OPENING_RULES:
            raise ValueError(f"unknown opening rule {name!r}: expected one of "
                             + ", ".join(OPENING_RULES))
        self.opening_rule = name

    def set_hash_size(self, megabytes: float) -> None:
        """Resize the transposition table (MiB); its contents are lost."""
        if megabytes != self.hash_mb:
            self.hash_mb = megabytes
            self._state = self._new_state()

    def set_threads(self, count: int) -> None:
        """Search with ``count`` threads (1..MAX_THREADS; clamped): the main search and
        ``count - 1`` helpers sharing its transposition table (lazy SMP, :mod:`.smp`).

        Helpers run only in searches limited by time or depth, not by nodes: a node
        budget (levels, ``INFO max_node``) keeps one thread, so its play stays the same
        from run to run.
        """
        self.threads = max(1, min(MAX_THREADS, int(count)))

    def clear_hash(self) -> None:
        """Forget the transposition tables, killers and history."""
        clear_search_state(self._state)
        clear_threat_state(self._threats)
        self._helpers.clear()

    # --- search ----------------------------------------------------------------------------
    def stop(self) -> None:
        """Make the running :meth:`search` return as soon as possible (thread-safe).

        If no search is running, the next one stops after its first iteration: a stop that
        arrives while a move is being prepared is not lost.
        """
        self._state.stop[0] = 1

    def search(self, limits: Limits | None = None,
               on_iteration: Callable[[SearchInfo], None] | None = None) -> SearchResult:
        """Iterative deepening from depth 1 until a limit is hit; returns the best move.

        The first iteration always completes (it takes well under a millisecond), so a
        legal move is returned even with a zero budget.  The board is unchanged on return.
        With ``algorithm="ga"`` the genetic algorithm runs instead (:meth:`_search_ga`).

        :param limits: time (ms), depth and node limits; ``None`` means depth 8.
        :param on_iteration: called after every completed iteration.
        :raises ValueError: if the board is full.
        """
        limits = limits or Limits(depth=8)
        start = limits.start if limits.start is not None else time.perf_counter()
        board = self.board
        try:
            if board.is_full:
                raise ValueError("the board is full")
            if board.ply == 0 and (self.opening_rule == "none" or board.to_move != BLACK):
                centre = board.geometry.centre
                return SearchResult(centre, 0, 0, 0, 0, _ms_since(start), [centre])
            with self._lock:
                if board.ply == 0:
                    return self._first_move(limits, start)
                if self.algorithm == "ga":
                    return self._search_ga(limits, start, on_iteration)
                return self._iterate(limits, start, on_iteration)
        finally:
            self._state.stop[0] = 0  # reset at the end, not the start: see stop()

    def _iterate(self, limits: Limits, start: float,
                 on_iteration: Callable[[SearchInfo], None] | None) -> SearchResult:
        board, ss = self.board, self._state
        ss.counters[NODES] = 0
        ss.counters[POLL] = POLL_INTERVAL
        ss.counters[STOPPED] = 0
        ss.counters[ALLOW_STOP] = 0
        ss.counters[NODE_LIMIT] = limits.nodes if limits.nodes else 2**62
        ss.counters[DEADLINE], timer = self._start_clock(limits, start)
        ss.counters[ROOT_FILTER] = 0
        ss.counters[GENERATION] = (ss.counters[GENERATION] + 1) % 256
        ss.counters[HORIZON_VCF] = (HORIZON_VCF_NODES if limits.threats and limits.horizon_vcf
                                     else 0)
        if limits.threats:
            won = self._root_threats(limits, start)
            if won is not None:
                if timer is not None:
                    timer.cancel()
                return won
        max_depth = min(limits.depth or MAX_PLY - 8, MAX_PLY - 8)
        best: SearchResult | None = None
        stable = 0  # iterations since the best move last changed
        helpers = self.threads - 1 if not limits.nodes else 0
        self._helpers.start(helpers, board.position, board.tables, ss, max_depth)
        try:
            for depth in range(1, max_depth + 1):
                score, complete = self._aspiration(depth, best)
                if ss.pv_len[0] == 0 or not (complete or ss.counters[ROOT_DONE] > 0):
                    break  # stopped before any root move of this iteration was searched
                elapsed = _ms_since(start)
                pv = [board.geometry.xy(int(c)) for c in ss.pv[0, : ss.pv_len[0]]]
                if not complete:
                    # Interrupted: the moves searched so far at this depth include the
                    # previous best (searched first), so the best of them is kept.
                    if best is not None and pv[0] != best.move:
                        best = SearchResult(pv[0], int(ss.counters[ROOT_SCORE]), best.depth,
                                            best.seldepth, int(ss.counters[NODES]), elapsed, pv)
                    break
                changed = best is not None and pv[0] != best.move
                dropped = best.score - score if best is not None else 0
                best = SearchResult(pv[0], int(score), depth, int(ss.counters[SELDEPTH]),
                                    int(ss.counters[NODES]), elapsed, pv)
                if on_iteration is not None:
                    on_iteration(SearchInfo(depth, int(ss.counters[SELDEPTH]), int(score),
                                            int(ss.counters[NODES]), elapsed, pv))
                ss.counters[ALLOW_STOP] = 1
                mate = mate_in(int(score))
                if mate is not None and depth > abs(mate) + 1:
                    break  # the forced line is found; deeper search cannot change it
                if ss.counters[ROOT_MOVES] == 1 and depth >= 2:
                    break  # a forced move: nothing to choose
                stable = 0 if changed else stable + 1
                if limits.soft_ms is not None:
                    factor = 1.0 + TIME_UNSTABLE * int(ss.counters[ROOT_CHANGED] + changed)
                    if mate is None and dropped > 0:
                        factor += 0.5 * min(1.0, dropped / TIME_SCORE_DROP)
                    if stable >= STABLE_ITERATIONS:
                        factor *= TIME_STABLE
                    if elapsed >= limits.soft_ms * min(factor, TIME_FACTOR_MAX):
                        break
        finally:
            helper_nodes = self._helpers.stop()
            if timer is not None:
                timer.cancel()
        if best is None or not board.is_legal(*best.move):
            best = self._fallback(start)
        best.nodes += helper_nodes
        best.time_ms = _ms_since(start)
        return best

    def _first_move(self, limits: Limits, start: float) -> SearchResult:
        """Black's first stone under the opening rule: the allowed point (one per symmetry
        class, :func:`~gomoku_engine.core.opening_rules.distinct_first_moves`) whose best white
        reply, searched by alpha-beta to ``FIRST_MOVE_DEPTH`` plies (or ``limits.depth``)
        within an equal share of the soft time, scores worst for white.  Ties go to the
        point nearest the centre.  Result: ``pv`` is the stone and white's best line,
        ``nodes`` the sum over the candidates.
        """
        board = self.board
        candidates = distinct_first_moves(self.opening_rule, board.width, board.height)
        budget = limits.soft_ms if limits.soft_ms is not None else limits.hard_ms
        depth = min(limits.depth or FIRST_MOVE_DEPTH, FIRST_MOVE_DEPTH)
        best: SearchResult | None = None
        nodes = 0
        _, timer = self._start_clock(limits, start)  # the hard limit stops every candidate
        try:
            for i, point in enumerate(candidates):
                if self._state.stop[0]:
                    break  # hard limit, YXSTOP or END: the best point so far
                share = None
                if budget is not None:
                    share = max(0.0, (budget - _ms_since(start)) / (len(candidates) - i))
                board.play(*point)
                try:
                    reply = self._iterate(Limits(soft_ms=share, depth=depth, nodes=limits.nodes,
                                                 threats=False), time.perf_counter(), None)
                finally:
                    board.undo()
                nodes += reply.nodes
                if best is None or -reply.score > best.score:
                    best = SearchResult(point, -reply.score, reply.depth + 1,
                                        reply.seldepth + 1, 0, 0.0, [point, *reply.pv])
        finally:
            if timer is not None:
                timer.cancel()
        if best is None:  # stopped before the first candidate
            point = candidates[0]
            best = SearchResult(point, 0, 0, 0, 0, 0.0, [point])
        best.nodes, best.time_ms = nodes, _ms_since(start)
        return best

    def _aspiration(self, depth: int, previous: SearchResult | None) -> tuple[int, bool]:
        """One iteration at ``depth``, in an aspiration window around ``previous.score``
        widened after every fail (rapfi's ``aspirationSearch``).

        :returns: ``(score, complete)``; when the search was stopped (``complete`` False)
            the root's best completed move is ``ss.pv[0]`` (if ``ss.pv_len[0]``), scoring
            ``ss.counters[ROOT_SCORE]``.
        """
        board, ss = self.board, self._state
        alpha, beta, delta = -INFINITY, INFINITY, ASPIRATION_DELTA
        if (previous is not None and depth >= ASPIRATION_DEPTH
                and mate_in(previous.score) is None):
            alpha, beta = previous.score - delta, previous.score + delta
        while True:
            score = search_depth(board.position, board.tables, ss, self._threats, depth,
                                 alpha, beta)
            if ss.counters[STOPPED] != 0:
                return score, False
            if score <= alpha and alpha > -INFINITY:
                beta = (alpha + beta) // 2
                alpha = max(score - delta, -INFINITY)
            elif score >= beta and beta < INFINITY:
                beta = min(score + delta, INFINITY)
            else:
                return score, True
            delta *= 2

    def _start_clock(self, limits: Limits, start: float) -> tuple[int, threading.Timer | None]:
        """The kernel deadline (``kernel_clock_ns`` value, 0: none) and a started stop timer.

        Two stops: the kernel's own clock (exact under load) and a timer thread (portable,
        and it also covers Python code between iterations).  The caller cancels the timer.
        """
        if limits.hard_ms is None:
            return 0, None
        remaining = max(0.0, limits.hard_ms / 1000 - (time.perf_counter() - start))
        now = kernel_clock_ns()
        deadline = now + int(remaining * 1e9) if now else 0
        timer = threading.Timer(remaining, self.stop)
        timer.daemon = True
        timer.start()
        return deadline, timer

    def _search_ga(self, limits: Limits, start: float,
                   on_iteration: Callable[[SearchInfo], None] | None) -> SearchResult:
        """The genetic algorithm of Wang and Huang (:func:`gomoku_engine.search.ga.ga_search`).

        Limits: ``hard_ms`` stops it at once (a generation is abandoned), after ``soft_ms``
        no generation starts, ``nodes`` caps the fitness evaluations; ``depth`` is not
        used (the sequences are ``ga.N_GENES`` moves long).  The random numbers are seeded
        from :attr:`seed` and the number of stones, so a seed replays a game whenever time
        does not cut a search short.  Result: ``depth`` is the sequence length, ``nodes``
        the fitness evaluations, ``score`` the fittest sequence's tendency (a win in 1 for
        our five), ``pv`` that sequence.
        """
        from .search import ga

        board, cfg = self.board, self.ga_config or ga.GAConfig()
        n_genes = min(ga.N_GENES, board.width * board.height - board.ply)
        config = np.zeros(ga.N_CONFIG, np.int64)
        config[ga.C_POP_INIT] = cfg.pop_init
        config[ga.C_ELITE] = cfg.elite
        config[ga.C_CAP] = cfg.cap
        config[ga.C_STALL] = cfg.stall
        config[ga.C_MAX_GEN] = cfg.max_generations
        config[ga.C_MAX_EVALS] = limits.nodes if limits.nodes else 2**62
        config[ga.C_SEED] = (self.seed * 1_000_003 + board.ply) % 2**32
        config[ga.C_HARD_NS], timer = self._start_clock(limits, start)
        now = kernel_clock_ns()
        if limits.soft_ms is not None and now:
            config[ga.C_SOFT_NS] = now + int(max(0.0, limits.soft_ms - _ms_since(start)) * 1e6)
        genes = np.zeros(n_genes, np.int32)
        stats = np.zeros(ga.N_STATS, np.int64)
        try:
            cell = int(ga.ga_search(board.position, board.tables, config, self._state.stop,
                                    genes, stats))
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
        self.last_ga = {"generations": int(stats[ga.S_GENERATIONS]),
                        "evaluations": int(stats[ga.S_EVALUATIONS]),
                        "kind": ga.KIND_NAMES[kind]}
        if not board.is_legal(*move):  # never expected: every gene is an empty point
            return self._fallback(start)
        result = SearchResult(move, score, n_genes, n_genes, int(stats[ga.S_EVALUATIONS]),
                              _ms_since(start), pv)
        if on_iteration is not None:
            on_iteration(SearchInfo(n_genes, n_genes, score, result.nodes, result.time_ms, pv))
        return result

    def _solve(self, solver: Callable[..., bool], depth: int, nodes: int,
               deadline_ns: int) -> list[int] | None:
        """Run a threat solver for the side to move; the winning line (flat cells) or None."""
        board, ts = self.board, self._threats
        ts.counters[threats.NODES] = 0
        ts.counters[threats.NODE_LIMIT] = nodes
        ts.counters[threats.ABORTED] = 0
        ts.counters[threats.DEADLINE] = deadline_ns
        won = solver(board.position, board.tables, ts, depth, 0)
        self._state.counters[NODES] += ts.counters[threats.NODES]
        if not won:
            return None
        return [int(c) for c in ts.line[: ts.counters[threats.LINE_LEN]]]

    def solve(self, kind: str = "vct", time_ms: float | None = 1000.0,
              depth: int | None = None, nodes: int = 2**62) -> SolveResult:
        """Threat-space solve for the side to move: does it win by VCF (or VCT)?

        :param kind: ``"vcf"`` (fours only) or ``"vct"`` (threes and fours).
        :param time_ms: time budget in ms (``None``: none).
        :param depth: most threats before the five (default ``ROOT_VCF_DEPTH`` for VCF,
            ``SOLVE_VCT_DEPTH`` for VCT).
        :param nodes: node budget.
        :raises ValueError: for an unknown ``kind``.
        """
        if kind not in ("vcf", "vct"):
            raise ValueError(f"kind must be 'vcf' or 'vct', not {kind!r}")
        solver = threats.solve_vcf if kind == "vcf" else threats.solve_vct
        depth = depth or (ROOT_VCF_DEPTH if kind == "vcf" else SOLVE_VCT_DEPTH)
        began = time.perf_counter()
        now = kernel_clock_ns()
        deadline = now + int(time_ms * 1e6) if (now and time_ms is not None) else 0
        with self._lock:
            self._state.counters[NODES] = 0
            try:
                line = self._solve(solver, depth, nodes, deadline)
            finally:
                self._state.stop[0] = 0
            aborted = bool(self._threats.counters[threats.ABORTED])
            searched = int(self._threats.counters[threats.NODES])
        points = [] if line is None else [self.board.geometry.xy(c) for c in line]
        return SolveResult(line is not None, points, searched, _ms_since(began),
                           aborted and line is None)

    def _root_threats(self, limits: Limits, start: float) -> SearchResult | None:
        """Threat-space search at the root (Allis et al. 1994, as rapfi does it).

        Our VCF, then the opponent's VCF (if it has one, only root moves after which it
        has none are searched; with ``limits.vct`` those few are also checked against
        its VCT), then (if ``limits.vct``) our VCT, all done by ``ROOT_VCT_SHARE`` of the
        soft time.
        Returns the result if we win by force, else None.
        """
        board, ss = self.board, self._state
        pos, tab = board.position, board.tables
        now = kernel_clock_ns()

        def deadline(ms: float | None) -> int:
            if ms is None or not now:
                return 0
            return now + int(max(0.0, ms - _ms_since(start)) * 1e6)

        def by(share: float) -> int:  # a deadline at this share of the soft time
            return deadline(None if limits.soft_ms is None else limits.soft_ms * share)

        line = self._solve(threats.solve_vcf, ROOT_VCF_DEPTH, ROOT_VCF_NODES, by(0.05))
        if line is None:
            pass_move(pos, tab)
            threat = self._solve(threats.solve_vcf, ROOT_VCF_DEPTH, ROOT_VCF_NODES, by(0.1))
            pass_move(pos, tab)
            if threat is not None:
                self._filter_root(threat, by(0.3))
                if limits.vct and ss.counters[ROOT_FILTER]:
                    self._drop_vct_losses(by(0.45))
            if limits.vct:
                line = self._solve(threats.solve_vct, ROOT_VCT_DEPTH, ROOT_VCT_NODES,
                                   by(ROOT_VCT_SHARE))
        if line is None:
            return None
        pv = [board.geometry.xy(c) for c in line]
        return SearchResult(pv[0], MATE - len(line), len(line), len(line),
                            int(ss.counters[NODES]), _ms_since(start), pv)

    def vcf_defences(self, time_ms: float | None = 1000.0,
                     first: list[int] | None = None) -> list[Point]:
        """Moves of the side to move after which the opponent provably has no VCF.

        Every legal point near a stone is judged by
        :func:`gomoku_engine.search.threats.vcf_defences` (a four of ours after the opponent's
        forced block), ``first`` (flat cells) before the rest, then by one-ply priority, so
        a deadline that cuts the checks short leaves the likeliest defences checked.  An
        empty list means none was proven (every move loses to a VCF, or time ran out).

        :param time_ms: time budget in ms (``None``: only the per-question node budget
            ``REFUTE_VCF_NODES``).
        """
        now = kernel_clock_ns()
        deadline = now + int(time_ms * 1e6) if (now and time_ms is not None) else 0
        with self._lock:
            try:
                allowed = self._safe_moves(first or [], deadline)
            finally:
                self._state.stop[0] = 0
        g = self.board.geometry
        return [g.xy(int(c)) for c in np.flatnonzero(allowed)]

    def _safe_moves(self, first: list[int], deadline_ns: int) -> np.ndarray:
        """int8[n_cells] mask of the moves :meth:`vcf_defences` proves safe."""
        board, ss, ts = self.board, self._state, self._threats
        pos, tab = board.position, board.tables
        us = board.to_move - 1
        points = board.geometry.points
        empty = points[(pos.cells[points] == EMPTY) & (pos.near[points] != 0)]
        if us == 0:
            empty = empty[pos.foul[empty] == 0]
        priority = pos.value[us, empty].astype(np.int64) + pos.value[1 - us, empty]
        ordered = empty[np.argsort(-priority, kind="stable")]
        nearby = set(empty.tolist())
        line = np.array([c for c in dict.fromkeys(first) if c in nearby], np.int32)
        candidates = np.concatenate([line, ordered]).astype(np.int32)
        allowed = ss.root_allowed
        allowed[:] = 0
        ts.counters[threats.DEADLINE] = deadline_ns
        threats.vcf_defences(pos, tab, ts, candidates, ROOT_VCF_DEPTH, REFUTE_VCF_NODES,
                             allowed)
        ss.counters[NODES] += ts.counters[threats.NODES]
        return allowed

    def _filter_root(self, threat_line: list[int], deadline_ns: int) -> None:
        """Search only root moves proven to leave the opponent no VCF, if there are any
        (:meth:`vcf_defences`, the points of the opponent's winning line first)."""
        if self._safe_moves(threat_line, deadline_ns).any():
            self._state.counters[ROOT_FILTER] = 1

    def _drop_vct_losses(self, deadline_ns: int) -> None:
        """Among few filtered root moves, drop those after which the opponent has a VCT.

        The VCF filter keeps the moves that stop the opponent's fours; a threat of threes
        may still win through them.  Each kept move is checked with the VCT solver (an
        equal share of the time each); a move is dropped only on a proven win, and never
        the last one.
        """
        board, ss = self.board, self._state
        pos, tab = board.position, board.tables
        allowed = [int(c) for c in np.flatnonzero(ss.root_allowed)]
        if len(allowed) > MAX_VCT_CHECKED:
            return
        for i, cell in enumerate(allowed):
            share = 0
            if deadline_ns:
                now = kernel_clock_ns()
                share = now + max(0, deadline_ns - now) // (len(allowed) - i)
            make_move(pos, tab, cell)
            lost = self._solve(threats.solve_vct, ROOT_VCT_DEPTH, REFUTE_VCT_NODES, share)
            unmake_move(pos, tab)
            if lost is not None and int(ss.root_allowed.sum()) > 1:
                ss.root_allowed[cell] = 0

    def _fallback(self, start: float) -> SearchResult:
        """Highest-priority candidate, or any empty point: used only if no iteration ended."""
        board, ss = self.board, self._state
        ss.counters[ROOT_FILTER] = 0
        n = generate_moves(board.position, board.tables, ss, 0, -1, 1)
        cell = int(ss.move_buf[0, 0]) if n else -1
        move = board.geometry.xy(cell) if cell >= 0 else (-1, -1)
        if cell < 0 or not board.is_legal(*move):
            empty = [board.geometry.xy(int(c)) for c in board.geometry.points
                     if board.position.cells[c] == EMPTY]
            # a renju foul only if black has no other point at all
            move = next((p for p in empty if board.is_legal(*p)), empty[0])
        return SearchResult(move, 0, 0, 0, int(ss.counters[NODES]), _ms_since(start), [move])


def _ms_since(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0
