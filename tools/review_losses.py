"""Where the games one engine lost went wrong, in a stronger engine's eyes.

Reads the games of a 15x15 freestyle match saved with ``gomoku-engine match --out``
(each game's ``.psq`` and ``.sgf``), has a reviewer (any Gomocup engine that prints its
score in ``MESSAGE`` lines, such as Rapfi; see :mod:`gomoku_engine.training.labelling`) score
every position after the opening at a fixed depth, and turns each score into the named engine's win probability,
``sigmoid(score / scale)`` (rapfi's classical depth-2 scores measured 140.9 units per
logit of the game results, docs/evaluation.md).  For each lost game it prints the stone
count at which the probability fell below 20% and the largest drops across the named
engine's own moves.

With ``--nodes``, the positions before the drops of at least ``--drop`` are searched
again by this engine from a fresh state with each node budget, and the reviewer rates
the moves chosen: whether more search would have avoided the mistakes.  The reviewer's
scores of one position vary a little from call to call (it keeps its hash table), so
single rows are noisy; read the means.

    python tools/review_losses.py runs/rapfi --name ours \\
        --reviewer ~/.cache/gomoku-peers/bin/pbrain-rapfi --nodes 400000 --nodes 3200000
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import click

from gomoku_engine.engine import Engine, Limits
from gomoku_engine.training.labelling import ask_position, open_engine
from gomoku_engine.arena.records import read_psq

FREESTYLE = 0  #: ``INFO rule`` code
SIZE = 15  #: the peer matches' board (the reviewer is started for it)


def _win_probability(answer: tuple[int, int] | None, scale: float) -> float:
    """The side to move's win probability from the reviewer's ``(score, mate)``."""
    if answer is None:
        return math.nan
    score, mate = answer
    if mate:
        return 1.0 if mate > 0 else 0.0
    return 1.0 / (1.0 + math.exp(-score / scale))


@click.command()
@click.argument("run", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--name", required=True, help="The engine's name in the match (--engine NAME=...).")
@click.option("--reviewer", required=True, help="The reviewing engine's command.")
@click.option("--depth", type=int, default=10, show_default=True, help="The reviewer's depth.")
@click.option("--scale", type=float, default=141.0, show_default=True,
              help="The reviewer's score per logit of the win probability.")
@click.option("--drop", type=float, default=0.15, show_default=True,
              help="Drops of at least this much are searched again with --nodes.")
@click.option("--nodes", type=int, multiple=True, help="Node budgets of the searches again.")
def main(run: Path, name: str, reviewer: str, depth: int, scale: float, drop: float,
         nodes: tuple[int, ...]) -> None:
    """Review the games NAME lost in RUN with the REVIEWER engine."""
    run = run.resolve()
    os.chdir("/")  # rapfi reads ./config.toml first: start it where there is none
    judge = open_engine([os.path.expanduser(reviewer)], SIZE, FREESTYLE, depth)
    mistakes: list[list[int]] = []  # the moves up to and including each mistake
    try:
        for psq in sorted(run.glob("game_*.psq")):
            sgf = psq.with_suffix(".sgf").read_text()
            black = re.search(r"PB\[([^\]]*)\]", sgf)
            result = re.search(r"RE\[([BW])\+", sgf)
            if black is None or result is None:
                continue
            ours = 0 if black.group(1) == name else 1
            if (result.group(1) == "B") == (ours == 0):
                continue  # won or drawn
            size, _, moves = read_psq(psq.read_text())
            if size != SIZE:
                raise click.ClickException(f"{psq.name}: {size}x{size}, not {SIZE}x{SIZE}")
            flat = [x + SIZE * y for x, y, _ in moves]
            opening = next((i for i, m in enumerate(moves) if m[2] > 0), len(moves))
            ours_p = []  # our win probability before each move from the opening on
            for k in range(opening, len(flat)):
                p = _win_probability(ask_position(judge, flat[:k], SIZE)[0], scale)
                ours_p.append(p if k % 2 == ours else 1.0 - p)
            drops = sorted(((ours_p[j] - ours_p[j + 1], opening + j)
                            for j in range(len(ours_p) - 1) if (opening + j) % 2 == ours
                            and not math.isnan(ours_p[j] - ours_p[j + 1])), reverse=True)
            lost_at = next((opening + j for j, p in enumerate(ours_p) if p < 0.2), None)
            click.echo(f"{psq.stem}: starts at {ours_p[0]:.2f}, below 20% from stone "
                       f"{lost_at} of {len(flat)}; largest drops "
                       + ", ".join(f"{d:.2f} at stone {k + 1}" for d, k in drops[:3]))
            mistakes += [flat[:k + 1] for d, k in drops[:3] if d >= drop]
        if nodes and mistakes:
            _search_again(judge, mistakes, nodes, scale)
    finally:
        judge.close()


def _search_again(judge, mistakes: list[list[int]], budgets: tuple[int, ...],
                  scale: float) -> None:
    """Rate, by the reviewer, the reviewer's move, the move played and this engine's fresh
    choice at each budget, as the mover's win probability after the move."""
    def after(moves: list[int]) -> float:
        return 1.0 - _win_probability(ask_position(judge, moves, SIZE)[0], scale)

    sums = {"reviewer": 0.0, "played": 0.0, **{str(b): 0.0 for b in budgets}}
    for moves in mistakes:
        before = moves[:-1]
        reply = ask_position(judge, before, SIZE)[1]
        x, y = (int(t) for t in reply.split(","))
        sums["reviewer"] += after(before + [x + SIZE * y])
        sums["played"] += after(moves)
        for budget in budgets:
            engine = Engine(SIZE)
            for cell in before:
                engine.board.play(cell % SIZE, cell // SIZE)
            mx, my = engine.search(Limits(nodes=budget)).move
            sums[str(budget)] += after(before + [mx + SIZE * my])
    n = len(mistakes)
    click.echo(f"{n} positions before a drop; the mover's mean win probability after "
               f"the reviewer's move {sums['reviewer'] / n:.3f}, the move played "
               f"{sums['played'] / n:.3f}, "
               + ", ".join(f"this engine with {b:,} nodes {sums[str(b)] / n:.3f}"
                           for b in budgets))


if __name__ == "__main__":
    main()
