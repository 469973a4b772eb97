"""Iterative deepening: the alpha-beta kernel called at growing depths in aspiration
windows, until a limit is hit or the time use says stop; black's first stone under an
opening rule; the fallback move.

One call of :func:`gomoku_engine.search.alphabeta.search_depth` searches to one depth;
:class:`SearchDriver` runs the move: the root threat search first
(:mod:`gomoku_engine.search.root_threats`), the lazy-SMP helpers beside it
(:mod:`gomoku_engine.search.smp`), the iterations, and the reports after each.  The
tunables (aspiration, time use, first-move depth) are in :mod:`gomoku_engine.search.params`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping

import numpy as np
import numpy.typing as npt

from ..core.constants import EMPTY, INFINITY, MAX_PLY, mate_in
from ..core.geometry import Geometry
from ..core.notation import Point
from ..core.opening_rules import distinct_first_moves
from ..game.board import Board
from .alphabeta import (
    ALLOW_STOP, DEADLINE, GENERATION, HORIZON_VCF, NODE_LIMIT, NODES, POLL, POLL_INTERVAL,
    ROOT_CHANGED, ROOT_DONE, ROOT_FILTER, ROOT_MOVES, ROOT_SCORE, SELDEPTH, STOPPED,
    SearchState, generate_moves, kernel_clock_ns, new_search_state, search_depth,
)
from .multipv import RootFilter, root_move_first
from .limits import UNCAPPED, Limits, SearchInfo, SearchResult, ms_since
from .params import FIRST_MOVE_DEPTH
from .root_threats import RootThreats
from .smp import HelperPool
from .threats import ThreatState, new_threat_state


def new_states(geometry: Geometry, hash_mb: float, params: Mapping[str, float] | None = None
               ) -> tuple[SearchState, ThreatState]:
    """A search state with a transposition table of ``hash_mb`` MiB and the tunables
    ``params`` (name to value; defaults for those not given), and a threat-solver state
    sharing its stop flag, sized for ``geometry``'s board.

    :raises ValueError: for an unknown tunable or a value outside its range.
    """
    n_points = geometry.width * geometry.height
    ss = new_search_state(geometry.n_cells, n_points, hash_mb, params)
    return ss, new_threat_state(n_points, ss.stop, geometry.n_cells)


def tunable(ss: SearchState, name: str) -> float:
    """The value of the tunable ``name`` (:data:`gomoku_engine.search.params.TUNABLES`)
    that the search state ``ss`` holds (an int for integer tunables)."""
    return ss.tune[name][0].item()


def _raise(flag: npt.NDArray[np.int64]) -> None:
    flag[0] = 1


def start_clock(limits: Limits, start: float,
                stop: npt.NDArray[np.int64]) -> tuple[int, threading.Timer | None]:
    """The kernel deadline (a :func:`kernel_clock_ns` value, 0: none) of ``limits.hard_ms``
    counted from ``start`` (:func:`time.perf_counter`), and a started timer that sets the
    stop flag ``stop`` (``int64[1]``) then.

    Two stops: the kernel's own clock (exact under load) and a timer thread (portable,
    and it also covers Python code between iterations).  The caller cancels the timer.
    """
    if limits.hard_ms is None:
        return 0, None
    remaining = max(0.0, limits.hard_ms / 1000 - (time.perf_counter() - start))
    now = kernel_clock_ns()
    deadline = now + int(remaining * 1e9) if now else 0
    timer = threading.Timer(remaining, _raise, args=(stop,))
    timer.daemon = True
    timer.start()
    return deadline, timer


def blocked_cells(board: Board, excluded: frozenset[Point]) -> frozenset[int]:
    """The flat cells of the ``excluded`` points (``Limits.excluded``) that are legal moves,
    or none at all when no other legal point is left (then any legal point may be played)."""
    if not excluded:
        return frozenset()
    g = board.geometry
    legal = {p for p in map(g.xy, g.points[board.position.cells[g.points] == EMPTY])
             if board.is_legal(*p)}
    if legal <= excluded:
        return frozenset()
    return frozenset(g.index(*p) for p in legal & excluded)


def exclude_at_root(ss: SearchState, blocked: frozenset[int]) -> None:
    """Keep the ``blocked`` cells out of the root moves: removed from the root filter
    (``ss.root_allowed``, ``int8[n_cells]``) if the root threat search set one, else the
    filter becomes every cell but them.  The two filters meet as an intersection; the
    threat search drops its own when none of its moves is left (``filter_root``)."""
    if not blocked:
        return
    if ss.counters[ROOT_FILTER] == 0:
        ss.root_allowed[:] = 1
    ss.root_allowed[list(blocked)] = 0
    ss.counters[ROOT_FILTER] = 1


def fallback_move(board: Board, ss: SearchState, start: float,
                  blocked: frozenset[int] = frozenset()) -> SearchResult:
    """The highest-priority candidate of move generation, or any legal empty point (the
    nearest the centre when some are ``blocked``): the move when no iteration ended
    (``start``: :func:`time.perf_counter` of the move).  Never a ``blocked`` cell
    (:func:`blocked_cells`)."""
    ss.counters[ROOT_FILTER] = 0
    exclude_at_root(ss, blocked)
    n = generate_moves(board.position, board.tables, ss, 0, -1, 1)
    cell = int(ss.move_buf[0, 0]) if n else -1
    move = board.geometry.xy(cell) if cell >= 0 else (-1, -1)
    if cell < 0 or cell in blocked or not board.is_legal(*move):
        g = board.geometry
        empty = [g.xy(int(c)) for c in g.points
                 if board.position.cells[c] == EMPTY and int(c) not in blocked]
        if blocked:  # the kernel dropped the filter: no candidate near a stone is left
            cx, cy = g.centre
            empty.sort(key=lambda p: max(abs(p[0] - cx), abs(p[1] - cy)))
        # a renju foul only if black has no other point at all
        move = next((p for p in empty if board.is_legal(*p)), empty[0])
    return SearchResult(move, 0, 0, 0, int(ss.counters[NODES]), ms_since(start), [move])


def avoid_excluded(board: Board, ss: SearchState, result: SearchResult,
                   excluded: frozenset[Point], start: float) -> SearchResult:
    """``result``, or :func:`fallback_move` if its move is one of the ``excluded`` points
    while another legal point is left.

    The root's forced-move rules (a five, the block of a five, an open four) and black's
    first stone do not read the root filter: when they name an excluded point, the move
    is the best candidate of move generation among the others."""
    if result.move not in excluded:
        return result  # the usual case: no need to list the legal points again
    blocked = blocked_cells(board, excluded)
    if board.geometry.index(*result.move) not in blocked:
        return result
    return fallback_move(board, ss, start, blocked)


class SearchDriver:
    """One move's search on ``board`` (restored on return) with the engine's states.

    :param board: the position, side to move included.
    :param ss: the alpha-beta state (transposition table, move order, counters).
    :param ts: the threat solvers' state.
    :param helpers: the lazy-SMP helper threads' pool.
    :param threads: search threads, the main one included.
    """

    def __init__(self, board: Board, ss: SearchState, ts: ThreatState, helpers: HelperPool,
                 threads: int) -> None:
        self.board, self.ss, self.ts = board, ss, ts
        self.helpers, self.threads = helpers, threads

    def _reset(self, limits: Limits, start: float) -> threading.Timer | None:
        """Counters of a new move's search; returns the hard limit's stop timer."""
        ss = self.ss
        ss.counters[NODES] = 0
        ss.counters[POLL] = POLL_INTERVAL
        ss.counters[STOPPED] = 0
        ss.counters[ALLOW_STOP] = 0
        ss.counters[NODE_LIMIT] = limits.nodes if limits.nodes else UNCAPPED
        ss.counters[DEADLINE], timer = start_clock(limits, start, ss.stop)
        ss.counters[ROOT_FILTER] = 0
        ss.counters[ROOT_MOVES] = 0  # unknown until the root generates its moves
        if tunable(ss, "history_reset"):
            ss.history[:] = 0
        ss.counters[GENERATION] = (ss.counters[GENERATION] + 1) % 256
        ss.counters[HORIZON_VCF] = (tunable(ss, "horizon_vcf_nodes")
                                    if limits.threats and limits.horizon_vcf else 0)
        return timer

    def iterate(self, limits: Limits, start: float,
                on_iteration: Callable[[SearchInfo], None] | None) -> SearchResult:
        """Iterative deepening from depth 1 until a limit is hit (``start``:
        :func:`time.perf_counter` of the move); calls ``on_iteration`` after every completed
        iteration.  The root threat search runs first when ``limits.threats``."""
        board, ss = self.board, self.ss
        timer = self._reset(limits, start)
        blocked = blocked_cells(board, limits.excluded)
        if limits.threats:
            won = RootThreats(board, ss, self.ts).win_at_root(limits, start, blocked)
            if won is not None:
                if timer is not None:
                    timer.cancel()
                return won
        exclude_at_root(ss, blocked)
        max_depth = min(limits.depth or MAX_PLY - 8, MAX_PLY - 8)
        # multi-PV: no helpers, whose searches of the whole root would not see its filter
        helpers = self.threads - 1 if not limits.nodes and limits.multipv <= 1 else 0
        self.helpers.start(helpers, board.position, board.tables, ss, max_depth)
        try:
            if limits.multipv > 1:
                best = self._deepen_multipv(limits, start, max_depth, on_iteration)
            else:
                best = self._deepen(limits, start, max_depth, on_iteration)
        finally:
            helper_nodes = self.helpers.stop()
            if timer is not None:
                timer.cancel()
        if best is None or not board.is_legal(*best.move):
            best = fallback_move(board, ss, start, blocked)
        best.nodes += helper_nodes
        best.time_ms = ms_since(start)
        return best

    def _deepen(self, limits: Limits, start: float, max_depth: int,
                on_iteration: Callable[[SearchInfo], None] | None) -> SearchResult | None:
        """The iterations of :meth:`iterate`; the last completed one's result (or the best
        move of an interrupted one that changed it), None if none ended."""
        board, ss = self.board, self.ss
        best: SearchResult | None = None
        stable = 0  # iterations since the best move last changed
        forced_at = 0  # the first iteration whose root had one candidate
        infinite = (limits.hard_ms is None and limits.soft_ms is None and not limits.nodes
                    and limits.depth is None)
        for depth in range(1, max_depth + 1):
            score, complete = self.aspiration(depth, best)
            if ss.pv_len[0] == 0 or not (complete or ss.counters[ROOT_DONE] > 0):
                break  # stopped before any root move of this iteration was searched
            elapsed = ms_since(start)
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
            if ss.counters[ROOT_MOVES] == 1 and not infinite:
                # a forced move: nothing to choose, but a few iterations more give its
                # score (a forced win or loss behind the block, for analysis and the
                # log) and the table entries of the next move (rapfi's singular root)
                forced_at = forced_at or depth
                if depth >= forced_at + tunable(ss, "forced_iterations"):
                    break
            stable = 0 if changed else stable + 1
            if limits.soft_ms is not None and elapsed >= limits.soft_ms * _time_factor(
                    ss, int(ss.counters[ROOT_CHANGED]) + changed, dropped, mate, stable):
                break
        return best

    def _deepen_multipv(self, limits: Limits, start: float, max_depth: int,
                        on_iteration: Callable[[SearchInfo], None] | None
                        ) -> SearchResult | None:
        """:meth:`_deepen` for ``limits.multipv`` lines: at each depth the root is searched
        once per line, each time without the moves of the lines already found (the root
        filter, on top of the root threat search's and ``Limits.excluded``), and the lines
        are sorted by score (Stockfish's and Rapfi's multi-PV loop; they keep a root move
        list, this search a root filter).  The result is the best line of the last depth
        whose lines were all searched, with those lines in ``lines``; None if none was.

        Fewer lines when the root has fewer moves to search: a five to make or to block
        and an open four are played by rule whatever the filter says, so such a root has
        one line.  The iterations end at the limits, when every line's forced result is
        found, or after the soft time.
        """
        ss = self.ss
        root = RootFilter(ss)
        lines: list[SearchResult] = []
        ss.counters[ROOT_MOVES] = 0
        try:
            for depth in range(1, max_depth + 1):
                found = self._lines_at(depth, limits.multipv, lines, root, start,
                                       on_iteration)
                if found is None:
                    break  # stopped: the previous depth's lines stand
                lines = found
                ss.counters[ALLOW_STOP] = 1  # after all the first depth's lines
                root_move_first(ss, self.board.position, self.board.geometry.index(
                    *lines[0].move))
                mates = [mate_in(line.score) for line in lines]
                if all(m is not None and depth > abs(m) + 1 for m in mates):
                    break  # every line's forced result is found
                if limits.soft_ms is not None and ms_since(start) >= limits.soft_ms:
                    break
        finally:
            root.restore()
        if not lines:
            return None
        best = lines[0]
        return SearchResult(best.move, best.score, best.depth, best.seldepth,
                            int(ss.counters[NODES]), ms_since(start), best.pv, lines)

    def _lines_at(self, depth: int, multipv: int, previous: list[SearchResult],
                  root: RootFilter, start: float,
                  on_iteration: Callable[[SearchInfo], None] | None
                  ) -> list[SearchResult] | None:
        """The lines of one depth of :meth:`_deepen_multipv`, best score first, each
        searched in an aspiration window around the same line's score at the previous
        depth (``previous``); None if the search was stopped before they were all done."""
        board, ss = self.board, self.ss
        found: list[SearchResult] = []
        wanted = multipv
        for k in range(multipv):
            if k >= wanted:
                break
            root.exclude([board.geometry.index(*line.move) for line in found])
            score, complete = self.aspiration(depth, previous[k] if k < len(previous) else None)
            if not complete:
                return None
            if ss.pv_len[0] == 0:
                break  # no root move left
            pv = [board.geometry.xy(int(c)) for c in ss.pv[0, : ss.pv_len[0]]]
            if any(line.move == pv[0] for line in found):
                break  # the filter was dropped or a rule chose the move: no other line
            if k == 0:  # the root's candidates (0: the move was played by rule)
                wanted = max(1, min(multipv, int(ss.counters[ROOT_MOVES])))
            elapsed = ms_since(start)
            found.append(SearchResult(pv[0], int(score), depth, int(ss.counters[SELDEPTH]),
                                      int(ss.counters[NODES]), elapsed, pv))
            if on_iteration is not None:
                on_iteration(SearchInfo(depth, int(ss.counters[SELDEPTH]), int(score),
                                        int(ss.counters[NODES]), elapsed, pv, k, wanted))
        found.sort(key=lambda line: -line.score)  # stable: equal scores keep their order
        return found

    def aspiration(self, depth: int, previous: SearchResult | None) -> tuple[int, bool]:
        """One iteration at ``depth`` (plies), in an aspiration window around
        ``previous.score`` widened after every fail (rapfi's ``aspirationSearch``).

        :returns: ``(score, complete)``; when the search was stopped (``complete`` False)
            the root's best completed move is ``ss.pv[0]`` (if ``ss.pv_len[0]``), scoring
            ``ss.counters[ROOT_SCORE]``.
        """
        board, ss = self.board, self.ss
        alpha, beta, delta = -INFINITY, INFINITY, tunable(ss, "aspiration_delta")
        if (previous is not None and depth >= tunable(ss, "aspiration_depth")
                and mate_in(previous.score) is None):
            alpha, beta = previous.score - delta, previous.score + delta
        while True:
            score = search_depth(board.position, board.tables, ss, self.ts, depth,
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

    def first_move(self, opening_rule: str, limits: Limits, start: float) -> SearchResult:
        """Black's first stone under ``opening_rule``: the allowed point (one per symmetry
        class, :func:`~gomoku_engine.core.opening_rules.distinct_first_moves`) whose best
        white reply, searched by alpha-beta to ``FIRST_MOVE_DEPTH`` plies (or
        ``limits.depth``) within an equal share of the soft time, scores worst for white.
        Ties go to the point nearest the centre.  Result: ``pv`` is the stone and white's
        best line, ``nodes`` the sum over the candidates.
        """
        board = self.board
        candidates = distinct_first_moves(opening_rule, board.width, board.height)
        budget = limits.soft_ms if limits.soft_ms is not None else limits.hard_ms
        depth = min(limits.depth or FIRST_MOVE_DEPTH, FIRST_MOVE_DEPTH)
        best: SearchResult | None = None
        nodes = 0
        _, timer = start_clock(limits, start, self.ss.stop)  # stops every candidate
        try:
            for i, point in enumerate(candidates):
                if self.ss.stop[0]:
                    break  # hard limit, YXSTOP or END: the best point so far
                share = None
                if budget is not None:
                    share = max(0.0, (budget - ms_since(start)) / (len(candidates) - i))
                board.play(*point)
                try:
                    reply = self.iterate(Limits(soft_ms=share, depth=depth, nodes=limits.nodes,
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
        best.nodes, best.time_ms = nodes, ms_since(start)
        return best


def _time_factor(ss: SearchState, changes: int, dropped: int, mate: int | None,
                 stable: int) -> float:
    """How many soft budgets the move may use before no iteration starts (Stockfish's and
    rapfi's time use): more after ``changes`` best-move changes in the last iteration or a
    score drop of ``dropped`` (eval units; not for mate scores), less after ``stable``
    iterations with the same best move; at most the tunable ``time_factor_max`` (the
    tunables ``time_*`` of ``ss``)."""
    factor = 1.0 + tunable(ss, "time_unstable") * changes
    if mate is None and dropped > 0:
        factor += 0.5 * min(1.0, dropped / tunable(ss, "time_score_drop"))
    if stable >= tunable(ss, "stable_iterations"):
        factor *= tunable(ss, "time_stable")
    return min(factor, tunable(ss, "time_factor_max"))
