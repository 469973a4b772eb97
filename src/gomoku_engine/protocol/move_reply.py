"""Answering a move request: the limits of the move, the search (or, while the kernels
are still compiling, the kernel-free move), a level's blunder, the lines written.

:class:`MoveReply` owns what a game's moves share between requests: the random source of
a level's blunders (reseeded at every ``START``, so a game is reproducible) and the points
``YXBLOCK`` excluded.  It also answers ``YXNBEST`` (the same with several principal
variations).  The move's limits and blunders follow :mod:`gomoku_engine.protocol.policy`;
every line written comes from :mod:`gomoku_engine.protocol.messages`, and those written
while searching from :mod:`gomoku_engine.protocol.analysis`.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..core.notation import Point, format_pair
from ..engine import DEFAULT_ALGORITHM, Engine, Limits, SearchResult
from ..search.kernel_free import kernel_free_move
from ..search.limits import ms_since
from .policy import apply_blunder, move_limits
from .analysis import search_report
from .balance import balanced_move, balanced_pair
from .game_state import GameState
from .messages import balance_line, kernel_free_line, multipv_line, result_line
from .reader import Output
from .settings import Settings

#: Kept back from a move's budget for the kernel-free move when the core kernels are not
#: loaded in time, in ms.  It takes 2-60 ms in full on 15x15 to 32x32 boards and stops at
#: its deadline with the best so far, the fives first (:mod:`gomoku_engine.search.
#: kernel_free`).  The move waits for the kernels until then, sleeping: at 150 ms a 200 ms
#: turn (hard budget 150 ms) did not wait at all, and its kernel-free move's Python work
#: took the interpreter from the thread loading the kernels; under load (2 cores, load
#: average 11, 2026-12-03) 272 of 370 moves of a self-play match were kernel-free after
#: an engine's first move of a game.
KERNEL_FREE_MS = 60.0
#: Share of a move's budget it waits for the optional kernels (the genetic algorithm, the
#: VCT solver) before it is searched without them.
OPTIONAL_WAIT_SHARE = 0.5

#: ``(game, core_until, optional_until) -> (engine or None, optional kernels loaded)``
EngineForMove = Callable[[GameState, float, float], tuple[Engine | None, bool]]
#: A move's ``(soft_ms, hard_ms)`` (:meth:`gomoku_engine.search.timeman.TimeControl.budget`)
Budget = tuple[float, float]


class MoveReply:
    """The answer to ``BEGIN``, ``TURN`` and ``BOARD`` in one engine process.

    :param out: where the lines go.
    :param settings: the ``INFO`` settings, read at each move (time left, level, limits).
    """

    def __init__(self, out: Output, settings: Settings) -> None:
        self.out = out
        self.settings = settings
        self.rng = random.Random(0)  # a level's blunders; reseeded at every START
        #: points the next moves avoid (``YXBLOCK``), until ``YXBLOCKRESET``,
        #: ``YXBLOCKUNDO`` or a game of another size
        self.blocked: set[Point] = set()

    def new_game(self, keep_blocks: bool = False) -> None:
        """Reseed the blunders (a game's own, so it is reproducible) and, unless
        ``keep_blocks``, forget the blocked points.

        Yixin-Board sends ``START`` (of the same size) before every move it asks for, and
        ``YXBLOCK`` once: the points stay blocked across such starts, as in Rapfi.
        """
        if not keep_blocks:
            self.blocked.clear()
        self.rng.seed(0)

    def answer(self, game: GameState, engine_for_move: EngineForMove, arrived: float,
               stop_requested: bool = False, multipv: int = 1) -> None:
        """Choose a move for the side to move of ``game``, play it there and write the
        search line and the move (and, during the search, what ``INFO show_detail`` asks
        for: :mod:`gomoku_engine.protocol.analysis`).

        The move waits for the core kernels (loading, or compiling on a cold cache) only
        as long as its budget allows less :data:`KERNEL_FREE_MS`, and for the optional
        ones (the genetic algorithm, the VCT solver) at most :data:`OPTIONAL_WAIT_SHARE` of
        it: without the core it is the kernel-free move
        (:mod:`gomoku_engine.search.kernel_free`), without the optional ones the core
        alpha-beta search's.

        :param engine_for_move: the engine with its board set to ``game`` and whether the
            optional kernels are loaded, waiting until the two ``perf_counter`` times
            given; ``(None, False)`` when the core is not loaded by the first.
        :param arrived: ``time.perf_counter()`` when the request arrived: the move's time
            counts from there.
        :param stop_requested: ``YXSTOP`` came while the request waited: move at once.
        :param multipv: lines wanted (``YXNBEST``): above 1, each line's figures are
            written before the search line (:func:`~.messages.multipv_line`).
        """
        if game.is_full:
            self.out.line("ERROR the board is full: no move left")
            return
        budget = self.settings.time.budget(game.ply)  # once, from the clock as it was asked
        engine, optional = self._engine(game, engine_for_move, arrived, budget)
        colour = game.to_move
        if engine is None:
            move, time_ms = self._kernel_free(game, arrived, budget[1])
            written = [kernel_free_line(time_ms)]
        else:
            result = self._search(engine, arrived, budget, stop_requested, not optional,
                                  multipv)
            move, time_ms = result.move, result.time_ms
            written = [multipv_line(index, line) for index, line in enumerate(result.lines, 1)]
            written.append(result_line(result))
        game.place(*move, colour=colour)
        self.settings.time.charge(time_ms)
        for text in written:
            self.out.line(text)
        self.out.line(format_pair(move))

    def _engine(self, game: GameState, engine_for_move: EngineForMove, arrived: float,
                budget: Budget) -> tuple[Engine | None, bool]:
        """``engine_for_move`` waiting as long as the move's hard budget allows."""
        hard_ms = budget[1]
        return engine_for_move(game, arrived + (hard_ms - KERNEL_FREE_MS) / 1000.0,
                               arrived + hard_ms * OPTIONAL_WAIT_SHARE / 1000.0)

    def _kernel_free(self, game: GameState, arrived: float,
                     hard_ms: float) -> tuple[Point, float]:
        """The kernel-free move, the best found by the move's hard deadline."""
        settings = self.settings
        move = kernel_free_move(game.width, game.height, settings.rule, game.stones,
                                game.to_move, self.blocked, settings.opening_rule,
                                deadline=arrived + hard_ms / 1000.0)
        return move, ms_since(arrived)

    def _search(self, engine: Engine, arrived: float, budget: Budget, stop_requested: bool,
                core_only: bool, multipv: int) -> SearchResult:
        """The searched move, played on the engine's board (a level's blunder applied);
        ``core_only``: the alpha-beta search without the root VCT, whatever the settings."""
        board, settings = engine.board, self.settings
        if core_only:
            engine.set_algorithm(DEFAULT_ALGORITHM)
        limits = self._limits(budget, arrived, core_only)
        blocked = limits.excluded
        limits.multipv = multipv
        report = search_report(self.out, settings.show_detail, board.rule)
        if stop_requested:
            engine.stop()
        try:
            result = engine.search(limits, report)
        finally:
            if core_only:
                engine.set_algorithm(settings.algorithm)
        if report is not None:
            report.without_search(result)
        apply_blunder(result, settings.level, self.rng, board.moves(),
                      lambda x, y: board.is_legal(x, y) and (x, y) not in blocked,
                      board.width, board.height)
        board.play(*result.move)
        return result

    def _limits(self, budget: Budget, arrived: float, core_only: bool) -> Limits:
        """The limits of a move of ``budget`` asked for at ``arrived``, the blocked points
        excluded (``core_only``: without the root VCT)."""
        settings = self.settings
        flags = settings.threat_flags()
        if core_only:
            flags["vct"] = False
        limits = move_limits(budget, settings.level,
                             max_depth=settings.max_depth, max_nodes=settings.max_nodes,
                             start=arrived, **flags)
        limits.excluded = frozenset(self.blocked)
        return limits

    def answer_balance(self, game: GameState, engine_for_move: EngineForMove, bias: str,
                       arrived: float, pair: bool,
                       stopped: Callable[[], bool] = lambda: False) -> None:
        """``YXBALANCEONE <bias>`` (``pair`` False) or ``YXBALANCETWO <bias>``: the move, or
        the pair of moves, after which the side to move's score is nearest ``bias``
        (:mod:`gomoku_engine.protocol.balance`), within the move's time; played on the
        board and written as Rapfi does, ``x,y`` or ``x1,y1 x2,y2``.  The search runs
        alpha-beta whatever ``INFO algorithm`` says (the genetic algorithm scores one
        line), writes no ``show_detail`` lines (they would mark the strongest moves, not
        the balanced ones) and plays no level's blunder.  A bias that is not an integer,
        or too few empty points, get ``ERROR`` and no search.  Without the kernels
        (still loading) the moves are the kernel-free ones.

        :param stopped: whether ``YXSTOP`` came: a pair then ends its search early.
        """
        name = "YXBALANCETWO" if pair else "YXBALANCEONE"
        try:
            target = int(bias.strip())
        except ValueError:
            self.out.line(f"ERROR bad {name} {bias.strip()!r}: expected {name} <bias>")
            return
        count = 2 if pair else 1
        if game.width * game.height - game.ply < count:
            self.out.line(f"ERROR the board is full: {name} needs {count} empty points")
            return
        budget = self.settings.time.budget(game.ply)
        engine, _ = self._engine(game, engine_for_move, arrived, budget)
        if engine is None:
            moves = []
            for _ in range(count):
                moves.append(self._kernel_free(game, arrived, budget[1])[0])
                game.place(*moves[-1], colour=game.to_move)
            written = [kernel_free_line(ms_since(arrived))]
        else:
            engine.set_algorithm(DEFAULT_ALGORITHM)
            limits = self._limits(budget, arrived, core_only=True)
            try:
                found = (balanced_pair(engine, limits, target, stopped) if pair
                         else balanced_move(engine, limits, target))
            finally:
                engine.set_algorithm(self.settings.algorithm)
            moves = found.moves
            for move in moves:
                engine.board.play(*move)
                game.place(*move, colour=game.to_move)
            written = [balance_line(moves, found.score, target), result_line(found.result)]
        self.settings.time.charge(ms_since(arrived))
        for text in written:
            self.out.line(text)
        self.out.line(" ".join(format_pair(move) for move in moves))

    def answer_nbest(self, game: GameState, engine_for_move: EngineForMove, count: str,
                     arrived: float, stop_requested: bool = False) -> None:
        """``YXNBEST <count>``: :meth:`answer` with ``count`` lines (multi-PV; below 1:
        one).  As in Rapfi, the best move is played on the engine's board and written as
        a move reply (Yixin-Board plays it on its own board).  A count that is not a
        number gets ``ERROR`` and no search.
        """
        try:
            lines = int(count.strip())
        except ValueError:
            self.out.line(f"ERROR bad YXNBEST {count.strip()!r}: expected YXNBEST <count>")
            return
        self.answer(game, engine_for_move, arrived, stop_requested, max(1, lines))


__all__ = ["Budget", "EngineForMove", "KERNEL_FREE_MS", "MoveReply", "OPTIONAL_WAIT_SHARE"]
