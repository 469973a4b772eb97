"""The engine facade: a board, its search settings and state, and the calls that search it.

This is the API the protocol loop, the CLI and user code drive; it knows nothing of text.
The work is done in :mod:`gomoku_engine.search`: iterative deepening in
:mod:`~gomoku_engine.search.driver`, the root threat search and the threat solves in
:mod:`~gomoku_engine.search.root_threats`, the genetic algorithm in
:mod:`~gomoku_engine.search.ga_driver`; their tunables in :mod:`~gomoku_engine.search.params`.

>>> engine = Engine(15)
>>> engine.board.play(7, 7)
>>> result = engine.search(Limits(depth=2))
>>> engine.board.is_legal(*result.move)
True
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from .core.constants import BLACK, Rule
from .core.notation import Point
from .core.opening_rules import OPENING_RULES
from .eval import DEFAULT_EVALUATION
from .game.board import Board
from .search.alphabeta import clear_search_state, set_search_params
from .search.driver import SearchDriver, avoid_excluded, new_states
from .search.limits import Limits, SearchInfo, SearchResult, SolveResult, ms_since
from .search.params import DEFAULT_HASH_MB, MAX_THREADS, check_param, make_params
from .search.root_threats import SOLVE_KINDS, RootThreats
from .search.smp import HelperPool
from .search.threats import clear_threat_state

if TYPE_CHECKING:  # the genetic algorithm's module is imported when it is first used
    from .search.ga import GAConfig

__all__ = ["ALGORITHMS", "DEFAULT_ALGORITHM", "DEFAULT_HASH_MB", "MAX_THREADS", "Engine",
           "Limits", "SearchInfo", "SearchResult", "SolveResult"]

#: Search algorithms :meth:`Engine.search` can run (``INFO algorithm``, ``--algorithm``).
ALGORITHMS = ("alphabeta", "ga")
DEFAULT_ALGORITHM = "alphabeta"


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
    :param evaluation: the static evaluation, a name of
        :data:`gomoku_engine.eval.EVALUATIONS`: ``"classical"`` (point values fitted to
        games), ``"network"`` (:mod:`gomoku_engine.eval.network`), ``"spatial"`` (the
        network with a convolution) or ``"handset"``;
        the default is :data:`gomoku_engine.eval.DEFAULT_EVALUATION`.
    :param opening_rule: a name of :data:`gomoku_engine.core.opening_rules.OPENING_RULES`:
        where black's first stone may go (``"lin"``: Lin's rule).
    :param params: values of the search's tunables by name
        (:data:`gomoku_engine.search.params.TUNABLES`, listed by ``gomoku-engine tune
        --list``); the others keep their defaults.  Set at run time: no recompiling.
    :raises ValueError: on an unsupported size, an unknown algorithm, evaluation,
        opening rule or tunable, or a tunable's value outside its range.
    """

    def __init__(self, width: int = 15, height: int | None = None,
                 rule: Rule = Rule.FREESTYLE, hash_mb: float = DEFAULT_HASH_MB,
                 algorithm: str = DEFAULT_ALGORITHM, seed: int = 0,
                 ga_config: GAConfig | None = None, evaluation: str = DEFAULT_EVALUATION,
                 opening_rule: str = "none", params: Mapping[str, float] | None = None
                 ) -> None:
        #: every tunable's value by name (:meth:`set_param` changes them)
        self.params = make_params(params)
        self.hash_mb = hash_mb
        #: the table size it was built with (MiB), to return to when a limit is lifted
        self.default_hash_mb = hash_mb
        self.opening_rule = "none"
        self.set_opening_rule(opening_rule)
        self.algorithm = DEFAULT_ALGORITHM
        self.set_algorithm(algorithm)
        self.seed = seed
        self.ga_config = ga_config
        #: figures of the last genetic search: generations, evaluations, how it chose
        self.last_ga: dict[str, int | str] = {}
        self.board = Board(width, height, rule, evaluation)
        self._state, self._threats = new_states(self.board.geometry, hash_mb, self.params)
        self._lock = threading.Lock()
        #: search threads: the main one and ``threads - 1`` lazy-SMP helpers (:mod:`.smp`)
        self.threads = 1
        self._helpers = HelperPool()

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
                self._state, self._threats = new_states(self.board.geometry, self.hash_mb,
                                                        self.params)
        self.clear_hash()

    def set_rule(self, rule: Rule) -> None:
        """Change the rule, keeping the stones."""
        if rule != self.board.rule:
            self._rebuild_board(rule, self.board.evaluation)

    def set_evaluation(self, name: str) -> None:
        """Choose the static evaluation, keeping the stones: a name of
        :data:`gomoku_engine.eval.EVALUATIONS`.

        :raises ValueError: for an unknown name, or ``"network"`` under a rule the package
            has no network for (the evaluation is then unchanged).
        """
        if name != self.board.evaluation:
            self._rebuild_board(self.board.rule, name)

    def _rebuild_board(self, rule: Rule, evaluation: str) -> None:
        """A board of the same size with another rule or evaluation and the same stones;
        the TT is cleared (its scores came from the old one).

        :raises ValueError: for an unknown evaluation (the board is then unchanged).
        """
        board = Board(self.board.width, self.board.height, rule, evaluation)
        # unchecked: stones that hold a five under the new rule are still the game's
        board.load(self.board.stones(), self.board.to_move)
        self.board = board
        self.clear_hash()

    def set_algorithm(self, name: str) -> None:
        """Choose the search algorithm by name (see :data:`ALGORITHMS`).

        :raises ValueError: for an unknown name (the algorithm is then unchanged).
        """
        self.algorithm = _known("algorithm", name, ALGORITHMS)

    def set_opening_rule(self, name: str) -> None:
        """Choose the opening rule by name (see :mod:`gomoku_engine.core.opening_rules`); it
        decides black's first stone of :meth:`search` on an empty board.

        :raises ValueError: for an unknown name (the rule is then unchanged).
        """
        self.opening_rule = _known("opening rule", name, OPENING_RULES)

    def set_hash_size(self, megabytes: float) -> None:
        """Resize the transposition table (MiB); its contents are lost."""
        if megabytes != self.hash_mb:
            self.hash_mb = megabytes
            self._state, self._threats = new_states(self.board.geometry, self.hash_mb,
                                                    self.params)

    def set_param(self, name: str, value: float | str) -> None:
        """Set one of the search's tunables (``INFO param NAME VALUE``) for the next
        searches; no recompiling.  An integer tunable's value is rounded.

        :param name: a name of :data:`gomoku_engine.search.params.TUNABLES`, in any case.
        :raises ValueError: for an unknown name or a value outside the tunable's range
            (the tunables are then unchanged).
        """
        key, number = check_param(name, value)
        self.params[key] = number
        set_search_params(self._state, self.params)

    def set_params(self, values: Mapping[str, float | str]) -> None:
        """Set every tunable: those in ``values`` (name to value) as :meth:`set_param`
        does, the others back to their defaults.

        :raises ValueError: as :meth:`set_param` (the tunables are then unchanged).
        """
        self.params = make_params(values)
        set_search_params(self._state, self.params)

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
        """The best move for the side to move, by iterative deepening from depth 1 until a
        limit is hit (:class:`gomoku_engine.search.driver.SearchDriver`).

        The first iteration always completes (it takes well under a millisecond), so a
        legal move is returned even with a zero budget.  The board is unchanged on return.
        With ``algorithm="ga"`` the genetic algorithm runs instead
        (:func:`gomoku_engine.search.ga_driver.search_ga`); on an empty board black's first
        stone follows the opening rule.

        :param limits: time (ms), depth and node limits; ``None`` means depth 8.  A
            point of ``limits.excluded`` is played only when no other legal point is left;
            ``limits.multipv`` above 1 also fills ``SearchResult.lines`` (:meth:`analyze`).
        :param on_iteration: called after every completed iteration (with multi-PV,
            after every line of it).
        :raises ValueError: if the board is full.
        """
        limits = limits or Limits(depth=8)
        start = limits.start if limits.start is not None else time.perf_counter()
        board = self.board
        try:
            if board.is_full:
                raise ValueError("the board is full")
            with self._lock:
                result = self._choose(limits, start, on_iteration)
                if limits.excluded:
                    result = avoid_excluded(board, self._state, result, limits.excluded,
                                            start)
                return result
        finally:
            self._state.stop[0] = 0  # reset at the end, not the start: see stop()

    def analyze(self, limits: Limits | None = None, multipv: int = 1,
                on_iteration: Callable[[SearchInfo], None] | None = None
                ) -> list[SearchResult]:
        """The ``multipv`` best moves for the side to move, each with its own score and
        principal variation, best first (multi-PV, Yixin-Board's ``YXNBEST``): the
        lines of the last depth at which all were searched
        (:meth:`gomoku_engine.search.driver.SearchDriver.iterate` with
        ``Limits.multipv``).  The first line is :meth:`search`'s move.

        Fewer lines come back when the position has fewer moves to weigh: a forced win
        found by the root threat search, a five to make or block, an open four, black's
        first stone, the genetic algorithm (one line each), or fewer root candidates than
        asked (the root's breadth limit, 32).  Each line's search takes about as long as
        a one-line search to the same depth, so a time limit reaches shallower depths;
        it runs on one thread (lazy-SMP helpers would search the whole root).
        The board is unchanged on return.

        :param limits: as for :meth:`search` (its ``multipv`` is replaced).
        :param multipv: lines wanted, at least 1.
        :param on_iteration: called after every line of every completed depth
            (``SearchInfo.pv_index`` and ``num_pv`` say which).
        :raises ValueError: if the board is full or ``multipv`` is below 1.
        """
        if multipv < 1:
            raise ValueError(f"multipv must be at least 1, not {multipv}")
        limits = dataclasses.replace(limits or Limits(depth=8), multipv=multipv)
        result = self.search(limits, on_iteration)
        return result.lines if result.lines and result.lines[0].move == result.move else [result]

    def _choose(self, limits: Limits, start: float,
                on_iteration: Callable[[SearchInfo], None] | None) -> SearchResult:
        """The move of :meth:`search` (the caller holds the lock)."""
        board = self.board
        if board.ply == 0 and (self.opening_rule == "none" or board.to_move != BLACK):
            centre = board.geometry.centre
            return SearchResult(centre, 0, 0, 0, 0, ms_since(start), [centre])
        driver = SearchDriver(board, self._state, self._threats, self._helpers,
                              self.threads)
        if board.ply == 0:
            return driver.first_move(self.opening_rule, limits, start)
        if self.algorithm == "ga":
            return self._search_ga(limits, start, on_iteration)
        return driver.iterate(limits, start, on_iteration)

    def _search_ga(self, limits: Limits, start: float,
                   on_iteration: Callable[[SearchInfo], None] | None) -> SearchResult:
        from .search.ga_driver import search_ga  # loads the GA's kernels: only when chosen

        result, self.last_ga = search_ga(self.board, self._state, self.seed, self.ga_config,
                                         limits, start, on_iteration)
        return result

    def solve(self, kind: str = "vct", time_ms: float | None = 1000.0,
              depth: int | None = None, nodes: int = 2**62) -> SolveResult:
        """Threat-space solve for the side to move: does it win by VCF (or VCT)?

        :param kind: ``"vcf"`` (fours only) or ``"vct"`` (threes and fours).
        :param time_ms: time budget in ms (``None``: none).
        :param depth: most threats before the five (default
            :data:`~gomoku_engine.search.params.ROOT_VCF_DEPTH` for VCF,
            :data:`~gomoku_engine.search.params.SOLVE_VCT_DEPTH` for VCT).
        :param nodes: node budget.
        :raises ValueError: for an unknown ``kind``.
        """
        if kind not in SOLVE_KINDS:
            raise ValueError(f"kind must be 'vcf' or 'vct', not {kind!r}")
        with self._lock:
            try:
                return RootThreats(self.board, self._state, self._threats).solve(
                    kind, time_ms, depth, nodes)
            finally:
                self._state.stop[0] = 0

    def vcf_defences(self, time_ms: float | None = 1000.0,
                     first: list[int] | None = None) -> list[Point]:
        """Moves of the side to move after which the opponent provably has no VCF.

        Every legal point near a stone is judged by
        :func:`gomoku_engine.search.threats.vcf_defences` (a four of ours after the opponent's
        forced block), ``first`` (flat cells) before the rest, then by one-ply priority, so
        a deadline that cuts the checks short leaves the likeliest defences checked.  An
        empty list means none was proven (every move loses to a VCF, or time ran out).

        :param time_ms: time budget in ms (``None``: only the per-question node budget
            :data:`~gomoku_engine.search.params.REFUTE_VCF_NODES`).
        """
        with self._lock:
            try:
                return RootThreats(self.board, self._state, self._threats).vcf_defences(
                    time_ms, first or [])
            finally:
                self._state.stop[0] = 0


def _known(kind: str, name: str, names: Iterable[str]) -> str:
    """``name`` if it is one of ``names``.

    :raises ValueError: naming the ``kind`` of setting and the names it accepts.
    """
    if name not in names:
        raise ValueError(f"unknown {kind} {name!r}: expected one of " + ", ".join(names))
    return name
