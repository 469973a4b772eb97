"""Answering a move request: the limits of the move, the search, a level's blunder, the
lines written.

:class:`MoveReply` owns what a game's moves share between requests: the random source of
a level's blunders (reseeded at every ``START``, so a game is reproducible) and the points
``YXBLOCK`` excluded.  It also answers ``YXNBEST`` (the same with several principal
variations).  The move's limits and blunders follow :mod:`gomoku_engine.search.policy`;
every line written comes from :mod:`gomoku_engine.protocol.messages`, and those written
while searching from :mod:`gomoku_engine.protocol.analysis`.
"""

from __future__ import annotations

import random

from ..core.notation import Point, format_pair
from ..engine import Engine
from ..search.policy import apply_blunder, move_limits
from .analysis import search_report
from .messages import multipv_line, result_line
from .reader import Output
from .settings import Settings


class MoveReply:
    """The answer to ``BEGIN``, ``TURN`` and ``BOARD`` in one engine process.

    :param out: where the lines go.
    :param settings: the ``INFO`` settings, read at each move (time left, level, limits).
    """

    def __init__(self, out: Output, settings: Settings) -> None:
        self.out = out
        self.settings = settings
        self.rng = random.Random(0)  # a level's blunders; reseeded at every START
        #: points the next moves avoid (``YXBLOCK``), until ``YXBLOCKRESET`` or a new game
        self.blocked: set[Point] = set()

    def new_game(self) -> None:
        """Forget the blocked points and reseed the blunders (as Rapfi: a game's own)."""
        self.blocked.clear()
        self.rng.seed(0)

    def answer(self, engine: Engine, arrived: float, stop_requested: bool = False,
               multipv: int = 1) -> None:
        """Search the engine's position, play the move on its board and write the search
        line and the move (and, during the search, what ``INFO show_detail`` asks for:
        :mod:`gomoku_engine.protocol.analysis`).

        :param arrived: ``time.perf_counter()`` when the request arrived: the move's time
            counts from there.
        :param stop_requested: ``YXSTOP`` came while the request waited: move at once.
        :param multipv: lines wanted (``YXNBEST``): above 1, each line's figures are
            written before the search line (:func:`~.messages.multipv_line`).
        """
        board, settings = engine.board, self.settings
        if board.is_full:
            self.out.line("ERROR the board is full: no move left")
            return
        limits = move_limits(settings.time, board.ply, settings.level,
                             max_depth=settings.max_depth, max_nodes=settings.max_nodes,
                             start=arrived, **settings.threat_flags())
        limits.excluded = blocked = frozenset(self.blocked)
        limits.multipv = multipv
        report = search_report(self.out, settings.show_detail, board.rule)
        if stop_requested:
            engine.stop()
        result = engine.search(limits, report)
        if report is not None:
            report.without_search(result)
        apply_blunder(result, settings.level, self.rng, board.moves(),
                      lambda x, y: board.is_legal(x, y) and (x, y) not in blocked,
                      board.width, board.height)
        board.play(*result.move)
        settings.time.charge(result.time_ms)
        for index, line in enumerate(result.lines, 1):
            self.out.line(multipv_line(index, line))
        self.out.line(result_line(result))
        self.out.line(format_pair(result.move))

    def answer_nbest(self, engine: Engine, count: str, arrived: float,
                     stop_requested: bool = False) -> None:
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
        self.answer(engine, arrived, stop_requested, max(1, lines))


__all__ = ["MoveReply"]
