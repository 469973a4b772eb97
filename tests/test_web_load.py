"""A small load probe of ``gomoku-engine web`` (the full one, with the server's memory, is
``tools/web_memory.py``, figures in docs/play.md): games created and played at once
through the HTTP API of a real server on 127.0.0.1, its games in a temporary database."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from web_server import call, running_server, weak_points

from gomoku_engine.play.engine_pool import EnginePool

GAMES, PLAYED, MOVES = 60, 8, 3


def play(base: str, game: dict) -> dict:
    for _ in range(MOVES):
        taken = {(m["x"], m["y"]) for m in game["moves"]}
        x, y = next(p for p in weak_points(15) if p not in taken)
        status, game = call(base, "POST", f"api/games/{game['id']}/moves", {"x": x, "y": y})
        assert status == 200, game
    return game


def test_games_created_and_played_at_once_are_all_answered_and_kept(tmp_path) -> None:
    pool = EnginePool(2, hash_mb=1, wait_s=60)  # a wait longer than any level-1/3 search
    with running_server(db=tmp_path / "games.sqlite3", move_ms=300, pool=pool,
                        cache_games=16) as (base, srv):
        def create(n: int) -> dict:
            status, game = call(base, "POST", "api/games",
                                {"level": (1, 3)[n % 2], "human": ("white", "black")[n % 2]})
            assert status == 200, game
            return game
        with ThreadPoolExecutor(PLAYED) as requests:
            games = list(requests.map(create, range(GAMES)))
            played = list(requests.map(lambda g: play(base, g), games[:PLAYED]))
        assert len({g["id"] for g in games}) == GAMES == len(srv.store)
        assert all(len(g["moves"]) in (2 * MOVES, 2 * MOVES + 1) for g in played)
        # none lost: every game as its last answer left it, most read back from the file
        for state in played + games[PLAYED:]:
            status, now = call(base, "GET", f"api/games/{state['id']}")
            assert status == 200 and now["moves"] == state["moves"], state["id"]
        assert pool.engines.built <= 2 and pool.engines.lent == 0
        assert srv.refused.total() == 0
