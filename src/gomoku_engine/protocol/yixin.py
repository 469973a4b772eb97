"""The commands of Yixin-Board's extensions (as Rapfi answers them), for the protocol loop.

:class:`YixinCommands` holds the ``_cmd_<word>`` methods of ``YXBLOCK``, ``YXBLOCKUNDO``,
``YXBLOCKRESET``, ``YXSHOWFORBID``, ``YXNBEST``, ``YXSEARCHDEFEND``, ``YXBALANCEONE`` and
``YXBALANCETWO``; :class:`gomoku_engine.protocol.loop.ProtocolLoop` inherits them and
dispatches to them like its own (the loop keeps the game, the engine and the line
threads they use).  What each answers is in docs/protocol.md, section 6.
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.notation import Point
from .board_commands import block_points
from .engine_holder import EngineHolder
from .game_state import GameState
from .move_reply import MoveReply
from .reader import CommandThreads, Line, Output


class YixinCommands:
    """Yixin-Board's commands of :class:`gomoku_engine.protocol.loop.ProtocolLoop`; the
    attributes below are the loop's."""

    out: Output
    _moves: MoveReply
    _engines: EngineHolder
    _threads: CommandThreads
    #: the current game, or None after an ``ERROR`` (no START yet)
    _need_game: Callable[[], GameState | None]
    #: the tokens of a block and the game, or None after an ``ERROR``
    _block: Callable[[str, str], tuple[list[str], GameState] | None]

    def _cmd_yxblock(self, rest: str, line: Line) -> None:
        """``x,y`` points the next moves avoid (``Limits.excluded``); a bad block: none."""
        points = self._block_points(rest, "YXBLOCK")
        if points is not None:
            self._moves.blocked |= points

    def _cmd_yxblockundo(self, rest: str, line: Line) -> None:
        """``x,y`` points blocked no more (others stay blocked); a bad block: none."""
        points = self._block_points(rest, "YXBLOCKUNDO")
        if points is not None:
            self._moves.blocked -= points

    def _block_points(self, rest: str, name: str) -> set[Point] | None:
        """The points of a ``YXBLOCK``-like block, or None after an ERROR."""
        block = self._block(rest, f"ERROR {name} not terminated by DONE")
        if block is None:
            return None
        tokens, game = block
        try:
            return block_points(tokens, game.width, game.height)
        except ValueError as exc:
            self.out.line(f"ERROR {name}: {exc}")
            return None

    def _cmd_yxblockreset(self, rest: str, line: Line) -> None:
        self._moves.blocked.clear()

    def _cmd_yxshowforbid(self, rest: str, line: Line) -> None:
        game = self._need_game()
        engine = None if game is None else self._engines.for_game(game)
        if engine is not None:
            points = engine.board.foul_points()
            self.out.line("FORBID " + "".join(f"{x:02d}{y:02d}" for x, y in points) + ".")

    def _cmd_yxnbest(self, rest: str, line: Line) -> None:
        game = self._need_game()  # the position of the last YXBOARD, BOARD or move
        if game is not None:
            self._moves.answer_nbest(game, self._engines.for_move, rest, line.arrived,
                                     self._threads.stop_requested)

    def _cmd_yxsearchdefend(self, rest: str, line: Line) -> None:
        """Every root move searched as a principal variation (multi-PV over as many lines
        as there are empty points, as Rapfi): under a threat, each defence with its own
        score; then the best move, played, as ``YXNBEST``."""
        game = self._need_game()
        if game is not None:
            empty = game.width * game.height - game.ply
            self._moves.answer(game, self._engines.for_move, line.arrived,
                               self._threads.stop_requested, multipv=max(1, empty))

    def _cmd_yxbalanceone(self, rest: str, line: Line) -> None:
        self._balance(rest, line, pair=False)

    def _cmd_yxbalancetwo(self, rest: str, line: Line) -> None:
        self._balance(rest, line, pair=True)

    def _balance(self, rest: str, line: Line, pair: bool) -> None:
        game = self._need_game()
        if game is not None:
            threads = self._threads
            self._moves.answer_balance(game, self._engines.for_move, rest, line.arrived,
                                       pair, lambda: threads.stop_requested)


__all__ = ["YixinCommands"]
