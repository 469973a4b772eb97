"""The web board's games on disk (``play/games_db.py``): the file's place, its mode, its
rows, expiry, and a file of a newer schema refused."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from gomoku_engine.play.games_db import GameDB, GameRecord, SCHEMA_VERSION, default_db_path


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="the XDG folders of Linux")
def test_the_default_file_follows_the_xdg_base_directory_specification(monkeypatch,
                                                                      tmp_path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_db_path() == tmp_path / "data" / "gomoku-engine" / "games.sqlite3"
    for unset in ("", "relative/data"):  # the specification: empty or relative is ignored
        monkeypatch.setenv("XDG_DATA_HOME", unset)
        assert default_db_path() == tmp_path / ".local" / "share" / "gomoku-engine" / \
            "games.sqlite3"
    assert not (tmp_path / ".local").exists()  # the path only: nothing is created


def record(game_id: str, result: str | None, updated: float) -> GameRecord:
    return GameRecord(game_id, 15, "renju", 5, "black", "none",
                      moves=[(7, 7, 1, 12), (8, 8, 2, 3400)],
                      evaluations={1: {"side": "white", "win_rate": 0.4, "pv": []}},
                      result=result, created=updated - 10, updated=updated,
                      ended=updated if result else None)


def test_rows_round_trip_and_only_idle_unfinished_games_expire(tmp_path) -> None:
    path = tmp_path / "sub" / "games.sqlite3"  # the folder is created
    db = GameDB(path)
    try:
        assert db._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        games = [record("old", None, 1000.0), record("old-won", "white", 1000.0),
                 record("new", None, 5000.0)]
        for game in games:
            db.put(game)
        assert db.get("old") == games[0] and db.get("nothing") is None
        assert db.expire(before=2000.0) == ["old"]
        assert db.get("old") is None and db.get("old-won") == games[1]
        assert db.count() == 2 and db.delete("new") and not db.delete("new")
    finally:
        db.close()
    reopened = GameDB(path)  # another process later: the same rows
    try:
        assert reopened.get("old-won") == games[1]
    finally:
        reopened.close()


def test_a_file_of_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with sqlite3.connect(path) as connection:
        connection.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    connection.close()
    with pytest.raises(sqlite3.DatabaseError, match="newer than this program"):
        GameDB(path)


def test_the_web_command_says_when_its_file_cannot_be_opened(tmp_path) -> None:
    from click.testing import CliRunner

    from gomoku_engine.cli import main

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    result = CliRunner().invoke(main, ["web", "--no-open", "--port", "0",
                                       "--db", str(blocker / "games.sqlite3")])
    assert result.exit_code == 1 and "cannot open the games' database" in result.output
    not_a_db = tmp_path / "notes.txt"
    not_a_db.write_text("x" * 4096)
    result = CliRunner().invoke(main, ["web", "--no-open", "--port", "0", "--db", str(not_a_db)])
    assert result.exit_code == 1 and "cannot open the games' database" in result.output
    assert not_a_db.read_text() == "x" * 4096  # left as it was
