"""What a search must not change: the colours' names, the board's symmetries, its
transposition table, and what alpha-beta computes (the minimax value over the same
candidates and evaluation).

"Selectivity off" is :data:`gomoku_engine.search.params.SELECTIVITY_OFF`: no pruning or
reduction within the candidates, so the value at a fixed depth is the plain minimax value
and the checks below are exact.  With the defaults (pruning on) only the colour swap is
exact: every pruning rule reads the same numbers for the same stones whatever their
colours' names.
"""

from __future__ import annotations

import numpy as np
import pytest

from gomoku_engine.bench import POSITIONS
from gomoku_engine.core.constants import (
    BLACK, INFINITY, MATE, MATE_BOUND, T_FIVE, T_OPEN_FOUR, Rule,
)
from gomoku_engine.core.notation import parse_moves
from gomoku_engine.engine import Engine, Limits
from gomoku_engine.eval import evaluate
from gomoku_engine.game.position import PLY, P_RENJU
from gomoku_engine.search.alphabeta import (
    LOST_TO_FIVE, NODES, _forced_blocks, _quick_win, clear_search_state, generate_moves,
    search_depth,
)
from gomoku_engine.search.params import SELECTIVITY_OFF

BY_NAME = {p.name: p for p in POSITIONS}
#: the positions of the swap and symmetry checks: an opening, a middle game, a tactical one
SWAPPED = ["15 opening", "15 midgame A", "15 tactical", "15 midgame standard"]


def _stones(moves: str) -> list[tuple[int, int, int]]:
    return [(x, y, BLACK if i % 2 == 0 else 3 - BLACK)
            for i, (x, y) in enumerate(parse_moves(moves))]


def _engine(stones, to_move: int, rule: Rule, size: int = 15, selective: bool = True,
            **params: float) -> Engine:
    engine = Engine(size, rule=rule, hash_mb=1)
    if not selective:
        for name, value in SELECTIVITY_OFF.items():
            engine.set_param(name, value)
    for name, value in params.items():
        engine.set_param(name, value)
    engine.board.set_stones(stones, to_move)
    return engine


def _fixed_depth(engine: Engine, depth: int) -> tuple[int, int]:
    """The score and move of one fresh search at ``depth`` plies (full window, no
    iterative deepening, no threat search at the root)."""
    ss = engine._state
    clear_search_state(ss)
    ss.counters[NODES] = 0
    score = search_depth(engine.board.position, engine.board.tables, ss, engine._threats,
                         depth, -INFINITY, INFINITY)
    return score, int(ss.pv[0, 0])


def _to_move(stones) -> int:
    return BLACK if len(stones) % 2 == 0 else 3 - BLACK


# --- colour swap ------------------------------------------------------------------------------
@pytest.mark.parametrize("selective", [True, False], ids=["defaults", "selectivity-off"])
@pytest.mark.parametrize("name", SWAPPED)
def test_swapping_the_colours_changes_nothing(name, selective):
    """The same stones with the colours exchanged, and the other colour to move: the same
    move and score, as a game search (threat search at the root, iterative deepening)
    and as one fixed-depth search."""
    bench = BY_NAME[name]
    stones = _stones(bench.moves)
    swapped = [(x, y, 3 - c) for x, y, c in stones]
    to_move = _to_move(stones)
    depth = 6 if selective else 4
    a = _engine(stones, to_move, bench.rule, selective=selective)
    b = _engine(swapped, 3 - to_move, bench.rule, selective=selective)
    ra, rb = a.search(Limits(depth=depth)), b.search(Limits(depth=depth))
    assert (ra.move, ra.score, ra.nodes) == (rb.move, rb.score, rb.nodes)
    assert _fixed_depth(a, 3) == _fixed_depth(b, 3)


# --- symmetries ---------------------------------------------------------------------------------
def _transform(x: int, y: int, k: int, size: int) -> tuple[int, int]:
    """The ``k``-th (0..7) symmetry of the square board: rotations, then mirrored."""
    for _ in range(k % 4):
        x, y = size - 1 - y, x
    if k >= 4:
        x = size - 1 - x
    return x, y


@pytest.mark.parametrize("name", ["15 opening", "15 midgame A", "15 tactical"])
def test_the_eight_symmetries_give_the_same_score_and_the_image_of_the_move(name):
    bench = BY_NAME[name]
    stones = _stones(bench.moves)
    to_move = _to_move(stones)
    scores, moves = [], []
    for k in range(8):
        image = [(*_transform(x, y, k, 15), c) for x, y, c in stones]
        engine = _engine(image, to_move, bench.rule, selective=False)
        score, cell = _fixed_depth(engine, 3)
        scores.append(score)
        moves.append(engine.board.geometry.xy(cell))
    assert len(set(scores)) == 1, scores
    # the original's move, mapped, scores the same in every image (ties may pick another)
    best = moves[0]
    for k in range(8):
        image = [(*_transform(x, y, k, 15), c) for x, y, c in stones]
        engine = _engine(image, to_move, bench.rule, selective=False)
        engine.board.play(*_transform(*best, k, 15))
        assert _one_ply_up(_fixed_depth(engine, 2)[0]) == scores[0], (k, best, moves[k])


def _one_ply_up(score: int) -> int:
    """A child's score (its side to move's) as its parent sees it: negated, and a mate
    one ply further away."""
    if score > MATE_BOUND:
        return -score + 1
    if score < -MATE_BOUND:
        return -score - 1
    return -score


# --- alpha-beta against plain minimax ---------------------------------------------------------
def _minimax(engine: Engine, depth: int, ply: int) -> int:
    """The plain minimax (negamax form, no bounds, no table) of the search's tree: its rules
    at a node (five now, the blocks of the opponent's five points, an open four, a win by
    rule), then the evaluation at depth 0, else every candidate of its move generator."""
    board, ss = engine.board, engine._state
    pos, tab = board.position, board.tables
    us = board.to_move - 1
    them = 1 - us
    if pos.threat_count[us, T_FIVE] > 0:
        return MATE - ply - 1
    blocks = _forced_blocks(pos, tab, ss, us, ply)
    if blocks == LOST_TO_FIVE:
        return -(MATE - ply - 2)
    if blocks > 0:
        children = [int(c) for c in ss.move_buf[ply, :blocks]]
        return max(_child(engine, cell, depth, ply) for cell in children)
    if pos.threat_count[us, T_OPEN_FOUR] > 0:
        return MATE - ply - 3
    if us == 1 or tab.params[P_RENJU] == 0:
        if _quick_win(pos, tab, us, them, ss.move_buf, ply) >= 0:
            return MATE - ply - 5
    if pos.state[PLY] >= tab.points.shape[0]:
        return 0
    if depth <= 0:
        return int(evaluate(pos, tab))
    n = generate_moves(pos, tab, ss, ply, -1, int(SELECTIVITY_OFF["breadth"]))
    if n == 0:
        return int(evaluate(pos, tab))
    children = [int(c) for c in ss.move_buf[ply, :n]]
    return max(_child(engine, cell, depth - 1, ply) for cell in children)


def _child(engine: Engine, cell: int, depth: int, ply: int) -> int:
    engine.board.play(*engine.board.geometry.xy(cell))
    try:
        return -_minimax(engine, depth, ply + 1)
    finally:
        engine.board.undo()


@pytest.mark.parametrize("moves, rule, depth", [
    ("h8i9", Rule.FREESTYLE, 3),
    ("h8i9j8i8", Rule.STANDARD, 3),
    ("g5k2n2k5g6j4i3k4k3l4i4l3m4", Rule.FREESTYLE, 2),  # the bench's tactical position
    ("j12o10m10m12o12l9o7k7j7n6j13l11j9j11j8j6l8k8k9k6", Rule.FREESTYLE, 2),
    ("h8i9g8i8j8", Rule.CARO, 3),  # black's open three, white threatened
])
def test_alpha_beta_with_its_table_equals_plain_minimax(moves, rule, depth):
    stones = _stones(moves)
    engine = _engine(stones, _to_move(stones), rule, selective=False)
    score, _ = _fixed_depth(engine, depth)
    plain = _engine(stones, _to_move(stones), rule, selective=False)
    assert score == _minimax(plain, depth, 0)


# --- the table on and off ----------------------------------------------------------------------
@pytest.mark.parametrize("name", ["15 opening", "15 midgame A", "15 tactical",
                                  "15 midgame standard"])
def test_the_transposition_table_changes_the_work_not_the_result(name):
    bench = BY_NAME[name]
    stones = _stones(bench.moves)
    to_move = _to_move(stones)
    on = _engine(stones, to_move, bench.rule, selective=False)
    off = _engine(stones, to_move, bench.rule, selective=False, tt_reads=0)
    assert _fixed_depth(on, 4) == _fixed_depth(off, 4)
    assert on._state.counters[NODES] < off._state.counters[NODES]
