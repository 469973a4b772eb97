"""Engines and boards lent to games for the length of one search or one judgement.

A game of :mod:`gomoku_engine.play.human` keeps only its stones and settings between
moves.  It borrows an :class:`~gomoku_engine.engine.Engine` (its board's kernels and its
transposition table) only while the engine thinks, and a plain
:class:`~gomoku_engine.game.board.Board` only while a move is judged (a five, a renju
foul), from an :class:`EnginePool` holding at most a fixed number of each.  The server's
memory is then bounded by the pool's size, whatever the number of games
(:func:`pool_for_memory` turns a memory setting into that size).

When every engine is lent, a borrower waits up to ``wait_s`` seconds and then gets
:class:`PoolBusy`; no more engines are ever built.
"""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Generic, TypeVar

from ..core.constants import Rule
from ..core.errors import GomokuError
from ..engine import Engine
from ..game.board import Board

T = TypeVar("T")
#: ``(width, height, rule)``: what a lent engine or board must be set to.
Key = tuple[int, int, Rule]

#: Resident memory of a warm ``gomoku-engine web`` process before its first game (MiB),
#: measured with ``tools/web_memory.py`` (docs/play.md): Python, numpy, numba's loaded
#: kernels and the pattern tables.
BASE_MB = 250
#: One engine's memory besides its transposition table (MiB): its board's undo stack and
#: tables, the search's move buffers, the threat solver's state; measured 4-5 MiB on
#: 15x15 to 20x20 boards, plus a judging board (1.5-2 MiB).
ENGINE_OVERHEAD_MB = 8
#: Memory given to each engine (table included) before another engine is added (MiB).
ENGINE_SHARE_MB = 64
#: Most engines: more searches at once than cores only share the cores.
MAX_ENGINES = 8
#: Default memory setting of ``gomoku-engine web`` (MiB).
DEFAULT_MEMORY_MB = 512
#: How long a borrower waits for a free engine before :class:`PoolBusy` (seconds).
DEFAULT_WAIT_S = 10.0


class PoolBusy(GomokuError):
    """Every engine of the pool stayed lent for the whole wait."""


@dataclass(frozen=True)
class PoolSize:
    """How many engines a pool holds and the transposition table of each (MiB)."""

    engines: int
    hash_mb: int


def pool_for_memory(memory_mb: float) -> PoolSize:
    """The pool that keeps a process within ``memory_mb`` MiB of resident memory.

    ``budget = memory_mb - BASE_MB``; ``engines = clamp(budget // ENGINE_SHARE_MB, 1,
    MAX_ENGINES)``; ``hash_mb`` = the largest power of two not above ``budget / engines -
    ENGINE_OVERHEAD_MB`` (at least 1; the table holds a power-of-two number of entries
    anyway, :func:`gomoku_engine.search.alphabeta.tt_entries_for`).  Below
    ``BASE_MB + ENGINE_OVERHEAD_MB + 1`` the result is one engine with a 1 MiB table: the
    process cannot be smaller than its base.  Default 512 MiB: 4 engines of 32 MiB.
    """
    budget = max(0.0, memory_mb - BASE_MB)
    engines = max(1, min(MAX_ENGINES, int(budget // ENGINE_SHARE_MB)))
    room = max(1, int(budget / engines - ENGINE_OVERHEAD_MB))
    return PoolSize(engines, 1 << (room.bit_length() - 1))


@dataclass
class _Slot(Generic[T]):
    item: T
    key: Key
    owner: object  #: the last borrower (its search state may be kept for it)
    used: float  #: time.monotonic() when it was returned


class Lender(Generic[T]):
    """At most ``size`` items, built on demand by ``build(key)`` and lent one at a time.

    A borrower gets, in this order: an idle item it used last with the same key, an idle
    item with the same key, the least recently used idle item (``refit(item, key)`` makes
    it fit), a new item while fewer than ``size`` exist; else it waits.

    :param size: most items alive at once (>= 1).
    :param build: makes an item for a key.
    :param refit: returns an item (the same one or a new one) set to another key.
    :param wait_s: longest wait for an item (seconds).
    """

    def __init__(self, size: int, build: Callable[[Key], T],
                 refit: Callable[[T, Key], T], wait_s: float) -> None:
        if size < 1:
            raise ValueError(f"a pool needs at least one item, not {size}")
        self.size = size
        self.wait_s = wait_s
        self.built = 0  #: items built so far (never more than ``size`` alive)
        self._build = build
        self._refit = refit
        self._idle: list[_Slot[T]] = []
        self._alive = 0
        self._queue: collections.deque[object] = collections.deque()  #: waiting borrowers
        self._ready = threading.Condition()

    @property
    def lent(self) -> int:
        """Items lent now."""
        with self._ready:
            return self._alive - len(self._idle)

    @contextmanager
    def lend(self, key: Key, owner: object) -> Iterator[tuple[T, bool]]:
        """``with``: ``(item, kept)``, ``kept`` when the item was last lent to ``owner``
        with this key (its state from then is still there); returned on exit.

        :raises PoolBusy: when no item came free within ``wait_s``.
        """
        slot = self._take(key, owner)
        try:
            yield slot.item, slot.owner is owner
        finally:
            slot.owner, slot.used = owner, time.monotonic()
            with self._ready:
                self._idle.append(slot)
                self._ready.notify_all()

    def _take(self, key: Key, owner: object) -> _Slot[T]:
        deadline = time.monotonic() + self.wait_s
        me = object()
        with self._ready:
            # first come, first served: a borrower returning an item and asking again at
            # once (a search thread's next job) must not starve the ones already waiting
            self._queue.append(me)
            try:
                while self._queue[0] is not me or not self._idle and self._alive >= self.size:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise PoolBusy(f"all {self.size} engines are thinking for other "
                                       "games; try again in a moment")
                    self._ready.wait(left)
            finally:
                self._queue.remove(me)
                self._ready.notify_all()
            build_new = not self._idle
            if build_new:
                self._alive += 1
                self.built += 1
            else:
                slot = self._pick(key, owner)
        if build_new:
            try:
                return _Slot(self._build(key), key, None, 0.0)
            except BaseException:
                with self._ready:
                    self._alive -= 1
                    self._ready.notify()
                raise
        if slot.key != key:
            slot.item, slot.key, slot.owner = self._refit(slot.item, key), key, None
        return slot

    def _pick(self, key: Key, owner: object) -> _Slot[T]:
        """Removes and returns the best idle slot (the caller holds the lock)."""
        def rank(slot: _Slot[T]) -> tuple[bool, bool, float]:
            return slot.key == key and slot.owner is owner, slot.key == key, -slot.used
        best = max(self._idle, key=rank)
        self._idle.remove(best)
        return best


def _new_engine(key: Key, hash_mb: float) -> Engine:
    width, height, rule = key
    return Engine(width, height, rule, hash_mb=hash_mb)


class EnginePool:
    """Engines for searches and boards for judging moves, both bounded.

    :param engines: most engines alive (each with a ``hash_mb`` MiB table).
    :param hash_mb: transposition table of each engine (MiB).
    :param wait_s: longest wait for a free engine or board (seconds).
    :raises ValueError: if ``engines`` < 1.
    """

    def __init__(self, engines: int = 1, hash_mb: float = 8.0,
                 wait_s: float = DEFAULT_WAIT_S) -> None:
        self.hash_mb = hash_mb
        self.engines: Lender[Engine] = Lender(
            engines, lambda key: _new_engine(key, hash_mb),
            lambda engine, _key: engine, wait_s)  # :meth:`engine` refits it (new_game)
        #: judging a move takes milliseconds: one board per engine is plenty
        self.boards: Lender[Board] = Lender(
            engines, lambda key: Board(*key), lambda _board, key: Board(*key), wait_s)

    @classmethod
    def for_memory(cls, memory_mb: float, wait_s: float = DEFAULT_WAIT_S) -> EnginePool:
        """The pool of :func:`pool_for_memory` for ``memory_mb`` MiB."""
        size = pool_for_memory(memory_mb)
        return cls(size.engines, size.hash_mb, wait_s)

    @property
    def size(self) -> int:
        """Most engines alive at once."""
        return self.engines.size

    @contextmanager
    def engine(self, key: Key, owner: object) -> Iterator[Engine]:
        """``with``: an engine of ``key``'s size and rule for ``owner``; its transposition
        table is cleared unless ``owner`` had it last.  The caller sets its stones.

        :raises PoolBusy: see :meth:`Lender.lend`.
        """
        with self.engines.lend(key, owner) as (engine, kept):
            if not kept:
                engine.new_game(*key)
            yield engine

    @contextmanager
    def board(self, key: Key) -> Iterator[Board]:
        """``with``: a board of ``key``'s size and rule (any stones: the caller sets them).

        :raises PoolBusy: see :meth:`Lender.lend`.
        """
        with self.boards.lend(key, None) as (board, _kept):
            yield board


__all__ = ["BASE_MB", "DEFAULT_MEMORY_MB", "EnginePool", "Lender", "PoolBusy", "PoolSize",
           "pool_for_memory"]
