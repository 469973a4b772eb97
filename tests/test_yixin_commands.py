"""Yixin-Board's analysis commands: ``YXSEARCHDEFEND``, ``YXBALANCEONE`` and
``YXBALANCETWO`` (docs/protocol.md), and the choice of balanced moves
(:mod:`gomoku_engine.protocol.balance`)."""

from __future__ import annotations

import io

from gomoku_engine.core.notation import parse_moves
from gomoku_engine.engine import Engine, Limits, SearchResult
from gomoku_engine.protocol.balance import balanced_move, balanced_pair
from gomoku_engine.protocol.loop import ProtocolLoop

#: black h8, white i9; black to move
OPENING = [(7, 7), (8, 8)]
OPENING_BOARD = "YXBOARD\n7,7,1\n8,8,2\nDONE\n"


def run_loop(commands: str) -> list[str]:
    """The output lines of an in-process session over ``commands`` (a 4 MiB table)."""
    out = io.BytesIO()
    ProtocolLoop(io.BytesIO(commands.encode()), out, warm_up=False,
                 engine_factory=lambda w, h: Engine(w, h, hash_mb=4)).run()
    return out.getvalue().decode().splitlines()


def replies(lines: list[str]) -> list[str]:
    return [line for line in lines if not line.startswith("MESSAGE")]


def opening_engine() -> Engine:
    engine = Engine(15, hash_mb=4)
    for point in OPENING:
        engine.board.play(*point)
    return engine


def test_balanced_move_is_the_line_nearest_the_bias() -> None:
    engine = opening_engine()
    lines = [SearchResult((x, 0), score, 3, 3, 0, 0.0, [(x, 0)])
             for x, score in enumerate([900, 300, 120, -120, -700])]
    engine.analyze = lambda limits, multipv=1, on_iteration=None: lines  # type: ignore
    assert balanced_move(engine, Limits(depth=3), 0).moves == [(2, 0)]  # 120 before -120
    assert balanced_move(engine, Limits(depth=3), -100).moves == [(3, 0)]
    assert balanced_move(engine, Limits(depth=3), 5000).moves == [(0, 0)]
    assert balanced_move(engine, Limits(depth=3), -5000).moves == [(4, 0)]


def test_the_bias_moves_the_balanced_score_the_same_way() -> None:
    """The score is the side to move's: a higher bias gives it a better position (a sign
    error would turn this round)."""
    engine = opening_engine()
    limits = Limits(depth=3)
    for choose in (balanced_move, balanced_pair):
        high = choose(engine, limits, 3000)
        low = choose(engine, limits, -3000)
        assert high.score > low.score, (choose.__name__, high, low)
        assert engine.board.stones() == [(7, 7, 1), (8, 8, 2)]  # the board is unchanged


def test_balanced_pair_is_nearer_the_bias_than_the_strongest_line() -> None:
    engine = opening_engine()
    strongest = engine.search(Limits(depth=3))
    pair = balanced_pair(engine, Limits(depth=3), 0)
    assert len(pair.moves) == 2 and len(set(pair.moves)) == 2
    assert all(engine.board.is_legal(*move) for move in pair.moves)
    assert abs(pair.score) < abs(strongest.score), (pair, strongest.score)


def test_yxbalancetwo_plays_both_moves() -> None:
    lines = replies(run_loop("INFO max_depth 3\nSTART 15\n" + OPENING_BOARD
                             + "YXBALANCETWO 0\nYXBOARD\n7,7,1\n8,8,2\nDONE\n"
                             + "YXBALANCEONE 0\n"))
    first, second = (tuple(int(n) for n in p.split(",")) for p in lines[1].split())
    assert len(lines) == 3 and first != second
    assert {first, second}.isdisjoint(OPENING)
    assert tuple(int(n) for n in lines[2].split(",")) not in OPENING


def test_balance_moves_stay_on_the_board_for_the_next_command() -> None:
    lines = replies(run_loop("INFO max_depth 3\nSTART 15\n" + OPENING_BOARD
                             + "YXBALANCETWO 0\n"))
    pair = lines[1]
    # the second stone is the opponent's: TURN on it is refused as occupied
    out = replies(run_loop("INFO max_depth 3\nSTART 15\n" + OPENING_BOARD
                           + f"YXBALANCETWO 0\nTURN {pair.split()[1]}\n"))
    assert out[1] == pair and out[2].startswith("ERROR TURN"), out


def test_balance_avoids_blocked_points() -> None:
    first = replies(run_loop("INFO max_depth 3\nSTART 15\n" + OPENING_BOARD
                             + "YXBALANCEONE 0\n"))[1]
    again = replies(run_loop(f"INFO max_depth 3\nSTART 15\nYXBLOCK\n{first}\nDONE\n"
                             + OPENING_BOARD + "YXBALANCEONE 0\n"))[1]
    assert again != first


def test_yxsearchdefend_lines_are_the_defences() -> None:
    """White's open three f8 g8 h8: every line is a block (an end, or the point beyond);
    black has no four to make instead."""
    lines = run_loop("INFO max_depth 3\nSTART 15\nYXBOARD\n5,7,2\n6,7,2\n7,7,2\n"
                     "0,14,1\n14,14,1\n14,0,1\nDONE\nYXSEARCHDEFEND\n")
    multipv = [line for line in lines if " multipv " in line]
    moves = {parse_moves(line.split(" pv ")[1].split()[0])[0] for line in multipv}
    defences = {(3, 7), (4, 7), (8, 7), (9, 7)}
    assert len(multipv) >= 2 and moves <= defences, multipv
    assert replies(lines)[-1] in {f"{x},{y}" for x, y in moves}


def test_yxsearchdefend_weighs_more_lines_than_yxnbest_1() -> None:
    lines = run_loop("INFO max_depth 2\nSTART 15\n" + OPENING_BOARD + "YXSEARCHDEFEND\n")
    assert sum(" multipv " in line for line in lines) >= 10
