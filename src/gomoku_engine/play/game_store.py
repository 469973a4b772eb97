"""The web board's games: every game in the database, the ones in use in memory.

A :class:`GameStore` writes each game to its :class:`~gomoku_engine.play.games_db.GameDB`
after every change and keeps the :class:`~gomoku_engine.play.human.HumanGame` objects of
recently used games in memory (a few kilobytes each; one game is one object, so its lock
serialises the requests that change it).  A game no longer in memory is rebuilt from its
row when asked for: nothing but the database decides whether a game exists, so no number
of other games and no restart loses one.  Memory is bounded by the engine pool
(:class:`~gomoku_engine.play.engine_pool.EnginePool`), which the games borrow from only
while the engine thinks, and by ``cache_games``.

An unfinished game untouched for ``expire_s`` seconds is deleted; a finished one stays.
"""

from __future__ import annotations

import collections
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..core.constants import RULE_NAMES
from ..core.errors import GomokuError
from .engine_pool import DEFAULT_MEMORY_MB, EnginePool, PoolBusy
from .games_db import GameDB, GameRecord
from .human import COLOURS, COLOUR_NAMES, DEFAULT_MOVE_MS, HumanGame

#: An unfinished game untouched this long is deleted (seconds): a day.
DEFAULT_EXPIRE_S = 24 * 3600.0
#: Games kept in memory besides those in use (each a few kilobytes).
DEFAULT_CACHE_GAMES = 256
#: Expired games are looked for at most this often (seconds).
EXPIRE_EVERY_S = 60.0


class ApiError(Exception):
    """An error answer: HTTP ``status`` and the text of ``{"error": ...}``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class _Live:
    game: HumanGame
    record: GameRecord
    users: int = 0  #: requests holding the game now (it stays in memory meanwhile)


class GameStore:
    """Every game, by id, and the thread pool that runs their engines' searches.

    :param db: the games' database, or its file (``":memory:"``: kept in this process).
    :param expire_s: an unfinished game untouched this long (seconds) is deleted.
    :param move_ms: the engine's per-move time limit (ms).
    :param workers: threads running searches (default: the number of cores).
    :param memory_mb: the memory setting (MiB) that sizes the engine pool
        (:func:`gomoku_engine.play.engine_pool.pool_for_memory`).
    :param pool: the engines to lend (default: the pool for ``memory_mb``).
    :param cache_games: games kept in memory when not in use.
    """

    def __init__(self, db: GameDB | str | os.PathLike[str] = ":memory:",
                 expire_s: float = DEFAULT_EXPIRE_S, move_ms: float = DEFAULT_MOVE_MS,
                 workers: int | None = None, memory_mb: float = DEFAULT_MEMORY_MB,
                 pool: EnginePool | None = None,
                 cache_games: int = DEFAULT_CACHE_GAMES) -> None:
        self.db = db if isinstance(db, GameDB) else GameDB(db)
        self.pool = EnginePool.for_memory(memory_mb) if pool is None else pool
        self.expire_s = expire_s
        self.move_ms = move_ms
        self.cache_games = cache_games
        self._live: collections.OrderedDict[str, _Live] = collections.OrderedDict()
        self._lock = threading.Lock()
        self._expired_at = 0.0
        self._threads = ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 2,
                                           thread_name_prefix="engine")
        self.expire()

    def __len__(self) -> int:
        """Games stored (finished ones included)."""
        return self.db.count()

    @property
    def in_memory(self) -> int:
        with self._lock:
            return len(self._live)

    # --- games ---------------------------------------------------------------------------
    def new_game(self, size: int, rule: str, level: int, human: str, opening: str) -> HumanGame:
        """A game with these settings (API names), sharing the store's engines."""
        return HumanGame(size, RULE_NAMES[rule], level, COLOURS[human], move_ms=self.move_ms,
                         seed=secrets.randbits(32), opening_rule=opening, pool=self.pool)

    def add(self, game: HumanGame) -> str:
        """Keep ``game`` (in memory; written by the first :meth:`save`) under a new id."""
        self.expire(every_s=EXPIRE_EVERY_S)
        now = time.time()
        game_id = secrets.token_urlsafe(9)
        record = GameRecord(game_id, game.width, game.rule.name.lower(), game.level,
                            COLOUR_NAMES[game.human], game.opening_rule, created=now,
                            updated=now)
        with self._lock:
            self._live[game_id] = _Live(game, record)
            self._trim()
        return game_id

    @contextmanager
    def use(self, game_id: str) -> Iterator[HumanGame]:
        """``with``: the game ``game_id``, kept in memory until the block ends.

        :raises ApiError: 404 for an unknown or expired game.
        """
        live = self._acquire(game_id)
        try:
            yield live.game
        finally:
            with self._lock:
                live.users -= 1
                self._trim()

    def get(self, game_id: str) -> HumanGame:
        """The game ``game_id`` (for a caller that does not change it through the API).

        :raises ApiError: 404 for an unknown or expired game.
        """
        with self.use(game_id) as game:
            return game

    def record(self, game_id: str) -> GameRecord:
        """The stored record of a game: its moves' times and the engine's evaluations.

        :raises ApiError: 404 for an unknown or expired game.
        """
        with self._lock:
            live = self._live.get(game_id)
            if live is not None:
                return live.record
        record = self.db.get(game_id)
        if record is None or self._expired(record):
            raise ApiError(404, self._unknown(game_id))
        return record

    def save(self, game_id: str, evaluation: tuple[int, dict[str, Any]] | None = None) -> None:
        """Write the game's state now (and the engine's evaluation ``(ply, analysis)``).

        A new stone's time is its search's (an engine move with its evaluation) or the
        time since the game's last change (the person's move).  Evaluations of positions
        past the last stone (taken back) are dropped.
        """
        with self._lock:
            live = self._live.get(game_id)
        if live is None:
            return
        game, record, now = live.game, live.record, time.time()
        view = game.view()
        kept = 0
        for old, new in zip(record.moves, view.stones):
            if old[:3] != new:
                break
            kept += 1
        evaluations = {ply: e for ply, e in record.evaluations.items() if ply <= len(view.stones)}
        if evaluation is not None:
            evaluations[evaluation[0]] = evaluation[1]
        moves = list(record.moves[:kept])
        for ply in range(kept, len(view.stones)):
            x, y, colour = view.stones[ply]
            found = evaluations.get(ply)
            if colour == game.computer and found and found["side"] == COLOUR_NAMES[colour]:
                ms = int(found["time_ms"])
            else:
                ms = int(max(0.0, now - record.updated) * 1000)
            moves.append((x, y, colour, ms))
        record.moves, record.evaluations, record.updated = moves, evaluations, now
        if view.result != record.result:
            record.result, record.ended = view.result, now if view.result else None
        self.db.put(record)

    def drop(self, game_id: str) -> None:
        """Delete a game.  :raises ApiError: 404 for an unknown game."""
        with self._lock:
            live = self._live.pop(game_id, None)
        found = self.db.delete(game_id)
        if live is None and not found:
            raise ApiError(404, self._unknown(game_id))
        if live is not None:
            live.game.stop()

    def expire(self, every_s: float = 0.0) -> int:
        """Delete the unfinished games idle for ``expire_s``; how many.  With ``every_s``,
        does nothing if it looked less than ``every_s`` seconds ago."""
        now = time.time()
        if now - self._expired_at < every_s:
            return 0
        self._expired_at = now
        ids = self.db.expire(now - self.expire_s)
        with self._lock:
            for game_id in ids:
                live = self._live.get(game_id)
                if live is not None and live.users == 0:
                    del self._live[game_id]
        return len(ids)

    # --- searches ------------------------------------------------------------------------
    def think(self, job: Callable[[], Any]) -> Any:
        """Run ``job`` (an engine search) in the thread pool and wait for its result.

        :raises ApiError: 503 when no engine came free in time (``job`` raised
            :class:`PoolBusy`).
        """
        try:
            return self._threads.submit(job).result()
        except PoolBusy as exc:
            raise ApiError(503, str(exc)) from None

    def close(self) -> None:
        """Stop every running search and the thread pool, and close the database."""
        with self._lock:
            games = [live.game for live in self._live.values()]
            self._live.clear()
        for game in games:
            game.stop()
        self._threads.shutdown(wait=True, cancel_futures=True)
        self.db.close()

    # --- helpers -------------------------------------------------------------------------
    def _unknown(self, game_id: str) -> str:
        hours = self.expire_s / 3600
        return (f"no game {game_id!r} (unknown, deleted, or unfinished and untouched for "
                f"{hours:g} h)")

    def _expired(self, record: GameRecord) -> bool:
        return record.result is None and time.time() - record.updated > self.expire_s

    def _acquire(self, game_id: str) -> _Live:
        with self._lock:
            live = self._live.get(game_id)
            if live is not None:
                if self._expired(live.record) and live.users == 0:
                    del self._live[game_id]
                    self.db.delete(game_id)
                    raise ApiError(404, self._unknown(game_id))
                live.users += 1
                self._live.move_to_end(game_id)
                return live
        record = self.db.get(game_id)  # outside the lock: other games go on meanwhile
        if record is None or self._expired(record):
            if record is not None:
                self.db.delete(game_id)
            raise ApiError(404, self._unknown(game_id))
        game = self.new_game(record.size, record.rule, record.level, record.human,
                             record.opening)
        try:
            game.set_stones([m[:3] for m in record.moves])
        except (GomokuError, PoolBusy) as exc:
            raise ApiError(503 if isinstance(exc, PoolBusy) else 500,
                           f"game {game_id!r} cannot be loaded: {exc}") from None
        with self._lock:
            live = self._live.get(game_id)  # another request may have loaded it meanwhile
            if live is None:
                live = self._live[game_id] = _Live(game, record)
            live.users += 1
            self._live.move_to_end(game_id)
            return live

    def _trim(self) -> None:
        """Forget the least recently used games not in use beyond ``cache_games`` (they
        stay in the database).  The caller holds the lock."""
        excess = len(self._live) - self.cache_games
        for game_id in list(self._live):
            if excess <= 0:
                break
            live = self._live[game_id]
            # a locked game is being changed (a new one before its first save among them)
            if live.users == 0 and not live.game.lock.locked():
                del self._live[game_id]
                excess -= 1


__all__ = ["ApiError", "DEFAULT_CACHE_GAMES", "DEFAULT_EXPIRE_S", "GameStore"]
