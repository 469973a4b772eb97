"""The Zobrist key holds the side actually to move, however it was set: the stones' keys
plus the side-to-move key when white is to move (``game.position.set_to_move``).

Before, ``make_move`` flipped the side-to-move key on every stone, so the key told the
parity of the stone count, and a side to move set from outside (``Board.set_stones``,
``load``, ``play(..., colour)``, the protocol's ``BOARD``) left the same stones with either
side to move sharing the transposition table's entries, their stored evaluations and
the solvers' tables.
"""

from __future__ import annotations

import io
import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gomoku_engine.core.constants import BLACK, WHITE
from gomoku_engine.core.errors import IllegalMoveError
from gomoku_engine.engine import Engine, Limits
from gomoku_engine.game.board import Board
from gomoku_engine.protocol.loop import ProtocolLoop
from gomoku_engine.search.alphabeta import _tt_probe
from gomoku_engine.search.params import SELECTIVITY_OFF

SIZE = 15
#: the position of the report: black 10,5 and 12,7, white 10,6 (x,y), either side to move
STONES = [(10, 5, BLACK), (10, 6, WHITE), (12, 7, BLACK)]
DEPTH = 4


def _engine() -> Engine:
    engine = Engine(SIZE, hash_mb=1)
    for name, value in SELECTIVITY_OFF.items():
        engine.set_param(name, value)
    return engine


def _move(engine: Engine) -> tuple[int, int]:
    return engine.search(Limits(depth=DEPTH, vct=False)).move


@st.composite
def _positions(draw: st.DrawFn) -> list[tuple[int, int, int]]:
    cells = draw(st.lists(st.tuples(st.integers(0, SIZE - 1), st.integers(0, SIZE - 1)),
                          min_size=0, max_size=12, unique=True))
    return [(x, y, draw(st.sampled_from((BLACK, WHITE)))) for x, y in cells]


@settings(max_examples=60, deadline=None)
@given(_positions(), st.sampled_from((BLACK, WHITE)), st.randoms(use_true_random=False))
def test_the_key_is_the_stones_and_the_side_to_move_in_any_order(stones, to_move, rnd):
    board = Board(SIZE)
    try:
        board.set_stones(stones, to_move)
    except IllegalMoveError:  # a composed position with a five: refused
        return
    shuffled = list(stones)
    rnd.shuffle(shuffled)
    other = Board(SIZE)
    other.set_stones(shuffled, to_move)
    assert other.key() == board.key()
    flipped = Board(SIZE)
    flipped.set_stones(stones, 3 - to_move)
    assert flipped.key() ^ board.key() == int(board.tables.zobrist[0, 0])
    # the key a search reaches by playing equals the key of the same stones set at once
    if stones:
        x, y, colour = stones[-1]
        board.set_stones(stones[:-1], colour)
        key_before = board.key()
        board.play(x, y)
        fresh = Board(SIZE)
        fresh.set_stones(stones, 3 - colour)
        assert board.key() == fresh.key()
        board.undo()
        assert board.key() == key_before


def test_a_stone_of_a_given_colour_keeps_the_key_true_and_undo_restores_it():
    board = Board(SIZE)
    board.play(7, 7)
    board.play(8, 8, BLACK)  # black twice: white to move after it
    assert board.to_move == WHITE
    fresh = Board(SIZE)
    fresh.set_stones([(7, 7, BLACK), (8, 8, BLACK)], WHITE)
    assert board.key() == fresh.key()
    board.undo()
    single = Board(SIZE)
    single.set_stones([(7, 7, BLACK)], BLACK)  # black to move, as the stone was placed
    assert board.key() == single.key()


def test_the_other_side_to_move_never_reads_the_entries_of_the_first():
    engine = _engine()
    engine.board.set_stones(STONES, WHITE)
    _move(engine)
    ss = engine._state
    white_key = engine.board.key()
    assert _tt_probe(ss, np.uint64(white_key)) >= 0  # the root was stored
    engine.board.set_to_move(BLACK)
    black_key = engine.board.key()
    assert black_key != white_key
    assert _tt_probe(ss, np.uint64(black_key)) < 0
    assert not np.any(ss.tt["key"] == np.uint64(black_key))


def test_the_same_stones_with_the_other_side_to_move_answer_as_a_fresh_engine():
    engine = _engine()
    engine.board.set_stones(STONES, WHITE)
    _move(engine)
    engine.board.set_stones(STONES, BLACK)
    fresh = _engine()
    fresh.board.set_stones(STONES, BLACK)
    assert _move(engine) == _move(fresh)


def _protocol(*blocks: list[str]) -> list[str]:
    """The moves the protocol loop answers to ``BOARD`` blocks, one engine for all."""
    params = [f"INFO param {name} {value:g}" for name, value in SELECTIVITY_OFF.items()]
    lines = ["START 15", f"INFO max_depth {DEPTH}", "INFO threats 1", *params]
    for stones in blocks:
        lines += ["BOARD", *stones, "DONE"]
    out = io.BytesIO()
    ProtocolLoop(io.BytesIO(("\n".join(lines) + "\nEND\n").encode()), out, warm_up=False,
                 engine_factory=lambda w, h: Engine(w, h, hash_mb=4)).run()
    replies = out.getvalue().decode().splitlines()
    return [r for r in replies if r[:1].isdigit()]


def test_the_report_through_the_protocol_answers_as_a_fresh_engine():
    white_to_move = ["10,5,2", "10,6,1", "12,7,2"]  # the engine is white: 1 own stone
    black_to_move = ["10,5,1", "10,6,2", "12,7,1"]  # the engine is black: 2 own stones
    both = _protocol(white_to_move, black_to_move)
    fresh = _protocol(black_to_move)
    assert len(both) == 2 and len(fresh) == 1
    assert both[1] == fresh[0]


def test_random_positions_with_either_side_to_move_answer_as_fresh_engines():
    """Composed positions searched with one side to move, then the other, by one engine
    (its table kept), answer as fresh engines do."""
    rnd = random.Random(70)
    for _ in range(4):
        stones = []
        taken = set()
        while len(stones) < 5:
            x, y = rnd.randint(5, 9), rnd.randint(5, 9)
            if (x, y) not in taken:
                taken.add((x, y))
                stones.append((x, y, rnd.choice((BLACK, WHITE))))
        first = rnd.choice((BLACK, WHITE))
        engine = _engine()
        engine.board.set_stones(stones, first)
        _move(engine)
        engine.board.set_stones(stones, 3 - first)
        fresh = _engine()
        fresh.board.set_stones(stones, 3 - first)
        assert _move(engine) == _move(fresh), stones
