"""Audit finished games for VCFs (or VCTs) the loser allowed (issue 3's self-play check).

``gomoku-engine audit FOLDER`` reads a folder written by ``gomoku-engine match --out``
(``summary.json`` and one ``game_NNN.psq`` per game).  For every game won by a five, it
finds the loser's first move after which the winner has a VCF (the engine's threat
solver, ``time_ms`` per question; with ``kind="vct"`` a VCT, the solver's full depth).
That loss was *allowed* if, in the position before that move, some other move of the
loser leaves the winner provably without one (every empty point within two of a stone is
tried); otherwise it was already unstoppable there (a *forced* loss), or the game was lost
to something the solver did not prove at any of the loser's moves.  The opening's stones
(the record's leading moves with 0 ms, which ``match`` writes for them) are no one's
decision and are not judged.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.constants import Rule
from ..core.notation import Point, format_point
from ..core.records import RESULT_WINNERS
from ..engine import Engine
from .records import read_psq

if TYPE_CHECKING:
    from ..game.board import Board


def engine_at(moves: Sequence[Point], size: int, rule: Rule) -> Engine:
    """A fresh engine on the position after ``moves`` (8 MB of transposition table)."""
    engine = Engine(size, rule=rule, hash_mb=8)
    for x, y in moves:
        engine.board.play(x, y)
    return engine


def has_win(engine: Engine, time_ms: float, kind: str = "vcf") -> tuple[bool, bool]:
    """``(win, unknown)`` for the side to move, by VCF or (``kind="vct"``) VCT."""
    result = engine.solve(kind, time_ms=time_ms)
    return result.win, result.aborted


def five_points(board: Board, colour: int) -> list[Point]:
    """Empty points where ``colour`` would make five (a copy of the board is probed)."""
    points = []
    for y in range(board.height):
        for x in range(board.width):
            if board.at(x, y) == 0:
                probe = board.copy()
                probe.play(x, y, colour)
                if probe.winner == colour:
                    points.append((x, y))
    return points


def near_points(board: Board) -> list[Point]:
    """Legal points of the side to move within two of a stone."""
    return [(x, y) for y in range(board.height) for x in range(board.width)
            if board.is_legal(x, y)
            and any(board.geometry.on_board(x + dx, y + dy) and board.at(x + dx, y + dy)
                    for dx in range(-2, 3) for dy in range(-2, 3))]


def stops(engine: Engine, move: Point, time_ms: float, fours_left: int = 2,
          kind: str = "vcf") -> bool:
    """Does ``move`` of the side to move leave the opponent provably without a VCF (VCT)?

    A four is judged after the opponent's forced block, with us to move again: it stops
    the VCF only if some move of ours then does (a four alone only delays; asking the
    solver straight after it would answer "no VCF" because the opponent must block first).
    """
    board = engine.board
    us = board.to_move
    board.play(*move)
    try:
        if board.winner:
            return True
        if five_points(board, 3 - us):
            return False  # the opponent makes five at once (our four does not force it)
        fives = five_points(board, us)
        if not fives:
            win, unknown = has_win(engine, time_ms, kind)
            return not win and not unknown
        if len(fives) > 1 or not board.is_legal(*fives[0]):
            return True  # open four, double four, or (renju) the block is black's foul
        if fours_left == 0:
            return False
        board.play(*fives[0])  # the forced block (a renju foul block is a loss for black)
        try:
            return any(stops(engine, m, time_ms, fours_left - 1, kind)
                       for m in near_points(board))
        finally:
            board.undo()
    finally:
        board.undo()


def audit_game(moves: Sequence[Point], winner: int, size: int, rule: Rule, time_ms: float,
               kind: str = "vcf", opening: int = 0) -> str:
    """The verdict on one game; ``moves[:opening]`` are the opening's stones."""
    name = kind.upper()
    loser_turns = [i for i in range(opening, len(moves))
                   if (1 if i % 2 == 0 else 2) != winner]
    for i in loser_turns:
        after = engine_at(moves[: i + 1], size, rule)  # the winner to move
        win, _ = has_win(after, time_ms, kind)
        if not win:
            continue
        before = engine_at(moves[:i], size, rule)  # the loser to move
        for move in near_points(before.board):
            if move != moves[i] and stops(before, move, time_ms, kind=kind):
                return (f"ALLOWED: move {i + 1} {format_point(moves[i])} let a {name} in; "
                        f"{format_point(move)} would have stopped it")
        return f"forced: at move {i + 1} every reply already lost to a {name}"
    return f"lost to an attack that was no {name} at any of the loser's moves"


def audit_folder(folder: str | Path, rule: Rule, time_ms: float, kind: str = "vcf"
                 ) -> Iterator[tuple[int, str, str]]:
    """``(game number, loser's name, verdict)`` for every game of ``folder`` won by a
    five, in the summary's order (:func:`audit_game`; the verdict's first word is
    ``ALLOWED``, ``forced`` or ``lost``).

    :param time_ms: the threat solver's time per question (ms).
    :raises FileNotFoundError: if the folder lacks ``summary.json`` or a game's ``.psq``.
    """
    folder = Path(folder)
    summary = json.loads((folder / "summary.json").read_text())
    for game in summary["games"]:
        if game["reason"] != "five":
            continue
        width, _, record = read_psq((folder / f"game_{game['game']:03d}.psq").read_text())
        moves = [(x, y) for x, y, _ in record]
        opening = next((i for i, (_, _, ms) in enumerate(record) if ms > 0), len(record))
        winner = RESULT_WINNERS[game["result"]]  # a five: 1 or 2
        verdict = audit_game(moves, winner, width, rule, time_ms, kind, opening)
        yield game["game"], game.get("white" if winner == 1 else "black", "?"), verdict


__all__ = ["audit_folder", "audit_game", "stops"]
