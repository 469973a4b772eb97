"""Pondering (``INFO pondering 1``): searching on the opponent's time.

After the engine has answered a move request (``BEGIN``, ``TURN``, ``BOARD``), while no
command waits, the command thread searches the position after our move, the opponent
to move, with no time limit and writing nothing (:meth:`Ponder.run`).  The moment any
line arrives (or the input ends) the reader thread stops that search
(:meth:`Ponder.wake`), and the command is run as usual.  The search filled the engine's
transposition table, which the next search reads: whatever the opponent plays, the
positions after its move were searched, and after the move the ponder expected most of
the next search's work is already done (Rapfi's pondering does the same, as a search of
its own kept apart from the move's).  The next move's clock is not touched: its time
counts from when its command arrived, as without pondering; the ponder's stop (a few ms,
the search polls its stop flag every 256 nodes) is part of it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from ..engine import Limits
from .engine_holder import EngineHolder
from .game_state import GameState
from .settings import Settings


class Ponder:
    """The ponder search of one protocol loop.

    :param settings: the ``INFO`` settings (``pondering``, the threat flags, the depth and
        node caps, which bound the ponder search too).
    :param engines: the loop's engine, searched in place.
    :param has_line: whether a line waits for the command thread (then no ponder starts).
    """

    def __init__(self, settings: Settings, engines: EngineHolder,
                 has_line: Callable[[], bool]) -> None:
        self._settings = settings
        self._engines = engines
        self._has_line = has_line
        self._lock = threading.Lock()  # between the command thread and the reader's wake
        self._active = False  # a ponder search runs (or is about to)
        self._stopped = False  # wake stopped it
        self._game: GameState | None = None  # the game after our move, until pondered
        #: set while a ponder search runs (tests wait for it)
        self.searching = threading.Event()
        self.searches = 0  #: ponder searches ended so far

    def after_move(self, game: GameState) -> None:
        """Our move was played in ``game``: ponder next, if asked to."""
        self._game = game if self._settings.pondering else None

    def new_game(self) -> None:
        """``START`` or ``RESTART``: the position after our last move is pondered no more
        (the engine's board may still hold it until the next move brings it to the new
        game: :meth:`.EngineHolder.new_game`)."""
        self._game = None

    def run(self) -> None:
        """In the command thread, when no command waits: search the engine's position until
        :meth:`wake` (or the depth and node caps of ``INFO``); once per move of ours."""
        game, self._game = self._game, None
        engine = self._engines.engine
        if (game is None or engine is None or engine.board.winner or engine.board.is_full
                or engine.board.stones() != game.stones):  # (a kernel-free move)
            return
        with self._lock:
            if self._has_line():
                return
            self._active = True
        settings = self._settings
        limits = Limits(depth=settings.max_depth, nodes=settings.max_nodes,
                        **settings.threat_flags())
        self.searching.set()
        try:
            engine.search(limits)
        finally:
            self.searches += 1
            self.searching.clear()
            with self._lock:
                self._active = False
                stopped, self._stopped = self._stopped, False
            if stopped:
                # The stop may have come after the search had returned: it would then stop
                # the next search after its first iteration (Engine.stop).  A depth-1
                # search (well under a millisecond) uses it up.
                engine.search(Limits(depth=1, threats=False))

    def wake(self) -> None:
        """In the reader thread, when a line arrives: stop the ponder search, if any."""
        with self._lock:
            if self._active:
                self._stopped = True
                engine = self._engines.engine
                if engine is not None:
                    engine.stop()


__all__ = ["Ponder"]
