"""Root moves the engine must not play: ``Limits.excluded`` and the protocol's ``YXBLOCK`` /
``YXBLOCKRESET`` (Yixin-Board, ``../shared/protocol.md`` section 6.1).

A blocked point is never played while another legal point is left, even when it is the
only five or the only block of the opponent's five, and the root threat filter (moves
proven to stop the opponent's VCF) keeps its unblocked moves: the two filters meet as an
intersection.
"""

from __future__ import annotations

import io

from gomoku_engine.core.constants import BLACK, WHITE
from gomoku_engine.engine import Engine, Limits
from gomoku_engine.protocol.loop import ProtocolLoop

from helpers import engine_with

#: black's four h8-k8 (x 3..6 on row 7) closed at (2, 7): (7, 7) is the only five
FOUR = [(3, 7), (4, 7), (5, 7), (6, 7)]
FOUR_WHITE = [(2, 7), (10, 10), (11, 12), (12, 3)]
FIVE_POINT = (7, 7)


def test_blocked_five_point_is_not_played() -> None:
    engine = engine_with(FOUR, FOUR_WHITE, BLACK)
    assert engine.search(Limits(depth=4)).move == FIVE_POINT
    result = engine.search(Limits(depth=4, excluded=frozenset({FIVE_POINT})))
    assert result.move != FIVE_POINT
    assert engine.board.is_legal(*result.move)
    assert engine.search(Limits(depth=4)).move == FIVE_POINT  # the next search is free


def test_blocked_block_of_a_five_is_not_played() -> None:
    """White to move must block (7, 7); blocked, it plays elsewhere (and loses)."""
    engine = engine_with(FOUR, FOUR_WHITE, WHITE)
    assert engine.search(Limits(depth=4)).move == FIVE_POINT
    for threats in (True, False):
        result = engine.search(Limits(depth=4, threats=threats,
                                      excluded=frozenset({FIVE_POINT})))
        assert result.move != FIVE_POINT and engine.board.is_legal(*result.move)


def test_vcf_defence_filter_and_block_intersect() -> None:
    """White's two closed threes meet at (8, 5), a double four: black's moves that stop
    it are few; blocking the one chosen makes the engine choose another of them."""
    black = [(4, 5), (8, 9), (0, 14), (14, 14)]
    white = [(5, 5), (6, 5), (7, 5), (8, 6), (8, 7), (8, 8)]
    engine = engine_with(black, white, BLACK)
    defences = set(engine.vcf_defences(time_ms=None))
    assert 2 <= len(defences) < 20, defences
    blocked: set[tuple[int, int]] = set()
    while len(blocked) < len(defences) - 1:
        move = engine.search(Limits(depth=4, excluded=frozenset(blocked))).move
        assert move in defences - blocked, (move, blocked)
        blocked.add(move)
    # every defence blocked: any other legal point, never a blocked one
    move = engine.search(Limits(depth=4, excluded=frozenset(defences))).move
    assert move not in defences and engine.board.is_legal(*move)


def test_blocked_centre_on_an_empty_board() -> None:
    engine = Engine(15, hash_mb=1)
    move = engine.search(Limits(depth=2, excluded=frozenset({(7, 7)}))).move
    assert move != (7, 7) and max(abs(move[0] - 7), abs(move[1] - 7)) == 1


def test_every_legal_point_blocked_plays_a_legal_point() -> None:
    engine = engine_with(FOUR, FOUR_WHITE, BLACK)
    everything = frozenset((x, y) for x in range(15) for y in range(15))
    move = engine.search(Limits(depth=3, excluded=everything)).move
    assert engine.board.is_legal(*move)


def _session(commands: str) -> list[str]:
    out = io.BytesIO()
    ProtocolLoop(io.BytesIO(commands.encode()), out, warm_up=False,
                 engine_factory=lambda w, h: Engine(w, h, hash_mb=1)).run()
    return [line for line in out.getvalue().decode().splitlines()
            if not line.startswith("MESSAGE")]


_BOARD = ("BOARD\n" + "".join(f"{x},{y},1\n{wx},{wy},2\n"
                              for (x, y), (wx, wy) in zip(FOUR, FOUR_WHITE)) + "DONE\n")


def test_yxblock_and_yxblockreset() -> None:
    lines = _session("INFO max_depth 3\nSTART 15\nYXBLOCK\n7,7\nDONE\n" + _BOARD
                     + _BOARD + "YXBLOCKRESET\n" + _BOARD)
    assert lines[0] == "OK"
    assert lines[1] != "7,7" and lines[2] != "7,7"  # blocked for every search ...
    assert lines[3] == "7,7"  # ... until YXBLOCKRESET
    assert len(lines) == 4


def test_new_game_and_bad_blocks() -> None:
    lines = _session("INFO max_depth 3\nSTART 15\nYXBLOCK\n7,7\nDONE\nSTART 16\nSTART 15\n"
                     + _BOARD
                     + "YXBLOCK\n7,7\n3,15\nDONE\n" + _BOARD + "YXBLOCK 7,7\n" + _BOARD)
    assert lines[:4] == ["OK", "OK", "OK", "7,7"]  # a START of another size forgot it
    assert lines[4].startswith("ERROR YXBLOCK") and lines[5] == "7,7"  # a bad block: none
    # a block cut short by a command is refused and the command runs
    assert lines[6].startswith("ERROR YXBLOCK not terminated") and lines[7] == "7,7"
