"""Audit finished games for VCFs (or VCTs) the loser allowed (issue 3's self-play check).

Usage: ``python scripts/vcf_audit.py FOLDER [--rule freestyle] [--time-ms 2000]
[--kind vcf|vct]``, where FOLDER was written by ``gomoku-engine match --out FOLDER``
(``summary.json`` and one ``game_NNN.psq`` per game).  For every game won by a five, it
finds the loser's first move after which the winner has a VCF (the engine's solver,
``--time-ms`` per question; with ``--kind vct`` a VCT, the solver's full depth).  That
loss was *allowed* if, in the position before that move, some other move of the loser
leaves the winner provably without one (every empty point within two of a stone is
tried); otherwise it was already unstoppable there (a *forced* loss), or the game was
lost to something the solver did not prove at any of the loser's moves.  The opening's
stones (the record's leading moves with 0 ms, which ``match`` writes for them) are no
one's decision and are not judged.  Each line names the loser (the match's engine names).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from gomoku_engine.core.constants import Rule
from gomoku_engine.engine import Engine
from gomoku_engine.core.notation import format_point
from gomoku_engine.arena.records import read_psq

RULES = {"freestyle": Rule.FREESTYLE, "standard": Rule.STANDARD, "renju": Rule.RENJU,
         "caro": Rule.CARO}


def engine_at(moves, size: int, rule: Rule) -> Engine:
    engine = Engine(size, rule=rule, hash_mb=8)
    for x, y in moves:
        engine.board.play(x, y)
    return engine


def has_win(engine: Engine, time_ms: float, kind: str = "vcf") -> tuple[bool, bool]:
    """``(win, unknown)`` for the side to move, by VCF or (``kind="vct"``) VCT."""
    result = engine.solve(kind, time_ms=time_ms)
    return result.win, result.aborted


def five_points(board, colour: int) -> list[tuple[int, int]]:
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


def near_points(board) -> list[tuple[int, int]]:
    """Legal points of the side to move within two of a stone."""
    return [(x, y) for y in range(board.height) for x in range(board.width)
            if board.is_legal(x, y)
            and any(board.geometry.on_board(x + dx, y + dy) and board.at(x + dx, y + dy)
                    for dx in range(-2, 3) for dy in range(-2, 3))]


def stops(engine: Engine, move: tuple[int, int], time_ms: float, fours_left: int = 2,
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


def audit_game(moves, winner: int, size: int, rule: Rule, time_ms: float,
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--rule", choices=sorted(RULES), default="freestyle")
    parser.add_argument("--time-ms", type=float, default=2000.0)
    parser.add_argument("--kind", choices=("vcf", "vct"), default="vcf")
    args = parser.parse_args()
    summary = json.loads((args.folder / "summary.json").read_text())
    counts: dict[str, int] = {}
    for game in summary["games"]:
        if game["reason"] != "five":
            continue
        width, _, record = read_psq((args.folder / f"game_{game['game']:03d}.psq").read_text())
        moves = [(x, y) for x, y, _ in record]
        opening = next((i for i, (_, _, ms) in enumerate(record) if ms > 0), len(record))
        winner = 1 if game["result"] == "B+" else 2
        verdict = audit_game(moves, winner, width, RULES[args.rule], args.time_ms, args.kind,
                             opening)
        loser = game.get("white" if winner == 1 else "black", "?")
        key = f"{loser} {verdict.split(':')[0].split()[0]}"
        counts[key] = counts.get(key, 0) + 1
        print(f"game {game['game']:3d} (lost by {loser}): {verdict}", flush=True)
    print("summary:", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    main()
