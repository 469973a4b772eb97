#!/usr/bin/env python3
"""The tests' fake pbrain engine (pure Python, independent of gomoku_engine).

Plays a random empty point next to the stones (the centre on an empty board).  Options:

* ``--seed N``: random seed (default 0);
* ``--delay-ms N``: sleep before every move (time-control tests);
* ``--log FILE``: append every line received to FILE (to check what a manager sent);
* ``--moves "x,y x,y ..."``: play the first free point of this list instead, while any is
  free (scripted games);
* ``--start-reply TEXT``: answer START with TEXT instead of OK;
* ``--on-move crash|hang|say:TEXT``: instead of a move, exit with status 3, sleep for a
  minute, or print TEXT (broken engines);
* ``--ignore-eof``: at the end of its input, sleep on instead of exiting (an engine whose
  manager died, still thinking);
* ``--chatter TEXT`` with ``--chatter-moves K``: write the line TEXT before each of its
  first K moves of every game (an engine's MESSAGE lines);
* ``--say-pid``: after its answer to START, write ``MESSAGE pid <its process id>`` (to
  tell processes apart in a manager's log).
"""

import argparse
import os
import random
import sys
import time

from brain_io import commands, read_board, received, reply  # beside this file


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--delay-ms", type=int, default=0)
    parser.add_argument("--log", default=None)
    parser.add_argument("--moves", default="")
    parser.add_argument("--start-reply", default="OK")
    parser.add_argument("--on-move", default=None)
    parser.add_argument("--ignore-eof", action="store_true")
    parser.add_argument("--chatter", default="")
    parser.add_argument("--chatter-moves", type=int, default=0)
    parser.add_argument("--say-pid", action="store_true")
    args = parser.parse_args()
    script = [tuple(int(v) for v in p.split(",")) for p in args.moves.split()]
    rng = random.Random(args.seed)
    lines = received(args.log)
    size, cells = 15, set()
    moves_this_game = [0]

    def play() -> None:
        time.sleep(args.delay_ms / 1000)
        moves_this_game[0] += 1
        if args.chatter and moves_this_game[0] <= args.chatter_moves:
            reply(args.chatter)
        if args.on_move == "crash":
            sys.exit(3)
        elif args.on_move == "hang":
            time.sleep(60)
        elif args.on_move:
            reply(args.on_move.split(":", 1)[1])
            return
        scripted = [p for p in script if p not in cells and p[0] < size and p[1] < size]
        if scripted:
            cells.add(scripted[0])
            reply(f"{scripted[0][0]},{scripted[0][1]}")
            return
        empty = [(x, y) for x in range(size) for y in range(size) if (x, y) not in cells]
        near = [(x, y) for x, y in empty
                if any((x + dx, y + dy) in cells for dx in (-1, 0, 1) for dy in (-1, 0, 1))]
        x, y = rng.choice(near or empty) if cells else (size // 2, size // 2)
        cells.add((x, y))
        reply(f"{x},{y}")

    for cmd, parts in commands(lines):
        if cmd == "START":
            size, cells = int(parts[1]), set()
            moves_this_game[0] = 0
            reply(args.start_reply)
            if args.say_pid:
                reply(f"MESSAGE pid {os.getpid()}")
        elif cmd == "RESTART":
            cells = set()
            reply("OK")
        elif cmd == "ABOUT":
            reply('name="random", version="1", author="tests", country="CZ"')
        elif cmd == "BEGIN":
            play()
        elif cmd == "TURN":
            cells.add(tuple(int(v) for v in parts[1].split(",")))
            play()
        elif cmd == "BOARD":
            cells.clear()
            cells.update(read_board(lines))
            play()
        elif cmd == "END":
            return
        elif cmd != "INFO":
            reply(f"UNKNOWN {cmd}")
    while args.ignore_eof:
        time.sleep(1)


if __name__ == "__main__":
    main()
