"""A referee that plays one game between two pbrain engines through the real protocol.

The referee owns the true board (:class:`gomoku_engine.game.board.Board`, so wins are judged by
the engine's own rules code), sends each engine ``START``, the ``INFO`` time settings and
the first position as ``BOARD``, then ``TURN`` with the opponent's last move, and records
for every move the point and the time the engine took (from sending the command to reading
the move).  With a game time limit it also keeps each engine's clock, sends ``INFO
time_left`` before every move and adds the increment after it.  An engine loses by an
illegal or unparseable reply, a renju foul (:func:`foul_reason`), silence past its turn
limit or its remaining game time plus ``tolerance_ms``, or by crashing.  Under an opening rule
(:mod:`gomoku_engine.core.opening_rules`, e.g. Lin's) both engines are told it by ``INFO
opening`` and a black first stone that breaks it loses.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..game.board import Board
from ..protocol.client import (MAX_MEMORY_BYTES, EngineProcess, EngineRefused, EngineTimeout,
                               start_lines)
from ..protocol.messages import is_kernel_free_line
from .clock import START_REPLY_MS, STARTUP_MS
from .engines import FreshEngines, LogPath
from ..core.constants import BLACK, WHITE, Rule
from ..core.errors import GomokuError
from ..core.notation import Point, format_pair
from ..core.opening_rules import first_move_violation, opening_violation
from ..core.rules import FOUL_NAMES, RENJU_DRAW_EMPTY, renju_cut_off


#: Lines of the faulting engine's transcript kept with a forfeit.
TRANSCRIPT_LINES = 12


@dataclass
class MoveRecord:
    point: Point
    colour: int  #: 1 black, 2 white
    seconds: float  #: from sending the command to reading the reply
    clock_ms: int | None = None  #: the mover's game clock after the move (match time only)
    #: the time the move had (ms): the turn limit, capped by the mover's game clock (the
    #: first move's start-up allowance not included); None: not known (a saved record)
    allowed_ms: float | None = None
    #: the engine wrote this project's kernel-free line before the move (it played without
    #: its search: ``gomoku_engine.protocol.messages.kernel_free_line``)
    kernel_free: bool = False

    @property
    def over_turn(self) -> bool:
        """Whether the move took longer than it had (:attr:`allowed_ms`)."""
        return self.allowed_ms is not None and self.seconds * 1000 > self.allowed_ms


@dataclass
class GameRecord:
    """How a game went: the moves after the opening, the result and why."""

    opening_moves: list[Point]  #: the stones placed before the engines moved, black first
    moves: list[MoveRecord] = field(default_factory=list)
    winner: int = 0  #: 0 draw (or unfinished), 1 black, 2 white
    #: "five", one of :data:`DRAW_REASONS`, or the loser's fault
    reason: str = ""
    #: after a forfeit, the last lines exchanged with the loser (``> `` sent, ``< `` read)
    log: list[str] = field(default_factory=list)


#: the reasons of a game ended without a winner and without a fault
DRAW_REASONS = ("board full", "move limit", "renju cut-off")


def foul_reason(board: Board, x: int, y: int) -> str | None:
    """Why the side to move may not play ``(x, y)`` under the board's rule, or None.

    Renju forbids black the fouls of :mod:`gomoku_engine.core.rules` (double three, double
    four, overline); the stone is judged by the engine's own rules code.

    :raises IllegalMoveError: if the point is off the board or taken.
    """
    foul = board.foul(x, y)  # 0 under every rule but renju
    if board.to_move != BLACK or not foul:
        return None
    return f"played a foul ({FOUL_NAMES[foul]} at {x},{y})"


def play_game(black: Sequence[str], white: Sequence[str], size: int = 15,
              rule: Rule = Rule.FREESTYLE, turn_ms: int = 1000,
              opening_moves: Sequence[Point] = (), tolerance_ms: int = 1000,
              first_move_grace_ms: int = STARTUP_MS, max_moves: int | None = None,
              on_move: Callable[[Board, MoveRecord], None] | None = None,
              match_ms: int = 0, increment_ms: int = 0,
              black_info: Sequence[tuple[str, str]] = (),
              white_info: Sequence[tuple[str, str]] = (),
              opening_rule: str = "none",
              renju_draw_empty: int = RENJU_DRAW_EMPTY,
              engines: FreshEngines | None = None,
              logs: tuple[LogPath, LogPath] = (None, None)) -> GameRecord:
    """Play one game; ``black`` and ``white`` are the engines' command lines.

    :param turn_ms: ``INFO timeout_turn`` sent to both engines (ms); 0: no per-move limit
        (then ``match_ms`` is required and is sent as the turn limit too).
    :param opening_moves: stones placed before the engines move, black first.
    :param tolerance_ms: lateness accepted before a move is a time forfeit (ms).
    :param first_move_grace_ms: extra time for each engine's first reply (process start-up,
        JIT loading, ms; :data:`gomoku_engine.arena.clock.STARTUP_MS`); that extra is
        neither a forfeit nor charged to the game clock.
    :param max_moves: stop as a draw after this many moves (opening excluded).
    :param renju_draw_empty: under renju, stop as a draw ("renju cut-off") once no more
        than this many points are empty (:data:`RENJU_DRAW_EMPTY`; 0: play to a full board).
    :param match_ms: ``INFO timeout_match``: each engine's time for the whole game (ms);
        0 = none.  The referee keeps each engine's clock, sends ``INFO time_left`` before
        every move, and an engine whose move comes later than ``min(turn, time left) +
        tolerance`` loses on time.
    :param increment_ms: added to an engine's clock after each of its moves (Fischer);
        also sent as ``INFO time_increment`` (Yixin-Board's key).
    :param black_info: extra ``INFO key value`` lines for black (e.g. ``("max_depth", "3")``),
        sent after the time settings at the start of the game.
    :param white_info: the same for white.
    :param opening_rule: a name of :data:`gomoku_engine.core.opening_rules.OPENING_RULES`;
        other than ``"none"`` it is sent to both engines as ``INFO opening <name>`` and a
        black first stone that breaks it is a forfeit.
    :param engines: where the processes come from and go back to
        (:class:`gomoku_engine.arena.engines.FreshEngines` by default: started for this
        game and closed at its end; ``ReusedEngines`` keeps them across games).
    :param logs: files for black's and white's I/O in this game, each line timestamped
        (:meth:`gomoku_engine.protocol.client.EngineProcess.log_to`); None: no log.
    :raises IllegalMoveError: if the opening itself is illegal.
    :raises ValueError: with neither a turn nor a match time limit, for an unknown opening
        rule, or an opening that breaks it.
    """
    if turn_ms <= 0 and match_ms <= 0:
        raise ValueError("a game needs a turn or a match time limit")
    first_move_violation(opening_rule, (0, 0), size, size)  # raises for an unknown name
    problem = opening_violation(opening_rule, opening_moves, size, size)
    if problem is not None:
        raise ValueError(f"the opening {problem}")
    board = Board(size, rule=rule)
    for x, y in opening_moves:
        board.play(x, y)
    game = _Game(board, GameRecord(list(opening_moves)), _Settings(
        turn_ms, match_ms, increment_ms, tolerance_ms, first_move_grace_ms, opening_rule,
        max_moves, renju_draw_empty))
    source = engines if engines is not None else FreshEngines()
    if not _launch(game, source, {BLACK: black, WHITE: white},
                   {BLACK: logs[0], WHITE: logs[1]}):
        return game.record
    try:
        if _handshake(game, {BLACK: black_info, WHITE: white_info}):
            _play_moves(game, on_move)
        return game.record
    finally:
        faulty = _at_fault(game.record)
        for colour, engine in game.engines.items():
            source.finish(engine, reusable=colour != faulty)


@dataclass(frozen=True)
class _Settings:
    """The time control and adjudication of one game (ms, as :func:`play_game`'s)."""

    turn_ms: int
    match_ms: int
    increment_ms: int
    tolerance_ms: int
    startup_ms: int
    opening_rule: str
    max_moves: int | None
    renju_draw_empty: int


@dataclass
class _Game:
    """A game in progress: the true board, the record, the engines and their clocks."""

    board: Board
    record: GameRecord
    settings: _Settings
    engines: dict[int, EngineProcess] = field(default_factory=dict)
    started: dict[int, bool] = field(default_factory=lambda: {BLACK: False, WHITE: False})
    left: dict[int, float] = field(default_factory=dict)  #: ms on each clock

    def forfeit(self, loser: int, why: str) -> bool:
        """Record ``loser``'s forfeit; returns False (the game is over)."""
        _forfeit(self.record, loser, self.engines, why)
        return False


def _at_fault(record: GameRecord) -> int:
    """The colour that lost ``record`` by a fault (not a five, not a draw), else 0."""
    if record.winner and record.reason != "five":
        return 3 - record.winner
    return 0


def _launch(game: _Game, source: FreshEngines, commands: dict[int, Sequence[str]],
            logs: dict[int, LogPath]) -> bool:
    """Get both processes from ``source``; False (the game lost by the one that cannot
    start) on failure."""
    for colour, command in commands.items():
        try:
            game.engines[colour] = source.start(command, logs[colour])
        except OSError as exc:  # no such program, not executable, ...
            for engine in game.engines.values():
                source.finish(engine, reusable=True)
            game.record.winner = 3 - colour
            game.record.reason = (f"{'black' if colour == BLACK else 'white'} could not "
                                  f"start: {exc}")
            return False
    return True


def _handshake(game: _Game, info: dict[int, Sequence[tuple[str, str]]]) -> bool:
    """Send both engines ``START`` and the settings, then read both ``OK``s (so the two
    processes start up side by side); False after a forfeit."""
    s = game.settings
    for colour, engine in game.engines.items():
        game.left[colour] = float(s.match_ms)
        lines = start_lines(game.board.width, int(game.board.rule),
                            s.turn_ms if s.turn_ms > 0 else s.match_ms, s.match_ms,
                            max_memory=MAX_MEMORY_BYTES,
                            time_left_ms=s.match_ms if s.match_ms > 0 else None,
                            increment_ms=s.increment_ms, opening_rule=s.opening_rule,
                            info=info[colour])
        try:
            engine.send(*lines)
        except OSError:
            return game.forfeit(colour, "crashed")
    for colour, engine in game.engines.items():
        try:
            engine.confirm_start((START_REPLY_MS + s.startup_ms) / 1000)
        except EngineRefused as exc:
            return game.forfeit(colour, str(exc))
    return True


def _play_moves(game: _Game, on_move: Callable[[Board, MoveRecord], None] | None) -> None:
    """Ask the side to move for its move until the game ends (five, draw or forfeit)."""
    while True:
        move = _next_move(game)
        if move is None:
            return
        game.record.moves.append(move)
        if on_move is not None:
            on_move(game.board, move)
        if _game_over(game):
            return


def _allowed_ms(game: _Game, colour: int) -> float:
    """The mover's time for this move (ms): the turn limit, capped by its game clock."""
    s = game.settings
    allowed = float(s.turn_ms) if s.turn_ms > 0 else float("inf")
    if s.match_ms > 0:
        allowed = min(allowed, max(0.0, game.left[colour]))
    return allowed


def _next_move(game: _Game) -> MoveRecord | None:
    """Send the side to move the position (``BOARD`` first, then ``TURN``), time its reply,
    judge it and play it; None after a forfeit."""
    board, s = game.board, game.settings
    colour = board.to_move
    engine = game.engines[colour]
    allowed = _allowed_ms(game, colour)
    first = not game.started[colour]
    seen = len(engine.transcript)
    try:
        if s.match_ms > 0:
            engine.send(f"INFO time_left {int(game.left[colour])}")
        if first:
            engine.send("BOARD", *(f"{x},{y},{1 if c == colour else 2}"
                                   for x, y, c in board.stones()), "DONE")
            game.started[colour] = True
        else:
            engine.send(f"TURN {format_pair(board.moves()[-1])}")
    except OSError:  # a broken pipe: the engine is gone
        game.forfeit(colour, "crashed")
        return None
    limit = (allowed + s.tolerance_ms + (s.startup_ms if first else 0)) / 1000
    began = time.perf_counter()
    try:
        line = engine.read_reply(limit)
    except EngineTimeout:
        game.forfeit(colour, _late(game, colour))
        return None
    except EOFError:
        game.forfeit(colour, "crashed")
        return None
    seconds = time.perf_counter() - began
    point = _judge_and_play(game, colour, line)
    if point is None:
        return None
    if s.match_ms > 0:
        charged = seconds * 1000
        if first:  # start-up is not charged: at most what the move was allowed
            charged = min(charged, allowed)
        game.left[colour] += s.increment_ms - charged
    kernel_free = any(line.startswith("< ") and is_kernel_free_line(line[2:])
                      for line in engine.transcript[seen:])
    return MoveRecord(point, colour, seconds,
                      int(game.left[colour]) if s.match_ms > 0 else None,
                      allowed_ms=allowed, kernel_free=kernel_free)


def _late(game: _Game, colour: int) -> str:
    """Why a move that did not come in time lost: the game clock or the turn limit."""
    s = game.settings
    if s.match_ms > 0 and (s.turn_ms <= 0 or game.left[colour] < s.turn_ms):
        return f"out of match time ({int(game.left[colour])} ms left)"
    return f"no move in time (turn limit {s.turn_ms} ms)"


def _judge_and_play(game: _Game, colour: int, line: str) -> Point | None:
    """Play the reply ``line`` (``x,y``) if it is a legal move and return its point; None
    after a forfeit (unparseable, off the board, taken, a renju foul, or against the
    opening rule)."""
    board = game.board
    try:
        x, y = (int(v) for v in line.split(","))
        foul = foul_reason(board, x, y)  # raises for an off-board or taken point
        if foul is None and board.ply == 0 and colour == BLACK:
            foul = first_move_violation(game.settings.opening_rule, (x, y), board.width,
                                        board.height)
        if foul is not None:
            game.forfeit(colour, foul)
            return None
        board.play(x, y)
    except (ValueError, GomokuError):
        game.forfeit(colour, f"illegal reply {line!r}")
        return None
    return x, y


def _game_over(game: _Game) -> bool:
    """Record the ending if the last move ended the game: a five, or one of
    :data:`DRAW_REASONS`."""
    board, record, s = game.board, game.record, game.settings
    if board.winner:
        record.winner, record.reason = board.winner, "five"
    elif board.is_full:
        record.reason = "board full"
    elif renju_cut_off(board.rule, board.width * board.height - board.ply,
                       s.renju_draw_empty):
        record.reason = "renju cut-off"
    elif s.max_moves is not None and len(record.moves) >= s.max_moves:
        record.reason = "move limit"
    else:
        return False
    return True


def _forfeit(record: GameRecord, loser: int, engines: dict[int, EngineProcess],
             why: str) -> GameRecord:
    record.winner = 3 - loser
    record.log = engines[loser].transcript[-TRANSCRIPT_LINES:]
    record.reason = f"{'black' if loser == BLACK else 'white'} {why}"
    return record
