"""Lazy SMP: helper threads share the transposition table and never change the answer's
legality, the board, or a node-limited search."""

from __future__ import annotations

import threading

from gomoku_engine.engine import MAX_THREADS, Engine, Limits
from gomoku_engine.search.alphabeta import NODES

from helpers import engine_after

MIDGAME = "j12o10m10m12o12l9o7k7j7n6j13l11j9j11j8j6l8k8k9k6"  # bench "15 midgame A"


def _helpers_alive() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("search-helper")]


def test_helpers_search_beside_the_main_thread_and_stop_with_it():
    engine = engine_after(MIDGAME)
    engine.set_threads(2)
    stones = engine.board.stones()
    result = engine.search(Limits(depth=7))
    assert engine.board.stones() == stones
    assert engine.board.is_legal(*result.move)
    assert _helpers_alive() == []  # joined before the move is returned
    helper_ss, _ = engine._helpers._states[0]
    helper_nodes = int(helper_ss.counters[NODES])
    assert helper_nodes > 0 and result.nodes > helper_nodes  # both threads searched, counted
    assert helper_ss.tt is engine._state.tt  # one shared table
    assert helper_ss.history is not engine._state.history


def test_a_time_limit_stops_every_thread():
    engine = engine_after(MIDGAME)
    engine.set_threads(3)
    result = engine.search(Limits(soft_ms=150, hard_ms=200))
    assert engine.board.is_legal(*result.move)
    assert result.time_ms < 1000  # the budget plus scheduling, far from the hard limit x5
    assert _helpers_alive() == []


def test_a_node_limited_search_keeps_one_thread_and_its_exact_tree():
    one = engine_after(MIDGAME).search(Limits(nodes=20_000))
    engine = engine_after(MIDGAME)
    engine.set_threads(2)
    two = engine.search(Limits(nodes=20_000))
    assert (two.move, two.nodes, two.score, two.depth) == (one.move, one.nodes, one.score,
                                                            one.depth)


def test_thread_count_is_clamped_and_a_new_table_gets_new_helpers():
    engine = Engine(15)
    engine.set_threads(0)
    assert engine.threads == 1
    engine.set_threads(10_000)
    assert engine.threads == MAX_THREADS
    engine.set_threads(2)
    engine.board.play(7, 7)
    engine.search(Limits(depth=3))
    old = engine._helpers._states[0][0]
    engine.set_hash_size(8)
    engine.search(Limits(depth=3))
    assert engine._helpers._states[0][0].tt is engine._state.tt is not old.tt


def test_thread_count_from_the_protocol_and_the_command_line(monkeypatch):
    """``INFO thread_num`` sets the engine's threads (clamped); ``--threads`` is the value
    until INFO changes it."""
    import io

    from click.testing import CliRunner

    from gomoku_engine.cli import main
    from gomoku_engine.protocol.loop import ProtocolLoop

    def threads_after(commands: str, **kwargs) -> int:
        loop = ProtocolLoop(io.BytesIO(commands.encode()), io.BytesIO(), warm_up=False,
                            **kwargs)
        loop.run()
        return loop._engines.engine.threads

    assert threads_after("START 15\n") == 1
    assert threads_after("INFO thread_num 2\nSTART 15\n") == 2
    assert threads_after("START 15\nINFO thread_num 3\nINFO thread_num -5\n") == 1
    assert threads_after("START 15\nINFO thread_num 1000\n") == MAX_THREADS
    assert threads_after("START 15\n", threads=2) == 2
    assert threads_after("START 15\nINFO thread_num 1\n", threads=2) == 1
    seen = {}
    monkeypatch.setattr("gomoku_engine.protocol.stdio.serve",
                        lambda *args, **kwargs: seen.setdefault("args", args))
    result = CliRunner().invoke(main, ["serve", "--threads", "2"])
    assert result.exit_code == 0, result.output
    assert seen["args"][4] == 2  # level, algorithm, seed, max_depth, threads
