"""Drive the engine with a third-party client: the PyPI library ``pygomo-lib``.

The client is an independent reading of the protocol. It sorts the engine's output into
channels: coordinates, MESSAGE, ERROR, and everything else. Any stray line would land in
the "output" channel and break START/ABOUT/TAKEBACK/RESTART. The library's quirks are
those of version 0.1.1:

* ``quit()`` (and leaving a ``with`` block) kills the process right after writing END.
  So the fixture sends END itself and checks that the engine exits with code 0.
* ``configure()`` upper-cases INFO keys (``INFO MAX_DEPTH 3``).
* An ERROR reply is never read: the call waits for its whole timeout and then
  returns ``False``/``None``. So every call here has a short, explicit timeout.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

pygomo = pytest.importorskip("pygomo", reason="pygomo-lib is a test dependency")
from pygomo import BoardPosition, EngineClient, Move  # noqa: E402

from gomoku_engine.core.constants import MATE  # noqa: E402

from helpers import five_through  # noqa: E402

SIZE = 15
#: Longest wait for a move with ``INFO timeout_turn 200`` (the engine plans ~170 ms).
MOVE_TIMEOUT = 10.0
#: Longest wait for START: the engine answers after its numba warm-up (≤ 2 s).
START_TIMEOUT = 30.0
#: Longest wait for the first move: with a cold numba cache (no ``gomoku-engine warmup``
#: since the kernels changed) the engine compiles them first, which takes 10-30 s.
FIRST_MOVE_TIMEOUT = 120.0
MAX_STONES = 60

Point = tuple[int, int]


@pytest.fixture
def new_client(tmp_path: Path):
    """Make connected clients for ``python -m gomoku_engine``. On teardown, END each one
    and check that it exits by itself with code 0."""
    clients: list[EngineClient] = []

    def make() -> EngineClient:
        client = EngineClient(sys.executable, args=["-m", "gomoku_engine"],
                              working_directory=str(tmp_path))
        client.connect()
        clients.append(client)
        return client

    yield make
    codes = []
    for client in clients:
        process = client._transport._process  # private, to see the exit status
        if process is not None and process.poll() is None:
            client.send_raw("END")
            try:
                codes.append(process.wait(timeout=5))
            except Exception:  # noqa: BLE001 - report below, after cleaning up
                codes.append(None)
        client.quit()  # no END left to send: only closes pipes and threads
    assert all(code == 0 for code in codes), f"exit codes after END: {codes}"


def wait_until_warm(client: EngineClient, turn_ms: int) -> None:
    """Return once the engine has compiled or loaded its kernels, with an empty board, and
    set its turn to ``turn_ms``.

    BEGIN on an empty board needs no search, but with a long turn it waits for the
    kernels (a short one gets the kernel-free move while they load, on a busy machine).
    """
    client.execute("INFO", "timeout_turn", FIRST_MOVE_TIMEOUT * 1000)
    result = client.begin(timeout=FIRST_MOVE_TIMEOUT + MOVE_TIMEOUT)
    assert result is not None and result.move.to_tuple() == (SIZE // 2, SIZE // 2)
    assert client.restart(timeout=MOVE_TIMEOUT) is True
    client.execute("INFO", "timeout_turn", turn_ms)  # lowercase key, as Piskvork sends


def is_five(board: dict[Point, int], point: Point) -> bool:
    """Freestyle: five or more in a row through ``point``."""
    return five_through(lambda x, y: board.get((x, y), 0), SIZE, SIZE, point, board[point])


def legal(board: dict[Point, int], point: Point) -> bool:
    return 0 <= point[0] < SIZE and 0 <= point[1] < SIZE and point not in board


def test_self_play_game(new_client) -> None:
    """Two engine processes play a game through pygomo. Every move must be legal, must
    come in time, and must come after a MESSAGE summary whose PV starts with that move."""
    black, white = new_client(), new_client()
    for client in (black, white):
        assert client.start(SIZE, timeout=START_TIMEOUT) is True
        wait_until_warm(client, 200)  # so that every move below is timed fairly
    board: dict[Point, int] = {}
    players = {1: black, 2: white}
    colour = 1
    began = time.perf_counter()
    result = black.begin(timeout=MOVE_TIMEOUT)
    took = time.perf_counter() - began
    while True:
        assert result is not None, f"no move in time after {len(board)} stones"
        assert took < 3.0, f"move {len(board) + 1} took {took:.2f} s with timeout_turn 200"
        point = result.move.to_tuple()
        assert legal(board, point), f"illegal move {point} on {sorted(board)}"
        assert result.all_info, "no MESSAGE summary before the move"
        pv = result.all_info[-1].pv
        assert pv and pv[0].to_tuple() == point, f"summary PV {pv} does not start at {point}"
        summary = result.all_info[-1]  # read with its nodes and time, as Rapfi's line is
        if board:  # (the first stone, on an empty board, is the centre without a search)
            assert summary.depth >= 1 and summary.nodes > 0, summary
            # a search of a thousand nodes takes milliseconds; a mate found at once may not
            assert summary.time_ms > 0 or summary.nodes < 1000, summary
        board[point] = colour
        if is_five(board, point) or len(board) >= MAX_STONES:
            break
        colour = 3 - colour
        began = time.perf_counter()
        result = players[colour].turn(Move(point), timeout=MOVE_TIMEOUT)
        took = time.perf_counter() - began
    winner = ("black" if colour == 1 else "white") if is_five(board, point) else "nobody"
    print(f"self-play: {len(board)} stones, five by {winner}")  # shown with pytest -s
    assert len(board) == MAX_STONES or is_five(board, point)
    # Neither engine has any stray output left: no ERROR and nothing unparsed.
    for client in (black, white):
        assert client.receive_raw("error", timeout=0.05) == ""
        assert client.receive_raw("output", timeout=0.05) == ""


@pytest.mark.parametrize("score, shown", [(-163, -163), (MATE - 3, "+M3"),
                                          (-(MATE - 18), "-M18")])
def test_pygomo_reads_the_search_lines_figures(score, shown) -> None:
    """The line before the move, a YXNBEST line and a show_detail iteration line, read by
    pygomo-lib's own parser (Rapfi's form): depth, nodes, speed, time, the score (a mate
    as Rapfi writes it, not as an even score) and the principal variation."""
    from pygomo.protocol.gomocup import GomocupProtocol
    from pygomo.protocol.models import MateScore

    from gomoku_engine.protocol.messages import iteration_line, multipv_line, result_line
    from gomoku_engine.search.limits import SearchInfo, SearchResult

    protocol = GomocupProtocol()
    result = SearchResult((7, 7), score, 9, 14, 52_113, 703.4, [(7, 7), (8, 8), (9, 9)])
    info = SearchInfo(9, 14, score, 52_113, 703.4, [(7, 7), (8, 8), (9, 9)])
    for line, rank in ((result_line(result), 1), (multipv_line(2, result), 2),
                       (iteration_line(info), 1)):
        read = protocol.parse_search_info(line)
        assert (read.depth, read.sel_depth, read.nodes, read.time_ms, read.multipv) == (
            9, 14, 52_113, 703, rank), line
        assert read.nps == 74, line
        assert [m.to_tuple() for m in read.pv] == [(7, 7), (8, 8), (9, 9)], line
        value = read.eval.score()
        if isinstance(shown, int):
            assert value == shown, line
        else:
            assert isinstance(value, MateScore) and str(value) == shown.lstrip("+"), line
            assert value.is_winning() == (score > 0)


def test_about_start_takeback_restart(new_client) -> None:
    client = new_client()
    about = client.about(timeout=START_TIMEOUT)
    assert about is not None and about.startswith('name="gomoku-engine", version="')
    assert client.start(SIZE, timeout=START_TIMEOUT) is True
    client.configure(max_depth=3)  # sends "INFO MAX_DEPTH 3": keys are case-insensitive

    result = client.begin(timeout=FIRST_MOVE_TIMEOUT)
    assert result is not None and result.move.to_tuple() == (7, 7)
    result = client.turn((8, 8), timeout=MOVE_TIMEOUT)
    assert result is not None
    reply = result.move.to_tuple()
    assert reply not in {(7, 7), (8, 8)} and 0 <= min(reply) and max(reply) < SIZE

    # Undo the last two moves, as Piskvork does, then replay the opponent's move.
    assert client.takeback(Move(reply), timeout=MOVE_TIMEOUT) is True
    assert client.takeback(Move((8, 8)), timeout=MOVE_TIMEOUT) is True
    result = client.turn((8, 8), timeout=MOVE_TIMEOUT)
    assert result is not None and result.move.to_tuple() not in {(7, 7), (8, 8)}

    # RESTART: an empty board of the same size, so 7,7 is free for the opponent.
    assert client.restart(timeout=MOVE_TIMEOUT) is True
    result = client.turn((7, 7), timeout=MOVE_TIMEOUT)
    assert result is not None and result.move.to_tuple() != (7, 7)
    assert client.receive_raw("error", timeout=0.05) == ""


def four_in_a_row() -> BoardPosition:
    """We (field 1) have h8..k8, the opponent has h9..k9: we win at g8 or l8."""
    position = BoardPosition()
    for x in range(7, 11):
        position.add_move(Move((x, 7)), BoardPosition.SELF)
        position.add_move(Move((x, 8)), BoardPosition.OPPONENT)
    return position


def test_board_and_yxboard(new_client) -> None:
    client = new_client()
    assert client.start(SIZE, timeout=START_TIMEOUT) is True
    client.configure(max_depth=3)
    # BOARD ... DONE, each line written and flushed on its own by the library.
    result = client.board(four_in_a_row(), timeout=FIRST_MOVE_TIMEOUT)
    assert result is not None and result.move.to_tuple() in {(6, 7), (11, 7)}
    # YXBOARD ... DONE sets the position with no reply; BEGIN then moves in it.
    assert client.restart(timeout=MOVE_TIMEOUT) is True
    assert client.board(four_in_a_row(), start_thinking=False) is None
    result = client.begin(timeout=MOVE_TIMEOUT)
    assert result is not None and result.move.to_tuple() in {(6, 7), (11, 7)}


def test_error_reply_and_recovery(new_client) -> None:
    """START 4 gets ERROR. pygomo does not read ERROR lines, so start() times out. The
    ERROR line waits in the library's error channel, and the engine still works."""
    client = new_client()
    assert client.start(4, timeout=1.0) is False
    assert client.receive_raw("error", timeout=1.0).startswith("ERROR")
    assert client.start(SIZE, timeout=START_TIMEOUT) is True
    client.set_time(turn_time_ms=200)  # sends "INFO TIMEOUT_TURN 200"
    result = client.turn((7, 7), timeout=FIRST_MOVE_TIMEOUT)
    assert result is not None and result.move.to_tuple() != (7, 7)
