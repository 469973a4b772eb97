"""The protocol loop's engine: built once the core kernels are loaded, never inside a move.

Building an :class:`gomoku_engine.engine.Engine` allocates its transposition table and
pattern tables: 100-150 ms with a 64 MiB table, and 180-290 ms more to resize it to what
``INFO max_memory 367001600`` asks (120 MiB), measured on a warm, idle 2-core machine.
When the kernels are loaded before ``START`` answers, ``START`` builds it.  When they load
later (a busy machine, a cold cache), the kernel loader's thread builds it as soon as they
are in, for the game's size, while the moves meanwhile are kernel-free; a move never pays
for it unless it arrives during the build, and then it waits only as long as its time
allows.  One lock guards the engine between the loader's thread and the command thread.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from ..engine import Engine
from ..kernels import CORE
from .game_state import GameState
from .kernel_loader import KernelLoader
from .settings import Settings


class EngineHolder:
    """The engine of the current game, if built, and the kernel loader it waits for.

    :param factory: builds an :class:`Engine` for ``(width, height)``.
    :param settings: the ``INFO`` settings applied to every engine built.
    :param warm_up: load the kernels in the background (False: each loads on first use).
    """

    def __init__(self, factory: Callable[[int, int], Engine], settings: Settings,
                 warm_up: bool = True) -> None:
        self._factory = factory
        self._settings = settings
        self._lock = threading.Lock()
        self._size: tuple[int, int] | None = None  # the current game's, once START came
        #: the engine, once built (read without the lock only to stop a search)
        self.engine: Engine | None = None
        self.loader = KernelLoader(enabled=warm_up, on_loaded=self._loaded)
        self.loader.request(settings.kernel_groups())

    def new_game(self, size: tuple[int, int], keep_hash: bool = False) -> None:
        """A game of ``size`` starts.  A built engine of that size keeps its transposition
        table and its board if ``keep_hash``, else both are cleared.

        Yixin-Board sends ``START`` before every analysis and every move it asks for, then
        the position (``YXBOARD``, ``BOARD``): clearing a 256 MiB table took up to 260 ms
        each time and threw away what the previous search found about the same
        positions, and emptying the board made the position that follows be replayed in
        full (1-2 ms a stone).  The table's entries are keyed by the position (Zobrist
        key) and scored under the engine's rule, which an ``INFO rule`` changing it clears
        (:meth:`gomoku_engine.engine.Engine.set_rule`), so they stay sound in another game
        of the same size and rule.  The board kept is only a follower: the next
        :meth:`for_game` brings it to the new game (:meth:`GameState.sync` keeps the
        stones the two share from the first on, and places only the others).
        """
        with self._lock:
            self._size = size
            if (self.engine is not None and self._size_of(self.engine) == size
                    and not keep_hash):
                self.engine.new_game()

    def build(self) -> None:
        """Build the engine of the current game's size now, if there is none (``START``
        with the kernels in, or the loader's thread), its board left as it is."""
        with self._lock:
            if self._size is not None:
                self._built(self._size)

    def for_game(self, game: GameState, until: float | None = None) -> Engine | None:
        """The engine with its board brought to ``game``, or None if the core kernels are
        not loaded, or the engine not built, by ``until`` (perf_counter; None: no limit).

        ``game`` is the authoritative copy; the board follows it incrementally
        (:meth:`GameState.sync`: an ordinary turn places one stone, not the whole game),
        and its transposition table and pattern state are kept.  A board of another size
        is a new engine (:meth:`_built`); another rule rebuilds the board when ``INFO``
        sets it (:meth:`gomoku_engine.engine.Engine.set_rule`)."""
        left = None if until is None else max(0.0, until - time.perf_counter())
        if not self.loader.wait((CORE,), left):
            return None
        left = -1 if until is None else max(0.0, until - time.perf_counter())
        if not self._lock.acquire(timeout=left):
            return None  # the loader's thread is building it: the move cannot wait
        try:
            engine = self._built(game.size)
            game.sync(engine.board)
            return engine
        finally:
            self._lock.release()

    def for_move(self, game: GameState, core_until: float,
                 optional_until: float) -> tuple[Engine | None, bool]:
        """The engine for a timed move (:data:`.move_reply.EngineForMove`), the core waited
        for until ``core_until``, the optional kernels until ``optional_until``."""
        engine = self.for_game(game, core_until)
        if engine is None:
            return None, False
        left = max(0.0, optional_until - time.perf_counter())
        return engine, self.loader.wait(self._settings.kernel_groups(), left)

    def apply_settings(self) -> None:
        """Give the built engine the current ``INFO`` settings."""
        with self._lock:
            if self.engine is not None:
                self._settings.apply_to(self.engine)

    def _built(self, size: tuple[int, int]) -> Engine:
        """The engine for a board of ``size``, built if there is none of that size (the
        caller holds the lock)."""
        if self.engine is None or self._size_of(self.engine) != size:
            engine = self._factory(*size)
            self._settings.apply_to(engine)
            self.engine = engine
        return self.engine

    def _loaded(self, group: str) -> None:
        """In the loader's thread, after each group: with the core in, build the engine of
        the current game now rather than in its next move."""
        if group == CORE:
            self.build()

    @staticmethod
    def _size_of(engine: Engine) -> tuple[int, int]:
        return engine.board.width, engine.board.height


__all__ = ["EngineHolder"]
