"""The game as the manager gave it, in plain Python: the one authoritative copy, kept
whether or not the kernels are loaded.

The engine's :class:`gomoku_engine.game.Board` runs on compiled kernels; on a cold numba
cache they take about a minute to compile, and the manager's ``TURN``, ``BOARD`` and
``TAKEBACK`` cannot wait that long.  :class:`GameState` takes them at once, with the same
checks and error texts as the board's, and the kernel-free move reads it.

The engine's board is not a second record of the game but a follower of this one:
whatever it holds is checked against :attr:`GameState.stones` by :meth:`GameState.sync`
before every use (:meth:`gomoku_engine.protocol.engine_holder.EngineHolder.for_game`) and
brought to it incrementally, so a stone placed on it and not here (a move searched but
not sent) or a stone here and not there (the opponent's, a ``TAKEBACK``, a ``BOARD``) can
never be searched from.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..core.constants import BLACK, PAD, WHITE, Rule
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

        A renju foul is placed like any other stone, as
        :meth:`gomoku_engine.game.Board.play` places it (the opponent's move is what it
        is; our own moves avoid fouls in the search).

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

    def sync(self, board: Board) -> int:
        """Bring ``board`` (of this game's size) to these stones, in this order, and side
        to move, changing only what differs; returns the stones placed on it.

        The board keeps the longest common prefix of its stones and these (same points,
        colours and order), takes back the stones after it (last first, each restored
        from the board's undo log) and places the ones it lacks, in the game's order: an
        ordinary turn places one stone, a ``TAKEBACK`` of the last stone takes one back,
        a ``BOARD`` that repeats the game and adds a stone places one.  It is emptied and
        rebuilt only when nothing is common, or when it must take a stone back while it
        records a five (a game the manager went on with after a five): a take-back clears
        the winner, and only a replay says whether a five made earlier is still there.
        The result equals a fresh :meth:`gomoku_engine.game.Board.load` of the stones:
        same stones, side to move, Zobrist key, winner and incremental pattern state.
        Nothing here touches the engine's transposition table.  The stones were checked
        as they came (:meth:`place`, :meth:`set_stones`); fouls are placed as played.

        Cost: the comparison reads every stone, as one integer each; the kernels' work is
        only the stones taken back and placed.
        """
        have, want = _board_codes(board), _codes(self.stones, board.geometry.stride)
        common = len(have)
        if have != want[:common]:
            common = next((i for i, (mine, theirs) in enumerate(zip(have, want))
                           if mine != theirs), len(want))  # (or the game is a prefix)
            if common == 0 or board.winner:
                board.clear()
                common = 0
            else:
                for _ in range(len(have) - common):
                    board.undo()
        for x, y, colour in self.stones[common:]:
            board.play(x, y, colour)
        if board.to_move != self.to_move:
            # a composed position or a TAKEBACK off the middle of the game: the side to
            # move is given, not the colour after the last stone (as Board.load sets it)
            board.set_to_move(self.to_move)
        return len(want) - common


def _codes(stones: list[Stone], stride: int) -> list[int]:
    """Each stone as one integer, its cell on a board of ``stride`` padded columns
    (:meth:`gomoku_engine.core.geometry.Geometry.index`) times 4 plus its colour."""
    return [(((y + PAD) * stride + x + PAD) << 2) | colour for x, y, colour in stones]


def _board_codes(board: Board) -> list[int]:
    """The stones of ``board`` in placement order as :func:`_codes` writes them, read
    from its move stack and cells at once (:meth:`Board.stones` converts every point)."""
    position = board.position
    moves = position.moves[:board.ply]
    return ((moves.astype(np.int64) << 2) | position.cells[moves]).tolist()


__all__ = ["GameState", "Stone"]
