"""Replay the genetic algorithm's positions of a saved match and count how it chose.

Usage: ``python tools/ga_diagnose.py MATCH_DIR [--name ga] [--turn-ms 500] [--seed 1]``
where ``MATCH_DIR`` is the ``--out`` folder of ``gomoku-engine match`` played (without
``--seed``) on ``../shared/openings/freestyle15_balanced_dev.pos``.  Every position where
the GA engine was to move is searched again by the GA at the same budget, and the script
prints how the moves were chosen (``ga``: gene 0 of the fittest sequence, ``ga-defend``:
gene 1 after a negative tendency, ``five``/``block``: safety nets), how many fittest
sequences had a positive tendency, and in how many positions without a four to block the
opponent had a point making an open four (or double four) and the GA played one of them.
"""

from __future__ import annotations

import argparse
import collections
import json
import time
from pathlib import Path

from gomoku_engine.core.constants import EMPTY, T_OPEN_FOUR
from gomoku_engine.engine import Engine
from gomoku_engine.arena.match import load_openings
from gomoku_engine.arena.records import read_psq
from gomoku_engine.protocol.policy import move_limits
from gomoku_engine.search.timeman import TimeControl

OPENINGS = (Path(__file__).resolve().parents[1].parent / "shared" / "openings"
            / "freestyle15_balanced_dev.pos")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--name", default="ga", help="the GA engine's name in the match")
    parser.add_argument("--turn-ms", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    openings = load_openings(OPENINGS, 15)
    summary = json.loads((args.folder / "summary.json").read_text())
    clock = TimeControl(turn_ms=args.turn_ms)
    kinds: collections.Counter[str] = collections.Counter()
    positive = chosen = threatened = defended = 0
    for game in summary["games"]:
        ga_colour = 1 if game["black"] == args.name else 2
        opening = openings[((game["game"] - 1) // 2) % len(openings)]
        moves = read_psq((args.folder / f"game_{game['game']:03d}.psq").read_text())[2]
        engine = Engine(15, hash_mb=1, algorithm="ga", seed=args.seed)
        board = engine.board
        for i, (x, y, _) in enumerate(moves):
            if board.to_move == ga_colour and i >= len(opening):
                pos, them = board.position, 2 - ga_colour
                threats = {int(c) for c in board.geometry.points
                           if pos.cells[c] == EMPTY and pos.threat[them, c] >= T_OPEN_FOUR}
                result = engine.search(move_limits(clock.budget(0), start=time.perf_counter()))
                kind = str(engine.last_ga["kind"])
                kinds[kind] += 1
                if kind in ("ga", "ga-defend"):
                    chosen += 1
                    positive += result.score > 0
                if threats and kind not in ("five", "block"):
                    threatened += 1
                    defended += board.geometry.index(*result.move) in threats
            board.play(x, y)
    print("move kinds:", dict(kinds))
    print(f"GA-chosen moves with a positive tendency: {positive}/{chosen}")
    print("positions without a four to block where the opponent could make an open four "
          f"(or double four): {threatened}, GA played on such a point: {defended}")


if __name__ == "__main__":
    main()
