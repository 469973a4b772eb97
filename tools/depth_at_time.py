"""Deepest completed iteration within a move's time, for any Gomocup engine, side by side.

Each middle game of ``gomoku-engine bench`` is sent to every engine as a ``BOARD`` with
``INFO timeout_turn`` and ``INFO show_detail 1``; the engine's ``MESSAGE`` lines are parsed
for the depth of each completed iteration (this engine's ``depth D-S ...`` and Rapfi's
``Depth D-S | ...`` formats), and the last one before the move is reported with the time
the move took (ms, measured here from sending ``DONE`` to the move).

    python tools/depth_at_time.py --turn-ms 1000 \
        --engine ours="gomoku-engine" --engine rapfi=$HOME/.cache/gomoku-peers/bin/pbrain-rapfi
"""

from __future__ import annotations

import re
import shlex
import time

import click

from gomoku_engine.bench import POSITIONS
from gomoku_engine.protocol.client import EngineProcess
from gomoku_engine.core.notation import parse_moves

DEPTH = re.compile(r"^MESSAGE [Dd]epth (\d+)(?:-(\d+))?")
MOVE = re.compile(r"^\d+,\d+$")


def measure(command: list[str], moves: list[tuple[int, int]], size: int, rule: int,
            turn_ms: int) -> tuple[int, float]:
    """``(last completed depth, ms from DONE to the move)`` for one position."""
    engine = EngineProcess(command)
    try:
        engine.send(f"START {size}")
        while not engine.read_line(30.0).startswith("OK"):
            pass
        engine.send(f"INFO timeout_turn {turn_ms}", f"INFO rule {rule}", "INFO show_detail 1")
        # a first move loads what the engine loads lazily; then a new game on the position
        engine.send("BOARD", f"{size // 2},{size // 2},2", "DONE")
        while not MOVE.match(engine.read_line(30.0)):
            pass
        engine.send(f"START {size}")
        while not engine.read_line(30.0).startswith("OK"):
            pass
        engine.send("BOARD")
        for i, (x, y) in enumerate(moves):
            engine.send(f"{x},{y},{1 if (len(moves) - i) % 2 == 0 else 2}")
        began = time.perf_counter()
        engine.send("DONE")
        depth = 0
        while True:
            line = engine.read_line(turn_ms / 1000 + 10)
            match = DEPTH.match(line)
            if match:
                depth = int(match.group(1))
            elif MOVE.match(line):
                return depth, (time.perf_counter() - began) * 1000
    finally:
        engine.send("END")
        engine.close()


@click.command()
@click.option("--engine", "engines", multiple=True, required=True, metavar="NAME=COMMAND")
@click.option("--turn-ms", type=int, default=1000, show_default=True)
@click.option("--all", "every", is_flag=True, help="All bench positions, not only middle games.")
def main(engines: tuple[str, ...], turn_ms: int, every: bool) -> None:
    """Print one line per bench position: each engine's depth and move time."""
    specs = [(name, shlex.split(cmd)) for name, _, cmd in (e.partition("=") for e in engines)]
    click.echo("position".ljust(22) + "".join(f"{name:>18}" for name, _ in specs))
    for pos in POSITIONS:
        if not every and "midgame" not in pos.name:
            continue
        cells = []
        for _, command in specs:
            depth, ms = measure(command, parse_moves(pos.moves), pos.size, int(pos.rule), turn_ms)
            cells.append(f"d{depth} {ms:6.0f} ms")
        click.echo(pos.name.ljust(22) + "".join(f"{c:>18}" for c in cells))


if __name__ == "__main__":
    main()
