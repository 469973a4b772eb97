#!/usr/bin/env python3
"""A fake pbrain engine whose chance to win depends on its ``INFO param`` values (pure
Python, independent of gomoku_engine): the synthetic objective of ``gomoku-engine tune``'s
tests, with a known optimum.

Two roles:

* ``--role tuned`` (the default) takes ``--tunable NAME=OPTIMUM,WIDTH,LOW,HIGH``
  (repeatable) and answers ``INFO param NAME VALUE`` as the engine does: ``ERROR`` for a
  name it does not know or a value outside [LOW, HIGH], written before its answer to the
  next command that is not ``INFO``, and only for the last ``INFO param``.  At its first move it wins the
  game with probability ``p = 0.05 + 0.9 * exp(-sum(((value - OPTIMUM) / WIDTH)^2) / 2)``
  (a parameter never set counts at its optimum): a number ``u`` in [0, 1) drawn from
  ``--seed`` and the position it is first given (the opening stones and the opponent's
  first move, if any: so both colours of an opening draw differently, and theta+ and
  theta- draw the same ``u``, as games from one opening share their luck), and
  ``u < p`` means it plays to win: it makes five when it can, blocks the builder's five
  point otherwise, and else extends its own row (the board's last).  Otherwise it plays
  passive stones (every third column of every other row, never five and never in the
  builder's way) and loses.
* ``--role builder`` is the opponent: it fills the first row left to right, never
  blocks, and wins in five moves unless blocked.  A winning tuned engine always beats it,
  with either colour (it blocks one four and finishes its own row first).

``--no-start`` makes the engine exit without answering ``START`` (an engine that does
not start).  The game's result is thus a seeded Bernoulli draw of ``p``: ``--seed`` and
the opening decide the games, never the timing.
"""

import hashlib
import math
import sys

from greedy_brain import serve  # the protocol loop, beside this file

DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


def makes_five(cells, size, x, y, colour):
    """Does a ``colour`` stone at (x, y) make five or more in a row?"""
    for dx, dy in DIRECTIONS:
        run = 1
        for sign in (1, -1):
            k = 1
            while cells.get((x + sign * k * dx, y + sign * k * dy)) == colour:
                run, k = run + 1, k + 1
        if run >= 5:
            return True
    return False


def empty_points(cells, size):
    return [(x, y) for y in range(size) for x in range(size) if (x, y) not in cells]


def first_in_row(cells, size, y):
    """The first empty point of row ``y`` from the left, or any empty point."""
    for x in range(size):
        if (x, y) not in cells:
            return x, y
    return empty_points(cells, size)[0]


class Brain:
    def __init__(self, size, role, tunables, seed):
        self.size, self.role, self.tunables, self.seed = size, role, tunables, seed
        self.cells = {}
        self.values = {}
        self.held = []  # the last INFO param's error, written before the next command
        self.wins = None  # decided at the first move

    def set_param(self, name, text):
        spec = self.tunables.get(name.lower())
        if spec is None:
            return f"ERROR unknown parameter {name!r}"
        try:
            value = float(text)
        except ValueError:
            return f"ERROR parameter {name}: {text!r} is not a number"
        if not spec[2] <= value <= spec[3]:
            return f"ERROR parameter {name}: {text} is outside [{spec[2]}, {spec[3]}]"
        self.values[name.lower()] = value
        return None

    def win_probability(self):
        distance = sum(((self.values.get(name, spec[0]) - spec[0]) / spec[1]) ** 2
                       for name, spec in self.tunables.items())
        return 0.05 + 0.9 * math.exp(-distance / 2)

    def decide(self):
        key = f"{self.seed}:" + ";".join(f"{x},{y},{c}" for (x, y), c in sorted(self.cells.items()))
        u = int(hashlib.sha256(key.encode()).hexdigest()[:12], 16) / 16 ** 12
        self.wins = u < self.win_probability()

    def move(self):
        if self.role == "builder":
            return first_in_row(self.cells, self.size, 0)
        if self.wins is None:
            self.decide()
        if self.wins:
            return self.winning_move()
        for y in range(2, self.size - 2, 2):
            for x in range(0, self.size, 3):
                if (x, y) not in self.cells:
                    return x, y
        return empty_points(self.cells, self.size)[0]

    def winning_move(self):
        empty = empty_points(self.cells, self.size)
        for colour in (1, 2):  # our five, else block theirs
            for x, y in empty:
                if makes_five(self.cells, self.size, x, y, colour):
                    return x, y
        return first_in_row(self.cells, self.size, self.size - 1)


def parse_args(argv):
    role, seed, tunables, start = "tuned", 0, {}, True
    args = iter(argv)
    for arg in args:
        if arg == "--role":
            role = next(args)
        elif arg == "--seed":
            seed = int(next(args))
        elif arg == "--tunable":
            name, _, spec = next(args).partition("=")
            tunables[name.lower()] = tuple(float(v) for v in spec.split(","))
        elif arg == "--no-start":
            start = False
    return role, seed, tunables, start


def main():
    role, seed, tunables, start = parse_args(sys.argv[1:])

    def new_brain(size):
        return Brain(size, role, tunables, seed) if start else None

    def on_info(brain, words):
        # as the engine does: the error is held until the next command that is not INFO,
        # and the next INFO param replaces it (only the last one's error is seen)
        if len(words) == 4 and words[1].lower() == "param":
            error = brain.set_param(words[2], words[3])
            brain.held[:] = [error] if error else []
        return None

    serve(new_brain, on_info, name=f"param-{role}")


if __name__ == "__main__":
    main()
