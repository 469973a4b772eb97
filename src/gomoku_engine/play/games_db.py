"""The web board's games on disk: one SQLite table (the standard library's :mod:`sqlite3`).

Each game is a row: its settings, its stones with the time each took, the engine's
evaluations by ply, its result and its times.  A game is written after every change the
API makes, so a restarted server finds every game where it was.  The database runs in
WAL mode (readers never wait for the writer; a commit is one append to the log) with
``synchronous=NORMAL``: a power cut may lose the last commits, never corrupt the file.

An unfinished game untouched for ``expire_s`` seconds is deleted (:meth:`GameDB.expire`);
a finished game stays, readable, until it is deleted through the API.

The default file is :func:`default_db_path`, in the per-user data folder of the
platform's conventions.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: ``PRAGMA user_version`` of the schema below (a later schema migrates from it).
SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    rule TEXT NOT NULL,            -- freestyle, standard, renju, caro
    level INTEGER NOT NULL,        -- 1..10
    human TEXT NOT NULL,           -- the person's colour: black or white
    opening TEXT NOT NULL,         -- none or lin
    moves TEXT NOT NULL,           -- JSON [[x, y, colour (1 black, 2 white), ms], ...]
    evaluations TEXT NOT NULL,     -- JSON {ply: the engine's analysis of that position}
    result TEXT,                   -- NULL while the game goes on; black, white or draw
    created REAL NOT NULL,         -- Unix time (s)
    updated REAL NOT NULL,         -- Unix time (s) of the last change
    ended REAL                     -- Unix time (s) of the result, else NULL
);
CREATE INDEX IF NOT EXISTS games_unfinished ON games (updated) WHERE result IS NULL;
"""
_COLUMNS = ("id", "size", "rule", "level", "human", "opening", "moves", "evaluations",
            "result", "created", "updated", "ended")
#: Name of the database file in the data folder.
DB_NAME = "games.sqlite3"


def default_db_path() -> Path:
    """The games' file in the per-user data folder: ``$XDG_DATA_HOME/gomoku-engine``
    (``~/.local/share/gomoku-engine`` when unset) on Linux and other Unix systems,
    ``~/Library/Application Support/gomoku-engine`` on macOS, ``%LOCALAPPDATA%\\gomoku-engine``
    on Windows (the XDG Base Directory specification and the platforms' guidelines).
    The folder is not created here."""
    home = Path.home()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        xdg = os.environ.get("XDG_DATA_HOME", "")
        # the specification: a relative path is invalid and must be ignored
        base = Path(xdg) if os.path.isabs(xdg) else home / ".local" / "share"
    return base / "gomoku-engine" / DB_NAME


@dataclass
class GameRecord:
    """One game as stored.  ``moves``: ``(x, y, colour, ms)`` in order (``ms``: the time
    the move took, the engine's search or the person's thought); ``evaluations``: the
    engine's analysis (:meth:`gomoku_engine.play.human.Analysis.as_dict`) of the position
    after ``ply`` stones, by ``ply``; times in Unix seconds."""

    id: str
    size: int
    rule: str
    level: int
    human: str
    opening: str
    moves: list[tuple[int, int, int, int]] = field(default_factory=list)
    evaluations: dict[int, dict[str, Any]] = field(default_factory=dict)
    result: str | None = None
    created: float = 0.0
    updated: float = 0.0
    ended: float | None = None

    def row(self) -> tuple[Any, ...]:
        return (self.id, self.size, self.rule, self.level, self.human, self.opening,
                json.dumps([list(m) for m in self.moves]),
                json.dumps({str(k): v for k, v in self.evaluations.items()}),
                self.result, self.created, self.updated, self.ended)

    @classmethod
    def of_row(cls, row: tuple[Any, ...]) -> GameRecord:
        values = dict(zip(_COLUMNS, row))
        values["moves"] = [tuple(m) for m in json.loads(values["moves"])]
        values["evaluations"] = {int(k): v for k, v in json.loads(values["evaluations"]).items()}
        return cls(**values)


class GameDB:
    """The games' table in one SQLite file (``":memory:"``: a database that lives only as
    long as this object, for tests and tools).  Thread-safe: one connection behind a lock.

    :param path: the database file; its folder is created if missing.
    :raises sqlite3.Error: if the file cannot be opened or is not a database of this
        program.
    """

    def __init__(self, path: str | os.PathLike[str] = ":memory:") -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        # autocommit (isolation_level=None): every statement is its own transaction
        self._db = sqlite3.connect(os.path.expanduser(self.path), check_same_thread=False,
                                   isolation_level=None, timeout=10.0)
        with self._lock:
            if self.path != ":memory:":
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                self._db.close()
                raise sqlite3.DatabaseError(
                    f"{self.path} has schema {version}, newer than this program's "
                    f"{SCHEMA_VERSION}")
            self._db.executescript(_SCHEMA)
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def put(self, record: GameRecord) -> None:
        """Write ``record`` (a new game or a new state of one)."""
        marks = ", ".join("?" * len(_COLUMNS))
        with self._lock:
            self._db.execute(f"INSERT OR REPLACE INTO games ({', '.join(_COLUMNS)}) "
                             f"VALUES ({marks})", record.row())

    def get(self, game_id: str) -> GameRecord | None:
        """The game ``game_id``, or ``None``."""
        with self._lock:
            row = self._db.execute(f"SELECT {', '.join(_COLUMNS)} FROM games WHERE id = ?",
                                   (game_id,)).fetchone()
        return None if row is None else GameRecord.of_row(row)

    def delete(self, game_id: str) -> bool:
        """Delete a game; whether it existed."""
        with self._lock:
            return self._db.execute("DELETE FROM games WHERE id = ?", (game_id,)).rowcount > 0

    def expire(self, before: float) -> list[str]:
        """Delete the unfinished games last changed before ``before`` (Unix s); their ids."""
        with self._lock:
            ids = [r[0] for r in self._db.execute(
                "SELECT id FROM games WHERE result IS NULL AND updated < ?", (before,))]
            self._db.executemany("DELETE FROM games WHERE id = ?", [(i,) for i in ids])
        return ids

    def count(self) -> int:
        """Games stored."""
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()


__all__ = ["DB_NAME", "GameDB", "GameRecord", "SCHEMA_VERSION", "default_db_path"]
