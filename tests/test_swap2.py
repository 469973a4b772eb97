"""Swap2 decisions (protocol notes 2.12) come from the engine's search of the positions."""

from __future__ import annotations

import pytest

from gomoku_engine.core.constants import Rule
from gomoku_engine.engine import Engine
from gomoku_engine.protocol.swap2 import (BALANCED, PROPOSAL_RADIUS, answer_five, answer_three,
                                          propose_opening)

from helpers import engine_with as engine_with_stones
from helpers import in_move_order


#: Each search stops at this depth, far inside the budget, so every decision below is the
#: same on any machine (a time-limited search of an opening swings by hundreds between
#: depths, which made a 600 ms proposal's score vary from run to run).
DEPTH = 8
#: Wall-time cap (ms), only there so that a broken depth limit cannot hang the suite.
BUDGET_MS = 30_000


def engine_with(stones) -> Engine:
    """Stones in move order (black first); white to move after an odd count."""
    return engine_with_stones(*in_move_order(stones), rule=Rule.STANDARD)


@pytest.mark.parametrize("rule", [Rule.FREESTYLE, Rule.STANDARD])
def test_proposal_is_three_free_stones_near_the_centre_and_its_most_balanced_candidate(rule):
    """With the default evaluation (each rule's network where the package ships one)."""
    engine = Engine(15, rule=rule, hash_mb=4)
    choice = propose_opening(engine, BUDGET_MS, depth=DEPTH)
    assert not choice.swap and len(set(choice.moves)) == 3
    assert all(abs(x - 7) <= PROPOSAL_RADIUS and abs(y - 7) <= PROPOSAL_RADIUS
               for x, y in choice.moves)
    assert engine.board.moves() == choice.moves  # left on the board, white to move
    assert abs(choice.score) < 5 * BALANCED


def test_five_stones_lost_for_white_is_swapped():
    # black: an open three h8 i8 j8; white's two stones far away in the corners
    engine = engine_with([(7, 7), (0, 0), (8, 7), (14, 14), (9, 7)])
    choice = answer_five(engine, BUDGET_MS, depth=DEPTH)
    assert choice.swap and choice.score < 0


def test_five_stones_good_for_white_stays_white_with_a_sixth_stone():
    # white: h9 i9 j9 would be an open three after its move; black's stones are scattered
    engine = engine_with([(1, 1), (7, 8), (13, 1), (8, 8), (1, 13)])
    choice = answer_five(engine, BUDGET_MS, depth=DEPTH)
    assert not choice.swap and len(choice.moves) == 1 and choice.score >= 0
    assert engine.board.is_legal(*choice.moves[0])


#: Three stones (black, white, black) where white is a stone down: black's two stones
#: touch at the centre, white's one is in a corner.  The side with the extra central stone
#: is clearly better, so white takes black (by the position, not by the code's branches).
WHITE_A_STONE_DOWN = [(7, 7), (0, 0), (8, 8)]
#: The other way round: black's two stones in corners, white's at the centre, white to move
WHITE_A_STONE_UP = [(0, 0), (7, 7), (14, 14)]


@pytest.mark.parametrize("two_stones", [True, False], ids=["swap2", "swap1"])
def test_three_stones_with_white_a_stone_down_are_swapped(two_stones):
    engine = engine_with(WHITE_A_STONE_DOWN)
    choice = answer_three(engine, BUDGET_MS, two_stones=two_stones, depth=DEPTH)
    assert choice.swap and choice.score < 0, choice
    assert engine.board.ply == 3  # the board is left as given


@pytest.mark.parametrize("two_stones", [True, False], ids=["swap2", "swap1"])
def test_three_stones_with_white_a_stone_up_stay_white_with_one_stone(two_stones):
    """White, better by a stone, keeps its colour and plays the fourth stone next to its
    own (a clear advantage is never handed over as two balanced stones)."""
    engine = engine_with(WHITE_A_STONE_UP)
    choice = answer_three(engine, BUDGET_MS, two_stones=two_stones, depth=DEPTH)
    assert not choice.swap and len(choice.moves) == 1 and choice.score > BALANCED, choice
    x, y = choice.moves[0]
    assert engine.board.is_legal(x, y) and max(abs(x - 7), abs(y - 7)) <= 2
    assert engine.board.ply == 3
