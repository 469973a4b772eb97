"""The engine's board follows the protocol's game incrementally
(:meth:`gomoku_engine.protocol.game_state.GameState.sync`): whatever sequence of protocol
events came, it equals a fresh replay of the game; an ordinary turn places one stone, not
the whole game."""

from __future__ import annotations

import functools
import io
import os
import random
from typing import BinaryIO

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gomoku_engine.core.constants import BLACK, WHITE, Rule
from gomoku_engine.core.errors import IllegalMoveError
from gomoku_engine.core.rules import LEGAL
from gomoku_engine.engine import Engine
from gomoku_engine.game.board import Board
from gomoku_engine.game.position import PLY, UNDO_LEN
from gomoku_engine.protocol.engine_holder import EngineHolder
from gomoku_engine.protocol.game_state import GameState
from gomoku_engine.protocol.loop import ProtocolLoop
from gomoku_engine.protocol.settings import Settings
from gomoku_engine.search.kernel_free import kernel_free_move

SIZE = 9  # small: random games reach fives, full lines and renju fouls in a few stones
#: the arrays that hold the position itself (the stacks are compared up to the ply)
_STATE = ("cells", "keys", "patterns", "threat", "eval_value", "foul", "maybe_foul", "near",
          "threat_count", "eval_sum", "eval_canon", "net_acc", "net_linear", "window_count",
          "state", "key")


def assert_same_position(board: Board, fresh: Board) -> None:
    """``board`` holds what ``fresh`` (a replay) holds: stones in order, side to move,
    Zobrist key, winner, every incremental array, and the undo stacks a later take-back
    restores from."""
    assert board.stones() == fresh.stones()
    assert (board.to_move, board.key(), board.winner) == (
        fresh.to_move, fresh.key(), fresh.winner)
    a, b = board.position, fresh.position
    for name in _STATE:
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    ply, logged = int(b.state[PLY]), int(b.state[UNDO_LEN])
    for name in ("moves", "key_stack", "undo_start", "count_stack"):
        assert np.array_equal(getattr(a, name)[:ply], getattr(b, name)[:ply]), name
    assert np.array_equal(a.undo[:logged], b.undo[:logged])


@functools.cache
def _empty(width: int, height: int, rule: Rule) -> Board:
    return Board(width, height, rule)


def replay(game: GameState, rule: Rule) -> Board:
    """A new board (the tables of an empty one, which take milliseconds to build) with
    the game's stones placed in order."""
    fresh = _empty(game.width, game.height, rule).copy()
    fresh.load(game.stones, game.to_move)
    return fresh


class CountingBoard(Board):
    """A board that counts the stones placed on it, its take-backs and its clears."""

    placed = undone = cleared = 0

    def play(self, x: int, y: int, colour: int | None = None) -> None:
        self.placed += 1
        super().play(x, y, colour)

    def undo(self) -> tuple[int, int]:
        self.undone += 1
        return super().undo()

    def clear(self) -> None:
        self.cleared += 1
        super().clear()


@functools.cache
def holder(rule: Rule) -> EngineHolder:
    """One engine for every example (its board carries over, as in a long session)."""
    return EngineHolder(lambda w, h: Engine(w, h, rule=rule, hash_mb=1),
                        Settings(rule_code=int(rule)), warm_up=False)


def _in_line(game: GameState, direction: tuple[int, int]) -> list[tuple[int, int]]:
    """The empty point beyond the side to move's stones in a row from its last one in
    ``direction`` (none if it has no stone, or the row ends at the edge or the other's)."""
    colour, at = game.to_move, {s[:2]: s[2] for s in game.stones}
    own = [s for s in game.stones if s[2] == colour]
    if not own:
        return []
    x, y, _ = own[-1]
    while 0 <= x < SIZE and 0 <= y < SIZE and at.get((x, y)) == colour:
        x, y = x + direction[0], y + direction[1]
    return [(x, y)] if 0 <= x < SIZE and 0 <= y < SIZE and (x, y) not in at else []


#: (event, whether a move is asked for after it): moves weighted up, so that games
#: reach fives and fouls before they are taken back; the points come from the seed
EVENTS = st.lists(st.tuples(st.sampled_from(["turn"] * 6 + ["ours"] * 6 + ["line"] * 4
                                            + ["takeback"] * 3 + ["board"] * 2
                                            + ["restart", "start"]),
                            st.booleans()), min_size=20, max_size=80)


@pytest.mark.parametrize("rule", [Rule.FREESTYLE, Rule.RENJU, Rule.CARO])
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), events=EVENTS)
def test_the_engine_board_equals_a_fresh_replay_after_any_protocol_events(rule, seed, events):
    engines, rng = holder(rule), random.Random(seed)
    direction = rng.choice([(1, 0), (0, 1), (1, 1), (1, -1)])
    game = GameState(SIZE, SIZE)
    engines.new_game(game.size, keep_hash=True)
    for kind, move_asked in events:
        taken = {s[:2] for s in game.stones}
        empty = [(x, y) for x in range(SIZE) for y in range(SIZE) if (x, y) not in taken]
        if kind == "line":  # the opponent's stone in line with its last one (fives)
            kind, empty = "turn", _in_line(game, direction) or empty
        if kind in ("turn", "ours") and empty:
            x, y = rng.choice(empty)
            if kind == "ours":  # the engine's move: on its board first (move_reply)
                engine = engines.for_game(game)
                assert engine is not None
                engine.board.play(x, y)
            game.place(x, y, game.to_move)
        elif kind == "takeback" and game.stones:  # the last stone, or any
            game.remove(*rng.choice([game.stones[-1], rng.choice(game.stones)])[:2])
        elif kind == "board":  # the game or a prefix of it, then new stones of any colour
            kept = game.stones[:rng.choice([game.ply, rng.randint(0, game.ply)])]
            free = empty + [s[:2] for s in game.stones[len(kept):]]
            added = [(x, y, rng.choice((BLACK, WHITE)))
                     for x, y in rng.sample(free, min(len(free), rng.randrange(4)))]
            try:
                game.set_stones(kept + added, rng.choice((BLACK, WHITE)), rule)
            except IllegalMoveError:
                pass  # a five: ERROR, the game unchanged
        elif kind in ("restart", "start"):  # START of the same size keeps the table
            game = GameState(SIZE, SIZE)
            engines.new_game(game.size, keep_hash=kind == "start")
        if move_asked:
            engine = engines.for_game(game)
            assert engine is not None
            assert_same_position(engine.board, replay(game, rule))
    engine = engines.for_game(game)
    assert engine is not None
    assert_same_position(engine.board, replay(game, rule))


def _game(stones: int, seed: int = 3) -> GameState:
    game, rng = GameState(15, 15), random.Random(seed)
    points = [(x, y) for x in range(15) for y in range(15)]
    rng.shuffle(points)
    for x, y in points[:stones]:
        game.place(x, y, game.to_move)
    return game


def test_an_ordinary_turn_places_one_stone_not_the_whole_game():
    game, board = _game(60), CountingBoard(15)
    game.sync(board)
    free = [(x, y) for x in range(15) for y in range(15)
            if (x, y) not in {s[:2] for s in game.stones}]
    for turn in range(10):
        board.placed = board.undone = board.cleared = 0
        if turn % 2:
            board.play(*free.pop())  # our move, played on the engine's board ...
            game.place(*board.stones()[-1])  # ... and in the game
            board.placed = 0
        else:
            game.place(*free.pop(), game.to_move)  # the opponent's
        game.sync(board)
        assert (board.placed, board.undone, board.cleared) == (turn % 2 == 0, 0, 0)
        assert board.stones() == game.stones
    checks = [  # (the change, stones placed, taken back)
        (lambda: game.remove(*game.stones[-1][:2]), 0, 1),  # TAKEBACK of the last stone
        (lambda: game.remove(*game.stones[-5][:2]), 4, 5),  # ... of one four stones back
        (lambda: game.set_stones(game.stones + [(*free.pop(), game.to_move)],
                                 3 - game.to_move, Rule.FREESTYLE), 1, 0),  # BOARD + 1
        (lambda: game.set_stones(game.stones[:-3], game.to_move, Rule.FREESTYLE), 0, 3),
    ]
    for change, placed, undone in checks:
        board.placed = board.undone = board.cleared = 0
        change()
        assert game.sync(board) == placed
        assert (board.placed, board.undone, board.cleared) == (placed, undone, 0)
        assert_same_position(board, replay(game, Rule.FREESTYLE))


def test_a_board_with_nothing_in_common_or_a_five_to_take_back_is_rebuilt():
    game, board = _game(20), CountingBoard(15)
    game.sync(board)
    other = [(x, y, c) for x, y, c in reversed(game.stones)]  # the same stones, reordered
    game.set_stones(other, BLACK, Rule.FREESTYLE)
    board.placed = board.cleared = 0
    game.sync(board)
    assert (board.placed, board.cleared) == (20, 1)
    assert_same_position(board, replay(game, Rule.FREESTYLE))
    five = GameState(15, 15)  # black's five at ply 9, then the game goes on
    for x in range(5):
        five.place(x, 0, BLACK)
        five.place(2 * x, 5, WHITE)
    five.place(10, 10, BLACK)
    board = CountingBoard(15)
    five.sync(board)
    assert board.winner == BLACK
    five.remove(10, 10)
    five.sync(board)
    assert board.cleared == 1
    assert_same_position(board, replay(five, Rule.FREESTYLE))  # the winner is still black


def _session(*commands: str) -> tuple[ProtocolLoop, list[str]]:
    out = io.BytesIO()
    loop = ProtocolLoop(io.BytesIO(("\n".join(commands) + "\n").encode()), out,
                        warm_up=False, engine_factory=lambda w, h: Engine(w, h, hash_mb=4))
    loop.run()
    return loop, out.getvalue().decode().splitlines()


class _Manager(io.BytesIO):
    """The loop's output, and its manager, which reads our moves from it and sends its
    next lines through a pipe (:func:`_piped`): :meth:`answer` after each of our moves."""

    def __init__(self) -> None:
        super().__init__()
        self.pipe: BinaryIO | None = None
        self.loop: ProtocolLoop | None = None

    def write(self, data: bytes) -> int:  # type: ignore[override]
        written = super().write(data)
        text = data.decode().strip()
        if text.count(",") == 1 and text[0].isdigit():
            game = self.loop._game if self.loop is not None else None  # our move is in it
            assert game is not None
            self.answer(game)
        return written

    def answer(self, game: GameState) -> None:
        raise NotImplementedError

    def send(self, *lines: str) -> None:
        assert self.pipe is not None
        self.pipe.write(("\n".join(lines) + "\n").encode())


class _Opponent(_Manager):
    """After each of the engine's moves the kernel-free player answers with ``TURN`` (it
    blocks, so the game goes on unwon), ``turns`` times; then it takes back our last move
    and its own (``TAKEBACK``) and plays elsewhere; then ``END``."""

    def __init__(self, turns: int) -> None:
        super().__init__()
        self.turns, self.took_back = turns, False

    def answer(self, game: GameState) -> None:
        if self.turns:
            self.turns -= 1
            x, y = kernel_free_move(15, 15, Rule.FREESTYLE, game.stones, game.to_move)
            self.send(f"TURN {x},{y}")
        elif not self.took_back:
            self.took_back = True
            ours, theirs = game.stones[-1], game.stones[-2]
            x, y = kernel_free_move(15, 15, Rule.FREESTYLE, game.stones[:-2], theirs[2],
                                    excluded={theirs[:2]})
            self.send(f"TAKEBACK {ours[0]},{ours[1]}", f"TAKEBACK {theirs[0]},{theirs[1]}",
                      f"TURN {x},{y}")
        else:
            self.send("END")


@pytest.fixture
def placements(monkeypatch) -> list[int]:
    """The stones each :meth:`GameState.sync` places, one entry a sync, in order."""
    placed: list[int] = []
    sync = GameState.sync

    def counted(game: GameState, board: Board) -> int:
        real_play, count = board.play, [0]

        def play(*args, **kwargs):
            count[0] += 1
            real_play(*args, **kwargs)

        board.play = play  # type: ignore[method-assign]
        try:
            return sync(game, board)
        finally:
            del board.play
            placed.append(count[0])

    monkeypatch.setattr(GameState, "sync", counted)
    return placed


def _piped(out: _Manager, *first: str) -> ProtocolLoop:
    """A loop that writes to ``out`` and reads what its manager sends, ``first`` first,
    run until the manager's ``END``."""
    read_end, write_end = os.pipe()
    with os.fdopen(write_end, "wb", buffering=0) as pipe:
        out.pipe = pipe
        loop = ProtocolLoop(os.fdopen(read_end, "rb"), out, warm_up=False,
                            engine_factory=lambda w, h: Engine(w, h, hash_mb=4))
        out.loop = loop
        out.send(*first)
        loop.run()
    return loop


def test_the_protocol_loop_places_one_stone_per_turn(placements):
    out = _Opponent(turns=10)
    # depth 3 with the classical table: at depth 1 (or with the network) the engine makes
    # a five within these turns, and a board that records a five is rebuilt when a stone
    # is taken back
    loop = _piped(out, "INFO evaluation classical", "START 15", "INFO max_depth 3", "BEGIN")
    lines = out.getvalue().decode().splitlines()
    assert not [line for line in lines if line.startswith("ERROR")], lines
    engine, game = loop._engines.engine, loop._game
    assert engine is not None and game is not None
    assert game.ply == 1 + 2 * 10 and engine.board.stones() == game.stones
    assert engine.board.winner == 0  # the ordinary path: no five to take back
    # BEGIN's sync (empty), then one per TURN: the opponent's stone only, our reply
    # being on the engine's board already; after the two TAKEBACKs, the TURN's sync
    # takes two back and places one.  A full replay placed 2, 4, ... 20, then 20.
    assert placements == [0] + [1] * 11, placements


#: Yixin-Board's first position (field 1: black, to move)
YIXIN_START = ["7,7,1", "8,8,2", "8,7,1", "6,8,2"]


class _YixinBoard(_Manager):
    """Yixin-Board: after each of the engine's moves, for the next think, ``START 15``,
    the whole position with the opponent's reply (the kernel-free player's) as
    ``YXBOARD``, and ``BEGIN``, ``thinks`` times or until our move makes five; then
    ``END``."""

    def __init__(self, thinks: int) -> None:
        super().__init__()
        self.thinks, self.done = thinks, 0

    def answer(self, game: GameState) -> None:
        engine = self.loop._engines.engine if self.loop is not None else None
        assert engine is not None and engine.board.stones() == game.stones
        if self.done == self.thinks or engine.board.winner:
            self.send("END")
            return
        self.done += 1
        x, y = kernel_free_move(15, 15, Rule.FREESTYLE, game.stones, game.to_move)
        ours = 3 - game.to_move  # field 1: the side to move after the opponent's stone
        stones = [f"{sx},{sy},{1 if colour == ours else 2}"
                  for sx, sy, colour in game.stones + [(x, y, game.to_move)]]
        self.send("START 15", "YXBOARD", *stones, "DONE", "BEGIN")


def test_start_then_yxboard_places_only_the_new_stones(placements):
    """Yixin-Board's way: ``START`` before every think, then the whole position.  The
    engine's board is kept across the ``START`` of the same size, so each think's sync
    places the opponent's stone only (our reply is on the board already).  With the board
    emptied at ``START`` it placed the whole position: 4, 6, 8, ... stones."""
    out = _YixinBoard(thinks=8)
    loop = _piped(out, "INFO max_depth 2", "START 15", "YXBOARD", *YIXIN_START, "DONE",
                  "BEGIN")
    lines = out.getvalue().decode().splitlines()
    assert not [line for line in lines if line.startswith("ERROR")], lines
    thinks = out.done
    assert thinks >= 4 and lines.count("OK") == 1 + thinks, lines
    engine, game = loop._engines.engine, loop._game
    assert engine is not None and game is not None and game.ply == 4 + 1 + 2 * thinks
    assert placements == [4] + [1] * thinks, placements
    assert_same_position(engine.board, replay(game, Rule.FREESTYLE))


@pytest.mark.parametrize("rule", [Rule.FREESTYLE, Rule.RENJU])
@pytest.mark.parametrize("second", [
    ["7,7,2", "8,8,1", "8,7,2", "6,8,1", "9,9,2"],  # the same start, white to move
    ["7,7,1", "8,8,2", "9,9,1", "6,6,2"],  # a common prefix of two stones
    ["3,3,1", "4,4,2"],  # nothing in common
    ["7,7,2", "8,8,1", "8,7,2"],  # a prefix of the first position
    [],  # an empty board
])
def test_start_then_yxboard_of_another_position_equals_a_fresh_replay(rule, second):
    """After a think, ``START`` of the same size and a ``YXBOARD`` of another position:
    the kept board is brought to it as a fresh replay would set it (``YXSHOWFORBID``
    brings the board to the game without a move)."""
    code = 4 if rule == Rule.RENJU else 0
    loop, lines = _session(f"INFO rule {code}", "INFO max_depth 2", "START 15", "YXBOARD",
                           *YIXIN_START, "DONE", "BEGIN", "START 15", "YXBOARD", *second,
                           "DONE", "YXSHOWFORBID", "END")
    assert not [line for line in lines if line.startswith("ERROR")], lines
    assert lines[-1].startswith("FORBID")
    engine, game = loop._engines.engine, loop._game
    assert engine is not None and game is not None and game.ply == len(second)
    assert_same_position(engine.board, replay(game, rule))


def test_renju_the_opponents_foul_is_kept_as_played_and_followed_by_the_board():
    black = [(5, 7), (6, 7), (7, 5), (7, 6)]  # 7,7 would be black's double three
    white = [(0, 0), (0, 2), (0, 4)]
    # our replies keep off 7,7 and off the ends of both threes, so that it stays a foul
    blocked = ["7,7", "4,7", "8,7", "3,7", "9,7", "7,4", "7,8", "7,3", "7,9"]
    loop, lines = _session("INFO rule 4", "START 15", "INFO max_depth 1", "YXBLOCK",
                           *blocked, "DONE", "BOARD", *[f"{x},{y},2" for x, y in black],
                           *[f"{x},{y},1" for x, y in white], "DONE", "TURN 7,7", "END")
    assert not [line for line in lines if line.startswith("ERROR")], lines
    engine, game = loop._engines.engine, loop._game
    assert engine is not None and game is not None
    # BOARD: we are white and move; then black's TURN on the foul, which the game keeps
    # as played (the opponent's move is what it is), and our second reply
    assert game.stones[-2] == (7, 7, BLACK) and game.ply == 10 and game.to_move == BLACK
    before = replay(game, Rule.RENJU)
    before.undo()
    before.undo()
    assert before.foul(7, 7) != LEGAL  # it was a foul when black played it
    assert_same_position(engine.board, replay(game, Rule.RENJU))
    game.remove(*game.stones[-1][:2])  # TAKEBACK (its GameState call) of our reply,
    game.remove(7, 7)  # then of the foul
    loop._engines.for_game(game)
    assert_same_position(engine.board, replay(game, Rule.RENJU))
    assert engine.board.foul(7, 7) != LEGAL
