"""``gomoku-engine tune``: SPSA over the search's parameters by games against an opponent
(:mod:`gomoku_engine.arena.tune`), on this machine's threads or a Dask cluster."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from .group import RULE_CHOICE, RULES, main
from .openings_commands import OPENINGS

if TYPE_CHECKING:
    from ..arena.tune import TuneSettings, TuneState

#: write the plot and the values every this many iterations (and at the end), so that a
#: long run stopped early still has them
RESULTS_EVERY = 10


@main.command()
@click.option("--list", "list_only", is_flag=True,
              help="Print every tunable's name, default, range and step, and exit.")
@click.option("--engine", default=None, metavar="CMD",
              help="The engine tuned (its command line, quoted); it must accept "
                   "'INFO param NAME VALUE'.")
@click.option("--opponent", default=None, metavar="CMD",
              help="The fixed opponent (e.g. a Rapfi build), or this engine at its "
                   "defaults for self-play.")
@click.option("--params", "params", default="all", show_default=True, metavar="NAMES",
              help="The tunables searched, comma-separated, or 'all' (see --list).")
@click.option("--start", "starts", multiple=True, metavar="NAME=VALUE",
              help="Start a searched tunable here instead of at its default (repeatable).")
@click.option("--games", type=click.IntRange(4, None), default=400, show_default=True,
              help="Games of the whole run: 4 an opening (theta+ and theta-, each "
                   "with both colours against the opponent).")
@click.option("--pairs", type=click.IntRange(1, None), default=1, show_default=True,
              help="Openings an SPSA iteration (4 games each): more keeps more workers busy.")
@click.option("--nodes", type=click.IntRange(1, None), default=None,
              help="Node cap of every move of both engines (INFO max_node); the games "
                   "then do not depend on the machine's load.")
@click.option("--opponent-nodes", type=click.IntRange(1, None), default=None,
              help="The opponent's node cap instead of --nodes: node odds, so that the "
                   "score is near even (where SPSA learns most), e.g. Rapfi at a quarter "
                   "of our nodes.")
@click.option("--turn-ms", type=click.IntRange(0, None), default=0, show_default=True,
              help="Time per move (INFO timeout_turn); 0 with --nodes: a 60 s safety net.")
@click.option("--openings", type=OPENINGS, default=None,
              help="Opening file or built-in set, as match reads it; each iteration draws "
                   "one (seeded). Without it the games start empty.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Folder of the run's state (resumed when it holds one), plot and values.")
@click.option("--workers", "--concurrency", "workers", type=click.IntRange(1, 64), default=1,
              show_default=True, help="Games played at the same time on this machine.")
@click.option("--cluster", default=None, metavar="SPEC",
              help="Play on a Dask cluster, as match --cluster: 'local', 'local:N' or a "
                   "scheduler address tcp://host:8786 (each opening's pair on one worker).")
@click.option("--seed", type=int, default=1, show_default=True,
              help="Seeds the perturbations and the openings drawn.")
@click.option("--size", type=click.IntRange(5, 32), default=15, show_default=True)
@click.option("--rule", type=RULE_CHOICE, default="freestyle", show_default=True)
@click.option("--gain", type=click.FloatRange(0, None, min_open=True), default=8.0,
              show_default=True,
              help="SPSA's a (nevergrad's attribute): steps moved per unit of score "
                   "difference, before its decay.")
@click.option("--perturbation", type=click.FloatRange(0, None, min_open=True), default=1.0,
              show_default=True,
              help="SPSA's c: theta+ and theta- this many steps either side, before decay.")
def tune(list_only: bool, engine: str | None, opponent: str | None, params: str,
         starts: tuple[str, ...], games: int, pairs: int, nodes: int | None,
         opponent_nodes: int | None, turn_ms: int, openings: str | None, out: str | None,
         workers: int, cluster: str | None, seed: int, size: int, rule: str, gain: float,
         perturbation: float) -> None:
    """Tune the search's parameters by SPSA (nevergrad) over games against an opponent.

    Each iteration plays, from one opening drawn from --openings, theta+ and theta- each
    a colour-swapped pair against the opponent.  The state is saved in --out after each
    iteration; the same command resumes it.  At the end: a plot, the values as a
    search/params.py block and as INFO param lines (also in --out).

    \b
    Example, 4 parameters, self-play at 2,000 nodes a move:
      gomoku-engine tune --engine gomoku-engine --opponent gomoku-engine \\
          --params futility_margin,razor_margin,lmr_base,lmr_divisor \\
          --games 400 --nodes 2000 --openings openings.pos --workers 2 --out tune1/
    """
    from ..arena.tune_report import tunable_lines

    if list_only:
        for line in tunable_lines():
            click.echo(line)
        return
    settings = _settings(engine, opponent, params, starts, games, pairs, nodes, turn_ms,
                         openings, out, seed, size, rule, gain, perturbation, opponent_nodes)
    _run(settings, openings, out, workers, cluster)


def _settings(engine: str | None, opponent: str | None, params: str,
              starts: tuple[str, ...], games: int, pairs: int, nodes: int | None,
              turn_ms: int, openings: str | None, out: str | None, seed: int, size: int,
              rule: str, gain: float, perturbation: float,
              opponent_nodes: int | None = None) -> TuneSettings:
    """The run's :class:`~gomoku_engine.arena.tune.TuneSettings`, every option checked
    (click's usage errors otherwise)."""
    import shlex

    from ..arena.spsa import tunable_named
    from ..arena.tune import TuneSettings
    from ..search.params import TUNABLES, parse_assignments

    for value, hint in ((engine, "--engine"), (opponent, "--opponent"), (out, "--out")):
        if not value:
            raise click.UsageError(f"{hint} is required (or --list)")
    if nodes is None and turn_ms == 0:
        raise click.BadParameter("give a node cap (--nodes) or a time per move",
                                 param_hint="--turn-ms")
    try:
        names = ([t.name for t in TUNABLES] if params.strip().lower() == "all"
                 else [tunable_named(n).name for n in params.split(",") if n.strip()])
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--params") from exc
    if not names or len(set(names)) != len(names):
        raise click.BadParameter("name each tunable once", param_hint="--params")
    try:
        start = parse_assignments(starts)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--start") from exc
    stray = sorted(set(start) - set(names))
    if stray:
        raise click.BadParameter(f"{', '.join(stray)} not among --params", param_hint="--start")
    return TuneSettings(tuple(shlex.split(engine)), tuple(shlex.split(opponent)), tuple(names),
                        tuple(sorted(start.items())), games, pairs, nodes, turn_ms, size,
                        int(RULES[rule]), seed, gain, perturbation, openings, opponent_nodes)


def _run(settings: TuneSettings, openings: str | None, out: str, workers: int,
         cluster: str | None) -> None:
    """Resume or start the run in ``out``, check the engines, play it, write its results."""
    from tqdm import tqdm

    from ..arena.match import EngineSpec, load_openings
    from ..arena.tune import TuneError, check_engines, resume_or_start, run_tune
    from ..arena.tune_report import info_text, params_block, write_results
    from .cluster_runner import cluster_runner_or_none

    try:
        state = resume_or_start(settings, out)
        check_engines(settings, state.spsa.current_values())
    except (TuneError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    opening_list = load_openings(openings, settings.size) if openings else []
    if state.history:
        click.echo(f"resuming {out}: {len(state.history)} of {settings.iterations} "
                   "iterations played")
    games_each = 4 * settings.pairs

    def saved(now: TuneState) -> None:
        if len(now.history) % RESULTS_EVERY == 0:
            write_results(now, out)

    specs = [EngineSpec("engine", settings.engine), EngineSpec("opponent", settings.opponent)]
    with cluster_runner_or_none(cluster, specs, {}) as runner, \
            tqdm(total=settings.iterations * games_each, initial=len(state.history) * games_each,
                 unit="game", file=sys.stderr, disable=not sys.stderr.isatty()) as bar:
        try:
            run_tune(state, opening_list, out, concurrency=workers, runner=runner,
                     on_game=bar.update, on_iteration=saved)
        except TuneError as exc:
            raise click.ClickException(str(exc)) from exc
    paths = write_results(state, out)
    from ..arena.tune import move_totals

    for name, row in move_totals(state).items():
        click.echo(f"{name}: {row['moves']} moves, kernel-free {row['kernel_free']} "
                   f"({row['kernel_free_after_first']} after the first of a game), over the "
                   f"turn {row['over_turn']}")
        if row["kernel_free"]:
            click.echo(f"WARNING: {name} played {row['kernel_free']} kernel-free moves (not "
                       "searched): those games did not measure its values")
    click.echo(params_block(state), nl=False)
    click.echo(info_text(state), nl=False)
    click.echo("written: " + ", ".join(str(p) for p in paths))
