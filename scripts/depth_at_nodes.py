"""Deepest completed iteration within a node budget, on every ``bench`` position.

Unlike ``scripts/depth_at_time.py`` (wall clock, any engine), this runs the search in
process with a node limit, so its figures do not depend on the machine's load: use it to
see how a change to the search's selectivity moves the depth reached.

    python scripts/depth_at_nodes.py --nodes 400000
"""

from __future__ import annotations

import click

from gomoku_engine.bench import POSITIONS
from gomoku_engine.engine import Engine, Limits, SearchInfo
from gomoku_engine.core.notation import parse_moves


@click.command()
@click.option("--nodes", type=int, default=400_000, show_default=True,
              help="Node budget per position.")
def main(nodes: int) -> None:
    """Print per position: last completed depth, nodes when it completed, the last
    iterations' node counts (depth:nodes)."""
    for pos in POSITIONS:
        engine = Engine(pos.size, rule=pos.rule, hash_mb=64)
        engine.new_game()
        for x, y in parse_moves(pos.moves):
            engine.board.play(x, y)
        infos: list[SearchInfo] = []
        engine.search(Limits(nodes=nodes, depth=60), on_iteration=infos.append)
        last = infos[-1]
        tail = " ".join(f"{i.depth}:{i.nodes}" for i in infos[-5:])
        click.echo(f"{pos.name:22s} depth {last.depth:2d} at {last.nodes:7d} nodes   {tail}")


if __name__ == "__main__":
    main()
