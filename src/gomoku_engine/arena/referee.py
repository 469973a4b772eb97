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
from ..protocol.client import EngineProcess, EngineTimeout
from ..core.constants import BLACK, WHITE, Rule
from ..core.errors import GomokuError
from ..core.notation import Point, format_pair
from ..core.opening_rules import first_move_violation, opening_violation
from ..core.rules import FOUL_NAMES


#: Lines of the faulting engine's transcript kept with a forfeit.
TRANSCRIPT_LINES = 12


@dataclass
class MoveRecord:
    point: Point
    colour: int  #: 1 black, 2 white
    seconds: float  #: from sending the command to reading the reply
    clock_ms: int | None = None  #: the mover's game clock after the move (match time only)


@dataclass
class GameRecord:
    """How a game went: the moves after the opening, the result and why."""

    opening: list[Point]
    moves: list[MoveRecord] = field(default_factory=list)
    winner: int = 0  #: 0 draw (or unfinished), 1 black, 2 white
    #: "five", one of :data:`DRAW_REASONS`, or the loser's fault
    reason: str = ""
    #: after a forfeit, the last lines exchanged with the loser (``> `` sent, ``< `` read)
    log: list[str] = field(default_factory=list)


#: Renju games stop as a draw when this many empty points remain: GomocupJudge's rule (the
#: Gomocup's "draw after 200 moves" of 2016 on 15x15; ``../shared/protocol.md`` section
#: 4.2).  Without it a renju game can reach a board whose last empty points are all fouls
#: for black, who then has no legal move.
RENJU_DRAW_EMPTY = 25
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
              opening: Sequence[Point] = (), tolerance_ms: int = 1000,
              first_move_grace_ms: int = 60_000, max_moves: int | None = None,
              on_move: Callable[[Board, MoveRecord], None] | None = None,
              match_ms: int = 0, increment_ms: int = 0,
              black_info: Sequence[tuple[str, str]] = (),
              white_info: Sequence[tuple[str, str]] = (),
              opening_rule: str = "none",
              renju_draw_empty: int = RENJU_DRAW_EMPTY) -> GameRecord:
    """Play one game; ``black`` and ``white`` are the engines' command lines.

    :param turn_ms: ``INFO timeout_turn`` sent to both engines (ms); 0: no per-move limit
        (then ``match_ms`` is required and is sent as the turn limit too).
    :param opening: stones placed before the engines move, black first.
    :param tolerance_ms: lateness accepted before a move is a time forfeit (ms).
    :param first_move_grace_ms: extra time for each engine's first reply (process start-up,
        JIT loading, ms); that extra is neither a forfeit nor charged to the game clock.
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
    :raises IllegalMoveError: if the opening itself is illegal.
    :raises ValueError: with neither a turn nor a match time limit, for an unknown opening
        rule, or an opening that breaks it.
    """
    if turn_ms <= 0 and match_ms <= 0:
        raise ValueError("a game needs a turn or a match time limit")
    first_move_violation(opening_rule, (0, 0), size, size)  # raises for an unknown name
    problem = opening_violation(opening_rule, opening, size, size)
    if problem is not None:
        raise ValueError(f"the opening {problem}")
    board = Board(size, rule=rule)
    for x, y in opening:
        board.play(x, y)
    record = GameRecord(list(opening))
    engines: dict[int, EngineProcess] = {}
    for colour, command in ((BLACK, black), (WHITE, white)):
        try:
            engines[colour] = EngineProcess(command)
        except OSError as exc:  # no such program, not executable, ...
            for engine in engines.values():
                engine.close()
            record.winner = 3 - colour
            record.reason = f"{'black' if colour == BLACK else 'white'} could not start: {exc}"
            return record
    extra = {BLACK: list(black_info), WHITE: list(white_info)}
    started = {BLACK: False, WHITE: False}
    left = {BLACK: float(match_ms), WHITE: float(match_ms)}  # ms on each clock
    try:
        for colour, engine in engines.items():
            lines = [f"START {size}", f"INFO timeout_turn {turn_ms if turn_ms > 0 else match_ms}",
                     f"INFO timeout_match {match_ms}", f"INFO rule {int(rule)}",
                     "INFO max_memory 367001600"]
            if match_ms > 0:
                lines.append(f"INFO time_left {match_ms}")
            if increment_ms > 0:
                lines.append(f"INFO time_increment {increment_ms}")
            if opening_rule != "none":
                lines.append(f"INFO opening {opening_rule}")
            lines += [f"INFO {key} {value}" for key, value in extra[colour]]
            try:
                engine.send(*lines)
            except OSError:
                return _forfeit(record, colour, engines, "crashed")
        for colour, engine in engines.items():
            reply = _safe_reply(engine, first_move_grace_ms / 1000)
            if reply != "OK":
                return _forfeit(record, colour, engines, f"answered START with {reply!r}")
        while True:
            colour = board.to_move
            engine = engines[colour]
            allowed = float(turn_ms) if turn_ms > 0 else float("inf")
            if match_ms > 0:
                allowed = min(allowed, max(0.0, left[colour]))
            first = not started[colour]
            try:
                if match_ms > 0:
                    engine.send(f"INFO time_left {int(left[colour])}")
                if first:
                    engine.send("BOARD", *(f"{x},{y},{1 if c == colour else 2}"
                                           for x, y, c in board.stones()), "DONE")
                    started[colour] = True
                else:
                    engine.send(f"TURN {format_pair(board.moves()[-1])}")
            except OSError:  # a broken pipe: the engine is gone
                return _forfeit(record, colour, engines, "crashed")
            limit = (allowed + tolerance_ms + (first_move_grace_ms if first else 0)) / 1000
            began = time.perf_counter()
            try:
                line = engine.read_reply(limit)
            except EngineTimeout:
                if match_ms > 0 and (turn_ms <= 0 or left[colour] < turn_ms):
                    why = f"out of match time ({int(left[colour])} ms left)"
                else:
                    why = f"no move in time (turn limit {turn_ms} ms)"
                return _forfeit(record, colour, engines, why)
            except EOFError:
                return _forfeit(record, colour, engines, "crashed")
            seconds = time.perf_counter() - began
            try:
                x, y = (int(v) for v in line.split(","))
                foul = foul_reason(board, x, y)  # raises for an off-board or taken point
                if foul is None and board.ply == 0 and colour == BLACK:
                    foul = first_move_violation(opening_rule, (x, y), size, size)
                if foul is not None:
                    return _forfeit(record, colour, engines, foul)
                board.play(x, y)
            except (ValueError, GomokuError):
                return _forfeit(record, colour, engines, f"illegal reply {line!r}")
            if match_ms > 0:
                charged = seconds * 1000
                if first:  # start-up is not charged: at most what the move was allowed
                    charged = min(charged, allowed)
                left[colour] += increment_ms - charged
            move = MoveRecord((x, y), colour, seconds,
                              int(left[colour]) if match_ms > 0 else None)
            record.moves.append(move)
            if on_move is not None:
                on_move(board, move)
            if board.winner:
                record.winner, record.reason = board.winner, "five"
                return record
            if board.is_full:
                record.reason = "board full"
                return record
            if rule == Rule.RENJU and size * size - board.ply <= renju_draw_empty:
                record.reason = "renju cut-off"
                return record
            if max_moves is not None and len(record.moves) >= max_moves:
                record.reason = "move limit"
                return record
    finally:
        for engine in engines.values():
            engine.close()


def _safe_reply(engine: EngineProcess, timeout: float) -> str:
    try:
        return engine.read_reply(timeout)
    except (EngineTimeout, EOFError) as exc:
        return f"<{exc}>"


def _forfeit(record: GameRecord, loser: int, engines: dict[int, EngineProcess],
             why: str) -> GameRecord:
    record.winner = 3 - loser
    record.log = engines[loser].transcript[-TRANSCRIPT_LINES:]
    record.reason = f"{'black' if loser == BLACK else 'white'} {why}"
    return record
