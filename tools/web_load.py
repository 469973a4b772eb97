"""Concurrent games through the JSON API of ``gomoku-engine web`` (docs/play.md, "Load").

Starts a server in this process on a free port (or uses ``--url``), then plays ``--games``
games at once, one thread each, against the scripted weak player of the tests, at
``--level``; colours and rules alternate.  Every answer must be 200; every game must end
with the engine's five, checked by replaying the moves on a fresh Board.  Prints the
errors, the results and the answer times.

    .venv/bin/python tools/web_load.py --games 20 --level 3
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from gomoku_engine.game.board import Board
from gomoku_engine.play.human import RULE_NAMES
from gomoku_engine.play.web import GameStore, make_server, url_of

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from web_server import call, weak_move  # noqa: E402 (the tests' client and weak player)

RULES = ["freestyle", "standard", "renju", "caro"]


def play_one(base: str, index: int, level: int, out: dict) -> None:
    try:
        play_web_game(base, index, level, out)
    except OSError as exc:  # a refused or reset connection is an error of the run
        out[index] = {"rule": "", "human": "", "errors": [f"connection: {exc}"],
                      "correct": False, "stones": 0, "times": [0.0], "seconds": 0.0}


def play_web_game(base: str, index: int, level: int, out: dict) -> None:
    human = "white" if index % 2 == 0 else "black"
    rule = RULES[index // 2 % len(RULES)]
    times: list[float] = []
    began = time.perf_counter()
    status, game = call(base, "POST", "api/games", {"size": 15, "rule": rule,
                                                     "level": level, "human": human})
    times.append(time.perf_counter() - began)
    errors = [] if status == 200 else [f"create: {status} {game}"]
    while not errors and game["result"] is None:
        x, y = weak_move(game)
        sent = time.perf_counter()
        status, game = call(base, "POST", f"api/games/{game['id']}/moves", {"x": x, "y": y})
        times.append(time.perf_counter() - sent)
        if status != 200:
            errors.append(f"move {x},{y}: {status} {game}")
    correct = False
    if not errors:
        board = Board(15, rule=RULE_NAMES[rule])
        for m in game["moves"]:
            board.play(m["x"], m["y"])
        line = {(p["x"], p["y"]) for p in game["winning_line"]}
        correct = (game["result"] == game["engine"]
                   and board.winner == (1 if game["engine"] == "black" else 2)
                   and len(line) == 5 and all(board.at(x, y) == board.winner for x, y in line))
    out[index] = {"rule": rule, "human": human, "errors": errors, "correct": correct,
                  "stones": len(game.get("moves", [])), "times": times,
                  "seconds": time.perf_counter() - began}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--level", type=int, default=3)
    parser.add_argument("--url", default=None, help="a running server [default: start one]")
    args = parser.parse_args()
    server = None
    base = args.url
    if base is None:
        server = make_server("127.0.0.1", 0, GameStore())
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = url_of(server)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    results: dict[int, dict] = {}
    began = time.perf_counter()
    threads = [threading.Thread(target=play_one, args=(base, i, args.level, results))
               for i in range(args.games)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - began
    if server is not None:
        server.shutdown()
        server.store.close()
    times = [t for r in results.values() for t in r["times"]]
    creates = [r["times"][0] for r in results.values()]
    moves = [t for r in results.values() for t in r["times"][1:]]
    errors = [e for r in results.values() for e in r["errors"]]
    print(f"{time.strftime('%Y-%m-%d', time.gmtime())} commit {commit}: {args.games} games "
          f"at level {args.level} at once, {wall:.1f} s")
    print(f"  finished {len(results)}, correct results {sum(r['correct'] for r in results.values())}, "
          f"errors {len(errors)}")
    print(f"  stones per game: {min(r['stones'] for r in results.values())}.."
          f"{max(r['stones'] for r in results.values())}; requests {len(times)}")
    for name, values in (("new game", creates), ("move", moves)):
        print(f"  {name} answers: median {1000 * statistics.median(values):.0f} ms, "
              f"max {1000 * max(values):.0f} ms")
    for error in errors:
        print("  ERROR", error)
    sys.exit(0 if not errors and all(r["correct"] for r in results.values())
             and len(results) == args.games else 1)


if __name__ == "__main__":
    main()
