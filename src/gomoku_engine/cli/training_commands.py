"""The evaluation's training pipeline: ``selfplay``, ``match-games``, ``label``, ``fit``."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from concurrent.futures import Executor, ThreadPoolExecutor
from contextlib import ExitStack, contextmanager, nullcontext

import click

from .group import RULE_CHOICE, RULES, main


@main.command()
@click.option("--rule", type=RULE_CHOICE, default="freestyle", show_default=True)
@click.option("--size", type=click.IntRange(5, 32), default=15, show_default=True)
@click.option("--games", type=click.IntRange(1, None), default=1000, show_default=True)
@click.option("--nodes", type=click.IntRange(100, None), default=8000, show_default=True,
              help="Node budget of each engine move.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Processes playing games side by side (with --engine: that engine's); "
                   "the games do not depend on it.")
@click.option("--engine", "command", default=None,
              help="Command line of another Gomocup engine (e.g. a rapfi build's pbrain-rapfi) "
                   "to play both sides from the same openings instead of this one.")
@click.option("--depth", type=click.IntRange(1, 60), default=10, show_default=True,
              help="With --engine: the depth limit of its search (INFO max_depth).")
@click.option("--out", type=click.Path(dir_okay=False, writable=True), required=True,
              help="The .npz file to write.")
@click.option("--cluster", default=None, metavar="SPEC",
              help="Play batches of seeded games on a Dask cluster, as match --cluster "
                   "('local:N' or tcp://host:8786); the same games as here.")
def selfplay(rule: str, size: int, games: int, nodes: int, seed: int, workers: int,
             command: str | None, depth: int, out: str, cluster: str | None) -> None:
    """Play seeded self-play games from random openings and save them for `fit`.

    With --engine, each batch of games is played by a fresh process of that engine
    (threads run the batches side by side with --workers)."""
    import shlex

    from tqdm import tqdm

    from ..training.selfplay import generate, generate_external, save

    argv = None if command is None else shlex.split(command)
    with _batch_executor(cluster, workers if argv else 1, argv) as (executor, window), \
            tqdm(total=games, unit="game", disable=None) as bar:
        if argv is None:
            records = generate(RULES[rule], games, seed, nodes, size, workers,
                               progress=lambda _: bar.update(), executor=executor,
                               window=window)
        else:
            records = generate_external(argv, RULES[rule], games, seed, depth, size,
                                        progress=lambda _: bar.update(),
                                        executor=executor, window=window)
    save(out, records, size, RULES[rule], 0 if argv else nodes, seed, argv, depth)
    wins = [sum(r.result == c for r in records) for c in (1, 2, 0)]
    click.echo(f"{games} games, {sum(len(r.moves) for r in records)} moves: black {wins[0]}, "
               f"white {wins[1]}, draws {wins[2]} -> {out}")


@contextmanager
def _batch_executor(cluster: str | None, threads: int, command: list[str] | None
                    ) -> Iterator[tuple[Executor | None, int]]:
    """Where the batches of ``selfplay`` and ``label`` run, and how many are submitted at a
    time: a Dask cluster's executor (``cluster``, a SPEC) once every worker runs the same
    engine (``command``, or this package: :func:`gomoku_engine.arena.cluster.preflight`),
    twice its worker threads; else ``threads`` threads (None, 1: here, in order)."""
    from ..arena.cluster import ClusterError, connect, preflight
    from ..arena.match import EngineSpec

    if cluster is None:
        with ThreadPoolExecutor(threads) if threads > 1 else nullcontext() as executor:
            yield executor, threads
        return
    engine = (EngineSpec("gomoku-engine", (sys.executable, "-m", "gomoku_engine"))
              if command is None else EngineSpec("engine", tuple(command)))
    with ExitStack() as stack:
        try:
            client = stack.enter_context(connect(cluster))
            preflight(client, [engine], bench_depth=None)
        except (ValueError, ClusterError) as exc:
            raise click.ClickException(str(exc)) from exc
        yield client.get_executor(pure=False), 2 * sum(client.nthreads().values())


@main.command("match-games")
@click.argument("folders", nargs=-1, required=True,
                type=click.Path(exists=True, file_okay=False))
@click.option("--out", type=click.Path(dir_okay=False, writable=True), required=True,
              help="The .npz games file to write.")
def match_games(folders: tuple[str, ...], out: str) -> None:
    """Write the games of `match --out` FOLDERS as a games file for `label` and `train`:
    our games against another engine, to be scored by that engine.  Games not decided on
    the board (a forfeit, a move limit) are left out."""
    from ..training.match_games import read_match
    from ..training.selfplay import save

    try:
        read = read_match(list(folders))
    except (ValueError, KeyError, TypeError) as exc:
        raise click.ClickException(f"not a readable match folder: {exc}") from exc
    save(out, read.games, read.size, read.rule, 0, 0, read.engines)
    click.echo(f"{len(read.games)} games, {sum(len(g.moves) for g in read.games)} stones "
               f"({read.left_out} left out, not decided on the board) -> {out}")


@main.command()
@click.argument("games", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False))
@click.option("--engine", "command", required=True,
              help="Command line of the Gomocup engine that scores the positions "
                   "(e.g. a rapfi build's pbrain-rapfi).")
@click.option("--depth", type=click.IntRange(1, 60), default=12, show_default=True,
              help="Depth limit of its search (INFO max_depth).")
@click.option("--out", type=click.Path(dir_okay=False, writable=True), required=True,
              help="The .npz file of scores to write.")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Engine processes scoring batches of games side by side.")
@click.option("--cluster", default=None, metavar="SPEC",
              help="Score batches of games on a Dask cluster, as match --cluster "
                   "('local:N' or tcp://host:8786); the engine must be the same file on "
                   "every worker.")
def label(games: tuple[str, ...], command: str, depth: int, out: str, workers: int,
          cluster: str | None) -> None:
    """Score the quiet positions of `selfplay` GAMES files with another engine, for
    `fit --labels`.  Each batch of games is scored by a fresh engine process, so the
    scores do not depend on --workers or --cluster."""
    import shlex

    from tqdm import tqdm

    from ..training.labelling import label_games, save_labels
    from ..training.selfplay import load

    records = load(list(games))
    argv = shlex.split(command)
    with _batch_executor(cluster, workers, argv) as (executor, window), \
            tqdm(total=len(records["length"]), unit="game", disable=None) as bar:
        labels = label_games(records, argv, depth,
                             progress=lambda n: (bar.update(), bar.set_postfix(positions=n)),
                             executor=executor, window=window)
    save_labels(out, labels, depth, argv)
    click.echo(f"{len(labels.game)} positions of {len(records['length'])} games scored, "
               f"{int((labels.mate != 0).sum())} of them forced wins -> {out}")


@main.command()
@click.argument("games", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False))
@click.option("--l2", type=click.FloatRange(0, None), default=None,
              help="Pull towards the hand-set values [default: tuning.DEFAULT_L2].")
@click.option("--labels", "labels_path", type=click.Path(exists=True, dir_okay=False),
              default=None, help="Fit to an engine's scores of the positions (a `label` "
                                 "file of these GAMES) instead of the results alone.")
@click.option("--mix", type=click.FloatRange(0, 1), default=1.0, show_default=True,
              help="With --labels: weight of the engine's score in the target, the rest "
                   "being the game result.")
@click.option("--out", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Where to write the fitted table (.npz).")
@click.option("--install", is_flag=True,
              help="Write it over the package's own table for the games' rule instead, "
                   "which the installed engine then loads.")
def fit(games: tuple[str, ...], l2: float | None, labels_path: str | None, mix: float,
         out: str | None, install: bool) -> None:
    """Fit the evaluation's point values to the results of `selfplay` GAMES files and
    write them where told: --out FILE, or --install (over the engine's own table)."""
    if (out is None) == (not install):
        raise click.UsageError("say where to write the table: --out FILE, or --install to "
                               "replace the engine's own table (not both)")
    from ..eval.classical import learned_file
    from ..training.labelling import load_labels
    from ..training.selfplay import load
    from ..training.tuning import DEFAULT_L2, build_dataset, build_labelled_dataset, save_fit
    from ..training.tuning import fit as fit_values

    records = load(list(games))
    if labels_path is None:
        data = build_dataset(records)
    else:
        data, scale = build_labelled_dataset(records, load_labels(labels_path), mix)
        click.echo(f"engine scores: {scale:.1f} per logit of the results")
    click.echo(f"{len(data.target)} quiet positions from {len(records['length'])} games")
    result = fit_values(data, DEFAULT_L2 if l2 is None else l2)
    path = out or learned_file(records["rule"])
    save_fit(path, result, records["rule"])
    click.echo(f"held-out log-loss: hand-set {result.handset_loss:.4f} (scale "
               f"{result.scale:.0f}), learned {result.learned_loss:.4f}; "
               f"{result.train_positions} training / {result.test_positions} held-out "
               f"positions -> {path}")
