#!/usr/bin/env python3
"""The tests' fake reference engine for ``gomoku-engine openings make`` (pure Python,
independent of gomoku_engine).

It answers ``START`` with ``OK``, reads ``YXBOARD`` ... ``DONE`` blocks (``x,y,field``),
and answers ``YXBALANCETWO b`` / ``YXBALANCEONE b`` at once and deterministically: the
first empty points next to a stone, in row order (``y`` then ``x``), two or one of them,
after a line ``MESSAGE balance ... ev N bias b``.  Options:

* ``--scores "0,5000"``: the ``ev`` of successive answers, cycled (default ``0``);
* ``--answer unknown|error|hang|crash|taken|one|same``: instead, answer ``UNKNOWN ...``,
  ``ERROR ...``, nothing, exit; a taken point; one point for ``YXBALANCETWO``; always
  ``7,7 7,8`` (the same opening whatever the stones, on an empty board);
* ``--start-reply TEXT``: answer START with TEXT instead of OK;
* ``--log FILE``: append every line received to FILE.
"""

import argparse
import sys
import time

from brain_io import commands, read_board, received, reply  # beside this file


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scores", default="0")
    parser.add_argument("--answer", default=None)
    parser.add_argument("--start-reply", default="OK")
    parser.add_argument("--log", default=None)
    args = parser.parse_args()
    scores = [int(v) for v in args.scores.split(",")]
    lines = received(args.log)
    size, stones, answered = 15, {}, 0

    def balance(count: int, bias: str) -> None:
        nonlocal answered
        if args.answer == "unknown":
            return reply(f"UNKNOWN command YXBALANCE {bias}")
        if args.answer == "error":
            return reply("ERROR balance not supported here")
        if args.answer == "hang":
            time.sleep(60)
        if args.answer == "crash":
            sys.exit(3)
        if args.answer == "taken" and stones:
            first = sorted(stones, key=lambda p: (p[1], p[0]))[0]
            return reply(" ".join(f"{first[0]},{first[1]}" for _ in range(count)))
        if args.answer == "same":
            return reply("7,7 7,8" if count == 2 else "7,7")
        near = sorted(((x, y) for x in range(size) for y in range(size)
                       if (x, y) not in stones
                       and any((x + dx, y + dy) in stones for dx in (-1, 0, 1)
                               for dy in (-1, 0, 1))), key=lambda p: (p[1], p[0]))
        chosen = (near or [(size // 2, size // 2), (size // 2, size // 2 + 1)])[:count]
        if args.answer == "one":
            chosen = chosen[:1]
        score = scores[answered % len(scores)]
        answered += 1
        reply(f"MESSAGE balance {' '.join(f'{x},{y}' for x, y in chosen)} ev {score} "
              f"bias {bias}")
        reply(" ".join(f"{x},{y}" for x, y in chosen))

    for cmd, parts in commands(lines):
        if cmd == "START":
            size, stones = int(parts[1]), {}
            reply(args.start_reply)
        elif cmd == "YXBOARD":
            stones = read_board(lines)
        elif cmd in ("YXBALANCETWO", "YXBALANCEONE"):
            balance(2 if cmd == "YXBALANCETWO" else 1, parts[1] if len(parts) > 1 else "")
        elif cmd == "END":
            return
        elif cmd != "INFO":
            reply(f"UNKNOWN {cmd}")


if __name__ == "__main__":
    main()
