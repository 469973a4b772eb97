"""Pondering (``INFO pondering 1``, :mod:`gomoku_engine.protocol.ponder`): after its move
the engine searches the opponent's position into its transposition table, stops when the
next command arrives, and answers that command as usual.

The loop runs in-process over a pipe, so that the test decides when each line arrives
and can read the engine's transposition table.
"""

from __future__ import annotations

import io
import os
import threading
import time

import numpy as np

from gomoku_engine.engine import Engine
from gomoku_engine.protocol.engine_holder import EngineHolder
from gomoku_engine.protocol.game_state import GameState
from gomoku_engine.protocol.loop import ProtocolLoop
from gomoku_engine.protocol.ponder import Ponder
from gomoku_engine.protocol.settings import Settings
from gomoku_engine.search.params import ONE_PLY

#: a hang detector, s: far more than any step here takes, a cold compile of the kernels
#: (in the first move: ``warm_up=False``) included
WAIT_S = 600.0
#: black (field 1) to move
QUIET_BOARD = "BOARD\n7,7,1\n8,8,2\n8,7,1\n6,8,2\nDONE\n"


class PipeLoop:
    """A protocol loop in a thread, fed through a pipe."""

    def __init__(self) -> None:
        read_end, self._write_end = os.pipe()
        self.out = io.BytesIO()
        self.loop = ProtocolLoop(os.fdopen(read_end, "rb"), self.out, warm_up=False,
                                 engine_factory=lambda w, h: Engine(w, h, hash_mb=4))
        self._thread = threading.Thread(target=self.loop.run, daemon=True)
        self._thread.start()

    def send(self, text: str) -> None:
        os.write(self._write_end, text.encode())

    def replies(self) -> list[str]:
        return [line for line in self.out.getvalue().decode().splitlines()
                if not line.startswith("MESSAGE")]

    def wait_replies(self, count: int) -> list[str]:
        deadline = time.monotonic() + WAIT_S
        while len(self.replies()) < count:
            assert time.monotonic() < deadline, f"no reply: {self.replies()}"
            time.sleep(0.01)
        return self.replies()

    def close(self) -> None:
        os.close(self._write_end)
        self._thread.join(WAIT_S)
        assert not self._thread.is_alive(), "the loop did not end at the end of input"


def root_depth(engine: Engine) -> int:
    """The draft (plies) of the transposition table's entry for the engine's position, 0
    without one."""
    tt = engine._state.tt
    entries = tt[tt["key"] == engine.board.position.key[0]]
    return int(np.max(entries["depth"])) // ONE_PLY if entries.size else 0


def ponder_to_depth(pondering: int) -> tuple[int, list[str]]:
    """Our move in QUIET_BOARD at depth 4, then (the input left open) the ponder, capped
    at depth 4 too; the draft stored for the position after our move."""
    session = PipeLoop()
    session.send(f"INFO pondering {pondering}\nSTART 15\nINFO max_depth 4\n" + QUIET_BOARD)
    replies = session.wait_replies(2)
    deadline = time.monotonic() + WAIT_S
    while pondering and session.loop._ponder.searches == 0:
        assert time.monotonic() < deadline, "no ponder"
        time.sleep(0.01)
    engine = session.loop._engines.engine
    depth = root_depth(engine)
    session.close()
    return depth, replies


def test_ponder_searches_the_opponents_position_into_the_table() -> None:
    without, replies = ponder_to_depth(0)
    assert replies[0] == "OK" and len(replies) == 2
    # our own search reached the position after our move at depth 3 at most
    assert without < 4, without
    depth, _ = ponder_to_depth(1)
    assert depth >= 4, depth  # the ponder searched it as a root


def test_next_command_stops_the_ponder_and_is_answered() -> None:
    session = PipeLoop()
    session.send("INFO pondering 1\nSTART 15\nINFO timeout_turn 300\n" + QUIET_BOARD)
    first = session.wait_replies(2)[1]
    # no depth cap: the ponder runs until the next line
    assert session.loop._ponder.searching.wait(WAIT_S), "no ponder started"
    time.sleep(0.2)
    assert session.loop._ponder.searching.is_set()  # still searching: nothing came
    session.send("TURN 0,0\n")
    replies = session.wait_replies(3)
    assert replies[2] not in ("0,0", first, "7,7", "8,8", "8,7", "6,8")
    assert session.loop._ponder.searches >= 1  # (and the next ponder may run)
    # the search of the move was a whole one: the ponder's stop did not carry over
    messages = [line for line in session.out.getvalue().decode().splitlines()
                if line.startswith("MESSAGE depth")]
    assert not messages[-1].startswith("MESSAGE depth 1-"), messages
    session.close()


def test_end_of_input_stops_the_ponder() -> None:
    session = PipeLoop()
    session.send("INFO pondering 1\nSTART 15\nINFO timeout_turn 300\n" + QUIET_BOARD)
    session.wait_replies(2)
    assert session.loop._ponder.searching.wait(WAIT_S), "no ponder started"
    session.close()  # fails if the ponder kept the loop alive


def test_start_drops_the_position_to_ponder() -> None:
    """``START`` (Yixin-Board's, before every think) keeps the engine's board, which still
    holds the position after our last move until the next move brings it to the new game:
    the ponder search must not take that position for the new game's."""
    settings = Settings(pondering=True, max_depth=2)
    engines = EngineHolder(lambda w, h: Engine(w, h, hash_mb=1), settings, warm_up=False)
    game = GameState(15, 15)
    for x, y in ((7, 7), (8, 8), (8, 7)):
        game.place(x, y, game.to_move)
    engines.new_game(game.size)
    assert engines.for_game(game) is not None
    ponder = Ponder(settings, engines, has_line=lambda: False)
    ponder.after_move(game)
    engines.new_game(game.size, keep_hash=True)  # START of the same size ...
    ponder.new_game()
    ponder.run()
    assert ponder.searches == 0  # ... the previous game's position is not pondered
    ponder.after_move(game)  # without the START it is
    ponder.run()
    assert ponder.searches == 1
