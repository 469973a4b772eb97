"""Load probe of a real ``gomoku-engine web`` server: memory, lost games, unanswered requests.

Starts the server on the loopback address (``--port 0``, its games in a new temporary
database, ``--memory-mb`` as given), creates ``--games`` games through ``POST /api/games``
(levels 3, 5 and 10 in turn, every other one with the engine opening), then plays
``--moves`` moves in each of ``--played`` of them at once (one thread per game), and
finally reads every game back.  It prints the server's resident memory (``VmRSS`` of
``/proc/PID/status``) after each stage and its peak (``VmHWM``), the requests sent and
answered (an answer is any HTTP status; a connection error or a timeout is not), the 503
answers it retried, and the games lost: a game that is not there, or not as its last
answer left it.  Bounded: every request has a timeout and the run a deadline
(``--deadline-s``); it exits with status 1 if a game was lost or a request unanswered.
Linux only (``/proc``); standard library only.

    .venv/bin/python tools/web_memory.py                      # 200 games, 24 played at once
    .venv/bin/python tools/web_memory.py --memory-mb 320 --games 300 --played 32
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
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


class Client:
    """JSON requests to one server, counted; a 503 (every engine busy for the server's
    whole wait) is retried after 1 s until ``deadline`` (``time.monotonic()``)."""

    def __init__(self, base: str, deadline: float, timeout_s: float) -> None:
        self.base, self.deadline, self.timeout_s = base, deadline, timeout_s
        self.sent = self.answered = 0
        self.busy: list[str] = []
        self.unanswered: list[str] = []
        self._lock = threading.Lock()

    def call(self, method: str, path: str, body: dict | None = None) -> dict:
        data = None if body is None else json.dumps(body).encode()
        while True:
            with self._lock:
                self.sent += 1
            request = urllib.request.Request(self.base + path, data=data, method=method,
                                             headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=self.timeout_s) as answer:
                    text = answer.read()
                with self._lock:
                    self.answered += 1
                return json.loads(text)
            except urllib.error.HTTPError as exc:
                text = exc.read()
                with self._lock:
                    self.answered += 1
                if exc.code != 503 or time.monotonic() > self.deadline:
                    raise
                self.busy.append(json.loads(text)["error"])
                time.sleep(1.0)
            except OSError as exc:  # no answer: refused, reset, timed out
                with self._lock:
                    self.unanswered.append(f"{method} {path}: {exc}")
                raise


def play(client: Client, game: dict, moves: int) -> dict:
    """The person's moves: the free point nearest the top-left corner, ``moves`` times;
    returns the game's last state."""
    state = game
    for _ in range(moves):
        if state["result"] is not None or time.monotonic() > client.deadline:
            break
        taken = {(m["x"], m["y"]) for m in state["moves"]}
        point = next((x, y) for y in range(15) for x in range(15) if (x, y) not in taken)
        state = client.call("POST", f"api/games/{game['id']}/moves",
                            {"x": point[0], "y": point[1]})
    return state


def lost_games(client: Client, states: list[dict]) -> list[str]:
    """The games not found as their last answer left them (``id: why``)."""
    lost = []
    for state in states:
        try:
            now = client.call("GET", f"api/games/{state['id']}")
        except urllib.error.HTTPError as exc:
            lost.append(f"{state['id']}: {exc.code}")
            continue
        if now["moves"] != state["moves"] or now["result"] != state["result"]:
            lost.append(f"{state['id']}: {len(now['moves'])} stones, not {len(state['moves'])}")
    return lost


def start_server(memory_mb: int, move_ms: int, db: str) -> tuple[subprocess.Popen, str, str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "gomoku_engine", "web", "--no-open", "--host", "127.0.0.1",
         "--port", "0", "--memory-mb", str(memory_mb), "--move-ms", str(move_ms),
         "--db", db],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    said = ""
    for line in process.stdout:
        said += line
        if line.startswith("serving the game on "):
            base = line.split()[4]
            if not base.startswith("http://127.0.0.1:"):
                process.terminate()
                raise SystemExit(f"the probe runs on the loopback address only, not {base}")
            return process, base, said
    raise SystemExit(f"the server did not start:\n{said}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memory-mb", type=int, default=512)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--played", type=int, default=24)
    parser.add_argument("--moves", type=int, default=4)
    parser.add_argument("--move-ms", type=int, default=1000)
    parser.add_argument("--deadline-s", type=float, default=600.0,
                        help="the whole run's limit; requests stop being retried after it")
    parser.add_argument("--timeout-s", type=float, default=120.0, help="one request's limit")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="gomoku-web-probe-")
    db = os.path.join(folder, "games.sqlite3")
    process, base, said = start_server(args.memory_mb, args.move_ms, db)
    pid = process.pid
    client = Client(base, time.monotonic() + args.deadline_s, args.timeout_s)
    try:
        print(said.strip().replace("\n", " | "))
        print(f"started: VmRSS {status_mb(pid, 'VmRSS'):.0f} MiB")
        began = time.perf_counter()
        games = [client.call("POST", "api/games",
                             {"level": (3, 5, 10)[n % 3], "human": ("white", "black")[n % 2]})
                 for n in range(args.games)]
        print(f"{args.games} games created ({time.perf_counter() - began:.0f} s): "
              f"VmRSS {status_mb(pid, 'VmRSS'):.0f} MiB")
        began = time.perf_counter()
        with ThreadPoolExecutor(args.played) as players:
            played = list(players.map(lambda g: play(client, g, args.moves),
                                      games[-args.played:]))
        stones = sum(len(g["moves"]) for g in played)
        print(f"{args.played} games played {args.moves} moves each at once "
              f"({stones} stones, {time.perf_counter() - began:.0f} s): "
              f"VmRSS {status_mb(pid, 'VmRSS'):.0f} MiB, peak VmHWM "
              f"{status_mb(pid, 'VmHWM'):.0f} MiB (setting {args.memory_mb} MiB)")
        lost = lost_games(client, games[:-args.played] + played)
        print(f"games lost: {len(lost)} of {args.games}{': ' + lost[0] if lost else ''}")
        print(f"requests: {client.sent} sent, {client.answered} answered, "
              f"{len(client.unanswered)} unanswered; {len(client.busy)} answers 503 "
              f"(retried){': ' + client.busy[0] if client.busy else ''}")
    finally:
        process.terminate()
        process.wait(30)
    if lost or client.unanswered:
        sys.exit(1)


if __name__ == "__main__":
    main()
