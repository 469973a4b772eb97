"""Lazy SMP: helper threads that search the same position and share the transposition table.

The main thread runs the iterative deepening
(:class:`gomoku_engine.search.driver.SearchDriver`) and alone chooses the move; each
helper thread searches the same root on its own copy of the position, with its own
killers, history, move buffers and threat-solver arrays, and reaches the main search only
through the transposition table they share (the "lazy SMP" of Stockfish and rapfi).  The
table is read and written without locks: a probe that meets an entry while another thread
writes it can read a mixed entry, which gives a wrong bound once in a great while, as in
those engines; a TT move is only an ordering hint here (the candidates are the empty
points of the thread's own board), so it never makes an illegal move.  Helper ``i`` starts
its iterations at depth ``1 + i % 2``, so two threads do not walk the same tree in step.

The kernels release the GIL (:data:`gomoku_engine.core.jit.njit` is ``nogil=True``), so the
threads run on separate cores.
"""

from __future__ import annotations

import threading

from ..core.constants import INFINITY
from ..game.position import Position, Tables
from .alphabeta import (
    ALLOW_STOP, DEADLINE, GENERATION, HORIZON_VCF, NODE_LIMIT, NODES, POLL,
    POLL_INTERVAL, ROOT_FILTER, STOPPED, SearchState, clear_move_order,
    new_search_state, search_depth,
)
from .threats import ThreatState, clear_threat_state, new_threat_state

#: the counters a helper takes from the main search at the start of a move
_SHARED_COUNTERS = (NODE_LIMIT, DEADLINE, ROOT_FILTER, GENERATION, HORIZON_VCF)


class HelperPool:
    """The helper threads' search states, kept from move to move (their history and
    killers carry over as the main thread's do)."""

    def __init__(self) -> None:
        self._states: list[tuple[SearchState, ThreatState]] = []
        self._threads: list[threading.Thread] = []

    def _ensure(self, main: SearchState, count: int, n_points: int) -> None:
        """``count`` helper states sharing ``main``'s table (a new table drops the old
        states: the board was resized or the hash size changed)."""
        if self._states and self._states[0][0].tt is not main.tt:
            self._states = []
        n_cells = main.history.shape[1]
        while len(self._states) < count:
            own = new_search_state(n_cells, n_points, 0)  # its tiny table is not used
            # the main search's table and tunables (and the tables derived from them):
            # set_search_params writes them in place, so helpers follow a change
            ss = own._replace(tt=main.tt, tune=main.tune, reductions=main.reductions,
                              order_bonus=main.order_bonus)
            self._states.append((ss, new_threat_state(n_points, ss.stop, n_cells)))

    def clear(self) -> None:
        """Forget the helpers' killers, history and solver tables (a new game)."""
        for ss, ts in self._states:
            clear_move_order(ss)
            clear_threat_state(ts)

    def start(self, count: int, position: Position, tables: Tables, main: SearchState,
              max_depth: int) -> None:
        """Start ``count`` helpers on ``position`` (copied) with ``main``'s limits.

        They stop at ``main``'s deadline or node limit, or at :meth:`stop`.
        """
        if count <= 0:
            return
        self._ensure(main, count, tables.points.shape[0])
        for index, (ss, ts) in enumerate(self._states[:count]):
            for k in _SHARED_COUNTERS:
                ss.counters[k] = main.counters[k]
            ss.counters[NODES] = 0
            ss.counters[POLL] = POLL_INTERVAL
            ss.counters[STOPPED] = 0
            ss.counters[ALLOW_STOP] = 1
            ss.root_allowed[:] = main.root_allowed
            ss.stop[0] = 0
            own = Position(*(array.copy() for array in position))
            thread = threading.Thread(target=_iterate, name=f"search-helper-{index + 1}",
                                      args=(own, tables, ss, ts, 1 + index % 2, max_depth),
                                      daemon=True)
            self._threads.append(thread)
            thread.start()

    def stop(self) -> int:
        """Stop the running helpers and wait for them; returns the nodes they searched."""
        for ss, _ in self._states:
            ss.stop[0] = 1
        for thread in self._threads:
            thread.join()
        nodes = sum(int(ss.counters[NODES]) for ss, _ in self._states[:len(self._threads)])
        self._threads = []
        return nodes


def _iterate(position: Position, tables: Tables, ss: SearchState, ts: ThreatState,
             first_depth: int, max_depth: int) -> None:
    """A helper's iterative deepening: full-window iterations until it is stopped."""
    for depth in range(first_depth, max_depth + 1):
        search_depth(position, tables, ss, ts, depth, -INFINITY, INFINITY)
        if ss.counters[STOPPED] != 0:
            return
