"""A person against the engine: one game, its rules, the engine's replies, undo and hints.

:class:`HumanGame` is what ``gomoku-engine web`` (:mod:`gomoku_engine.play.web`) and
``gomoku-engine play`` (the terminal) both drive.  Between moves a game holds only its
stones and settings; every move is judged on a
:class:`~gomoku_engine.game.board.Board` borrowed from an
:class:`~gomoku_engine.play.engine_pool.EnginePool`, so fives, overlines, caro's blocked
fives and renju fouls are judged by the same code as in the protocol and the match
referee.  The engine, borrowed from the same pool while it thinks, searches with a
strength level's depth and node caps inside a per-move time limit, and a level that
blunders does so, by the game-move policy the protocol loop follows too
(:mod:`gomoku_engine.protocol.policy`).

Callers serialise the requests that change one game (the web layer holds
:attr:`HumanGame.lock`); other threads may read :meth:`HumanGame.view` at any time, even
while the engine searches (on its own board, not the game's stones).  Different games
share only the pool.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TypeVar

from ..core.constants import BLACK, MAX_SIZE, MIN_SIZE, RULE_NAMES, WHITE, Rule
from ..engine import Engine, Limits, SearchResult
from ..eval import win_rate
from ..core.errors import GomokuError, IllegalMoveError, InvalidMoveError
from ..game.board import Board
from ..search.levels import MAX_LEVEL, MIN_LEVEL
from ..protocol.policy import apply_blunder, move_limits
from ..core.notation import Point, format_point, format_score
from ..core.opening_rules import OPENING_RULES, first_move_violation
from ..core.rules import FOUL_NAMES, LEGAL
from ..search.timeman import TimeControl
from .engine_pool import EnginePool, PoolBusy

T = TypeVar("T")

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
#: Transposition table (MiB) of the engine of a game that has its own pool (the terminal).
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
    rule: Rule = Rule.FREESTYLE  #: the game's rule, whose sigmoid scale gives the win rate

    @property
    def win_rate(self) -> float:
        """The searching side's chance to win, 0..1 (:func:`gomoku_engine.eval.win_rate`)."""
        return win_rate(self.score, self.rule)

    def as_dict(self) -> dict:
        """JSON form: ``score`` as text (``"win in 5"`` where forced), ``pv`` as points,
        ``win_rate`` 0..1 to three places."""
        return {"score": format_score(self.score), "score_value": self.score,
                "win_rate": round(self.win_rate, 3),
                "depth": self.depth, "nodes": self.nodes, "time_ms": round(self.time_ms),
                "side": COLOUR_NAMES[self.colour],
                "pv": [{"x": x, "y": y} for x, y in self.pv],
                "pv_text": " ".join(format_point(p) for p in self.pv)}

    @classmethod
    def of(cls, result: SearchResult, colour: int, rule: Rule) -> Analysis:
        return cls(result.score, result.depth, result.nodes, result.time_ms,
                   list(result.pv), colour, rule)


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


def winning_line(board: Board) -> list[Point]:
    """The stones of the winning five on ``board`` (with an overline where that wins),
    else ``[]``.

    The board has judged the win (:attr:`Board.winner`); this only finds, through the
    last stone, the direction whose row of the winner's stones made it: a row of five or
    more, exactly five where the rule wants it for that colour.
    """
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


def load_stones(board: Board, stones: list[tuple[int, int, int]], to_move: int,
                won: bool) -> None:
    """Set ``stones`` (``(x, y, colour)`` in move order) on a borrowed ``board``, then
    ``to_move``; ``won``: the last stone made a five (which :meth:`Board.set_stones`
    refuses), so it is played after the others."""
    if won:
        board.set_stones(stones[:-1], stones[-1][2])
        board.play(*stones[-1][:2])
    else:
        board.set_stones(stones, to_move)


def replay(board: Board, stones: list[tuple[int, int, int]]) -> None:
    """Set a played game's ``stones`` (``(x, y, colour)`` in move order) on a borrowed
    ``board``, each judged as it is placed; the other colour is to move then.

    :raises IllegalMoveError: a stone off the board, on an occupied point, after the five,
        or a renju foul for black (with the move's number).
    """
    board.clear()
    for number, (x, y, colour) in enumerate(stones, 1):
        where = f"move {number} ({format_point((x, y))})"
        if board.winner:
            raise IllegalMoveError(f"{where} comes after the game was won")
        if not board.geometry.on_board(x, y) or board.at(x, y) != 0:
            raise IllegalMoveError(f"{where} is off the board or occupied")
        if colour == BLACK and board.rule == Rule.RENJU and board.foul(x, y) != LEGAL:
            raise IllegalMoveError(f"{where} is a foul for black in renju "
                                   f"({FOUL_NAMES[board.foul(x, y)]})")
        board.play(x, y, colour)


class HumanGame:
    """One game of a person against the engine.

    Between moves the game holds only its stones, its settings, its result and the last
    analysis (a few kilobytes).  An engine (board kernels and transposition table) is
    borrowed from :attr:`pool` only while the engine thinks, and a board only while a
    move is judged; the game's stones are set on them first.

    The engine plays first when the person takes white (opening on the centre, as the
    design asks); call :meth:`start` once to let it.

    :param size: board side (5..32).
    :param rule: the win condition.
    :param level: strength level 1..10.
    :param human: the person's colour, 1 (black) or 2 (white).
    :param move_ms: the engine's per-move time limit (ms); the level's caps apply within it.
    :param seed: seed of a blundering level's random moves.
    :param hash_mb: the transposition table (MiB) of the game's own pool of one engine,
        when no ``pool`` is given.
    :param opening_rule: one of :data:`gomoku_engine.core.opening_rules.OPENING_RULES`:
        under ``"lin"`` black's first stone, the person's or the engine's, must lie on the
        two outermost rows or columns (Lin's rule).
    :param pool: the engines and boards to borrow (shared by the games of a server).
    :raises ValueError: on a bad size, level, colour or opening rule.
    """

    def __init__(self, size: int = 15, rule: Rule = Rule.FREESTYLE, level: int = 3,
                 human: int = WHITE, move_ms: float = DEFAULT_MOVE_MS, seed: int = 0,
                 hash_mb: float = GAME_HASH_MB, opening_rule: str = "none",
                 pool: EnginePool | None = None) -> None:
        if not MIN_LEVEL <= level <= MAX_LEVEL:
            raise ValueError(f"level {level} outside {MIN_LEVEL}..{MAX_LEVEL}")
        if human not in (BLACK, WHITE):
            raise ValueError(f"colour must be 1 (black) or 2 (white), not {human}")
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise ValueError(f"board size {size} outside {MIN_SIZE}..{MAX_SIZE}")
        if opening_rule not in OPENING_RULES:
            raise ValueError(f"unknown opening rule {opening_rule!r}")
        self.pool = EnginePool(1, hash_mb) if pool is None else pool
        self.width = self.height = size
        self.rule = Rule(rule)
        self.opening_rule = opening_rule  #: the opening rule of black's first stone
        self.level = level
        self.human = human
        self.move_ms = move_ms
        self._rng = random.Random(seed)
        self.analysis: Analysis | None = None  #: the engine's last search (its own move)
        self.thinking = False  #: the engine is searching (read by other threads)
        self.lock = threading.Lock()  #: held by a caller for the length of a request
        #: guards the game's state against :meth:`view` while it changes
        self._state_lock = threading.RLock()
        self._view = GameView([], BLACK, None, [], [], None, False)
        self._foul_kinds: dict[Point, int] = {}  #: black's fouls when the person is to move
        self._winner, self._to_move = 0, BLACK
        self._engine: Engine | None = None  #: the borrowed engine while it searches
        self._stop_asked = False

    # --- state ---------------------------------------------------------------------------
    @property
    def key(self) -> tuple[int, int, Rule]:
        """``(width, height, rule)``: what a borrowed engine or board is set to."""
        return self.width, self.height, self.rule

    @property
    def computer(self) -> int:
        """The engine's colour."""
        return 3 - self.human

    @property
    def to_move(self) -> int:
        """The colour to move (1 black, 2 white), even once the game is over."""
        return self._to_move

    @property
    def winner(self) -> int:
        """The colour that made the winning five (0 if none)."""
        return self._winner

    @property
    def ply(self) -> int:
        return len(self._view.stones)

    def stones(self) -> list[tuple[int, int, int]]:
        """``(x, y, colour)`` of every stone, in move order."""
        return list(self._view.stones)

    def moves(self) -> list[Point]:
        return [(x, y) for x, y, _ in self._view.stones]

    @property
    def over(self) -> bool:
        return self._view.result is not None

    @property
    def result(self) -> str | None:
        """``None`` while the game goes on, else ``"black"``, ``"white"`` or ``"draw"``."""
        return self._view.result

    def winning_line(self) -> list[Point]:
        """The stones of the winning five (see :func:`winning_line`), else ``[]``."""
        return list(self._view.winning_line)

    def fouls(self) -> list[Point]:
        """Renju: the points black may not play, when the person is black and to move."""
        return list(self._foul_kinds)

    def view(self) -> GameView:
        """The game's state now (the engine searches on a borrowed board, not on it)."""
        with self._state_lock:
            return replace(self._view, analysis=self.analysis, thinking=self.thinking)

    def board_text(self) -> str:
        """The board drawn as text (:meth:`Board.__str__`)."""
        with self.pool.board(self.key) as board:
            self._load(board)
            return str(board)

    def _load(self, board: Board) -> None:
        load_stones(board, self._view.stones, self._to_move, bool(self._winner))

    def _record(self, board: Board) -> None:
        """Takes the game's state from ``board`` after a change."""
        over = bool(board.winner) or board.is_full
        fouls: dict[Point, int] = {}
        if (self.rule == Rule.RENJU and self.human == BLACK and board.to_move == BLACK
                and not over):
            fouls = {p: board.foul(*p) for p in board.foul_points()}
        result = (COLOUR_NAMES[board.winner] if board.winner
                  else "draw" if board.is_full else None)
        with self._state_lock:
            self._winner, self._to_move, self._foul_kinds = board.winner, board.to_move, fouls
            self._view = GameView(board.stones(), None if over else board.to_move, result,
                                  winning_line(board), list(fouls), None, False)

    def set_stones(self, stones: list[tuple[int, int, int]], to_move: int | None = None) -> None:
        """Replace the game's stones (``(x, y, colour)`` in order): a composed position with
        ``to_move`` (:meth:`Board.set_stones`), or a played game's (:func:`replay`).

        :raises IllegalMoveError: see those; nothing changes then.
        """
        with self.pool.board(self.key) as board:
            if to_move:
                board.set_stones(stones, to_move)
            else:
                replay(board, stones)
            self._record(board)
            self.analysis = None

    # --- moves ---------------------------------------------------------------------------
    def check_turn(self) -> None:
        """:raises Refused: if the game is over or it is not the person's turn."""
        if self.over:
            text = "a draw" if self.result == "draw" else f"{self.result} won"
            raise Refused(f"the game is over ({text})")
        if self.thinking or self._to_move != self.human:
            raise Refused("it is not your turn: the engine is to move")

    def check_move(self, x: int, y: int) -> None:
        """Raise unless the person may play ``(x, y)`` now.

        :raises InvalidMoveError: off the board.
        :raises Refused: game over, not the person's turn, occupied, or a renju foul.
        """
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise InvalidMoveError(f"{x},{y} is outside the {self.width}x{self.height} board")
        self.check_turn()
        if (x, y) in self.moves():
            raise Refused(f"{format_point((x, y))} is occupied")
        if self.ply == 0 and self._to_move == BLACK:
            broken = first_move_violation(self.opening_rule, (x, y), self.width, self.height)
            if broken is not None:
                raise Refused(f"black {broken}")
        foul = self._foul_kinds.get((x, y), LEGAL)
        if foul != LEGAL:
            raise Refused(f"{format_point((x, y))} is a foul for black in renju "
                          f"({FOUL_NAMES[foul]})")

    def may_play(self, x: int, y: int) -> bool:
        """Whether the person may play ``(x, y)`` now (:meth:`check_move` passes)."""
        try:
            self.check_move(x, y)
        except (InvalidMoveError, Refused):
            return False
        return True

    def play(self, x: int, y: int) -> None:
        """The person's move (the engine does not answer yet: see :meth:`reply`).

        :raises InvalidMoveError, Refused: see :meth:`check_move`; nothing changes then.
        :raises PoolBusy: no board came free (nothing changes then).
        """
        self.check_move(x, y)
        with self.pool.board(self.key) as board:
            self._load(board)
            board.play(x, y)
            self._record(board)

    def start(self) -> Point | None:
        """Let the engine open if it has black; returns its move or ``None``."""
        if self.ply == 0 and self.computer == BLACK:
            return self.reply()
        return None

    def reply(self) -> Point | None:
        """The engine's move if it is to move and the game is not over (``None`` otherwise).

        The search uses the level's depth and node caps within :attr:`move_ms`; a level
        with blunders (level 1) may play a random point next to a stone instead, unless
        the search saw a forced result -- as the protocol loop does.

        :raises PoolBusy: no engine came free in time (nothing changes then).
        """
        if self.over or self._to_move != self.computer:
            return None

        def place(engine: Engine, result: SearchResult) -> Point:
            board = engine.board
            result = apply_blunder(result, self.level, self._rng, board.moves(),
                                   board.is_legal, board.width, board.height)
            board.play(*result.move)
            with self._state_lock:
                self.analysis = Analysis.of(result, self.computer, self.rule)
                self._record(board)
            return result.move

        return self._think(self.level, place)

    def hint(self) -> tuple[Point, Analysis]:
        """The move the engine would play for the person now (nothing is played),
        searched at the game's level but at least :data:`HINT_LEVEL`.

        :raises Refused: if the game is over or it is not the person's turn.
        :raises PoolBusy: no engine came free in time.
        """
        self.check_turn()
        return self._think(max(self.level, HINT_LEVEL),
                           lambda _engine, result: (result.move,
                                                    Analysis.of(result, self.human, self.rule)))

    def undo(self) -> list[Point]:
        """Take back the engine's reply and the person's last move (after a game the
        person won: that winning move only); returns the points taken back.

        :raises Refused: if the person has no move on the board, or the engine is thinking.
        """
        if self.thinking:
            raise Refused("the engine is thinking")
        stones = self.stones()
        if self.human not in [c for _, _, c in stones]:
            raise Refused("nothing to take back: you have not moved yet")
        taken: list[Point] = []
        while True:
            x, y, colour = stones.pop()
            taken.append((x, y))
            if colour == self.human:
                break
        self.set_stones(stones, self.human)
        return taken

    def retract(self) -> None:
        """Take back the last stone (the person's move, when the engine could not reply)."""
        self.set_stones(self.stones()[:-1])  # the other colour is to move then

    # --- helpers -------------------------------------------------------------------------
    def _think(self, level_number: int, then: Callable[[Engine, SearchResult], T]) -> T:
        """Borrow an engine, set the game on it, search at a level, and return
        ``then(engine, result)`` (called before the engine goes back to the pool)."""
        budget = TimeControl(turn_ms=int(self.move_ms)).budget(self.ply)
        limits = move_limits(budget, level_number)
        with self._state_lock:
            self.thinking, self._stop_asked = True, False
        try:
            with self.pool.engine(self.key, self) as engine:
                self._load(engine.board)
                engine.set_opening_rule(self.opening_rule)
                return then(engine, self._search(engine, limits))
        finally:
            with self._state_lock:
                self.thinking = False

    def _search(self, engine: Engine, limits: Limits) -> SearchResult:
        with self._state_lock:
            self._engine = engine
            if self._stop_asked:  # asked while waiting for the engine
                engine.stop()
        try:
            return engine.search(limits)
        finally:
            with self._state_lock:
                self._engine = None
                stopped = self._stop_asked
            if stopped:  # a stop after the search ended would stop the next borrower's:
                engine.search(Limits(depth=1))  # a search resets the flag when it ends

    def stop(self) -> None:
        """Make a running search return at once (thread-safe)."""
        with self._state_lock:
            self._stop_asked = True
            if self._engine is not None:
                self._engine.stop()


__all__ = ["Analysis", "COLOURS", "GameView", "HumanGame", "LEVEL_LABELS", "PoolBusy", "RULE_NAMES",
           "Refused", "winning_line"]
