#!/usr/bin/env python3
"""A one-ply greedy pbrain engine (pure Python, independent of gomoku_engine).

Each empty point within two steps of a stone gets, for both colours, a value from the
contiguous runs it would make in the four directions (five, open four, four, open three,
...); the engine plays the point with the highest own value plus 0.9 times the
opponent's.  It therefore takes a five when it has one and blocks the opponent's five,
but looks no further.  Used as the weak opponent in tests and measurements.
"""

import random
import sys

from brain_io import commands, read_board, received, reply  # beside this file

RUN_VALUE = {  # (run length, open ends) -> value
    (5, 0): 10**7, (5, 1): 10**7, (5, 2): 10**7,
    (4, 2): 10**5, (4, 1): 10**4, (3, 2): 5000, (3, 1): 500, (2, 2): 200, (2, 1): 50,
    (1, 2): 10, (1, 1): 2,
}


class Greedy:
    def __init__(self, size: int, seed: int = 0) -> None:
        self.size = size
        self.cells: dict[tuple[int, int], int] = {}
        self.rng = random.Random(seed)

    def value(self, x: int, y: int, colour: int) -> int:
        total = 0
        for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
            run, ends = 1, 0
            for sign in (1, -1):
                k = 1
                while self.cells.get((x + sign * k * dx, y + sign * k * dy)) == colour:
                    run, k = run + 1, k + 1
                nx, ny = x + sign * k * dx, y + sign * k * dy
                if 0 <= nx < self.size and 0 <= ny < self.size and (nx, ny) not in self.cells:
                    ends += 1
            total += RUN_VALUE.get((min(run, 5), ends), 0)
        return total

    def move(self) -> tuple[int, int]:
        if not self.cells:
            return self.size // 2, self.size // 2
        best, best_points = -1.0, []
        for y in range(self.size):
            for x in range(self.size):
                if (x, y) in self.cells:
                    continue
                if not any((x + dx, y + dy) in self.cells
                           for dx in range(-2, 3) for dy in range(-2, 3)):
                    continue
                score = self.value(x, y, 1) + 0.9 * self.value(x, y, 2)
                if score > best:
                    best, best_points = score, [(x, y)]
                elif score == best:
                    best_points.append((x, y))
        return self.rng.choice(best_points)


def serve(new_brain, on_info=None, name="greedy") -> None:
    """The protocol loop on stdin/stdout around a brain: ``new_brain(size)`` makes one at
    ``START`` (None: exit without answering, an engine that does not start); the brain has
    ``cells`` ({point: 1 ours, 2 theirs}) and ``move()``; ``on_info(brain, words)`` handles
    an ``INFO`` line and returns a reply or None, and a brain's ``held`` list holds a line
    written before the next command that is not ``INFO`` (``param_brain.py`` shares this
    loop)."""
    brain = None

    def play() -> None:
        x, y = brain.move()
        brain.cells[(x, y)] = 1
        reply(f"{x},{y}")

    lines = received()
    for cmd, parts in commands(lines):
        if cmd != "INFO" and getattr(brain, "held", None):
            reply(brain.held.pop())  # an INFO line's error, held until the next command
        if cmd in ("START", "RESTART"):
            brain = new_brain(int(parts[1]) if cmd == "START" else brain.size)
            if brain is None:
                return
            reply("OK")
        elif cmd == "ABOUT":
            reply(f'name="{name}", version="1", author="tests", country="CZ"')
        elif cmd == "BEGIN":
            play()
        elif cmd == "TURN":
            x, y = (int(v) for v in parts[1].split(","))
            brain.cells[(x, y)] = 2
            play()
        elif cmd == "BOARD":
            brain.cells.clear()
            brain.cells.update({p: 1 if f == 1 else 2 for p, f in read_board(lines).items()})
            play()
        elif cmd == "END":
            return
        elif cmd == "INFO":
            answer = on_info(brain, parts) if on_info is not None and brain is not None else None
            if answer:
                reply(answer)
        else:
            reply(f"UNKNOWN {cmd}")


def main() -> None:
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    serve(lambda size: Greedy(size, seed))


if __name__ == "__main__":
    main()
