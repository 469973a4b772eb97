"""How many shared tactics positions does the engine get right as a game move?

Usage: ``python tools/tactics.py [--turn-ms 500 | --nodes N] [--no-threats] [--vct]
[--horizon] [--rule R] [--kind win|defend] [--evaluation E] [--param NAME=VALUE ...]``
from the repository root, with ``../shared/puzzles/tactics_dev.jsonl`` beside it. Each
position (a real game's moves) is searched as a game move would be, with the threat-space
search a game move uses unless told otherwise (``INFO threats``' default: the root VCF and
the opponent's VCF filter, no VCT, no VCF at the horizon); the move counts as right if it
is among the position's ``answers``, wrong if among ``refuted``, else unverified."""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

from gomoku_engine.core.constants import Rule
from gomoku_engine.engine import Engine, Limits
from gomoku_engine.eval import DEFAULT_EVALUATION, EVALUATIONS
from gomoku_engine.protocol.policy import move_limits
from gomoku_engine.protocol.settings import Settings
from gomoku_engine.search.params import parse_assignments
from gomoku_engine.search.timeman import TimeControl

TACTICS = Path(__file__).resolve().parents[1].parent / "shared" / "puzzles" / "tactics_dev.jsonl"
RULES = {"freestyle": Rule.FREESTYLE, "standard": Rule.STANDARD, "renju": Rule.RENJU}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turn-ms", type=int, default=500)
    parser.add_argument("--nodes", type=int, default=0, help="node budget instead of time")
    # the threat-space search of a game move by default (one owner: the protocol's
    # settings), so that a run without flags measures what games play
    game = Settings().threat_flags()
    parser.add_argument("--threats", action=argparse.BooleanOptionalAction,
                        default=game["threats"], help="root VCF and the opponent's VCF filter")
    parser.add_argument("--vct", action=argparse.BooleanOptionalAction, default=game["vct"],
                        help="root VCT (with --threats)")
    parser.add_argument("--horizon", action=argparse.BooleanOptionalAction,
                        default=game["horizon_vcf"], help="a short VCF at the horizon")
    parser.add_argument("--rule", default=None)
    parser.add_argument("--kind", default=None)
    parser.add_argument("--evaluation", default=DEFAULT_EVALUATION, choices=EVALUATIONS)
    parser.add_argument("--verbose", "-v", action="store_true")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="a search tunable (search/params.py), repeatable")
    args = parser.parse_args()
    records = [json.loads(line) for line in TACTICS.read_text().splitlines() if line.strip()]
    records = [r for r in records if (args.rule is None or r["rule"] == args.rule)
               and (args.kind is None or r["kind"] == args.kind)]
    params = parse_assignments(args.param)
    tally: Counter[tuple[str, str]] = Counter()
    slowest = 0.0
    for record in records:
        engine = Engine(record["size"], rule=RULES[record["rule"]], hash_mb=16, params=params,
                        evaluation=args.evaluation)
        for x, y in record["moves"]:
            engine.board.play(x, y)
        if args.nodes:
            limits = Limits(nodes=args.nodes, depth=60, threats=args.threats, vct=args.vct,
                            horizon_vcf=args.horizon)
        else:
            budget = TimeControl(turn_ms=args.turn_ms).budget(engine.board.ply)
            limits = move_limits(budget, start=time.perf_counter(), threats=args.threats,
                                 vct=args.vct, horizon_vcf=args.horizon)
        result = engine.search(limits)
        slowest = max(slowest, result.time_ms)
        move = list(result.move)
        verdict = ("right" if move in record["answers"] else
                   "wrong" if move in record["refuted"] else "unverified")
        tally[(record["kind"], verdict)] += 1
        if args.verbose:
            print(f"{record['id']:28s} {verdict:10s} {tuple(move)} depth {result.depth} "
                  f"score {result.score} {result.time_ms:.0f} ms", flush=True)
    for kind in ("win", "defend"):
        n = sum(v for (k, _), v in tally.items() if k == kind)
        if n:
            print(f"{kind:7s} right {tally[(kind, 'right')]}/{n}  wrong {tally[(kind, 'wrong')]}"
                  f"  unverified {tally[(kind, 'unverified')]}")
    print(f"slowest move {slowest:.0f} ms")


if __name__ == "__main__":
    main()
