"""The game-move policy shared by the protocol loop and the human game."""

from __future__ import annotations

import random

from gomoku_engine.core.constants import MATE
from gomoku_engine.search.levels import LEVELS
from gomoku_engine.search.limits import SearchResult
from gomoku_engine.protocol.policy import apply_blunder, move_limits
from gomoku_engine.search.timeman import TimeControl


def test_limits_take_the_budget_and_the_tighter_caps():
    budget = TimeControl(turn_ms=2000).budget(10)
    full = move_limits(budget, 10, start=5.0)
    assert (full.soft_ms, full.hard_ms, full.depth, full.nodes, full.start) == (
        *budget, None, None, 5.0)
    assert full.threats and not full.vct and not full.horizon_vcf  # Limits' defaults
    capped = move_limits(budget, 7, max_depth=3, max_nodes=10**9)
    assert (capped.depth, capped.nodes) == (3, LEVELS[7].nodes)
    flags = move_limits(budget, threats=False, vct=True, horizon_vcf=True)
    assert (flags.threats, flags.vct, flags.horizon_vcf) == (False, True, True)


def _result(score: int) -> SearchResult:
    return SearchResult((7, 7), score, 3, 3, 100, 1.0, [(7, 7), (8, 8)])


def test_only_a_blundering_level_blunders_and_never_with_a_forced_result():
    stones = [(7, 7)]
    empty = lambda x, y: (x, y) not in stones  # noqa: E731
    rng = random.Random(1)
    state = rng.getstate()
    assert apply_blunder(_result(5), 10, rng, stones, empty, 15, 15).move == (7, 7)
    assert rng.getstate() == state  # a full-strength level draws nothing
    for score in (MATE - 3, -(MATE - 4)):
        assert apply_blunder(_result(score), 1, rng, stones, empty, 15, 15).move == (7, 7)
    moves = {apply_blunder(_result(5), 1, rng, stones, empty, 15, 15).move for _ in range(200)}
    assert (7, 7) in moves and len(moves) > 2  # level 1 blunders half of its moves
    assert all(max(abs(x - 7), abs(y - 7)) <= 1 for x, y in moves)
