"""Yixin-Board's way of driving an engine (docs/protocol.md, "Yixin-Board"): ``START``
before every move and analysis, ``YXBLOCK`` sent once, block commands the engine does not
support.  Run in-process (:class:`gomoku_engine.protocol.loop.ProtocolLoop` over byte
streams) so that the engine's own transposition table can be looked at.
"""

from __future__ import annotations

import io

from gomoku_engine.core.constants import BLACK
from gomoku_engine.engine import Engine
from gomoku_engine.protocol.loop import ProtocolLoop

#: black's four (3..6, 7) closed at (2, 7): (7, 7) is black's only five
FOUR = [(3, 7), (4, 7), (5, 7), (6, 7)]
FOUR_WHITE = [(2, 7), (10, 10), (11, 12), (12, 3)]
FIVE_BOARD = ("BOARD\n" + "".join(f"{x},{y},1\n{wx},{wy},2\n"
                                  for (x, y), (wx, wy) in zip(FOUR, FOUR_WHITE)) + "DONE\n")
#: a quiet position, black to move (field 1)
QUIET = [(7, 7, 1), (8, 8, 2), (8, 7, 1), (6, 8, 2)]
QUIET_BOARD = "BOARD\n" + "".join(f"{x},{y},{f}\n" for x, y, f in QUIET) + "DONE\n"


def run_loop(commands: str) -> tuple[ProtocolLoop, list[str]]:
    """The loop after ``commands`` (a 4 MiB table) and its lines other than MESSAGE."""
    out = io.BytesIO()
    loop = ProtocolLoop(io.BytesIO(commands.encode()), out, warm_up=False,
                        engine_factory=lambda w, h: Engine(w, h, hash_mb=4))
    loop.run()
    return loop, [line for line in out.getvalue().decode().splitlines()
                  if not line.startswith("MESSAGE")]


def quiet_root_in_table(loop: ProtocolLoop) -> bool:
    """Whether the loop's engine's transposition table holds an entry for
    :data:`QUIET` with black to move."""
    engine = loop._engines.engine
    assert engine is not None
    engine.board.load([(x, y, BLACK if f == 1 else 3 - BLACK) for x, y, f in QUIET], BLACK)
    tt = engine._state.tt
    return bool((tt["key"] == engine.board.position.key[0]).any())


def test_transposition_table_kept_across_start_of_the_same_size() -> None:
    loop, lines = run_loop("INFO max_depth 4\nSTART 15\n" + QUIET_BOARD + "START 15\n")
    assert lines[0] == "OK" and lines[2] == "OK"
    assert quiet_root_in_table(loop)


def test_transposition_table_cleared_by_restart_and_yxhashclear() -> None:
    # the same session as above but for the last command: the test above would pass
    # without looking if the table never held the entry
    for last in ("RESTART\n", "YXHASHCLEAR\n", "START 16\nSTART 15\n"):
        loop, _ = run_loop("INFO max_depth 4\nSTART 15\n" + QUIET_BOARD + last)
        assert not quiet_root_in_table(loop), last


def test_transposition_table_cleared_by_a_change_of_rule() -> None:
    loop, _ = run_loop("INFO max_depth 4\nSTART 15\n" + QUIET_BOARD
                       + "INFO rule 1\nSTART 15\n")
    assert not quiet_root_in_table(loop)


def test_blocked_point_is_never_played_after_start() -> None:
    """Yixin-Board's order: YXBLOCK once, then START and BOARD for every move."""
    loop, lines = run_loop("INFO max_depth 3\nSTART 15\nYXBLOCK\n7,7\nDONE\n"
                           + "START 15\n" + FIVE_BOARD + "RESTART\n" + FIVE_BOARD
                           + "START 15\nYXBLOCKUNDO\n7,7\nDONE\n" + FIVE_BOARD)
    assert lines[0] == "OK"
    assert lines[1] == "OK" and lines[2] != "7,7"  # the five is blocked after START ...
    assert lines[3] == "OK" and lines[4] != "7,7"  # ... and after RESTART ...
    assert lines[5] == "OK" and lines[6] == "7,7"  # ... until YXBLOCKUNDO lifts it
    assert len(lines) == 7


def test_yxblockundo_lifts_only_its_points() -> None:
    _, lines = run_loop("INFO max_depth 3\nSTART 15\nYXBLOCK\n7,7\n0,0\nDONE\n"
                        "YXBLOCKUNDO\n0,0\nDONE\n" + FIVE_BOARD
                        + "YXBLOCKUNDO\n7,7\n99,1\nDONE\n" + FIVE_BOARD)
    assert lines[1] != "7,7"  # 7,7 is still blocked
    assert lines[2].startswith("ERROR YXBLOCKUNDO") and lines[3] != "7,7"  # a bad block: none


def test_one_unknown_per_unsupported_block() -> None:
    _, lines = run_loop("START 15\nYXQUERYDATABASEALL\n7,7\n8,8\n9,9\nDONE\n"
                        "YXEDITTVDDATABASE 1 87 0 0\n7,7\nDONE\nBEGIN\n")
    assert lines[0] == "OK"
    assert lines[1].startswith("UNKNOWN command YXQUERYDATABASEALL")
    assert lines[2].startswith("UNKNOWN command YXEDITTVDDATABASE")
    assert lines[3] == "7,7" and len(lines) == 4


def test_unknown_one_line_command_swallows_nothing() -> None:
    _, lines = run_loop("START 15\nYXSHOWHASHUSAGE\nBEGIN\nFOO\n8,8\nABOUT\n")
    assert lines[1].startswith("UNKNOWN command YXSHOWHASHUSAGE")
    assert lines[2] == "7,7"
    assert lines[3] == "UNKNOWN command FOO" and lines[4] == "UNKNOWN command 8,8"
    assert lines[5].startswith("name=")


def test_unterminated_unsupported_block_runs_the_command_that_ends_it() -> None:
    _, lines = run_loop("START 15\nYXBLOCKPATH\n7,7\nBEGIN\n")
    assert lines[1].startswith("UNKNOWN command YXBLOCKPATH") and "no DONE" in lines[1]
    assert lines[2] == "7,7" and len(lines) == 3
