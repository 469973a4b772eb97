"""Lateness soak: self-play games at a fixed turn time, every move's time recorded.

The referee (:func:`gomoku_engine.arena.referee.play_game`) times each move from sending the command
to reading the reply, as a manager does; this script plays ``--games`` games in each of the
four settings freestyle/renju x 15x15/20x20 (Piskvork's offset openings, so they fit both
sizes), one game at a time, and appends one JSON line per game to ``--out``.  ``--report``
summarises a file (also a partial one, while the soak runs): moves over the turn, the
slowest move, percentiles.  The figures are reported in ``docs/testing.md``; they are not
asserted by a test, because they depend on the machine's load.

Usage::

    nice -n 15 python tools/lateness_soak.py --games 50 --turn-ms 200 --out soak.jsonl
    python tools/lateness_soak.py --report soak.jsonl --turn-ms 200
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from gomoku_engine.core.constants import Rule
from gomoku_engine.arena.match import Clock, EngineSpec, load_openings, run_round_robin

OPENINGS = Path(__file__).resolve().parents[2] / "shared" / "openings" / "piskvork_offset.txt"
SETTINGS = (("freestyle", Rule.FREESTYLE, 15), ("freestyle", Rule.FREESTYLE, 20),
            ("renju", Rule.RENJU, 15), ("renju", Rule.RENJU, 20))


def play(games: int, turn_ms: int, out: Path, openings: Path) -> None:
    """Play ``games`` games per setting; one JSON line per game appended to ``out``."""
    engine = (sys.executable, "-m", "gomoku_engine")
    specs = [EngineSpec("a", engine), EngineSpec("b", engine)]
    clock = Clock(turn_ms=turn_ms, tolerance_ms=1000)
    for name, rule, size in SETTINGS:
        opening_list = load_openings(openings, size) if openings.exists() else []

        def record(index, pair, first_black, game, name=name, size=size) -> None:
            first_of = {}
            moves = []
            for move in game.moves:
                first = move.colour not in first_of
                first_of.setdefault(move.colour, True)
                moves.append([move.colour, round(move.seconds * 1000, 2), first])
            line = {"rule": name, "size": size, "game": index, "winner": game.winner,
                    "reason": game.reason, "turn_ms": turn_ms, "moves": moves}
            with out.open("a") as f:
                f.write(json.dumps(line) + "\n")

        run_round_robin(specs, opening_list, games, size=size, rule=rule, clock=clock,
                        concurrency=1, seed=1, on_game=record)


def report(path: Path, turn_ms: int) -> str:
    """The soak's figures: games, moves, moves over the turn, slowest move, percentiles.

    A side's first move of a game includes the engine's start-up (the referee grants it
    extra time), so it is counted apart.
    """
    games = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    later = sorted(ms for g in games for _, ms, first in g["moves"] if not first)
    firsts = sorted(ms for g in games for _, ms, first in g["moves"] if first)
    forfeits = [g["reason"] for g in games if g["reason"] not in ("five", "board full",
                                                                   "move limit")]

    def pct(values: list[float], p: float) -> float:
        return values[min(len(values) - 1, int(p / 100 * len(values)))] if values else 0.0

    by_setting = {}
    for g in games:
        by_setting[f"{g['rule']} {g['size']}x{g['size']}"] = \
            by_setting.get(f"{g['rule']} {g['size']}x{g['size']}", 0) + 1
    lines = [f"games: {len(games)} ({', '.join(f'{k}: {v}' for k, v in by_setting.items())})",
             f"forfeits: {len(forfeits)} {forfeits}",
             f"moves (after each side's first): {len(later)}, over {turn_ms} ms: "
             f"{sum(1 for ms in later if ms > turn_ms)}",
             f"  mean {sum(later) / max(1, len(later)):.1f} ms, median {pct(later, 50):.1f}, "
             f"p99 {pct(later, 99):.1f}, p99.9 {pct(later, 99.9):.1f}, "
             f"max {later[-1] if later else 0:.1f} ms",
             f"first moves (with start-up): {len(firsts)}, over {turn_ms} ms: "
             f"{sum(1 for ms in firsts if ms > turn_ms)}, max {firsts[-1] if firsts else 0:.1f} ms"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50, help="games per setting")
    parser.add_argument("--turn-ms", type=int, default=200)
    parser.add_argument("--out", type=Path, default=Path("soak.jsonl"))
    parser.add_argument("--openings", type=Path, default=OPENINGS)
    parser.add_argument("--report", type=Path, default=None, metavar="FILE",
                        help="only summarise FILE")
    args = parser.parse_args()
    if args.report:
        print(report(args.report, args.turn_ms))
        return
    play(args.games, args.turn_ms, args.out, args.openings)
    print(report(args.out, args.turn_ms))


if __name__ == "__main__":
    main()
