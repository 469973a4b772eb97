"""Wins by rule alone (rapfi's ``quickWinCheck``): a double three or a four-three that the
search scores as a win in 5 plies without searching it (``search.alphabeta._quick_win``).

Every claim is checked by playing it out: after the claimed move, each legal reply of the
opponent leaves the side that claimed it a five point, or a move that makes two five
points while the opponent has none.
"""

from __future__ import annotations

import numpy as np
import pytest

from gomoku_engine.core.constants import (
    BLACK, EMPTY, MATE, T_DOUBLE_THREE, T_FIVE, T_FOUR, T_FOUR_THREE, T_OPEN_FOUR, Rule,
)
from gomoku_engine.engine import Limits
from gomoku_engine.game.board import Board
from gomoku_engine.search.alphabeta import _quick_win

from helpers import engine_with

SIZE = 15
#: a point away from every stone of the composed positions below
FAR_WHITE = [(0, 0), (14, 14), (0, 14), (14, 0)]


def _class(board: Board, side: int, x: int, y: int) -> int:
    return int(board.position.threat[side, board.geometry.index(x, y)])


def _count(board: Board, side: int, threat: int) -> int:
    return int(board.position.threat_count[side, threat])


def _empty(board: Board) -> list[tuple[int, int]]:
    cells = board.geometry.points
    return [board.geometry.xy(c) for c in cells[board.position.cells[cells] == EMPTY]]


def _claim(board: Board) -> tuple[int, int] | None:
    """The point ``_quick_win`` claims for the side to move, or None."""
    us = board.to_move - 1
    scratch = np.zeros((1, board.width * board.height), np.int32)
    cell = _quick_win(board.position, board.tables, us, 1 - us, scratch, 0)
    return None if cell < 0 else board.geometry.xy(cell)


def _wins_in_three(board: Board, us: int) -> bool:
    """Does ``us`` (to move) have a five point, or a move that leaves two five points of
    its own and none of the opponent's?"""
    if _count(board, us, T_FIVE) > 0:
        return True
    for x, y in _empty(board):
        if _class(board, us, x, y) < T_FOUR or not board.is_legal(x, y):
            continue
        board.play(x, y)
        won = _count(board, us, T_FIVE) >= 2 and _count(board, 1 - us, T_FIVE) == 0
        board.undo()
        if won:
            return True
    return False


def _holds(board: Board, point: tuple[int, int]) -> bool:
    """Is ``point`` a win in 5 for the side to move, whatever the opponent replies?"""
    us = board.to_move - 1
    board.play(*point)
    try:
        for x, y in _empty(board):
            if not board.is_legal(x, y):
                continue
            if _class(board, 1 - us, x, y) == T_FIVE:
                return False  # the opponent makes five
            board.play(x, y)
            won = _wins_in_three(board, us)
            board.undo()
            if not won:
                return False
        return True
    finally:
        board.undo()


def test_a_double_three_against_no_four_is_a_win_in_five_at_depth_one():
    """Black's (7,7) makes two open threes; white can make no four.  A depth-1 search
    scores it as a win in 5 (the search without the rule scores it by the evaluation)."""
    engine = engine_with([(5, 7), (6, 7), (7, 5), (7, 6)], FAR_WHITE, BLACK)
    assert _class(engine.board, 0, 7, 7) == T_DOUBLE_THREE
    result = engine.search(Limits(depth=1, threats=False))
    assert result.move == (7, 7) and result.score == MATE - 5


def test_a_four_three_whose_block_makes_no_four_wins_against_fours_elsewhere():
    """Black's (7,7) makes a four on row 7 (blocked at (3,7), five point (8,7)) and an open
    three on column 7; white has a four point at (0,13) but its block at (8,7) makes no
    four: a win in 5.  Where the block would make white a four, no claim."""
    black = [(4, 7), (5, 7), (6, 7), (7, 5), (7, 6), (0, 9)]
    white = [(3, 7), (0, 10), (0, 11), (0, 12), (14, 14), (14, 0)]
    engine = engine_with(black, white, BLACK)
    board = engine.board
    assert _class(board, 0, 7, 7) == T_FOUR_THREE and _class(board, 1, 0, 13) >= T_FOUR
    assert _claim(board) == (7, 7) and _holds(board, (7, 7))
    result = engine.search(Limits(depth=1, threats=False))
    assert result.move == (7, 7) and result.score == MATE - 5

    # white stones on column 8 make the block (8,7) a four for white: no claim
    held = engine_with(black, white[:4] + [(8, 8), (8, 9), (8, 10)], BLACK).board
    assert _class(held, 0, 7, 7) == T_FOUR_THREE and _class(held, 1, 8, 7) >= T_FOUR
    assert _claim(held) is None


def _random_games(rng: np.random.Generator, rule: Rule, games: int, plies: int):
    """The positions of ``games`` games of random moves near the stones, after each ply up
    to ``plies`` (a game ends early at a five)."""
    for _ in range(games):
        board = Board(SIZE, rule=rule)
        board.play(7, 7)
        for _ in range(plies - 1):
            stones = board.stones()
            legal = [(x, y) for x, y in _empty(board) if board.is_legal(x, y)
                     and any(abs(x - sx) <= 2 and abs(y - sy) <= 2 for sx, sy, _ in stones)]
            board.play(*legal[rng.integers(len(legal))])
            if board.winner:
                break
            yield board


@pytest.mark.parametrize("rule", [Rule.FREESTYLE, Rule.STANDARD, Rule.RENJU])
def test_every_claim_on_random_positions_holds(rule):
    """Along random games of 40 moves each claim is played out and holds.  Positions with
    a four-three or double-three point for which the rule claims nothing occur too, and
    the same play-out shows some of those points are no win (the rule is not "every such
    point wins", and the check can fail)."""
    rng = np.random.default_rng(2026 + int(rule))
    claims = {T_FOUR_THREE: 0, T_DOUBLE_THREE: 0}
    unclaimed = refuted = 0  # points of those classes not claimed; of them, not wins
    for board in _random_games(rng, rule, 40, 40):
        us = board.to_move - 1
        if (_count(board, us, T_FIVE) + _count(board, 1 - us, T_FIVE)
                + _count(board, us, T_OPEN_FOUR) > 0):
            continue  # the search decides these before the rule is asked
        if rule == Rule.RENJU and us == 0:
            continue  # never asked for renju black
        point = _claim(board)
        if point is None:
            for x, y in _empty(board):
                if _class(board, us, x, y) in (T_FOUR_THREE, T_DOUBLE_THREE):
                    unclaimed += 1
                    refuted += not _holds(board, (x, y))
                    break
            continue
        assert _holds(board, point), (rule, board.stones(), point)
        claims[_class(board, us, *point)] += 1
    assert claims[T_FOUR_THREE] >= 5 and claims[T_DOUBLE_THREE] >= 5, claims
    # the play-out can say no: some unclaimed points of those classes are not wins
    assert unclaimed >= 5 and refuted >= 3, (unclaimed, refuted)
