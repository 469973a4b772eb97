"""Where a refereed game gets its engine processes: a fresh one for every game, or one per
engine and thread kept across games.

:class:`FreshEngines` (the default of :func:`gomoku_engine.arena.referee.play_game`) starts
both engines for each game and closes them at its end, so every game pays each engine's
start-up.  :class:`ReusedEngines` keeps them, as c-gomoku-cli does: the next game on the
same thread sends ``START`` again to the same process, and a process that lost its game
by a fault (crash, hang, loss on time, an illegal reply, a refused ``START``) is closed and
replaced by a fresh one.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence

from ..protocol.client import EngineProcess

LogPath = str | os.PathLike[str] | None


class FreshEngines:
    """A fresh process for every game, closed at the game's end."""

    def start(self, command: Sequence[str], log: LogPath = None) -> EngineProcess:
        """A new process running ``command`` (logging to ``log``).

        :raises OSError: if it cannot be started.
        """
        return EngineProcess(command, log)

    def finish(self, engine: EngineProcess, reusable: bool) -> None:
        """The game is over: close the process (``reusable`` does not matter here)."""
        engine.close()

    def close(self) -> None:
        """Nothing is kept between games."""


class ReusedEngines(FreshEngines):
    """One process per engine command and thread, kept across that thread's games.

    The two sides of a self-play game run the same command: each takes its own process
    (a thread keeps a list of idle processes per command).  :meth:`close` ends every
    process still kept; call it once the match is over.
    """

    def __init__(self) -> None:
        self._local = threading.local()
        self._lock = threading.Lock()
        self._kept: list[EngineProcess] = []  # every process kept, for close()

    def _idle(self) -> dict[tuple[str, ...], list[EngineProcess]]:
        if not hasattr(self._local, "idle"):
            self._local.idle = {}
        return self._local.idle

    def start(self, command: Sequence[str], log: LogPath = None) -> EngineProcess:
        """This thread's idle process of ``command`` if it is still running (its log
        switched to ``log``), else a new one.

        :raises OSError: if a new process cannot be started.
        """
        idle = self._idle().setdefault(tuple(command), [])
        while idle:
            engine = idle.pop()
            if engine.alive():
                engine.transcript.clear()  # the last game's lines are not this game's
                engine.log_to(log)
                return engine
            self._drop(engine)
        engine = EngineProcess(command, log)
        with self._lock:
            self._kept.append(engine)
        return engine

    def finish(self, engine: EngineProcess, reusable: bool) -> None:
        """Keep ``engine`` for this thread's next game if ``reusable`` and still running,
        else close it."""
        if reusable and engine.alive():
            engine.log_to(None)
            self._idle().setdefault(tuple(engine.command), []).append(engine)
        else:
            self._drop(engine)

    def _drop(self, engine: EngineProcess) -> None:
        engine.close()
        with self._lock:
            if engine in self._kept:
                self._kept.remove(engine)

    def close(self) -> None:
        """Close every process still kept (sends ``END``, kills one that does not exit)."""
        with self._lock:
            kept, self._kept = self._kept, []
        for engine in kept:
            engine.close()


__all__ = ["FreshEngines", "ReusedEngines"]
