"""A person against the engine: one game, its rules, the engine's replies, undo and hints.

:class:`HumanGame` is what ``gomoku-engine web`` (:mod:`gomoku_engine.play.web`) and
``gomoku-engine play`` (the terminal) both drive.  It keeps the game on the engine's own
:class:`~gomoku_engine.game.board.Board`, so fives, overlines, caro's blocked fives and renju
fouls are judged by the same code as in the protocol and the match referee; the engine
searches with a strength level's depth and node caps inside a per-move time limit, and a
level that blunders does so, by the game-move policy the protocol loop follows too
(:mod:`gomoku_engine.search.policy`).

Callers serialise the requests that change one game (the web layer holds
:attr:`HumanGame.lock`); other threads may read :meth:`HumanGame.view` at any time, even
while the engine searches (the search plays and takes back moves on the board itself, so
a view taken then is the one saved when the search began).  Different games share nothing.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field, replace

from ..core.constants import BLACK, EMPTY, RULE_NAMES, WHITE, Rule
from ..engine import Engine, SearchResult
from ..core.errors import GomokuError, InvalidMoveError
from ..search.levels import MAX_LEVEL, MIN_LEVEL
from ..search.policy import apply_blunder, move_limits
from ..core.notation import Point, format_point, format_score
from ..core.opening_rules import first_move_violation
from ..core.rules import FOUL_NAMES, LEGAL
from ..search.timeman import TimeControl

COLOURS = {"black": BLACK, "white": WHITE}
COLOUR_NAMES = {BLACK: "black", WHITE: "white"}


#: What each level is called in the menus.  3 and 5 are the levels of the design this
#: feature follows (Che and Lü: depth 3 for beginners, 5 for players with some experience).
LEVEL_LABELS = {
    1: "1 - first steps (blunders)",
    2: "2 - novice",
    3: "3 - beginner",
    4: "4 - casual",
    5: "5 - some experience",
    6: "6 - club player",
    7: "7 - strong club player",
    8: "8 - expert",
    9: "9 - master",
    10: "10 - full strength",
}

#: Per-move time limit of the engine (ms) unless the caller gives another: levels 1-9
#: usually stop at their depth or node cap well before it; level 10 uses it.
DEFAULT_MOVE_MS = 3000
#: Hints search at least at this level, so a beginner's hint is still good advice.
HINT_LEVEL = 5
#: Transposition table of one game's engine (MiB): small, since many games may be live.
GAME_HASH_MB = 8.0


class Refused(GomokuError):
    """A well-formed request that the game's state refuses: an occupied point, a move out
    of turn or after the end, a renju foul, or nothing to take back."""


@dataclass
class Analysis:
    """The engine's view after its last search, from the searching side's point of view."""

    score: int  #: centi-stones, or a mate score (:func:`gomoku_engine.core.constants.mate_in`)
    depth: int  #: plies of the last completed iteration
    nodes: int
    time_ms: float
    pv: list[Point] = field(default_factory=list)  #: principal variation
    colour: int = BLACK  #: the side that searched

    def as_dict(self) -> dict:
        """JSON form: ``score`` as text (``"win in 5"`` where forced), ``pv`` as points."""
        return {"score": format_score(self.score), "score_value": self.score,
                "depth": self.depth, "nodes": self.nodes, "time_ms": round(self.time_ms),
                "side": COLOUR_NAMES[self.colour],
                "pv": [{"x": x, "y": y} for x, y in self.pv],
                "pv_text": " ".join(format_point(p) for p in self.pv)}

    @classmethod
    def of(cls, result: SearchResult, colour: int) -> Analysis:
        return cls(result.score, result.depth, result.nodes, result.time_ms,
                   list(result.pv), colour)


@dataclass(frozen=True)
class GameView:
    """A consistent copy of a game's state, safe to read from any thread."""

    stones: list[tuple[int, int, int]]  #: ``(x, y, colour)`` in move order
    to_move: int | None  #: colour to move, ``None`` once the game is over
    result: str | None  #: as :attr:`HumanGame.result`
    winning_line: list[Point]
    fouls: list[Point]  #: as :meth:`HumanGame.fouls`
    analysis: Analysis | None
    thinking: bool


class HumanGame:
    """One game of a person against the engine.

    The engine plays first when the person takes white (opening on the centre, as the
    design asks); call :meth:`start` once to let it.

    :param size: board side (5..32).
    :param rule: the win condition.
    :param level: strength level 1..10.
    :param human: the person's colour, 1 (black) or 2 (white).
    :param move_ms: the engine's per-move time limit (ms); the level's caps apply within it.
    :param seed: seed of a blundering level's random moves.
    :param hash_mb: the engine's transposition table (MiB).
    :param opening_rule: one of :data:`gomoku_engine.core.opening_rules.OPENING_RULES`:
        under ``"lin"`` black's first stone, the person's or the engine's, must lie on the
        two outermost rows or columns (Lin's rule).
    :raises ValueError: on a bad size, level, colour or opening rule.
    """

    def __init__(self, size: int = 15, rule: Rule = Rule.FREESTYLE, level: int = 3,
                 human: int = WHITE, move_ms: float = DEFAULT_MOVE_MS, seed: int = 0,
                 hash_mb: float = GAME_HASH_MB, opening_rule: str = "none") -> None:
        if not MIN_LEVEL <= level <= MAX_LEVEL:
            raise ValueError(f"level {level} outside {MIN_LEVEL}..{MAX_LEVEL}")
        if human not in (BLACK, WHITE):
            raise ValueError(f"colour must be 1 (black) or 2 (white), not {human}")
        self.engine = Engine(size, rule=Rule(rule), hash_mb=hash_mb, opening_rule=opening_rule)
        self.opening_rule = opening_rule  #: the opening rule of black's first stone
        self.level = level
        self.human = human
        self.move_ms = move_ms
        self._rng = random.Random(seed)
        self.analysis: Analysis | None = None  #: the engine's last search (its own move)
        self.thinking = False  #: the engine is searching (read by other threads)
        self.lock = threading.Lock()  #: held by a caller for the length of a request
        #: guards the board against :meth:`view` while a move is being placed
        self._state_lock = threading.RLock()
        self._saved: GameView | None = None  #: the view while the engine searches

    # --- state ---------------------------------------------------------------------------
    @property
    def board(self):  # noqa: ANN201 (a Board)
        return self.engine.board

    @property
    def computer(self) -> int:
        """The engine's colour."""
        return 3 - self.human

    @property
    def over(self) -> bool:
        return bool(self.board.winner) or self.board.is_full

    @property
    def result(self) -> str | None:
        """``None`` while the game goes on, else ``"black"``, ``"white"`` or ``"draw"``."""
        if self.board.winner:
            return COLOUR_NAMES[self.board.winner]
        return "draw" if self.board.is_full else None

    def winning_line(self) -> list[Point]:
        """The stones of the winning five (with an overline where that wins), else ``[]``.

        The board has judged the win (:attr:`Board.winner`); this only finds, through
        the last stone, the direction whose row of the winner's stones made it: a row of
        five or more, exactly five where the rule wants it for that colour.
        """
        board = self.board
        winner = board.winner
        if not winner:
            return []
        last = board.moves()[-1]
        exact = board.rule.exact_five(winner)
        for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
            row = [last]
            for sign in (1, -1):
                x, y = last[0] + sign * dx, last[1] + sign * dy
                while board.geometry.on_board(x, y) and board.at(x, y) == winner:
                    row.append((x, y))
                    x, y = x + sign * dx, y + sign * dy
            if len(row) == 5 or (len(row) > 5 and not exact):
                return sorted(row)
        return []

    def fouls(self) -> list[Point]:
        """Renju: the points black may not play, when the person is black and to move."""
        if self.human != BLACK or self.board.to_move != BLACK or self.over:
            return []
        return self.board.foul_points()

    # --- moves ---------------------------------------------------------------------------
    def view(self) -> GameView:
        """The game's state now, or, while the engine searches, as the search began."""
        with self._state_lock:
            if self.thinking and self._saved is not None:
                return self._saved
            return self._view_now()

    def _view_now(self) -> GameView:
        over = self.over
        return GameView(self.board.stones(), None if over else self.board.to_move, self.result,
                        self.winning_line(), self.fouls(), self.analysis, self.thinking)

    def check_turn(self) -> None:
        """:raises Refused: if the game is over or it is not the person's turn."""
        if self.over:
            raise Refused(f"the game is over ({self._result_text()})")
        if self.thinking or self.board.to_move != self.human:
            raise Refused("it is not your turn: the engine is to move")

    def check_move(self, x: int, y: int) -> None:
        """Raise unless the person may play ``(x, y)`` now.

        :raises InvalidMoveError: off the board.
        :raises Refused: game over, not the person's turn, occupied, or a renju foul.
        """
        board = self.board
        if not board.geometry.on_board(x, y):
            raise InvalidMoveError(f"{x},{y} is outside the {board.width}x{board.height} board")
        self.check_turn()
        if board.at(x, y) != EMPTY:
            raise Refused(f"{format_point((x, y))} is occupied")
        if board.ply == 0 and board.to_move == BLACK:
            broken = first_move_violation(self.opening_rule, (x, y), board.width, board.height)
            if broken is not None:
                raise Refused(f"black {broken}")
        foul = board.foul(x, y) if board.to_move == BLACK else LEGAL
        if foul != LEGAL:
            raise Refused(f"{format_point((x, y))} is a foul for black in renju "
                          f"({FOUL_NAMES[foul]})")

    def play(self, x: int, y: int) -> None:
        """The person's move (the engine does not answer yet: see :meth:`reply`).

        :raises InvalidMoveError, Refused: see :meth:`check_move`; nothing changes then.
        """
        with self._state_lock:
            self.check_move(x, y)
            self.board.play(x, y)

    def start(self) -> Point | None:
        """Let the engine open if it has black; returns its move or ``None``."""
        if self.board.ply == 0 and self.computer == BLACK:
            return self.reply()
        return None

    def reply(self) -> Point | None:
        """The engine's move if it is to move and the game is not over (``None`` otherwise).

        The search uses the level's depth and node caps within :attr:`move_ms`; a level
        with blunders (level 1) may play a random point next to a stone instead, unless
        the search saw a forced result -- as the protocol loop does.
        """
        board = self.board
        if self.over or board.to_move != self.computer:
            return None
        result = apply_blunder(self._search(), self.level, self._rng, board.moves(),
                               board.is_legal, board.width, board.height)
        with self._state_lock:
            self.analysis = Analysis.of(result, self.computer)
            board.play(*result.move)
        return result.move

    def hint(self) -> tuple[Point, Analysis]:
        """The move the engine would play for the person now (nothing is played),
        searched at the game's level but at least :data:`HINT_LEVEL`.

        :raises Refused: if the game is over or it is not the person's turn.
        """
        self.check_turn()
        result = self._search(max(self.level, HINT_LEVEL))
        return result.move, Analysis.of(result, self.human)

    def undo(self) -> list[Point]:
        """Take back the engine's reply and the person's last move (after a game the
        person won: that winning move only); returns the points taken back.

        :raises Refused: if the person has no move on the board, or the engine is thinking.
        """
        if self.thinking:
            raise Refused("the engine is thinking")
        colours = [c for _, _, c in self.board.stones()]
        if self.human not in colours:
            raise Refused("nothing to take back: you have not moved yet")
        taken: list[Point] = []
        with self._state_lock:
            while True:
                colour = self.board.stones()[-1][2]
                taken.append(self.board.undo())
                if colour == self.human:
                    break
            self.analysis = None
        return taken

    # --- helpers -------------------------------------------------------------------------
    def _search(self, level_number: int | None = None) -> SearchResult:
        limits = move_limits(TimeControl(turn_ms=int(self.move_ms)), self.board.ply,
                             level_number or self.level)
        with self._state_lock:
            self._saved = replace(self._view_now(), thinking=True)
            self.thinking = True
        try:
            return self.engine.search(limits)
        finally:
            with self._state_lock:
                self.thinking = False
                self._saved = None

    def _result_text(self) -> str:
        result = self.result
        return "a draw" if result == "draw" else f"{result} won"

    def stop(self) -> None:
        """Make a running search return at once (thread-safe)."""
        self.engine.stop()


__all__ = ["Analysis", "COLOURS", "GameView", "HumanGame", "LEVEL_LABELS", "RULE_NAMES", "Refused"]
