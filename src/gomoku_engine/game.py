"""A referee that plays one game between two pbrain engines through the real protocol.

The referee owns the true board (:class:`gomoku_engine.board.Board`, so wins are judged by
the engine's own rules code), sends each engine ``START``, the ``INFO`` time settings and
the first position as ``BOARD``, then ``TURN`` with the opponent's last move, and records
for every move the point and the time the engine took (from sending the command to reading
the move).  An engine loses by an illegal or unparseable reply, a renju foul, by silence
past the turn limit plus ``tolerance_ms``, or by crashing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .board import Board
from .client import EngineProcess, EngineTimeout
from .constants import BLACK, WHITE, Rule
from .errors import GomokuError
from .notation import Point, format_pair
from .rules import FOUL_NAMES


@dataclass
class MoveRecord:
    point: Point
    colour: int  #: 1 black, 2 white
    seconds: float  #: from sending the command to reading the reply


@dataclass
class GameRecord:
    """How a game went: the moves after the opening, the result and why."""

    opening: list[Point]
    moves: list[MoveRecord] = field(default_factory=list)
    winner: int = 0  #: 0 draw (or unfinished), 1 black, 2 white
    reason: str = ""  #: "five", "board full", "move limit", or the loser's fault


def play_game(black: Sequence[str], white: Sequence[str], size: int = 15,
              rule: Rule = Rule.FREESTYLE, turn_ms: int = 1000,
              opening: Sequence[Point] = (), tolerance_ms: int = 1000,
              first_move_grace_ms: int = 60_000, max_moves: int | None = None,
              on_move: Callable[[Board, MoveRecord], None] | None = None) -> GameRecord:
    """Play one game; ``black`` and ``white`` are the engines' command lines.

    :param turn_ms: ``INFO timeout_turn`` sent to both engines (ms).
    :param opening: stones placed before the engines move, black first.
    :param tolerance_ms: lateness accepted before a move is a time forfeit (ms).
    :param first_move_grace_ms: extra time for each engine's first reply (start-up, ms).
    :param max_moves: stop as a draw after this many moves (opening excluded).
    :raises IllegalMoveError: if the opening itself is illegal.
    """
    board = Board(size, rule=rule)
    for x, y in opening:
        board.play(x, y)
    record = GameRecord(list(opening))
    engines = {BLACK: EngineProcess(black), WHITE: EngineProcess(white)}
    started = {BLACK: False, WHITE: False}
    try:
        for colour, engine in engines.items():
            try:
                engine.send(f"START {size}", f"INFO timeout_turn {turn_ms}",
                            "INFO timeout_match 0", f"INFO rule {int(rule)}",
                            "INFO max_memory 367001600")
            except OSError:
                return _forfeit(record, colour, "crashed")
        for colour, engine in engines.items():
            reply = _safe_reply(engine, first_move_grace_ms / 1000)
            if reply != "OK":
                return _forfeit(record, colour, f"answered START with {reply!r}")
        while True:
            colour = board.to_move
            engine = engines[colour]
            try:
                if not started[colour]:
                    engine.send("BOARD", *(f"{x},{y},{1 if c == colour else 2}"
                                           for x, y, c in board.stones()), "DONE")
                    limit = (turn_ms + tolerance_ms + first_move_grace_ms) / 1000
                    started[colour] = True
                else:
                    engine.send(f"TURN {format_pair(board.moves()[-1])}")
                    limit = (turn_ms + tolerance_ms) / 1000
            except OSError:  # a broken pipe: the engine is gone
                return _forfeit(record, colour, "crashed")
            began = time.perf_counter()
            try:
                line = engine.read_reply(limit)
            except EngineTimeout:
                return _forfeit(record, colour, "no move in time")
            except EOFError:
                return _forfeit(record, colour, "crashed")
            seconds = time.perf_counter() - began
            try:
                x, y = (int(v) for v in line.split(","))
                foul = board.foul(x, y) if colour == BLACK else 0
                board.play(x, y)
            except (ValueError, GomokuError):
                return _forfeit(record, colour, f"illegal reply {line!r}")
            if foul:  # renju: black loses by a foul (the stone stays for the record)
                record.moves.append(MoveRecord((x, y), colour, time.perf_counter() - began))
                return _forfeit(record, colour, f"played a foul ({FOUL_NAMES[foul]} at {x},{y})")
            move = MoveRecord((x, y), colour, seconds)
            record.moves.append(move)
            if on_move is not None:
                on_move(board, move)
            if board.winner:
                record.winner, record.reason = board.winner, "five"
                return record
            if board.is_full:
                record.reason = "board full"
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


def _forfeit(record: GameRecord, loser: int, why: str) -> GameRecord:
    record.winner = 3 - loser
    record.reason = f"{'black' if loser == BLACK else 'white'} {why}"
    return record
