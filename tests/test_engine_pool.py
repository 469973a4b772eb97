"""The engine pool of ``gomoku-engine web``: games borrow engines only while thinking.

No HTTP here: the :class:`Api` object is driven directly.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from web_server import weak_points

from gomoku_engine.core.constants import BLACK, WHITE, Rule
from gomoku_engine.engine import Engine
from gomoku_engine.play import engine_pool
from gomoku_engine.play.engine_pool import (BASE_MB, ENGINE_OVERHEAD_MB, EnginePool,
                                            PoolBusy, pool_for_memory)
from gomoku_engine.play.human import HumanGame
from gomoku_engine.play.web import Api, ApiError, GameStore


class CountingEngine(Engine):
    """An engine that counts its constructions and records the stones of each search."""

    built = 0
    searched: list[tuple[int, int, list]] = []

    def __init__(self, *args, **kwargs) -> None:
        type(self).built += 1
        super().__init__(*args, **kwargs)

    def search(self, limits=None, on_iteration=None):
        type(self).searched.append((self.board.width, self.board.rule, self.board.stones()))
        return super().search(limits, on_iteration)


@pytest.fixture
def counting(monkeypatch):
    monkeypatch.setattr(CountingEngine, "built", 0)
    monkeypatch.setattr(CountingEngine, "searched", [])
    monkeypatch.setattr(engine_pool, "Engine", CountingEngine)
    return CountingEngine


def test_300_games_never_build_more_engines_than_the_pool(counting) -> None:
    store = GameStore(move_ms=200, pool=EnginePool(2, hash_mb=1))
    api = Api(store)
    try:
        with ThreadPoolExecutor(8) as requests:  # games created and played concurrently
            games = list(requests.map(
                lambda n: api.create({"level": 1, "human": "white" if n % 2 else "black"}),
                range(300)))
            assert len(store) == 300 and len({g["id"] for g in games}) == 300

            def play_a_few(state: dict) -> dict:
                for _ in range(3):
                    taken = {(m["x"], m["y"]) for m in state["moves"]}
                    x, y = next(p for p in weak_points(15) if p not in taken)
                    state = api.move(state["id"], {"x": x, "y": y})
                return state
            played = list(requests.map(play_a_few, games[:32]))
        for state in played:
            assert len(state["moves"]) in (6, 7) and state["engine_move"] is not None
        assert counting.built == store.pool.engines.built <= 2
        assert store.pool.engines.lent == 0 and store.pool.boards.built <= 2
    finally:
        store.close()


def test_a_game_borrowing_another_engine_searches_its_own_stones(counting) -> None:
    """One engine for two games of different sizes and rules: every search starts from
    the stones of the game that borrowed it, and every reply is a legal point of it."""
    pool = EnginePool(1, hash_mb=1)
    games = [HumanGame(15, Rule.FREESTYLE, 3, WHITE, move_ms=500, pool=pool),
             HumanGame(9, Rule.RENJU, 3, BLACK, move_ms=500, pool=pool)]
    games[0].start()
    for turn in range(4):
        for game in games:
            point = next(p for p in weak_points(game.width) if game.may_play(*p))
            game.play(*point)
            before = game.stones()
            reply = game.reply()
            width, rule, searched = counting.searched[-1]
            assert (width, rule, searched) == (game.width, game.rule, before)
            assert reply not in [(x, y) for x, y, _ in before]
            assert game.stones() == before + [(*reply, game.computer)]
    assert counting.built == 1 and len(counting.searched) >= 9


def test_exhausted_pool_answers_503_and_changes_nothing() -> None:
    store = GameStore(move_ms=60_000, pool=EnginePool(1, hash_mb=1, wait_s=0.3))
    api = Api(store)
    try:
        busy = api.create({"level": 10, "human": "white"})
        other = api.create({"level": 3, "human": "black"})
        mover = threading.Thread(target=api.move, args=(busy["id"], {"x": 8, "y": 8}))
        mover.start()
        deadline = time.monotonic() + 60
        while store.pool.engines.lent == 0 or not store.get(busy["id"]).thinking:
            assert time.monotonic() < deadline, "the engine never started thinking"
            time.sleep(0.002)
        began = time.monotonic()
        for action in (lambda: api.move(other["id"], {"x": 3, "y": 3}),
                       lambda: api.hint(other["id"], {}),
                       lambda: api.create({"level": 3, "human": "white"})):
            with pytest.raises(ApiError) as err:
                action()
            assert err.value.status == 503 and "engines are thinking" in str(err.value)
        assert time.monotonic() - began < 30  # bounded waits, not the 60 s search
        assert api.show(other["id"])["moves"] == []  # the refused move was taken back
        assert len(store) == 2  # the game whose first move could not be played is gone
        store.get(busy["id"]).stop()
        mover.join(60)
        assert len(api.show(busy["id"])["moves"]) == 3
        state = api.move(other["id"], {"x": 3, "y": 3})  # the engine is free again
        assert len(state["moves"]) == 2
    finally:
        store.close()


def test_lender_waits_for_a_returned_item_and_gives_up_in_time() -> None:
    lender = engine_pool.Lender(1, lambda key: object(), lambda item, key: item, wait_s=0.05)
    key = (15, 15, Rule.FREESTYLE)
    with lender.lend(key, "a") as (first, kept):
        assert not kept
        with pytest.raises(PoolBusy), lender.lend(key, "b"):
            pass
    lender.wait_s = 30
    got: list = []

    def borrow() -> None:
        with lender.lend(key, "b") as (item, kept):
            got.append((item, kept))
    with lender.lend(key, "a") as (again, kept):
        assert again is first and kept  # the same owner gets its item back
        waiter = threading.Thread(target=borrow)
        waiter.start()
        time.sleep(0.1)
        assert got == []  # waits while the only item is lent
    waiter.join(30)
    assert got == [(first, False)] and lender.built == 1 and lender.lent == 0


@pytest.mark.parametrize("memory_mb", [64, 256, 300, 320, 400, 512, 700, 1024, 4096])
def test_pool_size_fits_the_memory_setting(memory_mb: int) -> None:
    size = pool_for_memory(memory_mb)
    assert 1 <= size.engines <= engine_pool.MAX_ENGINES and size.hash_mb >= 1
    assert size.hash_mb & (size.hash_mb - 1) == 0  # a power of two
    if memory_mb >= BASE_MB + ENGINE_OVERHEAD_MB + 1:
        assert BASE_MB + size.engines * (size.hash_mb + ENGINE_OVERHEAD_MB) <= memory_mb
    bigger = pool_for_memory(memory_mb * 2)
    assert bigger.engines * bigger.hash_mb >= size.engines * size.hash_mb
    assert pool_for_memory(512) == engine_pool.PoolSize(4, 32)
