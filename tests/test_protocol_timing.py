"""The first moves on time: what the protocol loop does outside the moves.

A manager writes ``INFO`` lines and the move after them at once (c-gomoku-cli and
Piskvork send ``INFO max_memory`` after ``START``'s ``OK``, then the move), and the move's
clock runs from its arrival.  So nothing an ``INFO`` line starts may hold the command
thread while a move waits behind it: not the transposition table ``INFO max_memory`` asks
for (120-290 ms to write 120 MiB; docs/startup.md), not the engine's build in the kernel
loader's thread.  The loop here runs in this process on pipes, with an engine whose table
or build is made slow on purpose, so that a move that paid for either would be late by far
more than any load could explain.
"""

from __future__ import annotations

import os
import re
import threading
import time

import pytest

from gomoku_engine.core.constants import Rule
from gomoku_engine.engine import Engine
from gomoku_engine.kernels import warmup
from gomoku_engine.protocol import kernel_loader
from gomoku_engine.protocol import loop as loop_module
from gomoku_engine.protocol.loop import MEMORY_RESERVE_MB, TABLE_GRACE_S, ProtocolLoop
from gomoku_engine.protocol.held_settings import TABLE_IDLE_MIN_TURN_MS

#: how long the slow parts take, s: far above the moves' own times asserted below
SLOW_S = 1.0
_TM = re.compile(r"MESSAGE depth .* tm (\d+) pv")


class SlowTable(Engine):
    """An engine whose table resizes take SLOW_S more, each noted in ``resized`` as
    ``(perf_counter at its end, MiB)``."""

    def __init__(self, *args, resized: list[tuple[float, float]], **kwargs) -> None:
        self.resized = resized
        super().__init__(*args, **kwargs)

    def set_hash_size(self, megabytes: float) -> None:
        slow = megabytes != self.hash_mb
        if slow:
            time.sleep(SLOW_S)
        super().set_hash_size(megabytes)
        if slow:
            self.resized.append((time.perf_counter(), megabytes))


class PipeLoop:
    """A protocol loop in a thread of this process, fed and read through OS pipes."""

    def __init__(self, **kwargs) -> None:
        in_read, self._in = os.pipe()
        out_read, out_write = os.pipe()
        self.loop = ProtocolLoop(os.fdopen(in_read, "rb", buffering=0),
                                 os.fdopen(out_write, "wb", buffering=0), **kwargs)
        self._out = os.fdopen(out_read, "rb")
        self.lines: list[tuple[float, str]] = []
        self._new = threading.Condition()
        threading.Thread(target=self.loop.run, daemon=True).start()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for raw in self._out:
            with self._new:
                self.lines.append((time.perf_counter(), raw.decode().strip()))
                self._new.notify_all()

    def send(self, text: str) -> float:
        """Write ``text`` at once (one write: the lines arrive together); its time."""
        os.write(self._in, text.encode())
        return time.perf_counter()

    def reply(self, start: int, timeout: float = 30.0) -> tuple[float, str]:
        """The first line from index ``start`` that is not a MESSAGE: ``(time, text)``."""
        deadline = time.monotonic() + timeout
        with self._new:
            while True:
                for at, text in self.lines[start:]:
                    if not text.startswith(("MESSAGE", "ERROR")):
                        return at, text
                left = deadline - time.monotonic()
                assert left > 0, self.lines
                self._new.wait(left)

    def close(self) -> None:
        os.write(self._in, b"END\n")
        os.close(self._in)


@pytest.fixture(scope="module", autouse=True)
def kernels_loaded():
    """The core kernels loaded in this process first (the loops here load none in the
    background), so that no timed move below loads one."""
    warmup()


@pytest.fixture
def slow_table():
    resized: list[tuple[float, float]] = []
    pipes = PipeLoop(engine_factory=lambda w, h: SlowTable(w, h, hash_mb=1, resized=resized),
                     warm_up=False)
    pipes.resized = resized
    yield pipes
    pipes.close()


def wait_for(resized: list, count: int = 1) -> None:
    deadline = time.monotonic() + 10
    while len(resized) < count and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(resized) >= count, "the table was never resized"


def test_the_first_move_after_info_max_memory_does_not_pay_for_the_table(slow_table):
    """``INFO max_memory`` and the move in one write after ``OK``: the move is answered
    with the table it had (its time well under SLOW_S), and the table asked for is written
    after it, at the next idle point.  (Resized at the INFO line, the move took SLOW_S
    more: 123-292 ms with a real 120 MiB table.)"""
    pipes = slow_table
    pipes.send("START 15\nINFO max_depth 2\n")
    assert pipes.reply(0)[1] == "OK"  # the engine is built with its own table (1 MiB)
    mark = len(pipes.lines)
    sent = pipes.send(f"INFO timeout_turn {TABLE_IDLE_MIN_TURN_MS}\nINFO max_memory {300 << 20}"
                      "\nTURN 7,7\n")
    answered, move = pipes.reply(mark)
    assert re.fullmatch(r"\d+,\d+", move), pipes.lines
    assert answered - sent < 0.6 * SLOW_S, pipes.lines  # the turn, not the table
    # ... and the table comes at the next idle point, before the next move
    wait_for(pipes.resized)
    done, mib = pipes.resized[0]
    assert done > answered and mib == 300 - MEMORY_RESERVE_MB
    assert pipes.loop._engines.engine.hash_mb == mib


def test_at_short_turns_a_larger_table_waits_for_the_next_start(slow_table):
    """At a turn under TABLE_IDLE_MIN_TURN_MS the opponent's move comes back before the
    write would end: a larger table is not written at an idle point in the game but before
    the next START's OK."""
    pipes = slow_table
    pipes.send("START 15\nINFO max_depth 2\n")
    assert pipes.reply(0)[1] == "OK"
    mark = len(pipes.lines)
    pipes.send(f"INFO timeout_turn 200\nINFO max_memory {300 << 20}\nTURN 7,7\n")
    pipes.reply(mark)
    time.sleep(TABLE_GRACE_S + 0.3)  # idle: long past the grace
    assert pipes.resized == [] and pipes.loop._engines.engine.hash_mb == 1
    mark = len(pipes.lines)
    pipes.send("START 15\n")
    ok_at, ok = pipes.reply(mark)
    assert ok == "OK" and [mib for _, mib in pipes.resized] == [300 - MEMORY_RESERVE_MB]
    assert pipes.resized[0][0] <= ok_at


def test_a_table_asked_for_alone_is_written_at_once(slow_table):
    """``INFO max_memory`` with nothing after it: written within TABLE_GRACE_S of the
    line (the idle point comes at once), so that a move sent later finds it ready."""
    pipes = slow_table
    pipes.send("START 15\n")
    pipes.reply(0)
    sent = pipes.send(f"INFO max_memory {300 << 20}\n")
    wait_for(pipes.resized)
    assert pipes.resized[0][0] - sent < SLOW_S + TABLE_GRACE_S + 0.5
    mark = len(pipes.lines)
    sent = pipes.send("INFO timeout_turn 1000\nBEGIN\n")
    answered, move = pipes.reply(mark)
    assert move == "7,7" and answered - sent < 0.5 and len(pipes.resized) == 1


def test_info_lines_sent_with_start_size_the_table_before_ok(slow_table):
    """The referee's way (START and its INFO lines in one write, the move on OK): the
    table is written before OK, and the first move does not wait for it."""
    pipes = slow_table
    sent = pipes.send(f"START 15\nINFO max_memory {300 << 20}\nINFO timeout_turn 1000\n")
    ok_at, ok = pipes.reply(0)
    assert ok == "OK" and pipes.resized and pipes.resized[0][0] <= ok_at
    assert ok_at - sent >= SLOW_S
    mark = len(pipes.lines)
    sent = pipes.send("TURN 7,7\n")
    answered, _ = pipes.reply(mark)
    assert answered - sent < 1.0 and len(pipes.resized) == 1


class SlowBuild(Engine):
    """An engine that takes SLOW_S to build; ``building`` is set when a build begins."""

    building = threading.Event()

    def __init__(self, *args, **kwargs) -> None:
        SlowBuild.building.set()
        time.sleep(SLOW_S)
        super().__init__(*args, **kwargs)


def test_info_during_the_engines_build_does_not_hold_up_the_move(monkeypatch):
    """``OK`` came before the kernels (START's wait ran out), and the kernel loader's
    thread is building the engine when ``INFO rule`` and the move arrive: the move does
    not wait for the build past its hard budget less KERNEL_FREE_MS (it gets the
    kernel-free move), and the engine gets the rule once built.  (Applied at the INFO
    line, the settings waited for the whole build, and the move with them.)"""
    real_warmup = kernel_loader.warmup

    def late_warmup(groups):  # the core is in only after START's OK
        time.sleep(0.3)
        return real_warmup(groups)

    monkeypatch.setattr(kernel_loader, "warmup", late_warmup)
    monkeypatch.setattr(loop_module, "START_WAIT_S", 0.0)
    SlowBuild.building.clear()
    pipes = PipeLoop(engine_factory=lambda w, h: SlowBuild(w, h, hash_mb=1), warm_up=True)
    try:
        pipes.send("START 15\n")
        assert pipes.reply(0)[1] == "OK"
        assert SlowBuild.building.wait(300)  # (a cold cache compiles first)
        mark = len(pipes.lines)
        sent = pipes.send("INFO timeout_turn 1000\nINFO rule 1\nTURN 7,7\n")
        answered, move = pipes.reply(mark)
        assert re.fullmatch(r"\d+,\d+", move), pipes.lines
        assert answered - sent < 0.87, pipes.lines  # the turn less its margin
        assert any(text.startswith("MESSAGE kernels still loading") for _, text in
                   pipes.lines[mark:]), pipes.lines
        holder = pipes.loop._engines
        assert holder.loader.wait(("core",), 60) and holder.engine is not None
        assert holder.engine.board.rule == Rule.STANDARD  # INFO rule reached it
    finally:
        pipes.close()
