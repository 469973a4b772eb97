"""The VCF quiescence at the horizon (tunables ``horizon_quiescence``,
``quiescence_near``, ``quiescence_delta``; off by default) and the threatened-node forms
(``threatened_relief``, ``threatened_move_count``)."""

from __future__ import annotations

import numpy as np

from gomoku_engine.bench import POSITIONS
from gomoku_engine.core.constants import MATE_BOUND
from gomoku_engine.engine import Engine
from gomoku_engine.search.alphabeta import NODES, clear_search_state, quiescence

from helpers import fixed_depth_search

MIDGAME = next(p.moves for p in POSITIONS if p.name == "15 midgame A")

# Black (to move) has a four-three point at (6, 7): the closed three (3..5, 7), blocked by
# white's (2, 7), and the two stones (6, 8), (6, 9) of an open column.  Black's last stone
# (12, 12) is far from it; the stone before that, (6, 9), is on its column.
BLACK = ((3, 7), (4, 7), (5, 7), (6, 8), (6, 9), (12, 12))
WHITE = ((2, 7), (0, 0), (14, 0), (0, 14), (14, 14), (14, 7))


def _engine(**params: float) -> Engine:
    engine = Engine(15, hash_mb=1)
    for b, w in zip(BLACK, WHITE):
        engine.board.play(*b)
        engine.board.play(*w)
    for name, value in params.items():
        engine.set_param(name, value)
    clear_search_state(engine._state)
    return engine


def _quiescence(engine: Engine, alpha: int, beta: int, fours: int = 4) -> tuple[int, int]:
    """The quiescence's value at the root and the nodes it counted."""
    ss = engine._state
    ss.counters[NODES] = 0
    value = quiescence(engine.board.position, engine.board.tables, ss, np.int64(alpha),
                       np.int64(beta), np.int64(0), np.int64(fours))
    return int(value), int(ss.counters[NODES])


def test_every_four_on_the_board_finds_the_four_three():
    value, _ = _quiescence(_engine(quiescence_near=0), -MATE_BOUND, MATE_BOUND)
    assert value > MATE_BOUND  # the four, its block, then the open four


def test_near_the_last_stone_only_misses_a_four_three_far_from_it():
    value, nodes = _quiescence(_engine(quiescence_near=1), -MATE_BOUND, MATE_BOUND)
    assert -MATE_BOUND < value < MATE_BOUND and nodes == 1  # stood pat, no four tried


def test_near_the_last_two_stones_finds_it_again():
    value, _ = _quiescence(_engine(quiescence_near=2), -MATE_BOUND, MATE_BOUND)
    assert value > MATE_BOUND


def test_no_four_is_tried_without_a_four_left():
    value, nodes = _quiescence(_engine(quiescence_near=0), -MATE_BOUND, MATE_BOUND, fours=0)
    assert -MATE_BOUND < value < MATE_BOUND and nodes == 1


def test_delta_pruning_keeps_the_four_threes_and_drops_the_plain_fours():
    engine = _engine(quiescence_near=0, quiescence_delta=2000)
    stand_pat, _ = _quiescence(engine, -MATE_BOUND, MATE_BOUND, fours=0)
    alpha = stand_pat + 5000  # far above the evaluation: a plain four cannot reach it
    assert _quiescence(engine, alpha, alpha + 1)[0] > MATE_BOUND  # the four-three still wins
    # with only plain fours left (the four-three point taken), none is tried far below
    # alpha; without delta pruning they are
    engine.board.play(6, 7)  # black's four-three
    engine.board.play(7, 7)  # white blocks the four
    engine.board.play(12, 13)  # black elsewhere
    engine.board.play(6, 6)  # white blocks the open three below
    value, nodes = _quiescence(engine, 500_000, 500_001)
    assert nodes == 1 and value < MATE_BOUND
    engine.set_param("quiescence_delta", 0)
    value, nodes = _quiescence(engine, 500_000, 500_001)
    assert nodes > 1 and value < MATE_BOUND


def test_the_threatened_node_forms_change_the_tree():
    """The bench's midgame searched to depth 6 and 8 meets threatened nodes (the opponent
    has a four-three or open-four point): without the relief of forcing moves there, or
    with move-count pruning of the defences (which acts where ``threatened_pruning``
    lets pruning act), the tree differs from the one without."""
    def nodes(depth: int, **params: float) -> int:
        return fixed_depth_search(MIDGAME, depth, **params)[1]

    assert nodes(6, threatened_relief=0) != nodes(6)
    assert nodes(8, threatened_pruning=1, threatened_move_count=1) != nodes(8, threatened_pruning=1)
