"""The extensions in rapfi's form (tunables ``four_reply_extension``,
``tt_move_extension_pv``, ``tt_move_extension``, ``lmr_extend``, ``lmr_deeper``) and the
singular extension (``singular_depth`` and its companions); all off by default."""

from __future__ import annotations

import pytest

from gomoku_engine.bench import POSITIONS
from gomoku_engine.core.constants import MATE_BOUND
from gomoku_engine.engine import Engine
from gomoku_engine.search.alphabeta import EXCLUDED

from helpers import fixed_depth_search

MIDGAME = next(p.moves for p in POSITIONS if p.name == "15 midgame A")


def _search(depth: int, moves: str = MIDGAME, **params: float) -> tuple[int, int, list[int], Engine]:
    """A fresh search by iterative deepening to ``depth`` (without a TT move from the
    iteration before, the singular extension has nothing to test)."""
    return fixed_depth_search(moves, depth, first_depth=1, **params)


@pytest.mark.parametrize("params", [
    {"four_reply_extension": 5},
    {"tt_move_extension_pv": 4, "tt_move_extension": 1},
    {"lmr_extend": 1},
    {"lmr_deeper": 700},
    {"singular_depth": 5},
])
def test_each_extension_changes_the_tree_and_keeps_a_legal_line(params):
    _, plain, _, _ = _search(8)
    score, nodes, pv, engine = _search(8, **params)
    assert nodes != plain  # the tunable is read
    assert abs(score) < MATE_BOUND  # a quiet middle game stays unproven at depth 8
    cells = engine.board.position.cells
    assert pv and cells[pv[0]] == 0  # the PV starts on an empty point


def test_the_singular_extension_waits_for_its_depth():
    """Below ``singular_depth`` nothing is tested: the tree is the one without it."""
    assert _search(6, singular_depth=7)[1] == _search(6)[1]
    assert _search(8, singular_depth=7)[1] != _search(8)[1]


def test_the_excluded_move_does_not_outlive_its_search():
    """The TT move the singular extension's search leaves out is handed over in a counter
    that the next node clears: none is left after the search."""
    engine = _search(9, singular_depth=4)[3]
    assert engine._state.counters[EXCLUDED] == 0


def test_a_forced_win_is_still_found_with_the_extensions_on():
    """Black to move has a four-three point at (6, 7) (closed three (3..5, 7) blocked by
    white's (2, 7), open two (6, 8), (6, 9)): a win in 5 by rule, with every extension on
    as without."""
    black = ((3, 7), (4, 7), (5, 7), (6, 8), (6, 9), (12, 12))
    white = ((2, 7), (0, 0), (14, 0), (0, 14), (14, 14), (14, 7))
    moves = " ".join(f"{b[0]},{b[1]} {w[0]},{w[1]}" for b, w in zip(black, white))
    on = {"four_reply_extension": 5, "tt_move_extension_pv": 4, "tt_move_extension": 1,
          "lmr_extend": 1, "lmr_deeper": 700, "singular_depth": 3}
    for params in ({}, on):
        score, _, _, _ = _search(6, moves, **params)
        assert score > MATE_BOUND
