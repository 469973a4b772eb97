"""An independent referee that times every move, the first ones included, with no allowance.

Plain Python and the standard library only (no code of this package), so it judges the
engine from outside as a manager does.  Each game starts two fresh engine processes (as
GomocupJudge and ``gomoku-engine match`` do); the referee writes ``START``, the ``INFO``
lines and then ``BEGIN`` (or ``BOARD`` with the opening's stones) at once, without
waiting for ``OK``, and every move's clock starts when its command has been written.
With ``--handshake about`` it first waits for each engine's reply to ``ABOUT`` (the
process is up and reading), as a referee that checks the engine's name before the game
does; with ``--handshake none`` the first move's time also holds the interpreter's start.
With ``--reuse`` the two processes are started once and play every game (as c-gomoku-cli
does), each game still starting with ``START``.
It reports every move later than the turn plus ``--late-ms``, the slowest move, the
first moves apart, and how long each engine took to answer ``START`` (from writing it).

Usage::

    nice -n 10 python tools/first_moves.py --games 20 --turn-ms 300 \\
        -- .venv/bin/pbrain-gomoku-engine
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import statistics
import subprocess
import sys
import time

SIZE = 15


class Engine:
    """A pbrain process with line reads under a deadline."""

    def __init__(self, command: list[str]) -> None:
        self.spawned = time.perf_counter()
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL)
        self._buffer = b""
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.process.stdout, selectors.EVENT_READ)

    def send(self, *lines: str) -> float:
        """Write the lines in one go; the time they were written."""
        self.process.stdin.write("".join(line + "\n" for line in lines).encode())
        self.process.stdin.flush()
        return time.perf_counter()

    def line(self, timeout: float) -> str:
        deadline = time.perf_counter() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.perf_counter()
            if left <= 0 or not self._selector.select(left):
                raise TimeoutError("no reply in time")
            chunk = os.read(self.process.stdout.fileno(), 65536)
            if not chunk:
                raise EOFError("the engine closed its output")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\n", 1)
        return raw.decode().strip()

    def reply(self, timeout: float) -> str:
        """The next line that is not a MESSAGE/DEBUG line."""
        while True:
            text = self.line(timeout)
            if not text.startswith(("MESSAGE", "DEBUG")):
                return text

    def close(self) -> None:
        try:
            self.send("END")
        except OSError:
            pass
        try:
            self.process.wait(timeout=3)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def five(board: dict[tuple[int, int], int], x: int, y: int) -> bool:
    """Five or more in a row through (x, y) (freestyle)."""
    colour = board[(x, y)]
    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            k = 1
            while board.get((x + sign * k * dx, y + sign * k * dy)) == colour:
                run += 1
                k += 1
        if run >= 5:
            return True
    return False


def start_engines(command: list[str], handshake: str) -> list[Engine]:
    engines = [Engine(command), Engine(command)]
    if handshake == "about":
        for engine in engines:
            engine.send("ABOUT")
            engine.reply(60.0)
    return engines


def play(engines: list[Engine], turn_ms: int, opening: list[tuple[int, int]],
         max_moves: int) -> dict:
    """One game; every move's time (ms) from writing its command to reading the move."""
    record: dict = {"moves": [], "start_ok_ms": [], "result": "unfinished"}
    board: dict[tuple[int, int], int] = {}
    for i, point in enumerate(opening):
        board[point] = 1 + i % 2
    header = [f"START {SIZE}", f"INFO timeout_turn {turn_ms}", "INFO timeout_match 0",
              "INFO rule 0", "INFO max_memory 367001600"]
    started = [False, False]
    to_move = 1 + len(opening) % 2
    last: tuple[int, int] | None = None
    while len(record["moves"]) < max_moves:
        engine = engines[to_move - 1]
        lines: list[str] = []
        if not started[to_move - 1]:
            lines += header
            if board:
                lines += ["BOARD"] + [f"{x},{y},{1 if c == to_move else 2}"
                                      for (x, y), c in board.items()] + ["DONE"]
            else:
                lines.append("BEGIN")
        else:
            lines.append(f"TURN {last[0]},{last[1]}")
        written = engine.send(*lines)
        first = not started[to_move - 1]
        if first:
            ok = engine.reply(60.0)
            if ok != "OK":
                record["result"] = f"engine {to_move} answered START with {ok!r}"
                break
            record["start_ok_ms"].append((time.perf_counter() - written) * 1000)
            started[to_move - 1] = True
        reply = engine.reply(60.0)
        ms = (time.perf_counter() - written) * 1000
        since_spawn = (time.perf_counter() - engine.spawned) * 1000
        x, y = (int(v) for v in reply.split(","))
        if (x, y) in board or not (0 <= x < SIZE and 0 <= y < SIZE):
            record["result"] = f"engine {to_move} played an illegal move {reply!r}"
            break
        board[(x, y)] = to_move
        record["moves"].append({"colour": to_move, "ms": ms, "first": first,
                                "since_spawn_ms": since_spawn})
        if five(board, x, y):
            record["result"] = f"{'black' if to_move == 1 else 'white'} five"
            break
        if len(board) == SIZE * SIZE:
            record["result"] = "draw"
            break
        last, to_move = (x, y), 3 - to_move
    return record


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--turn-ms", type=int, default=300)
    parser.add_argument("--late-ms", type=int, default=200,
                        help="a move later than the turn plus this is counted late")
    parser.add_argument("--handshake", choices=("none", "about"), default="none")
    parser.add_argument("--max-moves", type=int, default=120)
    parser.add_argument("--reuse", action="store_true",
                        help="start the two engines once and play every game with them")
    parser.add_argument("--out", default=None, help="append one JSON line per game here")
    parser.add_argument("command", nargs="+", help="the engine's command line (after --)")
    args = parser.parse_args()
    # openings: none (BEGIN) for even games, one stone in the centre (BOARD) for odd ones
    records = []
    engines = start_engines(args.command, args.handshake) if args.reuse else []
    for game in range(args.games):
        opening = [] if game % 2 == 0 else [(SIZE // 2, SIZE // 2)]
        if not args.reuse:
            engines = start_engines(args.command, args.handshake)
        try:
            record = play(engines, args.turn_ms, opening, args.max_moves)
        finally:
            if not args.reuse:
                for engine in engines:
                    engine.close()
        records.append(record)
        if args.out:
            with open(args.out, "a") as handle:
                handle.write(json.dumps(record) + "\n")
        slowest = max(m["ms"] for m in record["moves"]) if record["moves"] else 0
        print(f"game {game + 1}: {record['result']}, {len(record['moves'])} moves, "
              f"slowest {slowest:.0f} ms", flush=True)
    for engine in engines if args.reuse else []:
        engine.close()
    moves = [m for r in records for m in r["moves"]]
    firsts = [m for m in moves if m["first"]]
    limit = args.turn_ms + args.late_ms
    late = [m for m in moves if m["ms"] > limit]
    oks = [t for r in records for t in r["start_ok_ms"]]
    print(f"moves {len(moves)}, later than {limit} ms: {len(late)}, slowest "
          f"{max(m['ms'] for m in moves):.0f} ms, median {statistics.median(m['ms'] for m in moves):.0f} ms")
    print(f"first moves {len(firsts)}: slowest {max(m['ms'] for m in firsts):.0f} ms, median "
          f"{statistics.median(m['ms'] for m in firsts):.0f} ms, later than {limit} ms: "
          f"{sum(1 for m in firsts if m['ms'] > limit)}; from the process's start: slowest "
          f"{max(m['since_spawn_ms'] for m in firsts):.0f} ms")
    print(f"OK after START: slowest {max(oks):.0f} ms, median {statistics.median(oks):.0f} ms")


if __name__ == "__main__":
    sys.exit(main())
