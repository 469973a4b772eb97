"""The checked board: a Python facade over the jitted position kernels.

>>> board = Board(15)
>>> board.play(7, 7); board.play(8, 8)
>>> board.to_move, board.ply
(1, 2)
>>> board.undo()
(8, 8)
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..core.constants import BLACK, EMPTY, WHITE, Rule
from ..core.errors import IllegalMoveError
from ..core.geometry import Geometry
from ..core.notation import Point
from ..eval import DEFAULT_EVALUATION
from .position import PLY, TO_MOVE, WINNER, Position, Tables, make_move, make_tables, set_to_move
from ..core.rules import LEGAL
from .position import new_position, reset_position, unmake_move

_SYMBOLS = {EMPTY: ".", BLACK: "X", WHITE: "O"}


def check_on_board(x: int, y: int, width: int, height: int) -> None:
    """:raises IllegalMoveError: if ``(x, y)`` is off a ``width`` x ``height`` board."""
    if not (0 <= x < width and 0 <= y < height):
        raise IllegalMoveError(f"{x},{y} is outside the {width}x{height} board")


def check_stones(stones: Iterable[tuple[int, int, int]], width: int, height: int) -> None:
    """The checks of a whole position that need no kernel (:meth:`Board.set_stones`, and
    the protocol's game kept while the kernels load).

    :raises IllegalMoveError: for an off-board, duplicate or wrongly coloured stone.
    """
    seen: set[Point] = set()
    for x, y, colour in stones:
        check_on_board(x, y, width, height)
        if (x, y) in seen:
            raise IllegalMoveError(f"{x},{y} is given twice")
        if colour not in (BLACK, WHITE):
            raise IllegalMoveError(f"colour must be 1 or 2, not {colour}")
        seen.add((x, y))


class Board:
    """A game position of ``width`` x ``height`` points under ``rule``.

    :param width: columns (5..32).
    :param height: rows (5..32); defaults to ``width``.
    :param evaluation: the static evaluation's tables, a name of
        :data:`gomoku_engine.eval.EVALUATIONS` (:func:`gomoku_engine.eval.eval_tables`).
    :raises ValueError: on an unsupported size, an unknown evaluation, or a network
        evaluation for a rule the package has no network for
        (:class:`gomoku_engine.eval.NetworkFileError`).
    """

    def __init__(self, width: int = 15, height: int | None = None,
                 rule: Rule = Rule.FREESTYLE, evaluation: str = DEFAULT_EVALUATION) -> None:
        self.geometry = Geometry(width, width if height is None else height)
        self.rule = Rule(rule)
        self.evaluation = evaluation
        self.tables: Tables = make_tables(self.geometry, self.rule, evaluation)
        self.position: Position = new_position(self.geometry, self.tables)
        self._colours: list[int] = []  # colour of each stone in the move stack

    # --- queries ---------------------------------------------------------------------------
    @property
    def width(self) -> int:
        return self.geometry.width

    @property
    def height(self) -> int:
        return self.geometry.height

    @property
    def ply(self) -> int:
        """Number of stones on the board."""
        return int(self.position.state[PLY])

    @property
    def to_move(self) -> int:
        """Colour to move: 1 black, 2 white."""
        return int(self.position.state[TO_MOVE])

    @property
    def winner(self) -> int:
        """Colour that made a winning five with its last move (0 if none)."""
        return int(self.position.state[WINNER])

    @property
    def is_full(self) -> bool:
        return self.ply >= self.width * self.height

    def at(self, x: int, y: int) -> int:
        """Cell code at ``(x, y)``: 0 empty, 1 black, 2 white."""
        return int(self.position.cells[self.geometry.index(x, y)])

    def is_legal(self, x: int, y: int) -> bool:
        """True if the side to move may play ``(x, y)``: on the board, empty and, under
        renju, not a foul for black."""
        return (self.geometry.on_board(x, y) and self.at(x, y) == EMPTY
                and (self.to_move != BLACK or self.foul(x, y) == LEGAL))

    def foul(self, x: int, y: int) -> int:
        """Foul type of a black stone on the empty point ``(x, y)`` under renju.

        :returns: 0 (legal, and always under other rules), or
            :data:`gomoku_engine.core.rules.DOUBLE_THREE` / ``DOUBLE_FOUR`` / ``OVERLINE``.
        :raises IllegalMoveError: if the point is off the board or occupied.
        """
        if not self.geometry.on_board(x, y) or self.at(x, y) != EMPTY:
            raise IllegalMoveError(f"{x},{y} is not an empty point of the board")
        if self.rule != Rule.RENJU:
            return LEGAL
        return int(self.position.foul[self.geometry.index(x, y)])

    def foul_points(self) -> list[Point]:
        """Every empty point where black may not play (renju; empty under other rules)."""
        foul = self.position.foul
        return [self.geometry.xy(int(c)) for c in self.geometry.points
                if self.position.cells[c] == EMPTY and foul[c] != LEGAL]

    def moves(self) -> list[Point]:
        """The stones in the order they were placed."""
        return [self.geometry.xy(c) for c in self.position.moves[: self.ply]]

    def stones(self) -> list[tuple[int, int, int]]:
        """``(x, y, colour)`` of every stone, in placement order."""
        return [(x, y, colour) for (x, y), colour in zip(self.moves(), self._colours)]

    def key(self) -> int:
        """64-bit Zobrist key of the position: its stones' and its side to move's."""
        return int(self.position.key[0])

    # --- changes ---------------------------------------------------------------------------
    def play(self, x: int, y: int, colour: int | None = None) -> None:
        """Place a stone of ``colour`` (default: the side to move) on ``(x, y)``.

        Afterwards the other colour is to move.  A renju foul is placed like any stone
        (the opponent's move is what it is); referees check :meth:`foul` first.

        :raises IllegalMoveError: if the point is off the board or occupied.
        """
        check_on_board(x, y, self.width, self.height)
        if self.at(x, y) != EMPTY:
            raise IllegalMoveError(f"{x},{y} is occupied")
        if colour is not None:
            if colour not in (BLACK, WHITE):
                raise IllegalMoveError(f"colour must be 1 or 2, not {colour}")
            self.set_to_move(colour)
        self._colours.append(self.to_move)
        make_move(self.position, self.tables, self.geometry.index(x, y))

    def undo(self) -> Point:
        """Take back the last stone and return its point.

        :raises IllegalMoveError: on an empty board.
        """
        if self.ply == 0:
            raise IllegalMoveError("no stone to take back")
        point = self.geometry.xy(int(self.position.moves[self.ply - 1]))
        unmake_move(self.position, self.tables)
        self._colours.pop()
        return point

    def remove(self, x: int, y: int) -> None:
        """Remove the stone on ``(x, y)`` wherever it is in the history (TAKEBACK).

        The side to move becomes the removed stone's colour.

        :raises IllegalMoveError: if there is no stone there.
        """
        if not self.geometry.on_board(x, y) or self.at(x, y) == EMPTY:
            raise IllegalMoveError(f"no stone on {x},{y}")
        stones = self.stones()
        colour = self.at(x, y)
        kept = [s for s in stones if (s[0], s[1]) != (x, y)]
        self.set_stones(kept, to_move=colour)

    def clear(self) -> None:
        """Empty the board (black to move)."""
        reset_position(self.position, self.tables)
        self._colours.clear()

    def set_stones(self, stones: Iterable[tuple[int, int, int]], to_move: int) -> None:
        """Replace the position by ``stones`` (``(x, y, colour)``, placed in that order).

        Any set of stones is accepted (a composed position need not have alternating
        counts) unless it already holds a winning five under the rule.  The board is
        unchanged if the stones are refused.

        :raises IllegalMoveError: for an off-board, duplicate or wrongly coloured stone, or
            a position with a five.
        """
        stones = list(stones)
        check_stones(stones, self.width, self.height)
        previous, previous_to_move = self.stones(), self.to_move
        self.clear()
        for x, y, colour in stones:
            self.play(x, y, colour)
            if self.winner:
                self.load(previous, previous_to_move)
                raise IllegalMoveError(f"the position already has a five ({x},{y})")
        self.set_to_move(to_move)

    def load(self, stones: Iterable[tuple[int, int, int]], to_move: int) -> None:
        """Replace the position by ``stones`` (``(x, y, colour)``, placed in that order),
        checked by the caller: a game that went on past a five (a manager may continue
        one) loads as it was played.  :meth:`set_stones` is the checked form."""
        self.clear()
        for x, y, colour in stones:
            self.play(x, y, colour)
        self.set_to_move(to_move)

    def set_to_move(self, colour: int) -> None:
        """Make ``colour`` (1 black, 2 white) the side to move, whatever the stones' count
        says (a composed position); the Zobrist key follows (:meth:`key`).

        :raises IllegalMoveError: for a colour other than 1 or 2.
        """
        if colour not in (BLACK, WHITE):
            raise IllegalMoveError(f"colour must be 1 or 2, not {colour}")
        set_to_move(self.position, self.tables, colour)

    def copy(self) -> Board:
        """An independent board with the same stones (tables are shared, not copied)."""
        other = Board.__new__(Board)
        other.geometry, other.rule, other.tables = self.geometry, self.rule, self.tables
        other.evaluation = self.evaluation
        other.position = Position(*(np.copy(a) for a in self.position))
        other._colours = list(self._colours)
        return other

    def __str__(self) -> str:
        header = "   " + " ".join(chr(ord("a") + x) for x in range(self.width))
        rows = [header]
        for y in range(self.height):
            cells = " ".join(_SYMBOLS[self.at(x, y)] for x in range(self.width))
            rows.append(f"{y + 1:2d} {cells}")
        return "\n".join(rows)
