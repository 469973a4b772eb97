"""The extensions in rapfi's form (tunables ``four_reply_extension``,
``tt_move_extension_pv``, ``tt_move_extension``, ``lmr_extend``, ``lmr_deeper``), the
singular extension (``singular_depth`` and its companions) and rapfi's fail-high reduction
(``fail_high_reduction``) and the search of threatened horizon nodes
(``threat_leaf_search``); all off by default."""

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
    {"fail_high_reduction": 16},
    {"threat_leaf_search": 1},
    {"threat_leaf_search": 2},
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


#: a position of a game against Rapfi (the development openings, 2026-11-29) where the side
#: to move wins by VCT but has no VCF nor a win by rule: the depth-7 search finds the mate
#: through nodes with quiet replies, where the extensions act
VCT_WIN = ("1,5 1,4 4,5 5,3 4,1 3,6 1,3 0,0 2,6 3,5 4,3 4,4 3,4 5,6 5,2 2,5 4,7 5,7 5,4 6,6 "
           "6,1 7,0 3,2 2,1")


def test_a_forced_win_is_still_found_with_the_extensions_on():
    """With every extension on, the search takes another path (other node counts) to the
    same forced win."""
    on = {"four_reply_extension": 5, "tt_move_extension_pv": 4, "tt_move_extension": 1,
          "lmr_extend": 1, "lmr_deeper": 700, "singular_depth": 3}
    plain_score, plain_nodes, _, _ = _search(7, VCT_WIN)
    score, nodes, _, _ = _search(7, VCT_WIN, **on)
    assert plain_score > MATE_BOUND and score > MATE_BOUND
    assert nodes != plain_nodes


def test_the_fail_high_reduction_acts_only_where_the_margin_allows():
    """Rapfi's fail-high reduction takes a ply off the moves of expected cut nodes whose
    evaluation is far above beta; with a margin no evaluation reaches, it never acts."""
    plain = _search(10)[1]
    assert _search(10, fail_high_reduction=16)[1] != plain
    assert _search(10, fail_high_reduction=16, fail_high_bias=4000, fail_high_margin=4000,
                   fail_high_threatened=10000)[1] == plain


def test_a_forced_win_is_still_found_with_the_fail_high_reduction():
    """The reduction spares fours, so a VCT win at depth 7 is still found."""
    score = _search(7, VCT_WIN, fail_high_reduction=16)[0]
    assert score > MATE_BOUND
