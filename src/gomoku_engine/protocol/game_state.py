"""The game as the manager gave it, in plain Python: kept whether or not the kernels are
loaded.

The engine's :class:`gomoku_engine.game.Board` runs on compiled kernels; on a cold numba
cache they take about a minute to compile, and the manager's ``TURN``, ``BOARD`` and
``TAKEBACK`` cannot wait that long.  :class:`GameState` takes them at once, with the same
checks and error texts as the board's, and :meth:`GameState.sync` brings an engine's board
to it once the kernels are there.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..core.constants import BLACK, WHITE, Rule
from ..core.errors import IllegalMoveError
from ..core.notation import Point
from ..game.board import Board, check_on_board, check_stones
from ..search.kernel_free import makes_five, patterns_at

#: A stone: ``(x, y, colour)``.
Stone = tuple[int, int, int]


class GameState:
    """The stones of one game in placement order, and the side to move.

    :param width: columns; :param height: rows (already checked by ``START``).
    """

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.stones: list[Stone] = []
        self.to_move = BLACK
        self._at: dict[Point, int] = {}
        #: our colour in this game, once a move request or ``BOARD`` told it
        self.me: int | None = None

    @property
    def size(self) -> tuple[int, int]:
        return self.width, self.height

    @property
    def ply(self) -> int:
        return len(self.stones)

    @property
    def is_full(self) -> bool:
        return self.ply >= self.width * self.height

    def place(self, x: int, y: int, colour: int) -> None:
        """Place a stone of ``colour`` on ``(x, y)``; the other colour is then to move.

        :raises IllegalMoveError: if the point is off the board or occupied.
        """
        check_on_board(x, y, self.width, self.height)
        if (x, y) in self._at:
            raise IllegalMoveError(f"{x},{y} is occupied")
        self.stones.append((x, y, colour))
        self._at[(x, y)] = colour
        self.to_move = WHITE if colour == BLACK else BLACK

    def remove(self, x: int, y: int) -> None:
        """Take the stone on ``(x, y)`` off, wherever it is in the history (``TAKEBACK``);
        its colour is then to move.

        :raises IllegalMoveError: if there is no stone there.
        """
        if (x, y) not in self._at:
            raise IllegalMoveError(f"no stone on {x},{y}")
        self.to_move = self._at.pop((x, y))
        self.stones = [s for s in self.stones if (s[0], s[1]) != (x, y)]

    def set_stones(self, stones: Iterable[Stone], to_move: int, rule: Rule) -> None:
        """Replace the position (``BOARD``, ``YXBOARD``, ``SWAP2BOARD``), as
        :meth:`gomoku_engine.game.Board.set_stones` does: unchanged if refused.

        :raises IllegalMoveError: for an off-board, duplicate or wrongly coloured stone, or a
            position that already has a five under ``rule``.
        """
        stones = list(stones)
        check_stones(stones, self.width, self.height)
        at: dict[Point, int] = {}
        for x, y, colour in stones:
            if makes_five(patterns_at(at, self.width, self.height, rule, x, y, colour)):
                raise IllegalMoveError(f"the position already has a five ({x},{y})")
            at[(x, y)] = colour
        self.stones, self._at, self.to_move = stones, at, to_move

    def sync(self, board: Board) -> None:
        """Give ``board`` these stones and side to move, if it has others."""
        if board.stones() != self.stones or board.to_move != self.to_move:
            board.load(self.stones, self.to_move)  # checked here as they came


__all__ = ["GameState", "Stone"]
