"""Incremental make/unmake against from-scratch recomputation (property tests)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gomoku_engine.board import Board
from gomoku_engine.constants import BLACK, EMPTY, N_THREATS, T_NONE, WHITE, Rule
from gomoku_engine.evaluation import (
    combination_tables, reference_evaluation, reference_point_patterns,
)
from gomoku_engine.position import evaluate
from gomoku_engine.rules import foul_type

from helpers import has_five

_THREAT, _VALUE, _FOUL = combination_tables()


def reference_zobrist(board: Board) -> int:
    key = np.uint64(0)
    z = board.tables.zobrist
    for x, y, colour in board.stones():
        key ^= z[colour, board.geometry.index(x, y)] ^ z[0, 0]
    return int(key)


def check_against_reference(board: Board) -> None:
    pos, g = board.position, board.geometry
    black, white, score = reference_evaluation(g, pos.cells, board.rule, board.to_move)
    assert list(pos.value_sum) == [black, white]
    assert evaluate(pos) == score
    counts = np.zeros((2, N_THREATS), np.int64)
    for cell in g.points:
        if pos.cells[cell] != EMPTY:
            assert pos.threat[0, cell] == pos.threat[1, cell] == 0
            continue
        for side, colour in enumerate((BLACK, WHITE)):
            patterns = reference_point_patterns(g, pos.cells, board.rule, int(cell), colour)
            assert list(pos.patterns[side, cell]) == patterns
            code = sum(p << (4 * d) for d, p in enumerate(patterns))
            threat = _THREAT[code]
            if side == 0 and board.rule == Rule.RENJU:
                foul = foul_type(pos.cells.copy(), g.directions, int(cell))
                assert pos.foul[cell] == foul
                if foul:
                    threat = T_NONE
            assert pos.threat[side, cell] == threat
            counts[side, threat] += 1
    assert (pos.threat_count == counts).all()
    assert board.key() == reference_zobrist(board)
    near = np.zeros_like(pos.near)
    for x, y, _ in board.stones():
        near[g.index(x, y) + g.neighbourhood] += 1
    assert (pos.near == near).all()


moves = st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8)), min_size=1, max_size=40)


@settings(max_examples=40, deadline=None)
@given(moves=moves, undo=st.integers(0, 40), rule=st.sampled_from(list(Rule)))
def test_incremental_state_equals_recomputation(moves, undo, rule):
    board = Board(9, rule=rule)
    for x, y in moves:
        if board.is_legal(x, y) and not board.winner:
            board.play(x, y)
            assert bool(board.winner) == has_five(board, 3 - board.to_move)
    check_against_reference(board)
    for _ in range(min(undo, board.ply)):
        board.undo()
    check_against_reference(board)


@settings(max_examples=25, deadline=None)
@given(moves=moves, rule=st.sampled_from(list(Rule)))
def test_unmake_restores_every_array_exactly(moves, rule):
    board = Board(9, rule=rule)
    before = [a.copy() for a in board.position]
    played = 0
    for x, y in moves:
        if board.is_legal(x, y):
            board.play(x, y)
            played += 1
    for _ in range(played):
        board.undo()
    for name, old, new in zip(board.position._fields, before, board.position):
        if name in ("moves", "key_stack", "undo", "undo_start", "count_stack"):
            continue  # per-ply history and the undo log: scratch space beyond the ply
        assert np.array_equal(old, new), name


def test_window_tables_count():
    assert Board(15).geometry.n_windows == 572
    assert Board(20).geometry.n_windows == 2 * 16 * 20 + 2 * 16 * 16  # 1152


def test_rectangular_board_and_edges():
    board = Board(7, 12)
    for y in range(5):
        board.play(6, y)      # black down the right edge
        if y < 4:
            board.play(0, y)  # white on the left edge
    assert board.winner == BLACK
    check_against_reference(board)


def test_standard_overline_is_no_win():
    board = Board(15, rule=Rule.STANDARD)
    for x in (0, 1, 2, 4, 5):
        board.play(x, 0, BLACK)
    board.play(3, 0, BLACK)   # six in a row
    assert board.winner == 0
    free = Board(15)
    for x in (0, 1, 2, 4, 5):
        free.play(x, 0, BLACK)
    free.play(3, 0, BLACK)
    assert free.winner == BLACK
