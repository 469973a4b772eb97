"""HumanGame (a person against the engine) and ``gomoku-engine play`` in the terminal."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from helpers import assert_winning_line
from web_server import weak_points

from gomoku_engine.cli import main
from gomoku_engine.core.constants import BLACK, WHITE, Rule
from gomoku_engine.core.errors import InvalidMoveError
from gomoku_engine.game.board import Board
from gomoku_engine.play.human import HumanGame, Refused
from gomoku_engine.core.rules import DOUBLE_THREE

FAST_MS = 2000  # the per-move limit; levels 3 and 5 stop at their depth long before it


def board_of(game: HumanGame) -> Board:
    """A board with the game's stones, placed in their order."""
    board = Board(game.width, game.height, game.rule)
    for x, y, colour in game.stones():
        board.play(x, y, colour)
    return board


def weak_game(game: HumanGame) -> None:
    """Play the scripted weak player against the engine until the game ends."""
    game.start()
    for point in weak_points(game.width):
        if game.over:
            return
        if game.may_play(*point):
            game.play(*point)
            game.reply()
    assert game.over, "the weak player ran out of points"


def assert_real_five(game: HumanGame, colour: int) -> None:
    line = game.winning_line()
    board = board_of(game)
    assert_winning_line(board, line, colour)
    (x0, y0), (x1, y1) = line[0], line[-1]
    assert max(abs(x1 - x0), abs(y1 - y0)) == 4  # five in a row, no gap
    assert board.moves()[-1] in line


@pytest.mark.parametrize("human", [WHITE, BLACK])
@pytest.mark.parametrize("level", [1, 3])
def test_engine_beats_the_weak_player(level: int, human: int) -> None:
    game = HumanGame(15, Rule.FREESTYLE, level, human, move_ms=FAST_MS, seed=level)
    weak_game(game)
    assert game.result == ("black" if game.computer == BLACK else "white")
    assert_real_five(game, game.computer)
    with pytest.raises(Refused, match="over"):
        game.play(*next(p for p in weak_points(15) if p not in game.moves()))
    with pytest.raises(Refused, match="over"):
        game.hint()


def test_engine_opens_on_the_centre_when_it_has_black() -> None:
    game = HumanGame(15, level=3, human=WHITE)
    assert game.start() == (7, 7) and game.moves() == [(7, 7)]
    black = HumanGame(15, level=3, human=BLACK)
    assert black.start() is None and black.ply == 0
    assert black.reply() is None  # the person is to move


def test_refusals_change_nothing() -> None:
    game = HumanGame(15, level=3, human=WHITE, move_ms=FAST_MS)
    game.start()
    before = game.stones()
    with pytest.raises(InvalidMoveError, match="outside"):
        game.play(15, 3)
    with pytest.raises(Refused, match="occupied"):
        game.play(7, 7)
    with pytest.raises(Refused, match="nothing to take back"):
        game.undo()
    assert game.stones() == before and game.to_move == WHITE


def test_undo_takes_back_the_reply_and_the_move() -> None:
    game = HumanGame(15, level=3, human=WHITE, move_ms=FAST_MS)
    game.start()
    game.play(8, 8)
    reply = game.reply()
    assert game.ply == 3
    assert game.undo() == [reply, (8, 8)]
    assert game.moves() == [(7, 7)] and game.to_move == WHITE


def test_hint_is_a_legal_move_and_plays_nothing() -> None:
    game = HumanGame(15, level=3, human=WHITE, move_ms=FAST_MS)
    game.start()
    game.play(8, 8)
    game.reply()
    before = game.stones()
    move, analysis = game.hint()
    assert game.may_play(*move) and analysis.depth == 5  # hints: level 5 at least
    assert analysis.colour == WHITE and game.stones() == before


def test_renju_foul_is_refused_and_listed() -> None:
    game = HumanGame(15, Rule.RENJU, level=3, human=BLACK, move_ms=FAST_MS)
    # black: (7,7) (8,7) across, (9,8) (9,9) down; (9,7) makes two open threes
    stones = []
    for black, white in (((7, 7), (0, 0)), ((8, 7), (0, 2)), ((9, 8), (0, 4)),
                         ((9, 9), (0, 6))):
        stones += [(*black, BLACK), (*white, WHITE)]
    game.set_stones(stones, BLACK)
    assert board_of(game).foul(9, 7) == DOUBLE_THREE
    assert (9, 7) in game.fouls() and not game.may_play(9, 7)
    before = game.stones()
    with pytest.raises(Refused, match="foul.*double three"):
        game.play(9, 7)
    assert game.stones() == before
    game.play(6, 7)  # the open three that is not a foul is fine
    assert game.stones()[-1] == (6, 7, BLACK)


def test_terminal_game_through_stdin() -> None:
    """A whole game in the terminal: bad input, undo, hint, then weak moves to the end."""
    lines = ["zz", "99,99", "h8", "undo", "hint", "0,0", "undo", "2,0"]
    lines += [f"{x},{y}" for x, y in weak_points(15)[1:]]
    result = CliRunner().invoke(main, ["play", "--level", "3", "--colour", "white"],
                                input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "engine plays h8" in out
    assert "bad input: bad move string 'zz'" in out
    assert "bad input: 99,99 is outside the 15x15 board" in out
    assert "refused: h8 is occupied" in out
    assert "refused: nothing to take back" in out
    assert "hint: " in out
    assert "you play a1, engine plays" in out and "took back a1 " in out
    assert "black (engine) wins: " in out
    boards = [block for block in out.split("   a b c") if block.strip()]
    # the board after the two refused lines is the board before them
    first, after_bad = boards[1], boards[2]
    assert first.split("engine plays")[0] == after_bad.split("bad input")[0]


def test_terminal_quit() -> None:
    result = CliRunner().invoke(main, ["play", "--level", "1", "--colour", "black",
                                       "--size", "9"], input="e5\nquit\n")
    assert result.exit_code == 0, result.output
    assert "You play black (X)" in result.output and result.output.rstrip().endswith("Bye.")


def test_terminal_board_marks_the_last_move() -> None:
    """The last stone is in brackets, and only that one: after the engine's reply, its
    stone; on the last column the bracket closes past the board's edge."""
    result = CliRunner().invoke(main, ["play", "--level", "3", "--colour", "black",
                                       "--size", "9"], input="i5\nquit\n")
    assert result.exit_code == 0, result.output
    first, second = result.output.split("   a b c")[1:3]  # after the greeting
    assert "[" not in first  # an empty board: nothing to mark
    rows = {line.split()[0]: line for line in second.splitlines()[1:10]}
    reply = second.split("engine plays ")[1].split()[0]  # e.g. "h5"
    column, row = ord(reply[0]) - ord("a"), reply[1:]
    assert second.count("[") == 1 and second.count("]") == 1
    assert rows[row][3 + 2 * column - 1: 3 + 2 * column + 2] == "[O]"
    assert "X" in rows["5"] and "[X]" not in second
    from gomoku_engine.play.terminal import mark_last
    board = Board(9)
    board.play(8, 4)
    assert mark_last(str(board), (8, 4)).splitlines()[5] == " 5 . . . . . . . .[X]"


def test_a_full_board_is_a_draw() -> None:
    """5x5 filled in pairs (XXOOX / OOXXO / ...) holds no five; the last empty point ends it."""
    game = HumanGame(5, level=3, human=WHITE)
    rows = ["XXOOX", "OOXXO", "XXOOX", "OOXXO", "XXOO."]
    stones = [(x, y, BLACK if c == "X" else WHITE)
              for y, row in enumerate(rows) for x, c in enumerate(row) if c != "."]
    game.set_stones(stones, to_move=WHITE)
    assert game.result is None and not game.over
    game.play(4, 4)
    assert game.result == "draw" and game.over and game.winning_line() == []
    assert game.reply() is None
    with pytest.raises(Refused, match="draw"):
        game.hint()
