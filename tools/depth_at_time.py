"""Deepest completed iteration and nodes within a move's time, for any Gomocup engine,
side by side.

Each middle game of ``gomoku-engine bench`` (and each ``--position``) is sent to every
engine as a ``BOARD`` with ``INFO timeout_turn`` and ``INFO show_detail 1``; the engine's
``MESSAGE`` lines are parsed for the depth of each completed iteration (this engine's
``depth D-S ... n NODES ...`` and Rapfi's ``Depth D-S | ... | Node 52K | ...`` formats;
Rapfi rounds its count to three digits and a K or M), and the last one before the move is
reported with its nodes and the time the move took (ms, measured here from sending
``DONE`` to the move), then each engine's nodes per second over all positions.  Node
counts are not defined alike in two engines (Rapfi counts its quiescence nodes; this
engine's move time includes its root threat search): a guide, not a like-for-like figure.

    python tools/depth_at_time.py --turn-ms 1000 \
        --engine ours="gomoku-engine" --engine rapfi=$HOME/.cache/gomoku-peers/bin/pbrain-rapfi \
        --position "20x20=20:0:f5e3b7h5g3g4i6e4h4d4f2i5f4f6e5d6d7e7f8"
"""

from __future__ import annotations

import re
import shlex
import time

import click

from gomoku_engine.bench import POSITIONS
from gomoku_engine.protocol.client import EngineProcess
from gomoku_engine.core.notation import parse_moves

DEPTH = re.compile(r"^MESSAGE (?:.*\| )?[Dd]epth (\d+)(?:-(\d+))?")
NODES = re.compile(r"(?:\bn |\bNode )(\d+(?:\.\d+)?)([KMG]?)\b")
SCALE = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}
MOVE = re.compile(r"^\d+,\d+$")


def measure(command: list[str], moves: list[tuple[int, int]], size: int, rule: int,
            turn_ms: int) -> tuple[int, int, float]:
    """``(last completed depth, its nodes, ms from DONE to the move)`` for one position."""
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
        depth = nodes = 0
        while True:
            line = engine.read_line(turn_ms / 1000 + 10)
            match = DEPTH.match(line)
            if match:  # an iteration, or the move's summary (Rapfi's "Speed ... | Node")
                depth = int(match.group(1))
                counted = NODES.search(line)
                if counted:  # the last line's count is the move's total
                    nodes = int(float(counted.group(1)) * SCALE[counted.group(2)])
            elif MOVE.match(line):
                return depth, nodes, (time.perf_counter() - began) * 1000
    finally:
        engine.send("END")
        engine.close()


@click.command()
@click.option("--engine", "engines", multiple=True, required=True, metavar="NAME=COMMAND")
@click.option("--turn-ms", type=int, default=1000, show_default=True)
@click.option("--all", "every", is_flag=True, help="All bench positions, not only middle games.")
@click.option("--bench", "chosen", multiple=True, metavar="NAME",
              help="Only these bench positions (e.g. '15 midgame A'). Repeatable.")
@click.option("--position", "extra", multiple=True, metavar="NAME=SIZE:RULE:MOVES",
              help="Another position, e.g. 'renju=15:4:h8h9j9j8f8'. Repeatable.")
def main(engines: tuple[str, ...], turn_ms: int, every: bool, chosen: tuple[str, ...],
         extra: tuple[str, ...]) -> None:
    """Print one line per position: each engine's depth, nodes and move time; then each
    engine's nodes per second over all of them."""
    specs = [(name, shlex.split(cmd)) for name, _, cmd in (e.partition("=") for e in engines)]
    positions = [(p.name, p.size, int(p.rule), p.moves) for p in POSITIONS
                 if p.name in chosen or (not chosen and (every or "midgame" in p.name))]
    for text in extra:
        name, _, rest = text.partition("=")
        size, rule, moves = rest.split(":")
        positions.append((name, int(size), int(rule), moves))
    totals = {name: [0, 0.0] for name, _ in specs}
    click.echo("position".ljust(22) + "".join(f"{name:>28}" for name, _ in specs))
    for label, size, rule, moves in positions:
        cells = []
        for name, command in specs:
            depth, nodes, ms = measure(command, parse_moves(moves), size, rule, turn_ms)
            totals[name][0] += nodes
            totals[name][1] += ms
            cells.append(f"d{depth} {nodes:>9,} {ms:6.0f} ms")
        click.echo(label.ljust(22) + "".join(f"{c:>28}" for c in cells))
    click.echo("nodes/s".ljust(22) + "".join(
        f"{totals[name][0] / max(totals[name][1], 1) * 1000:>28,.0f}" for name, _ in specs))


if __name__ == "__main__":
    main()
