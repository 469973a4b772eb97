"""Swap2 decisions (protocol notes 2.12) come from the engine's search of the positions."""

from __future__ import annotations

from gomoku_engine.constants import BLACK, WHITE, Rule
from gomoku_engine.engine import Engine
from gomoku_engine.swap2 import BALANCED, answer_five, answer_three, propose_opening


def engine_with(stones) -> Engine:
    """Stones in move order (black first); white to move after an odd count."""
    engine = Engine(15, rule=Rule.STANDARD, hash_mb=4)
    colours = [BLACK if i % 2 == 0 else WHITE for i in range(len(stones))]
    engine.board.set_stones([(x, y, c) for (x, y), c in zip(stones, colours)],
                            to_move=WHITE if len(stones) % 2 else BLACK)
    return engine


def test_proposal_is_three_free_stones_near_the_centre_and_its_most_balanced_candidate():
    engine = Engine(15, rule=Rule.STANDARD, hash_mb=4)
    choice = propose_opening(engine, 600)
    assert not choice.swap and len(set(choice.moves)) == 3
    assert all(abs(x - 7) <= 2 and abs(y - 7) <= 2 for x, y in choice.moves)
    assert engine.board.moves() == choice.moves  # left on the board, white to move
    assert abs(choice.score) < 5 * BALANCED


def test_five_stones_lost_for_white_is_swapped():
    # black: an open three h8 i8 j8; white's two stones far away in the corners
    engine = engine_with([(7, 7), (0, 0), (8, 7), (14, 14), (9, 7)])
    choice = answer_five(engine, 400)
    assert choice.swap and choice.score < 0


def test_five_stones_good_for_white_stays_white_with_a_sixth_stone():
    # white: h9 i9 j9 would be an open three after its move; black's stones are scattered
    engine = engine_with([(1, 1), (7, 8), (13, 1), (8, 8), (1, 13)])
    choice = answer_five(engine, 400)
    assert not choice.swap and len(choice.moves) == 1 and choice.score >= 0
    assert engine.board.is_legal(*choice.moves[0])


def test_swap1_answers_swap_or_one_stone():
    engine = engine_with([(7, 7), (8, 8), (9, 9)])
    choice = answer_three(engine, 400, two_stones=False)
    assert choice.swap or len(choice.moves) == 1


def test_three_stones_answer_places_legal_free_stones():
    engine = engine_with([(7, 7), (8, 7), (9, 9)])
    choice = answer_three(engine, 600)
    if not choice.swap:
        assert 1 <= len(choice.moves) <= 2 and len(set(choice.moves)) == len(choice.moves)
        assert all(engine.board.is_legal(x, y) for x, y in choice.moves)
    assert engine.board.ply == 3  # the board is left as given
