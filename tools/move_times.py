"""Where one engine's move times went in a match saved with ``gomoku-engine match --out``.

A plain mean of the move times mixes moves the engine had to think about with moves it
rightly played at once: the moves of a game already decided (a forced win found for
either side: the engine plays the win, or the longest defence, without searching on)
and forced moves (one candidate at the root).  This script reads each game's ``.psq``
(the referee's time per move, ms) and ``.sgf`` (who played black), replays every quick
move of the named engine (under ``--quick-ms``) and searches it again with the engine's
own settings at the given turn time to see why it was quick, then prints the mean move
time over all moves and over the moves of undecided positions.

    python tools/move_times.py runs/carbon --name ours --turn-ms 1000
"""

from __future__ import annotations

import re
import statistics
from pathlib import Path

import click

from gomoku_engine.core.constants import Rule, mate_in
from gomoku_engine.engine import Engine
from gomoku_engine.arena.records import read_psq
from gomoku_engine.protocol.policy import move_limits
from gomoku_engine.search.timeman import TimeControl

KINDS = ("thought", "quick, won", "quick, lost", "quick, forced", "quick, other")


def _classify(engine: Engine, turn_ms: int) -> str:
    """Why the engine moves at once here: search as a ``timeout_turn`` game would."""
    budget = TimeControl(turn_ms=turn_ms).budget(engine.board.ply)
    result = engine.search(move_limits(budget))
    mate = mate_in(result.score)
    if mate is not None:
        return "quick, won" if mate > 0 else "quick, lost"
    if result.depth <= 2:  # the iterations stop at depth 2 on a forced root move
        return "quick, forced"
    return "quick, other"


@click.command()
@click.argument("run", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--name", required=True, help="The engine's name in the match (--engine NAME=...).")
@click.option("--turn-ms", type=int, default=1000, show_default=True, help="The match's turn time.")
@click.option("--quick-ms", type=int, default=50, show_default=True,
              help="Moves faster than this are searched again to see why.")
@click.option("--rule", type=click.Choice([r.name.lower() for r in Rule]), default="freestyle",
              show_default=True)
def main(run: Path, name: str, turn_ms: int, quick_ms: int, rule: str) -> None:
    """Mean move time of NAME in the saved games of RUN, all moves and undecided ones."""
    times: dict[str, list[int]] = {kind: [] for kind in KINDS}
    for psq in sorted(run.glob("game_*.psq")):
        sgf = psq.with_suffix(".sgf").read_text()
        black = re.search(r"PB\[([^\]]*)\]", sgf)
        ours_black = black is not None and black.group(1) == name
        width, _, moves = read_psq(psq.read_text())
        engine = Engine(width, rule=Rule[rule.upper()], hash_mb=64)
        engine.new_game()
        opening = 0  # the opening's stones are written with 0 ms
        while opening < len(moves) and moves[opening][2] == 0:
            opening += 1
        for i, (x, y, ms) in enumerate(moves):
            if i >= opening and (i % 2 == 0) == ours_black:
                kind = "thought" if ms >= quick_ms else _classify(engine, turn_ms)
                times[kind].append(ms)
            engine.board.play(x, y)
    every = [ms for kind in KINDS for ms in times[kind]]
    if not every:
        raise click.ClickException(f"no move of {name!r} in {run}")
    for kind in KINDS:
        values = times[kind]
        mean = f"{statistics.mean(values):6.0f} ms" if values else "      -"
        click.echo(f"{kind:14s} {len(values):5d} moves  mean {mean}")
    undecided = times["thought"] + times["quick, forced"] + times["quick, other"]
    click.echo(f"all moves      {len(every):5d} moves  mean {statistics.mean(every):6.0f} ms "
               f"({statistics.mean(every) / turn_ms:.0%} of the turn)")
    if undecided:
        mean = statistics.mean(undecided)
        click.echo(f"undecided      {len(undecided):5d} moves  mean {mean:6.0f} ms "
                   f"({mean / turn_ms:.0%} of the turn)")


if __name__ == "__main__":
    main()
