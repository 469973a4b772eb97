"""Incremental make/unmake against from-scratch recomputation (property tests; the
recomputation is :func:`helpers.check_against_reference`)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gomoku_engine
from gomoku_engine.eval import evaluator
from gomoku_engine.game import position
from gomoku_engine.game.board import Board
from gomoku_engine.core.constants import BLACK, Rule
from gomoku_engine.core.patterns import line_table

from helpers import check_against_reference, has_five

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


def test_only_the_evaluation_touches_its_arrays():
    """The evaluator seam: ``eval_*`` arrays of the position and its tables are read and
    written by :mod:`gomoku_engine.eval` alone, and the evaluation agrees with the position
    on where the side to move is kept."""
    package = Path(gomoku_engine.__file__).parent
    offenders = [str(path.relative_to(package)) for path in package.rglob("*.py")
                 if path.parent.name != "eval"
                 and re.search(r"(?<!eval)\.eval_(value|sum|table)\b|\.value(_sum)?\[|combo_value",
                               path.read_text())]
    assert offenders == []
    assert evaluator.TO_MOVE == position.TO_MOVE
    assert (evaluator.PLY, evaluator.UNDO_LEN, evaluator.NET_PLY, evaluator.U_CELL,
            evaluator.P_STRIDE) == (position.PLY, position.UNDO_LEN, position.NET_PLY,
                                    position.U_CELL, position.P_STRIDE)


@pytest.mark.parametrize("rule", list(Rule))
def test_line_table_index_reads_every_key_as_the_full_table(rule):
    """Freestyle's line table leaves out the two cells five away from the point (64 KiB
    instead of 1 MiB); read through :func:`position.line_index` it must give every one of
    the 2**20 line keys the patterns of the rule's full table."""
    tables = Board(15, rule=rule).tables
    full = line_table(rule).astype(np.uint8)
    keys = np.arange(full.shape[1], dtype=np.int64)
    index = position.line_index.py_func(tables, keys)  # the kernels' own index, on every key
    assert np.array_equal(tables.line_pair[index], full[0] | (full[1] << 4))
    if rule == Rule.FREESTYLE:
        assert tables.line_pair.nbytes == 1 << 16
