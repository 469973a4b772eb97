"""Time limits and settings through the protocol, judged by the engine's own accounting.

The engine times each move from the moment its reader thread got the command to the end
of the search, and prints it as ``tm`` in the ``MESSAGE depth ...`` summary before the
move.  That interval is the one the engine controls (it stops its search by a deadline
inside it); scheduling and pipe latency outside it are what the safety margin of
:mod:`gomoku_engine.search.timeman` is for, and they are measured by the lateness soak
(``scripts/lateness_soak.py``, figures in ``docs/testing.md``), not asserted here, since
they change with the machine's load.  The limits asserted below are the manager's own
(the turn, a share of the time left), which leave the engine's margin as slack: an
engine that overran its turn would fail, load would not make a correct one fail.

Also here: ``INFO time_increment``, ``INFO max_memory`` and ``INFO hash_size`` (the hash
size), TAKEBACK under renju against a recomputation, and swap1 (``INFO rule 5``) through the protocol.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np

from gomoku_engine.core.constants import BLACK, Rule
from gomoku_engine.protocol.loop import MEMORY_RESERVE_MB, ProtocolLoop
from gomoku_engine.protocol.settings import MAX_HASH_MB

from helpers import (MOVE, WARM_TIMEOUT, LiveEngine, board_with, check_against_reference,
                     run_session, split_output)
from helpers import live  # noqa: F401 (a fixture)

_TM = re.compile(r"MESSAGE depth .* tm (\d+) pv")
#: Quiet positions (nobody has a three, so a search runs until its time is up), as BOARD
#: commands: the same four stones in three orientations
QUIET = [((7, 7), (8, 8), (8, 7), (6, 8)), ((7, 7), (6, 6), (6, 7), (8, 6)),
         ((7, 7), (8, 6), (7, 8), (6, 6))]
BOARDS = ["BOARD\n" + "".join(f"{x},{y},{1 + i % 2}\n" for i, (x, y) in enumerate(q)) + "DONE\n"
          for q in QUIET]


def timed_moves(engine: LiveEngine, commands: list[str]) -> list[tuple[tuple[int, int], int]]:
    """Send each command (a BOARD and the INFO lines before it), wait for the move; return
    each move with the engine's own time for it (``tm`` of its summary, ms)."""
    results = []
    for command in commands:
        start = engine.mark()
        engine.send(command)
        _, line = engine.wait_line(lambda text: not text.startswith("MESSAGE"), timeout=60,
                                   start=start)
        assert MOVE.fullmatch(line), line
        summaries = [_TM.match(raw) for _, raw in engine.lines[start:]]
        times = [int(m.group(1)) for m in summaries if m]
        assert len(times) == 1, engine.lines[start:]
        results.append((tuple(int(v) for v in line.split(",")), times[0]))
    return results


def started(live, *settings: str) -> LiveEngine:
    """A live engine after START 15 and ``settings``, its kernels warm (BEGIN answered)."""
    engine = live()
    engine.send("START 15\n" + "".join(f"{line}\n" for line in settings) + "BEGIN\n")
    engine.wait_line(lambda line: line == "7,7", timeout=WARM_TIMEOUT)
    return engine


def test_moves_end_within_the_turn(live):
    engine = started(live, "INFO timeout_turn 1000")
    moves = timed_moves(engine, BOARDS)
    times = [tm for _, tm in moves]
    print("engine times (ms):", times)
    assert all(tm <= 1000 for tm in times), times
    assert max(times) >= 250, times  # the turn time was used: the limit was what stopped it


def test_moves_end_within_a_share_of_the_match_time_left(live):
    """With 2 s left of a 100 s game and a 30 s turn, the engine's cap is a seventh of the
    time left less the clock's reserve (5 s here, more than is left: the least budget,
    search/timeman.py); the manager's limit would be the whole 2 s."""
    engine = started(live, "INFO timeout_turn 30000", "INFO timeout_match 100000")
    moves = timed_moves(engine, [f"INFO time_left 2000\n{board}" for board in BOARDS])
    times = [tm for _, tm in moves]
    print("engine times (ms):", times)
    assert all(tm <= 500 for tm in times), times


def run_loop(commands: str, **kwargs) -> tuple[ProtocolLoop, list[str]]:
    """An in-process protocol session over ``commands``; the loop and its output lines."""
    out = io.BytesIO()
    loop = ProtocolLoop(io.BytesIO(commands.encode()), out, warm_up=False, **kwargs)
    loop.run()
    return loop, out.getvalue().decode().splitlines()


def test_time_increment_is_parsed_and_added_to_the_time_left():
    loop, lines = run_loop("START 15\nINFO timeout_match 100000\nINFO time_left 5000\n"
                           "INFO time_increment 700\nBEGIN\n")
    assert lines[-1] == "7,7"
    tm = int(re.search(r" tm (\d+) ", lines[-2]).group(1))
    time = loop._settings.time
    assert time.increment_ms == 700
    # after the move: 5000 + 700 less the move's time (the summary rounds, the clock floors)
    assert abs(time.left_ms - (5700 - tm)) <= 1, (time.left_ms, tm)


def table_mib(loop: ProtocolLoop) -> float:
    return loop._engines.engine._state.tt.nbytes / 2**20


def test_max_memory_sets_the_hash_size():
    """INFO max_memory (bytes) leaves MEMORY_RESERVE_MB for the process and gives the rest,
    at most 256 MiB, to the hash table: before or after START."""
    for info, mib in ((350 << 20, 350 - MEMORY_RESERVE_MB), (240 << 20, 240 - MEMORY_RESERVE_MB),
                      (2 << 30, 256)):
        for commands in (f"INFO max_memory {info}\nSTART 15\n",
                         f"START 15\nINFO max_memory {info}\n"):
            loop, lines = run_loop(commands)
            assert lines == ["OK"]
            assert loop._engines.engine.hash_mb == mib
            assert mib / 2 < table_mib(loop) <= mib, (info, table_mib(loop))
    loop, _ = run_loop("START 15\n")
    default = loop._engines.engine.hash_mb
    loop, _ = run_loop("INFO max_memory 0\nSTART 15\n")  # 0: no limit
    assert loop._engines.engine.hash_mb == default


class _TableAtOk(io.BytesIO):
    """Output that notes the engine's table size (MiB, None: no engine) when OK is written."""

    def __init__(self) -> None:
        super().__init__()
        self.loop: ProtocolLoop | None = None
        self.at_ok: list[float | None] = []

    def write(self, data) -> int:
        if bytes(data).startswith(b"OK") and self.loop is not None:
            engine = self.loop._engines.engine
            self.at_ok.append(None if engine is None else table_mib(self.loop))
        return super().write(data)


def test_info_lines_sent_with_start_size_the_table_before_ok():
    """A referee writes START with its INFO lines and asks for the first move on OK: the
    table INFO max_memory asks for is built before OK, not charged to the first move."""
    mib = 350 - MEMORY_RESERVE_MB
    out = _TableAtOk()
    loop = ProtocolLoop(io.BytesIO(f"START 15\nINFO max_memory {350 << 20}\nINFO rule 1\n"
                                   "INFO hash_size nine\nBEGIN\n".encode()), out, warm_up=False)
    out.loop = loop
    loop.run()
    lines = out.getvalue().decode().splitlines()
    assert len(out.at_ok) == 1 and out.at_ok[0] is not None
    assert mib / 2 < out.at_ok[0] <= mib, out.at_ok
    assert loop._engines.engine.board.rule == Rule.STANDARD  # every INFO line was applied
    # their replies keep their place: a bad INFO's message after OK, before the move
    assert lines[0] == "OK" and lines[1].startswith("MESSAGE ignored INFO hash_size")
    assert lines[-1] == "7,7", lines


def test_hash_size_sets_the_hash_size():
    """INFO hash_size (KiB, Yixin-Board) sizes the table; with max_memory the smaller
    wins; 256 MiB at most; 0 returns to the engine's own size."""
    loop, _ = run_loop("START 15\n")
    default = loop._engines.engine.hash_mb
    reserve_left = 350 - MEMORY_RESERVE_MB  # MiB that max_memory 350 MiB allows
    cases = ((["INFO hash_size 16384"], 16), (["INFO hash_size 2048"], 2),
             (["INFO hash_size 4194304"], MAX_HASH_MB),
             ([f"INFO max_memory {350 << 20}", "INFO hash_size 65536"], min(64, reserve_left)),
             ([f"INFO max_memory {350 << 20}", "INFO hash_size 1048576"], reserve_left),
             (["INFO hash_size 16384", "INFO hash_size 0"], default),
             (["INFO hash_size 16384", "INFO hash_size nine"], 16))
    for infos, mib in cases:
        for commands in ("\n".join(infos) + "\nSTART 15\n",
                         "START 15\n" + "\n".join(infos) + "\n"):
            loop, _ = run_loop(commands)
            assert loop._engines.engine.hash_mb == mib, (infos, loop._engines.engine.hash_mb)
            assert mib / 2 < table_mib(loop) <= mib, (infos, table_mib(loop))


def test_yxshowinfo_reports_the_largest_table():
    """MAX_HASH_SIZE n: Yixin-Board offers tables up to 2**n KiB, the engine's cap."""
    _, lines = run_loop("YXSHOWINFO\n")
    n = int(lines[-1].removeprefix("MESSAGE INFO MAX_HASH_SIZE "))
    assert 2 ** n == MAX_HASH_MB * 1024
    loop, _ = run_loop(f"INFO hash_size {2 ** n}\nSTART 15\n")
    assert loop._engines.engine.hash_mb == MAX_HASH_MB


# Black h8 i7 h10 i11, white h9 i9 i6 i12 (x,y from 0): g9 (6,8) is a double three for
# black (the threes h8-i7 and h10-i11 through it), protocol notes 7.3
RENJU_BLACK = [(7, 7), (8, 6), (7, 9), (8, 10)]
RENJU_WHITE = [(7, 8), (8, 8), (8, 5), (8, 11)]


def test_takeback_under_renju_leaves_the_recomputed_state():
    board_lines = "".join(f"{x},{y},1\n" for x, y in RENJU_BLACK) + \
        "".join(f"{x},{y},2\n" for x, y in RENJU_WHITE)
    loop, lines = run_loop(f"INFO rule 4\nSTART 15\nYXBOARD\n{board_lines}DONE\nYXSHOWFORBID\n"
                           "TAKEBACK 8,11\nTAKEBACK 8,10\nYXSHOWFORBID\n")
    assert lines == ["OK", "FORBID 0608.", "OK", "OK", "FORBID ."], lines
    board = loop._engines.engine.board
    fresh = board_with(RENJU_BLACK[:3], RENJU_WHITE[:3], BLACK, rule=Rule.RENJU)
    assert sorted(board.stones()) == sorted(fresh.stones())
    assert board.to_move == fresh.to_move == BLACK
    assert board.key() == fresh.key() and board.foul_points() == fresh.foul_points() == []
    for name in ("cells", "eval_sum", "threat", "threat_count", "foul", "patterns", "near"):
        assert np.array_equal(getattr(board.position, name), getattr(fresh.position, name)), name
    check_against_reference(board)


def test_swap1_answers_swap_or_one_stone_through_the_protocol(tmp_path: Path):
    """INFO rule 5 (Rapfi): freestyle with the swap1 opening, where the answer to three
    stones is SWAP or one stone, never the two stones of swap2."""
    code, out, err = run_session(b"INFO rule 5\nINFO timeout_turn 1000\nSTART 15\n"
                                 b"SWAP2BOARD\n7,7\n8,8\n9,9\nDONE\n", tmp_path)
    assert code == 0 and err == b""
    replies = [line for line in split_output(out) if not line.startswith("MESSAGE")]
    assert replies[0] == "OK" and len(replies) == 2, replies
    assert replies[1] == "SWAP" or MOVE.fullmatch(replies[1]), replies
    if replies[1] != "SWAP":
        assert tuple(int(v) for v in replies[1].split(",")) not in {(7, 7), (8, 8), (9, 9)}
