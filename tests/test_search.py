"""Search behaviour: Gomocup rule checks, forced replies, determinism, candidates."""

from __future__ import annotations

import time

import pytest

from gomoku_engine.game.board import Board
from gomoku_engine.core.constants import BLACK, EMPTY, WHITE, Rule
from gomoku_engine.core.constants import mate_in
from gomoku_engine.engine import Engine, Limits
from gomoku_engine.search import alphabeta, threats
from gomoku_engine.search.alphabeta import NODES, generate_moves

from helpers import engine_after as engine_at


# The Gomocup submission checks (../shared/protocol.md section 7.3).
@pytest.mark.parametrize("size", [15, 20])
@pytest.mark.parametrize("rule", list(Rule))
def test_takes_the_win_in_one(size, rule):
    result = engine_at("h8h9i8i9j8j9k8k9", size, rule).search(Limits(depth=4))
    assert result.move in {(6, 7), (11, 7)}
    assert mate_in(result.score) == 1


def test_standard_blocks_the_three_instead_of_making_six():
    engine = engine_at("h8h9i8h10g8h11j13h12g14h14i15", rule=Rule.STANDARD)
    result = engine.search(Limits(depth=6))
    assert result.move in {(5, 7), (9, 7)}


def test_freestyle_makes_six_in_the_same_position():
    engine = engine_at("h8h9i8h10g8h11j13h12g14h14i15", rule=Rule.FREESTYLE)
    assert engine.search(Limits(depth=2)).move == (7, 12)  # h13 completes six


@pytest.mark.parametrize("size", [15, 20])
def test_blocks_a_four(size):
    # White has four in a column (h9..h12) with h8 black: h13 is the only block.
    engine = engine_at("h8h9a1h10a3h11a5h12", size)
    result = engine.search(Limits(depth=5))
    assert result.move == (7, 12)


def test_open_four_is_a_forced_win_in_three():
    # Black to move with an open three c..e on row 1 and nothing for white.
    engine = engine_at("c1a15d1o15e1o1")
    result = engine.search(Limits(depth=3))
    assert result.move in {(1, 0), (5, 0)}
    assert mate_in(result.score) == 3


def test_answers_an_open_three_with_a_block():
    # White made an open three f8-h8; black has nothing forcing: black must block it.
    engine = engine_at("h3f8a15g8o15h8")
    result = engine.search(Limits(depth=5))
    assert result.move in {(4, 7), (8, 7), (3, 7), (9, 7)}


def test_search_is_deterministic():
    counts = []
    for _ in range(2):
        engine = engine_at("j12o10m10m12o12l9o7k7j7n6j13l11")
        result = engine.search(Limits(depth=6))
        counts.append((result.nodes, result.score, result.move))
    assert counts[0] == counts[1]


def test_mate_scores_survive_the_transposition_table():
    # Searching deeper with the TT of shallower iterations keeps the same mate distance.
    engine = engine_at("c1a15d1o15e1o1")
    scores = {mate_in(engine.search(Limits(depth=d)).score) for d in (4, 5, 6, 7)}
    assert scores == {3}


def candidates_reference(board: Board) -> set[tuple[int, int]]:
    """Empty points within two steps (Chebyshev distance) of a stone."""
    stones = {(x, y) for x, y, _ in board.stones()}
    return {(x, y) for y in range(board.height) for x in range(board.width)
            if board.at(x, y) == EMPTY
            and any(max(abs(x - sx), abs(y - sy)) <= 2 for sx, sy in stones)}


@pytest.mark.parametrize("moves, expected", [
    ("h8", 24), ("h8i9", 32), ("a1", 8), ("a1o15", 16), ("h8h9i8i9", 32),
])
def test_candidate_counts(moves, expected):
    engine = engine_at(moves)
    ss = engine._state
    n = generate_moves(engine.board.position, engine.board.tables, ss, 0, -1, 1000)
    found = {engine.board.geometry.xy(int(c)) for c in ss.move_buf[0, :n]}
    assert found == candidates_reference(engine.board)
    assert n == expected


def test_replies_to_an_open_three_are_blocks_or_fours():
    # White (h9 i9 j9) has an open three; black to move may only block it or make a four.
    engine = engine_at("h8h9i8i9j8j9")
    board, ss = engine.board, engine._state
    n = generate_moves(board.position, board.tables, ss, 0, -1, 1000)
    moves = {board.geometry.xy(int(c)) for c in ss.move_buf[0, :n]}
    blocks = {(5, 8), (6, 8), (10, 8), (11, 8)}   # f9 g9 k9 l9
    fours = {(5, 7), (6, 7), (10, 7), (11, 7)}    # f8 g8 k8 l8 extend black's three
    assert moves == blocks | fours


#: A game against Carbon (15x15 freestyle), white to move: black's h14 (7, 13) would
#: be a four-three (the four on column 8, the three on the anti-diagonal j12 k11).
#: Black's four can only be blocked on its line, but the three is also broken by a white
#: stone at l10 (11, 10), m10... and white's m10 (12, 9) does it while making a double
#: three that wins by VCT.
FOUR_THREE_GAME = [(13, 11), (13, 9), (14, 11), (12, 8), (10, 11), (8, 8), (8, 12), (11, 13),
                   (8, 9), (9, 10), (10, 10), (10, 9), (11, 11), (12, 11), (8, 11), (9, 11),
                   (9, 12)]


def test_points_that_break_the_three_of_a_four_three_are_searched():
    engine = engine_at(FOUR_THREE_GAME)
    board, ss = engine.board, engine._state
    n = generate_moves(board.position, board.tables, ss, 0, -1, 1000)
    moves = {board.geometry.xy(int(c)) for c in ss.move_buf[0, :n]}
    assert {(12, 9), (11, 10), (7, 14)} <= moves  # the three's ends and the point beyond
    assert {(8, 10), (8, 13)} <= moves  # the four's two points
    assert (3, 3) not in moves  # a quiet point elsewhere stops nothing
    result = engine.search(Limits(depth=6))
    assert (mate_in(result.score) or 0) > 0 and result.move == (12, 9), result


def test_breadth_limit_keeps_the_strongest_candidates():
    engine = engine_at("j12o10m10m12o12l9o7k7j7n6j13l11")
    ss, board = engine._state, engine.board
    n_all = generate_moves(board.position, board.tables, ss, 0, -1, 1000)
    everything = list(ss.move_buf[0, :n_all])
    n = generate_moves(board.position, board.tables, ss, 0, -1, 8)
    assert n == 8
    assert list(ss.move_buf[0, :8]) == everything[:8]
    assert list(ss.score_buf[0, :8]) == sorted(ss.score_buf[0, :8], reverse=True)


def test_node_limit_and_stop():
    engine = engine_at("j12o10m10m12o12l9o7k7j7n6j13l11")
    result = engine.search(Limits(nodes=5000))
    assert result.nodes < 5000 + 2048
    assert engine.board.is_legal(*result.move)


#: a late middle game (97 stones, white to move) from a game against Rapfi, where the root
#: threat solvers search about 70,000 nodes before the first iteration
SOLVER_HEAVY = ("e10f13n2g7f8g8g6f10f6e6e7f7h9h10d8c9f12d9d5g9g10e11d12i7h8i8i6g5h6j6d6c5h5h7j7g4"
    "e12c12f4g3i11d13c11h12h11b11a10e8c10b10b9j11i12j13i13i10k10k8a8d11g2d7f5f3h3j5a9"
    "a7f2h2d3d4k7l7m6k5l6m5l5l4m3j3j2k11k6n6l11m12j14l12n12m13j10m4m11k4n4")


def test_a_node_cap_bounds_the_root_threat_solvers_too():
    """``Limits.nodes`` (``INFO max_node``) counts every node of the move: where the root
    threat solvers alone search more than ten times the cap, a capped move stays within
    it (with the first iteration's nodes and the 256 between two checks as slack)."""
    uncapped = engine_at(SOLVER_HEAVY).search(Limits(depth=1))
    assert uncapped.nodes > 10 * 3000
    capped = engine_at(SOLVER_HEAVY).search(Limits(nodes=3000))
    assert capped.nodes < 3000 + 2048


def test_hard_time_limit_stops_the_search():
    """The hard limit stops a search that would otherwise run for a minute (the soft
    budget).  Seconds of slack, so that load cannot fail it: how close the stop comes to
    the limit is measured by the lateness soak (docs/testing.md), not asserted here."""
    engine = engine_at("j12o10m10m12o12l9o7k7j7n6j13l11", size=20)
    began = time.perf_counter()
    result = engine.search(Limits(hard_ms=150, soft_ms=60_000))
    assert time.perf_counter() - began < 5.0
    assert result.time_ms >= 150  # it ran to the limit: stopped, not finished by itself
    assert engine.board.is_legal(*result.move)


def test_board_is_unchanged_by_search():
    engine = engine_at("j12o10m10m12o12l9o7k7j7n6j13l11")
    before = engine.board.stones(), engine.board.key(), engine.board.position.eval_sum.copy()
    engine.search(Limits(depth=5))
    after = engine.board.stones(), engine.board.key(), engine.board.position.eval_sum
    assert before[0] == after[0] and before[1] == after[1] and (before[2] == after[2]).all()


def test_white_and_black_to_move_from_set_stones():
    # Board.set_stones itself (its to_move, stones in this order) is under test: no board_with
    engine = Engine(15, hash_mb=1)
    engine.board.set_stones([(7, 7, BLACK), (8, 8, WHITE), (7, 8, BLACK)], to_move=WHITE)
    assert engine.board.to_move == WHITE
    result = engine.search(Limits(depth=3))
    assert engine.board.is_legal(*result.move)


def test_every_tunable_of_the_search_says_why_and_the_kernels_read_them_from_params():
    """search/params.py is the one home of the search's tunables: each has a comment (on its
    line or just above, a group comment counts for the lines under it), and the kernel
    modules use the same objects, not copies that could drift."""
    import ast
    import inspect

    from gomoku_engine.search import alphabeta, ga, params, threats

    lines = inspect.getsource(params).splitlines()
    names = []
    for node in ast.parse("\n".join(lines)).body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            names.append(target.id)
            row = node.lineno - 1
            while "#" not in lines[row] and row > 0 and lines[row - 1].strip():
                row -= 1  # up through its group of lines to the group's comment
            assert "#" in lines[row], f"{target.id} has no comment"
    for module in (alphabeta, threats, ga):
        for name in names:
            if hasattr(module, name):
                assert getattr(module, name) is getattr(params, name), (module, name)
    assert params.ROOT_VCF_DEPTH == (threats.MAX_LINE - 2) // 2  # as many fours as a line holds


def test_negamax_is_compiled_without_reference_counting():
    """numba's reference counting of negamax's 63 array arguments cost a quarter of the
    search's CPU time (docs/strength.md, "Search speed"); the flag must stay off, for the
    move collector it calls at every inner node too."""
    assert alphabeta.negamax.targetoptions.get("_nrt") is False
    assert alphabeta._collect_moves.targetoptions.get("_nrt") is False


def test_threat_solvers_are_compiled_without_reference_counting():
    """The same for the recursive threat solvers over ``Position``, ``Tables`` and
    ``ThreatState`` (45 arrays): without the counting they solve the same nodes in about
    0.6 of the CPU time (docs/strength.md, "Search speed")."""
    assert threats.vcf.targetoptions.get("_nrt") is False
    assert threats.vct_dfpn.targetoptions.get("_nrt") is False


def test_transposition_table_keeps_drafts_in_fractional_plies():
    # Depth 10 is 160 units: past what a one-byte draft holds.
    from gomoku_engine.search.params import ONE_PLY

    engine = engine_at("j12o10m10m12o12l9o7k7j7n6j13l11")
    result = engine.search(Limits(depth=10))
    assert result.depth == 10
    tt = engine._state.tt
    root = tt[tt["key"] == engine.board.position.key[0]]
    assert root.size == 1 and root["depth"][0] == 10 * ONE_PLY
    assert tt["depth"].max() == 10 * ONE_PLY
