"""When the ``INFO`` settings reach the engine: never while a move waits behind them.

A manager writes its ``INFO`` lines and the move after them at once, and the move's clock
runs from its arrival, so an ``INFO`` line must not hold the command thread for what two
kinds of setting cost (commit c0b2710):

* the engine's settings (rule, algorithm, evaluation, seed, threads, tunables) that come
  while the kernel loader's thread may be building the engine: applying them waited for
  the build (100-400 ms; first moves of 573-585 ms at a 200 ms turn under load).  They are
  marked stale (:attr:`Settings.engine_stale`) and given to the engine when its build
  ends, in the loader's thread;
* the transposition table ``INFO max_memory`` or ``INFO hash_size`` asks for: writing
  120 MiB took 123-292 ms, charged to the move sent with the ``INFO`` line.  It is held
  (:attr:`Settings.table_held`) and written before ``START``'s ``OK`` (a referee asks for
  the first move on ``OK``) or at the next idle point: no command queued and none coming
  within :data:`TABLE_GRACE_S`.  A table larger than the engine's is written at an idle
  point only when a move has :data:`TABLE_IDLE_MIN_TURN_MS` or more; at shorter turns it
  waits for the next ``START`` (the opponent's move comes back within the turn, while
  the write takes about a second under load).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from ..kernels import CORE
from .engine_holder import EngineHolder
from .settings import Changed, Settings

#: How long the command thread, with nothing queued, waits for a command before it writes
#: a transposition table of the size ``INFO`` asked for, in seconds: a manager writes its
#: ``INFO`` lines and the move after them one by one, and a move that came just after the
#: table began would wait for it (120-290 ms for 120 MiB, commit c0b2710).
TABLE_GRACE_S = 0.05
#: The shortest turn (``INFO timeout_turn``, ms) at which an idle point writes a table larger
#: than the engine's.  At a 200 ms turn the opponent's move comes back within 200 ms of
#: ours, and the 120 MiB of Gomocup's ``max_memory`` took about 1 s to write under load:
#: a 200 ms move of self-play waited 1,073 ms behind it (2-core machine, load average 11,
#: 2026-12-03; 123-292 ms on an idle one).  A smaller table (a memory limit) is written
#: at any turn.
TABLE_IDLE_MIN_TURN_MS = 2000


class HeldSettings:
    """The ``INFO`` settings of one protocol loop on their way to its engine.

    :param settings: the loop's settings (its :attr:`Settings.table_held` and
        :attr:`Settings.engine_stale` flags are set and cleared here).
    :param engines: the loop's engine and its kernel loader (whose thread builds it).
    :param has_queued: whether a line waits for the command thread.
    """

    def __init__(self, settings: Settings, engines: EngineHolder,
                 has_queued: Callable[[], bool]) -> None:
        self._settings = settings
        self._engines = engines
        self._has_queued = has_queued
        #: guards Settings.engine_stale between the command and the kernel loader's thread
        self._lock = threading.Lock()
        self._core_ready = False  # the loader built the engine (or is past the core)
        self._arrived = threading.Event()  # a line came (set by the reader's wake)
        engines.loader.after_loaded.append(self._kernels_loaded)

    def changed(self, changed: Changed) -> None:
        """In the command thread, after an ``INFO`` line that changed ``changed``: the
        engine's settings now unless the engine may be being built, the table later."""
        if changed & Changed.TABLE:
            self._settings.table_held = True
        if changed & Changed.ENGINE:
            with self._lock:
                if self._core_ready or self._engines.loader.loaded(CORE):
                    self._settings.engine_stale = False
                    self._engines.apply_settings()
                else:
                    self._settings.engine_stale = True  # see _kernels_loaded

    def before_ok(self) -> None:
        """At ``START``, the kernels loaded, before ``OK``: a held table now."""
        if self._settings.table_held:
            self._resize_table()

    def at_idle(self) -> bool:
        """In the command thread with no command queued: a held table is written, unless a
        line comes within :data:`TABLE_GRACE_S` (or the engine may still be being built).

        :returns: whether the loop is still idle (no line came): the ponder search may
            run.
        """
        if not (self._settings.table_held and self._engines.loader.loaded(CORE)):
            return True
        if self._growth_waits():
            return True  # at the next START (before_ok), between games
        self._arrived.clear()
        if self._has_queued() or self._arrived.wait(TABLE_GRACE_S):
            return False  # the command first; the table at the next idle point
        self._resize_table()
        return not self._has_queued()

    def _growth_waits(self) -> bool:
        """Whether the held table is larger than the engine's and the turn is shorter than
        :data:`TABLE_IDLE_MIN_TURN_MS`: then it waits for the next ``START``."""
        engine = self._engines.engine
        if engine is None:
            return False
        wanted = self._settings.hash_mb()
        wanted = engine.default_hash_mb if wanted is None else wanted
        return (wanted > engine.hash_mb
                and self._settings.time.turn_ms < TABLE_IDLE_MIN_TURN_MS)

    def line_arrived(self) -> None:
        """In the reader thread, for every line (and the end of input)."""
        self._arrived.set()

    def _resize_table(self) -> None:
        """Write the table ``INFO`` asked for now, in the command thread, no move waiting
        (with it any stale settings, which :meth:`Settings.apply_to` sets together)."""
        with self._lock:
            self._settings.table_held = self._settings.engine_stale = False
            self._engines.apply_settings()

    def _kernels_loaded(self, group: str) -> None:
        """In the kernel loader's thread, once ``group`` is loaded (and, for the core, the
        engine built): the settings that came during the build."""
        if group == CORE:
            with self._lock:
                self._core_ready = True
                if self._settings.engine_stale:
                    self._settings.engine_stale = False
                    self._engines.apply_settings()


__all__ = ["HeldSettings", "TABLE_GRACE_S", "TABLE_IDLE_MIN_TURN_MS"]
