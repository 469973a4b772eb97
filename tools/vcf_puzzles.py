"""Which shared VCF puzzles (freestyle and standard) does each search algorithm solve?

Usage: ``python tools/vcf_puzzles.py [--turn-ms 500] [--seed 1]`` from the repository
root (``../shared/puzzles/puzzles_dev.jsonl`` beside it).  Each puzzle is searched as a
game move would be (``INFO timeout_turn``'s soft and hard budgets) by alpha-beta and by
the genetic algorithm.  A move counts as solved if the puzzle lists it as a winning first
move, or, for a move it does not list (``complete: false``), if it is a four whose forced
block leaves the attacker a VCF (checked with the engine's VCF solver); any other move
counts as not solved.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from gomoku_engine.core.constants import BLACK, WHITE, Rule
from gomoku_engine.engine import Engine
from gomoku_engine.protocol.policy import move_limits
from gomoku_engine.search.timeman import TimeControl

PUZZLES = Path(__file__).resolve().parents[1].parent / "shared" / "puzzles" / "puzzles_dev.jsonl"
RULES = {"freestyle": Rule.FREESTYLE, "standard": Rule.STANDARD}


def setup(engine: Engine, record: dict) -> None:
    stones = ([(x, y, BLACK) for x, y in record["black"]]
              + [(x, y, WHITE) for x, y in record["white"]])
    engine.board.set_stones(stones, BLACK if record["to_move"] == "black" else WHITE)


def wins(engine: Engine, record: dict, move: tuple[int, int]) -> bool:
    if [move[0], move[1]] in record["expected"]["moves"]:
        return True
    if record["expected"].get("complete", False):
        return False
    board = engine.board
    board.play(*move)
    try:
        if board.winner:
            return True
        defender = board.to_move
        if any(board.is_legal(x, y) and _makes_five(board, x, y, defender)
               for x in range(board.width) for y in range(board.height)):
            return False  # the defender makes five first
        blocks = [(x, y) for x in range(board.width) for y in range(board.height)
                  if board.is_legal(x, y) and _makes_five(board, x, y, 3 - board.to_move)]
        if len(blocks) != 1:
            return len(blocks) > 1  # an open four or double four wins; no four: unverified
        board.play(*blocks[0])
        try:
            return engine.solve("vcf", time_ms=5000).win
        finally:
            board.undo()
    finally:
        board.undo()


def _makes_five(board, x: int, y: int, colour: int) -> bool:
    probe = board.copy()
    probe.play(x, y, colour)
    return probe.winner == colour


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turn-ms", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    records = [json.loads(line) for line in PUZZLES.read_text().splitlines() if line.strip()]
    records = [r for r in records if r["expected"]["kind"] == "vcf" and r["rule"] in RULES]
    clock = TimeControl(turn_ms=args.turn_ms)
    solved = {"alphabeta": 0, "ga": 0}
    for record in records:
        row = [f"{record['id']:32s} {record['rule']:9s} depth {record['expected'].get('depth')}"]
        for algorithm in solved:
            engine = Engine(record["size"], rule=RULES[record["rule"]], hash_mb=16,
                            algorithm=algorithm, seed=args.seed)
            setup(engine, record)
            result = engine.search(move_limits(clock.budget(0), start=time.perf_counter()))
            ok = wins(engine, record, result.move)
            solved[algorithm] += ok
            how = f", by {engine.last_ga['kind']}" if algorithm == "ga" else ""
            row.append(f"{algorithm} {result.move[0]},{result.move[1]} "
                       f"{'solved' if ok else 'missed'} ({result.time_ms:.0f} ms{how})")
        print("  ".join(row))
    for algorithm, count in solved.items():
        print(f"{algorithm}: {count}/{len(records)} VCF puzzles solved at timeout_turn "
              f"{args.turn_ms} ms")


if __name__ == "__main__":
    main()
