"""Resident memory of a real ``gomoku-engine web`` server under many games.

Starts the server (``--memory-mb`` as given), creates ``--games`` games through
``POST /api/games``, then plays ``--moves`` moves in each of ``--played`` of them at
once (one thread per game, levels 3, 5 and 10 in turn), and prints the server's resident
memory (``VmRSS`` of ``/proc/PID/status``) after each stage and its peak (``VmHWM``).
Linux only (``/proc``); standard library only.

    .venv/bin/python tools/web_memory.py --memory-mb 512
    .venv/bin/python tools/web_memory.py --memory-mb 320 --games 300 --played 32
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor


def status_mb(pid: int, field: str) -> float:
    """A ``kB`` field of ``/proc/PID/status`` (``VmRSS``, ``VmHWM``) in MiB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise KeyError(field)


#: 503 answers (every engine busy for the server's whole wait), each retried after 1 s
BUSY: list[str] = []


def call(base: str, method: str, path: str, body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    while True:
        request = urllib.request.Request(base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=600) as answer:
                return json.loads(answer.read())
        except urllib.error.HTTPError as exc:
            if exc.code != 503:
                raise
            BUSY.append(json.loads(exc.read())["error"])
            time.sleep(1.0)


def play(base: str, game: dict, moves: int) -> int:
    """The person's moves: the free point nearest the centre's corner, ``moves`` times;
    returns the stones on the board after them."""
    state = game
    for _ in range(moves):
        if state["result"] is not None:
            break
        taken = {(m["x"], m["y"]) for m in state["moves"]}
        point = next((x, y) for y in range(15) for x in range(15) if (x, y) not in taken)
        state = call(base, "POST", f"api/games/{game['id']}/moves",
                     {"x": point[0], "y": point[1]})
    return len(state["moves"])


def start_server(memory_mb: int, move_ms: int, max_games: int) -> tuple[subprocess.Popen, str, str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "gomoku_engine", "web", "--no-open", "--port", "0",
         "--memory-mb", str(memory_mb), "--move-ms", str(move_ms),
         "--max-games", str(max_games)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    said = ""
    for line in process.stdout:
        said += line
        if line.startswith("serving the game on "):
            return process, line.split()[4], said
    raise SystemExit(f"the server did not start:\n{said}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memory-mb", type=int, default=512)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--played", type=int, default=32)
    parser.add_argument("--moves", type=int, default=4)
    parser.add_argument("--move-ms", type=int, default=1000)
    parser.add_argument("--max-games", type=int, default=32)
    args = parser.parse_args()
    process, base, said = start_server(args.memory_mb, args.move_ms, args.max_games)
    pid = process.pid
    try:
        print(said.strip().replace("\n", " | "))
        print(f"started: VmRSS {status_mb(pid, 'VmRSS'):.0f} MiB")
        began = time.perf_counter()
        games = [call(base, "POST", "api/games",
                      {"level": (3, 5, 10)[n % 3], "human": ("white", "black")[n % 2]})
                 for n in range(args.games)]
        print(f"{args.games} games created ({time.perf_counter() - began:.0f} s): "
              f"VmRSS {status_mb(pid, 'VmRSS'):.0f} MiB")
        began = time.perf_counter()
        with ThreadPoolExecutor(args.played) as players:
            stones = list(players.map(lambda g: play(base, g, args.moves),
                                      games[-args.played:]))
        print(f"{args.played} games played {args.moves} moves each "
              f"({sum(stones)} stones, {time.perf_counter() - began:.0f} s): "
              f"VmRSS {status_mb(pid, 'VmRSS'):.0f} MiB, peak VmHWM "
              f"{status_mb(pid, 'VmHWM'):.0f} MiB (setting {args.memory_mb} MiB); "
              f"{len(BUSY)} answers 503 (retried){': ' + BUSY[0] if BUSY else ''}")
    finally:
        process.terminate()
        process.wait(30)


if __name__ == "__main__":
    main()
