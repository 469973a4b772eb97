"""Command line: ``gomoku-engine`` (a click group) and ``pbrain-gomoku-engine``.

With no subcommand ``gomoku-engine`` serves the Gomocup protocol on stdin/stdout, exactly
like ``pbrain-gomoku-engine`` (the name managers look for).
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from typing import TYPE_CHECKING

import click

from .constants import Rule

if TYPE_CHECKING:
    from .engine import Engine
    from .stats import Sprt
from .notation import format_pair, format_point, format_score, parse_moves

#: ``--rule`` names (the Gomocup's), with caro as Gomocup runs it (rule 8, overlines
#: count) and caro5 for Piskvork's "standard caro" (rule 9, exactly five).
RULES = {"freestyle": Rule.FREESTYLE, "standard": Rule.STANDARD, "renju": Rule.RENJU,
         "caro": Rule.CARO, "caro5": Rule.CARO_STANDARD}


ALGORITHM_CHOICE = click.Choice(["alphabeta", "ga"])
ALGORITHM_HELP = "Search: alpha-beta, or the genetic algorithm of Wang and Huang (2014)."


def serve(algorithm: str = "alphabeta", seed: int = 0, max_depth: int | None = None) -> None:
    """Run the protocol loop on this process's stdin/stdout, then exit at once.

    ``algorithm``, ``seed`` and ``max_depth`` are the settings until INFO changes them.
    """
    warnings.simplefilter("ignore")
    # Managers read our stderr as protocol lines (protocol notes 1.5): silence it for good.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    sys.stderr = open(os.devnull, "w")
    from .protocol import ProtocolLoop

    ProtocolLoop(sys.stdin.buffer, sys.stdout.buffer, algorithm=algorithm, seed=seed,
                 max_depth=max_depth).run()
    try:
        sys.stdout.flush()
    finally:
        os._exit(0)  # do not wait for a search thread that END has already stopped


def pbrain_main() -> None:
    """Entry point of ``pbrain-gomoku-engine``: the protocol loop only."""
    serve()


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gomoku-engine")
@click.pass_context
def main(ctx: click.Context) -> None:
    """Gomoku engine speaking the Gomocup (pbrain) protocol.

    Without a subcommand, serve the protocol on stdin/stdout.
    """
    if ctx.invoked_subcommand is None:
        serve()


@main.command("serve")
@click.option("--algorithm", type=ALGORITHM_CHOICE, default="alphabeta", show_default=True,
              help=ALGORITHM_HELP + " INFO algorithm overrides it.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Random seed of the genetic algorithm (INFO seed overrides it).")
@click.option("--max-depth", type=click.IntRange(1, 100), default=None,
              help="Depth limit of alpha-beta, as INFO max_depth (which overrides it).")
def serve_command(algorithm: str, seed: int, max_depth: int | None) -> None:
    """Serve the protocol on stdin/stdout with these initial settings."""
    serve(algorithm, seed, max_depth)


@main.command()
def warmup() -> None:
    """Compile the numba kernels into the on-disk cache (or load them) and report the time."""
    from .engine import warmup as do_warmup

    seconds = do_warmup()
    click.echo(f"kernels ready in {seconds:.2f} s")


@main.command()
@click.option("--depth", default=None, type=click.IntRange(1, 30),
              help="Search depth in plies [default: 8].")
def bench(depth: int | None) -> None:
    """Search fixed positions to a fixed depth; print nodes, nodes/s and a signature."""
    from .bench import DEFAULT_DEPTH, run_bench

    report = run_bench(depth or DEFAULT_DEPTH)
    for line in report.lines:
        click.echo(f"{line.position.name:22s} nodes {line.nodes:10d}  score {line.score:8d}  "
                   f"best {format_pair(line.move):6s} ({format_point(line.move)})  "
                   f"{line.seconds * 1000:8.1f} ms")
    click.echo(f"Depth           : {report.depth}")
    click.echo(f"Nodes searched  : {report.nodes}")
    click.echo(f"Time (ms)       : {report.seconds * 1000:.0f}")
    click.echo(f"Nodes/second    : {report.nps}")
    click.echo(f"Bench signature : {report.signature}")


@main.command()
@click.argument("position")
@click.option("--rule", type=click.Choice(sorted(RULES)), default="freestyle", show_default=True)
@click.option("--size", type=click.IntRange(5, 32), default=15, show_default=True)
@click.option("--time", "time_ms", type=click.IntRange(1, None), default=1000, show_default=True,
              help="Thinking time in ms.")
@click.option("--depth", type=click.IntRange(1, 100), default=None, help="Maximum depth.")
@click.option("--threats/--no-threats", default=False, show_default=True,
              help="Threat-space search (VCF) at the root and the horizon.")
@click.option("--algorithm", type=ALGORITHM_CHOICE, default="alphabeta", show_default=True,
              help=ALGORITHM_HELP)
@click.option("--seed", type=int, default=0, show_default=True,
              help="Random seed of the genetic algorithm.")
def analyze(position: str, rule: str, size: int, time_ms: int, depth: int | None,
            threats: bool, algorithm: str, seed: int) -> None:
    """Analyse POSITION (moves like h8i9j10, or x,y pairs; black first).

    Prints one line per completed iteration (for the genetic algorithm: one line for the
    fittest sequence), then the best move.
    """
    from .engine import Limits, SearchInfo

    engine = _engine_at(position, size, rule)
    engine.set_algorithm(algorithm)
    engine.seed = seed

    def show(info: SearchInfo) -> None:
        pv = " ".join(format_point(p) for p in info.pv)
        click.echo(f"depth {info.depth:2d}/{info.seldepth:<2d} score {format_score(info.score):>10s} "
                   f"nodes {info.nodes:9d} nps {info.nps:8d} time {info.time_ms:7.0f} ms  pv {pv}")

    limits = Limits(hard_ms=time_ms, soft_ms=time_ms / 2, depth=depth, threats=threats)
    result = engine.search(limits, show)
    click.echo(f"bestmove {format_pair(result.move)} ({format_point(result.move)}) "
               f"score {format_score(result.score)} depth {result.depth}")
    if algorithm == "ga" and engine.last_ga:
        ga = engine.last_ga
        click.echo(f"genetic algorithm: {ga['generations']} generations, "
                   f"{ga['evaluations']} evaluations, move chosen by {ga['kind']}")


@main.command()
@click.argument("position")
@click.option("--rule", type=click.Choice(sorted(RULES)), default="freestyle", show_default=True)
@click.option("--size", type=click.IntRange(5, 32), default=15, show_default=True)
@click.option("--vcf", "kind", flag_value="vcf", help="Fours only.")
@click.option("--vct", "kind", flag_value="vct", default=True,
              help="Threes and fours [default].")
@click.option("--time", "time_ms", type=click.IntRange(1, None), default=5000, show_default=True,
              help="Time budget in ms.")
@click.option("--depth", type=click.IntRange(1, 60), default=None,
              help="Most threats before the five [default: 30 for VCF, 12 for VCT].")
def solve(position: str, rule: str, size: int, kind: str, time_ms: int,
          depth: int | None) -> None:
    """Does the side to move in POSITION win by VCF or VCT?  Prints the winning line.

    POSITION is a move list (h8i9j10 or x,y pairs), black first.  The exit status is 0
    whether or not a win is found, 2 for bad input.
    """
    engine = _engine_at(position, size, rule)
    result = engine.solve(kind, time_ms, depth)
    side = "black" if engine.board.to_move == 1 else "white"
    if result.win:
        line = " ".join(format_point(p) for p in result.line)
        click.echo(f"{side} wins by {kind.upper()} in {len(result.line)} plies: {line}")
    elif result.aborted:
        click.echo(f"no {kind.upper()} found for {side} within the budget (unknown)")
    else:
        click.echo(f"{side} has no {kind.upper()}")
    click.echo(f"nodes {result.nodes} time {result.time_ms:.0f} ms")


def _engine_at(position: str, size: int, rule: str) -> Engine:
    """An engine on the position given on the command line (click error on bad input)."""
    from .engine import Engine
    from .errors import GomokuError

    engine = Engine(size, rule=RULES[rule], hash_mb=16)
    try:
        for x, y in parse_moves(position):
            engine.board.play(x, y)
    except GomokuError as exc:
        raise click.BadParameter(str(exc), param_hint="POSITION") from exc
    if engine.board.is_full:
        raise click.BadParameter("the board is full", param_hint="POSITION")
    return engine


@main.command()
@click.option("--size", type=click.IntRange(5, 32), default=15, show_default=True)
@click.option("--turn-ms", type=click.IntRange(10, None), default=300, show_default=True,
              help="INFO timeout_turn sent to both engines.")
@click.option("--rule", type=click.Choice(sorted(RULES)), default="freestyle", show_default=True)
@click.option("--opening", default="", help="Opening stones, e.g. h8i9j7.")
@click.option("--algorithm", type=ALGORITHM_CHOICE, default="alphabeta", show_default=True,
              help="Black's search. " + ALGORITHM_HELP)
@click.option("--white-algorithm", type=ALGORITHM_CHOICE, default=None,
              help="White's search [default: as --algorithm].")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Random seed of the genetic algorithm.")
def demo(size: int, turn_ms: int, rule: str, opening: str, algorithm: str,
         white_algorithm: str | None, seed: int) -> None:
    """Play a game between two engine processes through the protocol, drawing the board."""
    from .board import Board
    from .game import MoveRecord, play_game

    def command_for(name: str) -> list[str]:
        return [sys.executable, "-m", "gomoku_engine", "serve", "--algorithm", name,
                "--seed", str(seed)]

    black_command = command_for(algorithm)
    white_command = command_for(white_algorithm or algorithm)
    interactive = sys.stdout.isatty()

    def draw(board: Board, move: MoveRecord) -> None:
        colour = "black (X)" if move.colour == 1 else "white (O)"
        if interactive:
            click.echo("\033[2J\033[H", nl=False)
            click.echo(board)
        click.echo(f"move {board.ply:3d}: {colour} plays {format_point(move.point):4s} "
                   f"({format_pair(move.point)}) in {move.seconds * 1000:5.0f} ms")

    began = time.perf_counter()
    record = play_game(black_command, white_command, size=size, rule=RULES[rule],
                       turn_ms=turn_ms, opening=parse_moves(opening), on_move=draw)
    final = Board(size, rule=RULES[rule])
    for x, y in record.opening + [m.point for m in record.moves]:
        final.play(x, y)
    if not interactive:
        click.echo(final)
    result = {0: "draw", 1: "black (X) wins", 2: "white (O) wins"}[record.winner]
    click.echo(f"{result} ({record.reason}) after {final.ply} stones, "
               f"{time.perf_counter() - began:.1f} s")


@main.command()
@click.option("--engine", "engines", multiple=True, required=True, metavar="NAME=COMMAND",
              help="An engine, twice (the first one's score is reported).")
@click.option("--games", type=click.IntRange(1, None), default=20, show_default=True)
@click.option("--openings", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Opening file in pos or offset format.")
@click.option("--size", type=click.IntRange(5, 32), default=15, show_default=True)
@click.option("--rule", type=click.Choice(sorted(RULES)), default="freestyle", show_default=True)
@click.option("--turn-ms", type=click.IntRange(1, None), default=1000, show_default=True)
@click.option("--concurrency", type=click.IntRange(1, 64), default=1, show_default=True)
@click.option("--seed", type=int, default=None, help="Shuffle the openings with this seed.")
@click.option("--max-moves", type=click.IntRange(1, None), default=None,
              help="Adjudicate a draw after this many moves.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Folder for every game as PSQ and SGF, and summary.json.")
@click.option("--sprt", default=None, metavar="'elo0=0 elo1=10 alpha=0.05 beta=0.05'",
              help="Stop the match once this SPRT is decided.")
def match(engines: tuple[str, ...], games: int, openings: str | None, size: int, rule: str,
          turn_ms: int, concurrency: int, seed: int | None, max_moves: int | None,
          out: str | None, sprt: str | None) -> None:
    """Play games between two Gomocup engines with paired openings; print the score."""
    from .game import GameRecord
    from .match import load_openings, run_match, save_match, split_command
    from .stats import elo_estimate

    if len(engines) != 2:
        raise click.BadParameter("give exactly two --engine NAME=COMMAND", param_hint="--engine")
    named = []
    for spec in engines:
        name, sep, command = spec.partition("=")
        if not sep or not command.strip():
            raise click.BadParameter(f"{spec!r} is not NAME=COMMAND", param_hint="--engine")
        named.append((name, split_command(command)))
    opening_list = load_openings(openings, size) if openings else []
    (first_name, first), (second_name, second) = named

    from tqdm import tqdm

    progress = tqdm(total=games, unit="game", file=sys.stderr, disable=not sys.stderr.isatty())

    def report(index: int, first_black: bool, record: GameRecord) -> None:
        black, white = (first_name, second_name) if first_black else (second_name, first_name)
        outcome = {0: "draw", 1: f"{black} wins", 2: f"{white} wins"}[record.winner]
        progress.write(f"game {index + 1:3d}: {black} (black) vs {white} (white): {outcome} "
                       f"({record.reason}, {len(record.opening) + len(record.moves)} stones)",
                       file=sys.stdout)
        progress.update()

    test = _parse_sprt(sprt) if sprt else None
    with progress:
        result = run_match(first, second, opening_list, games, size=size, rule=RULES[rule],
                           turn_ms=turn_ms, concurrency=concurrency, seed=seed,
                           max_moves=max_moves, on_game=report, sprt=test)
    wins, losses, draws = result.score()
    total = wins + losses + draws
    click.echo(f"Score of {first_name} vs {second_name}: {wins} - {losses} - {draws} "
               f"[{(wins + draws / 2) / total:.3f}] {total}")
    if test is not None:
        lower, upper = test.bounds
        verdict = {"H1": f"H1 accepted (elo >= {test.elo1:g})",
                   "H0": f"H0 accepted (elo <= {test.elo0:g})"}.get(result.sprt or "",
                                                                   "undecided")
        click.echo(f"SPRT: LLR {test.llr(wins, losses, draws):.2f} "
                   f"[{lower:.2f}, {upper:.2f}]: {verdict}")
    est = elo_estimate(wins, losses, draws)
    click.echo(f"Elo difference: {est.elo:.1f} (95% interval {est.low:.1f} .. {est.high:.1f}), "
               f"LOS {100 * est.los:.1f}%")
    if out:
        save_match(result, out, first_name, second_name, size)
        click.echo(f"Games saved in {out}")
    forfeits = result.forfeits()
    click.echo(f"Forfeits: {len(forfeits)}" + "".join(f"\n  {f}" for f in forfeits))
    for name, is_first in ((first_name, True), (second_name, False)):
        times = result.move_times(is_first)
        late = sum(1 for t in times if t * 1000 > turn_ms)
        if times:
            click.echo(f"{name}: {len(times)} moves, mean {1000 * sum(times) / len(times):.0f} ms, "
                       f"max {1000 * max(times):.0f} ms, over {turn_ms} ms: {late}")


def _parse_sprt(text: str) -> Sprt:
    """``"elo0=0 elo1=10 alpha=0.05 beta=0.05"`` (any subset, any order) as an :class:`Sprt`."""
    from .stats import Sprt

    values: dict[str, float] = {}
    for part in text.replace(",", " ").split():
        key, sep, value = part.partition("=")
        if not sep or key not in ("elo0", "elo1", "alpha", "beta"):
            raise click.BadParameter(f"{part!r}: expected elo0=, elo1=, alpha= or beta=",
                                     param_hint="--sprt")
        try:
            values[key] = float(value)
        except ValueError:
            raise click.BadParameter(f"{part!r}: not a number", param_hint="--sprt") from None
    return Sprt(**values)
